/* ubdump's -z tables (ubdump_z.h). */
#include "ubdump_z.h"

#include "ubparse/expert.h"
#include "ubparse/state.h"

#include <string.h>

/* the kinds of table, in ord[] */
enum { ZT_STATS, ZT_SRTF, ZT_EXPERT, ZT_IO, ZT_PHS, ZT_TREE, ZT_TREEF, ZT_CONV, ZT_CONVF };

/* the table just made goes in option order; 2 when there are too many */
static int zadd(ubx_z *z, unsigned t, unsigned k, bool ep, unsigned bits, const char *arg)
{
    if (z->nord == sizeof z->ord / sizeof z->ord[0]) {
        fprintf(stderr, "ubdump: -z %s: at most %zu -z tables\n", arg, sizeof z->ord / sizeof z->ord[0]);
        return 2;
    }
    z->ord[z->nord++] = (ubx_ztab){ (uint8_t)t, (uint8_t)k, ep, bits };
    return 0;
}

static void help(void)
{
    ub_stats_help(stdout);
    puts("io,stat,INTERVAL[,FILTER]...  frames and bytes per interval (seconds, 0 = all), a column per filter");
    puts("io,phs[,FILTER]  protocol hierarchy: frames and bytes per protocol path (frame.protocols)");
    puts("conv,ub, endpoints,ub  UB conversations / endpoints (CNA or IP pairs): frames and bytes per direction");
    puts("conv,ub_eid, endpoints,ub_eid  EID pairs / EIDs of the packets with an EIDH, as tshark's");
    puts("conv,ub_tp, endpoints,ub_tp  TP channels / TP endpoints (address:0xTPN, address (UTP)), as tshark's");
    puts("conv,eth|ip|ipv6|tcp|udp, endpoints,...  Wireshark's tables of the headers outside UB (UBoE, plain IP, not UB)");
    puts("ub,tree  packet counts per CFG, TAOpcode, TPOpcode, DLLCB type, Code (tshark's stats tree, rates, bursts)");
    puts("expert   expert items per severity (tshark -2 -z expert: decoder errors, TP analysis, findings per rule)");
    puts("(several tables print in the reverse of their -z options, as tshark prints them)");
}

/* room for one more table of a kind that has n (printed when not) */
static bool room(unsigned n, const char *what, const char *arg)
{
    if (n < UBX_ZMAX) return true;
    fprintf(stderr, "ubdump: -z %s: at most %d %s tables\n", arg, UBX_ZMAX, what);
    return false;
}

int ubx_z_option(ubx_z *z, const char *arg)
{
    char err[300];
    if (strcmp(arg, "help") == 0) {
        help();
        return 1;
    }
    unsigned ck;
    bool ce;
    const char *cfx;
    if (ub_conv_parse_filter(arg, &ck, &ce, &cfx) == 0 && cfx) { /* tshark's tap filter */
        if (!room(z->nconvf, "filtered conv/endpoints", arg)) return 2;
        if (!(z->convf[z->nconvf] = ub_conv_new_filtered(ck, cfx, err, sizeof err))) {
            fprintf(stderr, "ubdump: -z %s: %s\n", arg, err);
            return 2;
        }
        z->convf_ep[z->nconvf] = ce;
        return zadd(z, ZT_CONVF, z->nconvf++, ce, 0, arg);
    }
    if (ub_conv_parse(arg, &ck, &ce) == 0) {
        if (!z->conv[ck] && !(z->conv[ck] = ub_conv_new_kind(ck))) return 2;
        unsigned bit = ce ? 2u : 1u;
        if (z->conv_what[ck] & bit) return 0; /* asked for already: one table */
        z->conv_what[ck] |= bit;
        return zadd(z, ZT_CONV, ck, ce, 0, arg);
    }
    const char *zf = NULL; /* tshark's tap filters: -z ub,srt,FILTER, -z expert[,LEVEL][,FILTER] */
    bool zsrt = strncmp(arg, "ub,srt,", 7) == 0, zx = !zsrt && ub_expert_parse(arg, &z->x_sev, &zf) == 0;
    if (zsrt || zx) {
        ub_filter **pf = zsrt ? &z->srt_f : &z->x_f;
        if (zsrt ? z->srt_f != NULL : z->expert) { /* tshark would print a table each */
            fprintf(stderr, "ubdump: -z %s: only one -z %s per run\n", arg, zsrt ? "ub,srt,FILTER" : "expert[,LEVEL][,FILTER]");
            return 2;
        }
        if (zsrt) zf = arg + 7;
        if (zf && !(*pf = ub_filter_compile(zf, err, sizeof err))) {
            fprintf(stderr, "ubdump: -z %s: %s\n", arg, err);
            return 2;
        }
        z->expert |= zx;
        return zadd(z, zsrt ? ZT_SRTF : ZT_EXPERT, 0, false, 0, arg);
    }
    if (strncmp(arg, "ub,tree,", 8) == 0) { /* tshark's tap filter */
        if (!room(z->ntreef, "filtered ub,tree", arg)) return 2;
        if (!(z->treef[z->ntreef] = ub_sttree_new_filtered(arg + 8, err, sizeof err))) {
            fprintf(stderr, "ubdump: -z %s: %s\n", arg, err);
            return 2;
        }
        return zadd(z, ZT_TREEF, z->ntreef++, false, 0, arg);
    }
    if (strcmp(arg, "ub,tree") == 0) {
        if (z->tree) return 0;
        if (!(z->tree = ub_sttree_new())) return 2;
        return zadd(z, ZT_TREE, 0, false, 0, arg);
    }
    if (strcmp(arg, "io,phs") == 0 || strncmp(arg, "io,phs,", 7) == 0) {
        if (!room(z->nphs, "io,phs", arg)) return 2;
        if (!(z->phs[z->nphs] = ub_phs_new(arg, err, sizeof err))) {
            fprintf(stderr, "ubdump: -z %s\n", err);
            return 2;
        }
        return zadd(z, ZT_PHS, z->nphs++, false, 0, arg);
    }
    if (strncmp(arg, "io,stat,", 8) == 0) {
        if (!room(z->nio, "io,stat", arg)) return 2;
        if (!(z->io[z->nio] = ub_iostat_new(arg, err, sizeof err))) {
            fprintf(stderr, "ubdump: -z %s\n", err);
            return 2;
        }
        return zadd(z, ZT_IO, z->nio++, false, 0, arg);
    }
    unsigned before = z->zmask;
    if (ub_stats_parse(arg, &z->zmask) != 0) {
        fprintf(stderr, "ubdump: unknown statistic '%s' (ubdump -z help)\n", arg);
        return 2;
    }
    return z->zmask == before ? 0 : zadd(z, ZT_STATS, 0, false, z->zmask & ~before, arg);
}

static bool any_conv(const ubx_z *z)
{
    for (unsigned i = 0; i < UB_CONV__N; i++)
        if (z->conv[i]) return true;
    return false;
}

bool ubx_z_per_record(const ubx_z *z) { return z->nconvf || z->ntreef || z->nio || z->nphs; }
bool ubx_z_per_unit(const ubx_z *z) { return any_conv(z) || z->tree || ubx_z_per_record(z); }
bool ubx_z_any(const ubx_z *z) { return z->nord != 0; }

/* does any table's filter satisfy uses? */
static bool any_filter(const ubx_z *z, bool (*uses)(const ub_filter *), bool (*io)(const ub_iostat *),
                       bool (*phs)(const ub_phs *), bool (*tree)(const ub_sttree *), bool (*conv)(const ub_conv *))
{
    bool r = uses(z->srt_f) || uses(z->x_f);
    for (unsigned k = 0; k < z->nio; k++) r |= io(z->io[k]);
    for (unsigned k = 0; k < z->nphs; k++) r |= phs(z->phs[k]);
    for (unsigned k = 0; k < z->ntreef; k++) r |= tree(z->treef[k]);
    for (unsigned k = 0; k < z->nconvf; k++) r |= conv(z->convf[k]);
    return r;
}

bool ubx_z_uses_analysis(const ubx_z *z)
{
    return z->expert || any_filter(z, ub_filter_uses_analysis, ub_iostat_uses_analysis, ub_phs_uses_analysis,
                                   ub_sttree_uses_analysis, ub_conv_uses_analysis);
}

bool ubx_z_uses_frame(const ubx_z *z)
{
    return any_filter(z, ub_filter_uses_frame, ub_iostat_uses_frame, ub_phs_uses_frame, ub_sttree_uses_frame, ub_conv_uses_frame);
}

void ubx_z_show_frame(ubx_z *z, bool on)
{
    for (unsigned k = 0; k < z->nphs; k++) ub_phs_show_frame(z->phs[k], on);
}

void ubx_z_span(ubx_z *z, uint64_t rel_ns)
{
    for (unsigned k = 0; k < z->nio; k++) ub_iostat_span(z->io[k], rel_ns);
}

void ubx_z_view(ubx_z *z, const ub_view *v, const ub_filter_pkt *pk, const ub_filter_pkt *pkr, uint32_t wire, uint64_t rel_ns)
{
    for (unsigned k = 0; k < UB_CONV__N; k++)
        if (z->conv[k]) ub_conv_view(z->conv[k], v, wire, rel_ns);
    for (unsigned k = 0; k < z->nconvf; k++) ub_conv_view_pkt(z->convf[k], v, pk, wire, rel_ns);
    for (unsigned k = 0; k < z->ntreef; k++) ub_sttree_view_pkt(z->treef[k], v, pk, (int64_t)rel_ns);
    if (z->tree) ub_sttree_view(z->tree, v, (int64_t)rel_ns);
    for (unsigned k = 0; k < z->nio; k++) ub_iostat_view(z->io[k], v, pkr);
    for (unsigned k = 0; k < z->nphs; k++) ub_phs_view(z->phs[k], v, pkr);
    z->io_views++;
}

void ubx_z_record(ubx_z *z, const ub_filter_pkt *pkr, bool stream)
{
    for (unsigned k = 0; k < z->nconvf; k++) ub_conv_frame(z->convf[k], pkr); /* the frame is complete */
    for (unsigned k = 0; k < z->ntreef; k++) ub_sttree_frame(z->treef[k], pkr);
    static const ub_view empty = { .kind = UB_KIND_DLLDP }; /* a flit-stream record is UB without a unit (rec_line) */
    const bool no_unit = !z->io_views && stream;
    for (unsigned k = 0; k < z->nio; k++) {
        if (no_unit) ub_iostat_view(z->io[k], &empty, pkr);
        ub_iostat_frame(z->io[k], pkr);
    }
    for (unsigned k = 0; k < z->nphs; k++) {
        if (no_unit) ub_phs_view(z->phs[k], &empty, pkr);
        ub_phs_frame(z->phs[k], pkr);
    }
    z->io_views = 0;
}

int ubx_z_print(const ubx_z *z, const ub_audit *session, const char *path, const ub_opts *o, const ub_state_cfg *scfg,
                const ub_fan_table *fan, FILE *out)
{
    int status = 0;
    char err[300];
    for (unsigned i = z->nord; i-- > 0;) {
        const ubx_ztab *t = &z->ord[i];
        switch (t->t) {
        case ZT_STATS: ub_audit_print_stats(session, out, t->bits); break;
        case ZT_SRTF:
            if (ub_srt_ws_filtered(path, o, scfg, z->srt_f, fan, out, err, sizeof err) != 0) {
                fprintf(stderr, "ubdump: -z ub,srt: %s: %s\n", path, err);
                status = 2;
            }
            break;
        case ZT_EXPERT:
            if (ub_expert_print_sel(path, o, fan, z->x_sev, z->x_f, out, err, sizeof err) != 0) {
                fprintf(stderr, "ubdump: -z expert: %s: %s\n", path, err);
                status = 2;
            }
            break;
        case ZT_IO: ub_iostat_print(z->io[t->k], out); break;
        case ZT_PHS: ub_phs_print(z->phs[t->k], out); break;
        case ZT_TREE: ub_sttree_print(z->tree, out); break;
        case ZT_TREEF: ub_sttree_print(z->treef[t->k], out); break;
        case ZT_CONV: ub_conv_print(z->conv[t->k], out, t->ep); break;
        case ZT_CONVF: ub_conv_print(z->convf[t->k], out, z->convf_ep[t->k]); break;
        default: break;
        }
    }
    return status;
}

void ubx_z_free(ubx_z *z)
{
    for (unsigned k = 0; k < z->nio; k++) ub_iostat_free(z->io[k]);
    for (unsigned k = 0; k < z->nphs; k++) ub_phs_free(z->phs[k]);
    for (unsigned k = 0; k < UB_CONV__N; k++) ub_conv_free(z->conv[k]);
    for (unsigned k = 0; k < z->nconvf; k++) ub_conv_free(z->convf[k]);
    ub_sttree_free(z->tree);
    for (unsigned k = 0; k < z->ntreef; k++) ub_sttree_free(z->treef[k]);
    ub_filter_free(z->srt_f);
    ub_filter_free(z->x_f);
    memset(z, 0, sizeof *z);
}

/* ubdump's output per packet and per record (ubdump_app.h): the -e fields of a unit or a raw-stream
 * record (tshark -T fields), -Y on a record, -T json|ek documents of a raw-stream record, and the
 * frames shown for -c and the time column. */
#include "ubdump_app.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int add_efield(app *a, const char *name)
{
    if (a->ne == a->ecap) {
        unsigned cap = a->ecap ? a->ecap * 2 : 16;
        efield *n = realloc(a->e, cap * sizeof *n);
        if (!n) return -1;
        a->e = n;
        a->ecap = cap;
    }
    efield *e = &a->e[a->ne];
    memset(e, 0, sizeof *e);
    e->name = name;
    for (size_t k = 0; k < ubx_npseudo && !e->pseudo; k++) /* frame.*, _ws.col.*, ub.error, ub.cna, ub.eid */
        if (strcmp(name, ubx_pseudo_names[k].name) == 0) e->pseudo = ubx_pseudo_names[k].pf;
    if (e->pseudo) { /* one of those */
    } else if ((e->an = ub_fan_field_find(name) + 1) > 0) a->e_fan |= !ub_fan_field_from_view(e->an - 1);
    else {
        e->n = ub_field_find(name, e->h, e->f, MAX_MATCH);
        if (e->n && !e->f[0]) { /* a header (ub.rtph): tshark's FT_NONE item, "1" each time it occurs */
            e->nh = e->n > MAX_MATCH ? MAX_MATCH : e->n;
            e->n = 0;
            e->pseudo = PF_HDR;
        } else if (e->n == 0) { /* Wireshark's names of the headers outside UB (the filter's, wsnames.c) */
            /* not a protocol (eth, ip): tshark prints its label */
            if (!ub_ws_find(name, e->ws, 2) || ub_ws_is_proto(e->ws[0])) return -1;
            e->pseudo = PF_WS;
        }
        if (e->n > MAX_MATCH) e->n = MAX_MATCH;
        for (size_t k = 0; k < e->n; k++)
            if (e->h[k] && e->h[k]->id < UB_H__COUNT) e->ids[e->h[k]->id / 64] |= 1ull << (e->h[k]->id % 64);
    }
    a->ne++;
    return 0;
}

static void sb_putc(sbuf *b, char c) { ubx_sb_put(b, &c, 1); }

/* a packet was printed: -t dd counts from it */
void shown(app *a, const ub_rec *r)
{
    a->tshown = r->ts_ns;
    a->have_shown = true;
}

/* the previous printed packet's time (-t dd, frame.time_delta_displayed: 0 for the first one) */
#define SHOWN_TS(a, r) ((a)->have_shown ? (a)->tshown : (r)->ts_ns)

/* the time column (-t; default relative as tshark's), at the precision of the record's interface */
void pkt_time(const app *a, const ub_rec *r, char *t, size_t n)
{
    ubx_time(t, n, a->tfmt, ub_cap_ts_digits(a->cf, r->ifindex), r->ts_ns, a->t0, a->tprev, SHOWN_TS(a, r));
}

/* pseudo-fields of the record (frame.*) */
static bool frame_field(app *a, const ub_rec *r, const efield *e, sbuf *b)
{
    char t[64];
    if (e->an && !ub_fan_field_from_view(e->an - 1)) { /* ub.analysis.*: the frame's, from the pre-pass */
        ub_fan_values(e->an - 1, ub_fan_get(a->fan, r->frame), NULL, ubx_sb_occ, b);
        return true;
    }
    switch (e->pseudo) {
    case PF_FRAME_NUMBER: case PF_COL_NO: snprintf(t, sizeof t, "%" PRIu64, r->frame); break;
    case PF_FRAME_TIME_REL: {
        uint64_t d = r->ts_ns - a->t0;
        snprintf(t, sizeof t, "%" PRIu64 ".%09" PRIu64, d / 1000000000u, d % 1000000000u);
        break;
    }
    case PF_FRAME_TIME_EPOCH:
        snprintf(t, sizeof t, "%" PRIu64 ".%09" PRIu64, r->ts_ns / 1000000000u, r->ts_ns % 1000000000u);
        break;
    case PF_FRAME_LEN: case PF_COL_LENGTH: snprintf(t, sizeof t, "%u", r->origlen); break;
    case PF_FRAME_TIME_DELTA: ubx_time(t, sizeof t, UBX_T_D, 9, r->ts_ns, a->t0, a->tprev, a->tshown); break;
    case PF_FRAME_TIME_DELTA_DISP: ubx_time(t, sizeof t, UBX_T_DD, 9, r->ts_ns, a->t0, a->tprev, SHOWN_TS(a, r)); break;
    case PF_COL_TIME: pkt_time(a, r, t, sizeof t); break;
    case PF_FRAME_TIME: ubx_frame_time(t, sizeof t, r->ts_ns); break;
    case PF_FRAME_CAP_LEN: snprintf(t, sizeof t, "%u", r->caplen); break;
    case PF_COL_PROTOCOL: case PF_FRAME_PROTOCOLS: /* a raw flit-stream record without a whole unit: the plugin's */
        if (!a->rec_mode || b->any) return a->rec_mode;
        if (e->pseudo == PF_FRAME_PROTOCOLS && !r->caplen) return true; /* no bytes: no protocol item */
        snprintf(t, sizeof t, "%s", e->pseudo == PF_COL_PROTOCOL ? "UB-DLL" : "ub");
        break;
    case PF_FRAME_IFID: /* pcapng only, as tshark */
        if (!ub_cap_is_pcapng(a->cf)) return true;
        snprintf(t, sizeof t, "%u", r->ifindex);
        break;
    case PF_FRAME_COMMENT: /* each pcapng comment; in -T fields a newline or tab as tshark prints it (\n, \t) */
        for (uint32_t i = 0, n = a->cf ? ub_cap_ncomments(a->cf) : 0, len; i < n; i++) {
            const char *c = ub_cap_comment_n(a->cf, i, &len);
            if (b->any) ubx_sb_put(b, (const char[1]){ UBX_OCC_SEP }, 1);
            for (uint32_t k = 0; k < len; k++) {
                if ((c[k] == '\n' || c[k] == '\t') && a->out == OUT_FIELDS) ubx_sb_put(b, c[k] == '\n' ? "\\n" : "\\t", 2);
                else ubx_sb_put(b, c + k, 1);
            }
            b->any = true;
        }
        return true;
    case PF_FRAME_P2P_DIR: /* P2P_DIR_SENT 0, P2P_DIR_RECV 1; absent when unknown */
        if (r->dir == UB_DIR_UNKNOWN) return true;
        snprintf(t, sizeof t, "%d", r->dir == UB_DIR_IN ? 1 : 0);
        break;
    default: return false;
    }
    ubx_sb_puts(b, t);
    return true;
}

/* the values of field e in view v, aggregated; appended to b (which may already hold other units' values) */
void view_field(app *a, const ub_view *v, const efield *e, sbuf *b)
{
    if (e->an) { /* ub.analysis.tp_src/tp_dst/tp_endpoint (the others: frame_field) */
        if (ub_fan_field_from_view(e->an - 1)) ub_fan_values(e->an - 1, NULL, v, ubx_sb_occ, b);
        return;
    }
    if (e->pseudo == PF_COL_INFO) { /* _ws.col.Info: the summary line's text */
        char sum[1024], tg[256];
        if (!v->neigh || !ub_neigh_summary(v, sum, sizeof sum)) { /* SUE, PCIe: the plugin's text */
            if (ub_view_pcie_noflit(v)) sum[0] = '\0';
            else ub_summary(v, sum, sizeof sum);
        }
        if (b->any) ubx_sb_puts(b, " | "); /* a raw flit stream's units in one column, as the plugin's */
        if (ub_tp_flags_tags(a->tpflags, tg, sizeof tg)) ubx_sb_puts(b, tg);
        ubx_sb_puts(b, sum);
        b->any = true;
        return;
    }
    if (e->pseudo == PF_UB_CNA || e->pseudo == PF_UB_EID) {
        ubx_hidden_pair(v, e->pseudo == PF_UB_CNA, b);
        return;
    }
    if (e->pseudo >= PF_COL_PROTOCOL) { /* a column: one value a frame, on a raw flit stream its first unit above the data link's */
        char t[256];
        if (a->rec_mode && (e->pseudo == PF_COL_SRC || e->pseudo == PF_COL_DST)) {
            /* the plugin's stream: each unit with addresses sets them, the last one stays */
            if (!ubx_col_addr(v, e->pseudo == PF_COL_DST, t, sizeof t)) return;
            b->n = 0;
            b->any = false;
            ubx_sb_occ(b, t);
            return;
        }
        if (b->above) return;
        /* a stream's units are the plugin's alone (no CFG 3/4 IP handed to Wireshark's dissectors) */
        char pb[16];
        const char *pn = a->rec_mode ? ub_view_protocol(v) : ubx_col_protocol(v, pb, sizeof pb);
        bool above = v->kind != UB_KIND_DLLCB && strcmp(pn, "UB-DLL") != 0 && !(a->rec_mode && strcmp(pn, "UB") == 0), have = true;
        if (e->pseudo == PF_COL_PROTOCOL) snprintf(t, sizeof t, "%s", pn);
        else if (e->pseudo == PF_FRAME_PROTOCOLS && a->rec_mode) snprintf(t, sizeof t, "ub");
        else if (e->pseudo == PF_FRAME_PROTOCOLS) ub_ws_protocols_text(v, t, sizeof t);
        else have = ubx_col_addr(v, e->pseudo == PF_COL_DST, t, sizeof t);
        if (b->any && !above) return; /* the record's first data-link unit names it until one above it comes */
        b->n = 0;
        b->any = false;
        if (have) ubx_sb_occ(b, t);
        else if (b->p) b->p[0] = '\0';
        b->above = above;
        b->any = true;
        return;
    }
    if (e->pseudo == PF_HDR) {
        for (unsigned i = 0; i < v->nlayers && i < UB_MAX_LAYERS; i++)
            for (size_t k = 0; k < e->nh; k++)
                if (v->layer[i].hdr == e->h[k]) {
                    ubx_sb_occ(b, "1");
                    break;
                }
        return;
    }
    if (e->pseudo == PF_WS) {
        ubx_ws_field(v, e->ws, b);
        return;
    }
    if (e->pseudo == PF_UB_ERROR) {
        for (unsigned i = 0; i < v->nerrs; i++) {
            const ub_err_info *ei = ub_err_get(v->err[i].code);
            if (b->any) sb_putc(b, UBX_OCC_SEP);
            ubx_sb_puts(b, ei ? ei->name : "?");
            b->any = true;
        }
        return;
    }
    char buf[2200];
    unsigned nl = v->nlayers > UB_MAX_LAYERS ? UB_MAX_LAYERS : v->nlayers; /* UB_MAX_LAYERS + 1: too deep */
    for (unsigned i = 0; i < nl; i++) {
        const ub_layer *l = &v->layer[i];
        unsigned id = l->hdr->id;
        if (id >= UB_H__COUNT || !(e->ids[id / 64] >> (id % 64) & 1u)) continue;
        for (size_t k = 0; k < e->n; k++) {
            if (l->hdr != e->h[k]) continue;
            if (!e->f[k]) continue;
            ub_val val;
            if (ub_field_value(l, e->f[k], &val) != 0) continue;
            if (b->any) sb_putc(b, UBX_OCC_SEP);
            b->any = true;
            if (e->f[k]->type == UB_FT_BYTES && !(e->f[k]->flags & UB_FF_VIRTUAL) && val.nbytes) { /* hex, never cut */
                ubx_sb_hex(b, val.bytes, val.nbytes);
                continue;
            }
            ubx_sb_put(b, buf, ubx_value_text(l->hdr, e->f[k], &val, buf, sizeof buf));
        }
    }
}

/* -T json|ek -e FIELD...: the occurrences of each field (the -T fields values); rec: a raw flit-stream
 * record, its units' values already collected */
void json_efields(app *a, const ub_rec *r, const ubx_pkt *p, bool rec)
{
    enum { MAXE = 256 };
    const char *names[MAXE], *vals[MAXE];
    size_t lens[MAXE];
    bool present[MAXE];
    unsigned n = a->ne < MAXE ? a->ne : MAXE;
    for (unsigned i = 0; i < n; i++) {
        sbuf *b = &a->fb[i];
        if (!rec) {
            b->n = 0;
            b->any = b->above = false;
        }
        if (!frame_field(a, r, &a->e[i], b) && !rec) view_field(a, a->v, &a->e[i], b);
        names[i] = a->e[i].name;
        vals[i] = b->p ? b->p : "";
        lens[i] = b->n;
        present[i] = b->n || b->any; /* an empty occurrence (an empty comment) is one */
    }
    ubx_json_efields(stdout, p, a->out == OUT_EK, a->json_first, n, names, vals, lens, present);
}

/* -T fields: the line of a unit (rec false: the values are collected here) or of a raw flit-stream
 * record (rec: its units' values are in a->fb, the frame's fields are added) */
void fields_line(app *a, const ub_rec *r, bool rec)
{
    if (!rec) {
        for (unsigned i = 0; i < a->ne; i++) {
            a->fb[i].n = 0;
            a->fb[i].any = a->fb[i].dirty = a->fb[i].above = false;
        }
        if (a->fs) ubx_fset_view(a->fs, a->v, a->fb); /* the schema fields: one pass over the layers */
    }
    for (unsigned i = 0; a->e_other && i < a->ne; i++) {
        /* frame.*, ub.error, _ws.col.*, ub.analysis.* (a record's units left these empty: show_rest) */
        if (a->e[i].n == 0 && !frame_field(a, r, &a->e[i], &a->fb[i]) && !rec) view_field(a, a->v, &a->e[i], &a->fb[i]);
    }
    ubx_lb_line(&a->lb, &a->csv, a->fb, a->ne);
}

/* -Y: what the filter knows about record r (caplen bytes of wire on the wire) */
ub_filter_pkt ypkt(const app *a, const ub_rec *r, uint32_t caplen, uint32_t wire)
{
    ub_filter_pkt pk = { r->frame, wire, caplen, true, r->ts_ns, a->t0, a->tprev, a->pcapng, r->ifindex, r->dir,
                         ub_fan_get(a->fan, r->frame), r->data, r->caplen, 0, NULL, NULL };
    if (a->cf) pk.ncomments = ub_cap_comments(a->cf, &pk.comment, &pk.comment_len); /* frame.comment */
    return pk;
}
bool ymatch(const app *a, const ub_view *v, const ub_rec *r, uint32_t caplen, uint32_t wire)
{
    ub_filter_pkt pk = ypkt(a, r, caplen, wire);
    return ub_filter_match_pkt(a->yf, v, &pk);
}

/* -T json|ek: what the document of record r (its unit v, len bytes) shows */
ubx_pkt json_pkt(const app *a, const ub_rec *r, const ub_view *v, uint32_t len)
{
    ubx_pkt p = { r, v, len, a->t0, a->tprev, SHOWN_TS(a, r), ub_cap_is_pcapng(a->cf), ub_fan_get(a->fan, r->frame), a->cf };
    return p;
}

/* -T json|ek, raw flit stream: the document of one record (tshark: one per frame, its units nested) */
static void rec_json(app *a, const ub_rec *r, const ub_units *u)
{
    static const ub_view none;
    ubx_pkt p = json_pkt(a, r, &none, r->caplen);
    ub_units_rinfo ri;
    if (a->ne) json_efields(a, r, &p, true);
    else ubx_jrec_emit(stdout, a->jrec, &p, ub_units_rec_info(u, r->frame, &ri) ? &ri : NULL, a->out == OUT_EK, a->json_first);
    a->json_first = false;
}

/* _ws.col.Info of a raw flit-stream record ends as the plugin's Info column: the bytes the record leaves
 * in a unit it does not complete (one pass: where it continues is not known yet), or, for a record
 * without a unit of either kind, its length */
static void info_stream_tail(app *a, const ub_rec *r, const ub_units *u)
{
    ub_units_rinfo ri;
    char t[64];
    if (!ub_units_rec_info(u, r->frame, &ri)) return;
    if (ri.tail_open) snprintf(t, sizeof t, "[%" PRIu32 " bytes of an incomplete unit]", ri.open_bytes);
    else if (!ri.units) snprintf(t, sizeof t, "UB flit stream, %" PRIu32 " bytes", r->caplen);
    else return;
    for (unsigned i = 0; i < a->ne; i++) {
        if (a->e[i].pseudo != PF_COL_INFO) continue;
        sbuf *b = &a->fb[i];
        if (b->any) ubx_sb_puts(b, " | ");
        ubx_sb_puts(b, t);
        b->any = true;
    }
}

/* -T fields|json|ek, raw flit stream: the line / document of one record (tshark prints one per frame:
 * an empty value where the record completes no unit, all units' values where it completes several) */
void rec_line(app *a, const ub_rec *r, const ub_units *u)
{
    static ub_view empty; /* a record that completes no unit: only frame.* can match */
    empty.kind = UB_KIND_DLLDP; /* a flit-stream record is UB even when it completes no unit (as in tshark) */
    if (a->yf && !a->rec_units) a->rec_match = ymatch(a, &empty, r, r->caplen, r->origlen);
    if (a->yf && a->rec_units) { /* the fields of all its units together, as tshark's one tree */
        ub_filter_pkt pk = ypkt(a, r, r->caplen, r->origlen);
        a->rec_match = ub_filter_acc_match(a->yacc, &pk);
        ub_filter_acc_reset(a->yacc);
    }
    if (!a->yf || a->rec_match) a->rec_sel = true;
    if (a->info_col && a->fb) info_stream_tail(a, r, u);
    if (!a->quiet && (!a->yf || a->rec_match) && a->out != OUT_FIELDS) {
        a->nshown++;
        rec_json(a, r, u);
        shown(a, r);
    } else if (!a->quiet && (!a->yf || a->rec_match)) {
        a->nshown++;
        fields_line(a, r, true);
        shown(a, r);
    }
    for (unsigned i = 0; i < a->ne; i++) {
        a->fb[i].n = 0;
        a->fb[i].any = a->fb[i].dirty = a->fb[i].above = false;
    }
    if (a->jrec) ubx_jrec_emit(NULL, a->jrec, NULL, NULL, false, false); /* not shown: forgotten */
    a->rec_units = 0;
    a->rec_match = false;
}

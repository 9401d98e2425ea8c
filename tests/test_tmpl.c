/* The header-stack templates (libubparse/src/tmpl.c) give exactly what the general decode gives: every
 * record of every bundled capture, and copies with one byte flipped (0x01, 0x80, 0xff at each of the
 * first 96 bytes and the last 8), decoded on a view with templates and on one without (the general
 * path only) must give the same view — layers (table, data, offsets, lengths, aux, status, variant,
 * depth, flags), errors (code, header, offset, values, text) and the view's fields. Three option sets
 * in turn on the same views (the cache is emptied when the options change). The template path must
 * really be taken: most unchanged records of the second pass, and flips of bits the decoder never
 * reads (sequence numbers, carried CRCs: the CRC is then bad and the general path reports it). */
#include "ubtest.h"
#include "internal.h"
#include <ubparse/capfile.h>
#include <ubparse/rewrite.h>
#include <dirent.h>
#include <stdlib.h>

static ub_view *VT, *VG, *VS;
static unsigned long long compared, differ;

/* a pointer into the view's own netbuf (multi-block DLLDPs) as an offset there, else itself */
static uintptr_t rel(const ub_view *v, const uint8_t *p)
{
    return p >= v->netbuf && p <= v->netbuf + UB_MAX_NETPKT ? (uintptr_t)(p - v->netbuf) + 1 : (uintptr_t)p;
}

static bool same_view(const ub_view *a, const ub_view *b)
{
    if (a->nlayers != b->nlayers || a->nerrs != b->nerrs || a->errs_dropped != b->errs_dropped ||
        a->claim != b->claim || a->kind != b->kind || a->cfg != b->cfg || a->tah_fmt != b->tah_fmt ||
        rel(a, a->pkt) != rel(b, b->pkt) || a->pkt_len != b->pkt_len || a->pkt_off != b->pkt_off || a->rec != b->rec ||
        a->rec_len != b->rec_len || a->wire_len != b->wire_len || a->entry != b->entry || a->neigh != b->neigh)
        return false;
    unsigned nl = a->nlayers > UB_MAX_LAYERS ? UB_MAX_LAYERS : a->nlayers;
    for (unsigned i = 0; i < nl; i++) {
        const ub_layer *x = &a->layer[i], *y = &b->layer[i];
        if (x->hdr != y->hdr || rel(a, x->data) != rel(b, y->data) || x->off != y->off || x->len != y->len || x->aux != y->aux ||
            x->status != y->status || x->variant != y->variant || x->depth != y->depth || x->flags != y->flags ||
            x->wlen != y->wlen)
            return false;
    }
    unsigned ne = a->nerrs > UB_MAX_ERRS ? UB_MAX_ERRS : a->nerrs;
    for (unsigned i = 0; i < ne; i++) {
        const ub_err *x = &a->err[i], *y = &b->err[i];
        if (x->code != y->code || x->hdr != y->hdr || x->off != y->off || x->actual != y->actual ||
            x->expected != y->expected || x->what != y->what)
            return false;
    }
    return true;
}

static void both(const ub_opts *o, ub_entry e, const uint8_t *rec, uint32_t len, uint32_t wire, const char *what,
                 uint64_t frame, int pos)
{
    ub_decode_wire_t(VT, o, e, rec, len, wire, true);
    ub_decode_wire_t(VG, o, e, rec, len, wire, false);
    compared++;
    if (!same_view(VT, VG)) {
        if (differ++ < 10) {
            fprintf(stderr, "%s frame %llu byte %d: template and general decode differ (%u/%u layers, %u/%u errors)\n",
                    what, (unsigned long long)frame, pos, VT->nlayers, VG->nlayers, VT->nerrs, VG->nerrs);
            for (unsigned i = 0; i < VT->nerrs && i < VG->nerrs && i < UB_MAX_ERRS; i++)
                fprintf(stderr, "  err %u: %u/%u hdr %u/%u off %u/%u %s / %s\n", i, VT->err[i].code, VG->err[i].code,
                        VT->err[i].hdr, VG->err[i].hdr, VT->err[i].off, VG->err[i].off,
                        VT->err[i].what ? VT->err[i].what : "-", VG->err[i].what ? VG->err[i].what : "-");
            for (unsigned i = 0; i < VT->nlayers && i < VG->nlayers && i < UB_MAX_LAYERS; i++)
                fprintf(stderr, "  layer %u: %s/%s off %u/%u len %u/%u aux %llx/%llx st %u/%u\n", i, VT->layer[i].hdr->key,
                        VG->layer[i].hdr->key, VT->layer[i].off, VG->layer[i].off, VT->layer[i].len, VG->layer[i].len,
                        (unsigned long long)VT->layer[i].aux, (unsigned long long)VG->layer[i].aux, VT->layer[i].status,
                        VG->layer[i].status);
        }
    }
}

int main(void)
{
    VT = ub_view_new_tmpl();
    VG = calloc(1, sizeof *VG);
    VS = calloc(1, sizeof *VS);
    if (!VT || !VG || !VS) return 1;
    ub_view_init(VG);
    ub_view_init(VS);
    ub_opts os[3];
    ub_opts_default(&os[0]);
    ub_opts_default(&os[1]);
    os[1].profile = UB_PROFILE_NS3UB;
    ub_opts_default(&os[2]);
    os[2].crc_mode = false;
    char dir[1024];
    snprintf(dir, sizeof dir, "%s/captures", UB_SOURCE_DIR);
    DIR *d = opendir(dir);
    CHECK(d != NULL);
    if (!d) return ub_test_finish();
    char *names[256];
    unsigned nn = 0;
    for (struct dirent *de; (de = readdir(d)) && nn < 256;) {
        size_t l = strlen(de->d_name);
        if ((l > 8 && strcmp(de->d_name + l - 7, ".pcapng") == 0) || (l > 5 && strcmp(de->d_name + l - 5, ".pcap") == 0))
            names[nn++] = strdup(de->d_name);
    }
    closedir(d);
    CHECK(nn >= 20);
    uint64_t recs2 = 0, hits2 = 0, mut_hits = 0, mut_n = 0, mb_recs = 0, mb_hits = 0;
    uint8_t *buf = malloc(65536), *fbuf = malloc(65536);
    uint64_t fix_n = 0, fix_hits = 0;
    if (!buf || !fbuf) return 1;
    for (unsigned oi = 0; oi < 3; oi++) {
        const ub_opts *o = &os[oi];
        for (unsigned fi = 0; fi < nn; fi++) {
            char path[1400], err[256];
            snprintf(path, sizeof path, "%s/%s", dir, names[fi]);
            for (int pass = 0; pass < 3; pass++) { /* learn, hit, flips */
                ub_capfile *cf = ub_cap_open(path, err, sizeof err);
                CHECK(cf != NULL);
                if (!cf) break;
                ub_rec r;
                unsigned nr = 0;
                while (ub_cap_next(cf, &r) == 1 && nr < 60) {
                    ub_entry e = ub_entry_for_linktype(o, r.linktype);
                    if (e == UB_ENTRY_NONE || e == UB_ENTRY_STREAM || r.caplen > 65536) continue;
                    nr++;
                    uint32_t wire = r.origlen > r.caplen ? r.origlen : r.caplen;
                    if (pass < 2) {
                        uint64_t h0 = ub_tmpl_hits(VT);
                        both(o, e, r.data, r.caplen, wire, names[fi], r.frame, -1);
                        if (pass == 1) {
                            recs2++;
                            hits2 += ub_tmpl_hits(VT) - h0;
                            if (r.caplen > 640 && VT->pkt == VT->netbuf) { /* a multi-block DLLDP */
                                mb_recs++;
                                mb_hits += ub_tmpl_hits(VT) - h0;
                            }
                        }
                        continue;
                    }
                    static const uint8_t flips[] = { 0x01, 0x80, 0xff };
                    for (uint32_t i = 0; i < r.caplen; i++) {
                        /* and around the first block's end (multi-block DLLDPs: its BCRC, the next LBH) */
                        if (i >= 96 && i + 8 < r.caplen && !(i >= 624 && i < 660)) continue;
                        for (unsigned k = 0; k < 3; k++) {
                            memcpy(buf, r.data, r.caplen);
                            buf[i] ^= flips[k];
                            uint64_t h0 = ub_tmpl_hits(VT);
                            both(o, e, buf, r.caplen, wire, names[fi], r.frame, (int)i);
                            mut_n++;
                            mut_hits += ub_tmpl_hits(VT) - h0;
                            /* the originals' templates again (a flipped copy may have made one) */
                            both(o, e, r.data, r.caplen, wire, names[fi], r.frame, -1);
                            /* the flip with lengths and CRCs made right again (ub_fixup): the CRCs then hold, so the
                             * template's compare alone must tell a byte the decode reads from one it ignores
                             * (every fourth byte, a different fourth from record to record: ub_fixup is slow) */
                            if (k != 0 || (i + nr) % 4 || r.caplen != wire || e != UB_ENTRY_FLIT) continue;
                            long fl = ub_fixup(o, VS, e, buf, r.caplen, fbuf, 65536);
                            if (fl <= 0) continue;
                            h0 = ub_tmpl_hits(VT);
                            both(o, e, fbuf, (uint32_t)fl, (uint32_t)fl, names[fi], r.frame, (int)i);
                            fix_n++;
                            fix_hits += ub_tmpl_hits(VT) - h0;
                            both(o, e, r.data, r.caplen, wire, names[fi], r.frame, -1);
                        }
                    }
                }
                ub_cap_close(cf);
            }
        }
    }
    printf("compared %llu decodes; second pass: %llu of %llu records from a template (multi-block DLLDPs %llu of %llu); "
           "flips: %llu template hits in %llu\n",
           compared, (unsigned long long)hits2, (unsigned long long)recs2, (unsigned long long)mb_hits,
           (unsigned long long)mb_recs, (unsigned long long)mut_hits, (unsigned long long)mut_n);
    printf("flips made consistent again (ub_fixup): %llu template hits in %llu\n", (unsigned long long)fix_hits,
           (unsigned long long)fix_n);
    CHECK_EQ(differ, 0);
    CHECK(compared > 100000);
    CHECK(hits2 * 3 > recs2);        /* the template path is a common one (many captures are malformed on purpose) */
    CHECK(mut_hits > 1000);
    CHECK(fix_n > 5000 && fix_hits > 1000); /* the compare is what decides there */
    CHECK(mb_recs > 0 && mb_hits * 3 >= mb_recs); /* multi-block DLLDPs too (payload in the netbuf; CRC mode only) */          /* and taken by flipped copies whose flip it may ignore */
    /* only ub_view_new_tmpl's views have a cache; ub_view_init detaches it (free() still frees both) */
    CHECK(VT->tmpl != NULL && VG->tmpl == NULL);
    /* a copy at another address (the threads ship view windows) is a plain view */
    ub_view *cp = malloc(sizeof *cp);
    if (cp) {
        memcpy(cp, VT, sizeof *cp);
        CHECK_EQ(ub_tmpl_hits(cp), 0);
        CHECK(ub_tmpl_hits(VT) > 0);
        free(cp);
    }
    ub_view_init(VT);
    CHECK(VT->tmpl == NULL);
    CHECK_EQ(ub_tmpl_hits(VT), 0);
    for (unsigned i = 0; i < nn; i++) free(names[i]);
    free(buf);
    free(fbuf);
    free(VS);
    free(VT);
    free(VG);
    return ub_test_finish();
}

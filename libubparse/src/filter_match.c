/* Display-filter matcher (filter.h): runs the program filter.c compiled over one decoded view and
 * what is known about its frame (ub_filter_pkt). No allocation (but for a `matches` evaluated by
 * two threads at once: filter_re.c); the only string work is PCRE2's for `matches`. */
#include "filter_int.h"
#include "ubparse/iostat.h"

#include "ubparse/capfile.h"
#include "ubparse/state.h"

#include <stdlib.h>
#include <string.h>

static bool cmp_num(unsigned op, uint64_t a, uint64_t b, uint64_t hi)
{
    switch (op) {
    case OP_EQ: case OP_ALL_EQ: return a == b;
    case OP_NE: case OP_ANY_NE: return a != b;
    case OP_LT: return a < b;
    case OP_LE: return a <= b;
    case OP_GT: return a > b;
    case OP_GE: return a >= b;
    case OP_RANGE: return a >= b && a <= hi;
    default: return false;
    }
}

/* signed (times): the same order on biased values */
static bool cmp_i64(unsigned op, int64_t a, int64_t b, int64_t hi)
{
    const uint64_t bias = 1ull << 63;
    return cmp_num(op, (uint64_t)a ^ bias, (uint64_t)b ^ bias, (uint64_t)hi ^ bias);
}

/* bytes: ==, <, ..., contains, matches; a /prefix compares its first bits */
static bool cmp_bytes(const ftest *t, const uint8_t *a, uint32_t na)
{
    const uint8_t *b = t->bytes;
    uint32_t nb = t->nbytes;
    if (t->op == OP_CONTAINS) return ub_has_sub(a, na, b, nb);
    if (t->op == OP_MATCHES) return t->re && ub_re_match(t->re, a, na);
    int c;
    if (t->prefix >= 0 && na == nb) {
        unsigned full = (unsigned)t->prefix / 8, rest = (unsigned)t->prefix % 8;
        c = full ? memcmp(a, b, full) : 0;
        if (c == 0 && rest) {
            uint8_t m = (uint8_t)(0xFFu << (8 - rest));
            c = (a[full] & m) == (b[full] & m) ? 0 : 1;
        }
    } else {
        uint32_t mn = na < nb ? na : nb;
        c = mn ? memcmp(a, b, mn) : 0;
        if (c == 0) c = na < nb ? -1 : na > nb ? 1 : 0;
    }
    return ub_op_verdict(t->op, c);
}

/* the slice [from:count] of a byte string: false if it is not (fully) there, as Wireshark */
static bool do_slice(const ftest *t, const uint8_t **a, uint32_t *na)
{
    int64_t n = *na, from = t->sl_from < 0 ? n + t->sl_from : t->sl_from;
    if (from < 0 || from > n) return false;
    int64_t cnt = t->sl_count < 0 ? n - from : t->sl_count;
    if (from + cnt > n) return false;
    if (cnt == 0 && t->sl_count != 0 && t->sl_count >= 0) return false;
    *a += from;
    *na = (uint32_t)cnt;
    return true;
}


/* the layers Wireshark's own dissectors show: everything of a non-UB frame up to the UB headers of a
 * datagram an ICMP error quotes, else the encapsulation before the first UB header (UBoE's
 * Ethernet/IP/UDP; not CFG 3/4's IP inside the UB packet) */
static unsigned outer_layers(const ub_view *v, unsigned nl)
{
    if (!ub_view_ub(v)) {
        if (!(v->neigh & UB_VN_QUOTED_UB)) return nl;
        for (unsigned i = 0; i < nl; i++)
            if (ub_layer_quoted_tph(&v->layer[i])) return i;
        return nl;
    }
    unsigned i = 0;
    for (; i < nl; i++) {
        const ub_hdr *h = v->layer[i].hdr;
        unsigned id = h ? h->id : UB_H_NONE;
        if (id != UB_H_SLL && id != UB_H_SLL2 && id != UB_H_ETH && !ub_hdr_tag(id) && id != UB_H_IPV4 &&
            id != UB_H_IPV6 && id != UB_H_UDP && id != UB_H_NULL && id != UB_H_NULL_LE && id != UB_H_MPLS && id != UB_H_LLC_SNAP &&
            !ub_hdr_ip_ext(id) && !(v->layer[i].flags & UB_LF_OUTER))
            break;
    }
    return i;
}

void ub_ws_layers_of(const ub_view *v, ub_ws_layers *r)
{
    r->nout = outer_layers(v, v->nlayers > UB_MAX_LAYERS ? UB_MAX_LAYERS : v->nlayers);
    if (!ub_view_plain_ip(v, &r->plo, &r->phi)) r->plo = r->phi = 0;
}

/* The IP part of a plain CFG 3/4 packet (digest §1 step 3: not UB over UDP): layers [*lo, *hi) of the view
 * (the IP header and what the decoder named after it); false when there is none. */
bool ub_view_plain_ip(const ub_view *v, unsigned *lo, unsigned *hi)
{
    if (v->kind != UB_KIND_DLLDP || (v->cfg != 3 && v->cfg != 4) || v->claim != UB_CLAIM_NONE) return false;
    unsigned nl = v->nlayers > UB_MAX_LAYERS ? UB_MAX_LAYERS : v->nlayers;
    for (unsigned i = 0; i < nl; i++) {
        unsigned id = v->layer[i].hdr ? v->layer[i].hdr->id : 0;
        if (id != UB_H_IPV4 && id != UB_H_IPV6) continue;
        unsigned k = i + 1;
        while (k < nl && v->layer[k].hdr && v->layer[k].depth == v->layer[i].depth &&
               (v->layer[k].hdr->id == UB_H_UDP || v->layer[k].hdr->id == UB_H_TCP || v->layer[k].hdr->id == UB_H_DATA ||
                ub_hdr_is_icmp(v->layer[k].hdr->id) || ub_hdr_ip_ext(v->layer[k].hdr->id) ||
                ub_hdr_foreign(v->layer[k].hdr))) /* RoCEv2 / SUE inside: Wireshark's dissectors take them */
            k++;
        *lo = i;
        *hi = k;
        return true;
    }
    return false;
}

/* one number-valued occurrence against the test (ANY/ALL folding by the caller) */
static bool num_test(const ftest *t, uint64_t x) { return cmp_num(t->op, x, t->lit, t->hi); }

/* the next value of an analysis field in a (*it: 0 at the start): false after the last */
static bool an_next(const ftest *t, const ub_fan *a, unsigned *it, gval *x)
{
    unsigned i = (*it)++;
    *x = (gval){ .vt = VT_UINT, .ws = 4 };
    switch (t->an) {
    case AN_PRESENT: x->vt = VT_NONE; return i == 0 && (a->tp_channel || a->tp_flags || a->nfind || a->nmatch);
    case AN_FLAG: x->vt = VT_NONE; return i == 0 && (a->tp_flags & t->an_flag);
    case AN_FINDING: x->vt = VT_NONE; return i < a->nfind;
    case AN_TP_CHANNEL: x->u = a->tp_channel - 1u; return i == 0 && a->tp_channel;
    case AN_EXPECTED_PSN:
        x->u = a->expected_psn;
        return i == 0 && (a->tp_flags & (UB_TPF_RETRANSMISSION | UB_TPF_OUT_OF_ORDER | UB_TPF_LOST_BEFORE | UB_TPF_DUPLICATE));
    case AN_RELATED: if (i >= a->nrel) return false; x->u = a->rel[i]; return true;
    case AN_ST_UNIT: x->u = i + 1u; return i < a->st_units; /* the record's units 1..n, as the plugin's items */
    case AN_ST_STARTED_IN: x->u = a->st_started_in; return i == 0 && a->st_started_in;
    case AN_ST_CONTINUED_IN: x->u = a->st_continued_in; return i == 0 && a->st_open && a->st_continued_in;
    case AN_ST_OPEN_BYTES: x->u = a->st_open_bytes; return i == 0 && a->st_open;
    case AN_RULE: {
        if (i >= a->nfind) return false;
        const ub_rule *ru = ub_rule_get(a->rule[i]);
        const char *id = ru ? ru->id : "";
        *x = (gval){ .vt = VT_STR, .u = a->rule[i], .p = (const uint8_t *)id, .n = (uint32_t)strlen(id) };
        return true;
    }
    default: break;
    }
    /* matches: response_in / request_in / acked_in / acks_frame / latency; *it - 1 = the next to look at */
    for (unsigned k = i; k < a->nmatch; k++) {
        const ub_fan_match *m = &a->match[k];
        bool tr = m->kind == 2, on;
        switch (t->an) {
        case AN_RESPONSE_IN: on = !tr && !m->rsp; break;
        case AN_REQUEST_IN: on = !tr && m->rsp; break;
        case AN_ACKED_IN: on = tr && !m->rsp; break;
        case AN_ACKS_FRAME: on = tr && m->rsp; break;
        case AN_LATENCY: on = m->rsp; break;
        default: on = false; break;
        }
        if (!on) continue;
        *it = k + 1;
        if (t->an == AN_LATENCY) *x = (gval){ .vt = VT_TIME, .u = m->lat_ns };
        else x->u = m->other;
        return true;
    }
    return false;
}

static bool an_test(const ftest *t, const ub_fan *a)
{
    if (!a) return false;
    bool all = ftest_all(t), seen = false;
    gval x;
    for (unsigned it = 0; an_next(t, a, &it, &x);) {
        if (t->op == OP_EXISTS) return true;
        seen = true;
        bool r;
        if (x.vt == VT_STR) /* ub.analysis.rule: a rule id, or == its index */
            r = t->op == OP_CONTAINS || t->op == OP_MATCHES ? cmp_bytes(t, x.p, x.n) : cmp_num(t->op, x.u, t->lit, 0);
        else if (x.vt == VT_TIME)
            r = cmp_i64(t->op, (int64_t)x.u, (int64_t)t->lit, (int64_t)t->hi);
        else
            r = num_test(t, x.u);
        if (all && !r) return false;
        if (!all && r) return true;
    }
    return all && seen;
}

/* frame and frame.*: its value (false when the frame has none) */
static bool frame_value(const ftest *t, const ub_view *v, const ub_filter_pkt *pk, gval *x)
{
    bool have = pk->frame != 0;
    *x = (gval){ .vt = VT_UINT, .ws = 4 };
    switch (t->kind) {
    case K_FRAME:
        x->vt = VT_BYTES;
        x->p = pk->data ? pk->data : v->rec;
        x->n = pk->data ? pk->data_len : v->rec_len;
        return x->p != NULL;
    case K_FRAME_NUM: x->u = pk->frame; break;
    case K_FRAME_LEN: x->u = pk->len; have = true; break;
    case K_FRAME_CAPLEN: x->u = pk->caplen; break;
    case K_FRAME_IFID: x->u = pk->ifid; have = have && pk->has_ifid; break;
    case K_FRAME_DIR: /* Wireshark P2P_DIR_SENT 0, P2P_DIR_RECV 1 (FT_INT8) */
        have = have && pk->dir != UB_DIR_UNKNOWN;
        x->u = pk->dir == UB_DIR_IN ? 1 : 0;
        x->vt = VT_INT;
        x->ws = 1;
        break;
    case K_FRAME_TEPOCH: x->u = pk->ts_ns; break;
    case K_FRAME_TREL: x->u = pk->ts_ns - pk->t0_ns; break;
    case K_FRAME_TDELTA: x->u = pk->ts_ns - pk->prev_ns; break;
    default: return false;
    }
    if (t->kind >= K_FRAME_TEPOCH) {
        x->vt = VT_TIME;
        have = have && pk->has_time;
    }
    return have;
}

static bool frame_test(const ftest *t, const ub_view *v, const ub_filter_pkt *pk)
{
    gval x;
    if (!frame_value(t, v, pk, &x)) return false;
    if (t->op == OP_EXISTS) return true;
    if (x.vt == VT_BYTES) {
        const uint8_t *a = x.p;
        uint32_t na = x.n;
        if (t->slice && !do_slice(t, &a, &na)) return false;
        return cmp_bytes(t, a, na);
    }
    if (x.vt == VT_TIME) return cmp_i64(t->op, (int64_t)x.u, (int64_t)t->lit, (int64_t)t->hi);
    return num_test(t, x.u);
}

/* frame.protocols of every frame, UB or not: its text (a slice of it), compared as a string */
static bool protos_test(const ftest *t, const ub_view *v)
{
    if (t->op == OP_EXISTS) return true;
    char s[512];
    ub_ws_protocols_text(v, s, sizeof s);
    const uint8_t *a = (const uint8_t *)s;
    uint32_t na = (uint32_t)strlen(s);
    if (t->slice && !do_slice(t, &a, &na)) return false;
    return cmp_bytes(t, a, na);
}

/* frame.comment: any (== ...), or every (!=, ===) comment of the record */
static bool comment_test(const ftest *t, const ub_filter_pkt *pk)
{
    if (!pk->ncomments) return false;
    if (t->op == OP_EXISTS) return true;
    const bool all = ftest_all(t);
    for (uint32_t i = 0; i < pk->ncomments; i++) {
        const uint8_t *a = (const uint8_t *)pk->comment[i];
        uint32_t na = pk->comment_len[i];
        const bool r = (!t->slice || do_slice(t, &a, &na)) && cmp_bytes(t, a, na);
        if (all && !r) return false;
        if (!all && r) return true;
    }
    return all;
}

/* a protocol name of frame.protocols (llc, stp, lldp, ...): in the frame's list */
static bool ptoken_in(const ftest *t, const ub_view *v)
{
    const char *tok[UB_MAX_LAYERS];
    unsigned n = ub_ws_protocols(v, tok, UB_MAX_LAYERS);
    const char *want = ub_ws_ptoken_name((int)t->lit);
    for (unsigned i = 0; i < n; i++)
        if (strcmp(tok[i], want) == 0) return true;
    return false;
}

static bool run_test(const ub_filter *f, const ftest *t, const ub_view *v, const ub_filter_pkt *pk)
{
    if (t->kind == K_GEN) return ub_gen_test(f, t, v, pk, NULL, NULL);
    unsigned nl = v->nlayers > UB_MAX_LAYERS ? UB_MAX_LAYERS : v->nlayers;
    if (t->kind >= K_FRAME && t->kind <= K_FRAME_TDELTA) return frame_test(t, v, pk);
    if (t->kind == K_PROTOS) return protos_test(t, v);
    if (t->kind == K_COMMENT) return comment_test(t, pk);
    if (t->kind == K_PTOKEN) return ptoken_in(t, v);
    /* a record that is not UB has no ub.* fields (as in Wireshark, where UB does not dissect it), unless
     * an ICMP error in it quotes a UB datagram (the plugin shows its UB headers) */
    bool foreign = (t->kind == K_FIELD || t->kind == K_HDR) && t->nc && ub_hdr_foreign(t->h[0]); /* infiniband.*, sue.*, pcieflit.* */
    if (!t->outer && !foreign && !ub_view_shows_ub(v)) return false;
    switch (t->kind) {
    case K_UB:
        return true;
    case K_AN:
        return an_test(t, pk->an);
    case K_TPEP: {
        char ep[2][64];
        if (!ub_view_tp_endpoints(v, ep[0], ep[1], sizeof ep[0])) return false;
        if (t->op == OP_EXISTS) return true;
        bool all = ftest_all(t);
        for (unsigned i = t->an == TPEP_DST ? 1 : 0; i < (t->an == TPEP_SRC ? 1u : 2u); i++) {
            bool r = cmp_bytes(t, (const uint8_t *)ep[i], (uint32_t)strlen(ep[i]));
            if (all && !r) return false;
            if (!all && r) return true;
        }
        return all;
    }
    case K_ERROR: {
        unsigned ne = v->nerrs > UB_MAX_ERRS ? UB_MAX_ERRS : v->nerrs;
        if (t->an) { /* ub.err.NAME */
            for (unsigned i = 0; i < ne; i++)
                if (v->err[i].code == t->lit) return true;
            return false;
        }
        if (t->op == OP_EXISTS) return ne > 0;
        if (ne == 0) return false;
        bool all = ftest_all(t);
        for (unsigned i = 0; i < ne; i++) {
            bool r = cmp_num(t->op, v->err[i].code, t->lit, 0);
            if (all && !r) return false;
            if (!all && r) return true;
        }
        return all;
    }
    default: break;
    }
    /* Wireshark's names (eth.*, ip.*...) see the layers Wireshark's own dissectors show: the
     * encapsulation and a plain CFG 3/4 IP part; ub.* names see every layer (ub.eth.*, ub.ipv4.* stay
     * aliases of the outer headers too) */
    ub_ws_layers wl;
    ub_ws_layers_of(v, &wl);
    if (t->kind == K_HDR) {
        if (ub_view_pcie_noflit(v))
            return t->nc && t->h[0]->id >= UB_H_PCIEFLIT && t->h[0]->id <= UB_H_PCIEFLIT_MARKER;
        for (unsigned i = 0; i < nl; i++) {
            if (t->outer && !ub_ws_layers_has(&wl, i)) continue;
            for (unsigned k = 0; k < t->nc; k++)
                if (v->layer[i].hdr == t->h[k]) return true;
        }
        return false;
    }
    bool all = ftest_all(t), seen = false;
    for (unsigned i = 0; i < nl; i++) {
        const ub_layer *l = &v->layer[i];
        if (t->outer && !ub_ws_layers_has(&wl, i)) continue;
        for (unsigned k = 0; k < t->nc; k++) {
            if (l->hdr != t->h[k]) continue;
            ub_val val;
            unsigned g = t->grp[k];
            bool got = ub_field_value(l, t->f[k], &val) == 0;
            while (k + 1 < t->nc && t->grp[k + 1] == g) k++; /* one row per name group and layer */
            if (!got || !ub_ws_cond(t->wscond, val.u)) continue;
            const uint8_t *a = val.bytes;
            uint32_t na = val.nbytes;
            if (t->slice && (!a || !do_slice(t, &a, &na))) continue;
            if (t->op == OP_EXISTS) return true;
            seen = true;
            bool r;
            switch (t->cmode[k]) {
            case CM_NUM: { /* integers; IPv4/MAC (<= 8 bytes) as big-endian numbers */
                const uint64_t u = t->scale ? val.u * t->scale : val.u; /* ip.hdr_len: bytes */
                uint64_t x = t->has_mask ? u & t->mask : u;
                if (t->op == OP_BITAND) r = x != 0;
                else if (t->prefix >= 0) {
                    uint64_t m = t->prefix ? (0xFFFFFFFFull << (32 - t->prefix)) & 0xFFFFFFFFull : 0;
                    r = cmp_num(t->op, x & m, t->num[k] & m, 0);
                } else {
                    r = cmp_num(t->op, x, t->num[k], t->hi);
                }
                break;
            }
            case CM_BYTES:
                r = a && cmp_bytes(t, a, na);
                break;
            default:
                r = t->op == OP_NE || t->op == OP_ANY_NE; /* literal means nothing for this variant */
                break;
            }
            if (all && !r) return false;
            if (!all && r) return true;
        }
    }
    return all && seen;
}

/* how a schema row's values compare in expressions (ub_ftest_values) */
uint8_t ub_field_vt(const ub_field *f)
{
    if (f->flags & UB_FF_VIRTUAL) return VT_UINT;
    switch (f->type) {
    case UB_FT_UINT: case UB_FT_BOOL: return VT_UINT;
    case UB_FT_BYTES: return f->bits == 0 || f->bits > 64 ? VT_BYTES : VT_UINT;
    default: return VT_BYTES; /* addresses, GUIDs */
    }
}

unsigned ub_ftest_values(const ftest *t, const ub_view *v, const ub_filter_pkt *pk, gval *out, unsigned max,
                         char *sbuf, size_t slen)
{
    unsigned n = 0, nl = v->nlayers > UB_MAX_LAYERS ? UB_MAX_LAYERS : v->nlayers;
    if (t->kind >= K_FRAME && t->kind <= K_FRAME_TDELTA) {
        if (!max || !frame_value(t, v, pk, &out[0])) return 0;
        return out[0].vt != VT_BYTES || !t->slice || do_slice(t, &out[0].p, &out[0].n);
    }
    if (t->kind == K_PTOKEN) {
        if (max && ptoken_in(t, v)) out[n++] = (gval){ .vt = VT_NONE };
        return n;
    }
    if (t->kind == K_COMMENT) {
        for (uint32_t i = 0; i < pk->ncomments && n < max; i++) {
            out[n] = (gval){ .vt = VT_STR, .p = (const uint8_t *)pk->comment[i], .n = pk->comment_len[i] };
            if (!t->slice || do_slice(t, &out[n].p, &out[n].n)) n++;
        }
        return n;
    }
    if (t->kind == K_PROTOS) {
        if (!max || slen < 2) return 0;
        ub_ws_protocols_text(v, sbuf, slen);
        out[0] = (gval){ .vt = VT_STR, .p = (const uint8_t *)sbuf, .n = (uint32_t)strlen(sbuf) };
        return !t->slice || do_slice(t, &out[0].p, &out[0].n);
    }
    if (t->kind == K_AN) { /* the frame's (also when a frame's several views are gone: ub_filter_acc) */
        if (pk->an)
            for (unsigned it = 0; n < max && an_next(t, pk->an, &it, &out[n]);) n++;
        return n;
    }
    bool foreign = (t->kind == K_FIELD || t->kind == K_HDR) && t->nc && ub_hdr_foreign(t->h[0]);
    if (!t->outer && !foreign && !ub_view_shows_ub(v)) return 0; /* as run_test */
    switch (t->kind) {
    case K_UB:
        if (max) out[n++] = (gval){ .vt = VT_NONE };
        return n;
    case K_TPEP: {
        size_t half = slen / 2;
        if (half < 2 || !ub_view_tp_endpoints(v, sbuf, sbuf + half, half)) return 0;
        for (unsigned i = t->an == TPEP_DST ? 1 : 0; i < (t->an == TPEP_SRC ? 1u : 2u) && n < max; i++)
            out[n++] = (gval){ .vt = VT_STR, .p = (const uint8_t *)(sbuf + i * half), .n = (uint32_t)strlen(sbuf + i * half) };
        return n;
    }
    case K_ERROR: {
        unsigned ne = v->nerrs > UB_MAX_ERRS ? UB_MAX_ERRS : v->nerrs;
        for (unsigned i = 0; i < ne && n < max; i++)
            if (!t->an || v->err[i].code == t->lit) out[n++] = (gval){ .vt = t->an ? VT_NONE : VT_UINT, .u = v->err[i].code };
        return n;
    }
    default: break;
    }
    ub_ws_layers wl;
    ub_ws_layers_of(v, &wl);
    for (unsigned i = 0; i < nl && n < max; i++) {
        const ub_layer *l = &v->layer[i];
        if (t->outer && !ub_ws_layers_has(&wl, i)) continue;
        for (unsigned k = 0; k < t->nc && n < max; k++) {
            if (l->hdr != t->h[k]) continue;
            if (t->kind == K_HDR) { /* a header item: occurs, no value */
                out[n++] = (gval){ .vt = VT_NONE };
                break;
            }
            ub_val val;
            unsigned g = t->grp[k];
            const ub_field *f = t->f[k];
            bool got = ub_field_value(l, f, &val) == 0;
            while (k + 1 < t->nc && t->grp[k + 1] == g) k++; /* one row per name group and layer */
            if (!got || !ub_ws_cond(t->wscond, val.u)) continue;
            gval *x = &out[n];
            *x = (gval){ .vt = ub_field_vt(f), .f = f, .u = t->scale ? val.u * t->scale : val.u, .p = val.bytes, .n = val.nbytes };
            if (x->vt == VT_UINT) x->ws = (uint8_t)ub_field_ws_bytes(f);
            if (t->slice) {
                x->vt = VT_BYTES;
                if (!x->p || !do_slice(t, &x->p, &x->n)) continue;
            }
            n++;
        }
    }
    return n;
}

/* the program over leaf results leaf(ctx, test index) */
static bool run_prog(const ub_filter *f, bool (*leaf)(const void *ctx, uint32_t ti), const void *ctx)
{
    bool acc = false;
    bool stack[FILTER_STACK];
    unsigned sp = 0;
    for (uint32_t pc = 0; pc < f->ncode;) {
        const finsn *in = &f->code[pc];
        switch (in->op) {
        case I_TEST: acc = leaf(ctx, in->arg); pc++; break;
        case I_JF: pc = acc ? pc + 1 : in->arg; break;
        case I_JT: pc = acc ? in->arg : pc + 1; break;
        case I_NOT: acc = !acc; pc++; break;
        case I_PUSH: if (sp < FILTER_STACK) stack[sp++] = acc; pc++; break;
        case I_XOR: if (sp) acc = stack[--sp] != acc; pc++; break;
        default: pc++; break;
        }
    }
    return acc;
}

typedef struct one { const ub_filter *f; const ub_view *v; const ub_filter_pkt *pk; } one;
static bool one_leaf(const void *ctx, uint32_t ti)
{
    const one *o = ctx;
    return run_test(o->f, &o->f->tests[ti], o->v, o->pk);
}

bool ub_filter_match_pkt(const ub_filter *f, const ub_view *v, const ub_filter_pkt *pk)
{
    if (!f || !v || !pk) return false;
    one o = { f, v, pk };
    return run_prog(f, one_leaf, &o);
}

bool ub_filter_match_frame(const ub_filter *f, const ub_view *v, uint64_t frame, uint32_t len)
{
    ub_filter_pkt pk;
    memset(&pk, 0, sizeof pk);
    pk.frame = frame;
    pk.len = pk.caplen = len;
    return ub_filter_match_pkt(f, v, &pk);
}

bool ub_filter_match(const ub_filter *f, const ub_view *v) { return ub_filter_match_frame(f, v, 0, 0); }

/* ---------------------------------------------------------------- several views, one frame */
struct ub_filter_acc {
    const ub_filter *f;
    uint8_t *st; /* per test: ACC_* bits */
    /* functions, arithmetic, field against field (K_GEN): the values of their fields over the views,
     * bytes copied (a view's bytes do not outlive it) */
    gval *sv;      /* [test * GEN_VALS] */
    uint16_t *nsv; /* [test] */
    uint8_t *arena;
    size_t aused;
};
enum { ACC_ANY = 1, ACC_SEEN = 2, ACC_VIOL = 4 };
#define ACC_ARENA (64u * 1024u)

ub_filter_acc *ub_filter_acc_new(const ub_filter *f)
{
    if (!f) return NULL;
    ub_filter_acc *a = calloc(1, sizeof *a);
    if (!a) return NULL;
    a->f = f;
    a->st = calloc(f->ntests ? f->ntests : 1, 1);
    if (f->nnodes) {
        a->sv = calloc((size_t)f->ntests * GEN_VALS, sizeof *a->sv);
        a->nsv = calloc(f->ntests, sizeof *a->nsv);
        a->arena = malloc(ACC_ARENA);
    }
    if (!a->st || (f->nnodes && (!a->sv || !a->nsv || !a->arena))) {
        ub_filter_acc_free(a);
        return NULL;
    }
    return a;
}

void ub_filter_acc_free(ub_filter_acc *a)
{
    if (!a) return;
    free(a->st);
    free(a->sv);
    free(a->nsv);
    free(a->arena);
    free(a);
}

void ub_filter_acc_reset(ub_filter_acc *a)
{
    if (!a) return;
    memset(a->st, 0, a->f->ntests);
    if (a->nsv) memset(a->nsv, 0, a->f->ntests * sizeof *a->nsv);
    a->aused = 0;
}

/* the view's values of every field of a K_GEN expression that reads the view, appended with copies */
static void acc_values(ub_filter_acc *a, const ub_view *v, const ub_filter_pkt *pk)
{
    const ub_filter *f = a->f;
    for (uint32_t i = 0; i < f->nnodes; i++) {
        const gnode *nd = &f->nodes[i];
        if (nd->g != G_SRC || !ub_gen_per_view(&f->tests[nd->src])) continue;
        gval *dst = a->sv + (size_t)nd->src * GEN_VALS;
        uint16_t *n = &a->nsv[nd->src];
        char sbuf[256];
        gval x[GEN_VALS];
        unsigned k = ub_ftest_values(&f->tests[nd->src], v, pk, x, GEN_VALS - *n, sbuf, sizeof sbuf);
        for (unsigned j = 0; j < k; j++) {
            if (x[j].n) {
                if (ACC_ARENA - a->aused < x[j].n) break; /* no room: the frame's later values are not seen */
                memcpy(a->arena + a->aused, x[j].p, x[j].n);
                x[j].p = a->arena + a->aused;
                a->aused += x[j].n;
            }
            dst[(*n)++] = x[j];
        }
    }
}

void ub_filter_acc_add(ub_filter_acc *a, const ub_view *v, const ub_filter_pkt *pk)
{
    if (!a || !v || !pk) return;
    if (a->sv) acc_values(a, v, pk);
    for (uint32_t i = 0; i < a->f->ntests; i++) {
        const ftest *t = &a->f->tests[i];
        if (t->kind == K_GEN) continue; /* at the end, over the values of all views */
        bool r = run_test(a->f, t, v, pk);
        if (!ftest_all(t)) {
            if (r) a->st[i] |= ACC_ANY;
            continue;
        }
        ftest ex = *t; /* does the field occur in this view at all? */
        ex.op = OP_EXISTS;
        bool seen = run_test(a->f, &ex, v, pk);
        if (seen) a->st[i] |= ACC_SEEN;
        if (seen && !r) a->st[i] |= ACC_VIOL;
    }
}

typedef struct accx { const ub_filter_acc *a; const ub_filter_pkt *pk; } accx;
static bool acc_leaf(const void *ctx, uint32_t ti)
{
    static const ub_view none; /* frame.* of a frame whose views were added */
    const accx *x = ctx;
    const ftest *t = &x->a->f->tests[ti];
    uint8_t s = x->a->st[ti];
    if (t->kind == K_GEN) return ub_gen_test(x->a->f, t, &none, x->pk, x->a->sv, x->a->nsv);
    if (t->kind >= K_FRAME && t->kind <= K_FRAME_TDELTA) return run_test(x->a->f, t, &none, x->pk);
    return ftest_all(t) ? (s & ACC_SEEN) && !(s & ACC_VIOL) : (s & ACC_ANY) != 0;
}

bool ub_filter_acc_match(const ub_filter_acc *a, const ub_filter_pkt *pk)
{
    if (!a || !pk) return false;
    accx x = { a, pk };
    return run_prog(a->f, acc_leaf, &x);
}

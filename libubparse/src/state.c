/* State-engine framework: rule catalogue access, packet extraction, findings (the bounded tables: st_tbl.c),
 * and the decode-error module (every ub_err of a packet becomes a finding of the catalogue). */
#include "st_internal.h"
#include "pktship.h"
#include "sumfmt.h"

#include <stdio.h>
#include <stdlib.h>

/* ================================================================ catalogue (rules.h) */
static const ub_rule rule_table[UB_R__COUNT] = {
#define UB_RULE_ROW(name, idv, layerv, sevv, specv, titlev, evv) \
    [UB_R_##name] = { UB_R_##name, idv, layerv, sevv, specv, titlev, evv },
    UB_RULES(UB_RULE_ROW)
#undef UB_RULE_ROW
};

unsigned ub_rule_count(void) { return UB_R__COUNT; }
const ub_rule *ub_rule_get(unsigned idx) { return idx < UB_R__COUNT ? &rule_table[idx] : NULL; }
const ub_rule *ub_rule_by_id(const char *id)
{
    for (unsigned i = 0; i < UB_R__COUNT; i++)
        if (strcmp(rule_table[i].id, id) == 0) return &rule_table[i];
    return NULL;
}

/* ================================================================ field handles, keys */
void ub_fh_init(ub_fh *fh, const char *abbrev)
{
    fh->n = fh->nfast = 0;
    ub_fh_add(fh, abbrev);
}

/* the precomputed window reads of entry i (ub_fh_fast): any window that covers the row gives its value */
static void fh_prepare(ub_fh *fh, unsigned i)
{
    const ub_field *f = fh->f[i];
    uint32_t first = f->bit_off >> 3, end = f->bit_off + f->bits;
    struct ub_fh_rd *r = &fh->rd[i];
    memset(r, 0, sizeof *r);
    r->l8 = UINT32_MAX;
    r->l4 = 0xFF;
    r->need = 0xFF;
    if ((f->type == UB_FT_UINT || f->type == UB_FT_BOOL) && !(f->flags & (UB_FF_VIRTUAL | UB_FF_ENCODED)) && f->bits >= 1 &&
        f->bits <= 64 && first < 0xF0 && ((end - 1) >> 3) - first < 8u) {
        uint32_t need = (end + 7) / 8, b8 = need >= 8 ? need - 8 : 0;
        r->l8 = b8 + 8;
        r->b8 = (uint8_t)b8;
        r->s8 = (uint8_t)(b8 * 8u + 64u - end);
        r->need = (uint8_t)need;
        r->end = (uint8_t)(end < 0xFF ? end : 0xFF); /* only read for layers of 1-7 bytes */
        r->mask = f->bits < 64 ? (1ull << f->bits) - 1u : ~0ull;
        if (end - first * 8u <= 32u) { /* the row spans at most 4 bytes */
            uint32_t b4 = need >= 4 ? need - 4 : 0;
            r->l4 = (uint8_t)(b4 + 4);
            r->b4 = (uint8_t)b4;
            r->s4 = (uint8_t)(b4 * 8u + 32u - end);
        }
    }
}

static void fh_push(ub_fh *fh, const ub_hdr *h, const ub_field *f)
{
    if (!f || fh->n >= UB_FH_MAX) return;
    fh->h[fh->n] = h;
    fh->f[fh->n] = f;
    if (fh->nfast == fh->n) { /* contiguous with the precomputed entries */
        fh_prepare(fh, fh->n);
        fh->nfast++;
    }
    fh->n++;
}

void ub_fh_add(ub_fh *fh, const char *abbrev)
{
    const ub_hdr *h[16];
    const ub_field *f[16];
    size_t n = ub_field_find(abbrev, h, f, 16);
    for (size_t i = 0; i < n && i < 16; i++) fh_push(fh, h[i], f[i]);
}

/* Engine start-up: the handles from the session's name index (st_names.c), in ub_field_find's order */
void ub_st_fh_add(ub_state *s, ub_fh *fh, const char *abbrev)
{
    if (!s->names || !abbrev) {
        ub_fh_add(fh, abbrev);
        return;
    }
    const ub_hdr *h[16];
    const ub_field *f[16];
    unsigned n = ub_st_names_find(s->names, abbrev, h, f, 16);
    for (unsigned i = 0; i < n; i++) fh_push(fh, h[i], f[i]);
}

void ub_st_fh_init(ub_state *s, ub_fh *fh, const char *abbrev)
{
    fh->n = fh->nfast = 0;
    ub_st_fh_add(s, fh, abbrev);
}

void ub_rows_init(ub_rows *r, const ub_fh *const *fh, unsigned n)
{
    memset(r, 0, sizeof *r);
    r->n = (uint8_t)(n < UB_ROWS_MAX ? n : UB_ROWS_MAX);
    for (unsigned k = 0; k < r->n; k++) r->fh[k] = fh[k];
    /* the tables: every one that defines any of the fields */
    for (unsigned k = 0; k < r->n; k++)
        for (unsigned i = 0; i < fh[k]->n; i++) {
            const ub_hdr *h = fh[k]->h[i];
            unsigned v = 0;
            while (v < r->nvar && r->var[v].h != h) v++;
            if (v == r->nvar && r->nvar < UB_ROWS_VAR) r->var[r->nvar++].h = h;
        }
    for (unsigned v = 0; v < r->nvar; v++) {
        struct ub_rows_var *x = &r->var[v];
        x->lmin = 8;
        x->need = 1;
        memset(x->end, 64, sizeof x->end); /* absent fields: no shift, mask 0 */
        for (unsigned k = 0; k < r->n; k++) {
            const ub_fh *f = fh[k];
            unsigned i = 0;
            while (i < f->n && f->h[i] != x->h) i++; /* the entry ub_fh_get takes */
            if (i == f->n) continue;                  /* not in this table: 0, not present */
            const struct ub_fh_rd *d = &f->rd[i];
            if (i >= f->nfast || d->l8 == UINT32_MAX) { x->lmin = x->need = UINT32_MAX; continue; }
            x->has |= 1u << k;
            x->b8[k] = d->b8;
            x->s8[k] = d->s8;
            x->mask[k] = d->mask;
            x->end[k] = d->end;
            if (d->need > x->need && x->need != UINT32_MAX) x->need = d->need;
            if (d->l8 > x->lmin) x->lmin = d->l8;
        }
        if (x->need > 7) x->need = UINT32_MAX; /* 8 bytes and more: the windows */
    }
}

static uint64_t hash_bytes(const uint8_t *p, size_t n)
{
    uint64_t h = 0xcbf29ce484222325ull; /* FNV-1a, then a final mix */
    for (size_t i = 0; i < n; i++) { h ^= p[i]; h *= 0x100000001b3ull; }
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdull;
    h ^= h >> 33;
    return h;
}

size_t ub_addr_str(const ub_addr *a, char *buf, size_t n)
{
    int w = 0;
    if (a->len == 0) w = snprintf(buf, n, "-");
    else if (a->len <= 3) {
        uint32_t v = 0; /* "0x%0*x" */
        for (unsigned i = 0; i < a->len; i++) v = v << 8 | a->b[i];
        ub_sbuf s = { buf, n, 0 };
        ub_sb_lit(&s, "0x");
        ub_sb_hex(&s, v, a->len * 2u);
        return ub_sb_end(&s);
    } else if (a->len == 4) { /* "%u.%u.%u.%u" (TP channel key texts: every kept finding) */
        char t[16];
        ub_sbuf s = { buf, n, 0 };
        ub_sb_put(&s, t, ub_ipv4_dec(t, a->b));
        return ub_sb_end(&s);
    }
    else if (a->len == 16) return ub_ipv6_format(a->b, buf, n);
    else {
        size_t o = 0;
        for (unsigned i = 0; i + 1 < a->len && o + 6 < n; i += 2) {
            int k = snprintf(buf + o, n - o, i ? ":%x" : "%x", a->b[i] << 8 | a->b[i + 1]);
            if (k > 0) o += (size_t)k;
        }
        return o;
    }
    return w < 0 ? 0 : (size_t)w;
}

/* ================================================================ findings */
void ub_st_emit(ub_state *s, unsigned rule, int sev, uint64_t frame, const uint64_t *frames, unsigned nframes,
                const int64_t *vals, unsigned nvals, const char *detail, const char *key, const char *keytext)
{
    if (!s->fcb || rule >= UB_R__COUNT) return;
    ub_finding f;
    bool keep = true;
    if (s->fkeep) {
        keep = s->kq_set && s->kq_rule == rule && s->kq_frame == frame ? s->kq_keep
               : frame > s->keep_above[rule]                           ? false
                                                                       : s->fkeep(s->fctx, rule, frame);
        s->kq_set = false; /* the collector changes with this finding */
    }
    if (!keep && s->fcount) {
        s->fcount(s->fctx, rule, sev >= 0 ? (unsigned)sev : rule_table[rule].severity);
        return;
    }
    if (!keep) {
        /* only counted (the audit collector without hooks): rule, severity and frame are read, the
         * rest is left empty — no 200-byte clear, no copies of frames, values or keytext */
        f.rule = (uint16_t)rule;
        f.severity = (uint8_t)(sev >= 0 ? sev : rule_table[rule].severity);
        f.frame = frame;
        f.nframes = 0;
        f.nvalues = 0;
        f.detail = detail;
        f.key = key;
        f.keytext[0] = 0;
        f.message = NULL;
        f.src_uri = NULL;
        f.src_line = 0;
        s->fcb(s->fctx, &f);
        return;
    }
    memset(&f, 0, sizeof f);
    f.rule = (uint16_t)rule;
    f.severity = (uint8_t)(sev >= 0 ? sev : rule_table[rule].severity);
    f.frame = frame;
    for (unsigned i = 0; i < nframes && f.nframes < UB_FINDING_FRAMES; i++)
        if (frames[i]) f.frames[f.nframes++] = frames[i];
    for (unsigned i = 0; i < nvals && i < 4; i++) f.values[i] = vals[i];
    f.nvalues = (uint8_t)(nvals > 4 ? 4 : nvals);
    f.detail = detail;
    f.key = key;
    if (keytext) { /* the first 63 characters */
        size_t l = strnlen(keytext, sizeof f.keytext - 1);
        memcpy(f.keytext, keytext, l);
        f.keytext[l] = 0;
    }
    s->fcb(s->fctx, &f);
}

void ub_st_emit2(ub_state *s, unsigned rule, int sev, const ub_pkt *p, uint64_t other_frame, int64_t v0, int64_t v1,
                 const char *detail)
{
    int64_t v[2] = { v0, v1 };
    ub_st_emit(s, rule, sev, p->pi->frame, &other_frame, other_frame ? 1 : 0, v, 2, detail, NULL, NULL);
}

void ub_st_table(ub_state *s, unsigned id, ub_tbl *t, const char *what)
{
    if (id >= UB_TBL__COUNT) return;
    s->tbls[id] = t;
    s->tbl_what[id] = what;
    t->frame_now = &s->cur_frame;
}

int ub_st_tables(ub_state *s, void *mod, const ub_st_tbldef *d, unsigned n, uint32_t cap)
{
    for (unsigned i = 0; i < n; i++) {
        if (ub_tbl_init((ub_tbl *)((char *)mod + d[i].off), ub_state_table_name(d[i].id), cap, d[i].size) == 0) continue;
        while (i-- > 0) ub_tbl_free((ub_tbl *)((char *)mod + d[i].off));
        return -1;
    }
    for (unsigned i = 0; i < n; i++) ub_st_table(s, d[i].id, (ub_tbl *)((char *)mod + d[i].off), d[i].what);
    return 0;
}

/* End of capture: one UB-ST-001 per table that evicted, with the real totals (issue #9 item 5) */
static void report_evictions(ub_state *s)
{
    for (unsigned id = 0; id < UB_TBL__COUNT; id++) {
        const ub_tbl *t = s->tbls[id];
        if (!t || !t->evicted) continue;
        uint64_t last = t->last_evict != t->first_evict ? t->last_evict : 0;
        int64_t v[3] = { (int64_t)id, (int64_t)t->evicted, (int64_t)t->max };
        ub_st_emit(s, UB_R_ST_EVICTED, -1, t->first_evict, &last, 1, v, 3, s->tbl_what[id], "table", t->name);
    }
}

static const struct {
    const char *name, *option;
    unsigned divisor;
} tbl_info[UB_TBL__COUNT] = {
    [UB_TBL_LINKS] = { "link directions", "--max-links", 1 },
    [UB_TBL_CHANNELS] = { "TP channels", "--max-channels", 1 },
    [UB_TBL_TRANSACTIONS] = { "transactions", "--max-transactions", 1 },
    [UB_TBL_MGMT] = { "management exchanges", "--max-mgmt", 1 },
    [UB_TBL_TP_PAIRS] = { "TP address pairs", "--max-channels", 1 },
    [UB_TBL_REQUESTERS] = { "transaction requesters", "--max-transactions", 16 },
    [UB_TBL_TA_CHANNELS] = { "TA channel memo entries", "--max-channels", 1 },
    [UB_TBL_HOPS] = { "hop-copy digests", "--max-channels", 1 },
    [UB_TBL_NB_FLOWS] = { "neighbour flows", "--max-channels", 1 },
    [UB_TBL_NB_PAIRS] = { "neighbour address pairs", "--max-channels", 1 },
    [UB_TBL_SUE_PAIRS] = { "SUE bank/VC pairs", "--max-channels", 1 },
    [UB_TBL_SUE_CNPS] = { "SUE CNP QPs", "--max-channels", 1 },
};
const char *ub_state_table_name(unsigned t) { return t < UB_TBL__COUNT ? tbl_info[t].name : NULL; }
const char *ub_state_table_option(unsigned t, unsigned *divisor)
{
    if (t >= UB_TBL__COUNT) return NULL;
    if (divisor) *divisor = tbl_info[t].divisor;
    return tbl_info[t].option;
}

void ub_st_match(ub_state *s, const ub_match *m)
{
    if (s->mcb) s->mcb(s->mctx, m);
}
void ub_st_note(ub_state *s, const ub_pkt_note *n)
{
    if (s->ncb) s->ncb(s->nctx, n);
}

/* ================================================================ decode errors -> rules */
static unsigned err_rule(const ub_err *e, const ub_err_info *ei)
{
    unsigned h = e->hdr;
    switch (e->code) {
    case UB_E_BCRC_BAD: return UB_R_DL_BCRC;
    case UB_E_ICRC_BAD: return UB_R_NW_ICRC;
    case UB_E_PLENGTH_RSVD: return UB_R_DL_PLENGTH;
    case UB_E_UNKNOWN_CFG: return h == UB_H_LPH || h == UB_H_LBH || h == UB_H_LCH ? UB_R_DL_BLOCK_START : UB_R_NW_CFG;
    case UB_E_UNKNOWN_DLLCB:
    case UB_E_LCH_PATTERN:
    case UB_E_CLENGTH: return UB_R_DL_DLLCB_FORMAT;
    case UB_E_LBH_MISMATCH: return UB_R_DL_BLOCKS;
    case UB_E_ERROR_FLAG: return UB_R_DL_ERROR_FLAG;
    case UB_E_STREAM: return UB_R_DL_INTERLEAVE;
    case UB_E_PADDING: return h == UB_H_FLITPAD ? UB_R_DL_PADDING : UB_R_RS_BITS;
    case UB_E_RSVD_BITS: return h == UB_H_FLITPAD ? UB_R_DL_PADDING : UB_R_RS_BITS;
    case UB_E_RSVD_ATTR: return UB_R_RS_ATTR;
    case UB_E_IP_FRAGMENTED: return UB_R_NW_IP;
    case UB_E_TP_ALIGN: return UB_R_TP_ALIGN;
    case UB_E_FLAGS: return UB_R_TA_FLAGS;
    case UB_E_UNKNOWN_TPOPCODE: return UB_R_TP_HEADER;
    case UB_E_UNKNOWN_NLP:
        return h == UB_H_NTH16 || h == UB_H_NTH24 ? UB_R_NW_NLP : (h == UB_H_RTPH || h == UB_H_CTPH || h == UB_H_UTPH) ? UB_R_TP_HEADER : UB_R_PK_MALFORMED;
    case UB_E_AMBIGUOUS:
    case UB_E_ENCRYPTED:
    case UB_E_TOO_DEEP: return UB_R_PK_NOTE;
    case UB_E_LINKTYPE: return UB_R__COUNT; /* not UB traffic: no finding */
    case UB_E_LENGTH:
        if (h == UB_H_LPH) return UB_R_DL_PLENGTH;
        if (h == UB_H_MGMTETAH || (h >= UB_H_MG_ERROR && h <= UB_H_MG_OPAQUE)) return UB_R_MG_PDU;
        if (h >= UB_H_SCANHDR && h <= UB_H_TLV_OTHER) return UB_R_MG_SCAN_PDU;
        if (h >= UB_H_BTAH && h <= UB_H_ATOMIC_OPS) return UB_R_TA_LENGTH;
        if (h == UB_H_IPV4 || h == UB_H_IPV6 || h == UB_H_UDP) return UB_R_NW_IP;
        return UB_R_PK_MALFORMED;
    case UB_E_VALUE:
    case UB_E_RSVD_VALUE:
        switch (h) {
        case UB_H_IPV4: case UB_H_IPV6: case UB_H_UDP: return UB_R_NW_IP;
        case UB_H_NTHIP: return UB_R_NW_NPI;
        case UB_H_NTH16: case UB_H_NTH24: return UB_R_NW_NLP;
        case UB_H_CCI_CAQM: case UB_H_CCI_FECN: case UB_H_CCI_FECN_RTT: case UB_H_CCI_RSVD: return UB_R_NW_CCI;
        case UB_H_RTPH: case UB_H_UTPH: case UB_H_CTPH: case UB_H_SAETPH: return UB_R_TP_RSP_VALUES;
        case UB_H_ATAH: case UB_H_ATAH_C: return UB_R_TA_STATUS;
        case UB_H_MAETAH: case UB_H_MAETAH_C: case UB_H_ATOMIC_OPS: return UB_R_TA_ATOMIC;
        case UB_H_BEETAH: return UB_R_TA_BE;
        case UB_H_BTAH: case UB_H_BTAH_C: case UB_H_BTAH_ALT: return UB_R_TA_FLAGS;
        case UB_H_SCANHDR: case UB_H_SCAN_RPATH: return UB_R_MG_SCAN_HEADER;
        case UB_H_ENUMPAD: return UB_R_MG_ENUM_FRAME;
        case UB_H_MGMTETAH: return UB_R_MG_PDU;
        default:
            if (h >= UB_H_SCANPDU_REQ && h <= UB_H_TLV_OTHER) return UB_R_MG_SCAN_PDU;
            if (h >= UB_H_MG_ERROR && h <= UB_H_MG_OPAQUE) return UB_R_MG_PDU;
            if (h >= UB_H_DLLCB_NULL && h <= UB_H_LNA) return UB_R_DL_CTRL_BLOCKS;
            return UB_R_PK_MALFORMED;
        }
    default: break;
    }
    (void)ei;
    return UB_R_PK_MALFORMED;
}

static inline __attribute__((always_inline)) void decode_findings(ub_state *s, const ub_pkt *p)
{
    const ub_view *v = p->v;
    for (unsigned i = 0; i < v->nerrs; i++) {
        const ub_err *e = &v->err[i];
        const ub_err_info *ei = ub_err_get(e->code);
        if (!ei) continue;
        unsigned r = ub_hdr_foreign(ub_hdr_get(e->hdr)) ? UB_R_NB_DECODE : err_rule(e, ei); /* not UB: its own rule */
        if (r >= UB_R__COUNT) continue;
        /* the catalogue's severity, except that a decode note stays a note */
        int sev = ei->severity == UB_SEV_NOTE ? UB_SEV_NOTE : -1;
        /* evidence: found/carried value, expected/computed value, byte offset in the record */
        int64_t vals[3] = { (int64_t)e->actual, (int64_t)e->expected, (int64_t)e->off };
        ub_st_emit(s, r, sev, p->pi->frame, NULL, 0, vals, 3, e->what ? e->what : ei->name, ei->name, NULL);
    }
}

/* ================================================================ packet extraction */
/* the whole-byte address rows of a handle's entries (addr_from): integers of up to 8 bytes without
 * a wire transformation, byte strings (IPv6) of up to 16 bytes: ub_field_value's bytes as they are */
static void addr_prepare(struct ub_addr_rd *ar, const ub_fh *fh)
{
    for (unsigned i = 0; i < fh->n; i++) {
        const ub_field *f = fh->f[i];
        bool as_int = f->type == UB_FT_UINT && !(f->flags & (UB_FF_VIRTUAL | UB_FF_ENCODED)) && f->bits <= 64;
        bool as_bytes = f->type != UB_FT_UINT && f->type != UB_FT_BOOL &&
                        !(f->flags & UB_FF_VIRTUAL) && f->bits <= 128;
        ar[i].whole = (as_int || as_bytes) && !(f->bit_off & 7) && !(f->bits & 7) && f->bits && f->bit_off / 8 < 0xF0;
        ar[i].off = ar[i].whole ? (uint8_t)(f->bit_off / 8) : 0;
        ar[i].n = ar[i].whole ? (uint8_t)(f->bits / 8) : 0;
    }
}

/* n (1..16) bytes: two overlapping fixed-size copies */
static inline void copy_small(uint8_t *d, const uint8_t *s, unsigned n)
{
    if (n >= 8) {
        memcpy(d, s, 8);
        memcpy(d + n - 8, s + n - 8, 8);
    } else if (n >= 4) {
        memcpy(d, s, 4);
        memcpy(d + n - 4, s + n - 4, 4);
    } else if (n >= 2) {
        memcpy(d, s, 2);
        memcpy(d + n - 2, s + n - 2, 2);
    } else {
        d[0] = s[0];
    }
}

/* an address that is not whole bytes within the layer: its value as ub_field_value gives it */
static void addr_value(ub_addr *a, const ub_layer *l, const ub_field *f)
{
    ub_val v;
    if (ub_field_value(l, f, &v) != 0) return;
    if (f->type == UB_FT_UINT) {
        unsigned n = (f->bits + 7) / 8;
        a->len = (uint8_t)n;
        for (unsigned k = 0; k < n; k++) a->b[k] = (uint8_t)(v.u >> (8 * (n - 1 - k)));
    } else {
        a->len = (uint8_t)(v.nbytes > 16 ? 16 : v.nbytes);
        memcpy(a->b, v.bytes, a->len);
    }
}

static UB_FH_INLINE void addr_from(ub_addr *a, const ub_layer *l, const ub_fh *fh, const struct ub_addr_rd *ar)
{
    a->len = 0;
    if (!l) return;
    for (unsigned i = 0; i < fh->n; i++) {
        if (fh->h[i] != l->hdr) continue;
        if (ar[i].whole && (uint32_t)ar[i].off + ar[i].n <= l->len) { /* whole bytes: the value's bytes as they are */
            a->len = ar[i].n;
            copy_small(a->b, l->data + ar[i].off, ar[i].n);
        } else {
            addr_value(a, l, fh->f[i]);
        }
        return;
    }
}

static uint64_t eid_from(const ub_layer *l, const ub_fh *fh)
{
    if (!l) return 0;
    for (unsigned i = 0; i < fh->n; i++) {
        if (fh->h[i] != l->hdr) continue;
        uint64_t u;
        if (ub_fh_fast(fh, i, l, &u)) return u; /* an integer EID through its precomputed window */
        ub_val v;
        if (ub_field_value(l, fh->f[i], &v) != 0) return 0;
        if (fh->f[i]->type == UB_FT_UINT) return v.u;
        uint64_t h = 0;
        for (uint32_t k = 0; k < v.nbytes; k++) h = h * 131 + v.bytes[k];
        return h;
    }
    return 0;
}

/* the fields of a header into the summary (dst: its values, in the order of the rows' handles) */
static UB_FH_INLINE uint32_t sum_rows(const ub_rows *r, const ub_layer *l, uint32_t *dst, const unsigned n)
{
    uint64_t x[UB_ROWS_MAX];
    uint32_t has = ub_rows_read(r, l, x, n);
    UB_ROWS_UNROLL
    for (unsigned k = 0; k < n; k++) dst[k] = (uint32_t)x[k];
    return has;
}

/* kinds of layer whose slot is not simply the last one of its kind (ub_xmap kind) */
enum {
    UB_XK_IP = 1u << 0,   /* the first IPv4/IPv6 */
    UB_XK_UDP = 1u << 1,  /* the first UDP */
    UB_XK_PAY = 1u << 2,  /* the first payload / atomic operands; payload_len sums them all */
    UB_XK_BCRC = 1u << 3, /* the first BCRC, or the last bad one; any bad one sets crc_bad */
    UB_XK_ICRC = 1u << 4, /* the last ICRC; any bad one sets crc_bad */
};

/* the table extract() dispatches the layers with: header id -> ub_pkt slot, UB_XK_* */
static void xmap_init(struct ub_xmap *x)
{
    static const struct { uint16_t id; uint8_t slot, kind; } m[] = {
#define X(id, member, kind) { id, UB_PKT_LAY(member), kind }
        X(UB_H_LPH, lph, 0), X(UB_H_LCH, lch, 0), X(UB_H_BCRC, bcrc, UB_XK_BCRC), X(UB_H_END, end, 0),
        X(UB_H_LNA, lna, 0), X(UB_H_NTH16, nth, 0), X(UB_H_NTH24, nth, 0), X(UB_H_NTHIP, nthip, 0),
        X(UB_H_CCI_CAQM, cci, 0), X(UB_H_CCI_FECN, cci, 0), X(UB_H_CCI_FECN_RTT, cci, 0), X(UB_H_CCI_RSVD, cci, 0),
        X(UB_H_IPV4, ip, UB_XK_IP), X(UB_H_IPV6, ip, UB_XK_IP), X(UB_H_UDP, udp, UB_XK_UDP),
        X(UB_H_ICRC, icrc, UB_XK_ICRC), X(UB_H_RTPH, rtph, 0), X(UB_H_UTPH, utph, 0), X(UB_H_CTPH, ctph, 0),
        X(UB_H_CETPH_LDCP, cetph, 0), X(UB_H_CETPH_CAQM, cetph, 0), X(UB_H_CETPH_CNP, cetph, 0),
        X(UB_H_SAETPH, saetph, 0), X(UB_H_UPIH16, lx_upih, 0), X(UB_H_UPIH32, lx_upih, 0),
        X(UB_H_EIDH40, lx_eidh, 0), X(UB_H_EIDH256, lx_eidh, 0), X(UB_H_BTAH, btah, 0), X(UB_H_BTAH_C, btah, 0),
        X(UB_H_BTAH_ALT, btah, 0), X(UB_H_ATAH, atah, 0), X(UB_H_ATAH_C, atah, 0), X(UB_H_MAETAH, maetah, 0),
        X(UB_H_MAETAH_C, maetah, 0), X(UB_H_MTETAH, mtetah, 0), X(UB_H_UDETAH, udetah, 0),
        X(UB_H_TAIDETAH, taidetah, 0), X(UB_H_OFSTETAH, ofstetah, 0), X(UB_H_IMMETAH, immetah, 0),
        X(UB_H_NTFETAH, ntfetah, 0), X(UB_H_BEETAH, beetah, 0), X(UB_H_TVETAH, tvetah, 0),
        X(UB_H_MGMTETAH, mgmtetah, 0), X(UB_H_SCANHDR, scanhdr, 0), X(UB_H_SCAN_RPATH, scan_rpath, 0),
        X(UB_H_SCANPDU_REQ, scanpdu, 0), X(UB_H_SCANPDU_RSP, scanpdu, 0), X(UB_H_IB_BTH, lx_nb, 0),
        X(UB_H_SUE_RH, lx_nb, 0), X(UB_H_PAYLOAD, payload, UB_XK_PAY), X(UB_H_ATOMIC_OPS, payload, UB_XK_PAY),
#undef X
    };
    memset(x, 0, sizeof(struct ub_xmap) * UB_H__COUNT);
    for (unsigned id = UB_H_DLLCB_NULL; id <= UB_H_DLLCB_RSVD; id++) x[id].slot = UB_PKT_LAY(dllcb); /* the rest of DLLCB */
    for (size_t i = 0; i < sizeof m / sizeof m[0]; i++) {
        x[m[i].id].slot = m[i].slot;
        x[m[i].id].kind = m[i].kind;
    }
}

/* the kinds of `twice` (more than one layer of the kind in the packet): their slots, crc_bad and
 * payload_len by the per-layer rules (tunnels, multi-block DLLDPs, a payload after atomic operands) */
static void extract_again(ub_pkt *p, const ub_view *v, const struct ub_xmap *xmap, unsigned twice)
{
    if (twice & UB_XK_IP) p->ip = NULL;
    if (twice & UB_XK_UDP) p->udp = NULL;
    if (twice & UB_XK_PAY) p->payload = NULL, p->payload_len = 0;
    if (twice & UB_XK_BCRC) p->bcrc = NULL;
    for (unsigned i = 0; i < v->nlayers; i++) {
        const ub_layer *l = &v->layer[i];
        if (l->flags & UB_LF_QUOTED) continue; /* an ICMP error's quoted datagram: not a packet of this link */
        const unsigned id = l->hdr->id, k = (id < UB_H__COUNT ? xmap[id].kind : 0u) & twice;
        const bool bad = l->status == UB_CK_BAD;
        const bool outer = l->flags & UB_LF_OUTER; /* a tunnel's delivery headers: the inner ones count */
        if (k & UB_XK_IP && !p->ip && !outer) p->ip = l;
        if (k & UB_XK_UDP && !p->udp && !outer) p->udp = l;
        if (k & UB_XK_PAY) {
            if (!p->payload) p->payload = l;
            p->payload_len += l->wlen;
        }
        if (k & UB_XK_BCRC && (!p->bcrc || bad)) p->bcrc = l;
        if (k & (UB_XK_BCRC | UB_XK_ICRC) && bad) p->crc_bad = true;
    }
}

/* zero the packet: 16-byte stores (a memset of this size is a rep store) */
static UB_FH_INLINE void pkt_zero(ub_pkt *p)
{
#if defined(__GNUC__) && !defined(__clang__)
    typedef uint64_t z16 __attribute__((vector_size(16), may_alias, aligned(8)));
    z16 *d = (z16 *)(void *)p;
    _Pragma("GCC unroll 32")
    for (size_t i = 0; i < sizeof(ub_pkt) / 16; i++) {
        __asm__("" : "+r"(d)); /* keeps the compiler from making the loop a memset call again */
        d[i] = (z16){ 0, 0 };
    }
    if (sizeof(ub_pkt) % 16) memset((char *)p + sizeof(ub_pkt) / 16 * 16, 0, sizeof(ub_pkt) % 16);
#else
    memset(p, 0, sizeof *p);
#endif
}

/* the memo's entry for the view's template (NULL: none, or not this one) */
static inline ub_xplan *xp_entry(ub_xplan *xp, const ub_view *v)
{
    return xp && v->tid ? &xp[v->tid % UB_XP_SETS] : NULL;
}

/* keep the dispatch extract() just made for the view's template (e: its memo entry) */
static __attribute__((noinline)) void xp_keep(ub_xplan *e, const ub_view *v, const ub_pkt *p)
{
    unsigned n = 0;
    e->tid = 0;
    for (unsigned j = 1; j < sizeof p->lay / sizeof p->lay[0]; j++) { /* lay[0]: lx_none */
        if (!p->lay[j]) continue;
        if (n == UB_XP_MAX) return;
        e->sl[n++] = j | (uint32_t)((const char *)p->lay[j] - (const char *)v->layer) << 8;
    }
    e->n = (uint8_t)n;
    e->nl = v->nlayers;
    e->crc_bad = p->crc_bad;
    e->payload_len = p->payload_len;
    e->tid = v->tid;
}

/* the layers of interest into their lay[] slots; payload_len, crc_bad */
static inline __attribute__((always_inline)) void extract_layers(const ub_state *s, const ub_view *v, ub_pkt *p)
{
    /* the layers of interest, one store per layer into the slot of its kind (the header sequence varies
     * from packet to packet: no branch per layer); the kinds where the last one is not the answer are
     * redone when the packet has more than one of them */
    const ub_layer **lay = p->lay;
    unsigned seen = 0, twice = 0;
#define XL(l)                                                                                   \
    do {                                                                                        \
        const unsigned id_ = (l)->flags & UB_LF_QUOTED ? 0u : (l)->hdr->id; /* id 0: none */     \
        const struct ub_xmap x_ = s->xmap[id_ < UB_H__COUNT ? id_ : 0]; /* id 0: none of them */ \
        lay[x_.slot] = (l);                                                                     \
        twice |= seen & x_.kind;                                                                \
        seen |= x_.kind;                                                                        \
    } while (0)
    const ub_layer *l = v->layer, *const le = v->layer + v->nlayers;
    for (; le - l >= 4; l += 4) { /* four at a time: fewer loop branches to predict */
        XL(l);
        XL(l + 1);
        XL(l + 2);
        XL(l + 3);
    }
    if (le - l >= 2) {
        XL(l);
        XL(l + 1);
        l += 2;
    }
    if (l < le) XL(l);
#undef XL
    p->lx_none = NULL;
    static const ub_layer none = { .status = UB_CK_NOT_PRESENT }; /* a missing one (selects, not branches) */
    p->payload_len = (p->payload ? p->payload : &none)->wlen;
    p->crc_bad = ((p->bcrc ? p->bcrc : &none)->status == UB_CK_BAD) | ((p->icrc ? p->icrc : &none)->status == UB_CK_BAD);
    if (twice) extract_again(p, v, s->xmap, twice);
}

/* the values the modules read: addresses, EIDs, UPI, the summary rows (pktsum.h) */
static inline __attribute__((always_inline)) void extract_values(const ub_state *s, const ub_view *v, ub_pkt *p)
{
    p->nb = p->lx_nb != NULL;
    const ub_layer *upih = p->lx_upih, *eidh = p->lx_eidh;
    if (p->nth) {
        addr_from(&p->src, p->nth, &s->f_scna, s->ar[0]);
        addr_from(&p->dst, p->nth, &s->f_dcna, s->ar[1]);
    } else if (p->ip) {
        addr_from(&p->src, p->ip, &s->f_ip_src, s->ar[2]);
        addr_from(&p->dst, p->ip, &s->f_ip_dst, s->ar[3]);
    }
    if (eidh) {
        p->seid = eid_from(eidh, &s->f_seid);
        p->deid = eid_from(eidh, &s->f_deid);
    }
    if (upih) p->upi = (uint32_t)ub_fh_get(&s->f_upi, upih);
    ub_pktsum *u = &p->sum;
    if (p->rtph) { /* §6.2.1: the summary the modules read, all fields in one go */
        uint32_t has = sum_rows(&s->rows_rtph, p->rtph, u->rt, PS_RT__N);
        u->fl |= UB_PS_RTPH | (has & 1u << PS_RT_PSN ? UB_PS_RTPH_PSN : 0) | (has & 1u << PS_RT_TPMSN ? UB_PS_RTPH_TPMSN : 0);
    }
    if (p->lph) /* §4.3.2.2.2 */
        u->fl |= UB_PS_LPH | (sum_rows(&s->rows_lph, p->lph, u->lph, PS_LPH__N) & UB_ROWS_FAST ? UB_PS_LPH_FAST : 0);
    if (p->cci) { /* §5.3.5 */
        sum_rows(&s->rows_cci, p->cci, u->cci, PS_CCI__N);
        u->fl |= UB_PS_CCI;
    }
    if (p->rtph && p->sum.rt_op >= 2) {
        p->btah = p->atah = NULL; /* a TAH after a transport ack or CNP (ns-3-UB D13) answers nothing */
    } else if (p->btah) {
        uint32_t has = sum_rows(&s->rows_btah, p->btah, u->bt, PS_BT__N);
        if (u->bt_op >= 0x11 && u->bt_op <= 0x13) { /* a response carried in a BTAH (ns-3-UB D12) */
            p->atah = p->btah;
            p->btah = NULL;
            memset(u->bt, 0, sizeof u->bt);
        } else { /* §7.2.1: the request's values */
            u->fl |= UB_PS_BTAH | (has & 1u << PS_BT_TASSN ? UB_PS_BT_TASSN : 0) | (has & 1u << PS_BT_ODR ? UB_PS_BT_ODR : 0);
        }
    }
    p->tp_kind = p->rtph ? UB_TP_RTP : p->utph ? UB_TP_UTP : p->ctph ? UB_TP_CTP : UB_TP_NONE;
    p->malformed = v->nerrs && ub_view_worst(v) >= UB_SEV_ERROR; /* (no call for the common clean packet) */
    p->cut = v->wire_len > v->rec_len;
    if (v->entry == UB_ENTRY_FLIT || v->entry == UB_ENTRY_STREAM) p->flits = v->wire_len / 20; /* a record cut by the snapshot length: its flits on the wire */
}

static inline __attribute__((always_inline)) void extract(const ub_state *s, ub_xplan *xp, const ub_view *v, const ub_pktinfo *pi, ub_pkt *p)
{
    pkt_zero(p);
    p->v = v;
    p->pi = pi;
    p->cfg = v->cfg;
    p->kind = v->kind;
    p->upi = UINT32_MAX;
    ub_xplan *xe = xp_entry(xp, v);
    if (xe && xe->tid == v->tid && xe->nl == v->nlayers) { /* the layers of a stack met before */
        const char *const l0 = (const char *)v->layer;
        _Pragma("GCC unroll 4")
        for (unsigned k = 0; k < xe->n; k++) p->lay[xe->sl[k] & 0xFFu] = (const ub_layer *)(const void *)(l0 + (xe->sl[k] >> 8));
        p->payload_len = xe->payload_len;
        p->crc_bad = xe->crc_bad;
    } else {
        extract_layers(s, v, p);
        if (xe) xp_keep(xe, v, p);
    }
    extract_values(s, v, p);
}

uint64_t ub_state_pair_hash(const ub_view *v)
{
    /* unordered endpoint pair from the NTH or IP addresses (and EIDs); link-only traffic hashes to 0 */
    uint8_t a[40], b[40];
    size_t na = 0, nb = 0;
    for (unsigned i = 0; i < v->nlayers; i++) {
        const ub_layer *l = &v->layer[i];
        unsigned id = l->hdr->id;
        uint32_t so = 0, sl = 0, doff = 0, dl = 0;
        if (id == UB_H_NTH16) { so = 0; sl = 2; doff = 2; dl = 2; }
        else if (id == UB_H_NTH24) { so = 0; sl = 3; doff = 3; dl = 3; }
        else if (id == UB_H_IPV4) { so = 12; sl = 4; doff = 16; dl = 4; }
        else if (id == UB_H_IPV6) { so = 8; sl = 16; doff = 24; dl = 16; }
        else continue;
        if (l->len < doff + dl || l->len < so + sl) return 0;
        memcpy(a, l->data + so, sl);
        na = sl;
        memcpy(b, l->data + doff, dl);
        nb = dl;
        break;
    }
    if (!na) return 0;
    int c = memcmp(a, b, na < nb ? na : nb);
    uint8_t k[80];
    if (c <= 0) { memcpy(k, a, na); memcpy(k + na, b, nb); }
    else { memcpy(k, b, nb); memcpy(k + nb, a, na); }
    return hash_bytes(k, na + nb) | 1u;
}

/* ================================================================ engine */
void ub_state_cfg_default(ub_state_cfg *c)
{
    memset(c, 0, sizeof *c);
    c->layers = UB_ST_ALL;
    c->max_links = 64;
    c->max_channels = 16384;
    c->max_transactions = 65536;
    c->max_mgmt = 4096;
    c->response_timeout_ns = 100000000ull; /* §10.6 e */
    c->loss_timeout_ns = 100000000ull;     /* §10.6 e: covers the static RTOs 512 µs and 16 ms */
}

static const ub_st_module *const all_modules[] = { &ub_st_mod_dll, &ub_st_mod_tp, &ub_st_mod_ta, &ub_st_mod_nb, &ub_st_mod_sue, &ub_st_mod_pcie };

ub_state *ub_state_new(const ub_state_cfg *cfg, ub_finding_cb fcb, void *ctx) { return ub_state_new_names(cfg, fcb, ctx, NULL); }

ub_state *ub_state_new_names(const ub_state_cfg *cfg, ub_finding_cb fcb, void *ctx, const ub_st_names *names)
{
    ub_state *s = calloc(1, sizeof *s);
    if (!s) return NULL;
    s->cfg = *cfg;
    s->fcb = fcb;
    s->fctx = ctx;
    ub_st_names *own = names ? NULL : ub_st_names_new(); /* NULL: the handles are found by ub_field_find */
    s->names = names ? names : own;
    for (unsigned r = 0; r < UB_R__COUNT; r++) s->keep_above[r] = UINT64_MAX;
    ub_st_fh_init(s, &s->f_scna, "ub.nth.scna");
    ub_st_fh_init(s, &s->f_dcna, "ub.nth.dcna");
    ub_st_fh_init(s, &s->f_seid, "ub.eidh.seid");
    ub_st_fh_init(s, &s->f_deid, "ub.eidh.deid");
    ub_st_fh_init(s, &s->f_upi, "ub.upih.upi");
    ub_st_fh_init(s, &s->f_bt_op, "ub.btah.taopcode");
    ub_st_fh_init(s, &s->f_cci_mode, "ub.cci.mode");
    ub_st_fh_init(s, &s->f_cci_fecn, "ub.cci.fecn");
    ub_st_fh_init(s, &s->f_cci_c, "ub.cci.c");
    ub_st_fh_init(s, &s->f_cci_en, "ub.cci.enable");
    static const char *const hopmask[] = { "ub.nth.cci", "ub.ipv4.dscp", "ub.ipv4.ecn", "ub.ipv4.ttl", "ub.ipv4.checksum",
                                           "ub.ipv6.traffic_class", "ub.ipv6.flow_label", "ub.ipv6.hop_limit",
                                           "ub.udp.checksum" };
    for (unsigned i = 0; i < sizeof hopmask / sizeof hopmask[0]; i++) ub_st_fh_init(s, &s->f_hopmask[i], hopmask[i]);
    ub_st_fh_init(s, &s->f_rt_op, "ub.rtph.tpopcode");
    ub_st_fh_init(s, &s->f_rt_rspst, "ub.rtph.rspst");
    ub_st_fh_init(s, &s->f_rt_rspinfo, "ub.rtph.rspinfo");
    ub_st_fh_init(s, &s->f_rt_last, "ub.rtph.last");
    ub_st_fh_init(s, &s->f_rt_src, "ub.rtph.srctpn");
    ub_st_fh_init(s, &s->f_rt_dst, "ub.rtph.dsttpn");
    ub_st_fh_init(s, &s->f_rt_psn, "ub.rtph.psn");
    ub_st_fh_init(s, &s->f_rt_a, "ub.rtph.a");
    ub_st_fh_init(s, &s->f_rt_f, "ub.rtph.f");
    ub_st_fh_init(s, &s->f_rt_tpmsn, "ub.rtph.tpmsn");
    ub_st_fh_init(s, &s->f_lph_crd, "ub.lph.crd");
    ub_st_fh_init(s, &s->f_lph_ack, "ub.lph.ack");
    ub_st_fh_init(s, &s->f_lph_crd_vl, "ub.lph.crd_vl");
    ub_st_fh_init(s, &s->f_lph_vl, "ub.lph.vl");
    ub_st_fh_init(s, &s->f_lph_rt, "ub.lph.rt");
    const ub_fh *rt[PS_RT__N] = { [PS_RT_OP] = &s->f_rt_op, [PS_RT_LAST] = &s->f_rt_last, [PS_RT_RSPST] = &s->f_rt_rspst,
                               [PS_RT_RSPINFO] = &s->f_rt_rspinfo, [PS_RT_SRC] = &s->f_rt_src, [PS_RT_DST] = &s->f_rt_dst,
                               [PS_RT_PSN] = &s->f_rt_psn, [PS_RT_A] = &s->f_rt_a, [PS_RT_F] = &s->f_rt_f, [PS_RT_TPMSN] = &s->f_rt_tpmsn };
    ub_rows_init(&s->rows_rtph, rt, PS_RT__N);
    const ub_fh *lp[PS_LPH__N] = { [PS_LPH_CRD] = &s->f_lph_crd, [PS_LPH_ACK] = &s->f_lph_ack, [PS_LPH_CRD_VL] = &s->f_lph_crd_vl,
                               [PS_LPH_VL] = &s->f_lph_vl, [PS_LPH_RT] = &s->f_lph_rt };
    ub_rows_init(&s->rows_lph, lp, PS_LPH__N);
    const ub_fh *cc[PS_CCI__N] = { [PS_CCI_MODE] = &s->f_cci_mode, [PS_CCI_FECN] = &s->f_cci_fecn, [PS_CCI_C] = &s->f_cci_c,
                               [PS_CCI_EN] = &s->f_cci_en };
    ub_rows_init(&s->rows_cci, cc, PS_CCI__N);
    ub_st_fh_init(s, &s->f_bt_tassn, "ub.btah.ini_tassn");
    ub_st_fh_init(s, &s->f_bt_rctype, "ub.btah.ini_rc_type");
    ub_st_fh_init(s, &s->f_bt_rcid, "ub.btah.ini_rc_id");
    ub_st_fh_init(s, &s->f_bt_notaack, "ub.btah.no_taack");
    ub_st_fh_init(s, &s->f_bt_odr, "ub.btah.odr");
    ub_st_fh_init(s, &s->f_bt_retry, "ub.btah.retry");
    ub_st_fh_init(s, &s->f_bt_alloc, "ub.btah.alloc");
    const ub_fh *bt[PS_BT__N] = { [PS_BT_OP] = &s->f_bt_op, [PS_BT_TASSN] = &s->f_bt_tassn, [PS_BT_RCTYPE] = &s->f_bt_rctype,
                               [PS_BT_RCID] = &s->f_bt_rcid, [PS_BT_NOTAACK] = &s->f_bt_notaack, [PS_BT_ODR] = &s->f_bt_odr,
                               [PS_BT_RETRY] = &s->f_bt_retry, [PS_BT_ALLOC] = &s->f_bt_alloc };
    ub_rows_init(&s->rows_btah, bt, PS_BT__N);
    ub_st_fh_init(s, &s->f_ip_src, "ub.ipv4.src");
    ub_st_fh_init(s, &s->f_ip_dst, "ub.ipv4.dst");
    /* IPv6 addresses: add the ipv6 tables to the same handles */
    ub_fh v6;
    ub_st_fh_init(s, &v6, "ub.ipv6.src");
    for (unsigned i = 0; i < v6.n && s->f_ip_src.n < UB_FH_MAX; i++) { s->f_ip_src.h[s->f_ip_src.n] = v6.h[i]; s->f_ip_src.f[s->f_ip_src.n++] = v6.f[i]; }
    ub_st_fh_init(s, &v6, "ub.ipv6.dst");
    for (unsigned i = 0; i < v6.n && s->f_ip_dst.n < UB_FH_MAX; i++) { s->f_ip_dst.h[s->f_ip_dst.n] = v6.h[i]; s->f_ip_dst.f[s->f_ip_dst.n++] = v6.f[i]; }
    addr_prepare(s->ar[0], &s->f_scna);
    addr_prepare(s->ar[1], &s->f_dcna);
    addr_prepare(s->ar[2], &s->f_ip_src);
    addr_prepare(s->ar[3], &s->f_ip_dst);
    xmap_init(s->xmap);
    for (unsigned i = 0; i < sizeof all_modules / sizeof all_modules[0]; i++) {
        const ub_st_module *m = all_modules[i];
        if (!(cfg->layers & m->layer)) continue;
        void *mem = calloc(1, m->size(cfg));
        if (!mem || m->init(mem, s) != 0) {
            free(mem);
            ub_st_names_free(own);
            ub_state_free(s);
            return NULL;
        }
        s->mods[s->nmods] = mem;
        s->mods_def[s->nmods] = m;
        s->mods_pkt[s->nmods] = m->packet;
        for (unsigned have = 0; have < 4; have++)
            if (!m->only || (m->only & have)) s->mods_run[have] |= (uint8_t)(1u << s->nmods);
        if (m == &ub_st_mod_dll) s->mods_run[4] |= (uint8_t)(1u << s->nmods);
        s->nmods++;
    }
    ub_st_names_free(own); /* only the start-up looks names up */
    s->names = NULL;
    return s;
}

void ub_state_set_match_cb(ub_state *s, ub_match_cb cb, void *ctx)
{
    s->mcb = cb;
    s->mctx = ctx;
}
void ub_st_set_count_cb(ub_state *s, void (*cb)(void *ctx, unsigned rule, unsigned sev)) { s->fcount = cb; }
void ub_state_set_keep_cb(ub_state *s, ub_finding_keep_cb cb)
{
    s->fkeep = cb;
    s->kq_set = false;
    for (unsigned r = 0; r < UB_R__COUNT; r++) s->keep_above[r] = UINT64_MAX;
}
void ub_st_keep_bound(ub_state *s, unsigned rule, uint64_t frame)
{
    if (rule < UB_R__COUNT && frame < s->keep_above[rule]) s->keep_above[rule] = frame;
}
void ub_state_set_note_cb(ub_state *s, ub_note_cb cb, void *ctx)
{
    s->ncb = cb;
    s->nctx = ctx;
}

/* ================================================================ merged capture points */
/* A trace that merges every port's transmissions (ns-3-UB tx-all) shows each hop of a packet. A copy
 * whose bytes after the LPH are those of an earlier packet, with no loss signal (TPNAK, TPSACK) on
 * its endpoint pair in between, is the same transmission seen one hop further: the network, transport
 * and transaction rules see the first copy only. A retransmission after a loss signal is kept. */
typedef struct hop_ent {
    uint32_t gen;  /* digest entries: the pair's loss generation when last seen; pair entries: the generation */
} hop_ent;

/* Digest of the network packet without what a switch rewrites on the way (CCI, IP TOS/TTL/checksums) */
static uint64_t hop_digest(const ub_state *s, const ub_pkt *p)
{
    const ub_view *v = p->v;
    const uint8_t *base = v->pkt, *end = v->pkt + v->pkt_len;
    uint8_t hdr[128];
    size_t hn = v->pkt_len < sizeof hdr ? v->pkt_len : sizeof hdr;
    memcpy(hdr, base, hn);
    for (unsigned i = 0; i < v->nlayers; i++) {
        const ub_layer *l = &v->layer[i];
        if (l->data < base || l->data >= base + hn) continue;
        size_t lo = (size_t)(l->data - base);
        for (unsigned k = 0; k < sizeof s->f_hopmask / sizeof s->f_hopmask[0]; k++) {
            const ub_fh *fh = &s->f_hopmask[k];
            for (unsigned j = 0; j < fh->n; j++) {
                if (fh->h[j] != l->hdr) continue;
                size_t a = lo + fh->f[j]->bit_off / 8, b = lo + (fh->f[j]->bit_off + fh->f[j]->bits + 7) / 8;
                if (b > lo + l->len) b = lo + l->len;
                for (size_t x = a; x < b && x < hn; x++) hdr[x] = 0;
            }
        }
    }
    return hash_bytes(hdr, hn) ^ (hash_bytes(base + hn, (size_t)(end - (base + hn))) * 0x9E3779B97F4A7C15ull);
}

static bool hop_copy(ub_state *s, const ub_pkt *p)
{
    const ub_view *v = p->v;
    if (!v->pkt || !v->pkt_len || v->kind == UB_KIND_DLLCB) return false;
    if (!s->hops.name) { /* the table on the first merged-hops packet */
        if (ub_tbl_init(&s->hops, "hop copies", s->cfg.max_channels ? s->cfg.max_channels : 16384, sizeof(hop_ent)) != 0)
            return false;
        ub_st_table(s, UB_TBL_HOPS, &s->hops, "packets seen at several capture points (hop copies)");
    }
    uint64_t pair = ub_state_pair_hash(v);
    ub_key pk = { 0 };
    ub_key_add(&pk, "G", 1);
    ub_key_u64(&pk, pair);
    hop_ent *g = (hop_ent *)ub_tbl_get(&s->hops, &pk, NULL);
    if (!g) return false;
    ub_key dk = { 0 };
    ub_key_add(&dk, "D", 1);
    ub_key_u64(&dk, pair);
    ub_key_u64(&dk, hop_digest(s, p) ^ ((uint64_t)(v->wire_len - v->rec_len) << 40));
    bool created = false;
    hop_ent *e = (hop_ent *)ub_tbl_get(&s->hops, &dk, &created);
    if (!e) return false;
    g = (hop_ent *)ub_tbl_find(&s->hops, &pk); /* the insert may have moved entries */
    if (!g) return false;
    if (!created && e->gen == g->gen) return true; /* the same transmission, one hop further */
    if (p->rtph) { /* a new loss signal starts a new generation: what follows may be retransmissions */
        uint64_t op = p->sum.rt_op, rspst = p->sum.rt_rspst;
        if (op == 5 || op == 6 || ((op == 2 || op == 3) && rspst == 3) ||
            (op == 4 && ub_pf(v->opts, UB_PF_TPOP4_NAK)))
            g->gen++;
    }
    e->gen = g->gen;
    return false;
}

void ub_state_extract(const ub_state *s, ub_xplan *xp, const ub_view *v, const ub_pktinfo *pi, ub_pkt *p)
{
    extract(s, xp, v, pi, p);
}

/* the packet through the engine's checks and modules (inlined in both callers) */
static inline __attribute__((always_inline)) void packet_run(ub_state *s, const ub_pkt *p)
{
    const ub_view *v = p->v;
    const ub_pktinfo *pi = p->pi;
    s->cur_frame = pi->frame;
    s->kq_set = false;
    s->packets++;
    if (pi->ts_ns > s->last_ts) s->last_ts = pi->ts_ns;
    if (s->cfg.layers & UB_ST_DECODE) decode_findings(s, p);
    if (p->cci && (s->cfg.layers & UB_ST_NW) && !p->crc_bad) { /* NW-02: congestion seen on the way (every hop) */
        uint64_t mode = p->sum.cci_mode, fecn = p->sum.cci_fecn;
        uint64_t c = p->sum.cci_c && (p->sum.cci_en || ub_pf(v->opts, UB_PF_CAQM_NO_ENABLE));
        bool marked = ((mode == 4 || mode == 2) && (fecn == 1 || fecn == 3)) || (mode == 0 && c);
        if (marked) {
            int64_t vals[2] = { (int64_t)mode, (int64_t)(mode == 0 ? c : fecn) };
            ub_st_emit(s, UB_R_NW_CONGESTED, -1, pi->frame, NULL, 0, vals, 2,
                       mode == 0 ? "CAQM congestion mark (C = 1)" : fecn == 3 ? "FECN: heavy congestion" : "FECN: light congestion",
                       NULL, NULL);
        }
    }
    bool copy = v->opts && ub_pf(v->opts, UB_PF_MERGED_HOPS) && hop_copy(s, p);
    if (copy) s->hop_copies++;
    /* the modules for this packet (those for neighbour or PCIe flit traffic only when it is that);
     * one call site per module slot: each indirect call keeps one target */
    const unsigned have = p->crc_bad ? 0u : (p->nb ? UB_MOD_NB : 0u) | (v->entry == UB_ENTRY_PCIEFLIT ? UB_MOD_FL : 0u);
    const unsigned run = s->mods_run[have] & (copy ? s->mods_run[4] : 0xFFu);
#define MOD_PACKET(i) \
    if (run & 1u << (i)) s->mods_pkt[i](s->mods[i], s, p)
    MOD_PACKET(0);
    MOD_PACKET(1);
    MOD_PACKET(2);
    MOD_PACKET(3);
    MOD_PACKET(4);
    MOD_PACKET(5);
    for (unsigned i = 6; i < s->nmods; i++) MOD_PACKET(i);
#undef MOD_PACKET
}

void ub_state_packet(ub_state *s, const ub_view *v, const ub_pktinfo *pi)
{
    ub_pkt p;
    extract(s, s->xp, v, pi, &p);
    packet_run(s, &p);
}

void ub_state_packet_pkt(ub_state *s, const ub_pkt *p) { packet_run(s, p); }

void ub_state_finish(ub_state *s)
{
    s->kq_set = false;
    report_evictions(s); /* first: they happened before what is still outstanding */
    for (unsigned i = 0; i < s->nmods; i++)
        if (s->mods_def[i]->finish) s->mods_def[i]->finish(s->mods[i], s);
}

void ub_state_free(ub_state *s)
{
    if (!s) return;
    ub_tbl_free(&s->hops);
    for (unsigned i = 0; i < s->nmods; i++) {
        if (s->mods_def[i]->fini) s->mods_def[i]->fini(s->mods[i]);
        free(s->mods[i]);
    }
    free(s);
}

void ub_state_get_stats(const ub_state *s, ub_state_stats *st)
{
    *st = s->stats;
    st->packets = s->packets;
    st->evicted_total = 0;
    st->table_bytes = 0;
    for (unsigned id = 0; id < UB_TBL__COUNT; id++) {
        const ub_tbl *t = s->tbls[id];
        ub_state_tblstat *x = &st->tbl[id];
        memset(x, 0, sizeof *x);
        if (!t) continue;
        x->evicted = t->evicted;
        x->first_evict_frame = t->first_evict;
        x->last_evict_frame = t->last_evict;
        x->live = t->count;
        x->peak = t->peak;
        x->bound = t->max;
        x->bytes = ub_tbl_bytes(t);
        st->table_bytes += x->bytes;
        st->evicted_total += t->evicted;
    }
    /* the four headline tables, from the tables themselves */
    static const unsigned head[4] = { UB_TBL_LINKS, UB_TBL_CHANNELS, UB_TBL_TRANSACTIONS, UB_TBL_MGMT };
    uint64_t *ev[4] = { &st->evicted_links, &st->evicted_channels, &st->evicted_transactions, &st->evicted_mgmt };
    uint32_t *live[4] = { &st->links, &st->channels, &st->transactions, &st->mgmt };
    for (unsigned i = 0; i < 4; i++)
        if (s->tbls[head[i]]) {
            *ev[i] = s->tbls[head[i]]->evicted;
            *live[i] = s->tbls[head[i]]->count;
        }
}

void ub_state_stats_add(ub_state_stats *a, const ub_state_stats *b)
{
    a->packets += b->packets;
    a->evicted_links += b->evicted_links;
    a->evicted_channels += b->evicted_channels;
    a->evicted_transactions += b->evicted_transactions;
    a->evicted_mgmt += b->evicted_mgmt;
    a->links += b->links;
    a->channels += b->channels;
    a->transactions += b->transactions;
    a->mgmt += b->mgmt;
    a->evicted_total += b->evicted_total;
    a->table_bytes += b->table_bytes;
    for (unsigned id = 0; id < UB_TBL__COUNT; id++) {
        ub_state_tblstat *x = &a->tbl[id];
        const ub_state_tblstat *y = &b->tbl[id];
        x->evicted += y->evicted;
        x->live += y->live;
        x->peak += y->peak;
        x->bytes += y->bytes;
        if (y->bound > x->bound) x->bound = y->bound;
        if (y->first_evict_frame && (!x->first_evict_frame || y->first_evict_frame < x->first_evict_frame))
            x->first_evict_frame = y->first_evict_frame;
        if (y->last_evict_frame > x->last_evict_frame) x->last_evict_frame = y->last_evict_frame;
    }
}

/* Info-column tags of the TP sequence analysis, in the order Wireshark shows them */
static const struct { uint32_t bit; const char *tag; } tp_tags[] = {
    { UB_TPF_RETRANSMISSION, "[TP Retransmission] " },
    { UB_TPF_OUT_OF_ORDER, "[TP Out-Of-Order] " },
    { UB_TPF_LOST_BEFORE, "[TP Previous PSN not captured] " },
    { UB_TPF_DUPLICATE, "[TP Duplicate] " },
    { UB_TPF_DUP_ACK, "[TP Dup ACK] " },
};

const char *ub_tp_flag_tag(uint32_t bit)
{
    for (size_t i = 0; i < sizeof tp_tags / sizeof tp_tags[0]; i++)
        if (tp_tags[i].bit == bit) return tp_tags[i].tag;
    return NULL;
}

size_t ub_tp_flags_tags(uint32_t flags, char *buf, size_t n)
{
    size_t k = 0;
    if (n) buf[0] = '\0';
    for (size_t i = 0; i < sizeof tp_tags / sizeof tp_tags[0]; i++) {
        if (!(flags & tp_tags[i].bit)) continue;
        size_t l = strlen(tp_tags[i].tag);
        if (k + l + 1 > n) break;
        memcpy(buf + k, tp_tags[i].tag, l + 1);
        k += l;
    }
    return k;
}

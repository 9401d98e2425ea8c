/* Decoder core: error table, layer stack, field access, options, entry-point dispatch. */
#include "internal.h"
#include "neigh.h"
#include "rows.h"

/* ---------------------------------------------------------------- error catalogue */
static const ub_err_info err_table[UB_E__COUNT] = {
    [UB_E_NONE] = { UB_E_NONE, "none", UB_SEV_NOTE, UB_EG_MALFORMED, "no error" },
    [UB_E_TRUNCATED] = { UB_E_TRUNCATED, "truncated", UB_SEV_ERROR, UB_EG_MALFORMED,
                         "header or payload cut short" },
    [UB_E_RSVD_BITS] = { UB_E_RSVD_BITS, "reserved_bits", UB_SEV_WARN, UB_EG_PROTOCOL,
                         "reserved field is not zero (§0.2, App. B note 1)" },
    [UB_E_RSVD_VALUE] = { UB_E_RSVD_VALUE, "reserved_value", UB_SEV_ERROR, UB_EG_MALFORMED,
                          "reserved value in a field that selects the meaning of what follows" },
    [UB_E_LENGTH] = { UB_E_LENGTH, "length_mismatch", UB_SEV_ERROR, UB_EG_MALFORMED,
                      "length fields disagree with each other or with the record" },
    [UB_E_BCRC_BAD] = { UB_E_BCRC_BAD, "bcrc_bad", UB_SEV_ERROR, UB_EG_CHECKSUM,
                        "BCRC (CRC30) does not match the block (§4.7.2)" },
    [UB_E_ICRC_BAD] = { UB_E_ICRC_BAD, "icrc_bad", UB_SEV_ERROR, UB_EG_CHECKSUM,
                        "ICRC matches in neither byte order (§5.3.7, R-15)" },
    [UB_E_PLENGTH_RSVD] = { UB_E_PLENGTH_RSVD, "plength_reserved", UB_SEV_ERROR, UB_EG_MALFORMED,
                            "PLENGTH[4:0] is a reserved code for this CRC mode (Table 4-1)" },
    [UB_E_UNKNOWN_CFG] = { UB_E_UNKNOWN_CFG, "unknown_cfg", UB_SEV_ERROR, UB_EG_MALFORMED,
                           "reserved CFG value (App. B Table B-1)" },
    [UB_E_UNKNOWN_NLP] = { UB_E_UNKNOWN_NLP, "unknown_nlp", UB_SEV_ERROR, UB_EG_MALFORMED,
                           "reserved next-layer-protocol value" },
    [UB_E_UNKNOWN_TPOPCODE] = { UB_E_UNKNOWN_TPOPCODE, "unknown_tpopcode", UB_SEV_ERROR, UB_EG_MALFORMED,
                                "reserved TPOpcode (Table 6-2)" },
    [UB_E_UNKNOWN_TAOPCODE] = { UB_E_UNKNOWN_TAOPCODE, "unknown_taopcode", UB_SEV_ERROR, UB_EG_MALFORMED,
                                "reserved TAOpcode (Table 7-1)" },
    [UB_E_UNKNOWN_DLLCB] = { UB_E_UNKNOWN_DLLCB, "unknown_dllcb", UB_SEV_ERROR, UB_EG_MALFORMED,
                             "reserved DLLCB CTRL/SUB_CTRL (Table 4-6)" },
    [UB_E_LCH_PATTERN] = { UB_E_LCH_PATTERN, "lch_pattern", UB_SEV_ERROR, UB_EG_MALFORMED,
                           "LCH fixed bits are not 0/100000 (Table 4-5)" },
    [UB_E_CLENGTH] = { UB_E_CLENGTH, "clength", UB_SEV_ERROR, UB_EG_MALFORMED,
                       "DLLCB length not allowed for its type (DL-02)" },
    [UB_E_LBH_MISMATCH] = { UB_E_LBH_MISMATCH, "lbh_mismatch", UB_SEV_WARN, UB_EG_PROTOCOL,
                            "LBH VL/CFG differ from the LPH (DL-04, R-46)" },
    [UB_E_ERROR_FLAG] = { UB_E_ERROR_FLAG, "error_flag", UB_SEV_WARN, UB_EG_PROTOCOL,
                          "DLLDP marked bad by the sender, ERROR_FLAG = 1 (§4.8.3)" },
    [UB_E_PADDING] = { UB_E_PADDING, "padding_nonzero", UB_SEV_WARN, UB_EG_PROTOCOL,
                       "padding bytes are not zero (DL-08)" },
    [UB_E_TP_ALIGN] = { UB_E_TP_ALIGN, "tp_alignment", UB_SEV_ERROR, UB_EG_MALFORMED,
                        "TPH to payload end plus Padding is not a multiple of 4 (TP-10)" },
    [UB_E_FLAGS] = { UB_E_FLAGS, "flags_mismatch", UB_SEV_ERROR, UB_EG_PROTOCOL,
                     "header flags inconsistent with the opcode (TA-05)" },
    [UB_E_VALUE] = { UB_E_VALUE, "bad_value", UB_SEV_ERROR, UB_EG_PROTOCOL,
                     "field value outside its allowed range" },
    [UB_E_TRAILING] = { UB_E_TRAILING, "trailing_bytes", UB_SEV_WARN, UB_EG_MALFORMED,
                        "bytes after the decoded structure" },
    [UB_E_AMBIGUOUS] = { UB_E_AMBIGUOUS, "ambiguous", UB_SEV_NOTE, UB_EG_PROTOCOL,
                         "layout ambiguity resolved by the configured default (R-nn)" },
    [UB_E_ENCRYPTED] = { UB_E_ENCRYPTED, "cip_opaque", UB_SEV_NOTE, UB_EG_PROTOCOL,
                         "CIP-protected bytes shown opaque (§11.5)" },
    [UB_E_STREAM] = { UB_E_STREAM, "stream_sync", UB_SEV_WARN, UB_EG_SEQUENCE,
                      "raw flit stream: incomplete unit or resynchronisation" },
    [UB_E_LINKTYPE] = { UB_E_LINKTYPE, "not_ub", UB_SEV_NOTE, UB_EG_PROTOCOL,
                        "record is not UB traffic for this entry point" },
    [UB_E_TOO_DEEP] = { UB_E_TOO_DEEP, "too_many_layers", UB_SEV_WARN, UB_EG_MALFORMED,
                        "layer table full, rest not shown" },
    [UB_E_RSVD_ATTR] = { UB_E_RSVD_ATTR, "reserved_attribute", UB_SEV_WARN, UB_EG_PROTOCOL,
                         "reserved value of an attribute field such as EE_bits or ODR (§10.6 h)" },
    [UB_E_IP_FRAGMENTED] = { UB_E_IP_FRAGMENTED, "ip_fragmented", UB_SEV_ERROR, UB_EG_PROTOCOL,
                             "UB datagram reassembled from IP fragments: UB sets DF and is never fragmented (NW-03)" },
};

const ub_err_info *ub_err_get(unsigned code)
{
    return code < UB_E__COUNT ? &err_table[code] : NULL;
}

/* ---------------------------------------------------------------- options */
void ub_opts_default(ub_opts *o)
{
    memset(o, 0, sizeof *o);
    o->dlt_flit = 147;
    o->dlt_pkt = 148;
    o->dlt_stream = 149;
    o->udp_port = UB_UDP_PORT;
    o->crc_mode = true;
    o->bcrc_variant = 0; /* */
    /* TAH format per CFG for non-management opcodes */
    for (int i = 0; i < 16; i++) o->tah_fmt[i] = UB_TAH_FULL;
    o->tah_fmt[6] = UB_TAH_COMPACT; /* CFG 6 non-management: compact */
    o->tah_fmt[9] = UB_TAH_COMPACT; /* CFG 9 coherent: compact */
    o->read_ext4 = 0;               /* R-26 auto */
    o->btah_variant = 0;            /* I-34 spec layout */
    o->scan_packing = 0;            /* R-32 rev. 2 */
    o->vdm_variant = 0;             /* R-36 figure order */
    o->init_variant = 0;            /* R-08 Table 4-8 */
    o->cetph_variant = 0;           /* R-17 LDCP */
    o->bitmap_order = 0;            /* */
    o->icv_len = 12;                /* R-22 / §11.5.2.4 */
    o->cip_decode_inner = false;
    o->urpc_heuristic = true;
    o->icrc_enum = 0;               /* R-44 auto */
    o->profile = UB_PROFILE_SPEC;
    o->udp_heuristic = true;        /* §1 step 3: other ports only through the strict heuristic */
    o->n_udp_more = 0;
    o->dlt_pcieflit = 150;          /* LINKTYPE_USER3: UB takes USER0..USER2 */
    o->udp4791 = 0;
    o->sue_port = 4791;             /* document 004 §12.3.3: TYPE1 dport 0x12B7 */
    o->sue_ethertype[0] = 0x88B5;   /* IEEE 802 local experimental EtherTypes: provisional stand-ins for */
    o->sue_ethertype[1] = 0x88B6;   /* the register-set MAC_TYPE1/MAC_TYPE2 (document 004 §12.10) */
    o->sue_rh_order = 0;
    o->sue_afh = 0;
    o->sue_tc_in_sa = true;
    o->sue_icrc = false;
    o->ip_defrag = true;            /* as Wireshark's ip.defragment / ipv6.defragment */
}

ub_entry ub_entry_for_linktype(const ub_opts *o, uint32_t lt)
{
    if (lt == o->dlt_flit) return UB_ENTRY_FLIT;
    if (lt == o->dlt_pkt) return UB_ENTRY_PKT;
    if (lt == o->dlt_stream) return UB_ENTRY_STREAM;
    if (o->dlt_pcieflit && lt == o->dlt_pcieflit) return UB_ENTRY_PCIEFLIT;
    switch (lt) {
    case 1: return UB_ENTRY_ETH;
    case 113: return UB_ENTRY_SLL;
    case 276: return UB_ENTRY_SLL2;
    case 101: case 12: case 14: return UB_ENTRY_RAWIP;
    case 228: case 229: return UB_ENTRY_IP;
    case 0: case 108: return UB_ENTRY_NULL;
    default: return UB_ENTRY_NONE;
    }
}

/* ---------------------------------------------------------------- layers and errors */
uint32_t ub_dec_rec_off(const ub_dec *d, uint32_t off)
{
    if (d->netbuf_multi) return d->netbuf_rec_start + ub_dll_pkt_to_rec(d->o->crc_mode, off);
    return d->rec_base + off;
}

void ub_unit_partial(ub_view *v, uint32_t len)
{
    ub_error_rec(v, UB_E_STREAM, UB_H_NONE, 0, len, 0, "incomplete unit: the stream resynchronised or ended");
}

void ub_unit_flag_errors(ub_view *v, unsigned flags, uint32_t len)
{
    if (flags & UB_UNIT_PARTIAL) ub_unit_partial(v, len);
    if (!(flags & UB_UNIT_REASSEMBLED) || !ub_view_ub(v)) return;
    unsigned n = v->nlayers < UB_MAX_LAYERS ? v->nlayers : UB_MAX_LAYERS, hdr = UB_H_NONE;
    uint32_t off = 0;
    for (unsigned i = 0; i < n; i++) { /* the first IP header: the one reassembled (none: a transport header
                                        * handed over alone, the plugin's after Wireshark's reassembly) */
        const ub_layer *l = &v->layer[i];
        if (l->hdr->id != UB_H_IPV4 && l->hdr->id != UB_H_IPV6) continue;
        const bool in = l->data >= v->rec && l->data < v->rec + v->rec_len; /* (a CFG 3/4 one: in the netbuf) */
        hdr = l->hdr->id;
        off = in ? (uint32_t)(l->data - v->rec) : 0u;
        break;
    }
    ub_error_rec(v, UB_E_IP_FRAGMENTED, hdr, off, 0, 0,
                 "IP fragments reassembled: a UB datagram has DF set and is never fragmented (NW-03)");
}

unsigned ub_unit_flags_of(const ub_view *v)
{
    unsigned ne = v->nerrs > UB_MAX_ERRS ? UB_MAX_ERRS : v->nerrs, f = 0;
    for (unsigned i = 0; i < ne; i++) {
        const ub_err *e = &v->err[i];
        if (e->code == UB_E_STREAM && e->hdr == UB_H_NONE && e->off == 0) f |= UB_UNIT_PARTIAL;
        if (e->code == UB_E_IP_FRAGMENTED) f |= UB_UNIT_REASSEMBLED;
    }
    return f;
}

void ub_error_rec(ub_view *v, unsigned code, unsigned hdr, uint32_t rec_off, uint64_t actual,
                  uint64_t expected, const char *what)
{
    if (v->nerrs >= UB_MAX_ERRS) {
        v->errs_dropped++;
        return;
    }
    ub_err *e = &v->err[v->nerrs++];
    e->code = (uint16_t)code;
    e->hdr = (uint16_t)hdr;
    e->off = rec_off;
    e->actual = actual;
    e->expected = expected;
    e->what = what;
}

void ub_error(ub_dec *d, unsigned code, unsigned hdr, uint32_t off, uint64_t actual, uint64_t expected,
              const char *what)
{
    /* a record cut by the snapshot length: what lies beyond the bytes present is not missing */
    if (code == UB_E_TRUNCATED && d->wlen > d->len && off >= d->len) return;
    if (code == UB_E_LENGTH && d->len_cut) return;
    ub_error_rec(d->v, code, hdr, ub_dec_rec_off(d, off), actual, expected, what);
}

uint64_t ub_lget_slow(const ub_layer *l, unsigned idx)
{
    ub_val v;
    if (!l || idx >= l->hdr->nfields) return 0;
    if (ub_field_value(l, &l->hdr->fields[idx], &v) != 0) return 0;
    return v.u;
}

const char *ub_field_short(const ub_hdr *h, const ub_field *f)
{
    const char *ns = ub_hdr_ns(h), *a = f->abbrev;
    size_t nl = strlen(ns), al = strlen(h->abbrev);
    if (strncmp(a, ns, nl) == 0 && strncmp(a + nl, h->abbrev, al) == 0 && a[nl + al] == '.') return a + nl + al + 1;
    const char *dot = strrchr(a, '.'); /* a row named under another header (infiniband.reth.va in the AtomicETH) */
    return dot ? dot + 1 : a;
}

/* A row's short name is a suffix of its abbrev, after a '.' or the whole abbrev: rows whose abbrev
 * does not end so are rejected on lengths, one byte and a memcmp (all inside the strings) before the full rule. */
int ub_field_index(const ub_hdr *h, const char *short_name)
{
    size_t sl = strlen(short_name);
    for (unsigned i = 0; i < h->nfields; i++) {
        const char *a = h->fields[i].abbrev;
        size_t al = strlen(a);
        if (al < sl || (al > sl && a[al - sl - 1] != '.') || memcmp(a + al - sl, short_name, sl) != 0) continue;
        if (strcmp(ub_field_short(h, &h->fields[i]), short_name) == 0) return (int)i;
    }
    return -1;
}

#define UB_RSVD_SPAN 32u                      /* bytes covered by ub_view.rsvd_mask */

static void check_rsvd_row(ub_dec *d, const ub_layer *l, const ub_field *f);

/* rows m of l's table one by one, in table order (out of line: the common case never gets here) */
__attribute__((noinline)) static void check_rsvd_rows(ub_dec *d, const ub_layer *l, uint64_t m)
{
    for (; m; m &= m - 1)
        check_rsvd_row(d, l, &l->hdr->fields[__builtin_ctzll(m)]);
}

/* A reserved row the byte mask can stand for: plain bits or whole bytes, no virtual value, inside the
 * first UB_RSVD_SPAN bytes. It is non-zero exactly when its bits under the mask are. */
static bool rsvd_maskable(const ub_field *f)
{
    if (f->flags & (UB_FF_VIRTUAL | UB_FF_LEW)) return false;
    if (f->bits == 0 || f->bit_off + f->bits > UB_RSVD_SPAN * 8u) return false;
    if (f->type == UB_FT_UINT || f->type == UB_FT_BOOL) return f->bits <= 64;
    return f->type == UB_FT_BYTES && f->bit_off % 8u == 0 && f->bits % 8u == 0;
}

/* A reserved row "the bytes from here to the layer's end" (bits 0: TP padding): all zero or not */
static bool rsvd_zero_tail(const ub_field *f)
{
    return f->type == UB_FT_BYTES && f->bits == 0 && f->bit_off % 8u == 0 &&
           !(f->flags & (UB_FF_VIRTUAL | UB_FF_LEW));
}

/* The layer (len bytes) holds none of the rows past the table's length (which a row too long for its
 * layer skips): the mask and the slow rows cover all it has. */
static inline bool rsvd_no_tail(const struct ub_rsvd_ent *e, uint32_t len)
{
    return !e->tailmax || len <= e->tailmax;
}

/* Derive the reserved rows of table h into e (once per table and view). */
static void rsvd_learn(struct ub_rsvd_ent *e, const ub_hdr *h)
{
    uint64_t rows = 0, slow = 0, tail = 0;
    unsigned zrow = 0;
    uint8_t m[UB_RSVD_SPAN];
    unsigned span = 0;
    uint32_t maxlen = UINT32_MAX;
    memset(m, 0, sizeof m);
    for (unsigned i = 0; i < h->nfields; i++) {
        const ub_field *f = &h->fields[i];
        if (!(f->flags & UB_FF_RSVD)) continue;
        rows |= 1ull << i;
        if (!rsvd_maskable(f)) {
            slow |= 1ull << i;
            if (rsvd_zero_tail(f)) zrow = i + 1;
            continue;
        }
        if (h->len && f->bit_off + f->bits > h->len * 8u) {
            /* a row past the table's length (the 20-byte alternative's trailing RSVD, R-35): not in the
             * mask; a layer long enough to hold one is checked row by row (rsvd_no_tail) */
            tail |= 1ull << i;
            if ((f->bit_off + f->bits - 1u) / 8u < maxlen) maxlen = (f->bit_off + f->bits - 1u) / 8u;
            continue;
        }
        for (uint32_t b = f->bit_off; b < f->bit_off + f->bits; b++) m[b / 8u] |= (uint8_t)(0x80u >> (b % 8u));
        if ((f->bit_off + f->bits + 7u) / 8u > span) span = (f->bit_off + f->bits + 7u) / 8u;
    }
    e->rows = rows;
    e->slow = slow;
    e->span = (uint8_t)span;
    e->zrow = (uint8_t)zrow;
    /* words covering [0, span) without reading past it: 8-byte words at 0, 8, .., the last one ending
     * at span; or 4-byte words at 0 and span - 4; or the bytes. Masks in memory order, so loaded
     * words line up with the data. */
    unsigned w = span >= 8 ? 8u : span >= 4 ? 4u : 1u;
    e->nw = (uint8_t)(w == 1 ? span : w == 4 ? 2 : (span + w - 1) / w);
    memset(e->mask, 0, sizeof e->mask);
    for (unsigned k = 0; k < e->nw && k < 4; k++) {
        unsigned o = w * k + w > span ? span - w : w * k;
        e->woff[k] = (uint8_t)o;
        if (w > 1) memcpy(&e->mask[k], m + o, w);
    }
    if (w == 1) memcpy(e->mask, m, 4);
    e->fast = rows == 0 ? 1 : slow || !span ? 0 : span <= 4 ? 2 : span < 8 ? 3 : 4;
    if (!span && zrow && rows == 1ull << (zrow - 1) && h->fields[zrow - 1].bit_off / 8u <= UINT8_MAX) {
        e->fast = 5; /* only "zero bytes from woff[0] to the end" (TP padding) */
        e->woff[0] = (uint8_t)(h->fields[zrow - 1].bit_off / 8u);
    }
    uint32_t minlen = h->len > span ? h->len : span;
    if (minlen > UINT16_MAX || tail) e->fast = 0;
    e->minlen = (uint16_t)minlen;
    e->tailmax = tail ? (uint16_t)maxlen : 0;
    e->hdr = h;
}

/* The view's entry for table h, derived on first use; NULL when the table cannot be cached. The view's
 * entries hold the tables of the profile being decoded (ub_decode_wire resets them when the profile
 * changes): a table that is not the profile's table of its id is derived into *tmp instead. */
static inline const struct ub_rsvd_ent *rsvd_ent(const ub_dec *d, const ub_hdr *h, struct ub_rsvd_ent *tmp)
{
    if (h->nfields > 64 || h->id >= UB_H__COUNT) return NULL;
    struct ub_rsvd_ent *e = &d->v->rsvd[h->id];
    if (__builtin_expect(e->hdr != h, 0)) {
        if (ub_dec_hdr(d, h->id) != h) e = tmp;
        rsvd_learn(e, h);
    }
    return e;
}

/* §0.2: reserved fields must be zero. One masked compare over the header's reserved bits; only when
 * it finds one set (or the layer is short) are the rows read one by one, in table order. */
void ub_check_rsvd(ub_dec *d, const ub_layer *l)
{
    struct ub_rsvd_ent tmp;
    const struct ub_rsvd_ent *e = rsvd_ent(d, l->hdr, &tmp);
    if (e) {
        uint64_t m = e->rows;
        if (e->span && l->len >= e->span && rsvd_no_tail(e, l->len) && !ub_rsvd_any(e, l->data, l->len))
            m = e->slow; /* the masked rows are all zero */
        if (m) check_rsvd_rows(d, l, m);
        return;
    }
    const ub_field *f = l->hdr->fields, *fend = f + l->hdr->nfields;
    for (; f < fend; f++)
        if (f->flags & UB_FF_RSVD) check_rsvd_row(d, l, f);
}

static void check_rsvd_row(ub_dec *d, const ub_layer *l, const ub_field *f)
{
    ub_val v;
    uint32_t lead = f->bit_off & 7u;
    if (f->flags & UB_FF_LEW) { /* bit_off numbers a little-endian word, not the wire bytes */
        if (ub_field_value(l, f, &v) != 0 || v.u == 0) return;
    } else if (f->type == UB_FT_UINT && lead + f->bits <= 8) { /* most reserved rows sit inside one byte */
        uint32_t b = f->bit_off >> 3;
        if (b >= l->len) return;
        v.u = ((uint32_t)l->data[b] >> (8u - lead - f->bits)) & ((1u << f->bits) - 1u);
        if (v.u == 0) return;
    } else if (f->type == UB_FT_UINT) {
        if (!ub_rd_bits(l->data, l->len, f->bit_off, f->bits, &v.u) || v.u == 0) return;
    } else if (f->type == UB_FT_BYTES && !(f->flags & UB_FF_VIRTUAL)) {
        /* a reserved byte string (DLLCB bodies, padding): zero words skipped before building the value
         * (the bounds are ub_field_value's) */
        uint32_t start = f->bit_off / 8u;
        if (start > l->len) return;
        uint32_t n = f->bits ? f->bits / 8u : l->len - start, i = 0;
        if (n > l->len - start) return;
        const uint8_t *p = l->data + start;
        for (uint64_t w; i + 8 <= n; i += 8) {
            memcpy(&w, p + i, 8);
            if (w) break;
        }
        while (i < n && p[i] == 0) i++;
        if (i >= n || ub_field_value(l, f, &v) != 0) return;
    } else if (ub_field_value(l, f, &v) != 0) {
        return;
    }
    bool nz = false;
    if (f->type == UB_FT_BYTES) {
        for (uint32_t k = 0; k < v.nbytes; k++) nz |= v.bytes[k] != 0;
    } else {
        nz = v.u != 0;
    }
    if (nz) {
        /* called at push time: l->off is relative to the current buffer d->p */
        uint32_t roff = ub_dec_rec_off(d, l->off + f->bit_off / 8);
        ub_error_rec(d->v, UB_E_RSVD_BITS, l->hdr->id, roff, v.u, 0, f->abbrev);
    }
}

ub_layer *ub_push_buf(ub_dec *d, unsigned hdr_id, const uint8_t *buf, uint32_t buflen, uint32_t off,
                      uint32_t len, uint8_t lflags)
{
    ub_view *v = d->v;
    const ub_hdr *h = ub_dec_hdr(d, hdr_id);
    if (!h) return NULL;
    if (v->nlayers >= UB_MAX_LAYERS) {
        if (v->nlayers == UB_MAX_LAYERS) {
            ub_error_rec(v, UB_E_TOO_DEEP, hdr_id, 0, 0, 0, NULL);
            v->nlayers++; /* mark as reported; clamp in readers */
        }
        return NULL;
    }
    ub_layer *l = &v->layer[v->nlayers++];
    memset(l, 0, sizeof *l);
    l->hdr = h;
    if (off > buflen) off = buflen;
    uint32_t avail = buflen - off;
    uint32_t want = len;
    if (want > avail) want = avail;
    l->data = buf + off;
    l->off = off;
    l->len = want;
    l->wlen = want;
    l->depth = d->depth;
    l->flags = lflags;
    if (want < len || (h->len && want < h->len)) {
        l->flags |= UB_LF_TRUNC;
    }
    return l;
}

/* A truncated layer that the wire holds in full (the record was cut by the snapshot length) is no
 * error: it keeps UB_LF_TRUNC, and wlen says how long it is on the wire. */
static bool snap_cut(ub_dec *d, ub_layer *l, uint32_t off, uint32_t need, uint32_t end)
{
    if (end > d->wlen) end = d->wlen;
    if (d->wlen <= d->len || off + need > end) return false;
    l->wlen = need;
    return true;
}

/* The general ub_push: short layers (truncation errors, snapshot cuts), too deep, unknown ids, first use
 * of a table in this view. */
__attribute__((noinline)) static ub_layer *push_general(ub_dec *d, unsigned hdr_id, uint32_t off, uint32_t len)
{
    ub_layer *l = ub_push_buf(d, hdr_id, d->p, d->len, off, len, d->lflags);
    if (!l) return NULL;
    if (l->flags & UB_LF_TRUNC) {
        uint32_t need = len > l->hdr->len ? len : l->hdr->len;
        if (!snap_cut(d, l, off, need, d->wlen)) ub_error(d, UB_E_TRUNCATED, hdr_id, off + l->len, l->len, need, l->hdr->key);
    }
    ub_check_rsvd(d, l);
    return l;
}

/* Everything but the fast path of ub_push (internal.h): short layers, too deep, unknown ids, first
 * use of a table in this view, a reserved bit set. Reports exactly as the general path always did. */
ub_layer *ub_push_slow(ub_dec *d, unsigned hdr_id, uint32_t off, uint32_t len)
{
    ub_view *v = d->v;
    if (hdr_id < UB_H__COUNT && v->nlayers < UB_MAX_LAYERS && off <= d->len && len <= d->len - off) {
        const ub_hdr *h = ub_dec_hdr(d, hdr_id);
        const struct ub_rsvd_ent *e = &v->rsvd[hdr_id];
        if (h && len >= h->len && e->hdr == h) {
            const uint8_t *p = d->p + off;
            uint64_t m = e->rows;
            if (m && e->span && len >= e->span && rsvd_no_tail(e, len) && !ub_rsvd_any(e, p, d->len - off)) m = e->slow;
            if (m && e->zrow && m == 1ull << (e->zrow - 1)) { /* only a zero-to-end row left: all zero? */
                uint32_t i = h->fields[e->zrow - 1].bit_off / 8u;
                while (i < len && p[i] == 0) i++;
                if (i >= len) m = 0;
            }
            ub_layer *l = ub_push_fill(d, h, off, len);
            if (m) check_rsvd_rows(d, l, m);
            return l;
        }
    }
    return push_general(d, hdr_id, off, len);
}

ub_layer *ub_push_in(ub_dec *d, unsigned hdr_id, uint32_t off, uint32_t len, uint32_t end, bool trunc_err)
{
    uint32_t wend = end;
    if (end > d->len) end = d->len;
    if (off <= end && len <= end - off) { /* whole inside [off, end): exactly ub_push (no truncation) */
        const ub_hdr *h = ub_dec_hdr(d, hdr_id);
        if (h && len >= h->len) return ub_push(d, hdr_id, off, len);
    }
    if (off > end) off = end;
    ub_layer *l = ub_push_buf(d, hdr_id, d->p, end, off, len, d->lflags);
    if (!l) return NULL;
    if (l->flags & UB_LF_TRUNC) {
        uint32_t need = len > l->hdr->len ? len : l->hdr->len;
        if (!snap_cut(d, l, off, need, wend) && trunc_err)
            ub_error(d, UB_E_TRUNCATED, hdr_id, off + l->len, l->len, need, l->hdr->key);
    }
    ub_check_rsvd(d, l);
    return l;
}

uint64_t ub_peek(const ub_dec *d, const ub_hdr *h, unsigned idx, uint32_t off, uint32_t end)
{
    if (idx < h->nfields) { /* ub_lget's plain rows, without building the layer */
        const ub_field *f = &h->fields[idx];
        uint64_t v;
        if ((f->type == UB_FT_UINT || f->type == UB_FT_BOOL) && !(f->flags & (UB_FF_VIRTUAL | UB_FF_ENCODED)))
            return ub_rd_bits_var(d->p + off, ub_dec_avail(d, off, end), f->bit_off, f->bits, &v) ? v : 0;
    }
    ub_layer t;
    memset(&t, 0, sizeof t);
    t.hdr = h;
    t.data = d->p + off;
    t.len = ub_dec_avail(d, off, end);
    return ub_lget(&t, idx);
}

/* ---------------------------------------------------------------- field values */
int ub_field_value(const ub_layer *l, const ub_field *f, ub_val *out)
{
    memset(out, 0, sizeof *out);
    if (f->flags & UB_FF_AUX) { out->u = l->aux; return 0; }
    if (f->flags & UB_FF_STATUS) { out->u = l->status; return 0; }
    if (f->flags & UB_FF_VARIANT) { out->u = l->variant; return 0; }
    if (f->flags & UB_FF_LEN) { out->u = l->len; return 0; }
    switch (f->type) {
    case UB_FT_UINT:
    case UB_FT_BOOL:
        if (f->flags & UB_FF_LEW) return ub_lew_get(l->data, l->len, f, &out->u) ? 0 : -1;
        if (!ub_rd_bits_var(l->data, l->len, f->bit_off, f->bits, &out->u)) return -1;
        if (f->flags & (UB_FF_LE | UB_FF_BITREV)) out->u = ub_field_unwire(f, out->u);
        if (f->flags & UB_FF_X64) out->u <<= 6;
        return 0;
    default: {
        uint32_t start = f->bit_off / 8;
        if (start > l->len) return -1;
        uint32_t n = f->bits ? f->bits / 8 : l->len - start;
        if (n > l->len - start) return -1;
        out->bytes = l->data + start;
        out->nbytes = n;
        if (n <= 8) {
            uint64_t u = 0;
            for (uint32_t i = 0; i < n; i++) u = (u << 8) | out->bytes[i];
            out->u = u;
        }
        return 0;
    }
    }
}

/* The writer next to the reader: the same rows, the same bit numbering (rewrites, Lua, fuzzing). */
int ub_field_write(uint8_t *p, uint32_t len, const ub_field *f, const ub_val *v)
{
    if (f->flags & UB_FF_VIRTUAL) return -1;
    switch (f->type) {
    case UB_FT_UINT:
    case UB_FT_BOOL: {
        uint64_t u = v->u;
        if (f->flags & UB_FF_X64) {
            if (u & 0x3F) return -1; /* the 6 low bits are not carried */
            u >>= 6;
        }
        if (f->bits == 0 || f->bits > 64 || (uint64_t)f->bit_off + f->bits > (uint64_t)len * 8u) return -1;
        if (f->bits < 64 && (u >> f->bits)) return -1;
        if (f->flags & UB_FF_LEW) {
            if (len < 8) return -1;
            ub_lew_put(p, f, u);
            return 0;
        }
        ub_wr_bits(p, f->bit_off, f->bits, u);
        return 0;
    }
    default: {
        uint32_t start = f->bit_off / 8;
        if (start > len) return -1;
        uint32_t n = f->bits ? f->bits / 8 : len - start;
        if (n > len - start) return -1;
        if (v->bytes) {
            if (v->nbytes > n) return -1;
            memset(p + start, 0, n - v->nbytes);
            memcpy(p + start + (n - v->nbytes), v->bytes, v->nbytes); /* right-aligned, as the builder */
        } else { /* an integer into a byte string of up to 8 bytes */
            if (n > 8 || (n < 8 && (v->u >> (8 * n)))) return -1;
            for (uint32_t i = 0; i < n; i++) p[start + i] = (uint8_t)(v->u >> (8 * (n - 1 - i)));
        }
        return 0;
    }
    }
}

static size_t put_hex(char *buf, size_t n, const uint8_t *p, uint32_t len, const char *sep)
{
    static const char hx[] = "0123456789abcdef";
    size_t w = 0, sl = strlen(sep);
    for (uint32_t i = 0; i < len; i++) {
        if (i && sl) {
            for (size_t k = 0; k < sl; k++) {
                if (w + 1 < n) buf[w] = sep[k];
                w++;
            }
        }
        if (w + 1 < n) buf[w] = hx[p[i] >> 4];
        w++;
        if (w + 1 < n) buf[w] = hx[p[i] & 15];
        w++;
    }
    if (n) buf[w < n ? w : n - 1] = '\0';
    return w;
}

/* decimal digits of v at t (no NUL); returns their count */
static size_t fmt_dec(char *t, uint64_t v)
{
    char r[20];
    size_t k = 0;
    do {
        r[k++] = (char)('0' + v % 10u);
        v /= 10u;
    } while (v);
    for (size_t i = 0; i < k; i++) t[i] = r[k - 1 - i];
    return k;
}
/* lower-case hex digits of v at t, at least `min` (zero-padded); returns their count */
static size_t fmt_hex(char *t, uint64_t v, unsigned min)
{
    static const char hx[] = "0123456789abcdef";
    size_t k = 1, pad;
    while (k < 16 && (v >> (4 * k))) k++;
    pad = min > k ? min - k : 0;
    memset(t, '0', pad);
    for (size_t i = 0; i < k; i++) t[pad + i] = hx[(v >> (4 * (k - 1 - i))) & 15u];
    return pad + k;
}

/* RFC 5952 §4 text form, as glibc inet_ntop and so tshark print it: lowercase hex without leading
 * zeros, the longest run of >= 2 zero groups (the first on ties) as "::", a single zero group kept;
 * IPv4-mapped ::ffff:a.b.c.d and IPv4-compatible ::a.b.c.d (RFC 4291 §2.5.5) in dotted form. */
size_t ub_ipv6_format(const uint8_t a[16], char *buf, size_t n)
{
    unsigned w[8];
    int best = -1, blen = 0;
    for (int i = 0; i < 8; i++) w[i] = (unsigned)a[2 * i] << 8 | a[2 * i + 1];
    for (int i = 0; i < 8;) {
        if (w[i]) { i++; continue; }
        int j = i;
        while (j < 8 && !w[j]) j++;
        if (j - i > blen) { best = i; blen = j - i; }
        i = j;
    }
    if (blen < 2) best = -1;
    char t[48];
    size_t o = 0;
    for (int i = 0; i < 8; i++) {
        if (i == best) {
            t[o++] = ':';
            if (i == 0) t[o++] = ':';
            i += blen - 1;
            continue;
        }
        if (i == 6 && best == 0 && (blen == 6 || (blen == 5 && w[5] == 0xffff))) {
            o += ub_ipv4_dec(t + o, a + 12);
            break;
        }
        o += ub_u64_hex(t + o, w[i], 0); /* "%x" */
        if (i < 7) t[o++] = ':';
    }
    t[o] = 0;
    if (n) { /* snprintf(buf, n, "%s", t) */
        size_t c = o < n ? o : n - 1;
        memcpy(buf, t, c);
        buf[c] = 0;
    }
    return o;
}

size_t ub_format_value(const ub_field *f, const ub_val *v, bool names, char *buf, size_t n)
{
    int w = 0;
    if (n == 0) return 0;
    switch (f->type) {
    case UB_FT_UINT:
    case UB_FT_BOOL: {
        const char *nm = names ? ub_vname_lookup(f->vals, v->u) : NULL;
        if (f->type == UB_FT_BOOL && !f->vals) nm = NULL;
        /* the integer forms by hand (no printf per field): the bytes "0x%0*llx" / "%llu" /
         * "%llu (0x%llx)" / "%lld" give, with snprintf's truncation */
        char t[64];
        size_t k = 0;
        if (f->base == UB_BASE_HEX) {
            unsigned digits = (f->bits + ((f->flags & UB_FF_X64) ? 6 : 0) + 3) / 4;
            if (digits == 0) digits = 1;
            t[k++] = '0';
            t[k++] = 'x';
            k += fmt_hex(t + k, v->u, digits > 32 ? 32 : digits);
        } else if (f->base == UB_BASE_DEC_HEX) {
            k += fmt_dec(t, v->u);
            memcpy(t + k, " (0x", 4);
            k += 4;
            k += fmt_hex(t + k, v->u, 1);
            t[k++] = ')';
        } else if ((f->flags & UB_FF_SIGNED) && (int64_t)v->u < 0) {
            t[k++] = '-';
            k += fmt_dec(t + k, 0u - v->u);
        } else {
            k += fmt_dec(t, v->u);
        }
        w = (int)k;
        size_t c = k < n ? k : n - 1;
        memcpy(buf, t, c);
        buf[c] = '\0';
        if (nm && w >= 0 && (size_t)w < n) w += snprintf(buf + w, n - (size_t)w, " (%s)", nm);
        return w < 0 ? 0 : (size_t)w;
    }
    case UB_FT_IPV4:
        if (v->nbytes == 4) { /* "%u.%u.%u.%u" with snprintf's truncation */
            char t[16];
            size_t k = ub_ipv4_dec(t, v->bytes), c = k < n ? k : n - 1;
            memcpy(buf, t, c);
            buf[c] = '\0';
            return k;
        }
        break;
    case UB_FT_IPV6:
        if (v->nbytes == 16) return ub_ipv6_format(v->bytes, buf, n);
        break;
    case UB_FT_MAC:
        return put_hex(buf, n, v->bytes, v->nbytes, ":");
    case UB_FT_GUID_WS:
        if (v->nbytes == 16) {
            /* word 0 (bytes 0-3) = GUID[31:0]; print canonical GUID[127:0] */
            uint8_t g[16];
            for (int wd = 0; wd < 4; wd++) memcpy(g + 4 * (3 - wd), v->bytes + 4 * wd, 4);
            return put_hex(buf, n, g, 16, "");
        }
        return put_hex(buf, n, v->bytes, v->nbytes, "");
    case UB_FT_GUID:
    case UB_FT_BYTES:
    default:
        break;
    }
    return put_hex(buf, n, v->bytes, v->nbytes, "");
}

/* ---------------------------------------------------------------- view helpers */
int ub_view_find(const ub_view *v, unsigned id, int from)
{
    unsigned nl = v->nlayers > UB_MAX_LAYERS ? UB_MAX_LAYERS : v->nlayers;
    for (unsigned i = from < 0 ? 0 : (unsigned)from; i < nl; i++)
        if (v->layer[i].hdr->id == id) return (int)i;
    return -1;
}

int ub_view_get_val(const ub_view *v, const char *abbrev, const ub_field **fout, ub_val *out)
{
    unsigned nl = v->nlayers > UB_MAX_LAYERS ? UB_MAX_LAYERS : v->nlayers;
    for (unsigned i = 0; i < nl; i++) {
        const ub_hdr *h = v->layer[i].hdr;
        size_t al = strlen(h->abbrev), nl = strlen(ub_hdr_ns(h));
        /* a neighbour's row may be named under another of its headers (infiniband.reth.va in the AtomicETH) */
        if (!ub_hdr_foreign(h) &&
            (strncmp(abbrev, ub_hdr_ns(h), nl) != 0 || strncmp(abbrev + nl, h->abbrev, al) != 0 || abbrev[nl + al] != '.'))
            continue;
        for (unsigned k = 0; k < h->nfields; k++) {
            if (strcmp(h->fields[k].abbrev, abbrev) == 0 && ub_field_value(&v->layer[i], &h->fields[k], out) == 0) {
                if (fout) *fout = &h->fields[k];
                return 0;
            }
        }
    }
    return -1;
}

int ub_view_get(const ub_view *v, const char *abbrev, uint64_t *u)
{
    ub_val val;
    if (ub_view_get_val(v, abbrev, NULL, &val) != 0) return -1;
    *u = val.u;
    return 0;
}

int ub_view_worst(const ub_view *v)
{
    int w = -1;
    for (unsigned i = 0; i < v->nerrs; i++) {
        const ub_err_info *ei = ub_err_get(v->err[i].code);
        if (ei && ei->severity > w) w = ei->severity;
    }
    return w;
}

size_t ub_error_names(const ub_view *v, char *buf, size_t n)
{
    size_t w = 0;
    if (n) buf[0] = '\0';
    for (unsigned i = 0; i < v->nerrs; i++) {
        const ub_err_info *ei = ub_err_get(v->err[i].code);
        int k = snprintf(buf + (w < n ? w : n), w < n ? n - w : 0, "%s%s", i ? "," : "", ei ? ei->name : "?");
        if (k > 0) w += (size_t)k;
    }
    return w;
}

/* ---------------------------------------------------------------- entry points */
static void dec_cfgph(ub_dec *d, uint32_t off)
{
    /* §0.3 EV-LINUX: 1-byte pseudo-CFG pushed by ubl_add_sw_ctype() */
    ub_layer *l = ub_push(d, UB_H_CFGPH, off, 1);
    if (!l || l->len < 1) return;
    int cfg = (int)ub_lget(l, 0);
    d->v->cfg = (int8_t)cfg;
    d->v->kind = UB_KIND_DLLDP;
    d->p += off + 1;
    d->len -= off + 1;
    d->wlen -= off + 1;
    d->rec_base += off + 1;
    d->v->pkt = d->p;
    d->v->pkt_len = d->len;
    d->v->pkt_off = d->rec_base;
    ub_dec_netpkt(d, cfg);
}

static void dec_mpls(ub_dec *d, uint32_t off);
static void dec_snap(ub_dec *d, uint32_t off);

/* After an Ethernet / cooked header: UB over IP/UDP when the claim rule says so (ub_dec_ip_ub),
 * otherwise what the frame is (kind OTHER, no UB error: issue #9). */
static void dec_ethertype_ip(ub_dec *d, uint32_t off, unsigned ethertype)
{
    for (unsigned tag; (tag = ub_tpid_table(ethertype)) != 0; off += 4) { /* 802.1Q / 802.1ad tags */
        const ub_layer *t = ub_push_in(d, tag, off, 4, d->wlen, false);
        if (!t || (t->flags & UB_LF_TRUNC)) {
            d->v->kind = UB_KIND_OTHER;
            return;
        }
        ethertype = (unsigned)ub_lget(t, VLAN_TYPE);
    }
    if (ethertype == 0x8847 || ethertype == 0x8848) { /* MPLS: the frame's own link, not a tunnel */
        dec_mpls(d, off);
        if (d->v->kind == UB_KIND_NONE) d->v->kind = UB_KIND_OTHER;
        return;
    }
    if (ub_dec_sue_eth(d, off, ethertype)) { /* SUE AFH framing: not UB (docs/neighbours.md) */
        d->v->kind = UB_KIND_OTHER;
        return;
    }
    if (ethertype == 0x0800 || ethertype == 0x86DD) {
        ub_dec_ip_ub(d, off, d->wlen, false);
        d->v->kind = d->v->claim != UB_CLAIM_NONE ? UB_KIND_UBOE : UB_KIND_OTHER;
        return;
    }
    d->v->kind = UB_KIND_OTHER;
    const ub_layer *prev = d->v->nlayers ? &d->v->layer[d->v->nlayers - 1] : NULL;
    if (ethertype <= 1500 && prev && prev->hdr && (prev->hdr->id == UB_H_ETH || ub_hdr_tag(prev->hdr->id)) &&
        off < d->len && ub_snap_type(d->p + off, d->len - off) > 1500) { /* IEEE 802.3 with LLC/SNAP */
        dec_snap(d, off);
        return;
    }
    if (ethertype == 0x0806) ub_push_in(d, UB_H_ARP, off, 28, d->wlen, false);
    else if (off < d->wlen) ub_push_in(d, UB_H_DATA, off, d->wlen - off, d->wlen, false);
}

/* the EtherType an IEEE 802.3 frame's LLC/SNAP header at p (n bytes) names (RFC 1042: AA AA 03 00 00 00),
 * else 0 */
__attribute__((noinline, cold)) unsigned ub_snap_type(const uint8_t *p, uint32_t n)
{
    static const uint8_t snap[6] = { 0xAA, 0xAA, 0x03, 0, 0, 0 };
    return n >= 8 && memcmp(p, snap, 6) == 0 ? (unsigned)p[6] << 8 | p[7] : 0;
}

/* After an IEEE 802.3 length (an Ethernet header or its tags): LLC/SNAP (RFC 1042), then its EtherType's
 * frame as after Ethernet II (Wireshark: eth:llc:ip) */
static __attribute__((noinline, cold)) void dec_snap(ub_dec *d, uint32_t off)
{
    const ub_layer *s = ub_push_in(d, UB_H_LLC_SNAP, off, 8, d->wlen, false);
    if (s && !(s->flags & UB_LF_TRUNC)) dec_ethertype_ip(d, off + 8, (unsigned)ub_lget(s, LLC_TYPE));
}

/* BSD loopback: the address family (LINKTYPE_LOOP: network order; LINKTYPE_NULL: the capturing host's:
 * a family in the upper half is little-endian, as Wireshark tells it), then IPv4 or IPv6 */
static void dec_null(ub_dec *d)
{
    uint32_t be = 0;
    if (d->len >= 4) be = (uint32_t)d->p[0] << 24 | (uint32_t)d->p[1] << 16 | (uint32_t)d->p[2] << 8 | d->p[3];
    bool le = d->len >= 4 && !(be & 0xFFFFu) && be;
    ub_layer *l = ub_push(d, le ? UB_H_NULL_LE : UB_H_NULL, 0, 4);
    if (!l || (l->flags & UB_LF_TRUNC)) {
        d->v->kind = UB_KIND_OTHER;
        return;
    }
    uint32_t af = le ? __builtin_bswap32(be) : be;
    unsigned et = af == 2 ? 0x0800 : (af == 10 || af == 23 || af == 24 || af == 28 || af == 30) ? 0x86DD : 0;
    dec_ethertype_ip(d, 4, et);
}

static void dec_sll(ub_dec *d, bool v2)
{
    unsigned hl = v2 ? 20 : 16;
    ub_layer *l = ub_push(d, v2 ? UB_H_SLL2 : UB_H_SLL, 0, hl);
    if (!l || (l->flags & UB_LF_TRUNC)) return;
    uint16_t hatype, proto;
    if (v2) {
        ub_rd16(d->p, d->len, 8, &hatype);
        ub_rd16(d->p, d->len, 0, &proto);
    } else {
        ub_rd16(d->p, d->len, 2, &hatype);
        ub_rd16(d->p, d->len, 14, &proto);
    }
    if (hatype == UB_ARPHRD_UB) {
        dec_cfgph(d, hl);
        return;
    }
    dec_ethertype_ip(d, hl, proto);
}

/* An Ethernet frame at off (0: the record's; else a tunnel's inner frame, no truncation error) */
static void dec_eth(ub_dec *d, uint32_t off)
{
    ub_layer *l = off ? ub_push_in(d, UB_H_ETH, off, 14, d->wlen, false) : ub_push(d, UB_H_ETH, 0, 14);
    if (!l || (l->flags & UB_LF_TRUNC)) {
        d->v->kind = UB_KIND_OTHER; /* a runt frame is not UB either */
        return;
    }
    uint16_t et = 0;
    ub_rd16(d->p, d->len, off + 12, &et);
    dec_ethertype_ip(d, off + 14, et);
}

/* ub_link_ip_off after the link headers: the IP header at off when et names IP, also behind MPLS */
static inline uint32_t link_ip_at(const uint8_t *p, uint32_t n, uint32_t off, unsigned et)
{
    if (et == 0x8847 || et == 0x8848) { /* as dec_mpls */
        uint8_t b = 0;
        do {
            if (!ub_rd8(p, n, off + 2, &b)) return UINT32_MAX;
            off += 4;
        } while (!(b & 1u));
        return ub_rd8(p, n, off, &b) && (b >> 4 == 4 || b >> 4 == 6) ? off : UINT32_MAX;
    }
    return et == 0x0800 || et == 0x86DD ? off : UINT32_MAX;
}

/* The VLAN tags at *off whose TPID is *et (as dec_ethertype_ip, at most 16): *off and *et past them;
 * false when the frame ends inside. vid (NULL: not wanted): the VLAN id Wireshark keys IP reassembly
 * with (pinfo->vlan_id), the first non-zero VID of an 802.1Q tag (0x8100, 0x9100; not 802.1ad
 * S-tags), read through the 802.1Q table's row; *vid is 0 until one is found */
static inline __attribute__((always_inline)) bool link_tags(const uint8_t *p, uint32_t n, uint32_t *off, uint16_t *et,
                                                             uint16_t *vid)
{
    for (unsigned k = 0; ub_tpid_table(*et) && k < 16; k++, *off += 4) {
        uint64_t id = 0;
        const ub_field *vr = &ub_registry[UB_H_VLAN]->fields[VLAN_VID];
        if (vid && !*vid && ub_tpid_table(*et) == UB_H_VLAN && *off < n && ub_rd_bits(p + *off, n - *off, vr->bit_off, vr->bits, &id))
            *vid = (uint16_t)id;
        if (!ub_rd16(p, n, *off + 2, et)) return false;
    }
    return true;
}

/* ub_link_ip_off of an IEEE 802.3 frame whose length is followed at off by LLC/SNAP (as dec_snap; out of
 * the common path: a tail call); the tags after it count for vid as the ones before */
static __attribute__((noinline, cold)) uint32_t link_ip_snap(const uint8_t *p, uint32_t n, uint32_t off, uint16_t *vid)
{
    uint16_t st = off < n ? (uint16_t)ub_snap_type(p + off, n - off) : 0;
    off += 8;
    if (!link_tags(p, n, &off, &st, vid)) return UINT32_MAX; /* tags after it, as dec_snap dispatches them */
    return st > 1500 ? link_ip_at(p, n, off, st) : UINT32_MAX;
}

/* vid: as link_tags */
static inline __attribute__((always_inline)) uint32_t link_ip_off(ub_entry e, const uint8_t *p, uint32_t n, uint16_t *vid)
{
    uint32_t off;
    uint16_t et = 0, hatype = 0;
    switch (e) {
    case UB_ENTRY_RAWIP: case UB_ENTRY_IP: return 0;
    case UB_ENTRY_ETH: off = 14; ub_rd16(p, n, 12, &et); break;
    case UB_ENTRY_SLL: off = 16; ub_rd16(p, n, 2, &hatype); ub_rd16(p, n, 14, &et); break;
    case UB_ENTRY_SLL2: off = 20; ub_rd16(p, n, 8, &hatype); ub_rd16(p, n, 0, &et); break;
    case UB_ENTRY_NULL: { /* as dec_null */
        if (n < 4) return UINT32_MAX;
        uint32_t af = (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
        if (!(af & 0xFFFFu) && af) af = __builtin_bswap32(af);
        off = 4;
        et = af == 2 ? 0x0800 : (af == 10 || af == 23 || af == 24 || af == 28 || af == 30) ? 0x86DD : 0;
        break;
    }
    default: return UINT32_MAX;
    }
    if (hatype == UB_ARPHRD_UB) return UINT32_MAX;
    if (!link_tags(p, n, &off, &et, vid)) return UINT32_MAX;
    if (__builtin_expect(et <= 1500, 0)) return e == UB_ENTRY_ETH ? link_ip_snap(p, n, off, vid) : UINT32_MAX; /* a length */
    return link_ip_at(p, n, off, et);
}

uint32_t ub_link_ip_off(ub_entry e, const uint8_t *p, uint32_t n) { return link_ip_off(e, p, n, NULL); }

uint32_t ub_link_ip_vid(ub_entry e, const uint8_t *p, uint32_t n, uint16_t *vid)
{
    *vid = 0;
    return link_ip_off(e, p, n, vid);
}

/* MPLS (RFC 3032): label stack entries to the bottom one, then IPv4 or IPv6 by the first nibble (as
 * Wireshark guesses it); anything else is data */
static void dec_mpls(ub_dec *d, uint32_t off)
{
    for (;;) {
        const ub_layer *m = ub_push_in(d, UB_H_MPLS, off, 4, d->wlen, false);
        if (!m || (m->flags & UB_LF_TRUNC)) return;
        off += 4;
        if (ub_lget(m, MPLS_BOTTOM)) break;
    }
    uint8_t b0 = 0;
    if (off >= d->len) return;
    ub_rd8(d->p, d->len, off, &b0);
    unsigned ver = b0 >> 4;
    if (ver == 4 || ver == 6) dec_ethertype_ip(d, off, ver == 6 ? 0x86DD : 0x0800);
    else ub_push_in(d, UB_H_DATA, off, d->wlen - off, d->wlen, false);
}

bool ub_dec_tunnel(ub_dec *d, unsigned what, uint32_t off, uint32_t end)
{
    if (d->tun >= UB_TUN_MAX) return false;
    ub_view *v = d->v;
    for (unsigned i = 0; i < v->nlayers && i < UB_MAX_LAYERS; i++) v->layer[i].flags |= UB_LF_OUTER;
    d->tun++;
    const uint32_t wlen = d->wlen, len = d->len; /* the inner frame ends where the tunnel's datagram does */
    if (end < d->wlen) d->wlen = end;
    if (d->wlen < d->len) d->len = d->wlen;
    v->kind = UB_KIND_OTHER;
    if (off < d->wlen && what == UB_TUN_ETH) {
        dec_eth(d, off);
    } else if (off < d->wlen) { /* UB_TUN_IP */
        uint8_t b0 = 0;
        ub_rd8(d->p, d->len, off, &b0);
        dec_ethertype_ip(d, off, (b0 >> 4) == 6 ? 0x86DD : (b0 >> 4) == 4 ? 0x0800 : 0);
    }
    d->wlen = wlen;
    d->len = len;
    return true;
}

void ub_view_init(ub_view *v)
{
    v->rsvd_magic = 0; /* ub_decode_wire derives the entries again */
    for (unsigned i = 0; i < UB_H__COUNT; i++) v->rsvd[i].hdr = NULL;
    v->tmpl = NULL; /* the storage may be uninitialised: ub_view_new_tmpl attaches after this */
    v->tmpl_chk = 0;
    v->tid = 0;
    v->nlayers = 0;
    v->nerrs = 0;
}

int ub_decode(ub_view *v, const ub_opts *o, ub_entry entry, const uint8_t *rec, uint32_t len)
{
    return ub_decode_wire(v, o, entry, rec, len, len);
}

static int decode_general(ub_view *v, const ub_opts *o, ub_entry entry, const uint8_t *rec, uint32_t len, uint32_t wirelen,
                          bool tmpl);
int ub_decode_wire_t(ub_view *v, const ub_opts *o, ub_entry entry, const uint8_t *rec, uint32_t len, uint32_t wirelen,
                     bool tmpl)
{
    if (wirelen < len) wirelen = len;
    v->rec = rec;
    v->rec_len = len;
    v->wire_len = wirelen;
    v->entry = (uint8_t)entry;
    v->opts = o;
    v->nerrs = 0;
    v->errs_dropped = 0;
    /* a stack seen before (tmpl.c): filled after its checks (it sets the rest of the view's fields
     * below); else the general path, then learnt — out of line, so that a template's record pays
     * none of its frame */
    if (tmpl && o && len && ub_tmpl_try(v, o, entry, rec, len, wirelen)) return 0;
    return decode_general(v, o, entry, rec, len, wirelen, tmpl);
}

/* UB_VN_QUOTED_UB when the UB headers dec_quoted pushed are among the layers kept (its TP header) */
static __attribute__((cold, noinline)) unsigned quoted_ub_kept(const ub_view *v)
{
    for (unsigned i = 0; i < v->nlayers; i++)
        if (ub_layer_quoted_tph(&v->layer[i])) return UB_VN_QUOTED_UB;
    return 0;
}

static __attribute__((noinline)) int decode_general(ub_view *v, const ub_opts *o, ub_entry entry, const uint8_t *rec,
                                                    uint32_t len, uint32_t wirelen, bool tmpl)
{
    v->claim = UB_CLAIM_NONE;
    v->kind = UB_KIND_NONE;
    v->cfg = -1;
    v->tah_fmt = UB_TAH_FULL;
    v->neigh = 0;
    v->pkt = NULL;
    v->pkt_len = 0;
    v->pkt_off = UINT32_MAX;
    v->tid = 0;
    v->nlayers = 0;

    unsigned pidx = o && o->profile < UB_PROFILE__COUNT ? o->profile : 0; /* ub_profile_of */
    const ub_profile *pf = &ub_profiles[pidx];
    ub_dec d;
    memset(&d, 0, sizeof d);
    d.v = v;
    d.o = o;
    uint64_t magic = UB_RSVD_MAGIC + pidx;
    if (__builtin_expect(v->rsvd_magic != magic, 0)) { /* a new view, or another profile's tables */
        for (unsigned i = 0; i < UB_H__COUNT; i++) {
            v->rsvd[i].hdr = NULL;
            v->rsvd[i].fast = 0;
        }
        v->rsvd_magic = magic;
    }
    d.pf = pf->sw;
    d.tbl = pf->tables;
    d.p = rec;
    d.len = len;
    d.wlen = wirelen;
    d.cfg = -1;
    d.tph_off = UINT32_MAX;

    if (len == 0) {
        ub_error_rec(v, UB_E_TRUNCATED, UB_H_NONE, 0, 0, 1, "empty record");
        return v->nerrs;
    }
    switch (entry) {
    case UB_ENTRY_FLIT:
    case UB_ENTRY_STREAM:
        ub_dec_flit_record(&d);
        break;
    case UB_ENTRY_PKT:
        ub_dec_pkt_record(&d);
        break;
    case UB_ENTRY_SLL:
        dec_sll(&d, false);
        break;
    case UB_ENTRY_SLL2:
        dec_sll(&d, true);
        break;
    case UB_ENTRY_NULL:
        dec_null(&d);
        break;
    case UB_ENTRY_ETH:
        dec_eth(&d, 0);
        break;
    case UB_ENTRY_RAWIP: case UB_ENTRY_IP: {
        uint8_t b0 = 0;
        ub_rd8(rec, len, 0, &b0);
        unsigned ipv = b0 >> 4;
        dec_ethertype_ip(&d, 0, ipv == 6 ? 0x86DD : ipv == 4 ? 0x0800 : 0);
        break;
    }
    case UB_ENTRY_CFGPH:
        dec_cfgph(&d, 0);
        break;
    case UB_ENTRY_PCIEFLIT: /* not UB: PCIe 6 flits (docs/neighbours.md) */
        v->kind = UB_KIND_OTHER;
        ub_dec_pcieflit(&d);
        break;
    case UB_ENTRY_TPH: /* the payload of a UDP datagram a caller already took for UB (Wireshark port table) */
        v->kind = UB_KIND_UBOE;
        v->claim = UB_CLAIM_PORT;
        ub_dec_tph(&d, 0, wirelen);
        break;
    default: /* a link type that carries no UB: not UB, shown as such (no UB error, issue #9) */
        v->kind = UB_KIND_OTHER;
        if (len) ub_push_in(&d, UB_H_DATA, 0, len, d.wlen, false);
        break;
    }
    if (v->nlayers > UB_MAX_LAYERS) v->nlayers = UB_MAX_LAYERS;
    /* ub_view.neigh from the layers kept (a decoder may have pushed and dropped some) */
    static const uint8_t nbit[UB_H__COUNT] = { [UB_H_IB_BTH] = UB_VN_IB, [UB_H_SUE_RH] = UB_VN_SUE, [UB_H_PCIEFLIT] = UB_VN_PCIE };
    unsigned nb = 0;
    for (unsigned i = 0; i < v->nlayers; i++) {
        unsigned id = v->layer[i].hdr->id;
        nb |= id < UB_H__COUNT ? nbit[id] : 0u;
    }
    if (__builtin_expect(d.quoted_ub, 0)) nb |= quoted_ub_kept(v);
    v->neigh = (uint8_t)nb;
    if (tmpl && o && !v->nerrs && !d.tun) ub_tmpl_learn(v, &d, entry); /* no template for a tunnel's frame */
    return v->nerrs;
}

int ub_decode_wire(ub_view *v, const ub_opts *o, ub_entry entry, const uint8_t *rec, uint32_t len, uint32_t wirelen)
{
    return ub_decode_wire_t(v, o, entry, rec, len, wirelen, true);
}

/* Internal interfaces of libubparse: decoder context, bounds-checked reader, schema macros.
 * Not installed. Every module (dll.c, net.c, tah.c, mgmt.c, cfg5.c, urpc.c) uses these. */
#ifndef UB_INTERNAL_H
#define UB_INTERNAL_H

#include "ubparse/ubparse.h"
#include <stdlib.h>
#include <string.h>

/* Room for element n of a growing array *p of *cap elements of sz bytes (doubling, from 16):
 * false when out of memory (*p unchanged). */
static inline bool ub_grow(void **p, size_t *cap, size_t n, size_t sz)
{
    if (n < *cap) return true;
    size_t nc = *cap ? *cap * 2 : 16;
    void *q = realloc(*p, nc * sz);
    if (!q) return false;
    *p = q;
    *cap = nc;
    return true;
}

/* ---------------------------------------------------------------- schema rows */
/* Field-row constructors. `h`/`f` are bare words: UBU(lph, crd, ...) -> "ub.lph.crd". */
#define UBF(h, f, nm, off, nb, ty, bs, fl, vl, sp, ds) \
    { "ub." #h "." #f, nm, (off), (nb), (ty), (bs), (fl), (vl), sp, ds }
/* unsigned integer */
#define UBU(h, f, nm, off, nb, bs, vl, sp, ds) UBF(h, f, nm, off, nb, UB_FT_UINT, bs, 0, vl, sp, ds)
/* 1-bit flag */
#define UBB(h, f, nm, off, sp, ds) UBF(h, f, nm, off, 1, UB_FT_BOOL, UB_BASE_DEC, 0, NULL, sp, ds)
/* reserved bits (warning if non-zero) */
#define UBR(h, f, off, nb, sp) UBF(h, f, "Reserved", off, nb, UB_FT_UINT, UB_BASE_HEX, UB_FF_RSVD, NULL, sp, "reserved, sender writes 0")
/* byte string (nb bits, 0 = rest of layer) */
#define UBY(h, f, nm, off, nb, sp, ds) UBF(h, f, nm, off, nb, UB_FT_BYTES, UB_BASE_HEX, 0, NULL, sp, ds)

/* Header table definition: symbol ub_hdr_<sym>, id UB_H_<...>. */
#define UB_NFIELDS(a) ((uint16_t)(sizeof(a) / sizeof((a)[0])))
#define UB_HDR_DEF(sym, idv, keyv, abbrevv, namev, specv, lenv, fieldsv) \
    const ub_hdr ub_hdr_##sym = { idv, keyv, abbrevv, namev, specv, lenv, fieldsv, UB_NFIELDS(fieldsv), 0 }

/* A profile's version of a header (same id, same rows in the same order; docs/interop.md) */
#define UB_HDR_VAR(sym, idv, vidxv, keyv, abbrevv, namev, specv, lenv, fieldsv) \
    const ub_hdr ub_hdr_##sym = { idv, keyv, abbrevv, namev, specv, lenv, fieldsv, UB_NFIELDS(fieldsv), vidxv }
enum ub_variant_idx { /* ub_hdr.vidx of every profile table (list in profile.c) */
    UB_V_NONE = 0,
    UB_V_LPH_NS3, UB_V_CRD_ACK_NS3, UB_V_NTH16_NS3, UB_V_NTH24_NS3, UB_V_RTPH_NS3, UB_V_CETPH_CAQM_NS3,
    UB_V_BTAH_NS3, UB_V_BTAH_C_NS3, UB_V_ATAH_NS3, UB_V_MAETAH_C_NS3,
    UB_V_SUE_RH_LE, /* not a profile's: the SUE RH byte-order switch (-o sue.rh_order=le, sue.c) */
    UB_V__COUNT
};

/* Common value-name lists shared by several tables (defined in schema.c). */
extern const ub_vname ub_vn_cfg[];        /* App. B Table B-1 */
extern const ub_vname ub_vn_taopcode[];   /* Table 7-1/7-3 */
extern const ub_vname ub_vn_tpopcode[];   /* Table 6-2 */
extern const ub_vname ub_vn_mgmt_status[];/* §10.4.3.1 */
extern const ub_vname ub_vn_yesno[];
extern const ub_vname ub_vn_cksum_status[];

/* The registry behind ub_hdr_get(), inlined on the decode path. */
extern const ub_hdr *const ub_registry[UB_H__COUNT];
static inline const ub_hdr *ub_hdr_fast(unsigned id) { return id < UB_H__COUNT ? ub_registry[id] : NULL; }

/* The Protocol column (hdrsum.c): each header's protocol code, the rank that names a view (the last layer
 * of the highest rank: UB-NW 1 < UB-TP 2 < UB-TA 3 < UB-NCTL/ENUM/MGMT 4 < UB-URPC 5), and the name:
 * "UB-DLL" for a DLLCB, "UB" for a view that is not UB, else that of the code found (best) */
extern const uint8_t ub_proto_code[UB_H__COUNT];
static inline void ub_proto_fold(unsigned id, unsigned *rank, unsigned *best)
{
    static const unsigned char rank_of[8] = { 0, 1, 2, 3, 4, 4, 4, 5 };
    unsigned c = id < UB_H__COUNT ? ub_proto_code[id] : 0;
    if (c && rank_of[c] >= *rank) {
        *rank = rank_of[c];
        *best = c;
    }
}
const char *ub_proto_name(const ub_view *v, unsigned best);
/* "%u.%u.%u.%u" of a[0..3], not terminated, at most 15 bytes (summary.c) */
size_t ub_ipv4_dec(char t[15], const uint8_t a[4]);

/* ---------------------------------------------------------------- profiles (profile.c) */
/* A profile is a set of switches and table substitutions read once per decode (docs/interop.md):
 * the decoder tests bits of d->pf, and ub_push() takes the table of an id from d->tbl. */
enum ub_pf {
    UB_PF_PLENGTH_UNSET = 1u << 0,   /* LPH PLENGTH not filled: the length comes from the record */
    UB_PF_DLLCB_NO_BCRC = 1u << 1,   /* packet-record DLLCBs carry no BCRC/END */
    UB_PF_CCI_GARBAGE = 1u << 2,     /* NTH CCI not meaningful: no CCI overlay */
    UB_PF_NPI_ZERO = 1u << 3,        /* IP-NTH NPI.ID 0 accepted */
    UB_PF_UDP_ANY_PORT = 1u << 4,    /* CFG 3/4: every UDP datagram is UB transport */
    UB_PF_IP_DF_ANY = 1u << 5,       /* IPv4 DF not required */
    UB_PF_RSP_AS_BTAH = 1u << 6,     /* TP data: response opcodes carried in a BTAH + MAETAH */
    UB_PF_ACK_ATAH = 1u << 7,        /* transport acks end with an ATAH */
    UB_PF_TPOP4_NAK = 1u << 8,       /* TPOpcode 4 = TPNAK */
    UB_PF_CETPH_CAQM = 1u << 9,      /* TPACK-CC family carries the CAQM CETPH */
    UB_PF_NO_TAID_OFST = 1u << 10,   /* no TAIDETAH/OFSTETAH: bytes after a Read's MAETAH are payload */
    UB_PF_EE_ZERO = 1u << 11,        /* EE_bits 00 accepted */
    UB_PF_SACK_LSB = 1u << 12,       /* SAETPH bitmap: bit i = byte i/8, bit i%8 (LSB first) */
    UB_PF_MERGED_HOPS = 1u << 13,    /* the capture merges several capture points: hop copies */
    UB_PF_OPCODES = 1u << 14,        /* TAOpcodes 0x02, 0x10, 0x16: header chain not modelled (note) */
    UB_PF_TP_PAD_UNSET = 1u << 15,   /* TP Padding never filled: no 4-byte alignment (TP-10) */
    UB_PF_NO_ADDRESS = 1u << 16,     /* MAETAH.Address 0 = not modelled: no TA-08 continuity */
    UB_PF_CAQM_NO_ENABLE = 1u << 17, /* CAQM CCI Enable never set: C/I/Hint count anyway */
};
/* One documented deviation: the public text plus what handles it (profile.c). */
typedef struct ub_profile_dev {
    ub_deviation d;
    uint32_t sw;       /* switches (enum ub_pf), 0 if none */
    unsigned vidx[3];  /* tables (enum ub_variant_idx), 0-terminated */
} ub_profile_dev;
typedef struct ub_profile {
    const char *name, *title;
    uint32_t sw;                      /* OR of every deviation's switches */
    const ub_hdr *const *tables;      /* [UB_H__COUNT]: table per id, NULL = the registry's */
    const ub_profile_dev *devs;
    unsigned ndevs;
} ub_profile;
extern const ub_profile ub_profiles[];
static inline const ub_profile *ub_profile_of(const ub_opts *o)
{
    return &ub_profiles[o && o->profile < UB_PROFILE__COUNT ? o->profile : 0];
}
static inline bool ub_pf(const ub_opts *o, uint32_t sw) { return o && (ub_profile_of(o)->sw & sw) != 0; }

/* ---------------------------------------------------------------- reader */
/* Bounds-checked big-endian bit/byte reader (cf. tcpdump GET_BE_U_n). Every decode read goes
 * through these: a read outside [0,len) returns false and leaves *out = 0. */
static inline bool ub_rd_bits(const uint8_t *p, uint32_t len, uint32_t bit_off, uint32_t bits, uint64_t *out)
{
    *out = 0;
    if (bits == 0 || bits > 64) return false;
    uint64_t end = (uint64_t)bit_off + bits;
    if (end > (uint64_t)len * 8u) return false;
    uint32_t first = bit_off >> 3, nb = (uint32_t)((end - 1) >> 3) - first + 1; /* 1..9 bytes */
    uint32_t lead = bit_off & 7u;
    uint64_t v = 0;
    uint32_t n8 = nb > 8 ? 8 : nb;
    for (uint32_t i = 0; i < n8; i++) v = (v << 8) | p[first + i];
    if (nb <= 8) {
        v >>= nb * 8u - lead - bits; /* drop the bits after the field */
    } else {                        /* 9 bytes: lead + bits > 64 */
        uint32_t tail = 72u - lead - bits; /* 0..7 */
        v = (v << (8u - tail)) | ((uint64_t)p[first + 8] >> tail);
    }
    if (bits < 64) v &= (1ull << bits) - 1u;
    *out = v;
    return true;
}
/* The same for rows that are not compile-time constants (ub_lget, field handles, ub_field_value):
 * with len >= 8 a row of up to 8 bytes is one big-endian 8-byte load — at its first byte, or ending
 * at the last byte present — and with len >= 4 a row inside 4 bytes one 4-byte load, instead of a
 * byte loop. Forced inline (UB_INLINE): as calls, these small readers cost more than they save. */
#define UB_INLINE static inline __attribute__((always_inline))
#if defined(__GNUC__) && defined(__BYTE_ORDER__) && \
    (__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ || __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__)
/* The bits of p before bit `end`, right-aligned, from one big-endian load of n (8 or 4) bytes at
 * byte `first` or ending at byte len (len >= n): the row [end - 8n + lead, end) is inside it. */
UB_INLINE uint64_t ub_ld_window(const uint8_t *p, uint32_t len, uint32_t first, uint64_t end, uint32_t n)
{
    uint32_t base = first + n <= len ? first : len - n;
    uint64_t w;
    if (n == 8) {
        memcpy(&w, p + base, 8);
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
        w = __builtin_bswap64(w);
#endif
    } else {
        uint32_t w4;
        memcpy(&w4, p + base, 4);
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
        w4 = __builtin_bswap32(w4);
#endif
        w = w4;
    }
    return w >> ((uint64_t)base * 8u + n * 8u - end);
}
#endif
UB_INLINE bool ub_rd_bits_var(const uint8_t *p, uint32_t len, uint32_t bit_off, uint32_t bits, uint64_t *out)
{
#if defined(__GNUC__) && defined(__BYTE_ORDER__) && \
    (__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ || __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__)
    uint64_t end = (uint64_t)bit_off + bits;
    if (len >= 8 && end <= 64u && bits - 1u < 64u) { /* a row in the first 8 bytes (most rows): one load */
        uint64_t w;
        memcpy(&w, p, 8);
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
        w = __builtin_bswap64(w);
#endif
        *out = (w >> (64u - end)) & (~0ull >> (64u - bits));
        return true;
    }
    if (bits - 1u < 64u && end <= (uint64_t)len * 8u && len >= 4) {
        uint32_t first = bit_off >> 3, last = (uint32_t)((end - 1) >> 3);
        uint64_t w;
        if (len >= 8 && last - first < 8u) /* a row of up to 8 bytes: one 8-byte load */
            w = ub_ld_window(p, len, first, end, 8);
        else if (last - first < 4u) /* 4..7 bytes (LPH, compact BTAH, BCRC ...): one 4-byte load */
            w = ub_ld_window(p, len, first, end, 4);
        else
            return ub_rd_bits(p, len, bit_off, bits, out);
        *out = bits < 64 ? w & ((1ull << bits) - 1u) : w;
        return true;
    }
#endif
    return ub_rd_bits(p, len, bit_off, bits, out);
}
static inline bool ub_rd8(const uint8_t *p, uint32_t len, uint32_t off, uint8_t *v)
{
    if (off >= len) { *v = 0; return false; }
    *v = p[off];
    return true;
}
static inline bool ub_rd16(const uint8_t *p, uint32_t len, uint32_t off, uint16_t *v)
{
    if (len < 2 || off > len - 2) { *v = 0; return false; }
    *v = (uint16_t)((p[off] << 8) | p[off + 1]);
    return true;
}
static inline bool ub_rd32(const uint8_t *p, uint32_t len, uint32_t off, uint32_t *v)
{
    if (len < 4 || off > len - 4) { *v = 0; return false; }
    *v = ((uint32_t)p[off] << 24) | ((uint32_t)p[off + 1] << 16) | ((uint32_t)p[off + 2] << 8) | p[off + 3];
    return true;
}
/* Encoding modifiers of profile rows (UB_FF_LE, UB_FF_BITREV): both are involutions, so one function
 * turns the bits on the wire into the value and the value into the bits to write. */
static inline uint64_t ub_field_unwire(const ub_field *f, uint64_t raw)
{
    if (f->flags & UB_FF_LE) { /* whole bytes, little-endian on the wire */
        uint64_t r = 0;
        for (unsigned i = 0; i < f->bits / 8; i++, raw >>= 8) r = (r << 8) | (raw & 0xFFu);
        raw = r;
    }
    if (f->flags & UB_FF_BITREV) {
        uint64_t r = 0;
        for (unsigned i = 0; i < f->bits; i++, raw >>= 1) r = (r << 1) | (raw & 1u);
        raw = r;
    }
    return raw;
}

/* UB_FF_LEW rows: the field of the little-endian 64-bit word at p (len >= 8 bytes) */
static inline bool ub_lew_get(const uint8_t *p, uint32_t len, const ub_field *f, uint64_t *out)
{
    *out = 0;
    if (len < 8 || f->bits == 0 || f->bit_off + f->bits > 64) return false;
    uint64_t w = 0;
    for (unsigned i = 8; i-- > 0;) w = (w << 8) | p[i];
    *out = (w >> f->bit_off) & (f->bits < 64 ? (1ull << f->bits) - 1u : ~0ull);
    return true;
}
static inline void ub_lew_put(uint8_t *p, const ub_field *f, uint64_t v)
{
    uint64_t w = 0, m = (f->bits < 64 ? (1ull << f->bits) - 1u : ~0ull) << f->bit_off;
    for (unsigned i = 8; i-- > 0;) w = (w << 8) | p[i];
    w = (w & ~m) | ((v << f->bit_off) & m);
    for (unsigned i = 0; i < 8; i++, w >>= 8) p[i] = (uint8_t)w;
}

/* write `bits` of v at bit_off (MSB-first), used by the builder. Caller guarantees bounds. */
static inline void ub_wr_bits(uint8_t *p, uint32_t bit_off, uint32_t bits, uint64_t v)
{
    if (bits == 0 || bits > 64) return;
    uint32_t first = bit_off >> 3, lead = bit_off & 7u;
    uint32_t nb = (lead + bits + 7u) >> 3;
    if (nb > 8) { /* 9 bytes: rare, bit by bit */
        for (uint32_t i = 0; i < bits; i++) {
            uint32_t b = bit_off + i;
            uint8_t m = (uint8_t)(0x80u >> (b & 7u));
            if ((v >> (bits - 1 - i)) & 1u) p[b >> 3] |= m; else p[b >> 3] &= (uint8_t)~m;
        }
        return;
    }
    uint64_t w = 0;
    for (uint32_t i = 0; i < nb; i++) w = (w << 8) | p[first + i];
    uint32_t shift = nb * 8u - lead - bits;
    uint64_t mask = (bits < 64 ? ((1ull << bits) - 1u) : ~0ull) << shift;
    w = (w & ~mask) | ((v << shift) & mask);
    for (uint32_t i = nb; i-- > 0;) { p[first + i] = (uint8_t)w; w >>= 8; }
}

/* ---------------------------------------------------------------- decoder context */
enum ub_tp_kind { UB_TP_NONE = 0, UB_TP_RTP, UB_TP_UTP, UB_TP_CTP };

typedef struct ub_dec {
    ub_view *v;
    const ub_opts *o;
    uint32_t pf;                      /* profile switches (enum ub_pf) */
    const ub_hdr *const *tbl;         /* profile tables per id, NULL entries = registry */
    const uint8_t *p;    /* buffer being decoded: the record or the network packet */
    uint32_t len;        /* bytes of it present */
    uint32_t wlen;       /* its length on the wire (> len when the record was cut by the snapshot
                          * length): lengths are checked against wlen, reads stay below len */
    bool len_cut;        /* a region being decoded reaches past the bytes present of a buffer cut by the
                          * snapshot length (ub_dec_clamp): its length checks have no verdict */
    uint8_t tun;         /* tunnels entered (dec_tunnel): at most UB_TUN_MAX; no stack template then */
    uint8_t depth;       /* depth for new layers */
    uint8_t lflags;      /* UB_LF_NETBUF when p is v->netbuf (after depth, as in ub_layer: one copy) */
    uint32_t rec_base;   /* offset of p[0] in the record (contiguous case) */
    int cfg;             /* CFG of the packet being decoded, -1 if none */
    uint8_t tp_kind;     /* enum ub_tp_kind of the TPH seen */
    uint8_t tp_padding;  /* TPH.Padding */
    uint32_t tph_off;    /* offset of the TPH, UINT32_MAX if none */
    bool netbuf_multi;   /* p is the de-interleaved payload of a multi-block DLLDP */
    bool quoted_ub;      /* an ICMP error's quoted datagram was decoded as UB (dec_quoted): UB_VN_QUOTED_UB */
    uint32_t netbuf_rec_start; /* record offset of the LPH (for offset mapping) */
    struct ub_icrc_rec { /* the last ICRC pushed (push_icrc), for the stack templates (tmpl.c) */
        uint16_t layer;      /* its layer index + 1, 0 none */
        uint8_t nm, netbuf;  /* masks; 1 when computed over the netbuf (no template) */
        uint32_t start, end; /* covered bytes [start, end) of the current buffer, at buffer p */
        const uint8_t *p;
        struct ub_icrc_mask { uint32_t off, len; uint8_t keep_mask; } m[4]; /* keep_mask: bits NOT masked */
    } ic;
} ub_dec;
typedef struct ub_icrc_mask icrc_mask;
/* §5.3.7 ICRC over p[start, end) with the masked byte ranges m[0..nm) set to ones (net.c) */
uint32_t ub_icrc_calc(const uint8_t *p, uint32_t start, uint32_t end, const icrc_mask *m, unsigned nm);
/* its OR pattern for ub_crc32_or (false: the masks need the byte-by-byte path) */
bool ub_icrc_orm(uint32_t start, uint32_t end, const icrc_mask *m, unsigned nm, uint8_t orm[96]);
/* The CRC30 a BCRC carries (its 4 bytes at b; dll.c) */
uint32_t ub_bcrc_carried(const uint8_t *b);
/* tmpl.c — per-header-stack templates: a record whose stack was decoded before without any error is
 * filled from the template after its checks (masked compare of every byte the decode depends on, the
 * CRCs); false: decode it with the general path (then ub_tmpl_learn). */
bool ub_tmpl_try(ub_view *v, const ub_opts *o, ub_entry entry, const uint8_t *rec,
                 uint32_t len, uint32_t wirelen);
void ub_tmpl_learn(ub_view *v, const ub_dec *d, ub_entry entry);
uint64_t ub_tmpl_hits(ub_view *v); /* records filled from a template (tests) */
/* ub_decode_wire with the templates (tmpl true) or the general path only (tests compare the two) */
int ub_decode_wire_t(ub_view *v, const ub_opts *o, ub_entry entry, const uint8_t *rec, uint32_t len, uint32_t wirelen,
                     bool tmpl);

/* The end of a region [.., end) clamped to the bytes present, for a decoder that reads up to it; when
 * the record was cut by the snapshot length inside the region, its lengths cannot be judged from here
 * on (ub_error drops the length errors of this buffer, as it drops truncations past the cut). */
static inline uint32_t ub_dec_clamp(ub_dec *d, uint32_t end)
{
    if (end <= d->len) return end;
    if (d->wlen > d->len) d->len_cut = true;
    return d->len;
}

/* The table the current profile uses for a header id. */
static inline const ub_hdr *ub_dec_hdr(const ub_dec *d, unsigned id)
{
    if (id >= UB_H__COUNT) return NULL;
    const ub_hdr *h = d->tbl ? d->tbl[id] : NULL;
    return h ? h : ub_registry[id];
}
/* Bytes of [off, end) present in the current buffer (end may lie beyond them, see wlen). */
static inline uint32_t ub_dec_avail(const ub_dec *d, uint32_t off, uint32_t end)
{
    if (end > d->len) end = d->len;
    return end > off ? end - off : 0;
}

/* Push a layer [off, off+len) of the current buffer. len is clamped to what the buffer holds;
 * if the header has a fixed length and fewer bytes remain, the layer is flagged truncated and
 * UB_E_TRUNCATED is recorded. Reserved fields are checked (UB_E_RSVD_BITS). NULL if the layer
 * table is full (UB_E_TOO_DEEP recorded once). */
ub_layer *ub_push_slow(ub_dec *d, unsigned hdr_id, uint32_t off, uint32_t len);
#define UB_RSVD_MAGIC 0x5542525356444d34ull /* "UBRSVDM4" + profile index: ub_view.rsvd[] is valid for it */
/* Any reserved bit under e's masks set in p (the first e->span bytes present; `avail` bytes may be
 * read)? A span under 4 bytes is one 4-byte load when 4 bytes may be read (the mask is 0 past span). */
UB_INLINE bool ub_rsvd_any(const struct ub_rsvd_ent *e, const uint8_t *p, uint32_t avail)
{
    uint64_t acc = 0, w;
    if (e->span >= 8) {
        for (unsigned k = 0; k < e->nw; k++) {
            memcpy(&w, p + e->woff[k], 8);
            acc |= w & e->mask[k];
        }
        return acc != 0;
    }
    if (e->span >= 4) {
        uint32_t a, b;
        memcpy(&a, p, 4);
        memcpy(&b, p + e->woff[1], 4);
        return ((a & (uint32_t)e->mask[0]) | (b & (uint32_t)e->mask[1])) != 0;
    }
    if (avail >= 4) {
        uint32_t a;
        memcpy(&a, p, 4);
        return (a & (uint32_t)e->mask[0]) != 0;
    }
    const uint8_t *mb = (const uint8_t *)e->mask;
    for (unsigned i = 0; i < e->span; i++) acc |= (uint64_t)(p[i] & mb[i]);
    return acc != 0;
}
/* the next layer entry, whole in the buffer (the caller checked room and bounds) */
UB_INLINE ub_layer *ub_push_fill(ub_dec *d, const ub_hdr *h, uint32_t off, uint32_t len)
{
    ub_layer *l = &d->v->layer[d->v->nlayers++];
    l->hdr = h;
    l->data = d->p + off;
    l->off = off;
    l->len = len;
    l->aux = 0;
    l->status = 0;
    l->variant = 0;
    l->depth = d->depth;
    l->flags = d->lflags;
    l->wlen = len;
    return l;
}
/* Any reserved bit set under the masks of an entry of kind k (2..5, ub_rsvd_ent.fast) in the layer p of
 * len bytes, whose first e->minlen bytes are present (avail bytes may be read)? Too few bytes to load a
 * word: true (the caller takes the general path, which decides). */
UB_INLINE bool ub_rsvd_fast_any(const struct ub_rsvd_ent *e, unsigned k, const uint8_t *p, uint32_t len,
                                uint32_t avail)
{
    uint32_t a, b;
    if (k == 2) { /* span <= 4: one word at 0 (the mask is 0 past span) */
        if (avail < 4) return true;
        memcpy(&a, p, 4);
        return (a & (uint32_t)e->mask[0]) != 0;
    }
    if (k == 3) { /* 4 < span < 8: words at 0 and span - 4 */
        memcpy(&a, p, 4);
        memcpy(&b, p + e->woff[1], 4);
        return ((a & (uint32_t)e->mask[0]) | (b & (uint32_t)e->mask[1])) != 0;
    }
    uint64_t acc = 0, w;
    if (k == 5) { /* a zero-to-the-end row (TP padding): bytes [woff[0], len) zero, a word at a time */
        uint32_t i = e->woff[0];
        for (; i + 8 <= len; i += 8) {
            memcpy(&w, p + i, 8);
            acc |= w;
        }
        for (; i < len; i++) acc |= p[i];
        return acc != 0;
    }
    for (unsigned i = 0; i < e->nw; i++) {
        memcpy(&w, p + e->woff[i], 8);
        acc |= w & e->mask[i];
    }
    return acc != 0;
}
/* ub_push, inlined for the common case: a layer whole in the buffer, its table's reserved masks
 * cached (the cache entry's table is the profile's table of the id: ub_decode_wire keys the cache by
 * profile), no reserved bit set (one to four masked loads, or padding's zero bytes). Everything else:
 * ub_push_slow. */
UB_INLINE ub_layer *ub_push(ub_dec *d, unsigned hdr_id, uint32_t off, uint32_t len)
{
    ub_view *v = d->v;
    if (__builtin_expect(hdr_id < UB_H__COUNT, 1)) {
        const struct ub_rsvd_ent *e = &v->rsvd[hdr_id];
        unsigned k = e->fast;
        if (__builtin_expect(k && v->nlayers < UB_MAX_LAYERS && off <= d->len && len <= d->len - off && len >= e->minlen, 1) &&
            __builtin_expect(k == 1 || !ub_rsvd_fast_any(e, k, d->p + off, len, d->len - off), 1))
            return ub_push_fill(d, e->hdr, off, len);
    }
    return ub_push_slow(d, hdr_id, off, len);
}
/* Same on an explicit buffer (used for record-level layers while p is the netbuf). */
ub_layer *ub_push_buf(ub_dec *d, unsigned hdr_id, const uint8_t *buf, uint32_t buflen, uint32_t off,
                      uint32_t len, uint8_t lflags);
/* Push [off, off+len) but never past `end` (ub_push only clamps to the whole buffer); a short layer
 * records UB_E_TRUNCATED when trunc_err. */
ub_layer *ub_push_in(ub_dec *d, unsigned hdr_id, uint32_t off, uint32_t len, uint32_t end, bool trunc_err);
/* Read row idx of table h from bytes [off, end) of the current buffer without pushing a layer
 * (selectors that decide which table to push); 0 if the field is not inside the bytes. */
uint64_t ub_peek(const ub_dec *d, const ub_hdr *h, unsigned idx, uint32_t off, uint32_t end);
/* Record an error at offset `off` of the current buffer (mapped to a record offset). */
void ub_error(ub_dec *d, unsigned code, unsigned hdr, uint32_t off, uint64_t actual, uint64_t expected,
              const char *what);
/* Value of field index `idx` of a layer (0 if absent). Integer rows only need the bit reader. */
uint64_t ub_lget_slow(const ub_layer *l, unsigned idx);
UB_INLINE uint64_t ub_lget(const ub_layer *l, unsigned idx)
{
    if (!l || idx >= l->hdr->nfields) return 0;
    const ub_field *f = &l->hdr->fields[idx];
    if ((f->type == UB_FT_UINT || f->type == UB_FT_BOOL) && !(f->flags & (UB_FF_VIRTUAL | UB_FF_ENCODED))) {
        uint64_t v;
        return ub_rd_bits_var(l->data, l->len, f->bit_off, f->bits, &v) ? v : 0;
    }
    return ub_lget_slow(l, idx);
}
/* Index of field with short name (after the last '.') in a header, -1 if none (builder use). */
int ub_field_index(const ub_hdr *h, const char *short_name);
/* a row's name inside its header ("va" of infiniband.reth.va, also in the AtomicETH) */
const char *ub_field_short(const ub_hdr *h, const ub_field *f);
/* Check reserved fields of a layer and warn (called by ub_push). */
void ub_check_rsvd(ub_dec *d, const ub_layer *l);

/* crc.c. ub_crc32_or: ub_crc32(0, ·) of p[0..n) with p[i] | orm[i] for i < UB_CRC_ORM_SPAN — the
 * ICRC's masked fields (§5.3.7) set to ones in registers, no copy. orm: UB_CRC_ORM_LEN bytes, zero
 * from UB_CRC_ORM_SPAN on (the last 16-byte load may read them). ub_crc30_update: CRC30 register r
 * (30 bits, MSB-first) over n bytes. For tests: ub_crc_clmul, the carry-less path this CPU uses
 * (2 AVX, 1 SSSE3, 0 none: tables); *_path: a CRC on path lv (0 tables, 1 SSSE3, 2 AVX; capped at
 * what the CPU has). */
#define UB_CRC_ORM_SPAN 80u
#define UB_CRC_ORM_LEN 96u
uint32_t ub_crc32_or(const uint8_t *p, size_t n, const uint8_t orm[UB_CRC_ORM_LEN]);
uint32_t ub_crc30_update(uint32_t r, const uint8_t *p, size_t n);
int ub_crc_clmul(void);
uint32_t ub_crc30_path(int lv, uint32_t r, const uint8_t *p, size_t n);
uint32_t ub_crc30_block_path(int lv, const uint8_t *blk, unsigned flits, unsigned variant);
uint32_t ub_crc32_path(int lv, uint32_t crc, const uint8_t *p, size_t n);
uint32_t ub_crc32_or_path(int lv, const uint8_t *p, size_t n, const uint8_t orm[UB_CRC_ORM_LEN]);
/* The CRCs on this CPU's path for n >= 16 bytes, resolved once (tmpl.c keeps them per view): what
 * ub_crc30_block (n = 20·flits − 4) and ub_crc32_or compute, without the test of the CPU per call */
typedef uint32_t (*ub_crc30_blk_fn)(const uint8_t *blk, size_t n, unsigned variant);
typedef uint32_t (*ub_crc32_or_fn)(const uint8_t *p, size_t n, const uint8_t *orm);
void ub_crc_fns16(ub_crc30_blk_fn *crc30, ub_crc32_or_fn *crc32or);
/* Map an offset in the current buffer to a record offset. */
uint32_t ub_dec_rec_off(const ub_dec *d, uint32_t off);

/* ---------------------------------------------------------------- module entry points */
/* dll.c — data link layer (§4) */
void ub_dec_flit_record(ub_dec *d);   /* LINKTYPE_USER0 record: DLLDP or DLLCB with flits */
void ub_dec_pkt_record(ub_dec *d);    /* LINKTYPE_USER1 record: LPH + packet, or LCH -> DLLCB */
/* Frame a network packet as a flit-framed DLLDP (LPH fields from lph[0..3], PLENGTH filled,
 * LBH per block, padding, BCRC or END). Returns bytes written or -1. */
long ub_frame_dlldp(const ub_opts *o, const uint8_t lph[4], const uint8_t *pkt, uint32_t len,
                    bool error_flag, uint8_t *out, size_t cap);
/* Complete a DLLCB body (flits bytes with LCH set) with BCRC/END in its last flit. */
void ub_frame_dllcb(const ub_opts *o, uint8_t *blk, unsigned flits);
/* CTRL/SUB_CTRL and minimum length of the DLLCB whose body table is hdr_id (Table 4-6; builder). */
bool ub_dllcb_code(unsigned hdr_id, unsigned *ctrl, unsigned *sub, unsigned *min_flits);
/* Map an offset of the de-interleaved network packet back to the record (multi-block DLLDP). */
uint32_t ub_dll_pkt_to_rec(bool crc_mode, uint32_t pkt_off);

/* net.c — network layer and everything above it (§5..§7) */
void ub_dec_netpkt(ub_dec *d, int cfg);      /* d->p/len = network packet (after LPH/pseudo-hdr) */
void ub_dec_ip_ub(ub_dec *d, uint32_t off, uint32_t end, bool uboe); /* IPv4/IPv6 [UDP 4792 ...] */
/* One IP extension header of protocol number nh at p (avail bytes there), as Wireshark walks them to the
 * upper-layer protocol: IPv6 (v6) hop-by-hop options 0, routing 43, fragment 44, destination options 60;
 * either version the Authentication Header 51. Its table, length, next header, and whether it is a
 * fragment's (an offset or More Fragments: no header after it). False: nh is none of them, or its bytes
 * are not there. (net.c) */
typedef struct ub_ip_ext { unsigned id, next; uint32_t len; bool frag; } ub_ip_ext;
bool ub_ip_ext_at(bool v6, unsigned nh, const uint8_t *p, uint32_t avail, ub_ip_ext *x);
/* Where the link headers of a record of entry point e (Ethernet and its tags / MPLS, cooked, BSD
 * loopback, raw IP) put an IPv4 or IPv6 header, as the decoder walks them; UINT32_MAX: none */
uint32_t ub_link_ip_off(ub_entry e, const uint8_t *p, uint32_t n);
/* the same, and the VLAN id Wireshark's IP reassembly keys on (the first non-zero 802.1Q VID, 0 none) */
uint32_t ub_link_ip_vid(ub_entry e, const uint8_t *p, uint32_t n, uint16_t *vid);
/* the EtherType an IEEE 802.3 frame's LLC/SNAP header at p names (RFC 1042), else 0 */
unsigned ub_snap_type(const uint8_t *p, uint32_t n);
/* IP reassembly for the units of records (ipfrag.c): max datagrams open (0 = 64) */
typedef struct ub_ipfrag ub_ipfrag;
ub_ipfrag *ub_ipfrag_new(unsigned max);
void ub_ipfrag_free(ub_ipfrag *t);
/* A record's unit d (n bytes, entry point e): 0 not a fragment collected (pass it on as it is), 1 a
 * fragment kept, 2 the fragment that completes its datagram: *out (*outlen bytes, valid until the next
 * call) is the record with the datagram whole */
int ub_ipfrag_add(ub_ipfrag *t, uint64_t frame, ub_entry e, const uint8_t *d, uint32_t n, const uint8_t **out,
                  uint32_t *outlen);
/* datagrams given up for a newer one when max were open */
uint64_t ub_ipfrag_dropped(const ub_ipfrag *t);
/* each datagram given up is passed to fn (ub: by o's UB ports); ub_ipfrag_flush gives up the open
 * ones, the first collected first */
struct ub_units_lost;
void ub_ipfrag_on_lost(ub_ipfrag *t, const ub_opts *o, void (*fn)(void *ctx, const struct ub_units_lost *l), void *ctx);
void ub_ipfrag_flush(ub_ipfrag *t);
uint64_t ub_ipfrag_lost(const ub_ipfrag *t); /* given up, evicted or flushed */
/* the claim rule's UDP destination ports (net.c) */
bool ub_udp_port_is_ub(const ub_opts *o, unsigned dport);
/* Tunnels (not UB; core.c): the frame a tunnel header carries, in [off, end): UB_TUN_ETH an Ethernet frame,
 * UB_TUN_IP an IPv4/IPv6 packet. Marks every layer before it UB_LF_OUTER and
 * decodes it as the frame's own (UBoE when the claim rule says so); false (nothing done) past UB_TUN_MAX. */
enum { UB_TUN_ETH, UB_TUN_IP, UB_TUN_MAX = 4 };
bool ub_dec_tunnel(ub_dec *d, unsigned what, uint32_t off, uint32_t end);
void ub_dec_tph(ub_dec *d, uint32_t off, uint32_t end);               /* RTPH/UTPH ... */

/* tah.c — transaction layer (§7): BTAH/ATAH + ETAH chain + payload in [off,end) */
void ub_dec_tah(ub_dec *d, uint32_t off, uint32_t end);

/* mgmt.c — enumeration and configuration management (§10.4.3) */
/* off = first byte after UPIH16 (the 2 padding bytes). Returns the offset after the Scan PDU. */
uint32_t ub_dec_enum(ub_dec *d, uint32_t off, uint32_t end);
void ub_dec_mgmt_pdu(ub_dec *d, uint32_t off, uint32_t end, unsigned code, unsigned sub, bool rsp);
/* Port_info (and other) TLVs in [off,end) (§10.4.3.2, also Link Neighbor Query responses). */
uint32_t ub_dec_tlvs(ub_dec *d, uint32_t off, uint32_t end);

/* cfg5.c — CFG 5 network control packets (App. F); off = first byte after the LPH */
void ub_dec_cfg5(ub_dec *d, uint32_t off, uint32_t end);

/* urpc.c — URPC messages (App. H) in a transaction payload. Pushes nothing and returns false
 * if the bytes do not look like URPC. */
bool ub_dec_urpc(ub_dec *d, uint32_t off, uint32_t end);

#endif

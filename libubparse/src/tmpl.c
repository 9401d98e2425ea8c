/* Per-header-stack templates (issue #11): the decoder meets the same few header stacks again and again.
 * After a record decoded by the general path without any error, its stack is kept as a template: the
 * layers (table id, offsets, lengths, depth, flags), the view's fields, and a bit mask of every byte
 * the decode depends on with those bytes' values. A later record of the same length, link entry and
 * first word whose masked bytes are equal (one compare of 16-byte chunks), and whose CRCs (BCRC, ICRC)
 * hold, decodes to the same layers: they are filled from the template, no dispatch. Anything else — a
 * bit that differs (a reserved bit, an opcode, a length, a padding byte), a bad CRC — takes the general
 * path, the reference, which reports exactly as always.
 *
 * What the mask leaves out, so that one template serves a flow: the bytes of payload layers (the
 * decoder never reads them: only the ICRC covers them, and it is computed), the carried CRC values
 * (computed and compared), and the per-packet rows below that the decoder never reads (sequence numbers,
 * TP endpoints, RC ids). Every other byte of the record is compared, covered by a layer or not.
 *
 * The cache sits behind the view, in its allocation (ub_view_new_tmpl: one allocation per view, none
 * per record, no global state; a view without one takes the general path): T_SETS sets of T_WAYS
 * templates. The set is a hash of the length, the entry and the first T_HASH bytes under the bits every
 * template of the record's group (length, entry, first word) compares, so that the stacks of a group
 * spread over the sets and the records of one stack meet in one; a way is found by its tag (length,
 * entry, first word) and the masked compare. Before the set hash, the group's last used template is
 * tried (its tag, then the compare): most groups have one stack. The cache is emptied when the options
 * change. Soundness rests only on the compare and the CRCs: the hash, the tags and the last used
 * template merely pick candidates.
 *
 * Multi-block DLLDPs (§4.3.2.1) too: a BCRC per block, the payload copied into the view's netbuf as
 * dll.c copies it, the layers there pointed at it; their bytes' compare is mapped back to the record. */
#include "dll_int.h" /* FLIT, BLK_FLITS, BCRC_LEN: the flit and block layout (§4.3.2.1) */
#include <stddef.h>
#include <stdlib.h>
#include <time.h>

enum { TL_MAX = 16, TC_MAX = 10, T_WAYS = 8, T_SETS = 32 /* T_SETS * T_WAYS = 256: the id's low 8 bits */, T_HASH = 64 /* bytes that choose the set */, T_GROUPS = 256, T_FREE = 8, TC_FIX = 6 /* chunks compared without a loop (unused ones: mask 0) */,
       T_BLK = BLK_FLITS * FLIT /* a DLLDB (§4.3.2.1) */, T_NBLK = 4, T_MAXLEN = T_NBLK * T_BLK };

/* 16 bytes as one value (SSE2 / NEON register; GCC and Clang vector extension) */
typedef uint64_t w16 __attribute__((vector_size(16)));
typedef struct tchunk { w16 v, m; } tchunk; /* the bytes' values under the mask m */
typedef struct tmpl {
    uint32_t key;     /* the record's first 4 bytes (LPH / LCH: all compared) */
    uint16_t len;     /* record length, 0 = empty entry */
    uint8_t entry, nl, nch, kind, claim, tah_fmt, neigh;
    int8_t cfg;
    uint8_t bcrc_li;  /* 1 + index of the BCRC layer (at len - BCRC_LEN, over len / FLIT flits), 0 none */
    uint8_t icrc_li;  /* 1 + index of the ICRC layer, 0 none */
    uint8_t ic_var;   /* the ICRC byte order that matched (ub_layer.variant) */
    uint8_t ic_nm;
    uint8_t grp;      /* its group (tcache.dm) */
    uint64_t id;      /* ub_view.tid: unique to this template of this cache (tcache.ids), its slot in the
                       * low 8 bits (so that a memo of UB_XP_SETS = 256 entries keeps every live one) */
    uint16_t pkt_off, pkt_len; /* pkt_off 0xFFFF: no network packet, 0xFFFE: in the netbuf (nblk) */
    uint16_t ic_first, ic_n, ic_pos; /* ICRC over rec[ic_first, ic_first + ic_n), carried at ic_pos (ic_nb: netbuf) */
    /* a multi-block DLLDP (§4.3.2.1; nblk > 1, else 0): a BCRC per block, the payload de-interleaved into
     * the view's netbuf as dll.c does it (pieces cp_src/cp_n of the record, one after the other), the
     * layers of bit i of nbl living there */
    uint8_t nblk, ic_nb;
    uint8_t mb_li[T_NBLK]; /* 1 + index of block b's BCRC layer */
    uint16_t nbl;
    uint16_t cp_src[T_NBLK], cp_n[T_NBLK];
    uint16_t choff[TC_MAX];
    /* the layers as the view holds them, data = its record offset (ub_tmpl_try adds the record's
     * address); copied on a hit a pair at a time, so an odd nl copies L[nl] too (zero: never read) */
    ub_layer L[TL_MAX];
    tchunk ch[TC_MAX];
    uint8_t ic_orm[UB_CRC_ORM_LEN]; /* the ICRC's masks (ub_icrc_orm) */
} tmpl;
typedef struct ub_tmpl_cache {
    uint32_t on;  /* oc holds the options the templates were made with */
    uint64_t hits; /* records filled from a template (tests) */
    uint8_t rr[T_SETS];
    ub_opts oc;
    ub_crc30_blk_fn crc30; /* this CPU's CRCs for >= 16 bytes (crc.c), resolved once */
    ub_crc32_or_fn crc32or;
    uint64_t tag[T_SETS * T_WAYS]; /* of each template: tag_of(), 0 = empty (one line per set to scan) */
    /* per group (length, entry and first word, hashed to T_GROUPS), the bits of the first T_HASH bytes
     * every template of the group compares: the set is chosen by them (with the length and the entry),
     * so that stacks sharing length and first word spread over the sets; a template that compares
     * fewer bits narrows the group's mask and empties the group's templates */
    uint64_t dm[T_GROUPS][T_HASH / 8];
    uint8_t dm_on[T_GROUPS];
    /* per group, 1 + the slot of its template that was used last (0 none): tried first, before the set
     * hash — one template per group is the common case. Trusted only while the slot's tag is the
     * record's (a slot taken over, emptied, or a group hash collision fails that), then the compare */
    uint16_t mru[T_GROUPS];
    uint64_t ids;     /* the next template's id above its slot: odd (never 0), from an odd base mixed from the
                       * cache's address and the clock, so that no two caches of a process hand out the same */
    /* free_rows resolved per header id for the options' tables: fr_n 0xFF not yet, else how many */
    uint8_t fr_n[UB_H__COUNT], fr[UB_H__COUNT][T_FREE], frc[UB_H__COUNT][T_FREE];
    tmpl t[T_SETS * T_WAYS];
} tcache;

/* the view's cache: only when tmpl_chk vouches for the pointer (a view in storage never initialised
 * decodes as a fresh plain view, as ub_decode_wire promises) */
static inline uint64_t chk_of(const ub_view *v, const tcache *c)
{
    return ((uint64_t)(uintptr_t)c ^ (uint64_t)(uintptr_t)v) * 0x9E3779B97F4A7C15ull ^ 0x7E3A1C05D2B4F689ull;
}
static inline tcache *cache_of(ub_view *v) { return v->tmpl_chk == chk_of(v, v->tmpl) ? v->tmpl : NULL; }

ub_view *ub_view_new_tmpl(void)
{
    /* the cache after the view, aligned for its 8-byte words */
    const size_t at = (sizeof(ub_view) + _Alignof(tcache) - 1) / _Alignof(tcache) * _Alignof(tcache);
    ub_view *v = malloc(at + sizeof(tcache));
    if (!v) return NULL;
    ub_view_init(v);
    tcache *c = (tcache *)(void *)((char *)v + at);
    c->on = 0;
    c->hits = 0;
    struct timespec ts = { 0, 0 };
    clock_gettime(CLOCK_MONOTONIC, &ts);
    c->ids = (((uint64_t)(uintptr_t)c ^ (uint64_t)ts.tv_sec << 32 ^ (uint64_t)ts.tv_nsec) * 0x9E3779B97F4A7C15ull) | 1u;
    ub_crc_fns16(&c->crc30, &c->crc32or);
    v->tmpl = c;
    v->tmpl_chk = chk_of(v, c);
    return v;
}

uint64_t ub_tmpl_hits(ub_view *v)
{
    const tcache *c = cache_of(v);
    return c ? c->hits : 0;
}

static inline uint64_t ld64(const uint8_t *p)
{
    uint64_t w;
    memcpy(&w, p, 8);
    return w;
}
static inline w16 ld128(const uint8_t *p)
{
    w16 w;
    memcpy(&w, p, 16);
    return w;
}
static inline uint64_t tag_of(uint32_t key, uint32_t len, unsigned entry)
{
    return (uint64_t)key << 32 | len << 8 | entry | 1u << 31; /* never 0 */
}
static inline unsigned group_of(uint32_t key, uint32_t len, unsigned entry)
{
    uint32_t h = (key ^ (len << 20 | len >> 12) ^ entry << 28) * 0x9E3779B1u;
    h ^= h >> 15;
    h *= 0x846CA68Bu;
    return h >> 24; /* T_GROUPS = 256 */
}
/* word i of the set-choosing bytes: at 8i, or the record's last 8 bytes when shorter (len >= 16; no
 * branch, a fixed number of words) */
static inline uint32_t hash_off(unsigned i, uint32_t len)
{
    uint32_t a = 8 * i, b = len - 8;
    return a < b ? a : b;
}
static inline unsigned set_of(const tcache *c, unsigned g, const uint8_t *rec, uint32_t len, unsigned entry)
{
    const uint64_t *dm = c->dm[g];
    uint64_t h = (uint64_t)len << 32 ^ entry;
    /* eight words, written out (a loop's exit would be one more branch per record) */
    _Static_assert(T_HASH == 64, "eight words below");
#define STEP(i) h = (h ^ (ld64(rec + hash_off(i, len)) & dm[i])) * 0x9E3779B97F4A7C15ull
    STEP(0); STEP(1); STEP(2); STEP(3); STEP(4); STEP(5); STEP(6); STEP(7);
#undef STEP
    h ^= h >> 29;
    h *= 0xBF58476D1CE4E5B9ull;
    return (unsigned)(h >> 59); /* T_SETS = 32 */
}

/* a multi-block DLLDP's BCRCs (R-03; mbc: computed, each equal to the one carried) and its payload
 * copied into the netbuf as dll.c does (dec_payload) */
static __attribute__((noinline)) bool multi_block(ub_view *v, const tmpl *t, const ub_opts *o, const uint8_t *rec, uint32_t len, uint32_t mbc[T_NBLK])
{
    for (unsigned b = 0; b < t->nblk; b++) {
        uint32_t bs = b * T_BLK, nf = b + 1u < t->nblk ? BLK_FLITS : (len - bs) / FLIT;
        mbc[b] = ub_crc30_block(rec + bs, nf, o->bcrc_variant);
        if (mbc[b] != ub_bcrc_carried(rec + bs + nf * FLIT - BCRC_LEN)) return false;
    }
    uint32_t n = 0;
    for (unsigned k = 0; k < t->nblk; k++) {
        memcpy(v->netbuf + n, rec + t->cp_src[k], t->cp_n[k]);
        n += t->cp_n[k];
    }
    return true;
}

/* a multi-block DLLDP's layers: those in the netbuf point there, each block's BCRC holds its value */
static __attribute__((noinline)) void multi_layers(ub_view *v, const tmpl *t, const uint32_t mbc[T_NBLK])
{
    for (unsigned m = t->nbl; m; m &= m - 1) {
        unsigned i = (unsigned)__builtin_ctz(m);
        v->layer[i].data = v->netbuf + (uintptr_t)t->L[i].data;
    }
    for (unsigned b = 0; b < t->nblk; b++) {
        ub_layer *l = &v->layer[t->mb_li[b] - 1];
        l->aux = mbc[b];
    }
}

/* memcmp(a, b, sizeof *a) == 0 inline: 16-byte words (the last one ends at the end), no call */
static inline bool same_opts(const ub_opts *a, const ub_opts *b)
{
    enum { N = sizeof(ub_opts) };
    _Static_assert(N >= 16 && N <= 96, "six words at most below");
    const unsigned char *x = (const unsigned char *)a, *y = (const unsigned char *)b;
    w16 acc = { 0, 0 };
#define W(k)                                                                                                       \
    if ((k) * 16 < N) {                                                                                            \
        w16 p, q;                                                                                                  \
        unsigned at = (k) * 16 + 16 <= N ? (k) * 16 : N - 16;                                                      \
        memcpy(&p, x + at, 16);                                                                                    \
        memcpy(&q, y + at, 16);                                                                                    \
        acc |= p ^ q;                                                                                              \
    }
    W(0) W(1) W(2) W(3) W(4) W(5)
#undef W
    return (acc[0] | acc[1]) == 0;
}

/* every byte the decode depends on, as when template u was made: the first TC_FIX chunks always (no
 * loop exit to mispredict), more only for the templates that have them */
static inline bool same_bytes(const tmpl *u, const uint8_t *rec)
{
    w16 acc = { 0, 0 };
#define CH(i) acc |= (ld128(rec + u->choff[i]) ^ u->ch[i].v) & u->ch[i].m
    _Static_assert(TC_FIX == 6, "six below");
    CH(0); CH(1); CH(2); CH(3); CH(4); CH(5);
    if (__builtin_expect(u->nch > TC_FIX, 0))
        for (unsigned i = TC_FIX; i < u->nch; i++) CH(i);
#undef CH
    return !(acc[0] | acc[1]);
}

/* the template's layers into the view, their data pointers moved to the record: two layers (80 bytes,
 * five 16-byte words) a step, falling through from the last pair (one jump on the pair count), each
 * data pointer (bytes 8..15 of word 0, 0..7 of word 3) plus the record's address; where layers are
 * laid out otherwise (not LP64), one layer after the other */
static inline void copy_layers(ub_layer *restrict l, const tmpl *t, const uint8_t *rec)
{
    if (sizeof(ub_layer) != 40 || offsetof(ub_layer, data) != 8 || sizeof(void *) != 8) {
        for (unsigned i = 0; i < t->nl; i++) {
            l[i] = t->L[i];
            l[i].data = rec + (uintptr_t)t->L[i].data;
        }
        return;
    }
    _Static_assert(TL_MAX == 16, "eight pairs below");
    const uint64_t r = (uint64_t)(uintptr_t)rec;
    const w16 r0 = { 0, r }, r3 = { r, 0 };
#define PAIR(k)                                                                                                    \
    do {                                                                                                           \
        const char *s_ = (const char *)&t->L[2 * (k)];                                                             \
        char *d_ = (char *)&l[2 * (k)];                                                                            \
        w16 w0, w1, w2, w3, w4;                                                                                    \
        memcpy(&w0, s_, 16), memcpy(&w1, s_ + 16, 16), memcpy(&w2, s_ + 32, 16);                                   \
        memcpy(&w3, s_ + 48, 16), memcpy(&w4, s_ + 64, 16);                                                        \
        w0 += r0, w3 += r3;                                                                                        \
        memcpy(d_, &w0, 16), memcpy(d_ + 16, &w1, 16), memcpy(d_ + 32, &w2, 16);                                   \
        memcpy(d_ + 48, &w3, 16), memcpy(d_ + 64, &w4, 16);                                                        \
    } while (0)
    switch ((t->nl + 1u) >> 1) { /* nl >= 1; an odd count copies the template's empty layer after the last */
    case 8: PAIR(7); __attribute__((fallthrough));
    case 7: PAIR(6); __attribute__((fallthrough));
    case 6: PAIR(5); __attribute__((fallthrough));
    case 5: PAIR(4); __attribute__((fallthrough));
    case 4: PAIR(3); __attribute__((fallthrough));
    case 3: PAIR(2); __attribute__((fallthrough));
    case 2: PAIR(1); __attribute__((fallthrough));
    default: PAIR(0);
    }
#undef PAIR
}

bool ub_tmpl_try(ub_view *v, const ub_opts *o, ub_entry entry, const uint8_t *rec,
                 uint32_t len, uint32_t wirelen)
{
    tcache *c = cache_of(v);
    if (!c) return false; /* a plain view */
    if (__builtin_expect(!c->on || !same_opts(&c->oc, o), 0)) { /* new view or other options */
        memcpy(&c->oc, o, sizeof *o);
        memset(c->tag, 0, sizeof c->tag);
        memset(c->dm_on, 0, sizeof c->dm_on);
        memset(c->mru, 0, sizeof c->mru);
        memset(c->fr_n, 0xFF, sizeof c->fr_n);
        c->on = 1;
        return false;
    }
    if (len != wirelen || len < 16 || len > T_MAXLEN) return false;
    uint32_t key;
    memcpy(&key, rec, 4);
    const unsigned g = group_of(key, len, entry);
    const uint64_t tg = tag_of(key, len, entry);
    const tmpl *t = NULL;
    unsigned m = c->mru[g];
    if (m && c->tag[m - 1] == tg && same_bytes(&c->t[m - 1], rec)) {
        t = &c->t[m - 1];
    } else if (c->dm_on[g]) { /* a group that never learnt a template has no mask (dm[g] unset) */
        unsigned s = set_of(c, g, rec, len, entry);
        const uint64_t *ts = &c->tag[s * T_WAYS];
        /* the ways of this length and first word, found without a branch per way */
        _Static_assert(T_WAYS == 8, "one compare per way below");
        unsigned ways = (unsigned)(ts[0] == tg) | (unsigned)(ts[1] == tg) << 1 | (unsigned)(ts[2] == tg) << 2 |
                        (unsigned)(ts[3] == tg) << 3 | (unsigned)(ts[4] == tg) << 4 | (unsigned)(ts[5] == tg) << 5 |
                        (unsigned)(ts[6] == tg) << 6 | (unsigned)(ts[7] == tg) << 7;
        while (ways) { /* several stacks may share length and first word: the bytes decide */
            unsigned w = s * T_WAYS + (unsigned)__builtin_ctz(ways);
            ways &= ways - 1;
            if (w + 1 != m && same_bytes(&c->t[w], rec)) {
                t = &c->t[w];
                c->mru[g] = (uint16_t)(w + 1);
                break;
            }
        }
    }
    if (!t) return false;
    uint32_t bcomp = 0, icomp = 0;
    if (t->bcrc_li) { /* */
        bcomp = c->crc30(rec, len / FLIT * FLIT - BCRC_LEN, o->bcrc_variant); /* whole flits (learnt so): n >= 16 */
        if (bcomp != ub_bcrc_carried(rec + len - BCRC_LEN)) return false;
    }
    const uint8_t *ib = rec; /* the ICRC's buffer */
    uint32_t mbc[T_NBLK];
    if (__builtin_expect(t->nblk != 0, 0)) {
        if (!multi_block(v, t, o, rec, len, mbc)) return false;
        ib = v->netbuf;
    }
    if (t->icrc_li) { /* §5.3.7 */
        icomp = t->ic_n >= 16 ? c->crc32or(ib + t->ic_first, t->ic_n, t->ic_orm) : ub_crc32_or(ib + t->ic_first, t->ic_n, t->ic_orm);
        const uint8_t *ic = ib + t->ic_pos;
        uint32_t be = ((uint32_t)ic[0] << 24) | ((uint32_t)ic[1] << 16) | ((uint32_t)ic[2] << 8) | ic[3];
        if (icomp != (t->ic_var == 1 ? __builtin_bswap32(be) : be)) return false;
        if (t->ic_var == 2 && icomp == __builtin_bswap32(be)) return false; /* the general path prefers LE */
    }
    v->claim = t->claim;
    v->kind = t->kind;
    v->cfg = t->cfg;
    v->tah_fmt = t->tah_fmt;
    v->neigh = t->neigh;
    /* the network packet in the record, in the netbuf, or none: chosen without a branch */
    const uint8_t *pk[3] = { rec + (t->pkt_off < 0xFFFEu ? t->pkt_off : 0u), v->netbuf, NULL };
    v->pkt = pk[t->pkt_off < 0xFFFEu ? 0 : t->pkt_off - 0xFFFDu];
    v->pkt_len = t->pkt_len;
    v->pkt_off = t->pkt_off < 0xFFFEu ? t->pkt_off : UINT32_MAX;
    copy_layers(v->layer, t, rec);
    if (__builtin_expect(t->nblk != 0, 0)) multi_layers(v, t, mbc);
    v->nlayers = t->nl;
    v->tid = t->id;
    c->hits++;
    /* the CRC layers' computed values (their status and variant are in the template); a template
     * without one writes to the last layer, unused (no branch) */
    v->layer[t->bcrc_li ? t->bcrc_li - 1u : UB_MAX_LAYERS - 1u].aux = bcomp;
    v->layer[t->icrc_li ? t->icrc_li - 1u : UB_MAX_LAYERS - 1u].aux = icomp;
    return true;
}

/* Rows of a header the decoder never reads (only printers, filters and the engine do): left out of the
 * mask. Each name was checked against every read of its table in the decoders (dll.c, net.c, tah.c,
 * mgmt.c); the carried CRCs are checked by computing them. Some only under a condition: IP/UDP rows
 * when the datagram was taken for UB (else the neighbour decoders look at them), MAETAH Address and
 * Length when the TAOpcode is no atomic and no Write_with_be (they are checked then: TA-10, R-27). */
enum { C_ANY, C_CLAIMED, C_NOATOM };
static const struct { uint16_t id; uint8_t cond; const char *rows[8]; } free_rows[] = {
    { UB_H_NTH16, C_ANY, { "scna", "dcna", "cci", "lbf", "sl" } },
    { UB_H_NTH24, C_ANY, { "scna", "dcna", "cci", "lbf", "sl" } },
    { UB_H_NTHIP, C_ANY, { "cci" } },
    /* the CCI overlays: only the mode is read (push_cci) */
    { UB_H_CCI_CAQM, C_ANY, { "loc", "enable", "c", "i", "hint" } },
    { UB_H_CCI_FECN, C_ANY, { "loc", "fecn" } },
    { UB_H_CCI_FECN_RTT, C_ANY, { "loc", "timestamp", "fecn" } },
    { UB_H_IPV4, C_CLAIMED, { "dscp", "ecn", "identification", "ttl", "checksum", "src", "dst" } },
    { UB_H_IPV6, C_CLAIMED, { "traffic_class", "flow_label", "hop_limit", "src", "dst" } },
    { UB_H_UDP, C_CLAIMED, { "srcport" } },
    { UB_H_RTPH, C_ANY, { "srctpn", "dsttpn", "psn", "tpmsn" } },
    { UB_H_BTAH, C_ANY, { "ini_tassn", "ini_rc_id" } },
    { UB_H_BTAH_ALT, C_ANY, { "ini_tassn", "ini_rc_id" } },
    { UB_H_BTAH_C, C_ANY, { "ini_tassn" } },
    { UB_H_ATAH, C_ANY, { "ini_tassn", "ini_rc_id" } },
    { UB_H_ATAH_C, C_ANY, { "ini_tassn" } },
    { UB_H_MAETAH, C_ANY, { "tokenid" } },
    { UB_H_MAETAH_C, C_ANY, { "tokenid" } },
    { UB_H_MAETAH, C_NOATOM, { "address", "length" } },
    { UB_H_MAETAH_C, C_NOATOM, { "address", "length" } },
    { UB_H_BCRC, C_ANY, { "crc30" } },
    { UB_H_ICRC, C_ANY, { "icrc" } },
};

/* clear the bits of the free rows of layer l (at record offset roff) in mk; cond[c]: condition c holds.
 * The rows of each id are looked up by name once per view and options (c->fr*). */
static void clear_free(tcache *c, uint8_t *mk, const ub_layer *l, uint32_t roff, const bool *cond)
{
    const ub_hdr *h = l->hdr;
    unsigned id = h->id;
    if (c->fr_n[id] == 0xFF) {
        unsigned n = 0;
        for (size_t k = 0; k < sizeof free_rows / sizeof free_rows[0]; k++) {
            if (free_rows[k].id != id) continue;
            for (unsigned r = 0; r < 8 && free_rows[k].rows[r] && n < T_FREE; r++) {
                int i = ub_field_index(h, free_rows[k].rows[r]);
                if (i < 0 || i > 255) continue;
                c->fr[id][n] = (uint8_t)i;
                c->frc[id][n++] = free_rows[k].cond;
            }
        }
        c->fr_n[id] = (uint8_t)n;
    }
    for (unsigned k = 0; k < c->fr_n[id]; k++) {
        if (!cond[c->frc[id][k]]) continue;
        const ub_field *f = &h->fields[c->fr[id][k]];
        if (f->flags & (UB_FF_VIRTUAL | UB_FF_LEW) || !f->bits) continue;
        if ((f->flags & (UB_FF_LE | UB_FF_BITREV)) && (f->bit_off % 8 || f->bits % 8)) continue;
        if (f->bit_off + f->bits > l->len * 8u) continue;
        uint32_t b = f->bit_off, e = f->bit_off + f->bits;
        for (; b < e && b % 8; b++) mk[roff + b / 8] &= (uint8_t)~(0x80u >> (b % 8));
        for (; b + 8 <= e; b += 8) mk[roff + b / 8] = 0; /* whole bytes */
        for (; b < e; b++) mk[roff + b / 8] &= (uint8_t)~(0x80u >> (b % 8));
    }
}

void ub_tmpl_learn(ub_view *v, const ub_dec *d, ub_entry entry)
{
    const ub_opts *o = d->o;
    tcache *c = cache_of(v);
    if (!c) return;
    uint32_t len = v->rec_len, nl = v->nlayers;
    if (!c->on || v->nerrs || v->errs_dropped || v->wire_len != len || len < 16 ||
        len > T_MAXLEN || nl == 0 || nl > TL_MAX)
        return;
    if (entry != UB_ENTRY_FLIT && entry != UB_ENTRY_PKT && entry != UB_ENTRY_STREAM) return;
    const uint8_t *rec = v->rec;
    /* a multi-block DLLDP: its payload in the netbuf, copied from the blocks as dll.c does (dec_payload:
     * each block's payload bytes from after its LPH / LBH to its BCRC) — the pieces checked against the
     * netbuf; nb maps a netbuf offset to the record's */
    tmpl t;
    memset(&t, 0, sizeof t);
    uint32_t nblk = (len + T_BLK - 1) / T_BLK, nbo[T_NBLK] = { 0 }; /* netbuf offset of each piece */
    bool nbm = v->pkt == v->netbuf && v->pkt_off == UINT32_MAX;
    if (nbm) {
        if (!o->crc_mode || nblk < 2 || len % FLIT || !v->pkt_len) return;
        uint32_t n = 0;
        for (uint32_t b = 0; b < nblk && n < v->pkt_len; b++) {
            uint32_t src = b * T_BLK + (b ? 2u : 4u), take = T_BLK - (b ? 2u : 4u) - 4u; /* LBH / LPH, BCRC */
            if (take > v->pkt_len - n) take = v->pkt_len - n;
            if (src + take > len) return;
            t.cp_src[b] = (uint16_t)src;
            t.cp_n[b] = (uint16_t)take;
            nbo[b] = n;
            n += take;
            if (memcmp(v->netbuf + nbo[b], rec + src, take) != 0) return;
        }
        if (n != v->pkt_len) return;
        t.nblk = (uint8_t)nblk;
    } else if (nblk > 1 || (v->pkt && (v->pkt_off == UINT32_MAX || v->pkt != rec + v->pkt_off))) {
        return;
    }
    /* URPC (App. H) is looked for in the payload of a Send (tah.c): then the payload counts */
    bool send = false, cond[3] = { true, v->claim != UB_CLAIM_NONE, true };
    for (uint32_t i = 0; i < nl; i++) {
        unsigned id = v->layer[i].hdr->id;
        if (id != UB_H_BTAH && id != UB_H_BTAH_C && id != UB_H_BTAH_ALT) continue;
        uint64_t op = ub_lget(&v->layer[i], 0); /* row 0: TAOpcode (Table 7-1) */
        if (op <= 0x01 && o->urpc_heuristic) send = true;
        if ((op >= 0x07 && op <= 0x0F) || op == 0x14 || op == 0x18) cond[C_NOATOM] = false;
    }
    uint8_t mk[T_MAXLEN], cov[T_MAXLEN];
    unsigned nbc = 0; /* BCRC layers so far */
    memset(mk, 0, len);
    memset(cov, 0, len);
    for (uint32_t i = 0; i < nl; i++) {
        const ub_layer *l = &v->layer[i];
        unsigned id = l->hdr->id;
        bool in_nb = (l->flags & UB_LF_NETBUF) != 0; /* in the netbuf (multi-block DLLDP) */
        const uint8_t *buf = in_nb ? v->netbuf : rec;
        uint32_t blen = in_nb ? v->pkt_len : len;
        if ((in_nb && !nbm) || l->data < buf || l->data + l->len > buf + blen || (l->flags & UB_LF_TRUNC) ||
            l->wlen != l->len || l->hdr != ub_dec_hdr(d, id))
            return;
        uint32_t roff = (uint32_t)(l->data - buf);
        if (id == UB_H_BCRC) { /* block nbc's, at its end */
            uint32_t bs = nbc * T_BLK, nf = nbc + 1 < nblk ? BLK_FLITS : (len - bs) / FLIT;
            if (in_nb || nbc == nblk || !o->crc_mode || len % FLIT || roff != bs + nf * FLIT - BCRC_LEN || l->status != UB_CK_GOOD)
                return;
            if (nblk == 1) t.bcrc_li = (uint8_t)(i + 1);
            else t.mb_li[nbc] = (uint8_t)(i + 1);
            nbc++;
        } else if (id == UB_H_ICRC) {
            if (t.icrc_li || l->status != UB_CK_GOOD || d->ic.layer != i + 1 || d->ic.netbuf != in_nb || !d->ic.p ||
                d->ic.p < buf || d->ic.p + d->ic.end + 4 > buf + blen || d->ic.p + d->ic.end != l->data)
                return;
            t.icrc_li = (uint8_t)(i + 1);
            t.ic_var = l->variant;
            t.ic_nb = in_nb;
            uint32_t base = (uint32_t)(d->ic.p - buf);
            t.ic_first = (uint16_t)(base + d->ic.start);
            t.ic_n = (uint16_t)(d->ic.end - d->ic.start);
            t.ic_pos = (uint16_t)(base + d->ic.end);
            if (d->ic.start > d->ic.end || d->ic.nm > 4 || !ub_icrc_orm(d->ic.start, d->ic.end, d->ic.m, d->ic.nm, t.ic_orm))
                return;
        } else if (l->aux || l->status || l->variant) {
            return;
        }
        t.L[i] = (ub_layer){ .hdr = l->hdr, .data = (const uint8_t *)(uintptr_t)roff, .off = l->off, .len = l->len,
                             .status = l->status, .variant = l->variant, .depth = l->depth, .flags = l->flags,
                             .wlen = l->len }; /* status, variant: 0 but for the CRCs (good; the ICRC's order) */
        if (in_nb) t.nbl |= (uint16_t)(1u << i);
        bool rd = !((id == UB_H_PAYLOAD && !send) || id == UB_H_ATOMIC_OPS); /* else not read by the decoder */
        uint8_t lm[T_MAXLEN];
        if (rd) {
            memset(lm + roff, 0xFF, l->len);
            clear_free(c, lm, l, roff, cond);
        }
        for (uint32_t b = roff; b < roff + l->len; b++) {
            uint32_t r = b; /* its byte in the record */
            if (in_nb) {
                unsigned k = 0;
                while (k + 1 < nblk && b >= nbo[k] + t.cp_n[k]) k++;
                r = t.cp_src[k] + (b - nbo[k]);
            }
            cov[r] = 1;
            if (rd) mk[r] |= lm[b];
        }
    }
    if (nbc != (nblk == 1 && !t.bcrc_li ? 0u : nblk) || (nbm && t.icrc_li && !t.ic_nb)) return;
    for (uint32_t b = 0; b < len; b++)
        if (!cov[b]) mk[b] = 0xFF; /* bytes of no layer: compared as well */
    /* 16-byte chunks over the compared bytes (the last one ends at the record's end) */
    for (uint32_t b = 0; b < len;) {
        if (!mk[b]) { b++; continue; }
        if (t.nch == TC_MAX) return;
        uint32_t s = b + 16 <= len ? b : len - 16;
        tchunk *ch = &t.ch[t.nch];
        t.choff[t.nch++] = (uint16_t)s;
        uint8_t vb[16], mb[16];
        for (unsigned k = 0; k < 16; k++) {
            mb[k] = mk[s + k];
            vb[k] = rec[s + k] & mb[k];
        }
        memcpy(&ch->v, vb, 16);
        memcpy(&ch->m, mb, 16);
        b = s + 16;
    }
    memcpy(&t.key, rec, 4);
    t.len = (uint16_t)len;
    t.entry = (uint8_t)entry;
    t.nl = (uint8_t)nl;
    t.kind = v->kind;
    t.claim = v->claim;
    t.tah_fmt = v->tah_fmt;
    t.neigh = v->neigh;
    t.cfg = v->cfg;
    t.pkt_off = nbm ? 0xFFFEu : v->pkt ? (uint16_t)v->pkt_off : 0xFFFFu;
    t.pkt_len = (uint16_t)v->pkt_len;
    if (!v->pkt && (v->pkt_len || v->pkt_off != UINT32_MAX)) return;
    if (t.pkt_len != v->pkt_len) return;
    /* the class's set-choosing mask: this template's compared bits of the first T_HASH bytes, and
     * those of every template of the class before (narrower: the class's templates are dropped) */
    unsigned g = group_of(t.key, len, entry);
    uint64_t nm[T_HASH / 8];
    for (unsigned i = 0; i < T_HASH / 8; i++) memcpy(&nm[i], mk + hash_off(i, len), 8);
    bool narrower = false;
    for (unsigned i = 0; i < T_HASH / 8; i++) {
        uint64_t m = c->dm_on[g] ? c->dm[g][i] & nm[i] : nm[i];
        narrower |= c->dm_on[g] && m != c->dm[g][i];
        c->dm[g][i] = m;
    }
    c->dm_on[g] = 1;
    if (narrower)
        for (unsigned i = 0; i < T_SETS * T_WAYS; i++)
            if (c->tag[i] && c->t[i].grp == g) c->tag[i] = 0;
    t.grp = (uint8_t)g;
    unsigned s = set_of(c, g, rec, len, entry);
    tmpl *dst = &c->t[s * T_WAYS];
    unsigned w = 0;
    while (w < T_WAYS && c->tag[s * T_WAYS + w]) w++;
    if (w == T_WAYS) w = c->rr[s]++ % T_WAYS; /* all taken: round robin */
    t.id = c->ids << 8 | (s * T_WAYS + w); /* the slot in the low bits: live templates differ there */
    c->ids += 2;
    dst[w] = t;
    c->tag[s * T_WAYS + w] = tag_of(t.key, len, entry);
    c->mru[g] = (uint16_t)(s * T_WAYS + w + 1);
}

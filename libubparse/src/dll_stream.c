/* Raw flit stream (LINKTYPE_USER2, §2.9, R-47): records of whole flits are delimited into DLLDPs and
 * DLLCBs per direction (ub_stream), zero-copy where a unit lies inside one record. */
#include "dll_int.h"

/* ---------------------------------------------------------------- raw flit stream (§2.9, R-47) */
/* State between records (ub_stream):
 *   have  = bytes held in buf: the DLLDP in progress, then (if one is open) the DLLCB in progress — a DLLCB
 *           may only start between DLLDBs, so at most 15 full DLLDBs (480 flits) precede it: 480 + 32 ≤ 512;
 *   need  = bytes still missing from the block in progress (0 = at a block boundary); for a DLLCB bit 31 is
 *           set, bits 30..16 hold the DLLCB length in bytes and bits 15..0 the bytes missing;
 *   in_pkt, blk_idx, nblk, flast = the DLLDP in progress (§2.9 receiver algorithm). */
#define ST_NEED_CB 0x80000000u
#define ST_CB_TOTAL(n) (((n) >> 16) & 0x7FFFu)
#define ST_CB_MISS(n) ((n) & 0xFFFFu)

typedef struct st_ctx {
    ub_stream *s;
    const uint8_t *rec;
    ub_unit_cb cb;
    void *ctx;
    int emitted;
    uint32_t pk_have;          /* DLLDP bytes collected */
    uint32_t cb_len, cb_total; /* DLLCB bytes collected / its length (cb_total 0 = none open) */
    bool pk_zc, pk_spanned;    /* DLLDP bytes are rec[pk_start, +pk_have) (zero-copy) / began earlier */
    uint32_t pk_start;
    bool cb_zc, cb_spanned;    /* DLLCB bytes are rec[cb_start, +cb_len) / began earlier */
    uint32_t cb_start;
    uint32_t blk_need;         /* bytes missing from the DLLDP block in progress */
} st_ctx;

void ub_stream_init(ub_stream *s, const ub_opts *o)
{
    memset(s, 0, sizeof *s);
    s->o = o;
}

static void st_load(st_ctx *c, ub_stream *s)
{
    memset(c, 0, sizeof *c);
    c->s = s;
    c->pk_spanned = s->in_pkt;
    c->cb_spanned = true;
    if (s->need & ST_NEED_CB) {
        c->cb_total = ST_CB_TOTAL(s->need);
        uint32_t miss = ST_CB_MISS(s->need);
        c->cb_len = c->cb_total > miss ? c->cb_total - miss : 0;
        if (c->cb_len > s->have) c->cb_len = s->have;
        c->pk_have = s->have - c->cb_len;
    } else {
        c->pk_have = s->have;
        c->blk_need = s->need;
    }
}

static void st_pk_reset(st_ctx *c)
{
    ub_stream *s = c->s;
    s->in_pkt = false;
    s->blk_idx = s->nblk = s->flast = 0;
    c->pk_have = 0;
    c->pk_zc = false;
    c->blk_need = 0;
}

static void st_emit(st_ctx *c, const uint8_t *p, uint32_t n, uint32_t flags)
{
    c->s->units++;
    c->emitted++;
    if (c->cb) c->cb(c->ctx, p, n, flags);
}

static void st_pk_materialize(st_ctx *c)
{
    if (!c->pk_zc) return;
    memcpy(c->s->buf, c->rec + c->pk_start, c->pk_have); /* pk_have ≤ 512 flits = sizeof buf */
    c->pk_zc = false;
}

static void st_cb_materialize(st_ctx *c)
{
    ub_stream *s = c->s;
    if (!c->cb_zc) return;
    if (c->pk_have + c->cb_len <= sizeof s->buf) memcpy(s->buf + c->pk_have, c->rec + c->cb_start, c->cb_len);
    else c->cb_len = 0;
    c->cb_zc = false;
}

/* append the flit at rec[pos] to the DLLDP / DLLCB in progress */
static bool st_pk_append(st_ctx *c, uint32_t pos)
{
    ub_stream *s = c->s;
    if (c->pk_zc && c->pk_start + c->pk_have == pos) {
        c->pk_have += FLIT;
        return true;
    }
    st_pk_materialize(c);
    if (c->pk_have + FLIT > sizeof s->buf) return false;
    memcpy(s->buf + c->pk_have, c->rec + pos, FLIT);
    c->pk_have += FLIT;
    return true;
}

static bool st_cb_append(st_ctx *c, uint32_t pos)
{
    ub_stream *s = c->s;
    if (c->cb_zc && c->cb_start + c->cb_len == pos) {
        c->cb_len += FLIT;
        return true;
    }
    st_cb_materialize(c);
    if (c->pk_have + c->cb_len + FLIT > sizeof s->buf) return false;
    memcpy(s->buf + c->pk_have + c->cb_len, c->rec + pos, FLIT);
    c->cb_len += FLIT;
    return true;
}

static void st_pk_done(st_ctx *c, uint32_t flags)
{
    if (c->pk_zc) st_emit(c, c->rec + c->pk_start, c->pk_have, flags);
    else st_emit(c, c->s->buf, c->pk_have, flags | (c->pk_spanned ? UB_UNIT_SPANNED : 0u));
    st_pk_reset(c);
}

static void st_cb_done(st_ctx *c, uint32_t flags)
{
    if (c->cb_zc) st_emit(c, c->rec + c->cb_start, c->cb_len, flags);
    else st_emit(c, c->s->buf + c->pk_have, c->cb_len, flags | (c->cb_spanned ? UB_UNIT_SPANNED : 0u));
    c->cb_zc = false;
    c->cb_len = c->cb_total = 0;
}

/* flits of the DLLDP block blk_idx */
static uint32_t st_blk_flits(const ub_stream *s)
{
    return s->blk_idx + 1u == s->nblk ? s->flast : BLK_FLITS;
}

/* a Retry_Idle/Retry_Req/Retry_Ack flit (LCH 02 00 1x, CLENGTH 0) whose BCRC is valid. Only
 * recognised inside a block in CRC mode (without a CRC, payload could imitate it). Returns SUB_CTRL or -1. */
static int st_retry_flit(const ub_stream *s, const uint8_t *f)
{
    if (!s->o->crc_mode) return -1;
    ub_layer l = peek_layer(&ub_hdr_lch, f, FLIT);
    if (ub_lget(&l, LCH_FIXED0) != 0 || ub_lget(&l, LCH_CLENGTH) != 0 || ub_lget(&l, LCH_FIXED) != LCH_PATTERN ||
        ub_lget(&l, LCH_CFG) != 0 || ub_lget(&l, LCH_CTRL) != 0x1 || ub_lget(&l, LCH_SUB_CTRL) > 0x2)
        return -1;
    ub_layer b = peek_layer(&ub_hdr_bcrc, f + FLIT - BCRC_LEN, BCRC_LEN);
    if (ub_lget(&b, BCRC_CRC30) != ub_crc30_block(f, 1, s->o->bcrc_variant)) return -1;
    return (int)ub_lget(&l, LCH_SUB_CTRL);
}

/* a flit inside a block */
static void st_mid_flit(st_ctx *c, uint32_t pos)
{
    ub_stream *s = c->s;
    const uint8_t *f = c->rec + pos;
    bool in_cb = c->cb_total != 0;
    int retry = st_retry_flit(s, f);
    if (retry >= 0) { /* out of band */
        st_emit(c, f, FLIT, 0);
        if (retry == 0x2) {
            /* Retry_Ack: the sender replays from RdPtr at a block boundary; drop the partial block */
            s->resyncs++;
            if (in_cb) {
                c->cb_zc = false;
                c->cb_len = c->cb_total = 0;
            } else {
                uint32_t got = st_blk_flits(s) * FLIT - c->blk_need;
                c->pk_have = c->pk_have >= got ? c->pk_have - got : 0;
                c->blk_need = 0;
                if (s->blk_idx == 0) st_pk_reset(c);
                else s->blk_idx--;
            }
        }
        return;
    }
    if (in_cb) {
        if (!st_cb_append(c, pos)) goto broken;
        if (c->cb_len >= c->cb_total) st_cb_done(c, 0);
        return;
    }
    if (!st_pk_append(c, pos)) goto broken;
    c->blk_need -= FLIT;
    if (c->blk_need == 0 && s->blk_idx + 1u == s->nblk) st_pk_done(c, 0);
    return;
broken: /* cannot happen with consistent state; resynchronise */
    s->resyncs++;
    c->cb_zc = false;
    c->cb_len = c->cb_total = 0;
    st_pk_reset(c);
}

/* a flit where a block must start */
static void st_block_start(st_ctx *c, uint32_t pos)
{
    ub_stream *s = c->s;
    const uint8_t *f = c->rec + pos;
    ub_layer l = peek_layer(&ub_hdr_lph, f, FLIT);
    unsigned cfg = (unsigned)ub_lget(&l, LPH_CFG);
    switch (cfg_classify(cfg)) {
    case CFG_DLLCB: { /* LCH: CLENGTH+1 flits; a DLLDP in progress keeps its state (§4.3.4.1) */
        ub_layer lch = peek_layer(&ub_hdr_lch, f, FLIT);
        st_pk_materialize(c);
        c->cb_zc = true;
        c->cb_spanned = false;
        c->cb_start = pos;
        c->cb_len = FLIT;
        c->cb_total = ((uint32_t)ub_lget(&lch, LCH_CLENGTH) + 1u) * FLIT;
        if (c->cb_total == FLIT) st_cb_done(c, 0);
        return;
    }
    case CFG_RESERVED: /* neither LCH nor LPH/LBH: skip the flit */
        s->resyncs++;
        if (s->in_pkt && c->pk_have) st_pk_done(c, UB_UNIT_PARTIAL);
        else st_pk_reset(c);
        return;
    case CFG_DLLDP:
        break;
    }
    if (!s->in_pkt) { /* LPH: start of a DLLDP */
        st_pk_reset(c);
        s->in_pkt = true;
        s->nblk = (uint16_t)(ub_lget(&l, LPH_PLENGTH_BLOCKS) + 1u);
        s->flast = (uint16_t)(ub_lget(&l, LPH_PLENGTH_FLITS) + 1u);
        c->pk_zc = true;
        c->pk_spanned = false;
        c->pk_start = pos;
    } else { /* LBH: next DLLDB */
        s->blk_idx++;
    }
    if (!st_pk_append(c, pos)) {
        s->resyncs++;
        st_pk_reset(c);
        return;
    }
    c->blk_need = (st_blk_flits(s) - 1u) * FLIT;
    if (c->blk_need == 0 && s->blk_idx + 1u == s->nblk) st_pk_done(c, 0);
}

/* keep what is still in progress in buf and encode it into the stream state */
static void st_store(st_ctx *c)
{
    ub_stream *s = c->s;
    if (s->in_pkt) st_pk_materialize(c);
    else c->pk_have = 0;
    c->pk_zc = false;
    if (c->cb_total) {
        st_cb_materialize(c);
        s->need = ST_NEED_CB | (c->cb_total << 16) | (c->cb_total - c->cb_len);
        s->have = c->pk_have + c->cb_len;
    } else {
        s->need = c->blk_need;
        s->have = c->pk_have;
    }
}

int ub_stream_feed(ub_stream *s, const uint8_t *rec, uint32_t len, ub_unit_cb cb, void *ctx)
{
    if (!s || !s->o || (!rec && len)) return 0;
    st_ctx c;
    st_load(&c, s);
    c.rec = rec;
    c.cb = cb;
    c.ctx = ctx;
    uint32_t whole = len - len % FLIT;
    for (uint32_t pos = 0; pos < whole; pos += FLIT) {
        if (c.cb_total || c.blk_need) st_mid_flit(&c, pos);
        else st_block_start(&c, pos);
    }
    if (len % FLIT) s->resyncs++; /* records hold whole flits; a partial flit is dropped */
    st_store(&c);
    return c.emitted;
}

int ub_stream_flush(ub_stream *s, ub_unit_cb cb, void *ctx)
{
    if (!s) return 0;
    st_ctx c;
    st_load(&c, s);
    c.cb = cb;
    c.ctx = ctx;
    if (s->in_pkt && c.pk_have) st_emit(&c, s->buf, c.pk_have, UB_UNIT_PARTIAL);
    if (c.cb_total && c.cb_len) st_emit(&c, s->buf + c.pk_have, c.cb_len, UB_UNIT_PARTIAL);
    c.cb_len = c.cb_total = 0;
    st_pk_reset(&c);
    st_store(&c);
    return c.emitted;
}

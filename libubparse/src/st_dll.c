/* Data link layer state rules (digest §10.1 DL-09 .. DL-20, §10.5 MG-07, §10.6 d/g/i).
 *
 * State is kept per link direction, key = (pcapng interface, pcapng direction); UB_DIR_UNKNOWN is a
 * direction of its own without a peer. Only flit-level records carry DLLCBs and BCRCs: LINKTYPE_USER0
 * flit records and the units of LINKTYPE_USER2 raw flit streams (which callers decode as flit records).
 * Every other entry point (USER1 packet records, SLL, UBoE) has no link state here (§10.6 g).
 *
 * Terms: a packet travels in direction d, sent by A and received by B; "peer" is the opposite
 * direction of the same interface (sent by B). The entry of direction d holds
 *   - what A announced in its Init Block and A's bring-up progress (§4.2, §4.4),
 *   - A's credit counters per VL (§4.6): granted by B's Crd_Ack T=1 and returned by B's LPH/LBH CRD
 *     bits and Crd_Ack T=0 — all of which travel in the peer direction,
 *   - A's Retry Buffer (§4.7.3.2): WrPtr and NumFreeBuf, released by B's ACKs in the peer direction,
 *     and the last backed-up blocks (index, length, fingerprint) to check a replay,
 *   - B's receive side of d: RcvPtr, and whether B discards after a bad block (§4.7.3.3),
 *   - the retry set being received in d, and A's open retry event (NUM_RETRY, NUM_PHY_REINIT),
 *   - the flit position of the last DLLDP (PACKET_MIN_INTERVAL of B, announced in the peer direction),
 *   - A's Block_Mode_Chg handshake state (§4.3.3.8).
 *
 * Rules that relate both directions (credits, releases, RcvPtr, replay, negotiation, DL-19) run only
 * when both directions are distinguishable (§10.6 g). Accounting (DL-11..DL-14, DL-18) starts at the
 * Init Block exchange; after an inconsistency it stops for that link until the next bring-up.
 * Blocks with a bad BCRC change no credit/ACK state (§10.6 d); they still occupy the sender's Retry
 * Buffer (the sender backed them up and replays them, §4.7.3.2.1), and B discards everything after them
 * up to the Retry_Ack_Set (§4.3.4.1 item 2). Credits are counted when B accepts a DLLDP, so a replayed
 * DLLDP counts once. */
#include "st_internal.h"
#include "ubparse/capfile.h" /* ub_dir */

#include <stdio.h>
#include <stdlib.h>

#define NVL 16u
#define SET_COPIES 32u           /* §4.7.3.3 REQ (1), §4.7.3.4: 1 Retry_Idle + 32 Retry_Req / Retry_Ack */
#define MAX_CREDIT_CELLS 65535   /* §4.6.2 Note 2: total credits of all VLs */
#define NUM_RETRY_THRESHOLD 15u  /* §4.7.3.3 example (informative): Retry Rollover */
#define NUM_PHY_REINIT_THRESHOLD 4u /* §4.7.3.3 example (informative): Retry Error */
#define RING 64u                 /* backed-up blocks remembered per direction for replay checks */
#define BLK_FLITS 32u            /* §4.3.2.1: a Retry_Ack inside a block drops < 32 flits */

/* §4.4 fallback values when negotiation fails (digest §2.8.8) — also the mandatory capabilities */
#define DEF_FEATURE_ID 1u
#define DEF_DATA_ACK 0x20u   /* 32 flits */
#define DEF_CTRL_ACK 0x01u   /* 1 flit */
#define DEF_FLOW 0x08u       /* Cell = 8 flits */
#define DEF_VL_ENABLE 0x0001u
#define DEF_CTRL_GRAIN 0x01u /* 1 cell */
#define DEF_DATA_GRAIN 0x04u /* 4 cells */

enum ukind { U_NONE, U_DLLDP, U_NULL, U_NOB, U_RIDLE, U_RREQ, U_RACK, U_CRD, U_PE, U_LM, U_BMC, U_INIT, U_RSVD };
enum { V_CRD = 1, V_RB = 2, V_RCV = 4 };               /* valid models of a direction */
enum { SK_NONE = 0, SK_REQ = 1, SK_ACK = 2 };          /* retry set kinds */
enum { SR_STRUCT = 1, SR_MIX = 2, SR_DIFF = 4 };       /* retry set problems already reported */
enum { BMC_NONE = 0, BMC_REQ = 1, BMC_ACK = 2 };
/* DL_BRINGUP values: what was missing */
enum { BU_RETRY = 1, BU_PARAM = 2, BU_CREDIT_DONE = 3, BU_CREDIT = 4 };
/* DL_NEGOTIATED value[0]: field code; per-VL fields add the VL */
enum { NF_FEATURE_ID = 0, NF_RXBUF_VL_SHARE = 1, NF_DATA_ACK = 2, NF_CTRL_ACK = 3, NF_FLOW = 4, NF_VL_ENABLE = 5,
       NF_DATA_GRAIN = 16, NF_CTRL_GRAIN = 32 };

typedef struct dl_init {
    uint16_t feature_id, vl_enable, depth;
    uint8_t share, data_ack, ctrl_ack, flow, pmi;
    uint8_t ctrl_grain[NVL], data_grain[NVL];
} dl_init;

/* negotiated values (§4.4 Table 4-9): flits / cells as numbers (a bitmap bit 2^k = 2^k units) */
typedef struct dl_neg {
    uint16_t feature_id, vl_enable;
    uint8_t data_ack, ctrl_ack, flow;
    uint8_t ctrl_grain[NVL], data_grain[NVL];
} dl_neg;

typedef struct dl_unit {
    uint16_t idx, flits;
    uint32_t sig;
    uint8_t known; /* 0: content unknown (bad CRC / malformed) */
} dl_unit;

typedef struct dl_dir {
    uint64_t units;                /* non-Null blocks seen */
    uint64_t blocks;               /* blocks other than Null and Retry blocks */
    uint8_t dir;
    /* A's Init Block */
    bool have_init, neg_ok, shared;
    bool init_seen; /* an Init Block in this bring-up (have_init: and its values captured) */
    dl_init init;
    dl_neg neg;
    /* bring-up (DL-09) */
    bool armed;
    uint64_t bu_init, bu_t1, bu_sd, bu_dlldp;
    uint8_t bu_rep;
    /* models */
    uint8_t valid;
    bool crd_started;
    int64_t crd_init[NVL], crd_cur[NVL], tot_init, tot_cur;
    uint32_t crd_neg;              /* underflow episodes: bit VL, bit 16 aggregate */
    bool crd_total_rep;
    uint32_t wr;
    int64_t freeb;
    bool rb_deficit;
    uint32_t rcv;
    bool discard, err_seen;
    /* replay after a Retry_Ack_Set in this direction (DL-16) */
    bool replay, rp_rep;
    uint32_t rp_rd, rp_start, rp_left, rp_skip;
    dl_unit ring[RING];
    uint32_t ring_head, ring_n, ring_total;
    /* retry set being received (DL-15) */
    bool set_open, set_cut, set_have_f;
    uint8_t set_kind, set_rep;
    uint16_t set_count;
    uint16_t set_f[3];
    uint64_t set_idle, set_first;
    /* A's Retry_Req_Set awaiting B's Retry_Ack_Set; A's retry event (DL-16, DL-17) */
    bool req_pending, ev_active;
    uint16_t req_rcvptr, ev_retry, ev_phy;
    uint64_t req_frame, ev_frame;
    uint8_t ev_notes;
    /* DL-18 */
    uint64_t pos, last_pos, last_frame;
    bool have_last;
    /* DL-19 */
    uint8_t bmc, bmc_rep;
    bool bmc_init;
    uint64_t bmc_frame;
    /* DL-12 reported: bits 0-15 LPH.VL, 16-31 CRD_VL, 32-47 Crd_Ack CRD_NUM */
    uint64_t vl_rep;
} dl_dir;

/* entries of the last link directions used: valid while no entry was inserted (inserting may evict and
 * move entries); a hit refreshes the LRU time like ub_tbl_find */
#define CACHE 4u
typedef struct dl_cache {
    uint64_t gen;
    uint32_t ifindex;
    uint8_t dir, used;
    dl_dir *d;
} dl_cache;

typedef struct mod_dll {
    ub_state *s;
    ub_tbl links;
    uint64_t gen;
    dl_cache cache[CACHE];
    ub_fh lph_crd, lph_ack, lph_crd_vl, lph_vl, lbh_crd, lbh_ack, lbh_crd_vl;
    ub_fh crd_sd, crd_t, crd_ack_num, crd_num[NVL];
    ub_fh in_feature, in_share, in_data_ack, in_ctrl_ack, in_flow, in_vl_enable, in_depth, in_pmi;
    ub_fh in_ctrl_grain[NVL], in_data_grain[NVL];
    ub_fh rq_rcvptr, rq_phy, rq_retry, ra_free, ra_rdptr, ra_wrptr;
    ub_fh bmc_type, lm_req_id, lm_rsp_id, lm_tlw, lm_rlw;
    ub_fh pe_data[6];
} mod_dll;

/* ================================================================ helpers */
static void emit(ub_state *s, const ub_pkt *p, uint8_t dir, unsigned rule, int sev, uint64_t other,
                 const int64_t *v, unsigned nv, const char *detail)
{
    char kt[40] = "";
    if (ub_st_want_text(s, rule, p->pi->frame))
        snprintf(kt, sizeof kt, "if %u %s", (unsigned)p->pi->ifindex,
                 dir == UB_DIR_IN ? "in" : dir == UB_DIR_OUT ? "out" : "(no direction)");
    ub_st_emit(s, rule, sev, p->pi->frame, &other, other ? 1u : 0u, v, nv, detail, "link direction", kt);
}
static void emit2(ub_state *s, const ub_pkt *p, uint8_t dir, unsigned rule, int sev, uint64_t other, int64_t a,
                  int64_t b, const char *detail)
{
    int64_t v[2] = { a, b };
    emit(s, p, dir, rule, sev, other, v, 2, detail);
}
static void emit3(ub_state *s, const ub_pkt *p, uint8_t dir, unsigned rule, uint64_t other, int64_t a, int64_t b,
                  int64_t c, const char *detail)
{
    int64_t v[3] = { a, b, c };
    emit(s, p, dir, rule, -1, other, v, 3, detail);
}

/* a field through its handle, with the inline bit reader of the table row (0 when absent) */
static inline uint64_t fv(const ub_fh *h, const ub_layer *l)
{
    for (unsigned i = 0; l && i < h->n; i++) {
        if (h->h[i] != l->hdr) continue;
        uint64_t u;
        return ub_fh_fast(h, i, l, &u) ? u : ub_lget(l, (unsigned)(h->f[i] - h->h[i]->fields));
    }
    return 0;
}

static uint8_t other_dir(uint8_t d) { return d == UB_DIR_IN ? UB_DIR_OUT : UB_DIR_IN; }

static unsigned classify(const ub_pkt *p)
{
    if (p->v->kind == UB_KIND_DLLDP) return p->lph ? U_DLLDP : U_NONE;
    if (p->v->kind != UB_KIND_DLLCB || !p->dllcb) return U_NONE;
    switch (p->dllcb->hdr->id) {
    case UB_H_DLLCB_NULL: return U_NULL;
    case UB_H_DLLCB_NOB: return U_NOB;
    case UB_H_DLLCB_RETRY_IDLE: return U_RIDLE;
    case UB_H_DLLCB_RETRY_REQ: return U_RREQ;
    case UB_H_DLLCB_RETRY_ACK: return U_RACK;
    case UB_H_DLLCB_CRD_ACK: return U_CRD;
    case UB_H_DLLCB_PARAM_EXCHG: return U_PE;
    case UB_H_DLLCB_LANE_MANAGE: return U_LM;
    case UB_H_DLLCB_BLOCK_MODE_CHG: return U_BMC;
    case UB_H_DLLCB_INIT: case UB_H_DLLCB_INIT_ALT: return U_INIT;
    default: return U_RSVD;
    }
}

/* §4.7.3.2.1: every block except Null Block and the Retry blocks is backed up in the Retry Buffer */
static bool backed_up(unsigned k) { return k != U_NULL && k != U_RIDLE && k != U_RREQ && k != U_RACK && k != U_NONE; }

/* a decode error of error severity in a link-layer header: its fields cannot be trusted */
static bool dl_malformed(const ub_view *v)
{
    for (unsigned i = 0; i < v->nerrs; i++) {
        const ub_err *e = &v->err[i];
        const ub_err_info *ei = ub_err_get(e->code);
        if (!ei || ei->severity < UB_SEV_ERROR || e->code == UB_E_BCRC_BAD) continue;
        if (e->hdr == UB_H_LPH || e->hdr == UB_H_LBH || e->hdr == UB_H_LCH ||
            (e->hdr >= UB_H_DLLCB_NULL && e->hdr <= UB_H_LNA))
            return true;
    }
    return false;
}

/* block fingerprint for replay comparison: length, first and last 8 bytes (in CRC mode the last bytes
 * hold the BCRC of the last block) — O(1) per block */
static uint32_t block_sig(const ub_view *v)
{
    uint64_t a = 0, b = 0;
    uint32_t n = v->rec_len < 8 ? v->rec_len : 8;
    memcpy(&a, v->rec, n);
    memcpy(&b, v->rec + v->rec_len - n, n);
    uint64_t h = (a ^ (uint64_t)v->rec_len << 48) * 0x9E3779B97F4A7C15ull ^ b * 0xC2B2AE3D27D4EB4Full;
    return (uint32_t)(h ^ (h >> 32));
}

static uint32_t lowbit(uint32_t x) { return x & (~x + 1u); }
static uint32_t mod_depth(int64_t x, uint32_t depth) { return (uint32_t)(((x % depth) + depth) % depth); }

/* ================================================================ Retry Buffer ring */
static void ring_reset(dl_dir *d) { d->ring_head = d->ring_n = d->ring_total = 0; }

static void ring_add(dl_dir *d, uint32_t idx, uint32_t flits, uint32_t sig, bool known)
{
    dl_unit *u;
    if (d->ring_n == RING) {
        u = &d->ring[(d->ring_head + RING - d->ring_n) % RING]; /* oldest */
        d->ring_total -= u->flits;
        d->ring_n--;
    }
    u = &d->ring[d->ring_head];
    u->idx = (uint16_t)idx;
    u->flits = (uint16_t)(flits > 0xFFFF ? 0xFFFF : flits);
    u->sig = sig;
    u->known = known;
    d->ring_head = (d->ring_head + 1) % RING;
    d->ring_n++;
    d->ring_total += u->flits;
}

/* the remembered block starting at Retry Buffer index idx (newest first, within one buffer depth) */
static const dl_unit *ring_find(const dl_dir *d, uint32_t idx)
{
    uint32_t acc = 0;
    for (uint32_t k = 1; k <= d->ring_n; k++) {
        const dl_unit *u = &d->ring[(d->ring_head + RING - k) % RING];
        acc += u->flits;
        if (acc > d->init.depth) break;
        if (u->idx == idx) return u;
    }
    return NULL;
}

/* do the remembered blocks reach back to index idx (behind WrPtr)? */
static bool ring_covers(const dl_dir *d, uint32_t idx)
{
    if (!d->init.depth || !d->ring_n) return false;
    uint32_t dist = mod_depth((int64_t)d->wr - idx, d->init.depth);
    return dist > 0 && dist <= d->ring_total;
}

/* ================================================================ bring-up and models */
static void stop_accounting(dl_dir *a, dl_dir *b)
{
    if (a) a->valid = 0, a->replay = false;
    if (b) b->valid = 0, b->replay = false;
}

/* a new bring-up of the sender of x (DLL_Disabled -> DLL_Param_Init, §4.2): its credits start at zero
 * (granted later by Crd_Ack T=1, §4.6.1); its Retry Buffer and the receiver's RcvPtr start at 0 when its
 * Init Block (RETRY_BUF_DEPTH) is seen (§4.7.3.2.2) */
static void bu_arm(dl_dir *x)
{
    x->armed = true;
    x->bu_init = x->bu_t1 = x->bu_sd = x->bu_dlldp = 0;
    x->bu_rep = 0;
    x->have_init = x->init_seen = x->neg_ok = x->shared = false;
    memset(x->crd_init, 0, sizeof x->crd_init);
    memset(x->crd_cur, 0, sizeof x->crd_cur);
    x->tot_init = x->tot_cur = 0;
    x->crd_started = x->crd_total_rep = false;
    x->crd_neg = 0;
    x->valid = x->dir != UB_DIR_UNKNOWN ? V_CRD : 0; /* credits and releases come from the other direction */
    x->replay = x->discard = x->err_seen = false;
    ring_reset(x);
    x->vl_rep = 0;
    x->bmc = BMC_NONE;
    x->have_last = false;
}
static bool bu_past_param(const dl_dir *x) { return x->bu_t1 || x->bu_sd || x->bu_dlldp; }

static void read_init(const mod_dll *m, const ub_layer *l, dl_init *in)
{
    memset(in, 0, sizeof *in);
    in->feature_id = (uint16_t)fv(&m->in_feature, l);
    in->share = (uint8_t)fv(&m->in_share, l);
    in->data_ack = (uint8_t)fv(&m->in_data_ack, l);
    in->ctrl_ack = (uint8_t)fv(&m->in_ctrl_ack, l);
    in->flow = (uint8_t)fv(&m->in_flow, l);
    in->vl_enable = (uint16_t)fv(&m->in_vl_enable, l);
    in->depth = (uint16_t)fv(&m->in_depth, l);
    in->pmi = (uint8_t)fv(&m->in_pmi, l);
    for (unsigned v = 0; v < NVL; v++) {
        in->ctrl_grain[v] = (uint8_t)fv(&m->in_ctrl_grain[v], l);
        in->data_grain[v] = (uint8_t)fv(&m->in_data_grain[v], l);
    }
}

/* DL-10: FEATURE_ID = 1, VL0 enabled, mandatory capabilities present (§4.4 items 1-6) */
static void init_content(ub_state *s, const ub_pkt *p, const dl_init *in)
{
    uint8_t dir = p->pi->dir;
    if (in->feature_id != DEF_FEATURE_ID)
        emit2(s, p, dir, UB_R_DL_INIT, -1, 0, in->feature_id, DEF_FEATURE_ID, "FEATURE_ID is not 1 (this specification)");
    if (!(in->vl_enable & 1u))
        emit2(s, p, dir, UB_R_DL_INIT, -1, 0, in->vl_enable, DEF_VL_ENABLE, "VL_ENABLE bit 0 (VL0, mandatory) is 0");
    if (!(in->data_ack & DEF_DATA_ACK))
        emit2(s, p, dir, UB_R_DL_INIT, -1, 0, in->data_ack, DEF_DATA_ACK, "DATA_ACK_GRAIN_SIZE lacks the mandatory 32 flits");
    if (!(in->ctrl_ack & DEF_CTRL_ACK))
        emit2(s, p, dir, UB_R_DL_INIT, -1, 0, in->ctrl_ack, DEF_CTRL_ACK, "CTRL_ACK_GRAIN_SIZE lacks the mandatory 1 flit");
    if (!(in->flow & DEF_FLOW))
        emit2(s, p, dir, UB_R_DL_INIT, -1, 0, in->flow, DEF_FLOW, "FLOW_CTRL_SIZE lacks the mandatory Cell = 8 flits");
    if (in->depth == 0) emit2(s, p, dir, UB_R_DL_INIT, -1, 0, 0, 1, "RETRY_BUF_DEPTH is 0");
    for (unsigned v = 0; v < NVL; v++) {
        if (!(in->vl_enable >> v & 1u)) continue;
        if (!(in->ctrl_grain[v] & DEF_CTRL_GRAIN))
            emit2(s, p, dir, UB_R_DL_INIT, -1, 0, v, in->ctrl_grain[v],
                  "CTRL_CREDIT_GRAIN_SIZE of an enabled VL lacks the mandatory 1 cell (values: VL, bitmap)");
        if (!(in->data_grain[v] & DEF_DATA_GRAIN))
            emit2(s, p, dir, UB_R_DL_INIT, -1, 0, v, in->data_grain[v],
                  "DATA_CREDIT_GRAIN_SIZE of an enabled VL lacks the mandatory 4 cells (values: VL, bitmap)");
    }
}

/* §4.4 Table 4-9: intersection, smallest common value; empty intersection -> the fallback default */
static uint8_t nego8(uint8_t a, uint8_t b, uint8_t dflt, bool *fb)
{
    uint8_t x = (uint8_t)(a & b);
    if (!x) { *fb = true; return dflt; }
    *fb = false;
    return (uint8_t)lowbit(x);
}

static const char *const ctrl_grain_name[NVL] = {
#define CG(n) "CTRL_CREDIT_GRAIN_SIZE[VL" #n "]"
    CG(0), CG(1), CG(2), CG(3), CG(4), CG(5), CG(6), CG(7), CG(8), CG(9), CG(10), CG(11), CG(12), CG(13), CG(14), CG(15)
#undef CG
};
static const char *const data_grain_name[NVL] = {
#define DG(n) "DATA_CREDIT_GRAIN_SIZE[VL" #n "]"
    DG(0), DG(1), DG(2), DG(3), DG(4), DG(5), DG(6), DG(7), DG(8), DG(9), DG(10), DG(11), DG(12), DG(13), DG(14), DG(15)
#undef DG
};

static void neg_note(ub_state *s, const ub_pkt *p, uint8_t dir, int64_t code, int64_t val, int64_t dflt, bool fb,
                     const char *what)
{
    if (val == dflt && !fb) return;
    int64_t v[4] = { code, val, dflt, fb ? 1 : 0 };
    emit(s, p, dir, UB_R_DL_NEGOTIATED, -1, 0, v, 4, what);
}

/* both Init Blocks known: negotiate (§4.4), store in both directions, note what differs from the
 * defaults (DL_NEGOTIATED values: field code, negotiated, default, 1 = no common value) */
static void negotiate(ub_state *s, const ub_pkt *p, dl_dir *a, dl_dir *b)
{
    dl_neg n;
    bool fb_data_ack, fb_ctrl_ack, fb_flow, fb_vl = false, fb_c[NVL], fb_d[NVL];
    memset(&n, 0, sizeof n);
    n.feature_id = a->init.feature_id < b->init.feature_id ? a->init.feature_id : b->init.feature_id;
    n.data_ack = nego8(a->init.data_ack, b->init.data_ack, DEF_DATA_ACK, &fb_data_ack);
    n.ctrl_ack = nego8(a->init.ctrl_ack, b->init.ctrl_ack, DEF_CTRL_ACK, &fb_ctrl_ack);
    n.flow = nego8(a->init.flow, b->init.flow, DEF_FLOW, &fb_flow);
    n.vl_enable = (uint16_t)(a->init.vl_enable & b->init.vl_enable);
    if (!(n.vl_enable & 1u)) { n.vl_enable = DEF_VL_ENABLE; fb_vl = true; }
    for (unsigned v = 0; v < NVL; v++) {
        n.ctrl_grain[v] = nego8(a->init.ctrl_grain[v], b->init.ctrl_grain[v], DEF_CTRL_GRAIN, &fb_c[v]);
        n.data_grain[v] = nego8(a->init.data_grain[v], b->init.data_grain[v], DEF_DATA_GRAIN, &fb_d[v]);
    }
    bool changed = !a->neg_ok || !b->neg_ok || memcmp(&a->neg, &n, sizeof n) != 0 ||
                   a->shared != (b->init.share != 0) || b->shared != (a->init.share != 0);
    a->neg = b->neg = n;
    a->neg_ok = b->neg_ok = true;
    a->shared = b->init.share != 0; /* RXBUF_VL_SHARE of the receiver: shared credits possible */
    b->shared = a->init.share != 0;
    if (!changed) return;
    uint8_t dir = p->pi->dir;
    neg_note(s, p, dir, NF_FEATURE_ID, n.feature_id, DEF_FEATURE_ID, false, "FEATURE_ID");
    neg_note(s, p, dir, NF_DATA_ACK, n.data_ack, DEF_DATA_ACK, fb_data_ack, "DATA_ACK_GRAIN_SIZE (flits)");
    neg_note(s, p, dir, NF_CTRL_ACK, n.ctrl_ack, DEF_CTRL_ACK, fb_ctrl_ack, "CTRL_ACK_GRAIN_SIZE (flits)");
    neg_note(s, p, dir, NF_FLOW, n.flow, DEF_FLOW, fb_flow, "FLOW_CTRL_SIZE (flits per Cell)");
    neg_note(s, p, dir, NF_VL_ENABLE, n.vl_enable, DEF_VL_ENABLE, fb_vl, "VL_ENABLE");
    for (unsigned v = 0; v < NVL; v++) {
        if (!(n.vl_enable >> v & 1u)) continue;
        neg_note(s, p, dir, NF_DATA_GRAIN + v, n.data_grain[v], DEF_DATA_GRAIN, fb_d[v], data_grain_name[v]);
        neg_note(s, p, dir, NF_CTRL_GRAIN + v, n.ctrl_grain[v], DEF_CTRL_GRAIN, fb_c[v], ctrl_grain_name[v]);
    }
    if (a->shared) neg_note(s, p, a->dir, NF_RXBUF_VL_SHARE, 1, 0, false, "RXBUF_VL_SHARE of the receiver (shared credits)");
    if (b->shared) neg_note(s, p, b->dir, NF_RXBUF_VL_SHARE, 1, 0, false, "RXBUF_VL_SHARE of the receiver (shared credits)");
}

/* an Init Block sent in d (not a replay): DL-10, the bring-up (DL-09), the negotiation */
static void init_block(mod_dll *m, ub_state *s, const ub_pkt *p, dl_dir *d, dl_dir *peer)
{
    const bool cut = p->dllcb->flags & UB_LF_TRUNC; /* cut by the snapshot length: values not captured */
    dl_init in;
    memset(&in, 0, sizeof in);
    if (!cut) read_init(m, p->dllcb, &in);
    if (!cut && (!d->have_init || memcmp(&in, &d->init, sizeof in) != 0)) init_content(s, p, &in);
    /* §4.2 DLL_Param_Init: Init Blocks only after the retry exchange (the own Retry_Req_Set answered) */
    if (d->req_pending && peer && peer->units)
        emit2(s, p, d->dir, UB_R_DL_BRINGUP, -1, d->req_frame, BU_RETRY, 0,
              "Init Block before the peer answered the Retry_Req_Set (retry exchange first, §4.2)");
    if (!d->armed || bu_past_param(d)) bu_arm(d);
    /* the link went through DLL_Disabled: the other side is in its bring-up too; its Init Block must be in
     * the capture if anything of it was (else it may precede the capture start) */
    if (peer && peer->units && (!peer->armed || bu_past_param(peer))) {
        bu_arm(peer);
        d->neg_ok = false;
    }
    if (!d->bu_init) {
        d->bu_init = p->pi->frame;
        d->wr = d->rcv = 0; /* §4.7.3.2.2: pointers start at 0, NumFreeBuf at RETRY_BUF_DEPTH */
        d->freeb = in.depth;
        d->rb_deficit = false;
        ring_reset(d);
        d->replay = d->discard = d->err_seen = false;
        if (in.depth && d->dir != UB_DIR_UNKNOWN) d->valid |= V_RB | V_RCV;
        else d->valid &= (uint8_t)~(V_RB | V_RCV);
    } else if (in.depth != d->init.depth) { /* another depth within one bring-up: pointers unknown */
        d->valid &= (uint8_t)~(V_RB | V_RCV);
        d->replay = false;
    }
    d->init_seen = true;
    if (cut) { /* RETRY_BUF_DEPTH and the negotiation unknown: no pointer or credit model from it */
        d->valid &= (uint8_t)~(V_RB | V_RCV);
        d->replay = false;
        d->have_init = false;
        if (peer) peer->neg_ok = false;
        return;
    }
    d->init = in;
    d->have_init = true;
    if (peer && peer->have_init) negotiate(s, p, d, peer);
}

/* ================================================================ credits (DL-11, DL-12) */
static bool vl_enabled(const dl_dir *x, unsigned vl) { return !x->neg_ok || (x->neg.vl_enable >> vl & 1u); }

static void vl_disabled_emit(ub_state *s, const ub_pkt *p, dl_dir *d, unsigned vl, unsigned bitbase, const char *what)
{
    uint64_t bit = 1ull << (bitbase + vl);
    if (d->vl_rep & bit) return;
    d->vl_rep |= bit;
    emit2(s, p, p->pi->dir, UB_R_DL_VL_DISABLED, -1, 0, vl, d->neg.vl_enable, what);
}
/* DL-12 on a VL the Init exchange did not enable (the check inline: it passes on almost every block) */
static inline void vl_disabled(ub_state *s, const ub_pkt *p, dl_dir *d, unsigned vl, unsigned bitbase, const char *what)
{
    if (d->neg_ok && !vl_enabled(d, vl)) vl_disabled_emit(s, p, d, vl, bitbase, what);
}

/* A (sender of d) uses cells of credit on vl for a DLLDP that B accepted */
static void crd_consume(ub_state *s, const ub_pkt *p, dl_dir *d, unsigned vl, uint32_t flits)
{
    if (!(d->valid & V_CRD)) return;
    uint32_t cell = d->neg_ok ? d->neg.flow : DEF_FLOW;
    int64_t cells = (flits + cell - 1u) / cell; /* §4.6.2 Note 3: ceil(flits / Cell) */
    if (!d->crd_started) {
        /* no initial credit from the receiver yet (DL-09 reports the order) */
        if (!(d->crd_neg & 1u << vl))
            emit3(s, p, d->dir, UB_R_DL_CREDIT_UNDERFLOW, 0, vl, 0, cells, "DLLDP before any initial credit (Crd_Ack T=1)");
        d->crd_neg |= 1u << vl;
    }
    if (!d->neg_ok) { d->valid &= (uint8_t)~V_CRD; return; }
    if (d->shared) { /* §4.6.1.3: shared mode, only the aggregate is checkable */
        int64_t before = d->tot_cur;
        d->tot_cur -= cells;
        if (d->tot_cur < 0 && !(d->crd_neg & 1u << 16) && d->crd_started)
            emit3(s, p, d->dir, UB_R_DL_CREDIT_UNDERFLOW, 0, -1, before, cells, "shared credits exhausted (value VL -1 = all VLs)");
        if (d->tot_cur < 0) d->crd_neg |= 1u << 16;
        return;
    }
    int64_t before = d->crd_cur[vl];
    d->crd_cur[vl] -= cells;
    if (d->crd_cur[vl] < 0 && !(d->crd_neg & 1u << vl))
        emit3(s, p, d->dir, UB_R_DL_CREDIT_UNDERFLOW, 0, vl, before, cells, "DLLDP needs more credit than left on its VL");
    if (d->crd_cur[vl] < 0) d->crd_neg |= 1u << vl;
}

/* credits arrive for the sender of direction x (initial or returned) */
static void crd_add(ub_state *s, const ub_pkt *p, dl_dir *x, unsigned vl, int64_t cells, bool initial)
{
    if (initial) {
        x->crd_init[vl] += cells;
        x->tot_init += cells;
        x->crd_started = true;
        if (x->tot_init > MAX_CREDIT_CELLS && !x->crd_total_rep) {
            x->crd_total_rep = true;
            emit3(s, p, x->dir, UB_R_DL_CREDIT_OVERFLOW, 0, vl, x->tot_init, MAX_CREDIT_CELLS,
                  "initial credits of all VLs exceed 65535 cells (§4.6.2 Note 2)");
        }
    }
    if (x->shared) {
        x->tot_cur += cells;
        if (x->tot_cur >= 0) x->crd_neg &= ~(1u << 16);
        if (!initial && x->tot_cur > x->tot_init) {
            emit3(s, p, x->dir, UB_R_DL_CREDIT_OVERFLOW, 0, -1, x->tot_cur, x->tot_init,
                  "shared credits returned beyond the initial credits (Flow Control Overflow; value VL -1 = all VLs)");
            x->tot_cur = x->tot_init;
        }
        return;
    }
    x->crd_cur[vl] += cells;
    if (x->crd_cur[vl] >= 0) x->crd_neg &= ~(1u << vl);
    if (!initial && x->crd_cur[vl] > x->crd_init[vl]) {
        emit3(s, p, x->dir, UB_R_DL_CREDIT_OVERFLOW, 0, vl, x->crd_cur[vl], x->crd_init[vl],
              "credit returned beyond the initial credit of the VL (Flow Control Overflow)");
        x->crd_cur[vl] = x->crd_init[vl];
    }
}

/* ================================================================ Retry Buffer (DL-13) */
/* B's ACK releases `flits` of A's Retry Buffer (A = sender of x) */
static void rb_release(ub_state *s, const ub_pkt *p, dl_dir *x, int64_t flits)
{
    if (!(x->valid & V_RB) || flits <= 0) return;
    if (x->freeb + flits > x->init.depth) {
        emit3(s, p, x->dir, UB_R_DL_RETRY_BUFFER, 0, x->freeb, flits, x->init.depth,
              "ACK releases more than RETRY_BUF_DEPTH (NumFreeBuf overflow, DL Protocol Error, §4.8.2)");
        x->freeb = x->init.depth;
    } else {
        x->freeb += flits;
    }
    if (x->freeb >= 0) x->rb_deficit = false;
}

/* A sends a backed-up block in d: a replay (inside [RdPtr, WrPtr) after a Retry_Ack_Set) or new.
 * *applied: a replayed block the checker already counted as received (B's RcvPtr was behind it). */
static bool rb_block(ub_state *s, const ub_pkt *p, dl_dir *d, uint32_t flits, bool known, bool *applied)
{
    uint32_t depth = d->init.depth, sig = known && (d->valid & V_RB) ? block_sig(p->v) : 0;
    *applied = false;
    if (d->replay && depth) {
        uint32_t idx = d->rp_rd;
        const dl_unit *u = ring_find(d, idx);
        if (!u && idx == d->wr) {
            /* not in the buffer yet: the rest of a block the Retry_Ack_Set interrupted (raw stream, R-47) */
            d->replay = false;
        } else {
            if (!d->rp_rep) {
                if (u && u->known && known && (u->flits != flits || u->sig != sig)) {
                    d->rp_rep = true;
                    emit2(s, p, d->dir, UB_R_DL_RETRY_REPLAY, -1, 0, idx, u->flits,
                          "replayed block differs from the original at this Retry Buffer index (values: index, original flits)");
                } else if (!u && ring_covers(d, idx)) {
                    d->rp_rep = true;
                    emit2(s, p, d->dir, UB_R_DL_RETRY_REPLAY, -1, 0, idx, d->wr,
                          "replay is not at a block boundary of the Retry Buffer (values: index, WrPtr)");
                } else if (u && flits > d->rp_left) {
                    d->rp_rep = true;
                    emit2(s, p, d->dir, UB_R_DL_RETRY_REPLAY, -1, 0, flits, d->rp_left,
                          "replay runs past WrPtr (values: block flits, flits left to WrPtr)");
                }
            }
            *applied = mod_depth((int64_t)idx - d->rp_start, depth) < d->rp_skip;
            d->rp_rd = (idx + flits) % depth;
            if (flits >= d->rp_left) d->replay = false;
            else d->rp_left -= flits;
            return true;
        }
    }
    if (d->valid & V_RB) {
        if (d->freeb < (int64_t)flits && !d->rb_deficit) {
            d->rb_deficit = true;
            emit3(s, p, d->dir, UB_R_DL_RETRY_BUFFER, 0, d->freeb, flits, depth,
                  "block sent without free Retry Buffer space (NumFreeBuf < block size, §4.7.3.2.2)");
        }
        d->freeb -= flits;
        ring_add(d, d->wr, flits, sig, known);
        d->wr = (d->wr + flits) % depth;
    }
    return false;
}

/* ================================================================ retry sets (DL-14..DL-17) */
/* A Retry_Ack_Set in d ended: B stops discarding, A replays [RdPtr, WrPtr) (§4.7.3.4, §4.7.3.5) */
static void ack_set_done(ub_state *s, const ub_pkt *p, dl_dir *d, dl_dir *peer)
{
    d->discard = d->err_seen = false;
    if (d->set_count >= SET_COPIES && peer) peer->ev_active = false; /* B's retry event is over */
    if (!d->set_have_f || !(d->valid & V_RB) || p->pi->dir == UB_DIR_UNKNOWN) return;
    uint32_t depth = d->init.depth, rd = d->set_f[1], wrp = d->set_f[2];
    if (rd >= depth || wrp >= depth) {
        emit2(s, p, d->dir, UB_R_DL_RETRY_REPLAY, -1, d->set_first, rd >= depth ? rd : wrp, depth,
              "Retry_Ack pointer beyond RETRY_BUF_DEPTH");
        stop_accounting(d, peer);
        return;
    }
    uint32_t ahead = mod_depth((int64_t)wrp - d->wr, depth);
    if (ahead >= BLK_FLITS) /* a Retry_Ack_Set inside a block hides < 32 sent flits from the checker */
        emit2(s, p, d->dir, UB_R_DL_RETRY_BUFFER, -1, d->set_first, wrp, d->wr,
              "Retry_Ack WrPtr differs from the backed-up flits sent (values: WrPtr, expected)");
    uint32_t len = mod_depth((int64_t)wrp - rd, depth);
    if (!len) return;
    if (!ring_find(d, rd) && ring_covers(d, rd))
        emit2(s, p, d->dir, UB_R_DL_RETRY_REPLAY, -1, d->set_first, rd, d->wr,
              "Retry_Ack RdPtr is not at a block boundary of the Retry Buffer (values: RdPtr, WrPtr)");
    d->replay = true;
    d->rp_rep = false;
    d->rp_rd = d->rp_start = rd;
    d->rp_left = len;
    uint32_t skip = (d->valid & V_RCV) ? mod_depth((int64_t)d->rcv - rd, depth) : 0;
    d->rp_skip = skip <= len ? skip : 0;
}

static void set_finish(ub_state *s, const ub_pkt *p, dl_dir *d, dl_dir *peer)
{
    if (d->set_count < SET_COPIES && !d->set_cut && !(d->set_rep & SR_STRUCT)) {
        d->set_rep |= SR_STRUCT;
        emit2(s, p, p->pi->dir, UB_R_DL_RETRY_SET, -1, d->set_idle, d->set_count, SET_COPIES,
              d->set_count ? "retry set with fewer than 32 Retry_Req/Retry_Ack copies (values: copies, 32)"
                           : "Retry_Idle not followed by Retry_Req/Retry_Ack copies");
    }
    if (d->set_kind == SK_ACK) ack_set_done(s, p, d, peer);
    d->set_open = false;
}

/* first good copy of a Retry_Req_Set sent in d: A asks B to replay the peer direction from RcvPtr */
static void req_content(ub_state *s, const ub_pkt *p, dl_dir *d, dl_dir *peer, uint16_t rcvptr, uint16_t phy,
                        uint16_t retry)
{
    uint64_t fr = p->pi->frame;
    d->req_pending = true;
    d->req_rcvptr = rcvptr;
    d->req_frame = fr;
    /* DL-17 (§4.7.3.3, §10.6 i): the first set seen is not checked; later sets of the event count up. With
     * both directions the Retry_Ack_Set ends an event; with one (no peer: classic pcap of one link
     * direction, §10.6 g) a set with NUM_RETRY = 1 may start a new event, anything else continues one. */
    bool one_dir = !peer;
    if (d->ev_active) {
        bool new_event = one_dir && retry == 1;
        if (new_event) {
            d->ev_notes = 0;
        } else if (phy == d->ev_phy) {
            if (retry != (uint16_t)(d->ev_retry + 1u))
                emit2(s, p, d->dir, UB_R_DL_RETRY_COUNT, -1, d->ev_frame, d->ev_retry, retry,
                      "NUM_RETRY does not count up by one per Retry_Req_Set (values: previous, this)");
        } else if (phy == (uint16_t)(d->ev_phy + 1u)) {
            if (retry != 1)
                emit2(s, p, d->dir, UB_R_DL_RETRY_COUNT, -1, d->ev_frame, d->ev_retry, retry,
                      "NUM_RETRY does not restart at 1 after a PHY retrain (values: previous, this)");
        } else {
            emit2(s, p, d->dir, UB_R_DL_RETRY_COUNT, -1, d->ev_frame, d->ev_phy, phy,
                  "NUM_PHY_REINIT does not count up by one per retrain (values: previous, this)");
        }
        if (!new_event && !(d->ev_notes & 1u) && d->blocks) { /* repeated sets right after link-up are normal (§10.6 i) */
            d->ev_notes |= 1u;
            emit2(s, p, d->dir, UB_R_DL_RETRY_COUNT, UB_SEV_NOTE, d->ev_frame, d->ev_retry, retry,
                  "Retry_Req_Set repeated: DL Retry ACK Timeout (§4.8.2)");
        }
    } else {
        d->ev_active = true;
        d->ev_notes = 0;
    }
    if (retry >= NUM_RETRY_THRESHOLD && !(d->ev_notes & 2u)) {
        d->ev_notes |= 2u;
        emit2(s, p, d->dir, UB_R_DL_RETRY_COUNT, UB_SEV_NOTE, 0, NUM_RETRY_THRESHOLD, retry,
              "NUM_RETRY reached the suggested threshold 15: DL Retry Rollover (§4.8.2, informative)");
    }
    if (phy >= NUM_PHY_REINIT_THRESHOLD && !(d->ev_notes & 4u)) {
        d->ev_notes |= 4u;
        emit2(s, p, d->dir, UB_R_DL_RETRY_COUNT, UB_SEV_NOTE, 0, NUM_PHY_REINIT_THRESHOLD, phy,
              "NUM_PHY_REINIT reached the suggested threshold 4: DL Retry Error (§4.8.2, informative)");
    }
    d->ev_retry = retry;
    d->ev_phy = phy;
    d->ev_frame = fr;
    /* DL-14 (§4.7.3.2.2, R-45): RcvPtr = the backed-up flits of the peer direction A received correctly */
    if (!peer || !(peer->valid & V_RCV)) return;
    uint32_t depth = peer->init.depth, exp = peer->rcv;
    const char *bad = NULL;
    if (rcvptr >= depth) bad = "Retry_Req RcvPtr beyond RETRY_BUF_DEPTH";
    else if (peer->err_seen) {
        if (rcvptr != exp) bad = "Retry_Req RcvPtr differs from the flits correctly received before the bad block";
    } else if (rcvptr != exp) {
        /* no bad block seen here: the error happened behind the capture point, RcvPtr must be behind */
        uint32_t ahead = mod_depth((int64_t)rcvptr - exp, depth);
        if (ahead < depth / 2u) bad = "Retry_Req RcvPtr ahead of the flits sent";
        else if (!ring_find(peer, rcvptr) && ring_covers(peer, rcvptr)) bad = "Retry_Req RcvPtr is not at a block boundary";
    }
    if (bad) {
        emit2(s, p, d->dir, UB_R_DL_RCVPTR, -1, 0, rcvptr, exp, bad);
        stop_accounting(d, peer);
    }
}

/* first good copy of a Retry_Ack_Set sent in d: A answers B's Retry_Req_Set (peer direction) */
static void ack_content(ub_state *s, const ub_pkt *p, dl_dir *peer, uint16_t rdptr)
{
    if (!peer || !peer->req_pending) return;
    peer->req_pending = false;
    if (rdptr != peer->req_rcvptr)
        emit2(s, p, p->pi->dir, UB_R_DL_RETRY_REPLAY, -1, peer->req_frame, rdptr, peer->req_rcvptr,
              "Retry_Ack RdPtr does not answer the Retry_Req RcvPtr (values: RdPtr, RcvPtr)");
}

static void retry_block(mod_dll *m, ub_state *s, const ub_pkt *p, dl_dir *d, dl_dir *peer, unsigned kind, bool trust,
                        bool first)
{
    uint64_t fr = p->pi->frame;
    if (kind == U_RIDLE) {
        if (d->set_open) set_finish(s, p, d, peer);
        d->set_open = true;
        d->set_cut = d->set_have_f = false;
        d->set_kind = SK_NONE;
        d->set_rep = 0;
        d->set_count = 0;
        d->set_idle = fr;
        return;
    }
    uint8_t k = kind == U_RREQ ? SK_REQ : SK_ACK;
    if (!d->set_open) {
        d->set_open = true;
        d->set_cut = first; /* cut by the capture start: silent (§10.6 i) */
        d->set_have_f = false;
        d->set_kind = SK_NONE;
        d->set_rep = 0;
        d->set_count = 0;
        d->set_idle = 0;
        if (!first) {
            d->set_rep |= SR_STRUCT;
            emit2(s, p, p->pi->dir, UB_R_DL_RETRY_SET, -1, 0, 0, SET_COPIES,
                  "Retry_Req/Retry_Ack without a Retry_Idle before it, or more than 32 copies");
        }
    }
    if (d->set_kind == SK_NONE) d->set_kind = k;
    d->set_count++;
    if (d->set_kind != k) {
        if (!(d->set_rep & SR_MIX)) {
            d->set_rep |= SR_MIX;
            emit2(s, p, p->pi->dir, UB_R_DL_RETRY_SET, -1, d->set_idle, d->set_count, SET_COPIES,
                  "Retry_Req and Retry_Ack copies mixed in one retry set");
        }
    } else if (trust) {
        uint16_t f[3];
        if (k == SK_REQ) {
            f[0] = (uint16_t)fv(&m->rq_rcvptr, p->dllcb);
            f[1] = (uint16_t)fv(&m->rq_phy, p->dllcb);
            f[2] = (uint16_t)fv(&m->rq_retry, p->dllcb);
        } else {
            f[0] = (uint16_t)fv(&m->ra_free, p->dllcb);
            f[1] = (uint16_t)fv(&m->ra_rdptr, p->dllcb);
            f[2] = (uint16_t)fv(&m->ra_wrptr, p->dllcb);
        }
        if (!d->set_have_f) {
            memcpy(d->set_f, f, sizeof f);
            d->set_have_f = true;
            d->set_first = fr;
            bool both = p->pi->dir != UB_DIR_UNKNOWN;
            if (k == SK_REQ) req_content(s, p, d, both ? peer : NULL, f[0], f[1], f[2]);
            else if (both) ack_content(s, p, peer, f[1]);
        } else if (memcmp(f, d->set_f, sizeof f) != 0 && !(d->set_rep & SR_DIFF)) {
            d->set_rep |= SR_DIFF;
            emit2(s, p, p->pi->dir, UB_R_DL_RETRY_SET, -1, d->set_first, d->set_count, SET_COPIES,
                  "retry set copies are not identical");
        }
    }
    if (d->set_count == SET_COPIES) set_finish(s, p, d, peer);
}

/* ================================================================ DLLDPs and Crd_Acks */
static void dlldp(mod_dll *m, ub_state *s, const ub_pkt *p, dl_dir *d, dl_dir *peer, bool orig, bool accept,
                  uint64_t pos)
{
    bool sum = p->sum.fl & UB_PS_LPH_FAST; /* the LPH's values in the summary (pktsum.h) */
    unsigned vl = (sum ? p->sum.lph_vl : (unsigned)fv(&m->lph_vl, p->lph)) & 0xFu;
    uint8_t dir = p->pi->dir;
    if (orig) {
        if (d->armed && dir != UB_DIR_UNKNOWN && !(d->bu_rep & 1u << BU_CREDIT)) {
            /* §4.2, §4.6.1: DLLDPs only in DLL_Normal, after both sides' initial credits */
            bool bad = !d->bu_sd || (peer && peer->armed && !peer->bu_sd);
            if (bad) {
                uint64_t other = d->bu_t1 ? d->bu_t1 : d->bu_init;
                d->bu_rep |= 1u << BU_CREDIT;
                emit2(s, p, dir, UB_R_DL_BRINGUP, -1, other, BU_CREDIT, d->bu_sd ? 1 : 0,
                      "DLLDP before both sides completed the credit initialisation (Crd_Ack T=1 with SD=1)");
            }
        }
        if (d->armed && !d->bu_dlldp) d->bu_dlldp = p->pi->frame;
        vl_disabled(s, p, d, vl, 0, "DLLDP on a VL that the Init exchange did not enable");
    }
    /* DL-18 (§4.3.3.3, Table 4-8): DLLDP first flits at least the receiver's PACKET_MIN_INTERVAL apart */
    if (peer && peer->have_init && peer->init.pmi > 1) {
        if (d->have_last && pos - d->last_pos < peer->init.pmi)
            emit2(s, p, dir, UB_R_DL_MIN_INTERVAL, -1, d->last_frame, (int64_t)(pos - d->last_pos), peer->init.pmi,
                  "DLLDPs closer than the receiver's PACKET_MIN_INTERVAL (values: flits, minimum)");
    }
    d->have_last = true;
    d->last_pos = pos;
    d->last_frame = p->pi->frame;
    if (accept && vl_enabled(d, vl)) crd_consume(s, p, d, vl, p->flits); /* a disabled VL: DL-12 only */
    /* CRD/ACK of the LPH and of every LBH (several flagged headers return several times, Table 4-2) */
    bool multi = p->flits > 32u; /* LBHs only in DLLDPs of more than one block (§4.3.2.1) */
    for (unsigned i = 0; i < (multi ? p->v->nlayers : 1u); i++) {
        const ub_layer *l = multi ? &p->v->layer[i] : p->lph;
        const ub_fh *fc, *fa, *fl;
        if (l->hdr->id == UB_H_LPH) fc = &m->lph_crd, fa = &m->lph_ack, fl = &m->lph_crd_vl;
        else if (l->hdr->id == UB_H_LBH) fc = &m->lbh_crd, fa = &m->lbh_ack, fl = &m->lbh_crd_vl;
        else continue;
        if (l->flags & UB_LF_TRUNC) continue;
        bool crd, ack;
        unsigned cvl;
        if (sum && l == p->lph) crd = p->sum.lph_crd != 0, ack = p->sum.lph_ack != 0, cvl = p->sum.lph_crd_vl & 0xFu;
        else crd = fv(fc, l) != 0, ack = fv(fa, l) != 0, cvl = (unsigned)fv(fl, l) & 0xFu;
        if (crd && orig) vl_disabled(s, p, d, cvl, 16, "credit returned (CRD_VL) for a VL that the Init exchange did not enable");
        if (!accept || !peer) continue;
        if (crd && (peer->valid & V_CRD)) {
            if (!peer->neg_ok) peer->valid &= (uint8_t)~V_CRD;
            else crd_add(s, p, peer, cvl, peer->neg.data_grain[cvl], false); /* §4.6.2 Note 4 */
        }
        if (ack && (peer->valid & V_RB)) {
            if (!peer->neg_ok) peer->valid &= (uint8_t)~V_RB;
            else rb_release(s, p, peer, peer->neg.data_ack); /* §4.7.3.2.3 item 1 */
        }
    }
}

static void crd_ack(mod_dll *m, ub_state *s, const ub_pkt *p, dl_dir *d, dl_dir *peer, bool orig, bool accept)
{
    const ub_layer *l = p->dllcb;
    bool t = fv(&m->crd_t, l) != 0, sd = fv(&m->crd_sd, l) != 0;
    uint8_t dir = p->pi->dir;
    uint8_t num[NVL] = { 0 };
    if ((orig && d->neg_ok) || (accept && peer && (peer->valid & V_CRD))) /* CRD_NUM only when used */
        for (unsigned v = 0; v < NVL; v++) num[v] = (uint8_t)fv(&m->crd_num[v], l);
    if (orig && t && d->armed) {
        if (dir != UB_DIR_UNKNOWN) {
            if (!(d->bu_rep & 1u << BU_CREDIT_DONE) && d->bu_sd) {
                d->bu_rep |= 1u << BU_CREDIT_DONE;
                emit2(s, p, dir, UB_R_DL_BRINGUP, -1, d->bu_sd, BU_CREDIT_DONE, 1,
                      "initial credits (Crd_Ack T=1) after the last one (SD=1)");
            }
            bool param = !d->bu_init || (peer && peer->armed && !peer->init_seen);
            if (param && !(d->bu_rep & 1u << BU_PARAM)) {
                d->bu_rep |= 1u << BU_PARAM;
                emit2(s, p, dir, UB_R_DL_BRINGUP, -1, d->bu_init, BU_PARAM, d->bu_init ? 1 : 0,
                      "Crd_Ack T=1 before both Init Blocks were exchanged (DLL_Param_Init not complete)");
            }
        }
        if (!d->bu_t1) d->bu_t1 = p->pi->frame;
        if (sd && !d->bu_sd) d->bu_sd = p->pi->frame;
    }
    if (orig)
        for (unsigned v = 0; v < NVL; v++)
            if (num[v]) vl_disabled(s, p, d, v, 32, "Crd_Ack carries credits for a VL that the Init exchange did not enable");
    if (!accept || !peer) return;
    /* credits for the sender of the peer direction (§4.3.3.5 item 7, §4.6.1) */
    if ((peer->valid & V_CRD) && (!t || peer->armed)) {
        if (!peer->neg_ok) {
            peer->valid &= (uint8_t)~V_CRD;
        } else {
            if (t) peer->crd_started = true;
            for (unsigned v = 0; v < NVL; v++)
                if (num[v]) crd_add(s, p, peer, v, (int64_t)num[v] * peer->neg.ctrl_grain[v], t);
        }
    }
    uint64_t ackn = fv(&m->crd_ack_num, l);
    if (ackn && (peer->valid & V_RB)) {
        if (!peer->neg_ok) peer->valid &= (uint8_t)~V_RB;
        else rb_release(s, p, peer, (int64_t)ackn * peer->neg.ctrl_ack); /* §4.7.3.2.3 item 2 */
    }
}

/* ================================================================ control blocks (DL-19, DL-20, MG-07) */
static void bmc_block(mod_dll *m, ub_state *s, const ub_pkt *p, dl_dir *d, dl_dir *peer)
{
    unsigned type = (unsigned)fv(&m->bmc_type, p->dllcb);
    uint8_t dir = p->pi->dir;
    if (type > 1) {
        emit2(s, p, dir, UB_R_DL_MODE_CHG, -1, 0, type, 1, "Block_Mode_Chg with a reserved TYPE");
        return;
    }
    if (dir == UB_DIR_UNKNOWN) return; /* the handshake relates both directions (§10.6 g) */
    if (type == 0) { /* REQ */
        if (d->bmc == BMC_ACK) {
            emit2(s, p, dir, UB_R_DL_MODE_CHG, -1, d->bmc_frame, BMC_ACK, 0, "Block_Mode_Chg_REQ after the own ACK");
            return;
        }
        if (d->bmc == BMC_NONE) {
            d->bmc = BMC_REQ;
            d->bmc_rep = 0;
            d->bmc_frame = p->pi->frame;
            d->bmc_init = !peer || peer->bmc == BMC_NONE;
        }
        return;
    }
    /* ACK: own REQ sent, peer REQ seen, and the initiator acknowledges first (§4.3.3.8 steps 6-7) */
    const char *bad = NULL;
    if (d->bmc != BMC_REQ) bad = "Block_Mode_Chg_ACK without an own REQ before it";
    else if (peer && peer->bmc == BMC_NONE) bad = "Block_Mode_Chg_ACK before the peer's REQ";
    else if (peer && !d->bmc_init && peer->bmc != BMC_ACK) bad = "Block_Mode_Chg_ACK of the responder before the initiator's ACK";
    if (bad) emit2(s, p, dir, UB_R_DL_MODE_CHG, -1, peer ? peer->bmc_frame : 0, d->bmc, peer ? peer->bmc : 0, bad);
    d->bmc = BMC_ACK;
    d->bmc_frame = p->pi->frame;
    if (!peer || peer->bmc == BMC_ACK) { /* handshake complete: the link retrains in the new mode */
        d->bmc = BMC_NONE;
        if (peer) peer->bmc = BMC_NONE;
    }
}

/* §4.3.3.8: after REQ only Crd_Ack or Block_Mode_Chg; after ACK nothing until the mode switch */
static void bmc_restrict(ub_state *s, const ub_pkt *p, dl_dir *d, unsigned kind)
{
    if (d->bmc == BMC_NONE || kind == U_BMC || (d->bmc_rep & d->bmc)) return;
    if (d->bmc == BMC_REQ && kind == U_CRD) return;
    d->bmc_rep |= d->bmc;
    emit2(s, p, p->pi->dir, UB_R_DL_MODE_CHG, -1, d->bmc_frame, d->bmc, kind,
          d->bmc == BMC_REQ ? "block other than Crd_Ack / Block_Mode_Chg_ACK after Block_Mode_Chg_REQ"
                            : "block sent after the own Block_Mode_Chg_ACK, before the mode switch");
}

static bool one_hot_width(unsigned w) { return w == 1 || w == 2 || w == 4 || w == 8; }

static void lane_manage(mod_dll *m, ub_state *s, const ub_pkt *p)
{
    const ub_layer *l = p->dllcb;
    uint8_t dir = p->pi->dir;
    unsigned req = (unsigned)fv(&m->lm_req_id, l), rsp = (unsigned)fv(&m->lm_rsp_id, l);
    unsigned tlw = (unsigned)fv(&m->lm_tlw, l), rlw = (unsigned)fv(&m->lm_rlw, l);
    if (req != 0x5) emit2(s, p, dir, UB_R_DL_CTRL_BLOCKS, -1, 0, req, 0x5, "Lane_Manage REQ_ID is not 0x5");
    if (rsp != 0xA) emit2(s, p, dir, UB_R_DL_CTRL_BLOCKS, -1, 0, rsp, 0xA, "Lane_Manage RSP_ID is not 0xA");
    if (!one_hot_width(tlw)) emit2(s, p, dir, UB_R_DL_CTRL_BLOCKS, -1, 0, tlw, 0, "Lane_Manage TLW is not x1/x2/x4/x8");
    if (!one_hot_width(rlw)) emit2(s, p, dir, UB_R_DL_CTRL_BLOCKS, -1, 0, rlw, 0, "Lane_Manage RLW is not x1/x2/x4/x8");
}

/* Param_Exchg: only in DLL_Normal (§4.3.3.6); MG-07 (§10.4.4): a link-neighbour advertisement is 5 flits.
 * Criterion for "meant as an advertisement" when it is not 5 flits: at least 2 flits, the flit-0 word has
 * the §10.4.4 form {RSVD[15:0] = 0, port_idx} and a later word (a GUID word) is non-zero. */
static void param_exchg(mod_dll *m, ub_state *s, const ub_pkt *p, dl_dir *d, dl_dir *peer)
{
    uint8_t dir = p->pi->dir;
    if (d->armed && dir != UB_DIR_UNKNOWN) {
        bool normal = d->bu_sd && (!peer || !peer->armed || peer->bu_sd);
        if (!normal)
            emit2(s, p, dir, UB_R_DL_CTRL_BLOCKS, -1, d->bu_init, d->bu_sd ? 1 : 0, peer && peer->bu_sd ? 1 : 0,
                  "Param_Exchg before DLL_Normal (credit initialisation not complete)");
    }
    uint32_t flits = p->flits;
    if (flits == 5 || flits < 2) return;
    uint64_t w0 = fv(&m->pe_data[0], p->dllcb);
    bool guid = false;
    for (unsigned k = 1; k < 5 && k < flits; k++)
        if (fv(&m->pe_data[k], p->dllcb)) guid = true;
    if ((w0 >> 16) == 0 && guid)
        emit2(s, p, dir, UB_R_MG_NEIGHBOUR, -1, 0, flits, 5,
              "Param_Exchg with the link-neighbour advertisement layout but not 5 flits (values: flits, 5)");
}

/* ================================================================ module */
static size_t size_dll(const ub_state_cfg *c)
{
    (void)c;
    return sizeof(mod_dll);
}

static void fh(ub_state *s, ub_fh *h, const char *fmt, unsigned n)
{
    char name[64];
    snprintf(name, sizeof name, fmt, n);
    ub_st_fh_init(s, h, name);
}

static int init_dll(void *mp, ub_state *s)
{
    mod_dll *m = mp;
    m->s = s;
    if (ub_tbl_init(&m->links, "link directions", s->cfg.max_links ? s->cfg.max_links : 64, sizeof(dl_dir)) != 0)
        return -1;
    m->links.mod = m; /* no on_evict: counted, reported at the end (UB-ST-001) */
    ub_st_table(s, UB_TBL_LINKS, &m->links, "link directions evicted: their credit, retry and Init state restarted");
    ub_st_fh_init(s, &m->lph_crd, "ub.lph.crd");
    ub_st_fh_init(s, &m->lph_ack, "ub.lph.ack");
    ub_st_fh_init(s, &m->lph_crd_vl, "ub.lph.crd_vl");
    ub_st_fh_init(s, &m->lph_vl, "ub.lph.vl");
    ub_st_fh_init(s, &m->lbh_crd, "ub.lbh.crd");
    ub_st_fh_init(s, &m->lbh_ack, "ub.lbh.ack");
    ub_st_fh_init(s, &m->lbh_crd_vl, "ub.lbh.crd_vl");
    ub_st_fh_init(s, &m->crd_sd, "ub.crd_ack.sd");
    ub_st_fh_init(s, &m->crd_t, "ub.crd_ack.t");
    ub_st_fh_init(s, &m->crd_ack_num, "ub.crd_ack.ack_num");
    ub_st_fh_init(s, &m->in_feature, "ub.init_block.feature_id");
    ub_st_fh_init(s, &m->in_share, "ub.init_block.rxbuf_vl_share");
    ub_st_fh_init(s, &m->in_data_ack, "ub.init_block.data_ack_grain_size");
    ub_st_fh_init(s, &m->in_ctrl_ack, "ub.init_block.ctrl_ack_grain_size");
    ub_st_fh_init(s, &m->in_flow, "ub.init_block.flow_ctrl_size");
    ub_st_fh_init(s, &m->in_vl_enable, "ub.init_block.vl_enable");
    ub_st_fh_init(s, &m->in_depth, "ub.init_block.retry_buf_depth");
    ub_st_fh_init(s, &m->in_pmi, "ub.init_block.packet_min_interval");
    for (unsigned v = 0; v < NVL; v++) {
        fh(s, &m->crd_num[v], "ub.crd_ack.crd_num_vl%u", v);
        fh(s, &m->in_ctrl_grain[v], "ub.init_block.ctrl_credit_grain_size_vl%u", v);
        fh(s, &m->in_data_grain[v], "ub.init_block.data_credit_grain_size_vl%u", v);
    }
    ub_st_fh_init(s, &m->rq_rcvptr, "ub.retry_req.rcvptr");
    ub_st_fh_init(s, &m->rq_phy, "ub.retry_req.num_phy_reinit");
    ub_st_fh_init(s, &m->rq_retry, "ub.retry_req.num_retry");
    ub_st_fh_init(s, &m->ra_free, "ub.retry_ack.numfreebuf");
    ub_st_fh_init(s, &m->ra_rdptr, "ub.retry_ack.rdptr");
    ub_st_fh_init(s, &m->ra_wrptr, "ub.retry_ack.wrptr");
    ub_st_fh_init(s, &m->bmc_type, "ub.block_mode_chg.type");
    ub_st_fh_init(s, &m->lm_req_id, "ub.lane_manage.req_id");
    ub_st_fh_init(s, &m->lm_rsp_id, "ub.lane_manage.rsp_id");
    ub_st_fh_init(s, &m->lm_tlw, "ub.lane_manage.tlw");
    ub_st_fh_init(s, &m->lm_rlw, "ub.lane_manage.rlw");
    for (unsigned k = 0; k < 6; k++) fh(s, &m->pe_data[k], "ub.param_exchg.data%u", k);
    return 0;
}

static void link_key(ub_key *k, uint32_t ifindex, uint8_t dir)
{
    k->len = 0;
    ub_key_add(k, &ifindex, sizeof ifindex);
    ub_key_add(k, &dir, 1);
}

/* the entry of (ifindex, dir): find, or insert when `create` */
static dl_dir *link_get(mod_dll *m, uint32_t ifindex, uint8_t dir, bool create, bool *created)
{
    dl_cache *c = &m->cache[(ifindex * 3u + dir) % CACHE];
    *created = false;
    if (c->used && c->gen == m->gen && c->ifindex == ifindex && c->dir == dir) {
        ub_tbl_hdr(c->d)->last = ++m->links.tick;
        return c->d;
    }
    ub_key k;
    link_key(&k, ifindex, dir);
    dl_dir *d = create ? ub_tbl_get(&m->links, &k, created) : ub_tbl_find(&m->links, &k);
    if (*created) m->gen++; /* entries may have moved */
    if (d) *c = (dl_cache){ m->gen, ifindex, dir, 1, d };
    return d;
}

static void packet_dll(void *mp, ub_state *s, const ub_pkt *p)
{
    mod_dll *m = mp;
    if (p->v->entry == UB_ENTRY_PKT && p->dllcb && p->dllcb->hdr->id == UB_H_DLLCB_CRD_ACK && !p->malformed) {
        /* packet records (e.g. ns-3-UB CBFC): no flits, BCRC or bring-up, so credits are shown, not checked */
        uint64_t t = fv(&m->crd_t, p->dllcb);
        for (unsigned v = 0; v < NVL; v++) {
            uint64_t n = fv(&m->crd_num[v], p->dllcb);
            if (!n) continue;
            int64_t vals[3] = { v, (int64_t)n, (int64_t)t };
            char kt[16];
            snprintf(kt, sizeof kt, "VL%u", v);
            ub_st_emit(s, UB_R_DL_CREDIT_RETURN, -1, p->pi->frame, NULL, 0, vals, 3, "Crd_Ack returns credits", "VL", kt);
        }
        return;
    }
    /* flit-level units only (USER0 records, USER2 stream units decoded as flit records), §10.6 g */
    if (p->v->entry != UB_ENTRY_FLIT && p->v->entry != UB_ENTRY_STREAM) return;
    unsigned kind = classify(p);
    if (kind == U_NONE) return;
    uint8_t dir = p->pi->dir <= UB_DIR_OUT ? p->pi->dir : UB_DIR_UNKNOWN;
    bool created, c2;
    dl_dir *d = link_get(m, p->pi->ifindex, dir, true, &created);
    s->stats.links = m->links.count;
    s->stats.evicted_links = m->links.evicted;
    if (!d) return;
    if (created) d->dir = dir;
    dl_dir *peer = NULL;
    if (dir != UB_DIR_UNKNOWN) peer = link_get(m, p->pi->ifindex, other_dir(dir), false, &c2);
    uint32_t flits = p->flits;
    uint64_t pos = d->pos;
    d->pos += flits; /* DL-18: every block counts, NOBs and Null Blocks included */
    if (kind == U_NULL) { /* a set is 32 consecutive copies: a Null Block ends a short one (DL-15) */
        if (d->set_open) set_finish(s, p, d, peer);
        return;
    }
    bool first = d->units == 0;
    d->units++;
    bool bad = p->crc_bad, mal = p->malformed && dl_malformed(p->v), trust = !bad && !mal;

    if (kind == U_RIDLE || kind == U_RREQ || kind == U_RACK) {
        retry_block(m, s, p, d, peer, kind, trust, first);
        return;
    }
    if (d->set_open) set_finish(s, p, d, peer);
    d->blocks++;

    /* sender side: a replay or a new block (Init: a new bring-up first, its block is the first backed up) */
    bool replaying = d->replay && (d->valid & V_RB);
    if (kind == U_INIT && !replaying && trust) init_block(m, s, p, d, peer);
    bool replayed = false, applied = false;
    if (backed_up(kind)) replayed = rb_block(s, p, d, flits, trust, &applied);
    if (bad) { /* B discards from here to the Retry_Ack_Set (§4.3.4.1 item 2, §10.6 d) */
        d->discard = true;
        d->err_seen = true;
        return;
    }
    bool accept = !d->discard && !applied, orig = !replayed;
    if (accept && backed_up(kind) && (d->valid & V_RCV) && d->init.depth)
        d->rcv = (d->rcv + flits) % d->init.depth; /* §4.7.3.2.2 RcvPtr, R-45 */
    if (mal) return;
    if (orig && dir != UB_DIR_UNKNOWN) bmc_restrict(s, p, d, kind);
    switch (kind) {
    case U_DLLDP: dlldp(m, s, p, d, peer, orig, accept, pos); break;
    case U_CRD: crd_ack(m, s, p, d, peer, orig, accept); break;
    case U_BMC: if (orig) bmc_block(m, s, p, d, peer); break;
    case U_LM: if (orig) lane_manage(m, s, p); break;
    case U_PE: if (orig) param_exchg(m, s, p, d, peer); break;
    default: break;
    }
}

static void fini_dll(void *mp)
{
    mod_dll *m = mp;
    ub_tbl_free(&m->links);
}

/* End of capture: retry sets cut by the capture end are silent (§10.6 i); an unanswered Retry_Req_Set,
 * an unfinished replay or handshake cannot be judged without what follows. */
const ub_st_module ub_st_mod_dll = { "dll", UB_ST_DLL, size_dll, init_dll, packet_dll, NULL, fini_dll, 0 };

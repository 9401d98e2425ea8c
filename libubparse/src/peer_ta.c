/* Reference responder: transaction target (§7.4) over a sparse, bounded memory segment.
 *   Write, Write_with_immediate, Write_with_notify, Writeback -> payload stored, TAACK
 *   Write_with_be, Writeback_with_be                      -> enabled bytes stored, TAACK
 *   Read                                                  -> Read_response with the stored bytes,
 *                                                            TP-MTU packets under RTP (§7.4.2.2)
 *   Atomic_*                                              -> Atomic_response with the original data
 *                                                            (none for Atomic_store, TA-10)
 *   Send, Send_with_immediate                             -> TAACK
 *   Prefetch_tgt                                          -> nothing
 * Which requests get a response follows §10.6 a / TA-04: none under UTP for Writes/Sends (UNO),
 * none for No_TAACK = 1, the last packet of a multi-packet operation answers it, RTP Writes/Sends
 * only while cfg.taack_rtp (ROI/ROT) and not in ROL mode (the TPACK carries it then). */
#include "peer_internal.h"

#include <stdio.h>

enum { TA_TAACK = 0x11, TA_READ_RSP = 0x12, TA_ATOMIC_RSP = 0x13 };
enum { RSPST_OK = 0, RSPST_COMPLETER_ERR = 3, RSPST_TA_RESPONSE = 5 };
enum { INFO_UNSUPPORTED = 1, INFO_REMOTE_ABORT = 2 };
#define MAX_READ (1u << 20) /* Read lengths above this are answered with Unsupported Request */

/* ================================================================ memory */
int peer_mem_init(ub_peer *p)
{
    for (uint32_t i = 0; i < p->page_cap; i++) p->page[i].used = 0;
    return 0;
}

static bool in_segment(const ub_peer *p, uint64_t addr, uint64_t n)
{
    if (!p->cfg.seg_strict) return true;
    uint64_t b = p->cfg.seg_base, e = b + p->cfg.seg_size;
    return addr >= b && addr + n >= addr && addr + n <= e;
}

static uint8_t *page_get(ub_peer *p, uint32_t tok, uint64_t pno, bool create)
{
    uint64_t h = (pno * 0x9E3779B97F4A7C15ull) ^ ((uint64_t)tok * 0xC2B2AE3D27D4EB4Full);
    h ^= h >> 31;
    uint32_t nb = p->page_cap / 4, b = (uint32_t)(h % nb) * 4;
    peer_page *victim = NULL;
    p->tick++;
    for (uint32_t i = 0; i < 4; i++) {
        peer_page *g = &p->page[b + i];
        if (g->used && g->tokenid == tok && g->pno == pno) { g->last = p->tick; return g->data; }
        if (!g->used) { if (!victim || victim->used) victim = g; }
        else if (!victim || (victim->used && g->last < victim->last)) victim = g;
    }
    if (!create) return NULL;
    if (victim->used) p->st.pages_evicted++;
    victim->used = 1;
    victim->tokenid = tok;
    victim->pno = pno;
    victim->last = p->tick;
    memset(victim->data, 0, PEER_PAGE);
    return victim->data;
}

static void mem_rw(ub_peer *p, uint32_t tok, uint64_t addr, uint8_t *buf, const uint8_t *in, const uint8_t *mask, uint32_t n)
{
    uint32_t done = 0;
    while (done < n) {
        uint64_t a = addr + done, pno = a / PEER_PAGE;
        uint32_t off = (uint32_t)(a % PEER_PAGE), k = PEER_PAGE - off;
        if (k > n - done) k = n - done;
        uint8_t *pg = page_get(p, tok, pno, in != NULL);
        if (in) {
            for (uint32_t i = 0; i < k; i++)
                if (!mask || mask[done + i]) pg[off + i] = in[done + i];
        } else if (pg) {
            memcpy(buf + done, pg + off, k);
        } else {
            memset(buf + done, 0, k);
        }
        done += k;
    }
}

int ub_peer_mem_read(ub_peer *p, uint32_t tokenid, uint64_t addr, uint8_t *out, uint32_t n)
{
    if (!in_segment(p, addr, n)) return -1;
    mem_rw(p, tokenid, addr, out, NULL, NULL, n);
    return 0;
}

int ub_peer_mem_write(ub_peer *p, uint32_t tokenid, uint64_t addr, const uint8_t *in, uint32_t n)
{
    if (!in_segment(p, addr, n)) return -1;
    mem_rw(p, tokenid, addr, NULL, in, NULL, n);
    return 0;
}

/* ================================================================ atomics (§7.4.2.3, Table 7-16) */
/* little-endian byte arrays of n bytes */
static void le_add(uint8_t *a, const uint8_t *b, uint32_t n, bool sub)
{
    unsigned carry = sub ? 1 : 0;
    for (uint32_t i = 0; i < n; i++) {
        unsigned v = a[i] + (sub ? (uint8_t)~b[i] : b[i]) + carry;
        a[i] = (uint8_t)v;
        carry = v >> 8;
    }
}
static int le_cmp(const uint8_t *a, const uint8_t *b, uint32_t n, bool sgn)
{
    if (sgn && ((a[n - 1] ^ b[n - 1]) & 0x80)) return (a[n - 1] & 0x80) ? -1 : 1;
    for (uint32_t i = n; i-- > 0;)
        if (a[i] != b[i]) return a[i] < b[i] ? -1 : 1;
    return 0;
}
static void rev(uint8_t *d, const uint8_t *s, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++) d[i] = s[n - 1 - i];
}

/* new memory value (in `mem`, memory order) for an atomic op; returns false for an unknown op */
static bool atomic_apply(unsigned op, unsigned subop, uint8_t *mem, const uint8_t *o1, const uint8_t *o2, uint32_t n, bool be)
{
    uint8_t m[64], a[64], c[64];
    if (be) { rev(m, mem, n); rev(a, o1, n); rev(c, o2, n); }
    else { memcpy(m, mem, n); memcpy(a, o1, n); memcpy(c, o2, n); }
    if (op == 0x09 || op == 0x0A) { /* Atomic_store / Atomic_load: sub-operation in UDETAH[23:20] */
        switch (subop) {
        case 0: op = 0x0B; break;                                      /* ADD */
        case 1: for (uint32_t i = 0; i < n; i++) m[i] &= (uint8_t)~a[i]; goto done; /* CLR: bit clear (I-14: the names, as ARM LDCLR) */
        case 2: op = 0x0F; break;                                      /* EOR: exclusive or (I-14) */
        case 3: op = 0x0E; break;                                      /* SET */
        case 4: if (le_cmp(a, m, n, true) > 0) memcpy(m, a, n); goto done;  /* SMAX */
        case 5: if (le_cmp(a, m, n, true) < 0) memcpy(m, a, n); goto done;  /* SMIN */
        case 6: if (le_cmp(a, m, n, false) > 0) memcpy(m, a, n); goto done; /* UMAX */
        case 7: if (le_cmp(a, m, n, false) < 0) memcpy(m, a, n); goto done; /* UMIN */
        default: return false;
        }
    }
    switch (op) {
    case 0x07: if (!memcmp(m, a, n)) memcpy(m, c, n); break; /* compare (Operand1), swap in Operand2 */
    case 0x08: memcpy(m, a, n); break;
    case 0x0B: le_add(m, a, n, false); break;
    case 0x0C: le_add(m, a, n, true); break;
    case 0x0D: for (uint32_t i = 0; i < n; i++) m[i] &= a[i]; break;
    case 0x0E: for (uint32_t i = 0; i < n; i++) m[i] |= a[i]; break;
    case 0x0F: for (uint32_t i = 0; i < n; i++) m[i] ^= a[i]; break;
    default: return false;
    }
done:
    if (be) rev(mem, m, n);
    else memcpy(mem, m, n);
    return true;
}

/* ================================================================ requests */
static bool is_write(unsigned op) { return op == 0x03 || op == 0x04 || op == 0x05 || op == 0x14 || op == 0x17 || op == 0x18; }
static bool is_atomic(unsigned op) { return op >= 0x07 && op <= 0x0F; }

static bool layer_bytes(const ub_layer *l, const uint8_t **d, uint32_t *n)
{
    if (!l) { *d = NULL; *n = 0; return false; }
    *d = l->data;
    *n = l->len;
    return true;
}

/* access length of the request: MAETAH.Length (full) or 64 B << Length (compact, R-24) */
static uint64_t req_len(ub_peer *p, const peer_req *r)
{
    uint64_t v = ub_fh_get(&p->f_ma_len, r->maetah);
    return r->maetah && r->maetah->hdr->id == UB_H_MAETAH_C ? 64ull << v : v;
}

int peer_ta_rol_status(ub_peer *p, const peer_req *r, unsigned *rspinfo)
{
    if (!r->btah || r->mgmtetah || !r->last) return -1;
    unsigned op = (unsigned)ub_fh_get(&p->f_taop, r->btah);
    if (!is_write(op) && op > 0x01) return -1;
    uint64_t addr = ub_fh_get(&p->f_ma_addr, r->maetah);
    const uint8_t *d;
    uint32_t n;
    layer_bytes(r->payload, &d, &n);
    bool ok = !r->maetah || in_segment(p, addr, n);
    *rspinfo = ok ? 2 : 1; /* 00010 normal TAACK; 00001 abnormal, unrecoverable (Table 6-2) */
    return RSPST_TA_RESPONSE;
}

typedef struct ta_rsp {
    unsigned op;          /* response TAOpcode */
    unsigned rspst, rspinfo;
    uint32_t plen;        /* payload bytes (Read: from memory, streamed per packet) */
    const uint8_t *pdata; /* Atomic: the original data; NULL for Read (read per packet) */
    uint32_t tok;
    uint64_t addr;
} ta_rsp;

static void send_response(ub_peer *p, peer_req *r, const ta_rsp *t, uint32_t faults)
{
    bool compact = r->btah->hdr->id == UB_H_BTAH_C;
    uint16_t tassn = (uint16_t)ub_fh_get(&p->f_tassn, r->btah);
    if (faults & (1u << UB_PF_WRONG_TASSN)) {
        int64_t delta = 1;
        for (unsigned i = 0; i < p->nfaults; i++)
            if (p->fault[i].kind == UB_PF_WRONG_TASSN) { delta = p->fault[i].delta; break; }
        tassn = (uint16_t)(tassn + delta);
    }
    unsigned op = t->op;
    if (faults & (1u << UB_PF_WRONG_OPCODE)) op = op == TA_READ_RSP ? TA_TAACK : TA_READ_RSP;
    bool rtp = r->tp == UB_TP_RTP;
    uint32_t per = rtp && t->op == TA_READ_RSP ? p->cfg.mtu : t->plen ? t->plen : 1;
    uint32_t npk = t->plen ? (t->plen + per - 1) / per : 1;
    uint32_t tpmsn = rtp ? peer_tx_msn(p, r) : 0;
    if (rtp && (faults & (1u << UB_PF_WRONG_PSN)) && r->ch) {
        int64_t delta = 1;
        for (unsigned i = 0; i < p->nfaults; i++)
            if (p->fault[i].kind == UB_PF_WRONG_PSN && (p->fault[i].on & UB_PT_RSP)) { delta = p->fault[i].delta; break; }
        (void)peer_tx_psn(p, r); /* make sure the channel's sender is initialised */
        r->ch->tx_psn = peer_psn_add(r->ch->tx_psn, delta - 1);
    }
    uint64_t ofst0 = r->ofstetah ? ub_fh_get(&p->f_ofst, r->ofstetah) : 0;
    for (uint32_t k = 0; k < npk; k++) {
        uint32_t off = k * per, n = t->plen - off < per ? t->plen - off : per;
        if (!t->plen) n = 0;
        uint32_t psn = rtp ? peer_tx_psn(p, r) : 0;
        if (peer_begin(p, r, faults, true, psn, k + 1 == npk, tpmsn) < 0) return;
        ub_builder *b = p->b;
        int e = 0;
        if (compact) {
            e |= ub_builder_header(b, "atah_c");
            e |= ub_builder_set_u64(b, "taopcode", op);
            e |= ub_builder_set_u64(b, "status", t->rspst ? 1 : 0);
            e |= ub_builder_set_u64(b, "ini_tassn", tassn);
        } else {
            e |= ub_builder_header(b, "atah");
            e |= ub_builder_set_u64(b, "taopcode", op);
            e |= ub_builder_set_u64(b, "ini_tassn", tassn);
            e |= ub_builder_set_u64(b, "rspst", t->rspst);
            e |= ub_builder_set_u64(b, "rspinfo", t->rspinfo);
            e |= ub_builder_set_u64(b, "ini_rc_type", ub_fh_get(&p->f_rctype, r->btah));
            e |= ub_builder_set_u64(b, "ini_rc_id", ub_fh_get(&p->f_rcid, r->btah));
        }
        /* §6.5 Table 7-4: TAIDETAH/OFSTETAH iff in the request, same values (OFST: this packet's KB) */
        if (r->taidetah && (t->op == TA_READ_RSP || t->op == TA_ATOMIC_RSP)) {
            e |= ub_builder_header(b, "taidetah");
            e |= ub_builder_set_u64(b, "taid", ub_fh_get(&p->f_taid, r->taidetah));
        }
        if (r->ofstetah && t->op == TA_READ_RSP) {
            e |= ub_builder_header(b, "ofstetah");
            e |= ub_builder_set_u64(b, "offset", (ofst0 + off / 1024) & 0xFFFFFF);
        }
        if (n) {
            const uint8_t *d = t->pdata ? t->pdata + off : p->dbuf;
            if (!t->pdata) mem_rw(p, t->tok, t->addr + off, p->dbuf, NULL, NULL, n);
            e |= ub_builder_header(b, "payload");
            e |= ub_builder_set_bytes(b, "data", d, n);
        }
        if (e) { p->st.build_errors++; peer_set_err(p, ub_builder_error(b)); return; }
        long len = peer_finish(p);
        if (len < 0) return;
        peer_emit(p, r, UB_PEER_OUT_RSP, faults, p->obuf, (uint32_t)len, psn);
        /* kept for TPNAK / TPSACK even when dropped: a lost packet is resent like any other */
        peer_sent_data(p, r, p->obuf, (uint32_t)len, psn, faults & ~(1u << UB_PF_DROP));
    }
}

void peer_ta_request(ub_peer *p, peer_req *r)
{
    unsigned op = (unsigned)ub_fh_get(&p->f_taop, r->btah);
    bool compact = r->btah->hdr->id == UB_H_BTAH_C;
    p->st.requests++;
    uint32_t tok = (uint32_t)ub_fh_get(&p->f_ma_tok, r->maetah);
    uint64_t addr = ub_fh_get(&p->f_ma_addr, r->maetah);
    const uint8_t *pd;
    uint32_t pn;
    layer_bytes(r->payload, &pd, &pn);
    ta_rsp t = { TA_TAACK, RSPST_OK, 0, 0, NULL, tok, addr };
    bool need;
    static uint8_t none[1];
    (void)none;
    if (is_write(op)) {
        p->st.writes++;
        if (!r->maetah) return;
        if (!in_segment(p, addr, pn)) {
            t.rspst = RSPST_COMPLETER_ERR;
            t.rspinfo = INFO_REMOTE_ABORT;
        } else if ((op == 0x14 || op == 0x18) && r->beetah) {
            /* BE[n] = 1 -> payload byte n valid; BE[0] is bit 0 of the last BEETAH byte (§7.2.10) */
            uint8_t mask[1024];
            uint32_t w = r->beetah->len * 8;
            for (uint32_t i = 0; i < pn && i < sizeof mask; i++)
                mask[i] = i >= w ? 1 : (r->beetah->data[r->beetah->len - 1 - i / 8] >> (i % 8)) & 1;
            if (pn <= sizeof mask) mem_rw(p, tok, addr, NULL, pd, mask, pn);
        } else if (pn) {
            mem_rw(p, tok, addr, NULL, pd, NULL, pn);
        }
        if (op == 0x05 && r->ntfetah && !t.rspst) { /* Notify_Data (8 bytes) at the notify address */
            uint64_t nd = ub_fh_get(&p->f_ntf_data, r->ntfetah);
            uint8_t b8[8];
            for (int i = 0; i < 8; i++) b8[i] = (uint8_t)(nd >> (56 - 8 * i));
            mem_rw(p, (uint32_t)ub_fh_get(&p->f_ntf_tok, r->ntfetah), ub_fh_get(&p->f_ntf_addr, r->ntfetah), NULL, b8, NULL, 8);
        }
    } else if (op <= 0x01) {
        p->st.sends++;
    } else if (op == 0x06) {
        p->st.reads++;
        uint64_t l = req_len(p, r);
        t.op = TA_READ_RSP;
        if (!in_segment(p, addr, l)) { t.rspst = RSPST_COMPLETER_ERR; t.rspinfo = INFO_REMOTE_ABORT; }
        else if (l > MAX_READ || (r->tp != UB_TP_RTP && l > UB_MAX_NETPKT - 512)) { t.rspst = RSPST_COMPLETER_ERR; t.rspinfo = INFO_UNSUPPORTED; }
        else t.plen = (uint32_t)l;
    } else if (is_atomic(op)) {
        p->st.atomics++;
        t.op = TA_ATOMIC_RSP;
        uint64_t l = req_len(p, r);
        bool okl = l == 1 || l == 2 || l == 4 || l == 8 || l == 16 || l == 32 || l == 64;
        if (!okl || (addr & (l - 1)) || !r->ops[0] || !r->ops[1] || r->ops[0]->len != l || r->ops[1]->len != l) {
            t.rspst = RSPST_COMPLETER_ERR;
            t.rspinfo = INFO_UNSUPPORTED;
        } else if (!in_segment(p, addr, l)) {
            t.rspst = RSPST_COMPLETER_ERR;
            t.rspinfo = INFO_REMOTE_ABORT;
        } else {
            uint8_t *orig = p->dbuf, cur[64];
            mem_rw(p, tok, addr, orig, NULL, NULL, (uint32_t)l);
            memcpy(cur, orig, l);
            unsigned sub = r->udetah ? (unsigned)ub_fh_get(&p->f_subop, r->udetah) : 0;
            if (!atomic_apply(op, sub, cur, r->ops[0]->data, r->ops[1]->data, (uint32_t)l, p->cfg.atomic_be)) {
                t.rspst = RSPST_COMPLETER_ERR;
                t.rspinfo = INFO_UNSUPPORTED;
            } else {
                mem_rw(p, tok, addr, NULL, cur, NULL, (uint32_t)l);
                if (op != 0x09) { t.plen = (uint32_t)l; t.pdata = orig; } /* TA-10: no data for Atomic_store */
            }
        }
    } else if (op == 0x15) {
        return; /* Prefetch_tgt: no response (TA-04) */
    } else {
        return; /* reserved: the decoder reports it */
    }
    if (t.rspst) p->st.errors_returned++;
    /* §10.6 a / TA-04: which requests are answered */
    bool data_rsp = t.op != TA_TAACK;
    if (data_rsp) need = true;
    else if (!r->last) need = false;                                   /* answered with its last packet */
    else if (r->tp == UB_TP_UTP) need = false;                         /* UNO */
    else if (r->tp == UB_TP_RTP) need = p->cfg.taack_rtp && !p->cfg.rol; /* ROL: the TPACK carried it */
    else need = compact || ub_fh_get(&p->f_notaack, r->btah) == 0;     /* CTP / TP bypass: unless No_TAACK */
    if (!need) return;
    uint32_t applicable = (1u << UB_PF_DROP) | (1u << UB_PF_DELAY) | (1u << UB_PF_DUPLICATE) | (1u << UB_PF_REORDER) |
                          (1u << UB_PF_WRONG_TASSN) | (1u << UB_PF_WRONG_OPCODE) | (1u << UB_PF_NO_RESPONSE) |
                          (r->icrc > 0 ? 1u << UB_PF_CORRUPT_ICRC : 0) |
                          (r->entry == UB_ENTRY_FLIT ? 1u << UB_PF_CORRUPT_BCRC : 0) |
                          (r->tp == UB_TP_RTP ? 1u << UB_PF_WRONG_PSN : 0);
    uint32_t faults = p->nfaults ? peer_faults(p, r, UB_PT_RSP, applicable) : 0;
    if (faults & (1u << UB_PF_NO_RESPONSE)) return;
    send_response(p, r, &t, faults);
    if (faults & (1u << UB_PF_DUPLICATE)) /* a second response: under RTP a new TP packet (new PSN) */
        send_response(p, r, &t, faults & ~((1u << UB_PF_DUPLICATE) | (1u << UB_PF_WRONG_PSN)));
}

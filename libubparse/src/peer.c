/* Reference responder (include/ubparse/peer.h): life cycle, fault knobs, emission, dispatch, the
 * RTP receiver (§6.4) and the peer's own RTP sender. Transactions: peer_ta.c; management and
 * enumeration: peer_mg.c; response framing: peer_build.c. */
#include "peer_internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

/* RTPH TPOpcode[6:0] (Table 6-2) and RSPST (digest §4.5) */
enum { OP_DATA = 0x1, OP_ACK = 0x2, OP_ACK_CC = 0x3, OP_SACK = 0x5, OP_SACK_CC = 0x6, OP_CNP = 0x8 };
enum { RSP_OK = 0, RSP_COMPLETER_ERR = 3 };
enum { ACK_PLAIN, ACK_NAK, ACK_SACK };
#define PSN_HALF 0x800000u /* §6.4.1: 8M */

void ub_peer_cfg_default(ub_peer_cfg *c)
{
    memset(c, 0, sizeof *c);
    c->loss = UB_PEER_LOSS_GOBACKN;
    c->cc = UB_PEER_CC_NONE;
    c->ack_every = 1;
    c->ooo_window = 256;
    c->mtu = 1024;
    c->taack_rtp = true;
    c->max_pages = 256;
    c->seg_size = 1ull << 20;
    /* a GUID for Port_info.Remote_GUID: vendor 0x1234, device 0x5678 (canonical order) */
    static const uint8_t rg[16] = { 0x12, 0x34, 0x56, 0x78, 0x11, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x01 };
    memcpy(c->remote_guid, rg, 16);
    c->nports = 4;
    c->ports_per_slice = 2;
    c->ports_up = 0x1;
    c->sup_mtu = 2;
    c->cur_mtu = 1;
    c->cfg_dwords = 1024;
    c->token_id = 0x42;
    c->token_value = 0x5eed;
    c->max_channels = 4096;
    c->max_rtx = 64;
    c->max_held = 64;
    c->hold_ns = 10000000ull;
    c->seed = 1;
}

/* ================================================================ small helpers */
uint32_t peer_psn_add(uint32_t a, int64_t d) { return (uint32_t)((int64_t)a + d) & PEER_PSN_MASK; }
int32_t peer_psn_diff(uint32_t a, uint32_t b)
{
    uint32_t d = (a - b) & PEER_PSN_MASK;
    return d >= PSN_HALF ? (int32_t)d - (int32_t)(PEER_PSN_MASK + 1) : (int32_t)d;
}

uint64_t peer_key_hash(const peer_key *k)
{
    uint64_t h = 0xcbf29ce484222325ull;
    for (unsigned i = 0; i < k->len; i++) { h ^= k->b[i]; h *= 0x100000001b3ull; }
    return h ^ (h >> 29);
}

static uint64_t prng_next(uint64_t *s) /* xorshift64* */
{
    uint64_t x = *s;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    *s = x;
    return x * 0x2545F4914F6CDD1Dull;
}

const char *peer_set_err(ub_peer *p, const char *what)
{
    snprintf(p->err, sizeof p->err, "%s", what);
    return p->err;
}

const char *ub_peer_last_error(const ub_peer *p) { return p->err; }

/* ================================================================ faults */
static const char *const fault_names[UB_PF__COUNT] = {
    [UB_PF_NONE] = "none", [UB_PF_DROP] = "drop", [UB_PF_DELAY] = "delay", [UB_PF_DUPLICATE] = "duplicate",
    [UB_PF_REORDER] = "reorder", [UB_PF_CORRUPT_ICRC] = "corrupt-icrc", [UB_PF_CORRUPT_BCRC] = "corrupt-bcrc",
    [UB_PF_WRONG_TASSN] = "wrong-tassn", [UB_PF_WRONG_MSN] = "wrong-msn", [UB_PF_WRONG_PSN] = "wrong-psn",
    [UB_PF_WRONG_OPCODE] = "wrong-opcode", [UB_PF_NO_RESPONSE] = "no-response",
};

const char *ub_peer_fault_name(unsigned kind) { return kind < UB_PF__COUNT ? fault_names[kind] : "?"; }

int ub_peer_fault_kind_by_name(const char *name)
{
    for (unsigned k = 1; k < UB_PF__COUNT; k++)
        if (strcmp(name, fault_names[k]) == 0) return (int)k;
    return -1;
}

/* targets a kind may use, and its default */
static unsigned fault_allowed(unsigned k)
{
    switch (k) {
    case UB_PF_DROP: return UB_PT_REQ | UB_PT_ACK | UB_PT_RSP;
    case UB_PF_DELAY: case UB_PF_DUPLICATE: case UB_PF_REORDER: case UB_PF_CORRUPT_ICRC: case UB_PF_CORRUPT_BCRC:
        return UB_PT_ACK | UB_PT_RSP;
    case UB_PF_WRONG_PSN: return UB_PT_ACK | UB_PT_RSP;
    default: return UB_PT_RSP;
    }
}
static unsigned fault_default_on(unsigned k)
{
    switch (k) {
    case UB_PF_REORDER: case UB_PF_CORRUPT_ICRC: case UB_PF_CORRUPT_BCRC: return UB_PT_ACK | UB_PT_RSP;
    case UB_PF_WRONG_PSN: return UB_PT_ACK;
    default: return UB_PT_RSP;
    }
}

static int parse_dur(const char *s, uint64_t *ns)
{
    char *e;
    errno = 0;
    double v = strtod(s, &e);
    if (e == s || errno || v < 0) return -1;
    double mul = 1e6; /* ms */
    if (!strcmp(e, "ns")) mul = 1;
    else if (!strcmp(e, "us")) mul = 1e3;
    else if (!strcmp(e, "ms") || !*e) mul = 1e6;
    else if (!strcmp(e, "s")) mul = 1e9;
    else return -1;
    if (v * mul > 1e18) return -1;
    *ns = (uint64_t)(v * mul + 0.5);
    return 0;
}

static int parse_u64s(const char *s, uint64_t *u)
{
    char *e;
    errno = 0;
    if (!*s || *s == '-') return -1;
    *u = strtoull(s, &e, 0);
    return *e || errno ? -1 : 0;
}

int ub_peer_fault_parse(const char *spec, ub_peer_fault *f, ub_filter **filter_out, char *err, size_t errlen)
{
    memset(f, 0, sizeof *f);
    if (filter_out) *filter_out = NULL;
    char buf[1024];
    if (!spec || strlen(spec) >= sizeof buf) { snprintf(err, errlen, "fault specification too long"); return -1; }
    strcpy(buf, spec);
    char *rest = strchr(buf, ':');
    if (rest) *rest++ = '\0';
    int k = ub_peer_fault_kind_by_name(buf);
    if (k < 0) {
        snprintf(err, errlen, "unknown fault '%s' (drop, delay, duplicate, reorder, corrupt-icrc, corrupt-bcrc, "
                              "wrong-tassn, wrong-msn, wrong-psn, wrong-opcode, no-response)", buf);
        return -1;
    }
    f->kind = (uint8_t)k;
    f->delay_ns = 1000000ull;
    f->delta = 1;
    while (rest && *rest) {
        char *kv = rest;
        if (strncmp(kv, "filter=", 7) == 0) { /* takes the rest of the text */
            ub_filter *flt = ub_filter_compile_live(kv + 7, err, errlen);
            if (!flt) return -1;
            f->filter = flt;
            if (filter_out) *filter_out = flt;
            break;
        }
        char *comma = strchr(kv, ',');
        if (comma) *comma = '\0';
        rest = comma ? comma + 1 : NULL;
        char *eq = strchr(kv, '=');
        if (!eq) { snprintf(err, errlen, "fault option '%s': expected key=value", kv); goto bad; }
        *eq = '\0';
        const char *v = eq + 1;
        uint64_t u;
        if (!strcmp(kv, "on")) {
            unsigned on = 0;
            char tmp[64];
            snprintf(tmp, sizeof tmp, "%s", v);
            for (char *save = NULL, *t = strtok_r(tmp, "+|", &save); t; t = strtok_r(NULL, "+|", &save)) {
                if (!strcmp(t, "req")) on |= UB_PT_REQ;
                else if (!strcmp(t, "ack")) on |= UB_PT_ACK;
                else if (!strcmp(t, "rsp")) on |= UB_PT_RSP;
                else if (!strcmp(t, "all")) on |= fault_allowed((unsigned)k);
                else { snprintf(err, errlen, "on=%s: req, ack, rsp or all", t); goto bad; }
            }
            f->on = (uint8_t)on;
        } else if (!strcmp(kv, "rate")) {
            char *e;
            errno = 0;
            double r = strtod(v, &e);
            if (e == v || *e || errno || !(r >= 0 && r <= 1)) { snprintf(err, errlen, "rate=%s: a probability 0..1", v); goto bad; }
            f->rate = r;
        } else if (!strcmp(kv, "nth") || !strcmp(kv, "every") || !strcmp(kv, "limit")) {
            if (parse_u64s(v, &u) < 0 || (u == 0 && strcmp(kv, "limit"))) { snprintf(err, errlen, "%s=%s: a positive number", kv, v); goto bad; }
            if (!strcmp(kv, "nth")) f->nth = u;
            else if (!strcmp(kv, "every")) f->every = u;
            else f->limit = u;
        } else if (!strcmp(kv, "delay")) {
            if (parse_dur(v, &f->delay_ns) < 0) { snprintf(err, errlen, "delay=%s: a duration (e.g. 5ms, 200us)", v); goto bad; }
        } else if (!strcmp(kv, "delta")) {
            char *e;
            errno = 0;
            long long d = strtoll(v, &e, 0);
            if (e == v || *e || errno || d == 0) { snprintf(err, errlen, "delta=%s: a non-zero integer", v); goto bad; }
            f->delta = d;
        } else {
            snprintf(err, errlen, "unknown fault option '%s' (on, rate, nth, every, limit, delay, delta, filter)", kv);
            goto bad;
        }
    }
    if (f->on && (f->on & ~fault_allowed((unsigned)k))) {
        snprintf(err, errlen, "%s does not apply to %s", fault_names[k], (f->on & UB_PT_REQ) ? "requests (on=req)" : "acks (on=ack)");
        goto bad;
    }
    return 0;
bad:
    if (f->filter) ub_filter_free((ub_filter *)f->filter);
    f->filter = NULL;
    if (filter_out) *filter_out = NULL;
    return -1;
}

int ub_peer_add_fault(ub_peer *p, const ub_peer_fault *f, char *err, size_t errlen)
{
    if (p->nfaults >= PEER_MAX_FAULTS) { snprintf(err, errlen, "too many faults (%d)", PEER_MAX_FAULTS); return -1; }
    if (f->kind == UB_PF_NONE || f->kind >= UB_PF__COUNT) { snprintf(err, errlen, "bad fault kind"); return -1; }
    ub_peer_fault c = *f;
    if (!c.on) c.on = (uint8_t)fault_default_on(c.kind);
    if (c.on & ~fault_allowed(c.kind)) { snprintf(err, errlen, "%s does not apply to that target", fault_names[c.kind]); return -1; }
    if (c.rate < 0 || c.rate > 1) { snprintf(err, errlen, "rate out of 0..1"); return -1; }
    if (!c.delta) c.delta = 1;
    p->fault[p->nfaults++] = c;
    return 0;
}

uint32_t peer_faults(ub_peer *p, const peer_req *r, unsigned cls, uint32_t applicable)
{
    uint32_t fired = 0;
    for (unsigned i = 0; i < p->nfaults; i++) {
        const ub_peer_fault *f = &p->fault[i];
        if (!(f->on & cls) || !(applicable & (1u << f->kind))) continue;
        if (f->filter && !ub_filter_match(f->filter, r->v)) continue;
        uint64_t n = ++p->fault_count[i];
        bool fire;
        if (f->nth || f->every || f->rate > 0) {
            fire = (f->nth && n == f->nth) || (f->every && n % f->every == 0);
            if (!fire && f->rate > 0) fire = (double)(prng_next(&p->prng) >> 11) * 0x1.0p-53 < f->rate;
        } else {
            fire = true;
        }
        if (fire && f->limit && p->fault_fired[i] >= f->limit) fire = false;
        if (!fire) continue;
        p->fault_fired[i]++;
        p->st.faults[f->kind]++;
        fired |= 1u << f->kind;
    }
    return fired;
}

static const ub_peer_fault *fault_of(const ub_peer *p, unsigned kind, unsigned cls)
{
    for (unsigned i = 0; i < p->nfaults; i++)
        if (p->fault[i].kind == kind && (p->fault[i].on & cls)) return &p->fault[i];
    return NULL;
}

/* ================================================================ emission */
static peer_slot *slot_free(peer_slot *t, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++)
        if (!t[i].used) return &t[i];
    return NULL;
}

static void call_out(ub_peer *p, const peer_slot *s, uint64_t seq, uint64_t delay, uint64_t flow)
{
    ub_peer_out o = { s->data, s->len, s->entry, s->kind, s->faults, delay, seq, flow };
    p->out(p->octx, &o);
}

/* release held packets: class cls (0 = every class), only those held before `before` when nonzero */
static int release_held(ub_peer *p, unsigned cls, uint64_t now, bool by_time, uint64_t seq)
{
    int n = 0;
    for (;;) { /* oldest first */
        peer_slot *best = NULL;
        for (uint32_t i = 0; i < p->cfg.max_held; i++) {
            peer_slot *s = &p->held[i];
            if (!s->used || (cls && s->cls != cls)) continue;
            if (by_time && s->ts + p->cfg.hold_ns > now) continue;
            if (!best || s->seq < best->seq || (s->seq == best->seq && s->psn < best->psn)) best = s;
        }
        if (!best) return n;
        call_out(p, best, seq, 0, best->flow);
        best->used = 0;
        n++;
    }
}

void peer_emit(ub_peer *p, const peer_req *r, unsigned kind, uint32_t faults, const uint8_t *d, uint32_t len, uint32_t psn)
{
    unsigned cls = kind == UB_PEER_OUT_ACK ? UB_PT_ACK : UB_PT_RSP;
    if (faults & (1u << UB_PF_DROP)) return;
    if (kind == UB_PEER_OUT_ACK) p->st.acks++;
    else p->st.responses += kind == UB_PEER_OUT_RSP;
    peer_slot tmp = { 0 };
    tmp.data = (uint8_t *)d;
    tmp.len = len;
    tmp.entry = (uint8_t)r->entry;
    tmp.kind = (uint8_t)kind;
    tmp.faults = faults;
    uint64_t delay = 0;
    if (faults & (1u << UB_PF_DELAY)) {
        const ub_peer_fault *f = fault_of(p, UB_PF_DELAY, cls);
        delay = f ? f->delay_ns : 0;
    }
    if (faults & (1u << UB_PF_REORDER)) {
        peer_slot *s = slot_free(p->held, p->cfg.max_held);
        if (s && len <= PEER_SLOT) {
            uint8_t *keep = s->data;
            *s = tmp;
            s->data = keep;
            memcpy(s->data, d, len);
            s->used = 1;
            s->cls = (uint8_t)cls;
            s->ts = r->pi ? r->pi->ts_ns : 0;
            s->seq = r->seq;
            s->flow = r->pi ? r->pi->flow : 0;
            s->psn = psn;
            return;
        }
        /* no room: sent in order (the fault still counted) */
    }
    uint64_t flow = r->pi ? r->pi->flow : 0;
    call_out(p, &tmp, r->seq, delay, flow);
    if (kind == UB_PEER_OUT_ACK && (faults & (1u << UB_PF_DUPLICATE))) call_out(p, &tmp, r->seq, delay, flow);
    /* held packets of this class go out after it (reordered) */
    if (!(faults & (1u << UB_PF_REORDER))) release_held(p, cls, 0, false, r->seq);
}

int ub_peer_tick(ub_peer *p, uint64_t now_ns) { return release_held(p, 0, now_ns, true, 0); }
int ub_peer_flush(ub_peer *p) { return release_held(p, 0, 0, false, 0); }

uint64_t ub_peer_next_timer(const ub_peer *p)
{
    uint64_t t = 0;
    for (uint32_t i = 0; i < p->cfg.max_held; i++)
        if (p->held[i].used && (!t || p->held[i].ts + p->cfg.hold_ns < t)) t = p->held[i].ts + p->cfg.hold_ns;
    return t;
}

/* ================================================================ life cycle */
static void handles(ub_peer *p)
{
    static const struct { size_t off; const char *name; } H[] = {
#define HF(f, n) { offsetof(ub_peer, f), n }
        HF(f_last, "ub.rtph.last"), HF(f_tpop, "ub.rtph.tpopcode"), HF(f_stpn, "ub.rtph.srctpn"),
        HF(f_dtpn, "ub.rtph.dsttpn"), HF(f_a, "ub.rtph.a"), HF(f_psn, "ub.rtph.psn"), HF(f_rspst, "ub.rtph.rspst"),
        HF(f_rspinfo, "ub.rtph.rspinfo"), HF(f_tpmsn, "ub.rtph.tpmsn"), HF(f_ctpop, "ub.ctph.tpopcode"),
        HF(f_utpop, "ub.utph.tpopcode"), HF(f_maxrcv, "ub.saetph.maxrcvpsn"), HF(f_bitmap, "ub.saetph.bitmap"),
        HF(f_cci_c, "ub.cci.c"), HF(f_cci_i, "ub.cci.i"), HF(f_cci_loc, "ub.cci.loc"), HF(f_cci_hint, "ub.cci.hint"),
        HF(f_cci_fecn, "ub.cci.fecn"), HF(f_taop, "ub.btah.taopcode"), HF(f_tassn, "ub.btah.ini_tassn"),
        HF(f_notaack, "ub.btah.no_taack"), HF(f_rctype, "ub.btah.ini_rc_type"), HF(f_rcid, "ub.btah.ini_rc_id"),
        HF(f_ma_addr, "ub.maetah.address"), HF(f_ma_len, "ub.maetah.length"), HF(f_ma_tok, "ub.maetah.tokenid"),
        HF(f_ud, "ub.udetah.ud"), HF(f_subop, "ub.udetah.atomic_subop"), HF(f_taid, "ub.taidetah.taid"),
        HF(f_ofst, "ub.ofstetah.offset"), HF(f_ntf_addr, "ub.ntfetah.address"), HF(f_ntf_tok, "ub.ntfetah.notify_tokenid"),
        HF(f_ntf_data, "ub.ntfetah.notify_data"), HF(f_be, "ub.beetah.be"), HF(f_mg_code, "ub.mgmtetah.code"),
        HF(f_mg_sub, "ub.mgmtetah.sub_code"), HF(f_mg_rsp, "ub.mgmtetah.rsp"), HF(f_mg_len, "ub.mgmtetah.pdu_length"),
        HF(f_upi, "ub.upih.upi"), HF(f_seid, "ub.eidh.seid"), HF(f_deid, "ub.eidh.deid"),
        HF(f_sh_type, "ub.scanhdr.type"), HF(f_sh_hops, "ub.scanhdr.hops"), HF(f_sh_r, "ub.scanhdr.r"),
        HF(f_sh_rpath, "ub.scanhdr.return_path"), HF(f_sc_ver, "ub.scan.version"), HF(f_sc_cmd, "ub.scan.cmd"),
        HF(f_sc_opcode, "ub.scan.opcode"), HF(f_sc_b3, "ub.scan.slice_id"), HF(f_sc_msgq, "ub.scan.msgq_id"),
        HF(f_sc_msn, "ub.scan.msn"), HF(f_sc_guid, "ub.scan.guid"), HF(f_sc_port_cfg, "ub.scan.port_idx"),
        HF(f_sc_port_qry, "ub.scan.port_idx"), HF(f_sc_cna, "ub.scan.cna"), HF(f_cfg_ent, "ub.cfgmsg.entity_idx"),
        HF(f_cfg_be, "ub.cfgmsg.byte_en"), HF(f_cfg_addr, "ub.cfgmsg.request_address"), HF(f_cfg_data, "ub.cfgmsg.data"),
        HF(f_tok_en, "ub.tokchk.check_en"), HF(f_lnq_d, "ub.lnq.d"), HF(f_lnq_num, "ub.lnq.port_num"),
        HF(f_scna, "ub.nth.scna"), HF(f_dcna, "ub.nth.dcna"),
#undef HF
    };
    for (size_t i = 0; i < sizeof H / sizeof H[0]; i++) ub_fh_init((ub_fh *)((uint8_t *)p + H[i].off), H[i].name);
    /* IPv4 and IPv6 source / destination in one handle each */
    ub_fh v6;
    ub_fh_init(&p->f_ipsrc, "ub.ipv4.src");
    ub_fh_init(&v6, "ub.ipv6.src");
    for (unsigned i = 0; i < v6.n && p->f_ipsrc.n < UB_FH_MAX; i++) { p->f_ipsrc.h[p->f_ipsrc.n] = v6.h[i]; p->f_ipsrc.f[p->f_ipsrc.n++] = v6.f[i]; }
    ub_fh_init(&p->f_ipdst, "ub.ipv4.dst");
    ub_fh_init(&v6, "ub.ipv6.dst");
    for (unsigned i = 0; i < v6.n && p->f_ipdst.n < UB_FH_MAX; i++) { p->f_ipdst.h[p->f_ipdst.n] = v6.h[i]; p->f_ipdst.f[p->f_ipdst.n++] = v6.f[i]; }
}

ub_peer *ub_peer_new(const ub_peer_cfg *cfg, ub_peer_out_fn out, void *ctx, char *err, size_t errlen)
{
    if (errlen) err[0] = '\0';
    if (!out) { snprintf(err, errlen, "no output callback"); return NULL; }
    ub_peer *p = calloc(1, sizeof *p);
    if (!p) { snprintf(err, errlen, "out of memory"); return NULL; }
    if (cfg) p->cfg = *cfg;
    else ub_peer_cfg_default(&p->cfg);
    ub_peer_cfg *c = &p->cfg;
    if (c->opts) p->opts = *c->opts;
    else ub_opts_default(&p->opts);
    c->opts = &p->opts;
    if (!c->ack_every) c->ack_every = 1;
    if (c->ooo_window < 64) c->ooo_window = 64;
    if (c->ooo_window > PEER_SACK_MAX) c->ooo_window = PEER_SACK_MAX;
    if (c->mtu < 64) c->mtu = 64;
    if (c->mtu > UB_MAX_NETPKT - 512) c->mtu = UB_MAX_NETPKT - 512;
    if (!c->max_channels) c->max_channels = 4096;
    if (!c->max_pages) c->max_pages = 256;
    if (!c->cfg_dwords) c->cfg_dwords = 1024;
    if (c->cfg_dwords > (1u << 22)) c->cfg_dwords = 1u << 22;
    if (!c->max_held) c->max_held = 1;
    if (!c->max_rtx) c->max_rtx = 1;
    if (!c->hold_ns) c->hold_ns = 10000000ull;
    if (c->nports > 1024) c->nports = 1024;
    if (!c->ports_per_slice) c->ports_per_slice = 2;
    if (c->seg_strict && (!c->seg_size || c->seg_base + c->seg_size < c->seg_base)) {
        snprintf(err, errlen, "strict segment: size 0 or wraps");
        free(p);
        return NULL;
    }
    p->out = out;
    p->octx = ctx;
    p->prng = c->seed ? c->seed : 1;
    for (int i = 0; i < 4; i++) (void)prng_next(&p->prng);
    /* tables: 4-way buckets */
    p->chan_cap = (c->max_channels + 3) & ~3u;
    p->chan = calloc(p->chan_cap, sizeof *p->chan);
    p->page_cap = (c->max_pages + 3) & ~3u;
    p->page = calloc(p->page_cap, sizeof *p->page);
    p->page_mem = calloc(p->page_cap, PEER_PAGE);
    p->held = calloc(c->max_held, sizeof *p->held);
    p->rtx = calloc(c->max_rtx, sizeof *p->rtx);
    p->slot_mem = malloc((size_t)(c->max_held + c->max_rtx) * PEER_SLOT);
    p->cfgspace = calloc(2 * (size_t)c->cfg_dwords, sizeof *p->cfgspace);
    p->port_cna = calloc(c->nports ? c->nports : 1, sizeof *p->port_cna);
    p->b = ub_builder_new(&p->opts);
    if (!p->chan || !p->page || !p->page_mem || !p->held || !p->rtx || !p->slot_mem || !p->cfgspace || !p->port_cna || !p->b) {
        snprintf(err, errlen, "out of memory");
        ub_peer_free(p);
        return NULL;
    }
    for (uint32_t i = 0; i < p->page_cap; i++) p->page[i].data = p->page_mem + (size_t)i * PEER_PAGE;
    for (uint32_t i = 0; i < c->max_held; i++) p->held[i].data = p->slot_mem + (size_t)i * PEER_SLOT;
    for (uint32_t i = 0; i < c->max_rtx; i++) p->rtx[i].data = p->slot_mem + (size_t)(c->max_held + i) * PEER_SLOT;
    peer_mem_init(p);
    handles(p);
    return p;
}

void ub_peer_free(ub_peer *p)
{
    if (!p) return;
    ub_builder_free(p->b);
    free(p->chan);
    free(p->page);
    free(p->page_mem);
    free(p->held);
    free(p->rtx);
    free(p->slot_mem);
    free(p->cfgspace);
    free(p->port_cna);
    free(p);
}

void ub_peer_get_stats(const ub_peer *p, ub_peer_stats *st)
{
    *st = p->st;
    uint64_t ch = 0, pg = 0;
    for (uint32_t i = 0; i < p->chan_cap; i++) ch += p->chan[i].used;
    for (uint32_t i = 0; i < p->page_cap; i++) pg += p->page[i].used;
    st->channels = ch;
    st->pages = pg;
}

/* ================================================================ channels */
static peer_chan *chan_get(ub_peer *p, const peer_key *k)
{
    uint64_t h = peer_key_hash(k);
    uint32_t nb = p->chan_cap / 4, b = (uint32_t)(h % nb) * 4;
    peer_chan *victim = NULL;
    p->tick++;
    for (uint32_t i = 0; i < 4; i++) {
        peer_chan *c = &p->chan[b + i];
        if (c->used && c->key.len == k->len && !memcmp(c->key.b, k->b, k->len)) { c->last = p->tick; return c; }
        if (!c->used) { if (!victim || victim->used) victim = c; }
        else if (!victim || (victim->used && c->last < victim->last)) victim = c;
    }
    if (victim->used) p->st.channels_evicted++;
    memset(victim, 0, sizeof *victim);
    victim->used = 1;
    victim->key = *k;
    victim->last = p->tick;
    return victim;
}

static void key_add(peer_key *k, const void *d, size_t n)
{
    if (k->len + n > sizeof k->b) n = sizeof k->b - k->len;
    memcpy(k->b + k->len, d, n);
    k->len = (uint8_t)(k->len + n);
}

static bool fh_val(const ub_fh *fh, const ub_layer *l, ub_val *v)
{
    if (!l) return false;
    for (unsigned i = 0; i < fh->n; i++)
        if (fh->h[i] == l->hdr) return ub_field_value(l, fh->f[i], v) == 0;
    return false;
}

/* addresses of the request (NTH CNAs or IP addresses) into the key, source first */
static void key_addrs(ub_peer *p, const peer_req *r, peer_key *k)
{
    const ub_layer *l = r->nth ? r->nth : r->ip;
    const ub_fh *fs = r->nth ? &p->f_scna : &p->f_ipsrc, *fd = r->nth ? &p->f_dcna : &p->f_ipdst;
    ub_val a, b;
    if (!l) return;
    if (fh_val(fs, l, &a)) {
        key_add(k, "S", 1);
        if (a.nbytes) key_add(k, a.bytes, a.nbytes);
        else key_add(k, &a.u, sizeof a.u);
    }
    if (fh_val(fd, l, &b)) {
        key_add(k, "D", 1);
        if (b.nbytes) key_add(k, b.bytes, b.nbytes);
        else key_add(k, &b.u, sizeof b.u);
    }
}

static peer_chan *req_chan(ub_peer *p, const peer_req *r, uint32_t stpn, uint32_t dtpn)
{
    peer_key k;
    k.len = 0;
    uint8_t e = (uint8_t)r->entry;
    key_add(&k, &e, 1);
    key_add(&k, &r->pi->flow, sizeof r->pi->flow);
    key_addrs(p, r, &k);
    uint8_t t[6] = { (uint8_t)(stpn >> 16), (uint8_t)(stpn >> 8), (uint8_t)stpn,
                     (uint8_t)(dtpn >> 16), (uint8_t)(dtpn >> 8), (uint8_t)dtpn };
    key_add(&k, t, sizeof t);
    return chan_get(p, &k);
}

uint32_t peer_tx_psn(ub_peer *p, peer_req *r)
{
    peer_chan *c = r->ch;
    if (!c) return 0;
    if (!c->tx_valid) {
        c->tx_valid = 1;
        c->tx_psn = p->cfg.tx_psn_fixed ? (p->cfg.tx_psn & PEER_PSN_MASK) : (uint32_t)ub_fh_get(&p->f_psn, r->rtph);
        c->tx_acked = peer_psn_add(c->tx_psn, -1);
    }
    uint32_t v = c->tx_psn;
    c->tx_psn = peer_psn_add(c->tx_psn, 1);
    return v;
}

uint32_t peer_tx_msn(ub_peer *p, peer_req *r)
{
    (void)p;
    peer_chan *c = r->ch;
    if (!c) return 0;
    /* one TPMSN per operation, +1 per operation; the first mirrors the requester's */
    c->tx_msn = c->msn_valid ? peer_psn_add(c->tx_msn, 1) : r->tpmsn;
    c->msn_valid = 1;
    return c->tx_msn;
}

/* ================================================================ transport acks */
static int sack_size_code(uint32_t span, uint32_t *bits)
{
    static const uint32_t n[5] = { 64, 128, 256, 512, 1024 };
    for (int i = 0; i < 5; i++)
        if (span < n[i]) { *bits = n[i]; return i; }
    *bits = 1024;
    return 4;
}

static void set_bit_r18(uint8_t *b, uint32_t nbytes, uint32_t i, unsigned order)
{
    uint32_t nb = nbytes * 8;
    if (i >= nb) return;
    if (order == 0) b[(nb - 1 - i) / 8] |= (uint8_t)(1u << (i % 8)); /* R-18 default: BitMap[0] = last byte bit 0 */
    else b[i / 8] |= (uint8_t)(0x80u >> (i % 8));
}

static bool sack_any(const peer_chan *c)
{
    for (unsigned i = 0; i < sizeof c->sack; i++)
        if (c->sack[i]) return true;
    return false;
}

/* send a TPACK / TPNAK / TPSACK (-CC) for r's channel; rol: RSPST/RSPINFO to carry (-1 none) */
static void send_ack(ub_peer *p, peer_req *r, int type, int rol_st, unsigned rol_info)
{
    peer_chan *c = r->ch;
    uint32_t applicable = (1u << UB_PF_DROP) | (1u << UB_PF_DELAY) | (1u << UB_PF_DUPLICATE) | (1u << UB_PF_REORDER) |
                          (1u << UB_PF_WRONG_PSN) | (r->icrc > 0 ? 1u << UB_PF_CORRUPT_ICRC : 0) |
                          (r->entry == UB_ENTRY_FLIT ? 1u << UB_PF_CORRUPT_BCRC : 0);
    uint32_t faults = peer_faults(p, r, UB_PT_ACK, applicable);
    uint32_t psn = type == ACK_NAK ? c->epsn : peer_psn_add(c->epsn, -1);
    if (faults & (1u << UB_PF_WRONG_PSN)) {
        const ub_peer_fault *f = fault_of(p, UB_PF_WRONG_PSN, UB_PT_ACK);
        psn = peer_psn_add(psn, f ? f->delta : 1);
    }
    bool cc = p->cfg.cc != UB_PEER_CC_NONE;
    unsigned op = type == ACK_SACK ? (cc ? OP_SACK_CC : OP_SACK) : (cc ? OP_ACK_CC : OP_ACK);
    if (peer_begin(p, r, faults, false, 0, false, 0) < 0) return;
    ub_builder *b = p->b;
    int e = ub_builder_header(b, "rtph");
    e |= ub_builder_set_u64(b, "tpopcode", op);
    e |= ub_builder_set_u64(b, "srctpn", ub_fh_get(&p->f_dtpn, r->rtph));
    e |= ub_builder_set_u64(b, "dsttpn", ub_fh_get(&p->f_stpn, r->rtph));
    e |= ub_builder_set_u64(b, "psn", psn);
    e |= ub_builder_set_u64(b, "tpmsn", r->tpmsn);
    if (type == ACK_NAK) e |= ub_builder_set_u64(b, "rspst", RSP_COMPLETER_ERR); /* RSPINFO 0: PSN Error */
    else if (rol_st >= 0 && type == ACK_PLAIN) {
        e |= ub_builder_set_u64(b, "rspst", (uint64_t)rol_st);
        e |= ub_builder_set_u64(b, "rspinfo", rol_info);
    }
    if (cc) {
        if (p->cfg.cc == UB_PEER_CC_LDCP) {
            e |= ub_builder_header(b, "cetph_ldcp");
            e |= ub_builder_set_u64(b, "ack_seq", c->ack_seq);
            e |= ub_builder_set_u64(b, "ce_seq", c->ce_seq);
        } else {
            e |= ub_builder_header(b, "cetph_caqm");
            e |= ub_builder_set_u64(b, "ack_seq", c->ack_seq);
            const ub_layer *cci = NULL;
            for (unsigned i = 0; i < r->v->nlayers && i < UB_MAX_LAYERS; i++)
                if (r->v->layer[i].hdr->id == UB_H_CCI_CAQM) { cci = &r->v->layer[i]; break; }
            e |= ub_builder_set_u64(b, "loc", ub_fh_get(&p->f_cci_loc, cci));
            e |= ub_builder_set_u64(b, "i", ub_fh_get(&p->f_cci_i, cci));
            e |= ub_builder_set_u64(b, "c", c->caqm_c > 255 ? 255 : c->caqm_c);
            e |= ub_builder_set_u64(b, "hint", ub_fh_get(&p->f_cci_hint, cci));
            c->caqm_c = 0;
        }
    }
    if (type == ACK_SACK) {
        /* §6.2.3: RTPH.PSN = EPSN − 1 = BitMap[0] (set), MaxRcvPSN, bit i <-> RTPH.PSN + i */
        uint32_t base = peer_psn_add(c->epsn, -1), span = (uint32_t)peer_psn_diff(c->maxrcv, base), nbits;
        int code = sack_size_code(span, &nbits);
        uint8_t body[4 + PEER_SACK_MAX / 8];
        memset(body, 0, sizeof body);
        uint32_t nbytes = nbits / 8;
        unsigned order = p->opts.bitmap_order;
        set_bit_r18(body + 4, nbytes, 0, order);
        for (uint32_t i = 2; i < nbits; i++) /* bitmap bit i <-> PSN EPSN − 1 + i <-> sack bit i − 2 */
            if (c->sack[(i - 2) / 8] >> ((i - 2) % 8) & 1) set_bit_r18(body + 4, nbytes, i, order);
        e |= ub_builder_header(b, "saetph");
        e |= ub_builder_set_bytes(b, "data", body, 4 + nbytes);
        e |= ub_builder_set_u64(b, "bitmapsize", (uint64_t)code);
        e |= ub_builder_set_u64(b, "maxrcvpsn", c->maxrcv);
    }
    if (e) { p->st.build_errors++; peer_set_err(p, ub_builder_error(b)); return; }
    long n = peer_finish(p);
    if (n < 0) return;
    if (type == ACK_NAK) p->st.naks++;
    else if (type == ACK_SACK) p->st.sacks++;
    c->unacked = 0;
    peer_emit(p, r, UB_PEER_OUT_ACK, faults, p->obuf, (uint32_t)n, psn);
}

/* ================================================================ the peer's own data: store and resend */
static void rtx_store(ub_peer *p, const peer_req *r, const uint8_t *d, uint32_t len, uint32_t psn, uint32_t faults)
{
    if (!r->ch || len > PEER_SLOT) return;
    uint64_t h = peer_key_hash(&r->ch->key);
    peer_slot *s = slot_free(p->rtx, p->cfg.max_rtx);
    if (!s) { /* overwrite the oldest */
        s = &p->rtx[0];
        for (uint32_t i = 1; i < p->cfg.max_rtx; i++)
            if (p->rtx[i].seq < s->seq) s = &p->rtx[i];
    }
    uint8_t *keep = s->data;
    memset(s, 0, sizeof *s);
    s->data = keep;
    memcpy(s->data, d, len);
    s->used = 1;
    s->len = len;
    s->psn = psn;
    s->chan = h;
    s->entry = (uint8_t)r->entry;
    s->kind = UB_PEER_OUT_RTX;
    s->faults = faults;
    s->seq = ++p->tick;
    s->flow = r->pi ? r->pi->flow : 0;
}

/* a response data packet of ours went out: keep it for TPNAK / TPSACK */
void peer_sent_data(ub_peer *p, const peer_req *r, const uint8_t *d, uint32_t len, uint32_t psn, uint32_t faults)
{
    if (r->tp == UB_TP_RTP) rtx_store(p, r, d, len, psn, faults);
}

/* acks the requester sends for the peer's data (same channel key as its data) */
static void own_ack(ub_peer *p, peer_req *r, unsigned op)
{
    peer_chan *c = r->ch;
    p->st.acks_in++;
    if (!c->tx_valid) return;
    uint32_t psn = (uint32_t)ub_fh_get(&p->f_psn, r->rtph);
    unsigned rspst = (unsigned)ub_fh_get(&p->f_rspst, r->rtph), rspinfo = (unsigned)ub_fh_get(&p->f_rspinfo, r->rtph);
    bool sack = op == OP_SACK || op == OP_SACK_CC;
    bool nak = !sack && rspst == RSP_COMPLETER_ERR && rspinfo == 0;
    uint32_t cum = nak ? peer_psn_add(psn, -1) : psn;
    if (peer_psn_diff(cum, c->tx_acked) > 0 && peer_psn_diff(cum, c->tx_psn) < 0) c->tx_acked = cum;
    uint64_t h = peer_key_hash(&c->key);
    /* resend: TPNAK(P) -> every stored PSN >= P; TPSACK -> PSNs in (PSN, MaxRcvPSN] whose bit is 0 */
    ub_val bm;
    uint32_t maxrcv = 0;
    bool have_bm = false;
    if (sack && r->saetph) {
        for (unsigned i = 0; i < p->f_bitmap.n; i++)
            if (p->f_bitmap.h[i] == r->saetph->hdr) have_bm = ub_field_value(r->saetph, p->f_bitmap.f[i], &bm) == 0;
        maxrcv = (uint32_t)ub_fh_get(&p->f_maxrcv, r->saetph);
    }
    for (;;) {
        peer_slot *best = NULL;
        for (uint32_t i = 0; i < p->cfg.max_rtx; i++) {
            peer_slot *s = &p->rtx[i];
            if (!s->used || s->chan != h) continue;
            int32_t d = peer_psn_diff(s->psn, cum);
            if (d <= 0) { s->used = 0; continue; } /* acknowledged */
            bool want = false;
            if (nak) want = !(s->cls & 1);
            else if (sack && have_bm && peer_psn_diff(s->psn, maxrcv) <= 0 && !(s->cls & 1)) {
                uint32_t nbits = bm.nbytes * 8, bi = (uint32_t)d;
                bool got = false;
                if (bi < nbits)
                    got = p->opts.bitmap_order == 0 ? (bm.bytes[(nbits - 1 - bi) / 8] >> (bi % 8)) & 1
                                                    : (bm.bytes[bi / 8] >> (7 - bi % 8)) & 1;
                want = !got;
            }
            if (want && (!best || peer_psn_diff(s->psn, best->psn) < 0)) best = s;
        }
        if (!best) break;
        best->cls |= 1; /* resent in this round */
        call_out(p, best, r->seq, 0, best->flow);
        p->st.retransmitted++;
    }
    for (uint32_t i = 0; i < p->cfg.max_rtx; i++) p->rtx[i].cls &= (uint8_t)~1u;
}

/* ================================================================ dispatch */
static void parse_req(ub_peer *p, peer_req *r)
{
    const ub_view *v = r->v;
    unsigned n = v->nlayers < UB_MAX_LAYERS ? v->nlayers : UB_MAX_LAYERS;
    r->first_tp = -1;
    r->icrc = -1;
    r->last = true;
    int nops = 0;
    for (unsigned i = 0; i < n; i++) {
        const ub_layer *l = &v->layer[i];
        if (l->flags & UB_LF_OVERLAY) continue;
        switch (l->hdr->id) {
        case UB_H_LPH: if (!r->lph) r->lph = l; break;
        case UB_H_NTH16: case UB_H_NTH24: if (!r->nth) r->nth = l; break;
        case UB_H_NTHIP: if (!r->nthip) r->nthip = l; break;
        case UB_H_IPV4: case UB_H_IPV6: if (!r->ip) r->ip = l; break;
        case UB_H_UDP: if (!r->udp) r->udp = l; break;
        case UB_H_ICRC: r->icrc = l->variant == 2 ? 2 : 1; break;
        case UB_H_RTPH: if (!r->rtph) { r->rtph = l; r->tp = UB_TP_RTP; if (r->first_tp < 0) r->first_tp = (int)i; } break;
        case UB_H_UTPH: if (!r->utph) { r->utph = l; r->tp = UB_TP_UTP; if (r->first_tp < 0) r->first_tp = (int)i; } break;
        case UB_H_CTPH: if (!r->ctph) { r->ctph = l; r->tp = UB_TP_CTP; if (r->first_tp < 0) r->first_tp = (int)i; } break;
        case UB_H_CETPH_LDCP: case UB_H_CETPH_CAQM: case UB_H_CETPH_CNP: r->cetph = l; break;
        case UB_H_SAETPH: r->saetph = l; break;
        case UB_H_UPIH16: case UB_H_UPIH32: if (!r->upih) r->upih = l; if (r->first_tp < 0) r->first_tp = (int)i; break;
        case UB_H_EIDH40: case UB_H_EIDH256: if (!r->eidh) r->eidh = l; break;
        case UB_H_CIPH: r->ciph = l; break;
        case UB_H_BTAH: case UB_H_BTAH_C: case UB_H_BTAH_ALT: if (!r->btah) r->btah = l; if (r->first_tp < 0) r->first_tp = (int)i; break;
        case UB_H_ATAH: case UB_H_ATAH_C: if (!r->atah) r->atah = l; if (r->first_tp < 0) r->first_tp = (int)i; break;
        case UB_H_UDETAH: r->udetah = l; break;
        case UB_H_MAETAH: case UB_H_MAETAH_C: r->maetah = l; break;
        case UB_H_TAIDETAH: r->taidetah = l; break;
        case UB_H_OFSTETAH: r->ofstetah = l; break;
        case UB_H_NTFETAH: r->ntfetah = l; break;
        case UB_H_BEETAH: r->beetah = l; break;
        case UB_H_MTETAH: r->mtetah = l; break;
        case UB_H_MGMTETAH: r->mgmtetah = l; break;
        case UB_H_PAYLOAD: if (!r->payload) r->payload = l; break;
        case UB_H_ATOMIC_OPS: if (nops < 2) r->ops[nops++] = l; break;
        case UB_H_SCANHDR: r->scanhdr = l; break;
        case UB_H_SCAN_RPATH: r->scan_rpath = l; break;
        case UB_H_SCANPDU_REQ: case UB_H_SCANPDU_RSP: r->scanpdu = l; break;
        case UB_H_SCAN_CFGCNA_REQ: case UB_H_SCAN_QRYCNA_REQ: case UB_H_SCAN_QRYCNA_RSP: r->scan_sub = l; break;
        default:
            if (l->hdr->id >= UB_H_MG_ERROR && l->hdr->id <= UB_H_MG_OPAQUE && !r->mgpdu) r->mgpdu = l;
            break;
        }
    }
    if (r->rtph) {
        r->last = ub_fh_get(&p->f_last, r->rtph) != 0;
        r->tpmsn = (uint32_t)ub_fh_get(&p->f_tpmsn, r->rtph);
    } else if (r->utph) {
        r->last = ub_fh_get(&p->f_last, r->utph) != 0;
    }
}

/* the transaction / management content of a delivered packet */
static void deliver(ub_peer *p, peer_req *r)
{
    if (r->scanhdr && r->scanpdu && r->scanpdu->hdr->id == UB_H_SCANPDU_REQ) { peer_enum_request(p, r); return; }
    if (r->btah && r->mgmtetah) { peer_mg_request(p, r); return; }
    if (r->btah) { peer_ta_request(p, r); return; }
}

static uint32_t seqs(uint32_t bytes) { return (bytes + 1) / 2; } /* §6.2.2: 1 Sequence = 2 bytes */

static void rtp_data(ub_peer *p, peer_req *r)
{
    peer_chan *c = r->ch;
    uint32_t psn = (uint32_t)ub_fh_get(&p->f_psn, r->rtph);
    bool areq = ub_fh_get(&p->f_a, r->rtph) != 0;
    p->st.rtp_data++;
    if (!c->rx_valid) { /* the initial PSN was agreed at channel set-up: take the first one seen */
        c->rx_valid = 1;
        c->epsn = psn;
        c->maxrcv = peer_psn_add(psn, -1);
    }
    int32_t d = peer_psn_diff(psn, c->epsn);
    unsigned rol_info = 0;
    if (d == 0) {
        /* in order (TP-04): deliver, advance EPSN over what the bitmap already holds */
        p->st.rtp_in_order++;
        if (p->cfg.cc) {
            uint32_t tl = r->rtph ? (uint32_t)(r->v->pkt_len ? r->v->pkt_len : r->v->rec_len) : 0;
            c->ack_seq += seqs(tl);
            const ub_layer *cci = NULL;
            for (unsigned i = 0; i < r->v->nlayers && i < UB_MAX_LAYERS; i++)
                if (r->v->layer[i].hdr->id == UB_H_CCI_FECN || r->v->layer[i].hdr->id == UB_H_CCI_FECN_RTT ||
                    r->v->layer[i].hdr->id == UB_H_CCI_CAQM) { cci = &r->v->layer[i]; break; }
            if (cci && cci->hdr->id != UB_H_CCI_CAQM && (ub_fh_get(&p->f_cci_fecn, cci) & 1)) c->ce_seq += seqs(tl);
            if (cci && cci->hdr->id == UB_H_CCI_CAQM && ub_fh_get(&p->f_cci_c, cci)) c->caqm_c++;
        }
        int rol = p->cfg.rol ? peer_ta_rol_status(p, r, &rol_info) : -1;
        c->epsn = peer_psn_add(c->epsn, 1);
        if (peer_psn_diff(psn, c->maxrcv) > 0) c->maxrcv = psn;
        c->nak_sent = 0;
        /* shift the out-of-order bitmap (bit 0 = old EPSN + 1 = new EPSN) */
        for (;;) {
            bool next = c->sack[0] & 1;
            for (unsigned i = 0; i < sizeof c->sack; i++)
                c->sack[i] = (uint8_t)(c->sack[i] >> 1 | (i + 1 < sizeof c->sack ? c->sack[i + 1] << 7 : 0));
            if (!next) break;
            c->epsn = peer_psn_add(c->epsn, 1);
        }
        c->unacked++;
        bool ack = areq || r->last || c->unacked >= p->cfg.ack_every || rol >= 0;
        if (ack) send_ack(p, r, sack_any(c) ? ACK_SACK : ACK_PLAIN, rol, rol_info);
        deliver(p, r);
        return;
    }
    if (d > 0 && d <= (int32_t)p->cfg.ooo_window) {
        p->st.rtp_out_of_order++;
        if (p->cfg.loss == UB_PEER_LOSS_GOBACKN) {
            /* §6.4.2.2: one TPNAK(EPSN) per loss episode; the packet is dropped */
            if (!c->nak_sent) {
                c->nak_sent = 1;
                send_ack(p, r, ACK_NAK, -1, 0);
            }
            return;
        }
        /* §6.4.2.3: accepted into the bitmap, answered with a TPSACK */
        uint32_t bit = (uint32_t)d - 1;
        bool dup = bit < PEER_SACK_MAX && (c->sack[bit / 8] >> (bit % 8) & 1);
        if (bit < PEER_SACK_MAX) c->sack[bit / 8] |= (uint8_t)(1u << (bit % 8));
        if (peer_psn_diff(psn, c->maxrcv) > 0) c->maxrcv = psn;
        send_ack(p, r, ACK_SACK, -1, 0);
        if (!dup) deliver(p, r);
        return;
    }
    if (d < 0 && d >= -(int32_t)PSN_HALF) {
        /* TP-05: a duplicate is answered with TPACK(EPSN − 1); not delivered again */
        p->st.rtp_duplicate++;
        send_ack(p, r, sack_any(c) ? ACK_SACK : ACK_PLAIN, -1, 0);
        return;
    }
    p->st.rtp_invalid++; /* outside every window: dropped without an ack (TP-04) */
}

int ub_peer_packet(ub_peer *p, const ub_view *v, const ub_peer_pktinfo *pi)
{
    static const ub_peer_pktinfo none = { 0, 0 };
    peer_req r;
    memset(&r, 0, sizeof r);
    r.v = v;
    r.pi = pi ? pi : &none;
    r.seq = ++p->seq;
    r.entry = (ub_entry)v->entry;
    r.cfg = v->cfg;
    p->st.packets++;
    if (v->kind == UB_KIND_DLLCB || v->nlayers == 0) { p->st.ignored++; return UB_PEER_IGNORED; }
    if (ub_view_worst(v) >= UB_SEV_ERROR) { /* bad ICRC/BCRC, malformed: a receiver discards it (§5.3.7, §10.6 d) */
        p->st.malformed++;
        p->st.ignored++;
        return UB_PEER_IGNORED;
    }
    parse_req(p, &r);
    if (r.ciph) { p->st.ignored++; return UB_PEER_IGNORED; } /* CIP-protected: no keys */
    /* drop on the way in */
    if (p->nfaults && peer_faults(p, &r, UB_PT_REQ, 1u << UB_PF_DROP)) {
        p->st.dropped++;
        return UB_PEER_DROPPED;
    }
    if (r.rtph) {
        unsigned op = (unsigned)ub_fh_get(&p->f_tpop, r.rtph);
        if (op == OP_CNP) { p->st.ignored++; return UB_PEER_IGNORED; }
        r.ch = req_chan(p, &r, (uint32_t)ub_fh_get(&p->f_stpn, r.rtph), (uint32_t)ub_fh_get(&p->f_dtpn, r.rtph));
        if (op == OP_DATA) { rtp_data(p, &r); return UB_PEER_ANSWERED; }
        if (op == OP_ACK || op == OP_ACK_CC || op == OP_SACK || op == OP_SACK_CC) { own_ack(p, &r, op); return UB_PEER_ANSWERED; }
        p->st.ignored++;
        return UB_PEER_IGNORED;
    }
    if (r.ctph && ub_fh_get(&p->f_ctpop, r.ctph) != 0) { p->st.ignored++; return UB_PEER_IGNORED; } /* CTP CNP */
    if (!r.btah && !(r.scanhdr && r.scanpdu)) { p->st.ignored++; return UB_PEER_IGNORED; }
    if (r.atah || (r.scanpdu && r.scanpdu->hdr->id != UB_H_SCANPDU_REQ) ||
        (r.mgmtetah && ub_fh_get(&p->f_mg_rsp, r.mgmtetah))) {
        p->st.ignored++; /* a response: the peer is a target */
        return UB_PEER_IGNORED;
    }
    deliver(p, &r);
    return UB_PEER_ANSWERED;
}

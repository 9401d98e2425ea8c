/* SPDX-License-Identifier: GPL-2.0-or-later */
/* PCIe 6 flit-mode rules of document 003 beyond the sequence/replay core (st_neigh.c): explicit
 * sequence-number runs (CONSECUTIVE_TX_EXPLICIT_SEQ_NUM_FLITS, PCIE-FL-007), no IDLE flit after the
 * first non-IDLE flit in L0 (IDLE flit handshake, PCIE-FL-008) and the replay timeout
 * (REPLAY_TIMEOUT_FLIT_COUNT >= 1500, PCIE-FL-009). Not UB. One state per capture direction (pcapng
 * EPB direction, else the interface), as st_neigh.c.
 *
 * Runs: a transmitter sends explicit-sequence-number flits in runs of at least 3; the first run of a
 * direction is not judged (it may have started before the capture), nor one still open at its end. It
 * sends one only while CONSECUTIVE_TX_EXPLICIT_SEQ_NUM_FLITS < 3 (flit replay command rules), so a run
 * is at most 3 long, 6 when a replay timeout (Replay Schedule Rule 0) reset the count (PCIE-FL-016).
 * An explicit-sequence NOP flit carries NEXT_TX_FLIT_SEQ_NUM - 1, the newest Payload flit's number
 * (flit sequence number rules; judged once a Payload flit of the direction was seen, PCIE-FL-015).
 * Replay timeout: REPLAY_TIMEOUT_FLIT_COUNT counts the Payload and NOP flits sent while the TX retry
 * buffer is not empty and restarts on an Ack (or Nak) that acknowledges a flit of it; at 1500 the
 * transmitter must replay. A direction that sends its 1500th such flit without a replay is reported
 * once per stall.
 *
 * Nak runs (normal flit exchange, transmitter rules): Nak flits come in runs of at least 3
 * (CONSECUTIVE_TX_NAK_FLITS, PCIE-FL-010) except after a replay timeout (Replay Schedule Rule 0) or on
 * L0 exit (an IDLE flit ends the run); a run at a direction's first flit, one in the sequence number
 * handshake (one Ack or Nak after three explicit flits) and one still open at the end are not judged.
 * Within a run NAK_SCHEDULED holds TX_ACKNAK_FLIT_SEQ_NUM = NEXT_EXPECTED_RX_FLIT_SEQ_NUM - 1: the number
 * stays, a Standard Nak never becomes Selective, a Selective one may become Standard (Nak Schedule 4, 6,
 * 7) and only then move forward (Nak Schedule 5) (PCIE-FL-011). An Ack/Nak behind the newest one the
 * peer accepted ((N - ACKD_FLIT_SEQ_NUM) mod 1023 > 511) is a Data Link Protocol Error (PCIE-FL-003;
 * the core judges the other bound).
 * Sequence number handshake: it starts at a port's first non-IDLE flit after IDLE flits and ends once
 * the port has sent 3 Acks (sequence number not 0) after receiving an explicit-sequence flit (not 0)
 * and 9 explicit-sequence flits (not 0); past 512 flits (1b/1b) or 256 (8b/10b, 128b/130b;
 * -o pcieflit.encoding) it must go to Recovery, i.e. send no further non-IDLE flit (PCIE-FL-012). Only
 * judged when the peer direction is in the capture. A direction whose capture starts with non-IDLE
 * flits is taken as in normal flit exchange.
 * Prior Flit was Payload (Table 4-17 DLP0[5]) says whether the direction's previous flit was a Payload
 * flit; the first flit of a direction in the capture is not judged (PCIE-FL-017). In the sequence number
 * handshake an Ack or Nak flit follows explicit flits (priority 1 of the replay command rules, PCIE-FL-018;
 * shorter runs are PCIE-FL-007).
 * Flit_Status (Table 4-19): nullified or poisoned names the last TLP ending in the flit, so the flit
 * holds a TLP: it is a Payload flit (PCIE-FL-013); the TX retry buffer keeps each flit's status, so a
 * replay carries the original's (PCIE-FL-014). Whether the TLP spans flits and that only NOP TLPs
 * follow it needs TLP decode: not checked. */
#include "st_internal.h"

enum { NDIR = 8, FL_TIMEOUT = 1500, FL_MOD = 1023, FL_WIN = 511 };
enum { HS_LIVE, HS_IDLE, HS_ON, HS_DONE }; /* capture began mid-stream; IDLE flits; sequence number handshake; done */
typedef struct fl_dir {
    uint64_t first_non_idle, run_start, oldest_frame, nak_start, hs_start, prev_frame;
    uint32_t run, runs; /* explicit-sequence flits in the current run; runs ended */
    uint32_t last, ackd; /* newest sequence number sent, newest acknowledged by the peer (0 none) */
    uint32_t cur;        /* sequence number of the newest flit sent (explicit, or implied by a Payload flit) */
    uint32_t count;      /* REPLAY_TIMEOUT_FLIT_COUNT */
    uint32_t nak_run, nak_seq, hs_flits, hs_acks, hs_expl;
    uint8_t nak_cmd, hs, run_limit, prev_usage; /* prev_usage: Flit Usage of the previous flit + 1 (IDLE: 1), 0 none */
    bool run_reported, idle_reported, timeout_reported, any, ackd_valid, nak_judge, nak_reported, hs_reported, rcvd_expl;
    uint8_t fstatus[FL_MOD + 1]; /* Flit_Status sent with each sequence number, 0x80 = known */
} fl_dir;
typedef struct mod_fl {
    fl_dir d[NDIR];
    ub_fh usage, cmd, seq, fstatus, prior;
} mod_fl;

static size_t size_fl(const ub_state_cfg *c)
{
    (void)c;
    return sizeof(mod_fl);
}

static int init_fl(void *mv, ub_state *s)
{
    (void)s;
    mod_fl *m = mv;
    memset(m->d, 0, sizeof m->d);
    ub_st_fh_init(s, &m->usage, "pcieflit.flit.usage");
    ub_st_fh_init(s, &m->cmd, "pcieflit.flit.replay_cmd");
    ub_st_fh_init(s, &m->seq, "pcieflit.flit.seq");
    ub_st_fh_init(s, &m->fstatus, "pcieflit.marker.status");
    ub_st_fh_init(s, &m->prior, "pcieflit.flit.prior_payload");
    return 0;
}

/* (b - a) mod 1023 on sequence numbers 1..1023 */
static uint32_t fdist(uint32_t a, uint32_t b)
{
    return (b + FL_MOD - a % FL_MOD) % FL_MOD;
}

static void end_run(ub_state *s, fl_dir *d, uint64_t frame)
{
    if (!d->run) return;
    if (d->runs++ && d->run < 3) {
        int64_t v[1] = { d->run };
        uint64_t fr[1] = { frame };
        ub_st_emit(s, UB_R_FL_RUN, -1, d->run_start, fr, 1, v, 1, "explicit-sequence-number flits: run ended by the related frame", NULL, NULL);
    }
    d->run = 0;
}

/* a run of Nak flits ends (exempt: L0 exit or Replay Schedule Rule 0 reset its counter) */
static void end_nak_run(ub_state *s, fl_dir *d, uint64_t frame, bool exempt)
{
    if (d->nak_run && d->nak_run < 3 && d->nak_judge && !exempt) {
        int64_t v[1] = { d->nak_run };
        uint64_t fr[1] = { frame };
        ub_st_emit(s, UB_R_FL_NAK_RUN, -1, d->nak_start, fr, 1, v, 1, "Nak flits: run ended by the related frame", NULL, NULL);
    }
    d->nak_run = 0;
}

/* the next Nak flit of a run: its number and type may only change as Nak Schedule 4-7 allow */
static void nak_flit(ub_state *s, fl_dir *d, unsigned cmd, uint32_t seq, uint64_t fr, bool judge)
{
    if (!d->nak_run) {
        d->nak_start = fr;
        d->nak_judge = judge;
        d->nak_reported = false;
    } else if (!d->nak_reported) {
        bool to_std = d->nak_cmd == 3 && cmd == 2;
        bool bad = (d->nak_cmd == 2 && cmd == 3) || (seq != d->nak_seq && !(to_std && fdist(d->nak_seq, seq) <= FL_WIN));
        if (bad) {
            int64_t v[4] = { seq, d->nak_seq, cmd, d->nak_cmd };
            uint64_t f1[1] = { d->nak_start };
            ub_st_emit(s, UB_R_FL_NAK_CHANGE, -1, fr, f1, 1, v, 4, "Nak changed within a run of Nak flits", NULL, NULL);
            d->nak_reported = true;
        }
    }
    d->nak_run++;
    d->nak_cmd = (uint8_t)cmd;
    d->nak_seq = seq;
}

/* sequence number handshake of direction d (o: the peer) for a non-IDLE flit */
static void handshake(ub_state *s, fl_dir *d, const fl_dir *o, unsigned cmd, uint32_t seq, uint64_t fr, const ub_opts *opts)
{
    if (d->hs == HS_IDLE) {
        d->hs = HS_ON;
        d->hs_start = fr;
    }
    if (d->hs != HS_ON) return;
    if (cmd != 0 && !d->run) { /* priority 1: explicit while CONSECUTIVE_TX_EXPLICIT_SEQ_NUM_FLITS < 3 */
        uint64_t f1[1] = { d->hs_start };
        ub_st_emit(s, UB_R_FL_HS_ALT, -1, fr, f1, 1, NULL, 0, "Ack or Nak flit in the handshake without explicit flits before it", NULL, NULL);
    }
    d->hs_flits++;
    if (cmd == 0 && seq) d->hs_expl++;
    if (cmd == 1 && seq && d->rcvd_expl) d->hs_acks++;
    if (d->hs_acks >= 3 && d->hs_expl >= 9) {
        d->hs = HS_DONE;
        return;
    }
    uint32_t limit = opts && opts->pcieflit_encoding ? 256 : 512;
    if (d->hs_flits > limit && o->any && !d->hs_reported) {
        int64_t v[4] = { d->hs_flits, limit, d->hs_acks, d->hs_expl };
        uint64_t f1[1] = { d->hs_start };
        ub_st_emit(s, UB_R_FL_HANDSHAKE, -1, fr, f1, 1, v, 4, "sequence number handshake past its limit without Recovery", NULL, NULL);
        d->hs_reported = true;
    }
}

/* Flit_Status of a flit (0 without a Flit_Marker) and the rules on it; n: the flit's sequence number */
static void flit_status(ub_state *s, fl_dir *d, unsigned usage, unsigned st, uint32_t n, bool replay, uint64_t fr)
{
    if (st && usage != 1) {
        int64_t v[2] = { st, usage };
        ub_st_emit(s, UB_R_FL_STATUS_NOP, -1, fr, NULL, 0, v, 2, "Flit_Status set in a flit without a TLP", NULL, NULL);
    }
    if (usage != 1 || !n || n > FL_MOD) return;
    if (!replay) {
        d->fstatus[n] = (uint8_t)(0x80 | st);
    } else if ((d->fstatus[n] & 0x80) && (d->fstatus[n] & 3) != st) {
        int64_t v[3] = { n, st, d->fstatus[n] & 3 };
        ub_st_emit(s, UB_R_FL_STATUS_REPLAY, -1, fr, NULL, 0, v, 3, "replayed flit with another Flit_Status", NULL, NULL);
    }
}

static void packet_fl(void *mv, ub_state *s, const ub_pkt *p)
{
    mod_fl *m = mv;
    if (p->v->entry != UB_ENTRY_PCIEFLIT || p->crc_bad) return;
    unsigned dir = p->pi->dir ? p->pi->dir : p->pi->ifindex + 1, peer = p->pi->dir ? 3 - dir : (dir == 1 ? 2 : 1);
    if (dir >= NDIR || peer >= NDIR) return; /* many interfaces: not judged */
    fl_dir *d = &m->d[dir], *o = &m->d[peer];
    uint64_t fr = p->pi->frame;
    for (int i = ub_view_find(p->v, UB_H_PCIEFLIT, 0); i >= 0; i = ub_view_find(p->v, UB_H_PCIEFLIT, i + 1)) {
        const ub_layer *l = &p->v->layer[i];
        unsigned usage = (unsigned)ub_fh_get(&m->usage, l), cmd = (unsigned)ub_fh_get(&m->cmd, l);
        uint32_t seq = (uint32_t)ub_fh_get(&m->seq, l);
        const ub_layer *mk = i + 1 < p->v->nlayers && p->v->layer[i + 1].hdr->id == UB_H_PCIEFLIT_MARKER ? &p->v->layer[i + 1] : NULL;
        unsigned st = mk ? (unsigned)ub_fh_get(&m->fstatus, mk) : 0, prior = (unsigned)ub_fh_get(&m->prior, l);
        bool idle = usage == 0 && cmd == 0 && seq == 0; /* DLP0 and DLP1 all 0 */
        if (d->prev_usage && !idle && prior != (d->prev_usage == 2)) { /* DLP0[5]: the previous flit was a Payload flit */
            int64_t v[2] = { prior, d->prev_usage - 1 };
            uint64_t f1[1] = { d->prev_frame };
            ub_st_emit(s, UB_R_FL_PRIOR, -1, fr, f1, 1, v, 2, "Prior Flit was Payload disagrees with the previous flit", NULL, NULL);
        }
        d->prev_usage = (uint8_t)(usage + 1);
        d->prev_frame = fr;
        if (idle) {
            if (d->first_non_idle && !d->idle_reported) {
                uint64_t f1[1] = { d->first_non_idle };
                ub_st_emit(s, UB_R_FL_IDLE_L0, -1, fr, f1, 1, NULL, 0, "IDLE flit after a non-IDLE flit", NULL, NULL);
                d->idle_reported = true;
            }
            end_run(s, d, fr);
            end_nak_run(s, d, fr, true); /* L0 exit */
            d->hs = HS_IDLE; /* IDLE flit handshake: the sequence number handshake starts over */
            d->hs_flits = d->hs_acks = d->hs_expl = 0;
            d->hs_reported = d->rcvd_expl = false;
            d->any = true;
            continue;
        }
        bool first = !d->any, timed_out = d->count >= FL_TIMEOUT;
        d->any = true;
        if (!d->first_non_idle) d->first_non_idle = fr;
        handshake(s, d, o, cmd, seq, fr, p->v->opts);
        if (cmd == 0 && seq) o->rcvd_expl = true; /* NON_IDLE_EXPLICIT_SEQ_NUM_FLIT_RCVD of the peer */
        if (cmd >= 2) nak_flit(s, d, cmd, seq, fr, !first && (d->hs == HS_LIVE || d->hs == HS_DONE));
        else end_nak_run(s, d, fr, timed_out);
        if (cmd == 0) { /* explicit sequence number: runs of exactly 3 (up to 6 when Rule 0 reset the count) */
            if (!d->run++) {
                d->run_start = fr;
                d->run_limit = 3;
                d->run_reported = false;
            }
            if (timed_out) d->run_limit = 6;
            if (d->run > d->run_limit && !d->run_reported) {
                int64_t v[2] = { d->run, d->run_limit };
                uint64_t f1[1] = { d->run_start };
                ub_st_emit(s, UB_R_FL_RUN_LONG, -1, fr, f1, 1, v, 2, "explicit-sequence-number flits: run too long", NULL, NULL);
                d->run_reported = true;
            }
        } else {
            end_run(s, d, fr);
        }
        /* a Payload flit's number, explicit or implied: the previous flit's + 1 (IMPLICIT_RX_FLIT_SEQ_NUM) */
        uint32_t n = usage != 1 ? 0 : cmd == 0 ? seq : (d->cur ? d->cur % FL_MOD + 1 : 0);
        if (usage == 1) {
            flit_status(s, d, usage, st, n, d->last && n && !(fdist(d->last, n) >= 1 && fdist(d->last, n) <= FL_WIN), fr);
            d->cur = n;
        } else {
            flit_status(s, d, usage, st, 0, false, fr);
            if (cmd == 0 && d->last && seq != d->last) { /* NOP: NEXT_TX_FLIT_SEQ_NUM - 1, known once a Payload flit was sent */
                int64_t v[2] = { seq, d->last };
                ub_st_emit(s, UB_R_FL_NOP_SEQ, -1, fr, NULL, 0, v, 2, "NOP flit with another sequence number than NEXT_TX_FLIT_SEQ_NUM - 1", NULL, NULL);
            }
            if (cmd == 0) d->cur = seq;
        }
        if (usage == 1) { /* a Payload flit: new, or a replay (restarts the timer: Replay Schedule Rule 0) */
            if (n && d->last && fdist(d->last, n) >= 1 && fdist(d->last, n) <= 511) {
                if (d->ackd == d->last) d->oldest_frame = fr; /* the retry buffer was empty */
                d->last = n;
            } else if (n && d->last) {
                d->count = 0; /* replayed */
                d->timeout_reported = false;
            } else if (n) {
                d->last = n;
                d->ackd = n % FL_MOD ? n - 1 : FL_MOD; /* what came before is not judged */
                d->oldest_frame = fr;
            }
        }
        if (d->last && d->ackd != d->last && ++d->count >= FL_TIMEOUT && !d->timeout_reported) {
            int64_t v[2] = { d->count, d->ackd % FL_MOD + 1 };
            uint64_t f1[1] = { d->oldest_frame };
            ub_st_emit(s, UB_R_FL_REPLAY_TIMEOUT, -1, fr, f1, 1, v, 2, "REPLAY_TIMEOUT_FLIT_COUNT reached 1500 without a replay", NULL, NULL);
            d->timeout_reported = true;
        }
        if (cmd == 0 || seq == 0 || !o->last) continue; /* Ack/Nak 0 is ignored */
        if (o->ackd_valid && fdist(seq, o->ackd) >= 1 && fdist(seq, o->ackd) <= FL_WIN && fdist(seq, o->last) <= FL_WIN) {
            int64_t v[2] = { seq, o->last };
            ub_st_emit(s, UB_R_FL_ACK_SEQ, -1, fr, NULL, 0, v, 2, "Ack/Nak behind the newest accepted one (N - ACKD_FLIT_SEQ_NUM mod 1023 > 511)", NULL, NULL);
        } else if (fdist(o->ackd, seq) >= 1 && fdist(o->ackd, seq) <= fdist(o->ackd, o->last)) {
            o->ackd = seq; /* acknowledges flits of the peer's retry buffer */
            o->ackd_valid = true;
            o->count = 0;
            o->timeout_reported = false;
        }
    }
}

static void finish_fl(void *mv, ub_state *s)
{
    (void)mv;
    (void)s;
}

static void fini_fl(void *mv)
{
    (void)mv;
}

const ub_st_module ub_st_mod_pcie = { "PCIe flit limits", UB_ST_TP, size_fl, init_fl, packet_fl, finish_fl, fini_fl, UB_MOD_FL };

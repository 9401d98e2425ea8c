/* SPDX-License-Identifier: GPL-2.0-or-later */
/* PCIe 6 flit-mode rules of document 003 beyond the sequence/replay core (st_neigh.c): explicit
 * sequence-number runs (CONSECUTIVE_TX_EXPLICIT_SEQ_NUM_FLITS, PCIE-FL-007), no IDLE flit after the
 * first non-IDLE flit in L0 (IDLE flit handshake, PCIE-FL-008) and the replay timeout
 * (REPLAY_TIMEOUT_FLIT_COUNT >= 1500, PCIE-FL-009). Not UB. One state per capture direction (pcapng
 * EPB direction, else the interface), as st_neigh.c.
 *
 * Runs: a transmitter sends explicit-sequence-number flits in runs of at least 3; the first run of a
 * direction is not judged (it may have started before the capture), nor one still open at its end.
 * Replay timeout: REPLAY_TIMEOUT_FLIT_COUNT counts the Payload and NOP flits sent while the TX retry
 * buffer is not empty and restarts on an Ack (or Nak) that acknowledges a flit of it; at 1500 the
 * transmitter must replay. A direction that sends its 1500th such flit without a replay is reported
 * once per stall. */
#include "st_internal.h"

enum { NDIR = 8, FL_TIMEOUT = 1500, FL_MOD = 1023 };
typedef struct fl_dir {
    uint64_t first_non_idle, run_start, oldest_frame;
    uint32_t run, runs; /* explicit-sequence flits in the current run; runs ended */
    uint32_t last, ackd; /* newest sequence number sent, newest acknowledged by the peer (0 none) */
    uint32_t count;      /* REPLAY_TIMEOUT_FLIT_COUNT */
    bool idle_reported, timeout_reported;
} fl_dir;
typedef struct mod_fl {
    fl_dir d[NDIR];
    ub_fh usage, cmd, seq;
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
    ub_fh_init(&m->usage, "pcieflit.flit.usage");
    ub_fh_init(&m->cmd, "pcieflit.flit.replay_cmd");
    ub_fh_init(&m->seq, "pcieflit.flit.seq");
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
        if (usage == 0 && cmd == 0 && seq == 0) { /* IDLE */
            if (d->first_non_idle && !d->idle_reported) {
                uint64_t f1[1] = { d->first_non_idle };
                ub_st_emit(s, UB_R_FL_IDLE_L0, -1, fr, f1, 1, NULL, 0, "IDLE flit after a non-IDLE flit", NULL, NULL);
                d->idle_reported = true;
            }
            end_run(s, d, fr);
            continue;
        }
        if (!d->first_non_idle) d->first_non_idle = fr;
        if (cmd == 0) { /* explicit sequence number */
            if (!d->run++) d->run_start = fr;
        } else {
            end_run(s, d, fr);
        }
        if (usage == 1) { /* a Payload flit: new, or a replay (restarts the timer: Replay Schedule Rule 0) */
            uint32_t n = cmd == 0 ? seq : (d->last ? d->last % FL_MOD + 1 : 0);
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
        if (cmd != 0 && seq != 0 && o->last && fdist(o->ackd, seq) >= 1 && fdist(o->ackd, seq) <= fdist(o->ackd, o->last)) {
            o->ackd = seq; /* acknowledges flits of the peer's retry buffer */
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

const ub_st_module ub_st_mod_pcie = { "PCIe flit limits", UB_ST_TP, size_fl, init_fl, packet_fl, finish_fl, fini_fl };

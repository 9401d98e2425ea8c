/* Internals of the scenario runner (runner.c: sending, receiving, the time-ordered merge, findings;
 * runner_expect.c: expectations). */
#ifndef UB_RUNNER_INT_H
#define UB_RUNNER_INT_H

#include "ubparse/peer.h"
#include "ubparse/runner.h"

#include <stdlib.h>
#include <string.h>

#define S2F 65536u

/* A FIFO of packet copies in one circular byte arena (no allocation per packet). */
typedef struct pent {
    uint64_t pos;       /* arena position of the bytes */
    uint32_t len;
    uint8_t dir;        /* ub_dir */
    uint8_t consumed;   /* expect queue: matched already */
    uint32_t gen;       /* expect queue: last expect generation that found no match here */
    uint64_t ts_real, ts_mono;
    uint64_t seq;
} pent;

typedef struct pring {
    pent *e;
    uint32_t ecap, ehead, ecount;
    uint8_t *buf;
    uint64_t bcap, bhead, btail; /* positions grow monotonically; physical = pos % bcap */
} pring;

int pring_init(pring *q, uint32_t entries, uint64_t bytes);
void pring_free(pring *q);
pent *pring_push(pring *q, const uint8_t *d, uint32_t len); /* NULL: full */
void pring_pop(pring *q);
static inline pent *pring_at(pring *q, uint32_t i) { return &q->e[(q->ehead + i) % q->ecap]; }
static inline const uint8_t *pring_data(const pring *q, const pent *e) { return q->buf + e->pos % q->bcap; }

typedef struct qtx {      /* a packet queued for the next send call */
    uint64_t deadline;
    uint64_t seq;
    uint64_t pos;         /* in the tx arena */
    uint32_t len;
    bool ack;             /* an auto_ack transport ack: not the reference of expect() */
    bool rtx;             /* a resend: not kept again */
    uint8_t port;         /* ub_send_opt.port */
} qtx;

typedef struct hold {     /* REORDER: held back for `left` more packets */
    uint8_t *data;
    uint32_t len, left;
    uint64_t deadline;
    uint8_t port;
} hold;

typedef struct pfind {    /* a finding waiting for the frame numbers of the packets it cites */
    ub_finding f;
    char *message;
    uint64_t seqs[UB_FINDING_FRAMES];
    uint64_t frames[UB_FINDING_FRAMES];
    unsigned nseq;
} pfind;

struct ub_runner {
    ub_runner_cfg c;
    ub_opts o;
    ub_xport x;
    ub_entry rec_entry;           /* decoder entry of the records x.record() makes */
    ub_rw *rw;                    /* conversion to the transport framing */
    bool own_rw;
    uint64_t start;
    char err[512];
    /* sending */
    qtx *q;
    ub_io_tx *tx;
    unsigned nq, batch;
    uint8_t *txbuf;
    uint64_t txcap, txused;
    hold *held;
    unsigned nheld, capheld;
    uint8_t *cvbuf;               /* conversion output */
    uint64_t seq;                 /* packet ids (sent and received) */
    uint64_t last_seq, last_send;
    bool capped;
    uint64_t last_poll;
    /* receiving and the merged stream */
    ub_io_rx rxb[64];
    pring rxq;                    /* answers kept for expect() */
    pring ms, mr;                 /* merge: sent and received records waiting for the watermark */
    bool merge;                   /* an audit or a capture wants the stream */
    uint64_t drained_real;        /* start of the last receive call that emptied the socket */
    uint64_t frame;               /* frames emitted */
    uint8_t *recbuf;              /* scratch record */
    ub_view *view, *gview;        /* audit decode, expect decode */
    uint8_t *gbuf;                /* copy of the packet handed out by expect() */
    pfind *pend;
    unsigned npend, cappend;
    uint64_t (*s2f)[2];           /* recent (seq, frame) pairs, by seq % S2F: findings citing emitted packets */
    uint32_t gen;
    /* expect filter cache */
    char *ftext;
    ub_filter *fcomp;
    uint64_t rng;
    /* auto_ack: the reference RTP receiver answers the peer's data with transport acks */
    ub_peer *acker;
    ub_view *aview;
    uint8_t *ackbuf;
    uint32_t ackused, nack;
    uint32_t acklen[64];
    bool in_pump;
    /* resend: our RTP data kept for go-back-N (pent.ts_real = SrcTPN << 24 | DstTPN, ts_mono = PSN) */
    pring rtx;
    ub_view *rview;
    struct { uint32_t stpn, dtpn, psn; } nak[16];
    unsigned nnak;
    ub_runner_stats st;
};

int rn_fail(ub_runner *r, const char *fmt, const char *a);
int rn_pump(ub_runner *r, uint64_t until);   /* receive until `until` or the first packets (0: poll) */
int rn_release(ub_runner *r);                /* held (reordered) packets and the queue go out */
void rn_emit(ub_runner *r, bool all);        /* records below the watermark to the audit/capture */
uint64_t rn_now(ub_runner *r);
bool rn_cap(ub_runner *r);                   /* a safety cap reached */
int rn_add_finding(ub_runner *r, const char *rule_id, int severity, const char *detail, const char *message,
                   uint32_t line, const uint64_t *seqs, unsigned nseq, const int64_t *values, unsigned nvalues);

#endif

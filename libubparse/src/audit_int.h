/* Internals of the audit session (audit.c, shard.c, stats.c): engines, shards and statistics. */
#ifndef UBPARSE_AUDIT_INT_H
#define UBPARSE_AUDIT_INT_H

#include "ubparse/audit.h"

#include <stdio.h>

/* ---------------------------------------------------------------- statistics (stats.c) */
typedef struct ub_zcfg ub_zcfg;       /* -z ub,cfg counters (every decoded packet) */
ub_zcfg *ub_zcfg_new(void);
void ub_zcfg_free(ub_zcfg *c);
void ub_zcfg_add(ub_zcfg *c, const ub_view *v, uint32_t len);
void ub_zcfg_print(const ub_zcfg *c, FILE *f, uint64_t records, uint64_t packets);

typedef struct ub_latset ub_latset;   /* latency per (match kind, opcode) */
ub_latset *ub_lat_new(void);
void ub_lat_free(ub_latset *s);
void ub_lat_add(ub_latset *s, const ub_match *m);
void ub_lat_merge(ub_latset *d, const ub_latset *s);
void ub_lat_print(const ub_latset *s, FILE *f, unsigned group /* 0 transactions, 1 management */);
/* group 0 transactions by request TAOpcode, 1 management by Code, 2 transport acks by ack TPOpcode:
 * false when the row is empty */
bool ub_lat_row(const ub_latset *s, unsigned g, unsigned k, uint64_t *count, uint64_t *min, uint64_t *max, uint64_t *sum);
void ub_srt_ws_print(const ub_latset *s, FILE *f); /* -z ub,srt (srt_ws.c) */

typedef struct ub_tpstats ub_tpstats; /* -z ub,tp rows of one engine */
ub_tpstats *ub_tps_new(void);
void ub_tps_free(ub_tpstats *t);
void ub_tps_add(ub_tpstats *t, const ub_view *v, uint32_t flags, uint64_t frame, uint64_t ts);
void ub_tps_print(ub_tpstats *const *all, unsigned n, const ub_latset *lat, FILE *f);
size_t ub_tps_each(ub_tpstats *const *all, unsigned n, ub_tp_channel_cb cb, void *ctx);

/* ---------------------------------------------------------------- engines (audit.c) */
/* Engine classes, part of the finding order key (collect.c) */
enum { UB_PHASE_LINK = 0, UB_PHASE_PAIR = 1, UB_PHASE_EXTERNAL = 2 };

typedef struct ub_eng {
    ub_audit *a;
    ub_state *st;
    uint8_t phase;
    bool hooks;         /* the session's hooks run in this engine (single-engine sessions) */
    unsigned zmask;     /* ub_stats_mask */
    uint64_t cur_pkt, cur_frame, seq;
    uint32_t cur_flags;
    ub_collect *fc;     /* NULL: findings are not collected */
    ub_tpstats *tp;     /* NULL: no -z ub,tp */
    ub_latset *lat;
} ub_eng;

/* count a finding of `rule` that is not kept as an example (collect.c) */
void ub_collect_count_only(ub_collect *c, unsigned rule, unsigned sev);
/* the frame above which ub_collect_would_keep declines every finding of `rule` from now on (the last
 * example's, once the rule's examples are complete; 0 when none are kept), UINT64_MAX: none such */
uint64_t ub_collect_keep_bound(const ub_collect *c, unsigned rule);
int ub_eng_init(ub_audit *a, ub_eng *e, unsigned layers, uint8_t phase, bool hooks);
static inline void ub_eng_packet(ub_eng *e, const ub_view *v, const ub_pktinfo *pi, uint64_t seq)
{
    e->cur_pkt = seq;
    e->cur_frame = pi->frame;
    e->cur_flags = 0;
    ub_state_packet(e->st, v, pi);
    if (e->tp) ub_tps_add(e->tp, v, e->cur_flags, pi->frame, pi->ts_ns);
}
void ub_eng_finish(ub_eng *e);
void ub_eng_free(ub_eng *e);

/* ---------------------------------------------------------------- shards (shard.c) */
/* Worker threads, each running one engine, fed copies of the decoded views through one ring of
 * batches that every worker reads (an entry names the workers it is for). */
typedef struct ub_shards ub_shards;
typedef struct ub_shard_spec {
    unsigned layers; /* ub_state layers of the worker's engine */
    uint8_t phase;   /* engine class (UB_PHASE_LINK: every packet; UB_PHASE_PAIR: its endpoint pairs) */
    bool tick;       /* gets the end-of-capture clock (an engine that does not see every packet) */
} ub_shard_spec;
/* n workers (1..64), spec[i] for worker i; units fed raw are routed, once decoded, to the workers of
 * allbits and to the pairw workers from pair0 + pairw * (ub_state_pair_hash % npair) on (npair 0:
 * none). NULL out of memory */
ub_shards *ub_shards_start(ub_audit *a, const ub_opts *o, unsigned n, const ub_shard_spec *spec, uint64_t allbits,
                           unsigned pair0, unsigned npair, unsigned pairw);
/* one decoded packet for the workers in dest (bit i: worker i). 0, or -1 out of memory */
int ub_shards_send(ub_shards *sh, uint64_t dest, const ub_view *v, const ub_pktinfo *pi, uint64_t seq);
/* one undecoded unit (decoded by whichever thread is free). 0, or -1 out of memory */
int ub_shards_unit(ub_shards *sh, ub_entry entry, const uint8_t *data, uint32_t len, uint32_t wire, unsigned unit_flags,
                   const ub_pktinfo *pi, uint64_t seq);
/* add what the decoders counted in the raw units (after ub_shards_stop) */
void ub_shards_counts(const ub_shards *sh, ub_unit_counts *c);
void ub_unit_count(ub_unit_counts *c, const ub_view *v);
/* end of input: the tick workers get the capture's end clock, then every thread is joined */
int ub_shards_stop(ub_shards *sh, bool tick, uint64_t last_frame, uint64_t max_ts);
unsigned ub_shards_count(const ub_shards *sh);
ub_eng *ub_shards_eng(ub_shards *sh, unsigned i);
void ub_shards_free(ub_shards *sh);

#endif

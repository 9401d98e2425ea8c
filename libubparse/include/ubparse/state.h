/* Protocol-state checker: consumes decoded packets (ub_view) in capture order, keeps bounded,
 * evictable state per link direction, TP channel, transaction and management exchange, and emits
 * findings of the rule catalogue (docs/rules.md, generated from the one table in rules.c).
 * I/O-free and callback-driven (cf. nghttp2): the caller feeds packets, the engine calls back. */
#ifndef UBPARSE_STATE_H
#define UBPARSE_STATE_H

#include "ubparse/ubparse.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------------------- rule catalogue */
typedef struct ub_rule {
    uint16_t idx;
    const char *id;          /* stable id, e.g. "UB-TP-002" */
    const char *layer;       /* "data link", "network", "transport", "transaction", "management", "packet" */
    uint8_t severity;        /* ub_sev: note / warning / error */
    const char *spec;        /* spec section and digest checklist id, e.g. "§6.4.1; TP-02" */
    const char *title;       /* one line */
    const char *evidence;    /* what a finding carries: frames and values */
} ub_rule;

unsigned ub_rule_count(void);
const ub_rule *ub_rule_get(unsigned idx);
const ub_rule *ub_rule_by_id(const char *id);

/* ---------------------------------------------------------------- findings */
#define UB_FINDING_FRAMES 4
typedef struct ub_finding {
    uint16_t rule;                       /* index into the catalogue */
    uint8_t severity;                    /* may be lowered from the rule's (e.g. §10.6 e: note) */
    uint8_t nframes;
    uint64_t frame;                      /* frame where it was detected / cited */
    uint64_t frames[UB_FINDING_FRAMES];  /* related frames (the request, the first copy, ...) */
    int64_t values[4];                   /* evidence values (meaning per rule: expected/actual, ...) */
    uint8_t nvalues;
    const char *detail;                  /* static explanation, may be NULL */
    const char *key;                     /* static name of the state key kind ("TP channel", ...) */
    char keytext[64];                    /* printable state key (channel, TASSN, link...) */
    /* findings raised outside the engine (script rules, scenario expectations); NULL/0 for built-ins.
     * ub_collect copies the strings of the findings it keeps. */
    const char *message;                 /* free text shown after the detail */
    const char *src_uri;                 /* file where the check is written (SARIF location) */
    uint32_t src_line;                   /* its line, 0 = unknown */
} ub_finding;

typedef void (*ub_finding_cb)(void *ctx, const ub_finding *f);

/* A request matched to its response (transactions and management): plugin analysis, latency stats. */
typedef struct ub_match {
    uint64_t req_frame, rsp_frame;
    uint64_t latency_ns;
    uint8_t kind;      /* 0 transaction, 1 management, 2 transport ack */
    uint16_t opcode;   /* kind 0: TAOpcode of the request; kind 1: configuration management 0x10 | Code << 8,
                        * enumeration 0x80 | (8 + CMD) << 8; kind 2: TPOpcode of the ack */
    uint64_t req_ts_ns, rsp_ts_ns; /* capture times of req_frame and rsp_frame */
} ub_match;
typedef void (*ub_match_cb)(void *ctx, const ub_match *m);
/* Name of a match's opcode from the schema's value names ("Read", "Configuration Message", an
 * enumeration CMD's name), else "0x%02x" in buf. */
const char *ub_match_opname(const ub_match *m, char *buf, size_t n);
/* The opcode as the user sees it: TAOpcode, management Code, enumeration CMD, TPOpcode. */
unsigned ub_match_code(const ub_match *m);

/* Per-packet TP analysis flags (Wireshark ub.analysis.*) */
enum ub_tp_flags {
    UB_TPF_RETRANSMISSION = 1u << 0,
    UB_TPF_OUT_OF_ORDER = 1u << 1,
    UB_TPF_LOST_BEFORE = 1u << 2,   /* a PSN gap precedes this packet */
    UB_TPF_DUP_ACK = 1u << 3,
    UB_TPF_NAK = 1u << 4,
    UB_TPF_SACK = 1u << 5,
    UB_TPF_DUPLICATE = 1u << 6,     /* same PSN already seen (duplicate data) */
};
/* The tag Wireshark's Info column shows for one ub_tp_flags bit, e.g. "[TP Retransmission] " (the plugin
 * and ubdump's summaries share them); NULL for bits shown only as expert infos (NAK, SACK). */
const char *ub_tp_flag_tag(uint32_t bit);
/* Every tag of flags in Info-column order, NUL-terminated in buf; returns the length ("" when none). */
size_t ub_tp_flags_tags(uint32_t flags, char *buf, size_t n);
typedef struct ub_pkt_note {
    uint64_t frame;
    uint32_t tp_flags;
    uint32_t expected_psn;
} ub_pkt_note;
typedef void (*ub_note_cb)(void *ctx, const ub_pkt_note *n);

/* ---------------------------------------------------------------- configuration */
enum ub_state_layers {
    UB_ST_DLL = 1u << 0, UB_ST_NW = 1u << 1, UB_ST_TP = 1u << 2, UB_ST_TA = 1u << 3, UB_ST_MG = 1u << 4,
    UB_ST_DECODE = 1u << 5, /* per-packet decode errors as findings */
    UB_ST_ALL = 0x3F
};

typedef struct ub_state_cfg {
    unsigned layers;               /* ub_state_layers to run */
    uint32_t max_links;            /* link directions kept (default 64) */
    uint32_t max_channels;         /* TP channels (default 16384) */
    uint32_t max_transactions;     /* outstanding transactions (default 65536) */
    uint32_t max_mgmt;             /* outstanding management exchanges (default 4096) */
    uint64_t response_timeout_ns;  /* §10.6 e: 100 ms */
    bool expect_taack;             /* §10.6 a option: the service mode returns TAACKs for RTP Writes/Sends */
    bool gaps_are_notes;           /* §10.6 c option: per-packet load balancing, one path captured */
    uint64_t loss_timeout_ns;      /* loss timer of the reliable-transport core (UB-TP-020, IB-RC-009,
                                      SUE-TP-020): 100 ms (§10.6 e); 0 = not checked */
} ub_state_cfg;

void ub_state_cfg_default(ub_state_cfg *c);

/* Where a packet came from (capture order, time, link direction). */
typedef struct ub_pktinfo {
    uint64_t frame;    /* 1-based record number */
    uint64_t ts_ns;
    uint32_t ifindex;  /* pcapng interface */
    uint8_t dir;       /* ub_dir (UB_DIR_UNKNOWN when the capture has no direction) */
} ub_pktinfo;

typedef struct ub_state ub_state;

/* One allocation sized by cfg (tables are bounded; the oldest entries are evicted when full). */
ub_state *ub_state_new(const ub_state_cfg *cfg, ub_finding_cb fcb, void *ctx);
void ub_state_set_match_cb(ub_state *s, ub_match_cb cb, void *ctx);
void ub_state_set_note_cb(ub_state *s, ub_note_cb cb, void *ctx);
/* Optional: would the finding callback keep a finding of `rule` cited at `frame` (called with the
 * finding callback's ctx)? When it says no, the finding is still delivered, for its count only: rule,
 * severity, frame, detail and key are filled; related frames, values and the keytext are not. Without
 * it every finding is delivered whole. */
typedef bool (*ub_finding_keep_cb)(void *ctx, unsigned rule, uint64_t frame);
void ub_state_set_keep_cb(ub_state *s, ub_finding_keep_cb cb);
/* Feed one decoded packet (views are not retained). */
void ub_state_packet(ub_state *s, const ub_view *v, const ub_pktinfo *pi);
/* End of capture: report what is still outstanding (§10.6 e). */
void ub_state_finish(ub_state *s);
void ub_state_free(ub_state *s);

/* The engine's bounded tables. Evicting an entry loses state before it could be judged (an
 * outstanding request that can no longer time out, a channel whose PSN history restarts): the audit
 * result of such a run is INCOMPLETE (audit.h), and UB-ST-001 reports each table at the end. */
enum ub_state_table {
    UB_TBL_LINKS,        /* link directions (max_links) */
    UB_TBL_CHANNELS,     /* TP channels (max_channels) */
    UB_TBL_TRANSACTIONS, /* outstanding transactions (max_transactions) */
    UB_TBL_MGMT,         /* outstanding management exchanges (max_mgmt) */
    UB_TBL_TP_PAIRS,     /* TP address pairs (max_channels) */
    UB_TBL_REQUESTERS,   /* transaction requester memo (max_transactions / 16, at least 256) */
    UB_TBL_TA_CHANNELS,  /* RTP retransmission memo of the transaction layer (max_channels) */
    UB_TBL_HOPS,         /* hop-copy digests of merged capture points (ns-3-UB profile; max_channels) */
    UB_TBL_NB_FLOWS,     /* neighbour flows: RoCEv2 RC, SUE TYPE1, PCIe flit directions (max_channels) */
    UB_TBL_NB_PAIRS,     /* neighbour address pairs: the QP acks are taken for (max_channels) */
    UB_TBL_SUE_PAIRS,    /* SUE (sender, receiver) pairs: the VC of each bank (max_channels) */
    UB_TBL_SUE_CNPS,     /* SUE CNP QPs: the last CNP under CNP MERGE (max_channels) */
    UB_TBL__COUNT
};
typedef struct ub_state_tblstat {
    uint64_t evicted;    /* entries evicted */
    uint64_t first_evict_frame, last_evict_frame; /* 0: none */
    uint32_t live, peak; /* entries now / most at once */
    uint32_t bound;      /* entries kept (0: table not in use) */
    uint64_t bytes;      /* memory the table holds now (tables grow with the entries in use) */
} ub_state_tblstat;
/* "transactions", "TP channels", "management exchanges", ...; NULL for an unknown table */
const char *ub_state_table_name(unsigned t);
/* The ub_state_cfg bound that sizes table t, as the tools' option ("--max-transactions"), and the
 * factor from that option to the table's size (16 for the requester memo, else 1). */
const char *ub_state_table_option(unsigned t, unsigned *divisor);

typedef struct ub_state_stats {
    uint64_t packets;
    uint64_t evicted_links, evicted_channels, evicted_transactions, evicted_mgmt;
    uint32_t links, channels, transactions, mgmt; /* live entries */
    /* every table (the four above included), and the sum of their evictions */
    ub_state_tblstat tbl[UB_TBL__COUNT];
    uint64_t evicted_total;
    uint64_t table_bytes; /* memory of all tables now (the sum of tbl[].bytes) */
} ub_state_stats;
void ub_state_get_stats(const ub_state *s, ub_state_stats *st);
/* Add b's counters to a (engines of one sharded run): evictions, live and peak entries add up,
 * bounds and eviction frames are combined (largest bound, first/last frame). */
void ub_state_stats_add(ub_state_stats *a, const ub_state_stats *b);

/* Shard key for -j N: every TP/TA/MG key of the packet hashes the same (unordered endpoint pair),
 * so N engines with layers TP|TA|MG on disjoint pairs give the same findings as one engine. */
uint64_t ub_state_pair_hash(const ub_view *v);

#ifdef __cplusplus
}
#endif
#endif

/* A reference UB responder, I/O-free (cf. nghttp2): the caller feeds decoded packets, the peer
 * answers through a callback with the bytes to send and the delay at which to send them.
 *
 *   ub_peer_new(cfg, out_fn, ctx)          one allocation set, sized by cfg (all tables bounded)
 *   ub_peer_packet(p, view, info)          one received packet -> 0..n outputs (out_fn)
 *   ub_peer_tick(p, now) / ub_peer_flush   release packets held back by the reorder fault
 *
 * What it answers (docs/peer.md), as the spec says (digest §6, §7, §10; the same auditor that
 * `ubdump --audit` runs accepts its answers):
 *   RTP receiver per TP channel   PSN checks against EPSN, TPACK (cumulative, EPSN−1), TPNAK (EPSN,
 *                                 once per loss episode, GoBackN) or TPSACK (bitmap, MaxRcvPSN);
 *                                 duplicates re-acknowledged; TPACK-CC with an LDCP/CAQM CETPH
 *                                 (§6.4, §6.2.2); the peer's own response data is retransmitted on
 *                                 TPNAK / TPSACK from a bounded store.
 *   transaction target            Write family -> TAACK (RTP: when the service mode returns one),
 *                                 Read -> Read_response with the bytes written before (split at the
 *                                 TP MTU under RTP), Atomics with their results, Send -> TAACK,
 *                                 Prefetch_tgt / No_TAACK / UTP writes -> nothing (§7.4, §10.6 a)
 *   management target             configuration read/write (two configuration spaces), events,
 *                                 entity information, link neighbour query, token check,
 *                                 registration; MSN (INI_TASSN) and INI_RC_ID echoed (§10.4.3.3)
 *   enumeration responder         topology query -> Slice_info, Port_num, Port_info, Cap_info TLVs;
 *                                 Configure / Query CNA (§10.4.3.2)
 * Responses use the request's entry form: UDP payload -> UDP payload; Ethernet UBoE -> Ethernet
 * with MACs, IPs swapped (UDP destination port 4792, source port kept); cfgph -> cfgph; SLL/SLL2;
 * flit / pkt records -> flit / pkt records; CNAs, EIDs and TPNs swapped; ICRC as in the request.
 *
 * Fault knobs make it misbehave on purpose, at a rate (seeded PRNG) or on chosen packets; each
 * provokes the audit rules listed in docs/peer.md.
 *
 * Reentrant, no global state, no allocation per packet (one builder, preallocated tables). */
#ifndef UBPARSE_PEER_H
#define UBPARSE_PEER_H

#include "ubparse/filter.h"
#include "ubparse/ubparse.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------------------- configuration */
typedef enum ub_peer_loss {
    UB_PEER_LOSS_GOBACKN = 0, /* out-of-order packets dropped, one TPNAK(EPSN) per episode (§6.4.2.2) */
    UB_PEER_LOSS_SACK = 1,    /* out-of-order packets accepted into the bitmap, TPSACK (§6.4.2.3) */
} ub_peer_loss;

typedef enum ub_peer_cc {
    UB_PEER_CC_NONE = 0, /* plain TPACK / TPNAK / TPSACK */
    UB_PEER_CC_LDCP,     /* TPACK-CC / TPNAK-CC / TPSACK-CC with the LDCP CETPH (Ack_Seq, Ce_Seq) */
    UB_PEER_CC_CAQM,     /* ... with the CAQM CETPH (Ack_Seq, Loc, I, C, Hint) */
} ub_peer_cc;

typedef struct ub_peer_cfg {
    const ub_opts *opts;       /* decoder options the views were decoded with (R-nn choices); NULL = defaults */
    /* transport */
    uint8_t loss;              /* ub_peer_loss */
    uint8_t cc;                /* ub_peer_cc */
    uint16_t ack_every;        /* acknowledge every Nth in-order packet (default 1); packets with
                                * A = 1 or Last = 1, gaps and duplicates are always acknowledged */
    uint16_t ooo_window;       /* out-of-order window W in PSNs (§6.5.1.4.1: 128..2048; default 256,
                                * TPSACK bitmaps up to 1024 bits) */
    uint32_t mtu;              /* TP MTU: Read_response payload per RTP packet (default 1024) */
    bool tx_psn_fixed;         /* the peer's own data PSNs start at tx_psn; default: the first PSN the
                                * requester used on the channel (so recorded acks line up) */
    uint32_t tx_psn;
    /* transaction target */
    bool taack_rtp;            /* return TAACKs for Writes/Sends over RTP (ROI/ROT, default true) */
    bool rol;                  /* RTP + ROL: the TPACK carries the response (RSPST 101, RSPINFO 2,
                                * §7.3.1.1 case 1) instead of a separate TAACK */
    uint32_t max_pages;        /* memory segment: 4 KiB pages kept (default 256 = 1 MiB; least
                                * recently used pages are dropped when full, counted) */
    bool seg_strict;           /* only [seg_base, seg_base + seg_size) exists; other addresses are
                                * answered with Completer Error / Remote Abort (compact: Status fail) */
    uint64_t seg_base, seg_size;
    uint8_t atomic_be;         /* operand / memory byte order for atomic arithmetic: 0 little-endian
                                * (the request figure's Operand1[7:0] in byte 0, R-28), 1 big-endian */
    /* management / enumeration */
    bool guid_set;             /* answer enumeration with this GUID (default: the GUID the request names) */
    uint8_t guid[16];          /* canonical order (as ubgen writes it) */
    uint8_t remote_guid[16];   /* Port_info.Remote_GUID of linked ports */
    uint16_t nports;           /* ports reported (default 4) */
    uint16_t ports_per_slice;  /* Port_info TLVs per topology slice (default 2) */
    uint32_t ports_up;         /* bit i: port i link up (default 0x1) */
    uint8_t sup_mtu, cur_mtu;  /* Cap_info (MTU_CFG encoding, default 2 / 1) */
    uint16_t class_code;       /* Cap_info */
    bool no_event_reply;       /* do not reply to events (default: reply without PDU, EV-UBUS) */
    uint32_t cfg_dwords;       /* configuration space size per space in dwords (default 1024) */
    uint32_t token_id, token_value; /* Token Check Configuration response */
    /* bounds */
    uint32_t max_channels;     /* TP channels (default 4096; LRU eviction, counted) */
    uint32_t max_rtx;          /* own data packets kept for retransmission (default 64) */
    uint32_t max_held;         /* packets held back by the reorder fault (default 64) */
    uint64_t hold_ns;          /* reorder: release a held packet after this long without a
                                * successor (ub_peer_tick; default 10 ms) */
    uint64_t seed;             /* fault PRNG seed (default 1) */
} ub_peer_cfg;

void ub_peer_cfg_default(ub_peer_cfg *c);

/* ---------------------------------------------------------------- faults */
typedef enum ub_peer_fault_kind {
    UB_PF_NONE = 0,
    UB_PF_DROP,          /* the packet is not sent (on=req: the request is lost on the way in) */
    UB_PF_DELAY,         /* sent delay_ns later */
    UB_PF_DUPLICATE,     /* sent twice (a response as a second response; an ack byte for byte) */
    UB_PF_REORDER,       /* held back and sent after the next packet of its class */
    UB_PF_CORRUPT_ICRC,  /* ICRC wrong (packets that carry one) */
    UB_PF_CORRUPT_BCRC,  /* BCRC of the last block wrong (flit records) */
    UB_PF_WRONG_TASSN,   /* transaction response INI_TASSN + delta */
    UB_PF_WRONG_MSN,     /* management response MSN (INI_TASSN / Scan PDU MSN) + delta */
    UB_PF_WRONG_PSN,     /* ack PSN (on=ack) or own data PSN (on=rsp) + delta */
    UB_PF_WRONG_OPCODE,  /* response TAOpcode (Read -> TAACK, others -> Read_response), management
                          * Sub Code, Scan CMD changed */
    UB_PF_NO_RESPONSE,   /* the request is processed (acked, memory updated) but never answered */
    UB_PF__COUNT
} ub_peer_fault_kind;

/* what a fault applies to */
enum ub_peer_target {
    UB_PT_REQ = 1u << 0, /* incoming packets (drop only) */
    UB_PT_ACK = 1u << 1, /* transport acks the peer sends */
    UB_PT_RSP = 1u << 2, /* transaction / management / enumeration responses (all their packets) */
};

typedef struct ub_peer_fault {
    uint8_t kind;              /* ub_peer_fault_kind */
    uint8_t on;                /* ub_peer_target bits; 0 = the kind's default (docs/peer.md) */
    double rate;               /* probability per candidate (seeded PRNG) */
    uint64_t nth;              /* the Nth candidate only (1-based) */
    uint64_t every;            /* every Nth candidate */
    uint64_t limit;            /* at most this many times (0 = no limit) */
    const ub_filter *filter;   /* candidates: packets answering (or, on=req, being) a request that
                                * matches; NULL = all. Not owned (see ub_peer_fault_parse). */
    uint64_t delay_ns;         /* UB_PF_DELAY: the delay (default 1 ms) */
    int64_t delta;             /* UB_PF_WRONG_*: value added (default 1) */
} ub_peer_fault;
/* No rate, nth or every given: every candidate. */

/* Name <-> kind ("drop", "delay", "duplicate", "reorder", "corrupt-icrc", "corrupt-bcrc",
 * "wrong-tassn", "wrong-msn", "wrong-psn", "wrong-opcode", "no-response"). */
const char *ub_peer_fault_name(unsigned kind);
int ub_peer_fault_kind_by_name(const char *name);

/* Parse "KIND[:key=value,...]" with keys on=req|ack|rsp|all (joined with '+'), rate=P, nth=N,
 * every=N, limit=N, delay=T (ns, us, ms or s suffix; plain number = ms), delta=N and, last
 * because it takes the rest of the text, filter=EXPR (display-filter syntax). The compiled filter,
 * if any, is returned in *filter_out (caller frees it with ub_filter_free after ub_peer_free).
 * 0, or -1 with a message. */
int ub_peer_fault_parse(const char *spec, ub_peer_fault *f, ub_filter **filter_out, char *err, size_t errlen);

/* ---------------------------------------------------------------- outputs */
enum ub_peer_out_kind {
    UB_PEER_OUT_ACK = 1,  /* transport ack (TPACK, TPNAK, TPSACK, -CC) */
    UB_PEER_OUT_RSP = 2,  /* transaction / management / enumeration response packet */
    UB_PEER_OUT_RTX = 3,  /* retransmission of the peer's own data (after TPNAK / TPSACK) */
};

typedef struct ub_peer_out {
    const uint8_t *data;  /* valid during the callback only */
    uint32_t len;
    uint8_t entry;        /* ub_entry: the request's */
    uint8_t kind;         /* ub_peer_out_kind */
    uint32_t faults;      /* bit (1 << ub_peer_fault_kind) for every fault applied to it */
    uint64_t delay_ns;    /* send this long after the request's arrival (ub_peer_pktinfo.ts_ns) */
    uint64_t seq;         /* the input (1-based ub_peer_packet call) it answers; 0 from tick/flush */
    uint64_t flow;        /* the input's ub_peer_pktinfo.flow (where to send it) */
} ub_peer_out;

typedef void (*ub_peer_out_fn)(void *ctx, const ub_peer_out *o);

typedef struct ub_peer_pktinfo {
    uint64_t ts_ns;  /* arrival time (any clock, used for hold timers and reported delays only) */
    uint64_t flow;   /* the front end's name for where the packet came from (e.g. a hash of the UDP
                      * source address): part of every TP channel key, returned with the outputs;
                      * needed when the packet itself has no addresses (UB_ENTRY_TPH) */
} ub_peer_pktinfo;

/* ---------------------------------------------------------------- the peer */
typedef struct ub_peer ub_peer;

/* NULL with a message in err (bad configuration, out of memory). */
ub_peer *ub_peer_new(const ub_peer_cfg *cfg, ub_peer_out_fn out, void *ctx, char *err, size_t errlen);
void ub_peer_free(ub_peer *p);
/* Add a fault knob (up to 16). -1 with a message when the kind does not apply to the target. */
int ub_peer_add_fault(ub_peer *p, const ub_peer_fault *f, char *err, size_t errlen);

/* Results of ub_peer_packet */
enum {
    UB_PEER_ANSWERED = 1,  /* handled (outputs, if any, went to the callback) */
    UB_PEER_IGNORED = 0,   /* not for a responder (a response, a DLLCB, malformed, CIP-protected, ...) */
    UB_PEER_DROPPED = -1,  /* lost on purpose (drop fault, on=req): not processed, not recorded */
};
/* Feed one received packet, decoded with the options of cfg.opts. */
int ub_peer_packet(ub_peer *p, const ub_view *v, const ub_peer_pktinfo *pi);
/* Release held packets older than hold_ns at time now (same clock as ts_ns). Returns outputs. */
int ub_peer_tick(ub_peer *p, uint64_t now_ns);
/* End of input: release every held packet. */
int ub_peer_flush(ub_peer *p);
/* Time of the oldest held packet + hold_ns (when to call ub_peer_tick), or 0 if nothing is held. */
uint64_t ub_peer_next_timer(const ub_peer *p);

typedef struct ub_peer_stats {
    uint64_t packets, ignored, dropped;       /* inputs; ignored / dropped ones */
    uint64_t malformed;                        /* inputs with decode errors of error severity (not answered) */
    uint64_t rtp_data, rtp_in_order, rtp_duplicate, rtp_out_of_order, rtp_invalid;
    uint64_t acks, naks, sacks;                /* transport acks sent */
    uint64_t acks_in;                          /* acks received for the peer's own data */
    uint64_t retransmitted;                    /* own data resent after TPNAK / TPSACK */
    uint64_t requests, responses;              /* transaction requests handled / response packets */
    uint64_t reads, writes, atomics, sends, errors_returned;
    uint64_t mgmt_requests, mgmt_responses, enum_requests, enum_responses;
    uint64_t faults[UB_PF__COUNT];             /* times each fault fired */
    uint64_t channels, channels_evicted;
    uint64_t pages, pages_evicted;
    uint64_t build_errors;                     /* responses that could not be built (see last_error) */
} ub_peer_stats;
void ub_peer_get_stats(const ub_peer *p, ub_peer_stats *st);
/* The last internal error (a response the builder refused), "" if none. */
const char *ub_peer_last_error(const ub_peer *p);

/* The memory segment, for tests and preloading: bytes at (TokenID, address). Unwritten bytes read
 * as 0. Returns 0, or -1 (outside a strict segment / page table full). */
int ub_peer_mem_read(ub_peer *p, uint32_t tokenid, uint64_t addr, uint8_t *out, uint32_t n);
int ub_peer_mem_write(ub_peer *p, uint32_t tokenid, uint64_t addr, const uint8_t *in, uint32_t n);
/* Configuration space dword (space 0/1) as a Configuration Read would return it. */
uint32_t ub_peer_cfg_space(const ub_peer *p, unsigned space, uint32_t dword);

#ifdef __cplusplus
}
#endif
#endif /* UBPARSE_PEER_H */

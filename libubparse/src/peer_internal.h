/* Internals of the reference responder (include/ubparse/peer.h), shared by
 *   peer.c        life cycle, fault selection, emission (delay/duplicate/reorder/drop), dispatch,
 *                 the RTP receiver and the peer's own RTP sender (PSNs, retransmission store)
 *   peer_build.c  response framing: the request's encapsulation mirrored into the builder
 *   peer_ta.c     transaction target over the paged memory segment
 *   peer_mg.c     management target and enumeration responder */
#ifndef UB_PEER_INTERNAL_H
#define UB_PEER_INTERNAL_H

#include "st_internal.h"
#include "ubparse/peer.h"

#define PEER_MAX_FAULTS 16
#define PEER_PAGE 4096u
#define PEER_SLOT (UB_MAX_NETPKT + 1024u) /* bytes of one stored packet (held / retransmission) */
#define PEER_PSN_MASK 0xFFFFFFu
#define PEER_SACK_MAX 1024u               /* TPSACK bitmap bits (§6.2.3: 64..1024) */

/* ---------------------------------------------------------------- channel table */
typedef struct peer_key {
    uint8_t len;
    uint8_t b[48];
} peer_key;

typedef struct peer_chan {
    uint8_t used;
    peer_key key;
    uint64_t last;               /* LRU tick */
    /* receiver: data from the requester */
    uint8_t rx_valid, nak_sent;
    uint32_t epsn, maxrcv;       /* expected PSN; highest PSN received (TPSACK MaxRcvPSN) */
    uint32_t unacked;            /* in-order packets since the last ack (ack_every) */
    uint8_t sack[PEER_SACK_MAX / 8]; /* bit i: PSN epsn + 1 + i received out of order */
    uint32_t ack_seq, ce_seq;    /* CC: cumulative Sequences (2-byte units) and marked ones */
    uint32_t caqm_c;             /* CAQM: packets with CCI.C = 1 since the last ack */
    /* sender: the peer's own data (responses) on the reverse channel */
    uint8_t tx_valid, msn_valid;
    uint32_t tx_psn, tx_msn;     /* next PSN to send; last TPMSN used */
    uint32_t tx_acked;           /* highest PSN of ours the requester acknowledged */
    /* multi-packet request in progress (TPMSN) */
    uint32_t op_msn;
    uint8_t op_open;
} peer_chan;

/* ---------------------------------------------------------------- memory segment (sparse pages) */
typedef struct peer_page {
    uint8_t used;
    uint32_t tokenid;
    uint64_t pno;      /* address / PEER_PAGE */
    uint64_t last;
    uint8_t *data;     /* PEER_PAGE bytes */
} peer_page;

/* ---------------------------------------------------------------- stored packets */
typedef struct peer_slot {
    uint8_t used, entry, kind, cls;
    uint32_t faults, len, psn;
    uint64_t chan;     /* channel key hash (retransmission store) */
    uint64_t ts, seq, flow;
    uint8_t *data;     /* PEER_SLOT bytes */
} peer_slot;

/* ---------------------------------------------------------------- one request */
typedef struct peer_req {
    const ub_view *v;
    const ub_peer_pktinfo *pi;
    uint64_t seq;
    ub_entry entry;
    int cfg;
    uint8_t tp;                  /* enum ub_tp_kind */
    int8_t icrc;                 /* -1 none, 1 little-endian, 2 big-endian */
    int first_tp;                /* index of the TPH (or the first layer after the network header) */
    const ub_layer *lph, *nth, *nthip, *ip, *udp;
    const ub_layer *rtph, *utph, *ctph, *upih, *eidh, *ciph;
    const ub_layer *btah, *atah, *udetah, *maetah, *taidetah, *ofstetah, *ntfetah, *beetah, *mtetah;
    const ub_layer *mgmtetah, *mgpdu, *payload, *ops[2];
    const ub_layer *scanhdr, *scan_rpath, *scanpdu, *scan_sub;
    const ub_layer *cetph, *saetph;
    peer_chan *ch;
    uint32_t tpmsn;
    bool last;                   /* TPOpcode[7] (RTP/UTP), always true otherwise */
    uint64_t fault_rsp;          /* faults selected for this request's response */
} peer_req;

/* ---------------------------------------------------------------- the peer */
struct ub_peer {
    ub_peer_cfg cfg;
    ub_opts opts;
    ub_peer_out_fn out;
    void *octx;
    ub_builder *b;
    uint64_t seq, tick, prng;
    /* faults */
    ub_peer_fault fault[PEER_MAX_FAULTS];
    uint64_t fault_count[PEER_MAX_FAULTS], fault_fired[PEER_MAX_FAULTS];
    unsigned nfaults;
    /* tables */
    peer_chan *chan;
    uint32_t chan_cap;
    peer_page *page;
    uint32_t page_cap;
    uint8_t *page_mem;
    peer_slot *held, *rtx;
    uint8_t *slot_mem;
    uint32_t *cfgspace;          /* 2 * cfg_dwords */
    uint32_t primary_cna;
    uint32_t *port_cna;          /* nports */
    /* output */
    uint8_t obuf[UB_MAX_NETPKT * 2 + 256];
    uint8_t dbuf[UB_MAX_NETPKT + 64]; /* response payload assembly */
    ub_peer_stats st;
    char err[256];
    /* field handles (resolved once) */
    ub_fh f_last, f_tpop, f_stpn, f_dtpn, f_a, f_psn, f_rspst, f_rspinfo, f_tpmsn, f_ctpop, f_utpop;
    ub_fh f_maxrcv, f_bitmap, f_cci_c, f_cci_i, f_cci_loc, f_cci_hint, f_cci_fecn;
    ub_fh f_taop, f_tassn, f_notaack, f_rctype, f_rcid, f_ma_addr, f_ma_len, f_ma_tok, f_ud, f_subop;
    ub_fh f_taid, f_ofst, f_ntf_addr, f_ntf_tok, f_ntf_data, f_be;
    ub_fh f_mg_code, f_mg_sub, f_mg_rsp, f_mg_len, f_upi, f_seid, f_deid;
    ub_fh f_sh_type, f_sh_hops, f_sh_r, f_sh_rpath, f_sc_ver, f_sc_cmd, f_sc_opcode, f_sc_b3, f_sc_msgq, f_sc_msn, f_sc_guid;
    ub_fh f_sc_port_cfg, f_sc_port_qry, f_sc_cna;
    ub_fh f_cfg_ent, f_cfg_be, f_cfg_addr, f_cfg_data, f_tok_en, f_lnq_d, f_lnq_num;
    ub_fh f_scna, f_dcna, f_ipsrc, f_ipdst;
};

/* ---------------------------------------------------------------- peer.c */
uint32_t peer_psn_add(uint32_t a, int64_t d);
int32_t peer_psn_diff(uint32_t a, uint32_t b);
uint64_t peer_key_hash(const peer_key *k);
/* Faults selected for a packet of class cls (UB_PT_ACK / UB_PT_RSP) answering r: bit per kind. */
uint32_t peer_faults(ub_peer *p, const peer_req *r, unsigned cls, uint32_t applicable);
/* Hand one built packet to the caller, with the packet-level faults of `faults` (drop, delay,
 * reorder; duplicate only for acks). kind: ub_peer_out_kind. */
void peer_emit(ub_peer *p, const peer_req *r, unsigned kind, uint32_t faults, const uint8_t *d, uint32_t len,
               uint32_t psn);
/* The next PSN / TPMSN the peer sends on r's reverse channel (RTP). */
uint32_t peer_tx_psn(ub_peer *p, peer_req *r);
uint32_t peer_tx_msn(ub_peer *p, peer_req *r);
const char *peer_set_err(ub_peer *p, const char *what);
/* A data packet of the peer went out on r's reverse RTP channel: keep it for TPNAK / TPSACK. */
void peer_sent_data(ub_peer *p, const peer_req *r, const uint8_t *d, uint32_t len, uint32_t psn, uint32_t faults);

/* ---------------------------------------------------------------- peer_build.c */
/* Start a response to r in its entry form: entry line (ICRC as in the request, or bad / BCRC bad
 * per faults), the encapsulation up to the transport header with addresses swapped. tp_hdr: also
 * write the transport header for a response data packet (RTPH with psn/last/tpmsn, UTPH, CTPH) and
 * the UPIH/EIDH of the request. 0 or -1. */
int peer_begin(ub_peer *p, const peer_req *r, uint32_t faults, bool tp_hdr, uint32_t psn, bool last, uint32_t tpmsn);
/* Finish the builder into p->obuf. Returns the length or -1 (build_errors counted). */
long peer_finish(ub_peer *p);
/* canonical GUID bytes of a GUID_WS field value (R-34 word order on the wire) */
void peer_guid_canon(const uint8_t wire[16], uint8_t canon[16]);

/* ---------------------------------------------------------------- peer_ta.c */
void peer_ta_request(ub_peer *p, peer_req *r);
/* RTP + ROL: RSPST/RSPINFO the TPACK carries for this request (-1: not a response-carrying ack) */
int peer_ta_rol_status(ub_peer *p, const peer_req *r, unsigned *rspinfo);
int peer_mem_init(ub_peer *p);

/* ---------------------------------------------------------------- peer_mg.c */
void peer_mg_request(ub_peer *p, peer_req *r);
void peer_enum_request(ub_peer *p, peer_req *r);

#endif

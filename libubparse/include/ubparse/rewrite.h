/* Protocol-aware packet rewriting for ubreplay (and Lua, tests): one pipeline per packet
 *
 *   record (any entry) --decode--> edits through the schema --convert--> output framing --fixup--> bytes
 *
 *   edits    --set ub.<hdr>.<field>=V (any header, every occurrence), maps of CNA / EID / IP / TPN / UPI
 *            values, per-flow renumbering of PSN and TASSN (new initial value, same deltas; acks and
 *            responses follow their data/request flow), --unique-per-loop, seeded fuzzing of fields.
 *   convert  to the framing of the output: UDP payload (TPH), UBoE Ethernet frame, ARPHRD_UB (CFG
 *            pseudo-header) or raw flit/packet records; NTH-based RTP/UTP packets (CFG 7) become UBoE
 *            through a CNA -> IP map, UBoE packets become CFG 3/4 DLLDPs, flit <-> packet records.
 *   fixup    only on packets that were modified (unless fix_all): IPv4/IPv6/UDP lengths, IPv4 header
 *            checksum, a non-zero UDP checksum, ICRC (in the byte order it had, R-15), PLENGTH, LBH,
 *            flit padding and BCRC/END (re-framing); keep_crc sends stale CRCs, break_crc wrong ones.
 *
 * Every field is read and written through the ub_field rows (ub_field_value / ub_field_write): no
 * per-field code. A packet that cannot be parsed (a decode error of the malformed group with error
 * severity, or a record that is not UB) is passed through unchanged, skipped or stops the run
 * (on_bad), and counted. One ub_rw holds its scratch views and flow table (allocated once); it is
 * used by one thread at a time. */
#ifndef UBPARSE_REWRITE_H
#define UBPARSE_REWRITE_H

#include "ubparse/ubparse.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum ub_rw_crc { UB_RW_CRC_FIX = 0, UB_RW_CRC_KEEP, UB_RW_CRC_BREAK } ub_rw_crc;
enum ub_rw_break { UB_RW_BREAK_ICRC = 1u << 0, UB_RW_BREAK_BCRC = 1u << 1 };
typedef enum ub_rw_bad { UB_RW_BAD_PASS = 0, UB_RW_BAD_SKIP, UB_RW_BAD_ABORT } ub_rw_bad;

/* Output framing (numbering of ub_io_framing in ubparse/io.h). */
typedef enum ub_rw_out {
    UB_RW_OUT_SAME = 0, /* the record's own entry (dry run, raw replay of a capture) */
    UB_RW_OUT_TPH = 1,  /* UDP payload: TPH ... payload (a UDP socket carries no ICRC) */
    UB_RW_OUT_ETH,      /* UBoE Ethernet frame (without FCS) */
    UB_RW_OUT_CFGPH,    /* 1-byte CFG + network packet (Linux ubl interface, ARPHRD_UB) */
    UB_RW_OUT_RAW,      /* records of entry raw_entry (UB_ENTRY_FLIT or UB_ENTRY_PKT) */
} ub_rw_out;

typedef struct ub_rw_cfg {
    const ub_opts *opts;
    uint8_t out;             /* ub_rw_out */
    uint8_t raw_entry;       /* UB_RW_OUT_RAW: UB_ENTRY_FLIT (default) or UB_ENTRY_PKT */
    bool fix_all;            /* fix lengths/CRCs of every packet, not only modified ones */
    uint8_t crc;             /* ub_rw_crc */
    uint8_t break_mask;      /* UB_RW_CRC_BREAK: which CRCs (ub_rw_break; 0 = every one present) */
    uint8_t on_bad;          /* ub_rw_bad */
    bool unique_per_loop;    /* PSN/TASSN continue across loops instead of repeating */
    uint64_t seed;           /* fuzzing and random initial values */
    uint32_t max_flows;      /* renumbering state (default 65536 flows per kind) */
    /* synthesized headers (conversion) */
    uint8_t dmac[6], smac[6];/* UBoE Ethernet addresses (default ff:ff:ff:ff:ff:ff / 02:00:00:00:00:01) */
    uint32_t npi;            /* CFG 3/4 UBL header NPI for UBoE -> DLLDP (default 1) */
    uint8_t vl;              /* LPH VL of synthesized LPHs */
} ub_rw_cfg;
void ub_rw_cfg_default(ub_rw_cfg *c);

typedef struct ub_rw ub_rw;
ub_rw *ub_rw_new(const ub_rw_cfg *c, char *err, size_t errlen);
void ub_rw_free(ub_rw *rw);

/* --set: "ub.<hdr>.<field>=VALUE" (value as the builder reads it: numbers, value names, IPs, hex). */
int ub_rw_add_set(ub_rw *rw, const char *assign, char *err, size_t errlen);
/* Maps: kind "cna", "eid", "ip", "tpn" or "upi"; "OLD=NEW" (several separated by ','), values
 * numbers (CNA, TPN, UPI, compact EID), IPv4/IPv6 (IP, 128-bit EID) or hex. */
int ub_rw_add_map(ub_rw *rw, const char *kind, const char *pairs, char *err, size_t errlen);
/* Read maps from a file: lines "KIND OLD NEW", '#' comments. Errors name file:line. */
int ub_rw_load_maps(ub_rw *rw, const char *path, char *err, size_t errlen);
/* CNA -> IP for NTH -> UBoE conversion: "CNA=IP" pairs (IPv4 or IPv6; all of one family). */
int ub_rw_add_cna_ip(ub_rw *rw, const char *pairs, char *err, size_t errlen);
/* Renumbering: what "psn" or "tassn"; spec "N" (new initial value of every flow), "random" (a seeded
 * random initial value per flow) or "keep" (only with unique_per_loop). */
int ub_rw_renumber(ub_rw *rw, const char *what, const char *spec, char *err, size_t errlen);
/* Fuzz a field: "ub.<hdr>.<field>[:PROBABILITY]" (default 1: every packet that has the field). */
int ub_rw_add_fuzz(ub_rw *rw, const char *spec, char *err, size_t errlen);

/* Does a record of this entry need decoding at all (false: it is sent unchanged)? */
bool ub_rw_passthrough(const ub_rw *rw, ub_entry in);
/* The loop over the inputs that begins (0, 1, ...): unique_per_loop offsets. */
void ub_rw_loop(ub_rw *rw, unsigned loop);

typedef enum ub_rw_status {
    UB_RW_SEND = 0,   /* out holds the packet */
    UB_RW_SKIP,       /* not sent (bad packet under on_bad skip, or not convertible to the output) */
    UB_RW_ABORT,      /* on_bad abort: stop the run (reason in the result) */
    UB_RW_ERROR,      /* output buffer too small */
} ub_rw_status;

enum ub_rw_flags {
    UB_RWF_MODIFIED = 1u << 0,  /* some byte was changed by an edit */
    UB_RWF_CONVERTED = 1u << 1, /* framing converted */
    UB_RWF_FIXED = 1u << 2,     /* lengths/CRCs recomputed */
    UB_RWF_BAD = 1u << 3,       /* could not be parsed */
    UB_RWF_BROKEN = 1u << 4,    /* CRC broken on purpose */
    UB_RWF_FUZZED = 1u << 5,
};

typedef struct ub_rw_result {
    uint8_t status;       /* ub_rw_status */
    uint32_t flags;       /* ub_rw_flags */
    uint8_t out_entry;    /* entry of the bytes in out (decode them with it) */
    const char *reason;   /* SKIP/ABORT: static text */
} ub_rw_result;

/* Process one record. Returns the output length (status SEND), else 0 (see res->status).
 * out must not overlap rec. */
long ub_rw_packet(ub_rw *rw, ub_entry in, const uint8_t *rec, uint32_t len, uint8_t *out, size_t cap,
                  ub_rw_result *res);

typedef struct ub_rw_stats {
    uint64_t packets;        /* records processed */
    uint64_t modified;       /* changed by an edit */
    uint64_t converted;      /* framing converted */
    uint64_t fixed;          /* lengths/CRCs recomputed */
    uint64_t bad, bad_passed, bad_skipped, bad_aborted;
    uint64_t unconvertible;  /* skipped: no form for the output (e.g. DLLCB on UDP, CNA without IP) */
    uint64_t crc_broken;
    uint64_t fields_set;     /* --set writes that changed a value */
    uint64_t mapped[5];      /* by map kind: cna, eid, ip, tpn, upi */
    uint64_t psn_renumbered, tassn_renumbered;
    uint64_t fuzzed;         /* field values replaced by the fuzzer */
    uint64_t flows_full;     /* renumbering skipped: flow table full */
} ub_rw_stats;
void ub_rw_get_stats(const ub_rw *rw, ub_rw_stats *st);
/* Output entry for a record entry under the configuration (UB_ENTRY_NONE: none). */
ub_entry ub_rw_out_entry(const ub_rw *rw, ub_entry in);

/* ---------------------------------------------------------------- building blocks */
/* Recompute lengths and CRCs of one record in place (what ub_rw_packet does to modified packets):
 * IP/UDP lengths, IPv4 checksum, non-zero UDP checksum, ICRC (order kept), PLENGTH; flit records
 * (DLLDP and DLLCB) are re-framed into out. `scratch` is a caller's view. Returns the new length, or
 * -1 if out is too small. */
long ub_fixup(const ub_opts *o, ub_view *scratch, ub_entry entry, uint8_t *buf, uint32_t len, uint8_t *out,
              size_t cap);

#ifdef __cplusplus
}
#endif
#endif

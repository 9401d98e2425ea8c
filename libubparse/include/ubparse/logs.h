/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Logs for data engines (ubdump --log-dir, docs/logs.md): Zeek-style JSON Lines tables, one object
 * per line, stable field names, written while the audit session runs:
 *
 *   transactions.jsonl   request/response pairs of the transaction layer (latency, status)
 *   mgmt.jsonl           management and enumeration request/response pairs
 *   tp_channels.jsonl    one row per TP channel direction (-z ub,tp), written at the end
 *   findings.jsonl       every finding of the audit (after --lua scripts re-rated or dropped them)
 *
 *   ub_logs *l = ub_logs_open(dir, "trace.pcapng", rules, err, sizeof err);
 *   cfg.findings = true; cfg.stats |= UB_STATS_TP;      the session must collect both
 *   a = ub_audit_new(&cfg, ...); [ub_lua_attach(...);] ub_logs_attach(l, a);
 *   for each packet: ub_logs_packet(l, v, &pi); ub_audit_packet(a, v, &pi);
 *   ub_audit_finish(a); ub_logs_close(l, a, err, sizeof err);
 *
 * The hooks make the session run one engine (audit.h). Reentrant; no global state. */
#ifndef UBPARSE_LOGS_H
#define UBPARSE_LOGS_H

#include "ubparse/audit.h"
#include "ubparse/state.h"
#include "ubparse/ubparse.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct ub_logs ub_logs;

/* Create dir if needed and open its four tables (truncated). capture: the input's name as the
 * "capture" field of every row (NULL: none); rules: the session's rule set (NULL: built-in).
 * NULL on error with a message in err. */
ub_logs *ub_logs_open(const char *dir, const char *capture, const ub_ruleset *rules, char *err, size_t errlen);
/* Add the log's hooks to the session (after any other hooks: it sees findings as they are kept).
 * 0, or -1 (the session already started). */
int ub_logs_attach(ub_logs *l, ub_audit *a);
/* The packet about to be fed to the session (a response's addresses and status come from it). */
void ub_logs_packet(ub_logs *l, const ub_view *v, const ub_pktinfo *pi);
/* After ub_audit_finish: write tp_channels.jsonl, close every table, free l (also when it fails).
 * 0, or -1 with a message in err (a write error). l NULL: 0. */
int ub_logs_close(ub_logs *l, const ub_audit *a, char *err, size_t errlen);

#ifdef __cplusplus
}
#endif
#endif

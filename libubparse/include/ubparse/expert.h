/* Expert information as the Wireshark plugin reports it (dissector/packet-ub*.c), for tshark's
 * -z expert in ubdump: decoder errors, TP sequence analysis flags and audit findings, each an item
 * with a severity, a group and a summary. One table here; the plugin registers its items from it. */
#ifndef UBPARSE_EXPERT_H
#define UBPARSE_EXPERT_H

#include "ubparse/filter.h"
#include "ubparse/state.h"
#include "ubparse/ubparse.h"

#include <stdio.h>

/* The TP sequence-analysis items (ub.analysis.<name>), in the order the plugin adds them. */
typedef struct ub_tp_flag_info {
    uint32_t bit;        /* ub_tp_flags */
    const char *name;    /* "retransmission": the expert item ub.analysis.retransmission */
    uint8_t sev;         /* ub_sev; group: always sequence */
    const char *summary;
} ub_tp_flag_info;
/* The i-th item, NULL past the end. */
const ub_tp_flag_info *ub_tp_flag_info_get(unsigned i);

/* Expert group (ub_egroup) of a finding: a decoder-error finding's is the decoder error's, else
 * sequence for transport and data-link rules, protocol for the others. */
unsigned ub_finding_group(const ub_finding *f);

/* Text of a decoder error: "<desc>[: what][ (actual A, expected E)] at byte N" (the plugin's
 * expert summary; CRCs in hex). Length as snprintf. */
size_t ub_err_text(const ub_err *e, char *buf, size_t n);

/* tshark -q -z expert (with -2) from the file at path: decoder errors of each UB unit and, per
 * frame, the analysis of fan (ub_fan_scan; NULL: none) as the plugin adds them, counted per
 * (severity, summary) in first-seen order; prints "Errors (N)", "Warns (N)", "Notes (N)" tables in
 * tshark's layout. 0, or -1 with a message in err. */
int ub_expert_print(const char *path, const ub_opts *o, const ub_fan_table *fan, FILE *out, char *err,
                    size_t errlen);
/* Same, as tshark -z expert[,LEVEL][,FILTER]: only items of severity min_sev (ub_sev) and above, and
 * (f not NULL) only the items of frames f selects (all units of a record together; fan: the
 * analysis when f reads it). */
int ub_expert_print_sel(const char *path, const ub_opts *o, const ub_fan_table *fan, unsigned min_sev,
                        const ub_filter *f, FILE *out, char *err, size_t errlen);
/* "expert[,error|warn|note|chat|comment][,FILTER]" as tshark parses it: *min_sev, *filter (NULL:
 * none; points into arg). 0, or -1 if arg is not an expert statistic. */
int ub_expert_parse(const char *arg, unsigned *min_sev, const char **filter);

#endif

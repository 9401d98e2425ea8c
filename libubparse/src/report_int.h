/* Shared by the report writers (report.c, report_sarif.c). */
#ifndef UBPARSE_REPORT_INT_H
#define UBPARSE_REPORT_INT_H

#include "ubparse/audit.h"

#include <stdio.h>

typedef struct {
    unsigned rule;
    int rank; /* worst severity of its findings */
} ub_rep_item;

typedef struct {
    const ub_ruleset *rs;
    unsigned nrules;
    int fail_on;
    uint64_t total, sev[3], at_or_above;
    unsigned fired;
    ub_rep_item *order; /* fired rules, errors first, then catalogue order */
    ub_result result;
    int status;             /* exit status the report states */
    uint64_t evicted;       /* state entries evicted */
    bool incomplete_counts; /* the evictions make the result INCOMPLETE (unless FAIL wins) */
    char why[512];          /* ub_incomplete_text */
} ub_rep_sum;

int ub_rep_summarize(const ub_collect *c, const ub_report_info *ri, ub_rep_sum *s);
void ub_rep_sarif(FILE *f, const ub_collect *c, const ub_report_info *ri, const ub_rep_sum *s);

const char *ub_rep_sev(unsigned sev);
const char *ub_rep_fail_name(int fail_on);
const char *ub_rep_result_name(ub_result r);
const char *ub_rep_input(const ub_report_info *ri, unsigned i);
const char *ub_rep_table_key(unsigned t);
void ub_rep_json_str(FILE *f, const char *s);
void ub_rep_xml_str(FILE *f, const char *s);
void ub_rep_json_evictions(FILE *f, const ub_report_info *ri, const char *sp);

#endif

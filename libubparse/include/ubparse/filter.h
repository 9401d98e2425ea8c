/* Display filters over the schema fields (Wireshark display-filter conventions):
 *
 *   ub.rtph.psn == 5            ub.btah.taopcode == "Read"       ub.icrc.status == "Bad"
 *   ub.icrc                     (presence of a header or field)  ub.error == "bcrc_bad"
 *   ub.lph.cfg != 9 && !(ub.nth.scna <= 0x10 or ub.error)        frame.number >= 100
 *
 * Operators: == eq, != ne (all occurrences differ), < lt, <= le, > gt, >= ge, === all_eq,
 * !== ~= any_ne; && and, || or, ! not, parentheses. A comparison is true if ANY occurrence of the
 * field satisfies it (a field may repeat in a packet); `!=`/`all_eq` need ALL occurrences to.
 * A comparison on a field the packet lacks is false (so `!(a == 1)` and `a != 1` differ there).
 * Literals: decimal, 0x hex, byte strings aa:bb:cc, dotted IPv4, IPv6, true/false, and quoted
 * strings: value names of the field ("Read", "Bad"), error names for ub.error, bytes otherwise.
 * Pseudo-fields: ub.error (presence = the packet has a decode error), frame.number and frame.len
 * (only with ub_filter_match_frame), ub (the record decoded as UB).
 *
 * Field names are resolved once by ub_filter_compile; matching does no allocation and no string
 * work. A compiled filter is immutable: one filter may be matched from several threads. */
#ifndef UBPARSE_FILTER_H
#define UBPARSE_FILTER_H

#include "ubparse/ubparse.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct ub_filter ub_filter;

#define UB_FILTER_MAX_LEN 65536  /* longest expression accepted */
#define UB_FILTER_MAX_DEPTH 64   /* nesting of parentheses and negations */

/* Compile an expression. NULL on error with "column N: message" in err (N 1-based). */
ub_filter *ub_filter_compile(const char *expr, char *err, size_t errlen);
/* Does the packet match? (frame.* fields are absent) */
bool ub_filter_match(const ub_filter *f, const ub_view *v);
/* Same, with the frame number (1-based, 0 = unknown) and the record length for frame.*. */
bool ub_filter_match_frame(const ub_filter *f, const ub_view *v, uint64_t frame, uint32_t len);
/* The column N of an error message "column N: ..." (for a caret under the expression), 0 if none. */
size_t ub_filter_err_column(const char *err);
void ub_filter_free(ub_filter *f);

#ifdef __cplusplus
}
#endif
#endif

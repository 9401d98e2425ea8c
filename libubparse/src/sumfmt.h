/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Text building shared by the one-line summaries: print.c (UB, IP) defines it, neigh_print.c (RoCEv2,
 * SUE, PCIe flits) uses it. */
#ifndef UB_SUMFMT_H
#define UB_SUMFMT_H

#include "internal.h"

/* a bounded output buffer: w counts every byte asked for (snprintf style), at most n - 1 are written */
typedef struct ub_sbuf { char *b; size_t n, w; } ub_sbuf;
void ub_sb(ub_sbuf *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* value of the row `short_name` of layer l (0 if l or the row is absent) */
uint64_t ub_fv(const ub_layer *l, const char *short_name);

#endif

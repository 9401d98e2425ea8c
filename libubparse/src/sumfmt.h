/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Text building shared by the one-line summaries: print.c (UB, IP) defines it, neigh_print.c (RoCEv2,
 * SUE, PCIe flits) uses it. */
#ifndef UB_SUMFMT_H
#define UB_SUMFMT_H

#include "internal.h"
#include "rows.h"

/* a bounded output buffer: w counts every byte asked for (snprintf style), at most n - 1 are written */
typedef struct ub_sbuf { char *b; size_t n, w; } ub_sbuf;
void ub_sb(ub_sbuf *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* The appenders of the per-packet summary (no format string to parse): the text they add is that of
 * ub_sb with "%s", "%" PRIu64, "%0*" PRIx64. They do not terminate the buffer: ub_sb_end does, once. */
void ub_sb_cut(ub_sbuf *s, const char *a, size_t len); /* the end of the buffer: what fits */
UB_INLINE void ub_sb_put(ub_sbuf *s, const char *a, size_t len)
{
    if (__builtin_expect(s->w + len < s->n, 1)) {
        memcpy(s->b + s->w, a, len);
        s->w += len;
    } else {
        ub_sb_cut(s, a, len);
    }
}
#define ub_sb_lit(s, lit) ub_sb_put((s), (lit), sizeof(lit) - 1) /* a string literal */
UB_INLINE void ub_sb_str(ub_sbuf *s, const char *a) { ub_sb_put(s, a, strlen(a)); }
UB_INLINE void ub_sb_chr(ub_sbuf *s, char c)
{
    if (s->w + 1 < s->n) s->b[s->w] = c;
    s->w++;
}
/* ub_u64_dec, ub_u64_hex: ubparse.h */
UB_INLINE void ub_sb_u64(ub_sbuf *s, uint64_t v)
{
    if (__builtin_expect(s->w + 20 < s->n, 1)) {
        s->w += ub_u64_dec(s->b + s->w, v);
    } else {
        char t[20];
        ub_sb_put(s, t, ub_u64_dec(t, v));
    }
}
UB_INLINE void ub_sb_hex(ub_sbuf *s, uint64_t v, unsigned width)
{
    if (__builtin_expect(s->w + 32 < s->n, 1)) {
        s->w += ub_u64_hex(s->b + s->w, v, width);
    } else {
        char t[32];
        ub_sb_put(s, t, ub_u64_hex(t, v, width));
    }
}
/* terminate as snprintf does (the text cut at n - 1 bytes); returns the whole text's length */
UB_INLINE size_t ub_sb_end(ub_sbuf *s)
{
    if (s->n) s->b[s->w < s->n ? s->w : s->n - 1] = '\0';
    return s->w;
}

/* value of row `row` of layer l (a rows.h index of l's table; 0 without l: ub_lget), the row itself */
#define UB_RV(l, row) ub_lget((l), (row))
#define UB_RF(l, row) (&(l)->hdr->fields[(row)])

#endif

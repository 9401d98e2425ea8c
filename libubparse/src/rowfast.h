/* Reads of schema rows on the network / transport / transaction decode path (net.c, tah.c, mgmt.c).
 * A row of a header's default table is a compile-time constant in the file that defines the table, so
 * its read folds to the bytes it spans, one shift and one mask — the same value ub_lget() computes
 * through the layer's table at run time. The schema stays the only field list: positions come from
 * the rows. Not installed. */
#ifndef UB_ROWFAST_H
#define UB_ROWFAST_H

#include "internal.h"

/* Row f (a plain unsigned/bool row of at most 8 bytes, not UB_FF_ENCODED/VIRTUAL) of the header
 * whose bytes start at h, all of its bytes present. f constant: a few loads, a shift and a mask. */
UB_INLINE uint64_t ub_row_at(const uint8_t *h, const ub_field *f)
{
    const uint32_t first = f->bit_off >> 3, last = (f->bit_off + f->bits - 1u) >> 3;
    uint64_t v = 0;
    for (uint32_t i = first; i <= last && i < first + 8u; i++) v = (v << 8) | h[i];
    v >>= 7u - ((f->bit_off + f->bits - 1u) & 7u);
    return f->bits < 64 ? v & ((1ull << f->bits) - 1u) : v;
}

/* Row idx of a whole layer l (not truncated): through the default table tbl when the layer uses
 * it (the constant row), else through the layer's own table (a profile's, ub_lget). */
#define UB_LROW(l, tbl, idx) ((l)->hdr->fields == (tbl) ? ub_row_at((l)->data, &(tbl)[idx]) : ub_lget((l), (idx)))

/* Push a header of fixed length (its table symbol ub_hdr_<sym>, defined in this file: id and length
 * are constants, ub_push folds its id checks) at off of the current buffer. */
#define UB_PUSH_FIXED(d, sym, off) ub_push((d), ub_hdr_##sym.id, (off), ub_hdr_##sym.len)

#endif

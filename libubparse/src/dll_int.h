/* Data link layer constants and helpers shared by dll.c (tables, decoders, PLENGTH) and dll_stream.c
 * (the raw flit-stream delimiter). */
#ifndef UB_DLL_INT_H
#define UB_DLL_INT_H
#include "internal.h"

#define FLIT 20u          /* §4.3.2.1: bytes per flit */
#define BLK_FLITS 32u     /* §4.3.2.1: flits per full DLLDB */
#define MAX_FLITS 512u    /* §4.3.2.1: flits per DLLDP (16 blocks) */
#define LPH_LEN 4u
#define LBH_LEN 2u
#define LCH_LEN 4u
#define BCRC_LEN 4u       /* §4.3.2.2.4: flit bytes 16-19 of the last flit of a block */
#define END_LEN 1u        /* §4.3.2.3: flit byte 19 of the last flit of the DLLDP */
#define LCH_PATTERN 0x20u  /* Table 4-5: 6'b100000 */
#define LNA_FLITS 5u      /* §10.4.4: link-neighbour advertisement = 5-flit Param_Exchg */

extern const ub_hdr ub_hdr_lph, ub_hdr_lch, ub_hdr_bcrc; /* dll.c */

#include "rows.h" /* row indexes of the LPH, LCH and BCRC tables (and every table read by index) */

/* A layer that is not pushed: lets decoders look at bytes through a table before committing. */
static inline ub_layer peek_layer(const ub_hdr *h, const uint8_t *p, uint32_t len)
{
    ub_layer l;
    memset(&l, 0, sizeof l);
    l.hdr = h;
    l.data = p;
    l.len = len;
    return l;
}

/* Fixed-offset reads of the link headers (LPH, LBH, LCH, BCRC, END): the first bytes of a header loaded
 * once as a big-endian word, each row cut out of it by its table row (bit_off/bits are constants of the
 * spec tables, so a read is a shift and a mask). Only for plain integer rows inside the word; the
 * profiles' versions of these tables share the rows read this way (LPH_ROWS: only RT differs). */
static inline uint32_t ub_be32(const uint8_t *p)
{
    return ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) | ((uint32_t)p[2] << 8) | p[3];
}
static inline uint32_t row_in(uint32_t w, unsigned wbits, const ub_field *f)
{
    return (w >> (wbits - f->bit_off - f->bits)) & ((1u << f->bits) - 1u);
}

enum cfg_class { CFG_DLLCB, CFG_DLLDP, CFG_RESERVED };
/* digest §1 step 1 / App. B Table B-1 */
static inline enum cfg_class cfg_classify(unsigned cfg)
{
    switch (cfg) {
    case 0: return CFG_DLLCB;
    case 3: case 4: case 5: case 6: case 7: case 9: return CFG_DLLDP;
    default: return CFG_RESERVED;
    }
}

#endif

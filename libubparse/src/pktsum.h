/* The fixed per-packet summary the state engine reads (issue #11): values of the headers that
 * several rule modules need, read ONCE per packet from the decoded layers (state.c, extract) instead
 * of each module reading them again through field handles. A decoder that already has the values
 * at hand (a fixed-offset fast path) may fill it directly; a value that is absent reads as 0, as
 * ub_fh_get gives it, and the UB_PS_* bits say which headers/fields were present. */
#ifndef UB_PKTSUM_H
#define UB_PKTSUM_H

#include <stdint.h>

enum {
    UB_PS_RTPH = 1u << 0,     /* an RTPH: rt_* are its values */
    UB_PS_RTPH_PSN = 1u << 1, /* its PSN field is present (not truncated) */
    UB_PS_RTPH_TPMSN = 1u << 2, /* its TPMSN field is present */
    UB_PS_LPH = 1u << 3,      /* an LPH: lph_* are its values */
    UB_PS_LPH_FAST = 1u << 4, /* ... all read from the whole LPH (not truncated) */
    UB_PS_CCI = 1u << 5,      /* a CCI: cci_* are its values */
};

typedef struct ub_pktsum {
    uint32_t fl;          /* UB_PS_* */
    /* §6.2.1 RTPH */
    uint32_t rt_stpn, rt_dtpn, rt_psn, rt_tpmsn;
    uint8_t rt_op, rt_last, rt_rspst, rt_rspinfo, rt_a, rt_f;
    /* §4.3.2.2.2 LPH */
    uint8_t lph_crd, lph_ack, lph_crd_vl, lph_vl, lph_rt;
    /* §5.3.5 CCI (the fields its format has; the others read 0) */
    uint8_t cci_mode, cci_fecn, cci_c, cci_en;
} ub_pktsum;

#endif

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
    UB_PS_BTAH = 1u << 6,     /* p->btah (a BTAH of a request): bt_* are its values */
    UB_PS_BT_TASSN = 1u << 7, /* its INI_TASSN field is present (not truncated) */
    UB_PS_BT_ODR = 1u << 8,   /* its format has an ODR field */
};

/* the fields of each header, in the order of its values in ub_pktsum (state.c reads them in one go) */
enum { PS_RT_OP, PS_RT_LAST, PS_RT_RSPST, PS_RT_RSPINFO, PS_RT_SRC, PS_RT_DST, PS_RT_PSN, PS_RT_A, PS_RT_F, PS_RT_TPMSN, PS_RT__N };
enum { PS_LPH_CRD, PS_LPH_ACK, PS_LPH_CRD_VL, PS_LPH_VL, PS_LPH_RT, PS_LPH__N };
enum { PS_CCI_MODE, PS_CCI_FECN, PS_CCI_C, PS_CCI_EN, PS_CCI__N };
enum { PS_BT_OP, PS_BT_TASSN, PS_BT_RCTYPE, PS_BT_RCID, PS_BT_NOTAACK, PS_BT_ODR, PS_BT_RETRY, PS_BT_ALLOC, PS_BT__N };

typedef struct ub_pktsum {
    uint32_t fl; /* UB_PS_* */
    union { /* §6.2.1 RTPH */
        struct { uint32_t rt_op, rt_last, rt_rspst, rt_rspinfo, rt_stpn, rt_dtpn, rt_psn, rt_a, rt_f, rt_tpmsn; };
        uint32_t rt[PS_RT__N];
    };
    union { /* §4.3.2.2.2 LPH */
        struct { uint32_t lph_crd, lph_ack, lph_crd_vl, lph_vl, lph_rt; };
        uint32_t lph[PS_LPH__N];
    };
    union { /* §5.3.5 CCI (the fields its format has; the others read 0) */
        struct { uint32_t cci_mode, cci_fecn, cci_c, cci_en; };
        uint32_t cci[PS_CCI__N];
    };
    union { /* §7.2.1 BTAH (its format's fields; the others read 0) */
        struct { uint32_t bt_op, bt_tassn, bt_rctype, bt_rcid, bt_notaack, bt_odr, bt_retry, bt_alloc; };
        uint32_t bt[PS_BT__N];
    };
} ub_pktsum;

#endif

/* State-engine module (placeholder until the rules land). */
#include "st_internal.h"

typedef struct { int unused; } mod_tp;
static size_t size_tp(const ub_state_cfg *c) { (void)c; return sizeof(mod_tp); }
static int init_tp(void *m, ub_state *s) { (void)m; (void)s; return 0; }
static void packet_tp(void *m, ub_state *s, const ub_pkt *p) { (void)m; (void)s; (void)p; }
const ub_st_module ub_st_mod_tp = { "tp", UB_ST_TP | UB_ST_NW, size_tp, init_tp, packet_tp, NULL, NULL };

/* State-engine module (placeholder until the rules land). */
#include "st_internal.h"

typedef struct { int unused; } mod_ta;
static size_t size_ta(const ub_state_cfg *c) { (void)c; return sizeof(mod_ta); }
static int init_ta(void *m, ub_state *s) { (void)m; (void)s; return 0; }
static void packet_ta(void *m, ub_state *s, const ub_pkt *p) { (void)m; (void)s; (void)p; }
const ub_st_module ub_st_mod_ta = { "ta", UB_ST_TA | UB_ST_MG, size_ta, init_ta, packet_ta, NULL, NULL };

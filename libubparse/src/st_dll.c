/* State-engine module (placeholder until the rules land). */
#include "st_internal.h"

typedef struct { int unused; } mod_dll;
static size_t size_dll(const ub_state_cfg *c) { (void)c; return sizeof(mod_dll); }
static int init_dll(void *m, ub_state *s) { (void)m; (void)s; return 0; }
static void packet_dll(void *m, ub_state *s, const ub_pkt *p) { (void)m; (void)s; (void)p; }
const ub_st_module ub_st_mod_dll = { "dll", UB_ST_DLL, size_dll, init_dll, packet_dll, NULL, NULL };

/* The packet as the rules see it (ub_pkt, st_internal.h) extracted once per packet by the threaded
 * pipeline's decoding stage (shard.c) and read in place by every engine that gets the packet,
 * instead of each engine extracting it again (issue #11 item 3).
 * Contract for the modules: p->v there is a window of a view — its fields before layer[], layer[0 ..
 * nlayers) and, when nerrs > 0, err[0 .. nerrs); the netbuf is reached only through the layers' and
 * pkt's pointers. A module that needs more of the view must say so in shard.c (put_pkt). */
#ifndef UB_PKTSHIP_H
#define UB_PKTSHIP_H

#include "st_internal.h"

/* ub_state_packet = ub_state_extract + ub_state_packet_pkt (state.c). Extraction reads only the
 * state's field handles, fixed at ub_state_new: one state serves any number of threads at once. xp:
 * the caller's own layer-dispatch memo (UB_XP_SETS entries, zeroed before the first use; one per
 * thread), or NULL */
void ub_state_extract(const ub_state *s, ub_xplan *xp, const ub_view *v, const ub_pktinfo *pi, ub_pkt *p);
void ub_state_packet_pkt(ub_state *s, const ub_pkt *p);

#endif

/* UB (UnifiedBus) dissector plugin: registration entry points used by plugin.c. */
#ifndef PACKET_UB_H
#define PACKET_UB_H

void proto_register_ub(void);
void proto_reg_handoff_ub(void);

#endif

/* Wireshark 4.0 plugin ABI for the UB dissector: the loader looks for plugin_version,
 * plugin_want_major/minor (must equal the running Wireshark's major.minor) and calls
 * plugin_register(), which hands our register/handoff routines to epan. */
#include <wireshark.h>
#include <epan/packet.h>
#include <epan/proto.h>

#include "packet-ub.h"

#ifndef UB_PLUGIN_VERSION
#define UB_PLUGIN_VERSION "0.0.0"
#endif
#ifndef UB_WS_MAJOR
#define UB_WS_MAJOR 4
#define UB_WS_MINOR 0
#endif

WS_DLL_PUBLIC_DEF const gchar plugin_version[] = UB_PLUGIN_VERSION;
WS_DLL_PUBLIC_DEF const int plugin_want_major = UB_WS_MAJOR;
WS_DLL_PUBLIC_DEF const int plugin_want_minor = UB_WS_MINOR;

WS_DLL_PUBLIC void plugin_register(void);

/* UB first: the neighbours' items are generated with UB's (packet-ub-fields.c) */
static void register_all(void)
{
    proto_register_ub();
    proto_register_ub_neigh();
}

static void handoff_all(void)
{
    proto_reg_handoff_ub();
    proto_reg_handoff_ub_neigh();
}

void plugin_register(void)
{
    static proto_plugin plug_ub;

    plug_ub.register_protoinfo = register_all;
    plug_ub.register_handoff = handoff_all;
    proto_register_plugin(&plug_ub);
}

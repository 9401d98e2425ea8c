/* packet-neigh-prefs.c — Wireshark preferences for the options of the neighbouring interconnects
 * (docs/neighbours.md "Wireshark"), generated from libubparse's one option table (ub_opt_desc_get, the
 * table behind ubdump -o): same names, same values, same defaults, no second list.
 *   sue.*, pcieflit.*  preferences of the "sue" / "pcieflit" protocol: tshark -o sue.port:N = ubdump -o sue.port=N
 *   the others         preferences of the "ub" protocol, as UB's options: tshark -o ub.udp4791:sue = ubdump -o udp4791=sue
 * Switches (0|1) and word options are enumerations whose names are ubdump's values ("0"/"1", "auto"/"roce"/...);
 * numbers are decimal, EtherTypes hexadecimal (0x88B5 or 88B5). A change re-registers the UDP port, EtherTypes
 * and link type (packet-neigh.c). */
#include <stdio.h>
#include <string.h>
#include <wireshark.h>
#include <epan/prefs.h>
#include <ubparse/audit.h>
#include <ubparse/ubparse.h>

#include "packet-ub.h"

#define NB_PREFS_MAX 32
static guint pref_val[NB_PREFS_MAX]; /* enumerations are gint in Wireshark: same size, values 0..max */
static unsigned pref_opt[NB_PREFS_MAX], n_prefs;

static const enum_val_t *words_enum(const ub_opt_desc *d)
{
    static const char *const sw[] = { "0", "1", NULL };
    const char *const *w = d->kind == UB_OPTK_BOOL ? sw : d->words;
    unsigned n = 0;
    while (w[n]) n++;
    enum_val_t *e = g_new0(enum_val_t, n + 1); /* kept: Wireshark keeps the pointer */
    for (unsigned i = 0; i < n; i++) e[i] = (enum_val_t){ w[i], w[i], (gint)i };
    return e;
}

void ub_neigh_register_prefs(module_t *ub_module, module_t *sue_module, module_t *flit_module)
{
    ub_opts def;
    ub_opts_default(&def);
    ub_opt_desc d;
    for (unsigned i = 0; ub_opt_desc_get(i, &d) && n_prefs < NB_PREFS_MAX; i++) {
        if (!d.neighbour || d.kind == UB_OPTK_OTHER) continue;
        module_t *m = ub_module;
        const char *name = d.name;
        if (strncmp(d.name, "sue.", 4) == 0) m = sue_module, name = d.name + 4;
        else if (strncmp(d.name, "pcieflit.", 9) == 0) m = flit_module, name = d.name + 9;
        char *title = g_strdup(d.meaning); /* short (Wireshark limits titles): to the first " (", at most 60 */
        char *cut = strstr(title, " (");
        if (cut) *cut = 0;
        while (strlen(title) > 60 && (cut = strrchr(title, ' ')) != NULL) *cut = 0;
        char *desc = g_strdup_printf("%s. The same option as ubdump -o %s=VALUE; docs/neighbours.md.", d.meaning, d.name);
        unsigned k = n_prefs++;
        pref_opt[k] = i;
        pref_val[k] = ub_opt_value(&def, i);
        if (d.kind == UB_OPTK_NUM)
            prefs_register_uint_preference(m, name, title, desc, d.hex ? 16 : 10, &pref_val[k]);
        else
            prefs_register_enum_preference(m, name, title, desc, (gint *)(void *)&pref_val[k], words_enum(&d), FALSE);
    }
}

void ub_neigh_prefs_to_opts(ub_opts *o)
{
    for (unsigned k = 0; k < n_prefs; k++) {
        ub_opt_desc d;
        if (!ub_opt_desc_get(pref_opt[k], &d)) continue;
        char kv[96];
        snprintf(kv, sizeof kv, "%s=%u", d.name, pref_val[k]);
        ub_opts_set(o, kv, NULL, 0); /* out of range (a number too big): the option keeps its default */
    }
}

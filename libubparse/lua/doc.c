/* The `ub` module reference (docs/lua.md), printed from the registration tables that bind the
 * functions: what is documented is exactly what a script can call. */
#include "ubl.h"

const ubl_section ubl_sections[] = {
    { "Hooks (global functions a script defines)",
      "ubdump calls them if the script defines them; each runs under the instruction budget and "
      "its objects are valid only during the call.", ubl_hooks },
    { "The `ub` module", "Available as the global `ub` in every script.", ubl_mod_fns },
    { "`ub.u64`: unsigned 64-bit helpers",
      "Lua 5.4 integers are signed 64-bit; fields up to 64 bits (addresses, tokens) keep their exact bit "
      "pattern, so values ≥ 2^63 are negative. Compare and print them with these helpers.", ubl_u64_fns },
    { "Packet objects (`pkt`)",
      "Handed to `on_packet`/`on_match` (valid during the call only: using one later raises an error) or "
      "made by `ub.decode` (owned by the script). Properties are read as `pkt.frame`, methods called as "
      "`pkt:has(...)`; an unknown member is an error.", ubl_pkt_regs },
    { "Field extractors (`f = ub.field(name)`)", "Create them at load time and call them per packet.", ubl_fx_regs },
    { "Display filters (`flt = ub.filter(expr)`)", NULL, ubl_filter_regs },
    { "Match objects (`req` in `on_match`)", NULL, ubl_match_regs },
    { "Finding objects (`f` in `on_finding`)", NULL, ubl_find_regs },
    { "Rule objects (`ub.rule{...}`)", NULL, ubl_rule_regs },
    { "Flow keys (`ub.flows(kind)`, `ub.flow_key(pkt, kind)`)",
      "Keys are built like the state engine's keys, from the schema fields of the packet.", ubl_flow_regs },
    { "Sandbox and limits", NULL, ubl_sandbox },
    { NULL, NULL, NULL }
};

static void cell(FILE *f, const char *s)
{
    for (; s && *s; s++) {
        if (*s == '|') fputs("\\|", f);
        else if (*s == '\n') fputc(' ', f);
        else fputc(*s, f);
    }
}

void ub_lua_doc(FILE *f)
{
    for (const ubl_section *s = ubl_sections; s->title; s++) {
        fprintf(f, "### %s\n\n", s->title);
        if (s->intro) fprintf(f, "%s\n\n", s->intro);
        fprintf(f, "| name | meaning |\n|---|---|\n");
        for (const ubl_reg *r = s->rows; r->name; r++) {
            fputs("| `", f);
            cell(f, r->sig ? r->sig : r->name);
            fputs("` | ", f);
            cell(f, r->doc);
            fputs(" |\n", f);
        }
        fputc('\n', f);
    }
}

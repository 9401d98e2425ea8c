/* Lua 5.4 scripting for ubscope: the `ub` module (docs/lua.md) shared by ubdump (--lua: audit hooks,
 * script rules) and ubreplay (--scenario: coroutine scenarios over the scenario runner).
 *
 * This header is the C side seen by the front ends. It does not include Lua: the bindings live in
 * their own library (ubparse_lua, the .c files of libubparse/lua), so libubparse itself has no Lua dependency.
 *
 *   ub_lua *L = ub_lua_new(&cfg);                 one host; every --lua FILE gets its own Lua state
 *   ub_lua_arg(L, "limit=8", ...);                --lua-arg K=V  -> ub.args.K in every script
 *   ub_lua_load(L, path, rules, ...);             runs the chunk: ub.field(), ub.rule{}, hooks defined
 *   a = ub_audit_new(...); ub_lua_attach(L, a);   hooks + ub.report flow through the audit session
 *   for each packet: ub_lua_audit_packet(L, a, view, pktinfo)   (engine, then on_packet)
 *   ub_lua_end(L); ub_audit_finish(a); ... report
 *
 * Safety (every script): only base/table/string/math/utf8/coroutine unless cfg.unsafe; a VM
 * instruction budget per callback and a memory cap per script; errors reported with file:line and
 * traceback (and as findings of rule UB-LUA-001, so they reach reports and exit codes); a hook is
 * disabled after cfg.max_errors errors. Reentrant: no global state; one host is used by one thread. */
#ifndef UBPARSE_UBLUA_H
#define UBPARSE_UBLUA_H

#include "ubparse/audit.h"
#include "ubparse/state.h"
#include "ubparse/ubparse.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct ub_lua ub_lua;

typedef struct ub_lua_cfg {
    const ub_opts *opts;    /* decoder options for ub.decode/ub.build (NULL: defaults); copied */
    size_t mem_limit;       /* bytes per script (default 256 MiB); 0 = unlimited */
    uint64_t instr_limit;   /* VM instructions per callback (default 100,000,000); 0 = unlimited */
    unsigned max_errors;    /* errors after which a hook is disabled (default 10) */
    bool unsafe;            /* open io/os/package/debug and allow bytecode (--lua-unsafe) */
    FILE *out;              /* print(): default stdout */
    FILE *err;              /* script errors and warnings: default stderr */
    const char *tool;       /* "ubdump" / "ubreplay": prefix of messages */
    bool builtin_findings;  /* keep built-in rules' findings (ubdump --audit; default true). false:
                             * the engine runs only for on_match/on_finding, and after on_finding saw
                             * a built-in finding it is dropped, so the report holds the scripts'
                             * rules (and UB-LUA-001) only */
} ub_lua_cfg;
void ub_lua_cfg_default(ub_lua_cfg *c);

/* NULL only when out of memory. */
ub_lua *ub_lua_new(const ub_lua_cfg *cfg);
void ub_lua_free(ub_lua *u);

/* --lua-arg K=V (before ub_lua_load): visible as ub.args.K (a string) in every script. */
int ub_lua_arg(ub_lua *u, const char *kv, char *err, size_t errlen);
/* Load and run a script's chunk. Script rules (ub.rule{...}) are added to `rules` (NULL: ub.rule
 * raises an error), and so is the script-error rule UB-LUA-001 once. 0, or -1 with "file:line:
 * message" in err (syntax error, error at load time, budget or memory exceeded). */
int ub_lua_load(ub_lua *u, const char *path, ub_ruleset *rules, char *err, size_t errlen);
unsigned ub_lua_count(const ub_lua *u);

/* What the loaded scripts use, so that a front end runs only what is needed. */
enum ub_lua_wants {
    UB_LUA_W_PACKET = 1u << 0,  /* on_packet */
    UB_LUA_W_MATCH = 1u << 1,   /* on_match: needs the state engine (transaction/management/TP layers) */
    UB_LUA_W_FINDING = 1u << 2, /* on_finding, ub.suppress/ub.rerate: needs the engine */
    UB_LUA_W_END = 1u << 3,     /* on_end */
    UB_LUA_W_RULES = 1u << 4,   /* registered rules (ub.report needs a collector) */
    UB_LUA_W_SCENARIO = 1u << 5 /* a global function `scenario` (ubreplay) */
};
unsigned ub_lua_wants(const ub_lua *u);

/* ---------------------------------------------------------------- audit (ubdump --lua) */
/* Install the hooks (finding, match, note) on the audit session and direct ub.report to it.
 * The session then runs one engine in the caller's thread (audit.h): -j N does not apply. */
void ub_lua_attach(ub_lua *u, ub_audit *a);
/* Do the scripts need the state engine (on_match, on_finding, ub.suppress/ub.rerate)? Then the
 * session runs with hooks, i.e. one engine. */
bool ub_lua_needs_engine(const ub_lua *u);
/* One packet in capture order: the packet becomes current (pkt objects valid), the audit session
 * sees it (a may be NULL: no engine), then on_packet runs. Returns ub_audit_packet's result. */
int ub_lua_audit_packet(ub_lua *u, ub_audit *a, const ub_view *v, const ub_pktinfo *pi);
/* End of input: on_end of every script (before ub_audit_finish, so ub.report still counts; the
 * engine's end-of-capture findings come after, through on_finding). */
void ub_lua_end(ub_lua *u);
/* Script errors so far (each is also a UB-LUA-001 finding when an audit is attached). */
uint64_t ub_lua_errors(const ub_lua *u);
/* Errors in hooks that ub_audit_finish ran (on_finding of end-of-capture findings): the session
 * takes no findings any more, so they are only on standard error — front ends fail the run. */
uint64_t ub_lua_late_errors(const ub_lua *u);

/* ---------------------------------------------------------------- documentation */
/* The `ub` module reference in Markdown, generated from the bindings' registration tables
 * (ubdump -G lua; scripts/gen-docs.sh writes it into docs/lua.md). */
void ub_lua_doc(FILE *f);
/* the Lua release the bindings were built with, e.g. "Lua 5.4.4" (--version) */
const char *ub_lua_version(void);

#ifdef __cplusplus
}
#endif
#endif

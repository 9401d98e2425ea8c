/* Internals of the Lua bindings (libubparse/lua/). See ublua.h for the C API and docs/lua.md for
 * the Lua side. Files:
 *   host.c   the host (ub_lua), one sandboxed lua_State per script, allocator cap, instruction
 *            budget, protected calls with traceback, hook dispatch, error findings
 *   pkt.c    packet objects (light userdata for hooks), field extractors, ub.decode
 *   obj.c    display filters, match objects (on_match), finding objects (on_finding)
 *   mod.c    the `ub` module table: ub.build, u64 helpers, schema queries, rules and reports
 *   flow.c   flow keys (like the state engine's) and bounded per-flow tables
 *   doc.c    the module reference, generated from the registration tables below
 * Every function or property a script can reach is one row of a ubl_reg table: the row binds the
 * C function and carries its documentation, so the reference cannot drift from the code. */
#ifndef UBL_H
#define UBL_H

#include "ubparse/audit.h"
#include "ubparse/filter.h"
#include "ubparse/ublua.h"

#include <lauxlib.h>
#include <lua.h>
#include <stdint.h>

/* ---------------------------------------------------------------- registration tables */
typedef struct ubl_pktref ubl_pktref;
typedef int (*ubl_getter)(lua_State *L, const ubl_pktref *p);

typedef struct ubl_reg {
    const char *name;  /* Lua name within its table ("field", "has", "frame") */
    lua_CFunction fn;  /* function / method; NULL for properties and documented-only rows */
    ubl_getter get;    /* property getter (packet objects) */
    const char *sig;   /* e.g. "ub.field(name) → extractor" */
    const char *doc;   /* Markdown, one paragraph */
} ubl_reg;

typedef struct ubl_section {
    const char *title;
    const char *intro;      /* Markdown */
    const ubl_reg *rows;    /* NULL-name terminated */
} ubl_section;

extern const ubl_reg ubl_mod_fns[];    /* ub.*                     (mod.c) */
extern const ubl_reg ubl_u64_fns[];    /* ub.u64.*                 (mod.c) */
extern const ubl_reg ubl_hooks[];      /* global hook functions    (host.c, documented rows) */
extern const ubl_reg ubl_pkt_regs[];   /* packet methods + props   (pkt.c) */
extern const ubl_reg ubl_fx_regs[];    /* extractor methods + props(pkt.c) */
extern const ubl_reg ubl_match_regs[]; /* on_match request object  (pkt.c) */
extern const ubl_reg ubl_find_regs[];  /* on_finding object        (pkt.c) */
extern const ubl_reg ubl_flow_regs[];  /* flow tables              (flow.c) */
extern const ubl_reg ubl_filter_regs[];/* compiled filters         (pkt.c) */
extern const ubl_reg ubl_rule_regs[];  /* rule objects             (mod.c) */
extern const ubl_reg ubl_sandbox[];    /* base-library changes     (host.c, documented rows) */
extern const ubl_section ubl_sections[];

/* ---------------------------------------------------------------- hooks */
enum { UBL_H_PACKET, UBL_H_MATCH, UBL_H_FINDING, UBL_H_END, UBL_H_SCENARIO, UBL_H__COUNT };

/* ---------------------------------------------------------------- host and scripts */
typedef struct ubl_script ubl_script;

/* per rule index: what ub.suppress / ub.rerate asked for (applied in C, no Lua call) */
enum { UBL_RR_KEEP = 0, UBL_RR_NOTE = 1, UBL_RR_WARN = 2, UBL_RR_ERROR = 3, UBL_RR_DROP = 4 };

struct ub_lua {
    ub_lua_cfg cfg;
    ub_opts opts;
    ubl_script **s;
    unsigned n;
    ub_ruleset *rules;
    int err_rule;          /* index of UB-LUA-001 in rules, -1 none */
    ub_audit *audit;       /* ub.report target */
    char **args;           /* "K=V" strings */
    unsigned nargs;
    uint64_t errors;
    uint64_t late_errors;  /* errors after ub_lua_end (hooks run by ub_audit_finish): not in the report */
    unsigned wants;
    /* the current packet (valid while pkt_live) */
    const ub_view *v;
    ub_pktinfo pi;
    uint64_t pkt_gen;      /* changes per packet: pkt objects of older packets are stale */
    bool pkt_live;
    ub_audit *fed;         /* the session the current packet was fed to (NULL: none) */
    /* the current match / finding (on_match / on_finding) */
    const ub_match *m;
    ub_finding *f;
    uint64_t m_gen, f_gen; /* change after every match / finding callback */
    char fmsg[256];        /* f.message assigned in on_finding (lives until the finding is kept) */
    bool in_finding;       /* on_finding running: findings it raises are not fed back to it */
    bool loading;          /* a chunk is being loaded (ub.rule allowed) */
    ubl_script *cur_load;  /* the script being loaded */
    bool ended;
    uint8_t *rerate;       /* [rule count] UBL_RR_*, NULL none */
    unsigned nrerate;
    ub_builder *builder;   /* ub.build, created on first use */
    char *keys[32];        /* interned ub.report key names */
    unsigned nkeys;
    /* a scenario is running (scen.c): its state, and where ub.report goes (the runner: findings
     * cite the packets by their runner ids) */
    struct ubl_scen *scen;
    int (*scen_report)(lua_State *L, const char *rule_id, int severity, const char *msg, uint32_t line,
                       const uint64_t *seqs, unsigned nseqs);
};

struct ubl_script {
    ub_lua *host;
    lua_State *L;
    char *path;
    size_t mem, mem_peak, mem_limit;
    bool mem_hit;          /* the allocator refused a block because of the cap */
    bool warn_on, warn_cont;
    uint64_t budget;       /* instructions left in the current callback */
    bool counting;         /* a callback is running under the budget */
    const char *kill;      /* budget exhausted: reason (the script is stopped until the callback ends) */
    char kill_msg[160];
    int fn_ref[UBL_H__COUNT];
    unsigned fn_err[UBL_H__COUNT];
    bool fn_off[UBL_H__COUNT];
    /* where the last error happened (message handler) */
    char err_src[256];
    uint32_t err_line;
    int hook_count;        /* instructions between count-hook calls */
    char load_err[1024];   /* message of a failed load-time call */
    lua_State *run;        /* thread inside a C function of this script that may call back into it */
};

static inline ubl_script *ubl_script_of(lua_State *L) { return *(ubl_script **)lua_getextraspace(L); }
static inline ub_lua *ubl_host(lua_State *L) { return ubl_script_of(L)->host; }

/* Call the function on top of the stack (below its nargs arguments) under the budget and the
 * message handler; reports errors against hook `which` (-1: load). Returns the pcall status. */
int ubl_pcall(ubl_script *s, lua_State *L, int nargs, int nres, int which);
/* The thread to call a script's hooks on: the one running the script's C call that led here
 * (ub.report from a coroutine), else the main thread. */
static inline lua_State *ubl_thread(ubl_script *s) { return s->run ? s->run : s->L; }
/* Report a script error (already formatted message) as stderr text + UB-LUA-001 finding. */
void ubl_script_error(ubl_script *s, const char *where, const char *msg);
/* file:line of the calling Lua code (level 1 = the function that called the C function). */
void ubl_where(lua_State *L, const char **src, uint32_t *line);
/* Raise a Lua error with a formatted message prefixed by the script position (luaL_error). */
#define ubl_error luaL_error

/* ---------------------------------------------------------------- packet objects (pkt.c) */
/* A packet reference as resolved from a Lua value: the current packet (light userdata, checked
 * against the host's generation) or a decoded packet (full userdata owning its view). */
struct ubl_pktref {
    const ub_view *v;
    const ub_pktinfo *pi;
    ub_lua *host;
    bool current;          /* the host's current packet (tp flags of the audit valid) */
};

/* light-userdata tags (low 2 bits of the encoded value) */
enum { UBL_LU_PKT = 1, UBL_LU_MATCH = 2, UBL_LU_FINDING = 3 };
static inline void *ubl_lu(uint64_t gen, unsigned tag) { return (void *)(uintptr_t)((gen << 2) | tag); }

void ubl_pkt_init(lua_State *L);         /* metatables, extractor cache */
void ubl_obj_init(lua_State *L);         /* filter metatable and cache (obj.c) */
int ubl_finding_set(lua_State *L);       /* __newindex of finding objects (obj.c) */
void ubl_push_pkt(lua_State *L);         /* the host's current packet */
void ubl_push_match(lua_State *L);       /* the host's current match */
void ubl_push_finding(lua_State *L);     /* the host's current finding */
/* Resolve arg idx as a packet; raises a Lua error when it is not one or is stale. */
void ubl_check_pkt(lua_State *L, int idx, ubl_pktref *out);
bool ubl_is_pkt(lua_State *L, int idx);
int ubl_decode(lua_State *L);            /* ub.decode */
/* a packet object the script owns: the record decoded with the host's options; latency (-1: none)
 * and seq (runner packet id, 0: none) for scenario answers */
void ubl_push_dpkt(lua_State *L, const uint8_t *b, size_t n, unsigned entry, const ub_pktinfo *pi, int64_t latency,
                   uint64_t seq);
uint64_t ubl_pkt_seq(lua_State *L, int idx); /* runner id of a packet object (0: none) */
int ubl_field_new(lua_State *L);         /* ub.field */
int ubl_filter_new(lua_State *L);        /* ub.filter */
bool ubl_filter_test(lua_State *L, int fidx, const ubl_pktref *p); /* filter object or string at fidx */
int ubl_entry_parse(const char *s);      /* "flit" ... -> ub_entry, -1 unknown */
const char *ubl_entry_name(unsigned e);  /* ub_entry -> "flit" ... */
/* push the value of field f of layer l as the Lua value scripts see; returns 0 if absent */
int ubl_push_value(lua_State *L, const ub_layer *l, const ub_field *f);
const char *ubl_sev_name(unsigned sev);
/* __index helpers: a table name -> method (function) or property (row index); ubl_dispatch looks
 * key (stack 2) up in the table at upvalue `up` and calls the row's getter. */
void ubl_dispatch_table(lua_State *L, const ubl_reg *regs);
int ubl_dispatch(lua_State *L, int up, const ubl_reg *regs, const char *what, const ubl_pktref *p);
int ubl_sev_parse(const char *s);        /* -1 unknown */

/* ---------------------------------------------------------------- module (mod.c), flows (flow.c) */
void ubl_mod_open(lua_State *L);         /* builds the `ub` global */
void ubl_flow_init(lua_State *L);
int ubl_flow_new(lua_State *L);          /* ub.flows */
int ubl_flow_key(lua_State *L);          /* ub.flow_key */
const char *ubl_rule_check(lua_State *L, int idx, int *rule_idx); /* a rule object or id string */

#endif

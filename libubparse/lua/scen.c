/* Lua scenarios (ubreplay --scenario FILE.lua): the script's global `scenario()` runs top to bottom
 * over the scenario runner (ubparse/runner.h) with the globals send, expect, expect_none, sleep,
 * check, fail and now; ub.report goes to the runner (findings cite the runner's packet ids). Every runner primitive
 * blocks until it is done, so the script reads as straight-line code. */
#include "ubl.h"
#include "ubparse/runner.h"

#include <math.h>
#include <string.h>

struct ubl_scen {
    ub_runner *r;
    bool stopped; /* a safety cap stopped the run */
};

static ub_runner *runner_of(lua_State *L)
{
    ub_lua *u = ubl_host(L);
    if (!u->scen) luaL_error(L, "send/expect/sleep/check: only inside scenario() under ubreplay --scenario");
    return u->scen->r;
}

static uint64_t secs(lua_State *L, int idx, const char *what)
{
    lua_Number t = luaL_checknumber(L, idx);
    if (!(t >= 0) || t > 1e6) luaL_error(L, "%s: a time in seconds from 0 to 1e6", what);
    return (uint64_t)llround(t * 1e9);
}

/* optional number field k of the options table at idx: seconds -> ns; returns false if absent */
static bool opt_secs(lua_State *L, int idx, const char *k, uint64_t *ns)
{
    if (lua_type(L, idx) != LUA_TTABLE) return false;
    lua_getfield(L, idx, k);
    bool have = !lua_isnil(L, -1);
    if (have) *ns = secs(L, -1, k);
    lua_pop(L, 1);
    return have;
}

static const char *opt_str(lua_State *L, int idx, const char *k)
{
    if (lua_type(L, idx) != LUA_TTABLE) return NULL;
    lua_getfield(L, idx, k);
    const char *s = lua_tostring(L, -1); /* stays on the stack (anchored) until the function returns */
    return s;
}

/* send(packet [, {fault=, entry=, at=, after=, offset=, xor=, count=}]) -> true, or false when a
 * safety cap stopped the run. packet: a ub.build table or bytes (entry= names their framing,
 * default eth). */
static int s_send(lua_State *L)
{
    ub_runner *r = runner_of(L);
    const char *src;
    ub_send_opt o;
    memset(&o, 0, sizeof o);
    ubl_where(L, &src, &o.src_line);
    int entry = UB_ENTRY_ETH;
    if (lua_istable(L, 1)) {
        lua_getglobal(L, "ub");
        luaL_argcheck(L, lua_istable(L, -1), 1, "the ub module is gone");
        lua_getfield(L, -1, "build");
        lua_pushvalue(L, 1);
        lua_call(L, 1, 2); /* bytes, entry name */
        entry = ubl_entry_parse(luaL_checkstring(L, -1));
        lua_pop(L, 1);
        lua_replace(L, 1); /* the bytes replace the table */
        lua_pop(L, 1);     /* ub */
    } else {
        const char *e = opt_str(L, 2, "entry");
        if (e) entry = ubl_entry_parse(e);
    }
    if (entry < 0) return luaL_error(L, "send: unknown entry (ubdump -o help lists them)");
    size_t n;
    const char *b = luaL_checklstring(L, 1, &n);
    if (n == 0 || n > 65535) return luaL_error(L, "send: a packet of 1 to 65535 bytes, not %d", (int)n);
    const char *f = opt_str(L, 2, "fault");
    if (f) {
        if (strcmp(f, "drop") == 0) o.fault = UB_FAULT_DROP;
        else if (strcmp(f, "corrupt") == 0) o.fault = UB_FAULT_CORRUPT;
        else if (strcmp(f, "reorder") == 0) o.fault = UB_FAULT_REORDER;
        else if (strcmp(f, "dup") == 0 || strcmp(f, "duplicate") == 0) o.fault = UB_FAULT_DUP;
        else return luaL_error(L, "send: fault \"%s\" (drop, corrupt, reorder, dup)", f);
    }
    o.corrupt_off = UINT32_MAX;
    if (lua_type(L, 2) == LUA_TTABLE) {
        lua_getfield(L, 2, "offset");
        if (!lua_isnil(L, -1)) o.corrupt_off = (uint32_t)luaL_checkinteger(L, -1);
        lua_getfield(L, 2, "xor");
        if (!lua_isnil(L, -1)) o.corrupt_xor = (uint8_t)luaL_checkinteger(L, -1);
        lua_getfield(L, 2, "reorder");
        if (!lua_isnil(L, -1)) o.reorder = (unsigned)luaL_checkinteger(L, -1);
        lua_pop(L, 3);
    }
    uint64_t t;
    if (opt_secs(L, 2, "at", &t)) o.at = ub_runner_start(r) + t;
    else if (opt_secs(L, 2, "after", &t)) o.at = ub_runner_last_send_time(r) + t;
    int rc = ub_runner_send(r, (const uint8_t *)b, (uint32_t)n, (ub_entry)entry, &o);
    if (rc < 0) return luaL_error(L, "send: %s", ub_runner_error(r));
    if (rc == 1) ubl_host(L)->scen->stopped = true;
    lua_pushboolean(L, rc == 0);
    return 1;
}

/* expect(filter [, {within=, at=, tol=, tolpct=, ref=, label=, none=}]) -> the answer (a packet
 * object with pkt.latency) or nil, why ("mismatch", "late", "timeout", ...); none=true: true when
 * nothing matching came. Times in seconds; ref: the reference in seconds since the start (default
 * the last send). A failure is a finding (UB-SC-001...004) at the line of the call. */
static int expect_common(lua_State *L, bool none)
{
    ub_runner *r = runner_of(L);
    ub_expect e;
    memset(&e, 0, sizeof e);
    e.filter = luaL_checkstring(L, 1);
    e.tol_abs_ns = -1;
    e.tol_pct = -1;
    e.none = none;
    const char *src;
    ubl_where(L, &src, &e.src_line);
    opt_secs(L, 2, "within", &e.within_ns);
    opt_secs(L, 2, "at", &e.at_ns);
    uint64_t tol, ref;
    if (opt_secs(L, 2, "ref", &ref)) e.ref = ub_runner_start(r) + ref;
    if (opt_secs(L, 2, "tol", &tol)) e.tol_abs_ns = (int64_t)tol;
    e.label = opt_str(L, 2, "label");
    if (lua_type(L, 2) == LUA_TTABLE) {
        lua_getfield(L, 2, "tolpct");
        if (!lua_isnil(L, -1)) e.tol_pct = luaL_checknumber(L, -1);
        lua_getfield(L, 2, "none");
        e.none = none || lua_toboolean(L, -1);
        lua_pop(L, 2);
    }
    ub_got g;
    int st = ub_runner_expect(r, &e, &g);
    if (st == UB_EXP_ERROR) return luaL_error(L, "expect: %s", ub_runner_error(r));
    if (st == UB_EXP_OK && e.none) { lua_pushboolean(L, 1); return 1; }
    if (st == UB_EXP_OK) {
        ubl_push_dpkt(L, g.data, g.len, g.entry, NULL, (int64_t)g.latency_ns, g.seq);
        return 1;
    }
    lua_pushnil(L);
    lua_pushstring(L, ub_expect_status_name(st));
    return 2;
}

static int s_expect(lua_State *L) { return expect_common(L, false); }
/* expect_none(filter [, opts]): nothing matching may arrive within the window (UB-SC-004) */
static int s_expect_none(lua_State *L) { return expect_common(L, true); }

static int s_sleep(lua_State *L)
{
    ub_runner *r = runner_of(L);
    int rc = ub_runner_sleep(r, secs(L, 1, "sleep"));
    if (rc < 0) return luaL_error(L, "sleep: %s", ub_runner_error(r));
    if (rc == 1) ubl_host(L)->scen->stopped = true;
    return 0;
}

/* a UB-SC-005 finding at the caller's line, citing the packet at idx (if it is one) */
static void sc_fail(lua_State *L, ub_runner *r, const char *msg, int pidx)
{
    const char *src;
    uint32_t line;
    ubl_where(L, &src, &line);
    uint64_t seq = ubl_is_pkt(L, pidx) ? ubl_pkt_seq(L, pidx) : 0;
    if (ub_runner_finding(r, "UB-SC-005", -1, msg, line, &seq, seq ? 1 : 0) < 0)
        luaL_error(L, "check: %s", ub_runner_error(r));
}

/* check(cond, msg [, pkt]) -> cond as a boolean; false raises UB-SC-005 */
static int s_check(lua_State *L)
{
    ub_runner *r = runner_of(L);
    luaL_checkany(L, 1);
    bool ok = lua_toboolean(L, 1);
    if (!ok) sc_fail(L, r, luaL_optstring(L, 2, "check failed"), 3);
    lua_pushboolean(L, ok);
    return 1;
}

/* fail(msg [, pkt]): UB-SC-005 */
static int s_fail(lua_State *L)
{
    sc_fail(L, runner_of(L), luaL_optstring(L, 1, "scenario failed"), 2);
    return 0;
}

/* now() -> nanoseconds since the scenario started (runner clock), an integer */
static int s_now(lua_State *L)
{
    ub_runner *r = runner_of(L);
    lua_pushinteger(L, (lua_Integer)(ub_runner_now(r) - ub_runner_start(r)));
    return 1;
}

static int scen_report(lua_State *L, const char *rule_id, int severity, const char *msg, uint32_t line,
                       const uint64_t *seqs, unsigned nseqs)
{
    ub_lua *u = ubl_host(L);
    return ub_runner_finding(u->scen->r, rule_id, severity, msg, line, seqs, nseqs);
}

static const luaL_Reg scen_fns[] = {
    { "send", s_send }, { "expect", s_expect }, { "expect_none", s_expect_none }, { "sleep", s_sleep },
    { "check", s_check }, { "fail", s_fail }, { "now", s_now }, { NULL, NULL },
};

int ub_lua_scenario_run(ub_lua *u, ub_runner *r, char *err, size_t errlen)
{
    struct ubl_scen sc = { r, false };
    unsigned ran = 0;
    int status = 0;
    u->scen = &sc;
    u->scen_report = scen_report;
    for (unsigned i = 0; i < u->n && !sc.stopped; i++) {
        ubl_script *s = u->s[i];
        if (s->fn_ref[UBL_H_SCENARIO] == LUA_NOREF) continue;
        lua_State *L = s->L;
        for (const luaL_Reg *f = scen_fns; f->name; f++) lua_register(L, f->name, f->func);
        lua_rawgeti(L, LUA_REGISTRYINDEX, s->fn_ref[UBL_H_SCENARIO]);
        if (ubl_pcall(s, L, 0, 0, UBL_H_SCENARIO) != LUA_OK) status = 1;
        ran++;
    }
    u->scen = NULL;
    u->scen_report = NULL;
    if (!ran) {
        snprintf(err, errlen, "no script defines a global function scenario()");
        return 2;
    }
    return sc.stopped ? 3 : status;
}

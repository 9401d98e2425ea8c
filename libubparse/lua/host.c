/* The Lua host: one sandboxed lua_State per script (own globals, own memory cap), the instruction
 * budget (count hook), protected calls with traceback, and the dispatch of the audit hooks.
 * Model: Suricata's Lua sandbox (restricted libraries, allocator limit, instruction limit). */
#include "ubl.h"

#include <lualib.h>
#include <stdlib.h>
#include <string.h>

/* ================================================================ documented hook functions */
const ubl_reg ubl_hooks[] = {
    { "on_packet", NULL, NULL, "function on_packet(pkt)",
      "Called for every packet in capture order, after the state engine has seen it (so `pkt.tp_flags` "
      "and the findings of this packet are known). `pkt` is valid only during the call." },
    { "on_match", NULL, NULL, "function on_match(req, rsp, latency)",
      "A request matched to its response by the state engine: `req` is a match object (request frame, "
      "opcode, kind), `rsp` the current packet (the response), `latency` in nanoseconds. Called during "
      "the response packet, before its `on_packet`. Defining it runs the state engine." },
    { "on_finding", NULL, NULL, "function on_finding(f) → false | nil",
      "Every finding before it is counted: built-in rules, script rules (raised by other scripts or "
      "outside this hook) and end-of-capture findings. Return `false` to suppress it; assign "
      "`f.severity = \"note\"` to re-rate it. Findings raised inside `on_finding` are not fed back to it. "
      "Defining it runs the state engine." },
    { "on_end", NULL, NULL, "function on_end()",
      "After the last packet, before the report is written: print summaries, raise end-of-capture "
      "findings with `ub.report`. (The engine's own end-of-capture findings arrive after it, through "
      "`on_finding`.)" },
    { "scenario", NULL, NULL, "function scenario()",
      "ubreplay `--scenario FILE.lua`: the body of the scenario, run as a coroutine (see Scenarios)." },
    { NULL, NULL, NULL, NULL, NULL }
};

const ubl_reg ubl_sandbox[] = {
    { "libraries", NULL, NULL, "base, table, string, math, utf8, coroutine",
      "The only standard libraries opened. `io`, `os`, `package`/`require`, `debug`, `dofile` and "
      "`loadfile` are absent, and `load` accepts text chunks only; `--lua-unsafe` opens every standard "
      "library (and bytecode) for trusted scripts." },
    { "print", NULL, NULL, "print(...)", "Writes to the tool's standard output, like the packet lines." },
    { "setmetatable", NULL, NULL, "setmetatable(t, mt)",
      "Refuses metatables with `__gc`: finalizers run with hooks disabled, so no budget could stop one." },
    { "string.rep", NULL, NULL, "string.rep(s, n [, sep])",
      "Checks the result size first (an empty result of 10^18 copies would otherwise loop inside C, "
      "where no budget applies; a result beyond the memory limit fails at once)." },
    { "C functions", NULL, NULL, "string.find/match/gsub, table.sort, ...",
      "The budget counts VM instructions: a single library call is not interrupted while it runs in C "
      "(e.g. a pattern with heavy backtracking over a long string); it is charged when it returns." },
    { "collectgarbage", NULL, NULL, "collectgarbage(opt)",
      "Only `\"collect\"`, `\"count\"`, `\"step\"` and `\"isrunning\"` (a script cannot stop the collector)." },
    { "budget", NULL, NULL, "--lua-budget N",
      "At most N VM instructions per callback (default 100,000,000; 0 = unlimited). When exhausted the "
      "callback is stopped with an error naming the line; `pcall`/`xpcall`/`coroutine.resume` cannot "
      "catch it." },
    { "memory", NULL, NULL, "--lua-memory MB",
      "Each script's Lua state may use at most MB MiB (default 256; 0 = unlimited); an allocation "
      "beyond it fails with a memory error." },
    { "errors", NULL, NULL, "--lua-max-errors N",
      "A script error is printed with file:line and traceback and raised as a finding of rule "
      "`UB-LUA-001` (severity error: it fails the run, because the check did not run as written). "
      "After N errors (default 10) that hook is disabled." },
    { NULL, NULL, NULL, NULL, NULL }
};

/* ================================================================ allocator with a cap */
static void *ubl_alloc(void *ud, void *ptr, size_t osize, size_t nsize)
{
    ubl_script *s = ud;
    size_t old = ptr ? osize : 0;
    if (nsize == 0) {
        free(ptr);
        s->mem -= old;
        return NULL;
    }
    if (s->mem_limit && nsize > old && s->mem - old + nsize > s->mem_limit) {
        s->mem_hit = true;
        return NULL;
    }
    void *p = realloc(ptr, nsize);
    if (!p) return NULL;
    s->mem = s->mem - old + nsize;
    if (s->mem > s->mem_peak) s->mem_peak = s->mem;
    return p;
}

/* ================================================================ instruction budget */
static const char *kill_text(ubl_script *s)
{
    snprintf(s->kill_msg, sizeof s->kill_msg, "%s (%llu instructions per callback, --lua-budget)", s->kill,
             (unsigned long long)s->host->cfg.instr_limit);
    return s->kill_msg;
}

static void count_hook(lua_State *L, lua_Debug *ar)
{
    (void)ar;
    ubl_script *s = ubl_script_of(L);
    int cnt = lua_gethookcount(L);
    if (!s->counting) return;
    if (!s->kill) {
        if (s->budget > (uint64_t)cnt) {
            s->budget -= (uint64_t)cnt;
            if (cnt != s->hook_count) lua_sethook(L, count_hook, LUA_MASKCOUNT, s->hook_count);
            return;
        }
        s->kill = "instruction budget exceeded";
    }
    /* from now on every instruction of every thread of this script fails until the callback ends */
    if (cnt != 1) lua_sethook(L, count_hook, LUA_MASKCOUNT, 1);
    char msg[300];
    lua_Debug d;
    if (lua_getstack(L, 0, &d) && lua_getinfo(L, "Sl", &d) && d.currentline > 0)
        snprintf(msg, sizeof msg, "%s:%d: %s", d.short_src, d.currentline, kill_text(s));
    else
        snprintf(msg, sizeof msg, "%s", kill_text(s));
    luaL_error(L, "%s", msg);
}

/* pcall / xpcall / coroutine.resume: once the budget is gone, the error passes through them */
static int guard_k(lua_State *L, int status, lua_KContext ctx)
{
    (void)status;
    (void)ctx;
    ubl_script *s = ubl_script_of(L);
    if (s->kill) return luaL_error(L, "%s", kill_text(s));
    return lua_gettop(L);
}
static int guard(lua_State *L)
{
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_insert(L, 1);
    lua_callk(L, lua_gettop(L) - 1, LUA_MULTRET, 0, guard_k);
    return guard_k(L, LUA_OK, 0);
}
static void wrap_guard(lua_State *L, int tidx, const char *name)
{
    tidx = lua_absindex(L, tidx);
    if (lua_getfield(L, tidx, name) != LUA_TFUNCTION) {
        lua_pop(L, 1);
        return;
    }
    lua_pushcclosure(L, guard, 1);
    lua_setfield(L, tidx, name);
}

/* ================================================================ sandbox */
static int l_print(lua_State *L)
{
    ub_lua *u = ubl_host(L);
    int n = lua_gettop(L);
    for (int i = 1; i <= n; i++) {
        size_t len;
        const char *t = luaL_tolstring(L, i, &len);
        if (i > 1) fputc('\t', u->cfg.out);
        fwrite(t, 1, len, u->cfg.out);
        lua_pop(L, 1);
    }
    fputc('\n', u->cfg.out);
    return 0;
}

static int l_collectgarbage(lua_State *L)
{
    static const char *const ok[] = { "collect", "count", "step", "isrunning", NULL };
    luaL_checkoption(L, 1, "collect", ok);
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_insert(L, 1);
    lua_call(L, lua_gettop(L) - 1, LUA_MULTRET);
    return lua_gettop(L);
}

/* load(chunk [, name [, mode [, env]]]) with mode forced to "t" (an absent env must stay absent:
 * the base library's load treats an explicit nil as "no globals") */
static int l_load(lua_State *L)
{
    int n = lua_gettop(L);
    luaL_checkany(L, 1);
    int nargs = n >= 4 ? 4 : 3;
    lua_settop(L, nargs);
    lua_pushliteral(L, "t");
    lua_replace(L, 3);
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_insert(L, 1);
    lua_call(L, nargs, LUA_MULTRET);
    return lua_gettop(L);
}

/* setmetatable refusing __gc: finalizers run with hooks disabled (lgc.c GCTM), so the instruction
 * budget could not stop one that loops */
static int l_setmetatable(lua_State *L)
{
    if (lua_type(L, 2) == LUA_TTABLE && lua_getfield(L, 2, "__gc") != LUA_TNIL)
        return luaL_error(L, "__gc metamethods are not available to scripts (finalizers cannot be budgeted)");
    lua_settop(L, 2);
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_insert(L, 1);
    lua_call(L, 2, 1);
    return 1;
}

/* string.rep with the size checked first: an empty result of 10^18 copies would loop in C (where
 * no hook runs), and a huge one is refused before it is attempted */
static int l_rep(lua_State *L)
{
    ubl_script *s = ubl_script_of(L);
    size_t l, lsep = 0;
    luaL_checklstring(L, 1, &l);
    lua_Integer n = luaL_checkinteger(L, 2);
    luaL_optlstring(L, 3, "", &lsep);
    if (n <= 0 || (l == 0 && lsep == 0)) {
        lua_pushliteral(L, "");
        return 1;
    }
    double total = (double)n * (double)l + (double)(n - 1) * (double)lsep;
    double cap = s->mem_limit ? (double)s->mem_limit : (double)((size_t)-1 >> 1);
    if (total > cap) {
        char m[96];
        snprintf(m, sizeof m, "string.rep: a %.0f-byte result exceeds the memory limit", total);
        return luaL_error(L, "%s", m);
    }
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_insert(L, 1);
    lua_call(L, lua_gettop(L) - 1, 1);
    return 1;
}

static void warnf(void *ud, const char *msg, int tocont)
{
    ubl_script *s = ud;
    static const char on[] = "@on", off[] = "@off";
    if (!s->warn_cont && msg[0] == '@') {
        if (strcmp(msg, on) == 0) s->warn_on = true;
        else if (strcmp(msg, off) == 0) s->warn_on = false;
        return;
    }
    if (s->warn_on) {
        if (!s->warn_cont) fprintf(s->host->cfg.err, "%s: lua warning: ", s->host->cfg.tool);
        fputs(msg, s->host->cfg.err);
        if (!tocont) fputc('\n', s->host->cfg.err);
    }
    s->warn_cont = tocont != 0;
}

static void open_libs(ubl_script *s)
{
    lua_State *L = s->L;
    if (s->host->cfg.unsafe) {
        luaL_openlibs(L);
    } else {
        static const luaL_Reg libs[] = {
            { LUA_GNAME, luaopen_base }, { LUA_TABLIBNAME, luaopen_table }, { LUA_STRLIBNAME, luaopen_string },
            { LUA_MATHLIBNAME, luaopen_math }, { LUA_UTF8LIBNAME, luaopen_utf8 }, { LUA_COLIBNAME, luaopen_coroutine },
            { NULL, NULL }
        };
        for (const luaL_Reg *l = libs; l->func; l++) {
            luaL_requiref(L, l->name, l->func, 1);
            lua_pop(L, 1);
        }
        lua_pushglobaltable(L);
        lua_pushnil(L);
        lua_setfield(L, -2, "dofile");
        lua_pushnil(L);
        lua_setfield(L, -2, "loadfile");
        lua_getfield(L, -1, "load");
        lua_pushcclosure(L, l_load, 1);
        lua_setfield(L, -2, "load");
        lua_getfield(L, -1, "collectgarbage");
        lua_pushcclosure(L, l_collectgarbage, 1);
        lua_setfield(L, -2, "collectgarbage");
        lua_pop(L, 1);
        /* math.random stays (the seed is per state); string.dump is harmless without bytecode loading */
    }
    lua_pushglobaltable(L);
    lua_pushcfunction(L, l_print);
    lua_setfield(L, -2, "print");
    lua_getfield(L, -1, "setmetatable");
    lua_pushcclosure(L, l_setmetatable, 1);
    lua_setfield(L, -2, "setmetatable");
    wrap_guard(L, -1, "pcall");
    wrap_guard(L, -1, "xpcall");
    if (lua_getfield(L, -1, "coroutine") == LUA_TTABLE) wrap_guard(L, -1, "resume");
    lua_pop(L, 1);
    if (lua_getfield(L, -1, "string") == LUA_TTABLE) {
        lua_getfield(L, -1, "rep");
        lua_pushcclosure(L, l_rep, 1);
        lua_setfield(L, -2, "rep");
    }
    lua_pop(L, 2);
}

/* ================================================================ errors */
/* message handler: error objects of any type, first Lua position remembered, traceback appended */
static int msgh(lua_State *L)
{
    ubl_script *s = ubl_script_of(L);
    const char *msg = lua_tostring(L, 1);
    if (!msg) {
        if (luaL_callmeta(L, 1, "__tostring") && lua_type(L, -1) == LUA_TSTRING) msg = lua_tostring(L, -1);
        else msg = lua_pushfstring(L, "(error object is a %s value)", luaL_typename(L, 1));
    }
    lua_Debug d;
    s->err_line = 0;
    s->err_src[0] = 0;
    for (int lv = 1; lua_getstack(L, lv, &d); lv++) {
        if (!lua_getinfo(L, "Sl", &d) || d.currentline <= 0) continue;
        const char *src = d.source && d.source[0] == '@' ? d.source + 1 : d.short_src;
        snprintf(s->err_src, sizeof s->err_src, "%s", src);
        s->err_line = (uint32_t)d.currentline;
        break;
    }
    luaL_traceback(L, L, msg, 1);
    return 1;
}

void ubl_where(lua_State *L, const char **src, uint32_t *line)
{
    lua_Debug d;
    *src = NULL;
    *line = 0;
    for (int lv = 1; lua_getstack(L, lv, &d); lv++) {
        if (!lua_getinfo(L, "Sl", &d) || d.currentline <= 0) continue;
        *src = d.source && d.source[0] == '@' ? d.source + 1 : d.short_src;
        *line = (uint32_t)d.currentline;
        return;
    }
}

static const char *hook_name(int which)
{
    return which >= 0 && which < UBL_H__COUNT ? ubl_hooks[which].name : "the script's chunk";
}

void ubl_script_error(ubl_script *s, const char *where, const char *msg)
{
    ub_lua *u = s->host;
    u->errors++;
    char fr[48] = "";
    if (u->pkt_live) snprintf(fr, sizeof fr, " (frame %llu)", (unsigned long long)u->pi.frame);
    fprintf(u->cfg.err, "%s: lua error in %s%s: %s\n", u->cfg.tool, where, fr, msg);
    if (!u->audit || u->err_rule < 0) return;
    if (u->ended) u->late_errors++; /* during ub_audit_finish: the session takes no findings any more */
    ub_finding f;
    memset(&f, 0, sizeof f);
    f.rule = (uint16_t)u->err_rule;
    f.severity = UB_SEV_ERROR;
    f.frame = u->pkt_live ? u->pi.frame : 0;
    f.detail = "Lua script error";
    f.key = "hook";
    snprintf(f.keytext, sizeof f.keytext, "%s", where);
    /* message: the first line (the traceback is on standard error) */
    char line[512];
    size_t n = strcspn(msg, "\n");
    if (n >= sizeof line) n = sizeof line - 1;
    memcpy(line, msg, n);
    line[n] = 0;
    f.message = line;
    f.src_uri = s->err_src[0] ? s->err_src : s->path;
    f.src_line = s->err_line;
    bool was = u->in_finding;
    u->in_finding = true; /* never offered to on_finding */
    ub_audit_add_finding(u->audit, &f);
    u->in_finding = was;
}

int ubl_pcall(ubl_script *s, lua_State *L, int nargs, int nres, int which)
{
    ub_lua *u = s->host;
    /* nested (a hook called from inside a C function of the same script, e.g. on_finding from
     * ub.report): shares the running callback's budget */
    bool nested = s->counting;
    s->err_line = 0;
    s->err_src[0] = 0;
    if (!nested) {
        s->kill = NULL;
        s->mem_hit = false;
        if (u->cfg.instr_limit) {
            s->budget = u->cfg.instr_limit;
            s->counting = true;
        }
    }
    int base = lua_gettop(L) - nargs;
    lua_pushcfunction(L, msgh);
    lua_insert(L, base);
    int st = lua_pcall(L, nargs, nres, base);
    lua_remove(L, base);
    if (!nested) {
        s->counting = false;
        s->kill = NULL;
    }
    if (st == LUA_OK) return st;
    char buf[160];
    const char *msg = lua_tostring(L, -1);
    if (st == LUA_ERRMEM) {
        snprintf(buf, sizeof buf, "not enough memory%s (%zu bytes in use, --lua-memory %zu MiB)",
                 s->mem_hit ? ": the script's memory limit was reached" : "", s->mem, u->cfg.mem_limit >> 20);
        msg = buf;
    } else if (st == LUA_ERRERR) {
        msg = "error in the error handler (an error object's __tostring failed?)";
    } else if (!msg) {
        msg = "(error object is not a string)";
    }
    if (which >= 0) {
        char where[300];
        snprintf(where, sizeof where, "%s of %s", hook_name(which), s->path);
        ubl_script_error(s, where, msg);
        if (u->cfg.max_errors && ++s->fn_err[which] >= u->cfg.max_errors && !s->fn_off[which]) {
            s->fn_off[which] = true;
            fprintf(u->cfg.err, "%s: lua: %s of %s disabled after %u errors\n", u->cfg.tool, hook_name(which), s->path,
                    s->fn_err[which]);
        }
    } else {
        snprintf(s->load_err, sizeof s->load_err, "%s", msg);
    }
    lua_pop(L, 1);
    return st;
}

/* ================================================================ scripts */
static void script_free(ubl_script *s)
{
    if (!s) return;
    if (s->L) lua_close(s->L);
    free(s->path);
    free(s);
}

static ubl_script *script_new(ub_lua *u, const char *path)
{
    ubl_script *s = calloc(1, sizeof *s);
    if (!s) return NULL;
    s->host = u;
    s->mem_limit = u->cfg.mem_limit;
    s->hook_count = 1000;
    if (u->cfg.instr_limit && u->cfg.instr_limit < 1000) s->hook_count = (int)u->cfg.instr_limit;
    s->path = strdup(path);
    for (int i = 0; i < UBL_H__COUNT; i++) s->fn_ref[i] = LUA_NOREF;
    if (!s->path) goto fail;
    s->L = lua_newstate(ubl_alloc, s);
    if (!s->L) goto fail;
    *(ubl_script **)lua_getextraspace(s->L) = s;
    lua_setwarnf(s->L, warnf, s);
    if (u->cfg.instr_limit) lua_sethook(s->L, count_hook, LUA_MASKCOUNT, s->hook_count);
    return s;
fail:
    script_free(s);
    return NULL;
}

/* runs in protected mode: libraries, the ub module, ub.args */
static int setup(lua_State *L)
{
    ubl_script *s = ubl_script_of(L);
    ub_lua *u = s->host;
    open_libs(s);
    ubl_pkt_init(L);
    ubl_obj_init(L);
    ubl_flow_init(L);
    ubl_mod_open(L);
    lua_getglobal(L, "ub");
    lua_newtable(L);
    for (unsigned i = 0; i < u->nargs; i++) {
        const char *eq = strchr(u->args[i], '=');
        lua_pushlstring(L, u->args[i], (size_t)(eq - u->args[i]));
        lua_pushstring(L, eq + 1);
        lua_rawset(L, -3);
    }
    lua_setfield(L, -2, "args");
    lua_pop(L, 1);
    return 0;
}

static int load_chunk(lua_State *L)
{
    ubl_script *s = ubl_script_of(L);
    int st = luaL_loadfilex(L, s->path, s->host->cfg.unsafe ? NULL : "t");
    if (st != LUA_OK) return lua_error(L);
    return 1;
}

void ub_lua_cfg_default(ub_lua_cfg *c)
{
    memset(c, 0, sizeof *c);
    c->mem_limit = (size_t)256 << 20;
    c->instr_limit = 100000000ull;
    c->max_errors = 10;
    c->tool = "ub";
    c->builtin_findings = true;
}

ub_lua *ub_lua_new(const ub_lua_cfg *cfg)
{
    ub_lua *u = calloc(1, sizeof *u);
    if (!u) return NULL;
    u->cfg = *cfg;
    if (!u->cfg.out) u->cfg.out = stdout;
    if (!u->cfg.err) u->cfg.err = stderr;
    if (!u->cfg.tool) u->cfg.tool = "ub";
    if (cfg->opts) u->opts = *cfg->opts;
    else ub_opts_default(&u->opts);
    u->err_rule = -1;
    u->pkt_gen = 1;
    u->m_gen = 1;
    u->f_gen = 1;
    return u;
}

void ub_lua_free(ub_lua *u)
{
    if (!u) return;
    for (unsigned i = 0; i < u->n; i++) script_free(u->s[i]);
    free(u->s);
    for (unsigned i = 0; i < u->nargs; i++) free(u->args[i]);
    free(u->args);
    free(u->rerate);
    for (unsigned i = 0; i < u->nkeys; i++) free(u->keys[i]);
    if (u->builder) ub_builder_free(u->builder);
    free(u);
}

int ub_lua_arg(ub_lua *u, const char *kv, char *err, size_t errlen)
{
    const char *eq = strchr(kv, '=');
    if (!eq || eq == kv) {
        snprintf(err, errlen, "--lua-arg wants KEY=VALUE, got '%s'", kv);
        return -1;
    }
    char **na = realloc(u->args, (u->nargs + 1) * sizeof *na);
    if (!na) goto oom;
    u->args = na;
    if (!(u->args[u->nargs] = strdup(kv))) goto oom;
    u->nargs++;
    return 0;
oom:
    snprintf(err, errlen, "out of memory");
    return -1;
}

static int err_rule(ub_lua *u, ub_ruleset *rs, char *err, size_t errlen)
{
    const ub_rule *r = ub_ruleset_find(rs, "UB-LUA-001");
    if (r) {
        u->err_rule = r->idx;
        return 0;
    }
    ub_rule nr = { 0, "UB-LUA-001", "script", UB_SEV_ERROR, "docs/lua.md",
                   "Lua script error: a hook failed, so its check did not run as written",
                   "message and traceback line; the script file and line" };
    int i = ub_ruleset_add(rs, &nr, err, errlen);
    if (i < 0) return -1;
    u->err_rule = i;
    return 0;
}

int ub_lua_load(ub_lua *u, const char *path, ub_ruleset *rules, char *err, size_t errlen)
{
    if (rules) {
        if (u->rules && u->rules != rules) {
            snprintf(err, errlen, "%s: all scripts must share one rule set", path);
            return -1;
        }
        u->rules = rules;
        if (err_rule(u, rules, err, errlen) < 0) return -1;
    }
    ubl_script **ns = realloc(u->s, (u->n + 1) * sizeof *ns);
    if (!ns) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    u->s = ns;
    ubl_script *s = script_new(u, path);
    if (!s) {
        snprintf(err, errlen, "%s: cannot create a Lua state (out of memory)", path);
        return -1;
    }
    lua_State *L = s->L;
    lua_pushcfunction(L, setup);
    if (ubl_pcall(s, L, 0, 0, -1) != LUA_OK) {
        snprintf(err, errlen, "%s: %s", path, s->load_err);
        script_free(s);
        return -1;
    }
    lua_pushcfunction(L, load_chunk);
    if (ubl_pcall(s, L, 0, 1, -1) != LUA_OK) { /* syntax error, missing file, bytecode refused */
        snprintf(err, errlen, "%s", s->load_err);
        script_free(s);
        return -1;
    }
    u->loading = true;
    u->cur_load = s;
    int st = ubl_pcall(s, L, 0, 0, -1);
    u->loading = false;
    u->cur_load = NULL;
    if (st != LUA_OK) {
        snprintf(err, errlen, "%s", s->load_err);
        script_free(s);
        return -1;
    }
    for (int i = 0; i < UBL_H__COUNT; i++) {
        if (lua_getglobal(L, ubl_hooks[i].name) == LUA_TFUNCTION) {
            s->fn_ref[i] = luaL_ref(L, LUA_REGISTRYINDEX);
        } else {
            lua_pop(L, 1);
        }
    }
    static const unsigned want[UBL_H__COUNT] = { UB_LUA_W_PACKET, UB_LUA_W_MATCH, UB_LUA_W_FINDING, UB_LUA_W_END,
                                                 UB_LUA_W_SCENARIO };
    for (int i = 0; i < UBL_H__COUNT; i++)
        if (s->fn_ref[i] != LUA_NOREF) u->wants |= want[i];
    u->s[u->n++] = s;
    return 0;
}

unsigned ub_lua_count(const ub_lua *u) { return u->n; }
unsigned ub_lua_wants(const ub_lua *u) { return u->wants; }
uint64_t ub_lua_errors(const ub_lua *u) { return u->errors; }
uint64_t ub_lua_late_errors(const ub_lua *u) { return u->late_errors; }

/* ================================================================ audit hooks */
static bool hook_finding(void *ctx, ub_finding *f)
{
    ub_lua *u = ctx;
    if ((int)f->rule == u->err_rule) return true; /* script errors: never suppressed nor shown to scripts */
    if (u->rerate && f->rule < u->nrerate) {
        switch (u->rerate[f->rule]) {
        case UBL_RR_DROP: return false;
        case UBL_RR_NOTE: f->severity = UB_SEV_NOTE; break;
        case UBL_RR_WARN: f->severity = UB_SEV_WARN; break;
        case UBL_RR_ERROR: f->severity = UB_SEV_ERROR; break;
        default: break;
        }
    }
    bool builtin = f->rule < ub_rule_count();
    if (u->in_finding || !(u->wants & UB_LUA_W_FINDING)) return u->cfg.builtin_findings || !builtin;
    bool keep = true;
    u->in_finding = true;
    u->f = f;
    for (unsigned i = 0; i < u->n && keep; i++) {
        ubl_script *s = u->s[i];
        if (s->fn_ref[UBL_H_FINDING] == LUA_NOREF || s->fn_off[UBL_H_FINDING]) continue;
        lua_State *L = ubl_thread(s);
        lua_rawgeti(L, LUA_REGISTRYINDEX, s->fn_ref[UBL_H_FINDING]);
        ubl_push_finding(L);
        if (ubl_pcall(s, L, 1, 1, UBL_H_FINDING) == LUA_OK) {
            if (lua_type(L, -1) == LUA_TBOOLEAN && !lua_toboolean(L, -1)) keep = false;
            lua_pop(L, 1);
        }
    }
    u->f = NULL;
    u->f_gen++;
    u->in_finding = false;
    return keep && (u->cfg.builtin_findings || !builtin);
}

static void hook_match(void *ctx, const ub_match *m)
{
    ub_lua *u = ctx;
    if (!(u->wants & UB_LUA_W_MATCH)) return;
    u->m = m;
    bool rsp = u->pkt_live && m->rsp_frame == u->pi.frame;
    for (unsigned i = 0; i < u->n; i++) {
        ubl_script *s = u->s[i];
        if (s->fn_ref[UBL_H_MATCH] == LUA_NOREF || s->fn_off[UBL_H_MATCH]) continue;
        lua_State *L = ubl_thread(s);
        lua_rawgeti(L, LUA_REGISTRYINDEX, s->fn_ref[UBL_H_MATCH]);
        ubl_push_match(L);
        if (rsp) ubl_push_pkt(L);
        else lua_pushnil(L);
        lua_pushinteger(L, (lua_Integer)m->latency_ns);
        ubl_pcall(s, L, 3, 0, UBL_H_MATCH);
    }
    u->m = NULL;
    u->m_gen++;
}

void ub_lua_attach(ub_lua *u, ub_audit *a)
{
    u->audit = a;
    if (!a) return;
    /* hooks only when a script needs them: a session with hooks runs one engine (audit.h) */
    if (ub_lua_needs_engine(u) || !u->cfg.builtin_findings) {
        ub_audit_hooks h;
        memset(&h, 0, sizeof h);
        h.ctx = u;
        h.finding = hook_finding;
        if (u->wants & UB_LUA_W_MATCH) h.match = hook_match;
        ub_audit_set_hooks(a, &h);
    }
}

bool ub_lua_needs_engine(const ub_lua *u)
{
    return (u->wants & (UB_LUA_W_MATCH | UB_LUA_W_FINDING)) || u->rerate;
}

int ub_lua_audit_packet(ub_lua *u, ub_audit *a, const ub_view *v, const ub_pktinfo *pi)
{
    u->v = v;
    u->pi = *pi;
    u->pkt_gen++;
    u->pkt_live = true;
    u->fed = a;
    int r = a ? ub_audit_packet(a, v, pi) : 0;
    if (u->wants & UB_LUA_W_PACKET) {
        for (unsigned i = 0; i < u->n; i++) {
            ubl_script *s = u->s[i];
            if (s->fn_ref[UBL_H_PACKET] == LUA_NOREF || s->fn_off[UBL_H_PACKET]) continue;
            lua_State *L = s->L;
            lua_rawgeti(L, LUA_REGISTRYINDEX, s->fn_ref[UBL_H_PACKET]);
            ubl_push_pkt(L);
            ubl_pcall(s, L, 1, 0, UBL_H_PACKET);
        }
    }
    u->pkt_live = false;
    u->v = NULL;
    return r;
}

void ub_lua_end(ub_lua *u)
{
    if (u->ended) return;
    u->ended = true;
    for (unsigned i = 0; i < u->n; i++) {
        ubl_script *s = u->s[i];
        if (s->fn_ref[UBL_H_END] == LUA_NOREF) continue;
        lua_rawgeti(s->L, LUA_REGISTRYINDEX, s->fn_ref[UBL_H_END]);
        ubl_pcall(s, s->L, 0, 0, UBL_H_END);
    }
}

const char *ub_lua_version(void) { return LUA_RELEASE; }

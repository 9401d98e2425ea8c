/* The `ub` module table: schema queries, ub.build, 64-bit helpers, script rules and ub.report. */
#include "ubl.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#define MT_RULE "ubl.rule"

/* ================================================================ schema queries */
static int m_fields(lua_State *L)
{
    const char *prefix = luaL_optstring(L, 1, "");
    size_t pl = strlen(prefix);
    lua_newtable(L);
    lua_newtable(L); /* seen (format variants share names) */
    lua_Integer n = 0;
    for (unsigned id = 0; id < UB_H__COUNT; id++) {
        const ub_hdr *h = ub_hdr_get(id);
        if (!h) continue;
        for (unsigned k = 0; k < h->nfields; k++) {
            const char *ab = h->fields[k].abbrev;
            if (strncmp(ab, prefix, pl) != 0) continue;
            if (lua_getfield(L, -1, ab) != LUA_TNIL) {
                lua_pop(L, 1);
                continue;
            }
            lua_pop(L, 1);
            lua_pushboolean(L, 1);
            lua_setfield(L, -2, ab);
            lua_pushstring(L, ab);
            lua_rawseti(L, -3, ++n);
        }
    }
    lua_pop(L, 1);
    return 1;
}

static int m_headers(lua_State *L)
{
    lua_newtable(L);
    lua_Integer n = 0;
    for (unsigned id = 0; id < UB_H__COUNT; id++) {
        const ub_hdr *h = ub_hdr_get(id);
        if (!h) continue;
        lua_createtable(L, 0, 5);
        lua_pushstring(L, h->key);
        lua_setfield(L, -2, "key");
        lua_pushfstring(L, "%s%s", ub_hdr_ns(h), h->abbrev);
        lua_setfield(L, -2, "abbrev");
        lua_pushstring(L, h->name);
        lua_setfield(L, -2, "name");
        lua_pushinteger(L, h->len);
        lua_setfield(L, -2, "len");
        lua_pushstring(L, h->spec);
        lua_setfield(L, -2, "spec");
        lua_rawseti(L, -2, ++n);
    }
    return 1;
}

static int m_errors(lua_State *L)
{
    static const char *const groups[] = { "malformed", "protocol", "sequence", "checksum" };
    lua_newtable(L);
    for (unsigned c = 1; c < UB_E__COUNT; c++) {
        const ub_err_info *ei = ub_err_get(c);
        if (!ei) continue;
        lua_createtable(L, 0, 3);
        lua_pushstring(L, ubl_sev_name(ei->severity));
        lua_setfield(L, -2, "severity");
        lua_pushstring(L, ei->group < 4 ? groups[ei->group] : "?");
        lua_setfield(L, -2, "group");
        lua_pushstring(L, ei->desc);
        lua_setfield(L, -2, "desc");
        lua_setfield(L, -2, ei->name);
    }
    return 1;
}

/* field + value name -> number, or number -> name, through a cached extractor */
static const ub_vname *field_vals(lua_State *L, int idx, const char **abbrev)
{
    const ub_hdr *h[8];
    const ub_field *f[8];
    const char *nm = luaL_checkstring(L, idx);
    size_t n = ub_field_find(nm, h, f, 8);
    for (size_t i = 0; i < n && i < 8; i++) {
        if (f[i]) {
            *abbrev = f[i]->abbrev;
            return f[i]->vals;
        }
    }
    luaL_error(L, "unknown field '%s'", nm);
    return NULL;
}
static int m_value(lua_State *L)
{
    const char *ab = NULL; /* field_vals() sets it or raises */
    const ub_vname *vn = field_vals(L, 1, &ab);
    const char *nm = luaL_checkstring(L, 2);
    for (; vn && vn->name; vn++) {
        if (strcmp(vn->name, nm) == 0) {
            lua_pushinteger(L, (lua_Integer)vn->value);
            return 1;
        }
    }
    return luaL_error(L, "'%s' is not a value name of %s", nm, ab);
}
static int m_valname(lua_State *L)
{
    const char *ab = NULL; /* field_vals() sets it or raises */
    const ub_vname *vn = field_vals(L, 1, &ab);
    const char *nm = ub_vname_lookup(vn, (uint64_t)luaL_checkinteger(L, 2));
    if (nm) lua_pushstring(L, nm);
    else lua_pushnil(L);
    return 1;
}

/* ================================================================ 64-bit helpers */
static uint64_t u64arg(lua_State *L, int i) { return (uint64_t)luaL_checkinteger(L, i); }
static int u_lt(lua_State *L) { lua_pushboolean(L, u64arg(L, 1) < u64arg(L, 2)); return 1; }
static int u_le(lua_State *L) { lua_pushboolean(L, u64arg(L, 1) <= u64arg(L, 2)); return 1; }
static int u_gt(lua_State *L) { lua_pushboolean(L, u64arg(L, 1) > u64arg(L, 2)); return 1; }
static int u_ge(lua_State *L) { lua_pushboolean(L, u64arg(L, 1) >= u64arg(L, 2)); return 1; }
static int u_max(lua_State *L)
{
    uint64_t a = u64arg(L, 1), b = u64arg(L, 2);
    lua_pushinteger(L, (lua_Integer)(a > b ? a : b));
    return 1;
}
static int u_min(lua_State *L)
{
    uint64_t a = u64arg(L, 1), b = u64arg(L, 2);
    lua_pushinteger(L, (lua_Integer)(a < b ? a : b));
    return 1;
}
static int u_div(lua_State *L)
{
    uint64_t a = u64arg(L, 1), b = u64arg(L, 2);
    if (!b) return luaL_error(L, "ub.u64.div by zero");
    lua_pushinteger(L, (lua_Integer)(a / b));
    return 1;
}
static int u_mod(lua_State *L)
{
    uint64_t a = u64arg(L, 1), b = u64arg(L, 2);
    if (!b) return luaL_error(L, "ub.u64.mod by zero");
    lua_pushinteger(L, (lua_Integer)(a % b));
    return 1;
}
static int u_str(lua_State *L)
{
    char b[32];
    snprintf(b, sizeof b, "%" PRIu64, u64arg(L, 1));
    lua_pushstring(L, b);
    return 1;
}
static int u_hex(lua_State *L)
{
    char b[40];
    int digits = (int)luaL_optinteger(L, 2, 0);
    if (digits < 0 || digits > 16) return luaL_argerror(L, 2, "0..16 digits");
    snprintf(b, sizeof b, "0x%0*" PRIx64, digits, u64arg(L, 1));
    lua_pushstring(L, b);
    return 1;
}
static int u_parse(lua_State *L)
{
    const char *s = luaL_checkstring(L, 1);
    char *end;
    errno = 0;
    if (*s == '-' || *s == '+' || *s == ' ') goto bad;
    unsigned long long v = strtoull(s, &end, 0);
    if (errno || end == s || *end) goto bad;
    lua_pushinteger(L, (lua_Integer)v);
    return 1;
bad:
    lua_pushnil(L);
    return 1;
}
static int u_float(lua_State *L)
{
    lua_pushnumber(L, (lua_Number)u64arg(L, 1));
    return 1;
}

const ubl_reg ubl_u64_fns[] = {
    { "lt", u_lt, NULL, "ub.u64.lt(a, b)", "Unsigned `a < b` of two 64-bit values (also `le`, `gt`, `ge`; `math.ult` is the same as `lt`)." },
    { "le", u_le, NULL, "ub.u64.le(a, b)", "Unsigned `a <= b`." },
    { "gt", u_gt, NULL, "ub.u64.gt(a, b)", "Unsigned `a > b`." },
    { "ge", u_ge, NULL, "ub.u64.ge(a, b)", "Unsigned `a >= b`." },
    { "max", u_max, NULL, "ub.u64.max(a, b)", "Unsigned maximum." },
    { "min", u_min, NULL, "ub.u64.min(a, b)", "Unsigned minimum." },
    { "div", u_div, NULL, "ub.u64.div(a, b)", "Unsigned integer division." },
    { "mod", u_mod, NULL, "ub.u64.mod(a, b)", "Unsigned remainder." },
    { "str", u_str, NULL, "ub.u64.str(v) → string", "Unsigned decimal text (`ub.u64.str(-1)` → `\"18446744073709551615\"`)." },
    { "hex", u_hex, NULL, "ub.u64.hex(v [, digits]) → string", "`\"0x...\"`, zero-padded to `digits`." },
    { "parse", u_parse, NULL, "ub.u64.parse(s) → integer | nil",
      "Decimal or `0x` text up to 2^64 − 1 into the integer with that bit pattern; `nil` if invalid." },
    { "float", u_float, NULL, "ub.u64.float(v) → number", "The unsigned value as a float (rounded above 2^53)." },
    { NULL, NULL, NULL, NULL, NULL }
};

/* ================================================================ ub.build */
static ub_builder *builder(lua_State *L)
{
    ub_lua *u = ubl_host(L);
    if (!u->builder && !(u->builder = ub_builder_new(&u->opts))) luaL_error(L, "out of memory");
    return u->builder;
}

static int cmp_keys(const void *a, const void *b) { return strcmp(*(const char *const *)a, *(const char *const *)b); }

/* set every string key of the table at idx on the current header, in sorted key order */
static void build_fields(lua_State *L, ub_builder *b, int idx, const char *hkey)
{
    const char *keys[128];
    size_t nk = 0;
    lua_pushnil(L);
    while (lua_next(L, idx)) {
        lua_pop(L, 1);
        if (lua_type(L, -1) != LUA_TSTRING) {
            if (lua_isinteger(L, -1) && lua_tointeger(L, -1) == 1) continue;
            luaL_error(L, "ub.build: header %s: field names must be strings", hkey);
        }
        if (nk == sizeof keys / sizeof *keys) luaL_error(L, "ub.build: header %s: too many fields", hkey);
        keys[nk++] = lua_tostring(L, -1); /* the table keeps the key string alive */
    }
    qsort(keys, nk, sizeof *keys, cmp_keys);
    for (size_t i = 0; i < nk; i++) {
        int r = -1;
        int t = lua_getfield(L, idx, keys[i]);
        if (t == LUA_TNUMBER && lua_isinteger(L, -1)) {
            char v[32];
            snprintf(v, sizeof v, "%" PRIu64, (uint64_t)lua_tointeger(L, -1));
            r = ub_builder_set(b, keys[i], v);
        } else if (t == LUA_TBOOLEAN) {
            r = ub_builder_set(b, keys[i], lua_toboolean(L, -1) ? "1" : "0");
        } else if (t == LUA_TSTRING) {
            size_t n;
            const char *s = lua_tolstring(L, -1, &n);
            if (strcmp(keys[i], "data") == 0) r = ub_builder_set_bytes(b, "data", (const uint8_t *)s, n);
            else if (strlen(s) != n) luaL_error(L, "ub.build: %s.%s: text values cannot contain NUL (raw bytes: data=...)", hkey, keys[i]);
            else r = ub_builder_set(b, keys[i], s);
        } else {
            luaL_error(L, "ub.build: %s.%s: value must be an integer, string or boolean (got %s)", hkey, keys[i],
                       luaL_typename(L, -1));
            r = -1;
        }
        if (r < 0) luaL_error(L, "ub.build: %s.%s: %s", hkey, keys[i], ub_builder_error(b));
        lua_pop(L, 1);
    }
}

static int m_build(lua_State *L)
{
    luaL_checktype(L, 1, LUA_TTABLE);
    ub_builder *b = builder(L);
    /* entry line: entry + options (icrc=, bcrc=, error_flag=) */
    luaL_Buffer eb;
    luaL_buffinit(L, &eb);
    lua_getfield(L, 1, "entry");
    luaL_addstring(&eb, luaL_optstring(L, -1, "flit"));
    lua_pop(L, 1);
    static const char *const eopts[] = { "icrc", "bcrc", "error_flag", NULL };
    for (const char *const *o = eopts; *o; o++) {
        if (lua_getfield(L, 1, *o) != LUA_TNIL) {
            luaL_addchar(&eb, ' ');
            luaL_addstring(&eb, *o);
            luaL_addchar(&eb, '=');
            if (lua_isboolean(L, -1)) luaL_addstring(&eb, lua_toboolean(L, -1) ? "1" : "0");
            else luaL_addstring(&eb, luaL_checkstring(L, -1));
        }
        lua_pop(L, 1);
    }
    luaL_pushresult(&eb);
    const char *entry = lua_tostring(L, -1);
    if (ub_builder_reset(b, entry) < 0) return luaL_error(L, "ub.build: entry \"%s\": %s", entry, ub_builder_error(b));
    lua_Integer nh = luaL_len(L, 1);
    if (nh < 1) return luaL_error(L, "ub.build: no headers (ub.build{ {\"lph\", vl=1}, {\"nth16\", ...}, ... })");
    for (lua_Integer i = 1; i <= nh; i++) {
        if (lua_geti(L, 1, i) != LUA_TTABLE) return luaL_error(L, "ub.build: item %d is not a table", (int)i);
        int hi = lua_gettop(L);
        if (lua_geti(L, hi, 1) != LUA_TSTRING) return luaL_error(L, "ub.build: item %d has no header key at [1]", (int)i);
        const char *hkey = lua_tostring(L, -1);
        if (ub_builder_header(b, hkey) < 0) return luaL_error(L, "ub.build: %s", ub_builder_error(b));
        build_fields(L, b, hi, hkey);
        lua_settop(L, hi - 1);
    }
    uint8_t *out = (uint8_t *)luaL_buffinitsize(L, &eb, 65536);
    ub_entry en;
    long n = ub_builder_finish(b, out, 65536, &en);
    if (n < 0) return luaL_error(L, "ub.build: %s", ub_builder_error(b));
    luaL_pushresultsize(&eb, (size_t)n);
    /* the entry name, first word of the entry line */
    const char *sp = strchr(entry, ' ');
    lua_pushlstring(L, entry, sp ? (size_t)(sp - entry) : strlen(entry));
    return 2;
}

/* ================================================================ rules */
typedef struct ubl_rule {
    int idx;
} ubl_rule;

static const ub_rule *rule_get(lua_State *L, int idx)
{
    ub_lua *u = ubl_host(L);
    return u->rules ? ub_ruleset_get(u->rules, (unsigned)idx) : ub_rule_get((unsigned)idx);
}

const char *ubl_rule_check(lua_State *L, int idx, int *rule_idx)
{
    ub_lua *u = ubl_host(L);
    ubl_rule *r = luaL_testudata(L, idx, MT_RULE);
    if (r) {
        *rule_idx = r->idx;
        const ub_rule *rr = rule_get(L, r->idx);
        return rr ? rr->id : "?";
    }
    const char *id = lua_tostring(L, idx);
    if (!id) luaL_typeerror(L, idx, "rule (ub.rule object or rule id)");
    const ub_rule *rr = u->rules ? ub_ruleset_find(u->rules, id) : ub_rule_by_id(id);
    if (!rr) luaL_error(L, "unknown rule id '%s'", id);
    *rule_idx = rr->idx;
    return rr->id;
}

static void opt_field(lua_State *L, int t, const char *k1, const char *k2, const char **out)
{
    if (lua_getfield(L, t, k1) == LUA_TNIL && k2) {
        lua_pop(L, 1);
        lua_getfield(L, t, k2);
    }
    if (!lua_isnil(L, -1)) *out = luaL_checkstring(L, -1); /* kept alive by the table until the copy */
    lua_pop(L, 1);
}

static int m_rule(lua_State *L)
{
    ub_lua *u = ubl_host(L);
    luaL_checktype(L, 1, LUA_TTABLE);
    if (!u->loading) return luaL_error(L, "ub.rule{} must be called while the script loads (at its top level)");
    if (!u->rules) return luaL_error(L, "ub.rule{}: this tool does not take script rules");
    ub_rule r;
    memset(&r, 0, sizeof r);
    const char *sev = "error", *src;
    uint32_t line;
    opt_field(L, 1, "id", NULL, &r.id);
    if (!r.id) return luaL_error(L, "ub.rule{}: id is required (e.g. id = \"LAB-001\")");
    opt_field(L, 1, "severity", NULL, &sev);
    int s = ubl_sev_parse(sev);
    if (s < 0) return luaL_error(L, "ub.rule{}: severity must be \"error\", \"warning\" or \"note\"");
    r.severity = (uint8_t)s;
    opt_field(L, 1, "summary", "title", &r.title);
    if (!r.title) return luaL_error(L, "ub.rule{}: summary is required (one line)");
    opt_field(L, 1, "doc", "evidence", &r.evidence);
    opt_field(L, 1, "layer", NULL, &r.layer);
    opt_field(L, 1, "spec", NULL, &r.spec);
    char where[300];
    ubl_where(L, &src, &line);
    snprintf(where, sizeof where, "%s:%u", src ? src : "?", (unsigned)line);
    if (!r.layer) r.layer = "script";
    if (!r.spec) r.spec = where;
    if (!r.evidence) r.evidence = "";
    char err[256];
    int idx = ub_ruleset_add(u->rules, &r, err, sizeof err);
    if (idx < 0) return luaL_error(L, "ub.rule{}: %s", err);
    u->wants |= UB_LUA_W_RULES;
    ubl_rule *o = lua_newuserdatauv(L, sizeof *o, 0);
    o->idx = idx;
    luaL_setmetatable(L, MT_RULE);
    return 1;
}

static const ub_rule *rule_self(lua_State *L)
{
    ubl_rule *o = luaL_checkudata(L, 1, MT_RULE);
    const ub_rule *r = rule_get(L, o->idx);
    if (!r) luaL_error(L, "rule index %d not in the rule set", o->idx);
    return r;
}
static int rp_id(lua_State *L, const ubl_pktref *p) { (void)p; lua_pushstring(L, rule_self(L)->id); return 1; }
static int rp_sev(lua_State *L, const ubl_pktref *p) { (void)p; lua_pushstring(L, ubl_sev_name(rule_self(L)->severity)); return 1; }
static int rp_title(lua_State *L, const ubl_pktref *p) { (void)p; lua_pushstring(L, rule_self(L)->title); return 1; }
static int rp_doc(lua_State *L, const ubl_pktref *p)
{
    (void)p;
    const ub_rule *r = rule_self(L);
    lua_pushstring(L, r->evidence ? r->evidence : "");
    return 1;
}
static int rp_layer(lua_State *L, const ubl_pktref *p) { (void)p; lua_pushstring(L, rule_self(L)->layer); return 1; }
static int rp_spec(lua_State *L, const ubl_pktref *p) { (void)p; lua_pushstring(L, rule_self(L)->spec); return 1; }
static int rule_index(lua_State *L) { return ubl_dispatch(L, 1, ubl_rule_regs, "a rule", NULL); }
static int rule_tostring(lua_State *L)
{
    lua_pushstring(L, rule_self(L)->id);
    return 1;
}

const ubl_reg ubl_rule_regs[] = {
    { "id", NULL, rp_id, "rule.id", "The rule id." },
    { "severity", NULL, rp_sev, "rule.severity", "Default severity of its findings." },
    { "summary", NULL, rp_title, "rule.summary", "One-line title (also `rule.title`)." },
    { "title", NULL, rp_title, "rule.title", "Same as `rule.summary`." },
    { "doc", NULL, rp_doc, "rule.doc", "Longer description (reports: the rule's evidence column)." },
    { "layer", NULL, rp_layer, "rule.layer", "Layer column (default `\"script\"`)." },
    { "spec", NULL, rp_spec, "rule.spec", "Spec reference (default: the script file and line of `ub.rule`)." },
    { NULL, NULL, NULL, NULL, NULL }
};

/* interned state-key kind names (ub_finding.key must outlive the finding) */
static const char *intern_key(ub_lua *u, const char *k)
{
    for (unsigned i = 0; i < u->nkeys; i++)
        if (strcmp(u->keys[i], k) == 0) return u->keys[i];
    if (u->nkeys == sizeof u->keys / sizeof *u->keys) return "script";
    char *c = strdup(k);
    if (!c) return "script";
    u->keys[u->nkeys++] = c;
    return c;
}

/* ub.report(rule, pkt | frame | {frames}, msg, values) */
static int m_report(lua_State *L)
{
    ub_lua *u = ubl_host(L);
    ubl_script *s = ubl_script_of(L);
    int ridx;
    const char *rid = ubl_rule_check(L, 1, &ridx);
    const ub_rule *r = rule_get(L, ridx);
    if (!u->audit && !u->scen_report) return luaL_error(L, "ub.report: no audit session is running");
    if (u->ended)
        return luaL_error(L, "ub.report after on_end is not counted any more (the report is being written): "
                             "raise end-of-capture findings in on_end");
    ub_finding f;
    memset(&f, 0, sizeof f);
    f.rule = (uint16_t)ridx;
    f.severity = r ? r->severity : UB_SEV_ERROR;
    switch (lua_type(L, 2)) {
    case LUA_TNIL: case LUA_TNONE: break;
    case LUA_TNUMBER: f.frame = (uint64_t)luaL_checkinteger(L, 2); break;
    case LUA_TTABLE: {
        lua_Integer n = luaL_len(L, 2);
        for (lua_Integer i = 1; i <= n; i++) {
            lua_geti(L, 2, i);
            uint64_t fr = (uint64_t)luaL_checkinteger(L, -1);
            lua_pop(L, 1);
            if (i == 1) f.frame = fr;
            else if (f.nframes < UB_FINDING_FRAMES) f.frames[f.nframes++] = fr;
        }
        break;
    }
    default: {
        ubl_pktref p;
        ubl_check_pkt(L, 2, &p);
        f.frame = p.pi->frame;
    }
    }
    const char *msg = luaL_optstring(L, 3, NULL);
    f.message = msg;
    if (lua_istable(L, 4)) {
        lua_Integer n = luaL_len(L, 4);
        if (n > 4) return luaL_error(L, "ub.report: at most 4 values");
        for (lua_Integer i = 1; i <= n; i++) {
            lua_geti(L, 4, i);
            f.values[f.nvalues++] = (int64_t)luaL_checkinteger(L, -1);
            lua_pop(L, 1);
        }
        if (lua_getfield(L, 4, "severity") != LUA_TNIL) {
            int sv = ubl_sev_parse(luaL_checkstring(L, -1));
            if (sv < 0) return luaL_error(L, "ub.report: severity must be \"error\", \"warning\" or \"note\"");
            f.severity = (uint8_t)sv;
        }
        lua_pop(L, 1);
        if (lua_getfield(L, 4, "key") != LUA_TNIL) f.key = intern_key(u, luaL_checkstring(L, -1));
        lua_pop(L, 1);
        if (lua_getfield(L, 4, "keytext") != LUA_TNIL) snprintf(f.keytext, sizeof f.keytext, "%s", luaL_checkstring(L, -1));
        lua_pop(L, 1);
        if (lua_getfield(L, 4, "frames") == LUA_TTABLE) {
            lua_Integer n2 = luaL_len(L, -1);
            for (lua_Integer i = 1; i <= n2 && f.nframes < UB_FINDING_FRAMES; i++) {
                lua_geti(L, -1, i);
                f.frames[f.nframes++] = (uint64_t)luaL_checkinteger(L, -1);
                lua_pop(L, 1);
            }
        }
        lua_pop(L, 1);
    } else if (!lua_isnoneornil(L, 4)) {
        return luaL_typeerror(L, 4, "table of values");
    }
    const char *src;
    uint32_t line;
    ubl_where(L, &src, &line);
    f.src_uri = src ? src : s->path;
    f.src_line = line;
    if (u->scen_report) {
        /* scenario: the runner turns the packets' ids into frames of the recorded stream; the values
         * go into the message */
        uint64_t seqs[UB_FINDING_FRAMES];
        unsigned ns = 0;
        if (ubl_is_pkt(L, 2) && ubl_pkt_seq(L, 2)) seqs[ns++] = ubl_pkt_seq(L, 2);
        luaL_Buffer mb;
        luaL_buffinit(L, &mb);
        if (msg) luaL_addstring(&mb, msg);
        for (unsigned i = 0; i < f.nvalues; i++) {
            char v[40];
            snprintf(v, sizeof v, "%s%lld", i ? ", " : (msg ? "; values " : "values "), (long long)f.values[i]);
            luaL_addstring(&mb, v);
        }
        luaL_pushresult(&mb);
        lua_State *was = s->run;
        s->run = L;
        int rc = u->scen_report(L, r ? r->id : rid, f.severity, lua_tostring(L, -1), line, seqs, ns);
        s->run = was;
        if (rc < 0) return luaL_error(L, "ub.report: the scenario runner refused the finding");
        return 0;
    }
    lua_State *was = s->run;
    s->run = L;
    ub_audit_add_finding(u->audit, &f);
    s->run = was;
    return 0;
}

static int set_rerate(lua_State *L, int rule_idx, uint8_t what)
{
    ub_lua *u = ubl_host(L);
    if (!u->loading) return luaL_error(L, "ub.suppress/ub.rerate must be called while the script loads");
    if ((unsigned)rule_idx >= u->nrerate) {
        unsigned n = (unsigned)rule_idx + 64;
        uint8_t *nr = realloc(u->rerate, n);
        if (!nr) return luaL_error(L, "out of memory");
        memset(nr + u->nrerate, 0, n - u->nrerate);
        u->rerate = nr;
        u->nrerate = n;
    }
    u->rerate[rule_idx] = what;
    return 0;
}
static int m_suppress(lua_State *L)
{
    int ri;
    ubl_rule_check(L, 1, &ri);
    return set_rerate(L, ri, UBL_RR_DROP);
}
static int m_rerate(lua_State *L)
{
    int ri;
    ubl_rule_check(L, 1, &ri);
    int sev = ubl_sev_parse(luaL_checkstring(L, 2));
    if (sev < 0) return luaL_argerror(L, 2, "severity must be \"error\", \"warning\" or \"note\"");
    return set_rerate(L, ri, (uint8_t)(sev == UB_SEV_NOTE ? UBL_RR_NOTE : sev == UB_SEV_WARN ? UBL_RR_WARN : UBL_RR_ERROR));
}

static int m_rules(lua_State *L)
{
    ub_lua *u = ubl_host(L);
    unsigned n = u->rules ? ub_ruleset_count(u->rules) : ub_rule_count();
    lua_createtable(L, (int)n, 0);
    for (unsigned i = 0; i < n; i++) {
        const ub_rule *r = rule_get(L, (int)i);
        lua_pushstring(L, r ? r->id : "?");
        lua_rawseti(L, -2, i + 1);
    }
    return 1;
}

/* ================================================================ misc */
static int m_hex(lua_State *L) { return u_hex(L); }
static int m_ts(lua_State *L)
{
    uint64_t ns = (uint64_t)luaL_checkinteger(L, 1);
    char b[48];
    snprintf(b, sizeof b, "%" PRIu64 ".%09" PRIu64, ns / 1000000000u, ns % 1000000000u);
    lua_pushstring(L, b);
    return 1;
}

const ubl_reg ubl_mod_fns[] = {
    { "field", ubl_field_new, NULL, "ub.field(name) → f",
      "A field extractor, resolved once against the schema (like Wireshark's `Field.new`): a field "
      "(`\"ub.rtph.psn\"`, every format variant of its header), a header (`\"ub.btah\"`: raw bytes), "
      "`\"ub.error\"`, or Wireshark's name of a field of the headers outside UB (`\"ip.src\"`, `\"udp.port\"`, "
      "`\"eth.addr\"`: the layers `-Y` and `-e` give them, docs/filters.md), or `\"frame.protocols\"` (Wireshark's "
      "list of the frame's protocols as one string, `\"eth:ethertype:ip:udp:ub\"`). Create extractors at load time, call "
      "them per packet. Unknown names are an error." },
    { "filter", ubl_filter_new, NULL, "ub.filter(expr) → flt", "Compile a display filter once (`ub.filter('ub.btah.taopcode == \"Read\" && ub.lph.vl == 2')`)." },
    { "decode", ubl_decode, NULL, "ub.decode(bytes [, entry [, info]]) → pkt",
      "Decode a record into a packet object the script owns (any lifetime). `entry` as for `ub.build` "
      "(default `\"flit\"`); `info` = `{frame=, ts=, ifindex=, dir=}`." },
    { "build", m_build, NULL, "ub.build{ [entry=...,] {\"hdr\", field=value, ...}, ... } → bytes, entry",
      "Build a record through the builder (docs/builder.md): one table per header, `[1]` = table key "
      "(`ubdump -G headers`), fields by their last name component. Values: integers, strings (value "
      "names, IPs, hex, as in the text form), booleans; `data=` raw bytes. Lengths, NLPs, PLENGTH, "
      "padding, BCRC and ICRC are computed unless given. Outer keys: `entry` (`\"flit\"` default, `\"pkt\"`, "
      "`\"eth\"`, ...), `icrc`, `bcrc`, `error_flag`. Returns the bytes and the entry name (so "
      "`ub.decode(ub.build{...})` works)." },
    { "rule", m_rule, NULL, "ub.rule{id=, severity=, summary=, doc=, layer=, spec=} → rule",
      "Register a script rule (at load time): it is listed by `ubdump -G rules --lua FILE`, counted, "
      "reported (text, JSON, SARIF, JUnit) and judged by `--fail-on` like a built-in rule. `id` is "
      "`[A-Za-z0-9_.-]+` and unique; `severity` `\"error\"` (default), `\"warning\"` or `\"note\"`." },
    { "report", m_report, NULL, "ub.report(rule, pkt | frame | {frames}, msg [, values])",
      "Raise a finding of `rule` (a rule object or any rule id): at the packet's frame (a frame number, or "
      "a list whose first entry is the frame and the rest related frames), with the message `msg` and up "
      "to 4 integer `values`. `values` may also carry `severity=`, `key=` (kind of state key), "
      "`keytext=` and `frames=`. The finding records the script file and line of the call (SARIF "
      "location) and passes through `on_finding`, `--fail-on` and every report format." },
    { "suppress", m_suppress, NULL, "ub.suppress(rule)", "Drop every finding of a rule (at load time; applied in C, no Lua call per finding)." },
    { "rerate", m_rerate, NULL, "ub.rerate(rule, severity)", "Give every finding of a rule another severity (at load time)." },
    { "rules", m_rules, NULL, "ub.rules() → {id, ...}", "Every rule id known to the session (built-in, then script rules)." },
    { "flows", ubl_flow_new, NULL, "ub.flows(kind [, {max=N, on_evict=f}]) → tbl",
      "A bounded per-flow table keyed like the state engine (`kind`: see Flow keys): `tbl[pkt]` is the "
      "flow's Lua table (created empty on first use), `tbl:get(pkt)` without creating, `tbl:remove(pkt)`, "
      "`tbl:key(pkt)` its key text, `tbl:count()` (also `#tbl`), `tbl:evicted()`, `tbl:each()` iterates "
      "`(keytext, state)` least recently used first (a snapshot: safe to modify). When `max` flows "
      "(default 65,536) are live the least recently used one is evicted, after `on_evict(keytext, state)` "
      "when given in the options." },
    { "flow_key", ubl_flow_key, NULL, "ub.flow_key(pkt, kind) → key, keytext | nil",
      "The flow key of a packet (a binary string, for your own tables) and its printable form; `nil` when "
      "the packet has no such flow." },
    { "value", m_value, NULL, "ub.value(field, name) → integer", "A value name's number (`ub.value(\"ub.btah.taopcode\", \"Read\")` → 6)." },
    { "valname", m_valname, NULL, "ub.valname(field, v) → string | nil", "A value's name." },
    { "fields", m_fields, NULL, "ub.fields([prefix]) → {name, ...}", "Every field name of the schema (optionally with a prefix)." },
    { "headers", m_headers, NULL, "ub.headers() → {{key, abbrev, name, len, spec}, ...}", "Every header table of the schema." },
    { "errors", m_errors, NULL, "ub.errors() → {name = {severity, group, desc}}", "The decode error catalogue (docs/errors.md)." },
    { "hex", m_hex, NULL, "ub.hex(v [, digits]) → string", "Same as `ub.u64.hex`." },
    { "ts", m_ts, NULL, "ub.ts(ns) → string", "`\"seconds.nanoseconds\"` of a timestamp." },
    { "args", NULL, NULL, "ub.args", "`--lua-arg K=V` values: `ub.args.K` is the string `\"V\"`." },
    { "version", NULL, NULL, "ub.version", "libubparse version string." },
    { "u64", NULL, NULL, "ub.u64", "64-bit unsigned helpers (below)." },
    { NULL, NULL, NULL, NULL, NULL }
};

void ubl_mod_open(lua_State *L)
{
    luaL_newmetatable(L, MT_RULE);
    ubl_dispatch_table(L, ubl_rule_regs);
    lua_pushcclosure(L, rule_index, 1);
    lua_setfield(L, -2, "__index");
    lua_pushcfunction(L, rule_tostring);
    lua_setfield(L, -2, "__tostring");
    lua_pushliteral(L, "locked");
    lua_setfield(L, -2, "__metatable");
    lua_pop(L, 1);

    lua_newtable(L);
    for (const ubl_reg *r = ubl_mod_fns; r->name; r++) {
        if (!r->fn) continue;
        lua_pushcfunction(L, r->fn);
        lua_setfield(L, -2, r->name);
    }
    lua_newtable(L);
    for (const ubl_reg *r = ubl_u64_fns; r->name; r++) {
        lua_pushcfunction(L, r->fn);
        lua_setfield(L, -2, r->name);
    }
    lua_setfield(L, -2, "u64");
    lua_pushstring(L, UBPARSE_VERSION);
    lua_setfield(L, -2, "version");
    lua_setglobal(L, "ub");
}

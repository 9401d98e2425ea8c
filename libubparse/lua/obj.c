/* Display filters (ub.filter), match objects (on_match) and finding objects (on_finding). */
#include "ubl.h"

#include <string.h>

#define MT_FILTER "ubl.filter"

/* ================================================================ display filters */
typedef struct ubl_flt {
    ub_filter *f;
} ubl_flt;

static int flt_gc(lua_State *L)
{
    ubl_flt *x = luaL_checkudata(L, 1, MT_FILTER);
    ub_filter_free(x->f);
    x->f = NULL;
    return 0;
}

/* compile expr (at idx) into a new filter object on the stack */
static ubl_flt *flt_push(lua_State *L, int idx)
{
    idx = lua_absindex(L, idx);
    const char *expr = luaL_checkstring(L, idx);
    ubl_flt *x = lua_newuserdatauv(L, sizeof *x, 1);
    x->f = NULL;
    luaL_setmetatable(L, MT_FILTER);
    char err[256];
    x->f = ub_filter_compile_live(expr, err, sizeof err);
    if (!x->f) luaL_error(L, "display filter \"%s\": %s", expr, err);
    lua_pushvalue(L, idx);
    lua_setiuservalue(L, -2, 1);
    return x;
}

int ubl_filter_new(lua_State *L)
{
    flt_push(L, 1);
    return 1;
}

static const ub_filter *flt_arg(lua_State *L, int idx)
{
    if (lua_type(L, idx) == LUA_TUSERDATA) return ((ubl_flt *)luaL_checkudata(L, idx, MT_FILTER))->f;
    luaL_checkstring(L, idx);
    lua_getfield(L, LUA_REGISTRYINDEX, "ubl.fltcache");
    lua_pushvalue(L, idx);
    if (lua_rawget(L, -2) == LUA_TUSERDATA) {
        ubl_flt *x = lua_touserdata(L, -1);
        lua_pop(L, 2);
        return x->f;
    }
    lua_pop(L, 1);
    ubl_flt *x = flt_push(L, idx);
    lua_pushvalue(L, idx);
    lua_pushvalue(L, -2);
    lua_rawset(L, -4);
    lua_pop(L, 2);
    return x->f;
}

bool ubl_filter_test(lua_State *L, int fidx, const ubl_pktref *p)
{
    const ub_filter *f = flt_arg(L, fidx);
    return ub_filter_match_frame(f, p->v, p->pi->frame, p->v->rec_len);
}

static int flt_call(lua_State *L)
{
    ubl_pktref p;
    ubl_check_pkt(L, 2, &p);
    lua_pushboolean(L, ubl_filter_test(L, 1, &p));
    return 1;
}
static int flt_match(lua_State *L) { return flt_call(L); }
static int flt_expr(lua_State *L, const ubl_pktref *p)
{
    (void)p;
    lua_getiuservalue(L, 1, 1);
    return 1;
}
static int flt_tostring(lua_State *L)
{
    lua_getiuservalue(L, 1, 1);
    lua_pushfstring(L, "ub.filter(\"%s\")", lua_tostring(L, -1));
    return 1;
}

const ubl_reg ubl_filter_regs[] = {
    { "__call", flt_call, NULL, "flt(pkt) → boolean",
      "Does the packet match? The same display filters as `ubdump -Y` and Wireshark (docs: filter.h); compiled "
      "once by `ub.filter`, no string work per packet." },
    { "match", flt_match, NULL, "flt:match(pkt) → boolean", "Same as `flt(pkt)`." },
    { "expr", NULL, flt_expr, "flt.expr", "The expression text." },
    { NULL, NULL, NULL, NULL, NULL }
};

/* ================================================================ match objects (on_match) */
void ubl_push_match(lua_State *L) { lua_pushlightuserdata(L, ubl_lu(ubl_host(L)->m_gen, UBL_LU_MATCH)); }

static const ub_match *match_of(lua_State *L)
{
    ub_lua *u = ubl_host(L);
    if (!u->m || (uintptr_t)lua_touserdata(L, 1) != (uintptr_t)ubl_lu(u->m_gen, UBL_LU_MATCH))
        luaL_error(L, "match object used after its on_match call returned");
    return u->m;
}
static const char *match_kind(unsigned k) { return k == 0 ? "transaction" : k == 1 ? "management" : "transport"; }

static int mp_frame(lua_State *L, const ubl_pktref *p) { (void)p; lua_pushinteger(L, (lua_Integer)match_of(L)->req_frame); return 1; }
static int mp_rsp(lua_State *L, const ubl_pktref *p) { (void)p; lua_pushinteger(L, (lua_Integer)match_of(L)->rsp_frame); return 1; }
static int mp_lat(lua_State *L, const ubl_pktref *p) { (void)p; lua_pushinteger(L, (lua_Integer)match_of(L)->latency_ns); return 1; }
static int mp_kind(lua_State *L, const ubl_pktref *p) { (void)p; lua_pushstring(L, match_kind(match_of(L)->kind)); return 1; }
static int mp_opcode(lua_State *L, const ubl_pktref *p)
{
    (void)p;
    const ub_match *m = match_of(L);
    lua_pushinteger(L, m->kind == 1 ? (m->opcode >> 8) : m->opcode);
    return 1;
}
static int mp_op(lua_State *L, const ubl_pktref *p)
{
    (void)p;
    char b[16];
    lua_pushstring(L, ub_match_opname(match_of(L), b, sizeof b));
    return 1;
}

const ubl_reg ubl_match_regs[] = {
    { "frame", NULL, mp_frame, "req.frame", "Frame of the request." },
    { "rsp_frame", NULL, mp_rsp, "req.rsp_frame", "Frame of the response (the current packet)." },
    { "latency", NULL, mp_lat, "req.latency", "Response time in nanoseconds (also the third argument)." },
    { "kind", NULL, mp_kind, "req.kind",
      "`\"transaction\"` (request/response or TAACK), `\"management\"` (configuration management or "
      "enumeration) or `\"transport\"` (TP data → its first covering TPACK)." },
    { "opcode", NULL, mp_opcode, "req.opcode",
      "Transaction: the request's TAOpcode; management: the Code (enumeration: 8 + CMD); transport: the ack's TPOpcode." },
    { "op", NULL, mp_op, "req.op", "Name of `opcode` from the schema's value names (`\"Read\"`, `\"Write\"`, ...)." },
    { NULL, NULL, NULL, NULL, NULL }
};

/* ================================================================ finding objects (on_finding) */
void ubl_push_finding(lua_State *L) { lua_pushlightuserdata(L, ubl_lu(ubl_host(L)->f_gen, UBL_LU_FINDING)); }

static ub_finding *finding_of(lua_State *L)
{
    ub_lua *u = ubl_host(L);
    if (!u->f || (uintptr_t)lua_touserdata(L, 1) != (uintptr_t)ubl_lu(u->f_gen, UBL_LU_FINDING))
        luaL_error(L, "finding object used after its on_finding call returned");
    return u->f;
}
static const ub_rule *finding_rule(lua_State *L, const ub_finding *f)
{
    ub_lua *u = ubl_host(L);
    return u->rules ? ub_ruleset_get(u->rules, f->rule) : ub_rule_get(f->rule);
}
static void push_opt(lua_State *L, const char *s)
{
    if (s && *s) lua_pushstring(L, s);
    else lua_pushnil(L);
}
static int fp_rule(lua_State *L, const ubl_pktref *p)
{
    (void)p;
    const ub_rule *r = finding_rule(L, finding_of(L));
    push_opt(L, r ? r->id : NULL);
    return 1;
}
static int fp_sev(lua_State *L, const ubl_pktref *p) { (void)p; lua_pushstring(L, ubl_sev_name(finding_of(L)->severity)); return 1; }
static int fp_frame(lua_State *L, const ubl_pktref *p) { (void)p; lua_pushinteger(L, (lua_Integer)finding_of(L)->frame); return 1; }
static int fp_frames(lua_State *L, const ubl_pktref *p)
{
    (void)p;
    const ub_finding *f = finding_of(L);
    lua_createtable(L, f->nframes, 0);
    for (unsigned i = 0; i < f->nframes && i < UB_FINDING_FRAMES; i++) {
        lua_pushinteger(L, (lua_Integer)f->frames[i]);
        lua_rawseti(L, -2, i + 1);
    }
    return 1;
}
static int fp_values(lua_State *L, const ubl_pktref *p)
{
    (void)p;
    const ub_finding *f = finding_of(L);
    lua_createtable(L, f->nvalues, 0);
    for (unsigned i = 0; i < f->nvalues && i < 4; i++) {
        lua_pushinteger(L, f->values[i]);
        lua_rawseti(L, -2, i + 1);
    }
    return 1;
}
static int fp_detail(lua_State *L, const ubl_pktref *p) { (void)p; push_opt(L, finding_of(L)->detail); return 1; }
static int fp_key(lua_State *L, const ubl_pktref *p) { (void)p; push_opt(L, finding_of(L)->key); return 1; }
static int fp_keytext(lua_State *L, const ubl_pktref *p) { (void)p; push_opt(L, finding_of(L)->keytext); return 1; }
static int fp_message(lua_State *L, const ubl_pktref *p) { (void)p; push_opt(L, finding_of(L)->message); return 1; }
static int fp_title(lua_State *L, const ubl_pktref *p)
{
    (void)p;
    const ub_rule *r = finding_rule(L, finding_of(L));
    push_opt(L, r ? r->title : NULL);
    return 1;
}
static int fp_layer(lua_State *L, const ubl_pktref *p)
{
    (void)p;
    const ub_rule *r = finding_rule(L, finding_of(L));
    push_opt(L, r ? r->layer : NULL);
    return 1;
}
static int fp_text(lua_State *L, const ubl_pktref *p)
{
    (void)p;
    char buf[512];
    size_t n = ub_finding_text(finding_of(L), true, buf, sizeof buf);
    lua_pushlstring(L, buf, n < sizeof buf ? n : sizeof buf - 1);
    return 1;
}

const ubl_reg ubl_find_regs[] = {
    { "rule", NULL, fp_rule, "f.rule", "Rule id (`\"UB-TA-003\"`, or a script rule's id)." },
    { "severity", NULL, fp_sev, "f.severity",
      "`\"error\"`, `\"warning\"` or `\"note\"`; assignable (`f.severity = \"note\"`) to re-rate this finding." },
    { "frame", NULL, fp_frame, "f.frame", "Frame where it was detected (0: end of capture / none)." },
    { "frames", NULL, fp_frames, "f.frames", "Related frames (the request, the first copy, ...) as an array." },
    { "values", NULL, fp_values, "f.values", "Evidence values (meaning per rule, docs/rules.md) as an array." },
    { "detail", NULL, fp_detail, "f.detail", "Fixed explanation, or `nil`." },
    { "key", NULL, fp_key, "f.key", "Kind of state key (`\"TP channel\"`, `\"transaction\"`), or `nil`." },
    { "keytext", NULL, fp_keytext, "f.keytext", "Printable state key, or `nil`." },
    { "message", NULL, fp_message, "f.message", "Free text of script findings; assignable." },
    { "title", NULL, fp_title, "f.title", "The rule's title." },
    { "layer", NULL, fp_layer, "f.layer", "The rule's layer." },
    { "text", NULL, fp_text, "f.text", "The one-line description the text report prints." },
    { NULL, NULL, NULL, NULL, NULL }
};

int ubl_finding_set(lua_State *L)
{
    ub_finding *f = finding_of(L);
    ub_lua *u = ubl_host(L);
    const char *k = luaL_checkstring(L, 2);
    if (strcmp(k, "severity") == 0) {
        int sev = ubl_sev_parse(luaL_checkstring(L, 3));
        if (sev < 0) return luaL_argerror(L, 3, "severity must be \"error\", \"warning\" or \"note\"");
        f->severity = (uint8_t)sev;
        return 0;
    }
    if (strcmp(k, "message") == 0) {
        size_t n;
        const char *m = luaL_checklstring(L, 3, &n);
        if (n >= sizeof u->fmsg) n = sizeof u->fmsg - 1;
        memcpy(u->fmsg, m, n);
        u->fmsg[n] = 0;
        f->message = u->fmsg;
        return 0;
    }
    return luaL_error(L, "finding field '%s' is read-only (severity and message can be set)", k);
}

static int flt_index(lua_State *L) { return ubl_dispatch(L, 1, ubl_filter_regs, "a filter", NULL); }

void ubl_obj_init(lua_State *L)
{
    luaL_newmetatable(L, MT_FILTER);
    ubl_dispatch_table(L, ubl_filter_regs);
    lua_pushcclosure(L, flt_index, 1);
    lua_setfield(L, -2, "__index");
    lua_pushcfunction(L, flt_call);
    lua_setfield(L, -2, "__call");
    lua_pushcfunction(L, flt_gc);
    lua_setfield(L, -2, "__gc");
    lua_pushcfunction(L, flt_tostring);
    lua_setfield(L, -2, "__tostring");
    lua_pushliteral(L, "locked");
    lua_setfield(L, -2, "__metatable");
    lua_pop(L, 1);

    lua_newtable(L);
    lua_setfield(L, LUA_REGISTRYINDEX, "ubl.fltcache");
}

/* Packet objects, field extractors and ub.decode (filters, match and finding objects: obj.c).
 *
 * Callback objects cost nothing per packet: the packet, match and finding objects handed to hooks
 * are light userdata encoding (generation << 2 | tag). The host bumps the generation when the
 * callback's packet/match/finding is gone, so an object a script kept raises an error instead of
 * reading freed or recycled memory. Packets made by ub.decode are full userdata owning their view.
 * Field knowledge comes from the schema at run time (ub_field_find / ub_hdr_get). */
#include "ubl.h"

#include <stdlib.h>
#include <string.h>

#define MT_LU "ubl.lightud"   /* (shared by every light userdata of the state) */
#define MT_DPKT "ubl.dpkt"
#define MT_FX "ubl.fx"
#define MT_FILTER "ubl.filter"
#define REG_FXCACHE "ubl.fxcache"

/* ================================================================ values */
const char *ubl_sev_name(unsigned sev)
{
    return sev == UB_SEV_ERROR ? "error" : sev == UB_SEV_WARN ? "warning" : "note";
}
int ubl_sev_parse(const char *s)
{
    if (!strcmp(s, "error")) return UB_SEV_ERROR;
    if (!strcmp(s, "warning") || !strcmp(s, "warn")) return UB_SEV_WARN;
    if (!strcmp(s, "note")) return UB_SEV_NOTE;
    return -1;
}

int ubl_push_value(lua_State *L, const ub_layer *l, const ub_field *f)
{
    ub_val v;
    if (ub_field_value(l, f, &v) != 0) return 0;
    switch (f->type) {
    case UB_FT_BOOL:
        if (!(f->flags & UB_FF_VIRTUAL)) {
            lua_pushboolean(L, v.u != 0);
            return 1;
        }
        /* fallthrough */
    case UB_FT_UINT: {
        uint64_t u = v.u;
        if ((f->flags & UB_FF_SIGNED) && f->bits > 0 && f->bits < 64 && (u >> (f->bits - 1)) & 1)
            u |= ~0ull << f->bits;
        lua_pushinteger(L, (lua_Integer)u); /* 64-bit values keep their bits (ub.u64 for unsigned use) */
        return 1;
    }
    case UB_FT_BYTES:
        lua_pushlstring(L, (const char *)v.bytes, v.nbytes);
        return 1;
    default: { /* IPv4/IPv6/MAC/GUID (EIDs, GUIDs: 128-bit) in their display form */
        char buf[128];
        size_t n = ub_format_value(f, &v, false, buf, sizeof buf);
        lua_pushlstring(L, buf, n < sizeof buf ? n : sizeof buf - 1);
        return 1;
    }
    }
}

static const char *type_name(unsigned t)
{
    static const char *const n[] = { "uint", "bool", "bytes", "guid", "guid", "ipv4", "ipv6", "mac" };
    return t < sizeof n / sizeof *n ? n[t] : "?";
}

/* ================================================================ extractors */
typedef struct ubl_fx {
    const char *abbrev;      /* the schema's string */
    uint8_t kind;            /* 0 field, 1 header, 2 ub.error, 3 Wireshark's name of an outer header's field,
                              * 4 frame.protocols */
    const ub_wsname *ws[2];  /* kind 3: its entries (filter.h ub_ws_names; ip.version: IPv4's and IPv6's) */
    const ub_field *first;   /* metadata (first table defining it) */
    const ub_hdr *first_hdr;
    const ub_field *byhdr[UB_H__COUNT]; /* field per header id; header extractors: the sentinel */
} ubl_fx;

static const ub_field hdr_sentinel = { 0 };

static ubl_fx *fx_check(lua_State *L, int idx) { return luaL_checkudata(L, idx, MT_FX); }

/* push a new extractor for `name`, or raise an error naming the unknown field */
static ubl_fx *fx_push(lua_State *L, const char *name)
{
    const ub_hdr *h[32];
    const ub_field *f[32];
    size_t n = 0;
    bool is_err = strcmp(name, "ub.error") == 0, is_protos = strcmp(name, "frame.protocols") == 0;
    const ub_wsname *ws[2] = { NULL, NULL };
    if (!is_err && !is_protos) {
        n = ub_field_find(name, h, f, 32);
        if (n == 0) { /* Wireshark's names of the headers outside UB (ip.src, udp.port, ...), as -Y and -e */
            if (!strchr(name, '.') || !ub_ws_find(name, ws, 2)) luaL_error(L, "unknown field '%s' (ubdump -G fields lists them)", name);
            n = ub_field_find(ws[0]->ub[0], h, f, 32); /* its row: the metadata (type, name) */
        }
    }
    ubl_fx *x = lua_newuserdatauv(L, sizeof *x, 0);
    memset(x, 0, sizeof *x);
    luaL_setmetatable(L, MT_FX);
    x->kind = is_err ? 2 : ws[0] ? 3 : is_protos ? 4 : 0;
    x->ws[0] = ws[0];
    x->ws[1] = ws[1];
    x->abbrev = is_protos ? "frame.protocols" : "ub.error";
    for (size_t i = 0; i < n && i < 32; i++) {
        if (h[i]->id >= UB_H__COUNT) continue;
        if (!f[i]) {
            x->kind = 1;
            x->byhdr[h[i]->id] = &hdr_sentinel;
            x->abbrev = name; /* replaced below by the schema's string */
            if (!x->first_hdr) x->first_hdr = h[i];
            continue;
        }
        if (!x->byhdr[h[i]->id]) x->byhdr[h[i]->id] = f[i];
        if (!x->first) {
            x->first = f[i];
            x->first_hdr = h[i];
            x->abbrev = f[i]->abbrev;
        }
    }
    if (x->kind == 1) x->abbrev = NULL; /* header: name kept as a user value below */
    if (x->kind == 3) {
        x->abbrev = ws[0]->ws; /* the table's string */
        memset(x->byhdr, 0, sizeof x->byhdr);
    }
    return x;
}

/* kind 3: the values of Wireshark's name in the layers its own dissectors show (filter.h
 * ub_ws_layers), in tree order: the row's value (ip.addr: both rows, in the header's order), a span of
 * rows or a scaled row (ip.flags, ip.hdr_len) as an integer */
static int ws_values(lua_State *L, const ubl_fx *x, const ub_view *v, int max)
{
    unsigned nl = v->nlayers > UB_MAX_LAYERS ? UB_MAX_LAYERS : v->nlayers;
    ub_ws_layers wl;
    ub_ws_layers_of(v, &wl);
    int n = 0;
    for (unsigned i = 0; i < nl && n < max; i++) {
        const ub_layer *l = &v->layer[i];
        if (!ub_ws_layers_has(&wl, i)) continue;
        const ub_wsname *w = x->ws[0];
        const ub_field *a = ub_layer_row(l, w->ub[0]);
        if (!a && x->ws[1]) a = ub_layer_row(l, (w = x->ws[1])->ub[0]); /* ip.version of an IPv6 header */
        if (!a) continue;
        luaL_checkstack(L, 2, "field occurrences");
        const ub_field *b = w->ub[1] ? ub_layer_row(l, w->ub[1]) : NULL;
        uint64_t u;
        if ((w->flags & UB_WS_NOJSON) && b) { /* either row: both */
            n += ubl_push_value(L, l, a < b ? a : b);
            n += ubl_push_value(L, l, a < b ? b : a);
        } else if ((w->flags & UB_WS_SPAN) || w->scale) {
            if (!ub_ws_number(l, w, &u)) continue;
            lua_pushinteger(L, (lua_Integer)u);
            n++;
        } else {
            n += ubl_push_value(L, l, a);
        }
    }
    return n;
}

int ubl_field_new(lua_State *L)
{
    const char *name = luaL_checkstring(L, 1);
    ub_lua *u = ubl_host(L);
    (void)u;
    ubl_fx *x = fx_push(L, name);
    if (x->kind == 1) { /* keep the header name alive with the object */
        lua_pushvalue(L, -1);
        lua_newtable(L);
        lua_pushvalue(L, 1);
        lua_setfield(L, -2, "name");
        lua_setiuservalue(L, -2, 1);
        lua_pop(L, 1);
    }
    return 1;
}

/* cached extractor for a name given as a string to pkt methods (resolved once per name) */
static ubl_fx *fx_cached(lua_State *L, int name_idx)
{
    name_idx = lua_absindex(L, name_idx);
    if (lua_type(L, name_idx) == LUA_TUSERDATA) return fx_check(L, name_idx);
    const char *name = luaL_checkstring(L, name_idx);
    lua_getfield(L, LUA_REGISTRYINDEX, REG_FXCACHE);
    lua_pushvalue(L, name_idx);
    if (lua_rawget(L, -2) == LUA_TUSERDATA) {
        ubl_fx *x = lua_touserdata(L, -1);
        lua_pop(L, 2);
        return x;
    }
    lua_pop(L, 1);
    ubl_fx *x = fx_push(L, name);
    lua_pushvalue(L, name_idx);
    lua_pushvalue(L, -2);
    lua_rawset(L, -4);
    lua_pop(L, 2); /* the cache keeps it alive */
    return x;
}

/* push every occurrence in p; returns how many */
static int fx_values(lua_State *L, const ubl_fx *x, const ubl_pktref *p, int max)
{
    const ub_view *v = p->v;
    int n = 0;
    if (x->kind == 3) return ws_values(L, x, v, max);
    if (x->kind == 4) { /* Wireshark's list of the frame's protocols (filter.h ub_ws_protocols) */
        char t[512];
        ub_ws_protocols_text(v, t, sizeof t);
        lua_pushstring(L, t);
        return 1;
    }
    if (x->kind == 2) {
        luaL_checkstack(L, v->nerrs + 1, "ub.error");
        for (unsigned i = 0; i < v->nerrs && n < max; i++) {
            const ub_err_info *ei = ub_err_get(v->err[i].code);
            lua_pushstring(L, ei ? ei->name : "?");
            n++;
        }
        return n;
    }
    unsigned nl = v->nlayers > UB_MAX_LAYERS ? UB_MAX_LAYERS : v->nlayers;
    for (unsigned i = 0; i < nl && n < max; i++) {
        const ub_layer *l = &v->layer[i];
        const ub_field *f = l->hdr->id < UB_H__COUNT ? x->byhdr[l->hdr->id] : NULL;
        if (!f) continue;
        if (n >= 8) luaL_checkstack(L, 2, "field occurrences");
        if (f == &hdr_sentinel) {
            lua_pushlstring(L, (const char *)l->data, l->len);
            n++;
        } else {
            n += ubl_push_value(L, l, f);
        }
    }
    return n;
}

/* extractor(pkt) → every occurrence as multiple results, nil if none (like Field.new()()) */
static int fx_call(lua_State *L)
{
    ubl_fx *x = lua_touserdata(L, 1);
    ubl_pktref p;
    ubl_check_pkt(L, 2, &p);
    luaL_checkstack(L, 8, NULL);
    int n = fx_values(L, x, &p, UB_MAX_LAYERS + UB_MAX_ERRS);
    if (n == 0) {
        lua_pushnil(L);
        return 1;
    }
    return n;
}

static int push_all(lua_State *L, const ubl_fx *x, const ubl_pktref *p)
{
    int top = lua_gettop(L);
    int n = fx_values(L, x, p, UB_MAX_LAYERS + UB_MAX_ERRS);
    lua_createtable(L, n, 0);
    lua_insert(L, top + 1);
    for (int i = n; i >= 1; i--) lua_rawseti(L, top + 1, i);
    return 1;
}

static int display_first(lua_State *L, const ubl_fx *x, const ubl_pktref *p)
{
    if (x->kind != 0) {
        if (fx_values(L, x, p, 1) == 0) lua_pushnil(L);
        return 1;
    }
    const ub_view *v = p->v;
    unsigned nl = v->nlayers > UB_MAX_LAYERS ? UB_MAX_LAYERS : v->nlayers;
    for (unsigned i = 0; i < nl; i++) {
        const ub_layer *l = &v->layer[i];
        const ub_field *f = x->byhdr[l->hdr->id];
        ub_val val;
        if (!f || ub_field_value(l, f, &val) != 0) continue;
        char buf[256];
        size_t n = ub_format_value(f, &val, true, buf, sizeof buf);
        lua_pushlstring(L, buf, n < sizeof buf ? n : sizeof buf - 1);
        return 1;
    }
    lua_pushnil(L);
    return 1;
}

static int fx_all(lua_State *L)
{
    ubl_fx *x = fx_check(L, 1);
    ubl_pktref p;
    ubl_check_pkt(L, 2, &p);
    return push_all(L, x, &p);
}

static int fx_display(lua_State *L)
{
    ubl_fx *x = fx_check(L, 1);
    ubl_pktref p;
    ubl_check_pkt(L, 2, &p);
    return display_first(L, x, &p);
}

static const ub_vname *fx_vals(const ubl_fx *x) { return x->first ? x->first->vals : NULL; }

static int fx_valname(lua_State *L)
{
    ubl_fx *x = fx_check(L, 1);
    lua_Integer v = luaL_checkinteger(L, 2);
    const char *nm = ub_vname_lookup(fx_vals(x), (uint64_t)v);
    if (nm) lua_pushstring(L, nm);
    else lua_pushnil(L);
    return 1;
}

static int fx_value(lua_State *L)
{
    ubl_fx *x = fx_check(L, 1);
    const char *nm = luaL_checkstring(L, 2);
    for (const ub_vname *vn = fx_vals(x); vn && vn->name; vn++) {
        if (strcmp(vn->name, nm) == 0) {
            lua_pushinteger(L, (lua_Integer)vn->value);
            return 1;
        }
    }
    return luaL_error(L, "'%s' is not a value name of %s", nm, x->abbrev ? x->abbrev : "this field");
}

static int fxp_abbrev(lua_State *L, const ubl_pktref *p)
{
    (void)p;
    ubl_fx *x = lua_touserdata(L, 1);
    if (x->abbrev) lua_pushstring(L, x->abbrev);
    else {
        lua_getiuservalue(L, 1, 1);
        lua_getfield(L, -1, "name");
    }
    return 1;
}
static int fxp_name(lua_State *L, const ubl_pktref *p)
{
    (void)p;
    ubl_fx *x = lua_touserdata(L, 1);
    bool whole = x->kind == 3 && ((x->ws[0]->flags & UB_WS_SPAN) || x->ws[0]->scale); /* not one row's */
    lua_pushstring(L, x->kind == 2 ? "error" : x->kind == 4 ? "Protocols in frame" : whole ? x->ws[0]->ws : x->first ? x->first->name : x->first_hdr ? x->first_hdr->name : "?");
    return 1;
}
static int fxp_type(lua_State *L, const ubl_pktref *p)
{
    (void)p;
    ubl_fx *x = lua_touserdata(L, 1);
    bool num = x->kind == 3 && ((x->ws[0]->flags & UB_WS_SPAN) || x->ws[0]->scale); /* ip.flags, ip.hdr_len */
    lua_pushstring(L, x->kind == 1 ? "header" : x->kind == 2 || x->kind == 4 ? "string" : num ? "uint" : type_name(x->first->type));
    return 1;
}
static int fxp_bits(lua_State *L, const ubl_pktref *p)
{
    (void)p;
    ubl_fx *x = lua_touserdata(L, 1);
    if (x->first) lua_pushinteger(L, x->first->bits);
    else lua_pushnil(L);
    return 1;
}
static int fxp_desc(lua_State *L, const ubl_pktref *p)
{
    (void)p;
    ubl_fx *x = lua_touserdata(L, 1);
    lua_pushstring(L, x->first ? x->first->desc : x->first_hdr ? x->first_hdr->name : x->kind == 4 ? "the frame's protocols as Wireshark lists them" : "decode error names");
    return 1;
}
static int fxp_spec(lua_State *L, const ubl_pktref *p)
{
    (void)p;
    ubl_fx *x = lua_touserdata(L, 1);
    lua_pushstring(L, x->first ? x->first->spec : x->first_hdr ? x->first_hdr->spec : x->kind == 4 ? "docs/filters.md" : "docs/errors.md");
    return 1;
}
static int fxp_values(lua_State *L, const ubl_pktref *p)
{
    (void)p;
    ubl_fx *x = lua_touserdata(L, 1);
    lua_newtable(L);
    for (const ub_vname *vn = fx_vals(x); vn && vn->name; vn++) {
        lua_pushstring(L, vn->name);
        lua_rawseti(L, -2, (lua_Integer)vn->value);
    }
    return 1;
}

const ubl_reg ubl_fx_regs[] = {
    { "__call", fx_call, NULL, "f(pkt) → value, ... | nil",
      "Every occurrence of the field in the packet, in layer order, as multiple results (`local v = f(pkt)` "
      "takes the first); `nil` when absent. Integers (≤ 64 bits, exact: 64-bit values keep their bit "
      "pattern, use `ub.u64`), booleans for flag fields, strings for byte strings (raw bytes), display "
      "strings for IPv4/IPv6/MAC/GUID/128-bit EIDs. A header extractor (`ub.field(\"ub.btah\")`) returns "
      "the header's raw bytes; `ub.field(\"ub.error\")` the packet's decode error names." },
    { "all", fx_all, NULL, "f:all(pkt) → {value, ...}", "Every occurrence as an array (empty when absent)." },
    { "display", fx_display, NULL, "f:display(pkt) → string | nil",
      "The first occurrence formatted as ubdump prints it, value name included (`\"4 (Read)\"`)." },
    { "valname", fx_valname, NULL, "f:valname(v) → string | nil", "The value name of `v` (`op:valname(4)` → `\"Read\"`)." },
    { "value", fx_value, NULL, "f:value(name) → integer",
      "The number of a value name (`op:value(\"Read\")` → 4); an error when the field has no such name." },
    { "abbrev", NULL, fxp_abbrev, "f.abbrev", "The field's name (`\"ub.rtph.psn\"`)." },
    { "name", NULL, fxp_name, "f.name", "The spec's name of the field (`\"PSN\"`)." },
    { "type", NULL, fxp_type, "f.type", "`uint`, `bool`, `bytes`, `ipv4`, `ipv6`, `mac`, `guid`, `header` or `string` (ub.error)." },
    { "bits", NULL, fxp_bits, "f.bits", "Width in bits (0 = to the end of the header)." },
    { "desc", NULL, fxp_desc, "f.desc", "One-line meaning from the schema." },
    { "spec", NULL, fxp_spec, "f.spec", "Spec reference (`\"§6.2.1 ...\"`)." },
    { "values", NULL, fxp_values, "f.values", "Table value → name of the field's value names (a new table)." },
    { NULL, NULL, NULL, NULL, NULL }
};

/* ================================================================ packets */
typedef struct ubl_dpkt {
    ub_pktinfo pi;
    int64_t latency;  /* expect(): arrival - reference in ns; -1 none */
    uint64_t seq;     /* expect(): the runner's packet id (findings cite it); 0 none */
    ub_view v;
    uint32_t len;
    uint8_t bytes[]; /* the record (the view points into it) */
} ubl_dpkt;

bool ubl_is_pkt(lua_State *L, int idx)
{
    if (lua_type(L, idx) == LUA_TLIGHTUSERDATA) return ((uintptr_t)lua_touserdata(L, idx) & 3) == UBL_LU_PKT;
    return luaL_testudata(L, idx, MT_DPKT) != NULL;
}

void ubl_check_pkt(lua_State *L, int idx, ubl_pktref *out)
{
    ub_lua *u = ubl_host(L);
    if (lua_type(L, idx) == LUA_TLIGHTUSERDATA) {
        uintptr_t c = (uintptr_t)lua_touserdata(L, idx);
        if ((c & 3) == UBL_LU_PKT) {
            if (u->pkt_live && c == (uintptr_t)ubl_lu(u->pkt_gen, UBL_LU_PKT)) {
                out->v = u->v;
                out->pi = &u->pi;
                out->host = u;
                out->current = true;
                return;
            }
            luaL_error(L, "packet object used after its callback returned (a hook's pkt is valid only during "
                          "the call: keep the values you need, or ub.decode(pkt:bytes()) for a copy)");
        }
    } else {
        ubl_dpkt *d = luaL_testudata(L, idx, MT_DPKT);
        if (d) {
            out->v = &d->v;
            out->pi = &d->pi;
            out->host = u;
            out->current = false;
            return;
        }
    }
    luaL_typeerror(L, idx, "packet");
}

void ubl_push_pkt(lua_State *L)
{
    lua_pushlightuserdata(L, ubl_lu(ubl_host(L)->pkt_gen, UBL_LU_PKT));
}

static int pkt_self(lua_State *L, ubl_pktref *p)
{
    ubl_check_pkt(L, 1, p);
    return 0;
}

static int pp_frame(lua_State *L, const ubl_pktref *p) { lua_pushinteger(L, (lua_Integer)p->pi->frame); return 1; }
static int pp_ts(lua_State *L, const ubl_pktref *p) { lua_pushinteger(L, (lua_Integer)p->pi->ts_ns); return 1; }
static int pp_dir(lua_State *L, const ubl_pktref *p)
{
    if (p->pi->dir == UB_DIR_IN) lua_pushliteral(L, "in");
    else if (p->pi->dir == UB_DIR_OUT) lua_pushliteral(L, "out");
    else lua_pushnil(L);
    return 1;
}
static int pp_ifindex(lua_State *L, const ubl_pktref *p) { lua_pushinteger(L, p->pi->ifindex); return 1; }
static int pp_len(lua_State *L, const ubl_pktref *p) { lua_pushinteger(L, p->v->rec_len); return 1; }
static int pp_cfg(lua_State *L, const ubl_pktref *p)
{
    if (p->v->cfg >= 0) lua_pushinteger(L, p->v->cfg);
    else lua_pushnil(L);
    return 1;
}
static int pp_kind(lua_State *L, const ubl_pktref *p)
{
    static const char *const k[] = { "none", "dlldp", "dllcb", "uboe", "other" };
    lua_pushstring(L, p->v->kind < 5 ? k[p->v->kind] : "?");
    return 1;
}
static const char *const entry_names[] = { "none", "flit", "pkt", "stream", "sll", "sll2", "eth", "rawip", "cfgph", "tph" };
const char *ubl_entry_name(unsigned e)
{
    return e < sizeof entry_names / sizeof *entry_names ? entry_names[e] : "?";
}
static int pp_entry(lua_State *L, const ubl_pktref *p)
{
    lua_pushstring(L, p->v->entry < sizeof entry_names / sizeof *entry_names ? entry_names[p->v->entry] : "?");
    return 1;
}
static int pp_summary(lua_State *L, const ubl_pktref *p)
{
    char buf[512];
    size_t n = ub_summary(p->v, buf, sizeof buf);
    lua_pushlstring(L, buf, n < sizeof buf ? n : sizeof buf - 1);
    return 1;
}
static int pp_error(lua_State *L, const ubl_pktref *p)
{
    if (!p->v->nerrs) {
        lua_pushnil(L);
        return 1;
    }
    char buf[512];
    size_t n = ub_error_names(p->v, buf, sizeof buf);
    lua_pushlstring(L, buf, n < sizeof buf ? n : sizeof buf - 1);
    return 1;
}
static int pp_errors(lua_State *L, const ubl_pktref *p)
{
    const ub_view *v = p->v;
    lua_createtable(L, v->nerrs, 0);
    for (unsigned i = 0; i < v->nerrs; i++) {
        const ub_err *e = &v->err[i];
        const ub_err_info *ei = ub_err_get(e->code);
        const ub_hdr *h = ub_hdr_get(e->hdr);
        lua_createtable(L, 0, 7);
        lua_pushstring(L, ei ? ei->name : "?");
        lua_setfield(L, -2, "name");
        lua_pushstring(L, ubl_sev_name(ei ? ei->severity : 0));
        lua_setfield(L, -2, "severity");
        lua_pushstring(L, h ? h->abbrev : "");
        lua_setfield(L, -2, "header");
        lua_pushinteger(L, e->off);
        lua_setfield(L, -2, "offset");
        lua_pushinteger(L, (lua_Integer)e->actual);
        lua_setfield(L, -2, "actual");
        lua_pushinteger(L, (lua_Integer)e->expected);
        lua_setfield(L, -2, "expected");
        if (e->what) {
            lua_pushstring(L, e->what);
            lua_setfield(L, -2, "what");
        }
        lua_rawseti(L, -2, i + 1);
    }
    return 1;
}
static int pp_nlayers(lua_State *L, const ubl_pktref *p) { lua_pushinteger(L, p->v->nlayers); return 1; }
static int pp_latency(lua_State *L, const ubl_pktref *p)
{
    (void)p;
    ubl_dpkt *d = luaL_testudata(L, 1, MT_DPKT);
    if (d && d->latency >= 0) lua_pushinteger(L, d->latency);
    else lua_pushnil(L);
    return 1;
}
/* the engine's TP flags of the current packet; an error where they would silently be 0 */
static uint32_t tp_flags(lua_State *L, const ubl_pktref *p)
{
    ub_lua *u = p->host;
    if (!p->current) luaL_error(L, "TP analysis: only the packet of on_packet / on_match went through the state engine");
    if (!u->fed)
        luaL_error(L, "TP analysis needs the state engine: run ubdump with --audit (or -z ub,tp), or define on_match/on_finding");
    if (ub_audit_jobs(u->fed) > 1)
        luaL_error(L, "TP analysis is per packet only with one engine: run without --threads (or define on_match/on_finding)");
    return ub_audit_last_flags(u->fed);
}
static int pp_tp_flags(lua_State *L, const ubl_pktref *p)
{
    lua_pushinteger(L, (lua_Integer)tp_flags(L, p));
    return 1;
}

static int pm_bytes(lua_State *L)
{
    ubl_pktref p;
    pkt_self(L, &p);
    lua_pushlstring(L, (const char *)p.v->rec, p.v->rec_len);
    return 1;
}

static int pm_has(lua_State *L)
{
    ubl_pktref p;
    pkt_self(L, &p);
    ubl_fx *x = fx_cached(L, 2);
    if (x->kind == 2 || x->kind == 4) {
        lua_pushboolean(L, x->kind == 4 || p.v->nerrs > 0);
        return 1;
    }
    if (x->kind == 3) {
        int n = ws_values(L, x, p.v, 1);
        lua_pop(L, n);
        lua_pushboolean(L, n > 0);
        return 1;
    }
    unsigned nl = p.v->nlayers > UB_MAX_LAYERS ? UB_MAX_LAYERS : p.v->nlayers;
    for (unsigned i = 0; i < nl; i++) {
        const ub_layer *l = &p.v->layer[i];
        const ub_field *f = x->byhdr[l->hdr->id];
        ub_val val;
        if (f && (f == &hdr_sentinel || ub_field_value(l, f, &val) == 0)) {
            lua_pushboolean(L, 1);
            return 1;
        }
    }
    lua_pushboolean(L, 0);
    return 1;
}

static int pm_get(lua_State *L)
{
    ubl_pktref p;
    pkt_self(L, &p);
    ubl_fx *x = fx_cached(L, 2);
    if (fx_values(L, x, &p, 1) == 0) lua_pushnil(L);
    return 1;
}

static int pm_all(lua_State *L)
{
    ubl_pktref p;
    pkt_self(L, &p);
    return push_all(L, fx_cached(L, 2), &p);
}

static int pm_display(lua_State *L)
{
    ubl_pktref p;
    pkt_self(L, &p);
    return display_first(L, fx_cached(L, 2), &p);
}

static void push_layer(lua_State *L, const ub_view *v, unsigned i)
{
    const ub_layer *l = &v->layer[i];
    lua_createtable(L, 0, 9);
    lua_pushinteger(L, i + 1);
    lua_setfield(L, -2, "index");
    lua_pushstring(L, l->hdr->key);
    lua_setfield(L, -2, "key");
    lua_pushfstring(L, "%s%s", ub_hdr_ns(l->hdr), l->hdr->abbrev);
    lua_setfield(L, -2, "abbrev");
    lua_pushstring(L, l->hdr->name);
    lua_setfield(L, -2, "name");
    lua_pushinteger(L, l->off);
    lua_setfield(L, -2, "offset");
    lua_pushinteger(L, l->len);
    lua_setfield(L, -2, "len");
    lua_pushinteger(L, l->depth);
    lua_setfield(L, -2, "depth");
    lua_pushboolean(L, (l->flags & UB_LF_TRUNC) != 0);
    lua_setfield(L, -2, "truncated");
    lua_pushstring(L, (l->flags & UB_LF_NETBUF) ? "network" : "record");
    lua_setfield(L, -2, "buffer");
}

static int pm_layers(lua_State *L)
{
    ubl_pktref p;
    pkt_self(L, &p);
    unsigned nl = p.v->nlayers > UB_MAX_LAYERS ? UB_MAX_LAYERS : p.v->nlayers;
    lua_createtable(L, (int)nl, 0);
    for (unsigned i = 0; i < nl; i++) {
        push_layer(L, p.v, i);
        lua_rawseti(L, -2, i + 1);
    }
    return 1;
}

/* header by abbrev ("ub.btah": any format variant) or table key ("btah_c"); nth occurrence */
static int find_layer(lua_State *L, const ubl_pktref *p, int name_idx, int nth)
{
    const char *nm = luaL_checkstring(L, name_idx);
    unsigned nl = p->v->nlayers > UB_MAX_LAYERS ? UB_MAX_LAYERS : p->v->nlayers;
    bool ab = strncmp(nm, "ub.", 3) == 0;
    int seen = 0;
    for (unsigned i = 0; i < nl; i++) {
        const ub_hdr *h = p->v->layer[i].hdr;
        bool hit = ab ? strcmp(h->abbrev, nm + 3) == 0 : strcmp(h->key, nm) == 0 || (ub_hdr_foreign(h) && strcmp(h->abbrev, nm) == 0);
        if (!hit) continue;
        if (++seen == nth) return (int)i;
    }
    return -1;
}

static int pm_layer(lua_State *L)
{
    ubl_pktref p;
    pkt_self(L, &p);
    int i;
    if (lua_isinteger(L, 2)) {
        lua_Integer k = lua_tointeger(L, 2);
        i = k >= 1 && k <= p.v->nlayers && k <= UB_MAX_LAYERS ? (int)k - 1 : -1;
    } else {
        i = find_layer(L, &p, 2, (int)luaL_optinteger(L, 3, 1));
    }
    if (i < 0) lua_pushnil(L);
    else push_layer(L, p.v, (unsigned)i);
    return 1;
}

static int pm_raw(lua_State *L)
{
    ubl_pktref p;
    pkt_self(L, &p);
    int i = find_layer(L, &p, 2, (int)luaL_optinteger(L, 3, 1));
    if (i < 0) lua_pushnil(L);
    else lua_pushlstring(L, (const char *)p.v->layer[i].data, p.v->layer[i].len);
    return 1;
}

static int pm_has_error(lua_State *L)
{
    ubl_pktref p;
    pkt_self(L, &p);
    const char *nm = luaL_checkstring(L, 2);
    for (unsigned i = 0; i < p.v->nerrs; i++) {
        const ub_err_info *ei = ub_err_get(p.v->err[i].code);
        if (ei && strcmp(ei->name, nm) == 0) {
            lua_pushboolean(L, 1);
            return 1;
        }
    }
    lua_pushboolean(L, 0);
    return 1;
}

static int print_to_string(lua_State *L, const ub_view *v, bool json)
{
    char *buf = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&buf, &n);
    if (!f) return luaL_error(L, "out of memory");
    if (json) ub_print_json(f, v);
    else ub_print_tree(f, v);
    fclose(f);
    lua_pushlstring(L, buf ? buf : "", n);
    free(buf);
    return 1;
}
static int pm_tree(lua_State *L)
{
    ubl_pktref p;
    pkt_self(L, &p);
    return print_to_string(L, p.v, false);
}
static int pm_json(lua_State *L)
{
    ubl_pktref p;
    pkt_self(L, &p);
    return print_to_string(L, p.v, true);
}

static const struct { const char *name; uint32_t bit; } tp_flag_names[] = {
    { "retransmission", UB_TPF_RETRANSMISSION }, { "out_of_order", UB_TPF_OUT_OF_ORDER },
    { "lost_before", UB_TPF_LOST_BEFORE },       { "dup_ack", UB_TPF_DUP_ACK },
    { "nak", UB_TPF_NAK },                       { "sack", UB_TPF_SACK },
    { "duplicate", UB_TPF_DUPLICATE },
};
static int pm_analysis(lua_State *L)
{
    ubl_pktref p;
    pkt_self(L, &p);
    uint32_t fl = tp_flags(L, &p);
    size_t nf = sizeof tp_flag_names / sizeof *tp_flag_names;
    if (lua_isnoneornil(L, 2)) {
        lua_newtable(L);
        for (size_t i = 0; i < nf; i++) {
            if (!(fl & tp_flag_names[i].bit)) continue;
            lua_pushboolean(L, 1);
            lua_setfield(L, -2, tp_flag_names[i].name);
        }
        return 1;
    }
    const char *nm = luaL_checkstring(L, 2);
    for (size_t i = 0; i < nf; i++) {
        if (strcmp(nm, tp_flag_names[i].name) == 0) {
            lua_pushboolean(L, (fl & tp_flag_names[i].bit) != 0);
            return 1;
        }
    }
    return luaL_argerror(L, 2, "unknown analysis flag (retransmission, out_of_order, lost_before, dup_ack, nak, sack, duplicate)");
}

static int pm_match(lua_State *L)
{
    ubl_pktref p;
    pkt_self(L, &p);
    lua_pushboolean(L, ubl_filter_test(L, 2, &p));
    return 1;
}


const ubl_reg ubl_pkt_regs[] = {
    { "frame", NULL, pp_frame, "pkt.frame", "Frame number (1-based record number of the capture)." },
    { "ts", NULL, pp_ts, "pkt.ts", "Timestamp in nanoseconds since the epoch (integer)." },
    { "dir", NULL, pp_dir, "pkt.dir", "`\"in\"`, `\"out\"` (pcapng EPB direction flags) or `nil`." },
    { "ifindex", NULL, pp_ifindex, "pkt.ifindex", "pcapng interface id (0 for pcap)." },
    { "len", NULL, pp_len, "pkt.len", "Record length in bytes (as decoded)." },
    { "cfg", NULL, pp_cfg, "pkt.cfg", "CFG of the DLLDP/DLLCB, `nil` when unknown." },
    { "kind", NULL, pp_kind, "pkt.kind", "`\"dlldp\"`, `\"dllcb\"`, `\"uboe\"`, `\"other\"` or `\"none\"`." },
    { "entry", NULL, pp_entry, "pkt.entry", "Entry point it was decoded with (`\"flit\"`, `\"pkt\"`, `\"eth\"`, ...)." },
    { "summary", NULL, pp_summary, "pkt.summary", "The one-line summary ubdump prints." },
    { "error", NULL, pp_error, "pkt.error", "Comma-separated decode error names (the `ub.error` pseudo-field), `nil` when clean." },
    { "errors", NULL, pp_errors, "pkt.errors",
      "Array of `{name, severity, header, offset, actual, expected, what}` per decode error (a new table)." },
    { "nlayers", NULL, pp_nlayers, "pkt.nlayers", "Number of decoded layers." },
    { "latency", NULL, pp_latency, "pkt.latency",
      "A packet returned by `expect()`: its arrival time minus the reference (the last send) in ns; else `nil`." },
    { "tp_flags", NULL, pp_tp_flags, "pkt.tp_flags",
      "The state engine's TP analysis bits of this packet; see `pkt:analysis()`." },
    { "has", pm_has, NULL, "pkt:has(name | f) → boolean",
      "Is the header (`\"ub.ciph\"`) or field present? Names are resolved once and cached." },
    { "get", pm_get, NULL, "pkt:get(name | f) → value | nil", "First occurrence of a field (cached like `has`)." },
    { "all", pm_all, NULL, "pkt:all(name | f) → {value, ...}", "Every occurrence as an array." },
    { "display", pm_display, NULL, "pkt:display(name | f) → string | nil", "First occurrence formatted with its value name." },
    { "layers", pm_layers, NULL, "pkt:layers() → {layer, ...}",
      "Layers in order: `{index, key, abbrev, name, offset, len, depth, truncated, buffer}`; `offset` is in "
      "the record, or in the reassembled network packet when `buffer == \"network\"` (multi-block DLLDPs)." },
    { "layer", pm_layer, NULL, "pkt:layer(i | name [, n]) → layer | nil",
      "Layer by index, or the n-th (default 1st) layer of a header (`\"ub.btah\"` any format variant, or a table key `\"btah_c\"`)." },
    { "raw", pm_raw, NULL, "pkt:raw(name [, n]) → bytes | nil", "Raw bytes of the n-th layer of a header." },
    { "bytes", pm_bytes, NULL, "pkt:bytes() → bytes", "The whole record." },
    { "has_error", pm_has_error, NULL, "pkt:has_error(name) → boolean", "Does the packet carry this decode error (`\"bcrc_bad\"`)?" },
    { "analysis", pm_analysis, NULL, "pkt:analysis([flag]) → boolean | table",
      "TP analysis of the state engine: `retransmission`, `out_of_order`, `lost_before`, `dup_ack`, `nak`, "
      "`sack`, `duplicate`; without an argument a table of the flags set. Needs the engine on this packet "
      "(ubdump `--audit` or `-z ub,tp`, or a script with `on_match`/`on_finding`) and one engine (no `-j`): "
      "an error otherwise, never a silent `false`." },
    { "match", pm_match, NULL, "pkt:match(filter) → boolean", "Does the packet match a display filter (string or `ub.filter`)?" },
    { "tree", pm_tree, NULL, "pkt:tree() → string", "The verbose tree (`ubdump -V`)." },
    { "json", pm_json, NULL, "pkt:json() → string", "The JSON object of `ubdump -T ubjson`." },
    { NULL, NULL, NULL, NULL, NULL }
};

/* ================================================================ ub.decode */
static const struct { const char *name; uint8_t e; } entries[] = {
    { "flit", UB_ENTRY_FLIT }, { "pkt", UB_ENTRY_PKT }, { "stream", UB_ENTRY_FLIT }, { "sll", UB_ENTRY_SLL },
    { "sll2", UB_ENTRY_SLL2 }, { "eth", UB_ENTRY_ETH }, { "rawip", UB_ENTRY_RAWIP }, { "cfgph", UB_ENTRY_CFGPH },
    { "tph", UB_ENTRY_TPH },
};

int ubl_entry_parse(const char *s)
{
    for (size_t i = 0; i < sizeof entries / sizeof *entries; i++)
        if (strcmp(entries[i].name, s) == 0) return entries[i].e;
    return -1;
}

void ubl_push_dpkt(lua_State *L, const uint8_t *b, size_t n, unsigned entry, const ub_pktinfo *pi, int64_t latency,
                   uint64_t seq)
{
    ub_lua *u = ubl_host(L);
    ubl_dpkt *d = lua_newuserdatauv(L, sizeof *d + n, 0);
    if (pi) d->pi = *pi;
    else memset(&d->pi, 0, sizeof d->pi);
    d->latency = latency;
    d->seq = seq;
    d->len = (uint32_t)n;
    memcpy(d->bytes, b, n);
    ub_view_init(&d->v);
    ub_decode(&d->v, &u->opts, (ub_entry)entry, d->bytes, d->len);
    luaL_setmetatable(L, MT_DPKT);
}

uint64_t ubl_pkt_seq(lua_State *L, int idx)
{
    ubl_dpkt *d = luaL_testudata(L, idx, MT_DPKT);
    return d ? d->seq : 0;
}

int ubl_decode(lua_State *L)
{
    size_t n;
    const char *b = luaL_checklstring(L, 1, &n);
    const char *en = luaL_optstring(L, 2, "flit");
    int e = ubl_entry_parse(en);
    if (e < 0) return luaL_argerror(L, 2, "entry: flit, pkt, stream, sll, sll2, eth, rawip, cfgph or tph");
    if (n > 1u << 20) return luaL_argerror(L, 1, "record longer than 1 MiB");
    ub_pktinfo pi;
    memset(&pi, 0, sizeof pi);
    if (lua_istable(L, 3)) {
        if (lua_getfield(L, 3, "frame") != LUA_TNIL) pi.frame = (uint64_t)luaL_checkinteger(L, -1);
        if (lua_getfield(L, 3, "ts") != LUA_TNIL) pi.ts_ns = (uint64_t)luaL_checkinteger(L, -1);
        if (lua_getfield(L, 3, "ifindex") != LUA_TNIL) pi.ifindex = (uint32_t)luaL_checkinteger(L, -1);
        if (lua_getfield(L, 3, "dir") != LUA_TNIL) {
            const char *dn = luaL_checkstring(L, -1);
            pi.dir = !strcmp(dn, "in") ? UB_DIR_IN : !strcmp(dn, "out") ? UB_DIR_OUT : UB_DIR_UNKNOWN;
        }
        lua_pop(L, 4);
    }
    ubl_push_dpkt(L, (const uint8_t *)b, n, (unsigned)e, &pi, -1, 0);
    return 1;
}

/* ================================================================ metatables */
/* dispatch table: name -> method (function) or property (row index) */
void ubl_dispatch_table(lua_State *L, const ubl_reg *regs)
{
    lua_newtable(L);
    for (int i = 0; regs[i].name; i++) {
        if (regs[i].name[0] == '_' && regs[i].name[1] == '_') continue;
        if (regs[i].fn) lua_pushcfunction(L, regs[i].fn);
        else lua_pushinteger(L, i);
        lua_setfield(L, -2, regs[i].name);
    }
}

int ubl_dispatch(lua_State *L, int up, const ubl_reg *regs, const char *what, const ubl_pktref *p)
{
    lua_pushvalue(L, 2);
    int t = lua_rawget(L, lua_upvalueindex(up));
    if (t == LUA_TFUNCTION) return 1;
    if (t == LUA_TNUMBER) return regs[lua_tointeger(L, -1)].get(L, p);
    if (lua_type(L, 2) == LUA_TSTRING) return luaL_error(L, "%s has no member '%s'", what, lua_tostring(L, 2));
    return luaL_error(L, "%s has no member of type %s", what, luaL_typename(L, 2));
}

/* __index of every light userdata (pkt / match / finding) */
static int lu_index(lua_State *L)
{
    uintptr_t c = (uintptr_t)lua_touserdata(L, 1);
    switch (c & 3) {
    case UBL_LU_PKT: {
        ubl_pktref p;
        lua_pushvalue(L, 2);
        int t = lua_rawget(L, lua_upvalueindex(1));
        if (t == LUA_TFUNCTION) return 1; /* methods check the packet when called */
        lua_pop(L, 1);
        ubl_check_pkt(L, 1, &p);
        return ubl_dispatch(L, 1, ubl_pkt_regs, "a packet", &p);
    }
    case UBL_LU_MATCH: return ubl_dispatch(L, 2, ubl_match_regs, "a match", NULL);
    case UBL_LU_FINDING: return ubl_dispatch(L, 3, ubl_find_regs, "a finding", NULL);
    default: return luaL_error(L, "not a ub object");
    }
}

static int lu_newindex(lua_State *L)
{
    uintptr_t c = (uintptr_t)lua_touserdata(L, 1);
    if ((c & 3) == UBL_LU_FINDING) return ubl_finding_set(L);
    return luaL_error(L, "ub objects are read-only");
}

static int lu_tostring(lua_State *L)
{
    uintptr_t c = (uintptr_t)lua_touserdata(L, 1);
    ub_lua *u = ubl_host(L);
    switch (c & 3) {
    case UBL_LU_PKT:
        if (u->pkt_live && c == (uintptr_t)ubl_lu(u->pkt_gen, UBL_LU_PKT))
            lua_pushfstring(L, "packet(frame %I)", (lua_Integer)u->pi.frame);
        else
            lua_pushliteral(L, "packet(stale)");
        return 1;
    case UBL_LU_MATCH: lua_pushliteral(L, "match"); return 1;
    case UBL_LU_FINDING: lua_pushliteral(L, "finding"); return 1;
    default: lua_pushliteral(L, "lightuserdata"); return 1;
    }
}

static int dpkt_index(lua_State *L)
{
    ubl_pktref p;
    lua_pushvalue(L, 2);
    if (lua_rawget(L, lua_upvalueindex(1)) == LUA_TFUNCTION) return 1;
    lua_pop(L, 1);
    ubl_check_pkt(L, 1, &p);
    return ubl_dispatch(L, 1, ubl_pkt_regs, "a packet", &p);
}
static int dpkt_tostring(lua_State *L)
{
    ubl_dpkt *d = luaL_checkudata(L, 1, MT_DPKT);
    char buf[256];
    ub_summary(&d->v, buf, sizeof buf);
    lua_pushfstring(L, "packet(%s)", buf);
    return 1;
}

static int fx_index(lua_State *L) { return ubl_dispatch(L, 1, ubl_fx_regs, "a field extractor", NULL); }
static int fx_tostring(lua_State *L)
{
    lua_settop(L, 1);
    fxp_abbrev(L, NULL);
    lua_pushfstring(L, "ub.field(\"%s\")", lua_tostring(L, -1));
    return 1;
}

void ubl_pkt_init(lua_State *L)
{
    /* light userdata: packets, matches, findings */
    lua_pushlightuserdata(L, ubl_lu(0, UBL_LU_PKT));
    luaL_newmetatable(L, MT_LU);
    ubl_dispatch_table(L, ubl_pkt_regs);
    ubl_dispatch_table(L, ubl_match_regs);
    ubl_dispatch_table(L, ubl_find_regs);
    lua_pushcclosure(L, lu_index, 3);
    lua_setfield(L, -2, "__index");
    lua_pushcfunction(L, lu_newindex);
    lua_setfield(L, -2, "__newindex");
    lua_pushcfunction(L, lu_tostring);
    lua_setfield(L, -2, "__tostring");
    lua_pushliteral(L, "locked");
    lua_setfield(L, -2, "__metatable");
    lua_setmetatable(L, -2);
    lua_pop(L, 1);

    luaL_newmetatable(L, MT_DPKT);
    ubl_dispatch_table(L, ubl_pkt_regs);
    lua_pushcclosure(L, dpkt_index, 1);
    lua_setfield(L, -2, "__index");
    lua_pushcfunction(L, dpkt_tostring);
    lua_setfield(L, -2, "__tostring");
    lua_pushliteral(L, "locked");
    lua_setfield(L, -2, "__metatable");
    lua_pop(L, 1);

    luaL_newmetatable(L, MT_FX);
    ubl_dispatch_table(L, ubl_fx_regs);
    lua_pushcclosure(L, fx_index, 1);
    lua_setfield(L, -2, "__index");
    lua_pushcfunction(L, fx_call);
    lua_setfield(L, -2, "__call");
    lua_pushcfunction(L, fx_tostring);
    lua_setfield(L, -2, "__tostring");
    lua_pushliteral(L, "locked");
    lua_setfield(L, -2, "__metatable");
    lua_pop(L, 1);

    lua_newtable(L);
    lua_setfield(L, LUA_REGISTRYINDEX, REG_FXCACHE);
}

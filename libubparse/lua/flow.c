/* Flow keys like the state engine's (state.c, st_tp.c, st_ta.c: addresses from the NTH or the IP
 * header, EIDs from the EIDH; TP channels keyed (sender, receiver, sender TPN, receiver TPN) so that
 * data and its acks meet; transactions keyed (initiator, target, RC, INI_TASSN) so that a request
 * and its response meet), and bounded per-flow tables with least-recently-used eviction.
 * Keys are exact byte strings (no hashing collisions); printable key texts use the engine's format. */
#include "ubl.h"
#include "st_internal.h"

#include <stdlib.h>
#include <string.h>

#define MT_FLOWS "ubl.flows"
#define REG_FKCTX "ubl.fkctx"

enum { FK_LINK, FK_VL, FK_PAIR, FK_TP, FK_RC, FK_TX, FK_INITIATOR, FK_TARGET, FK__COUNT };

const ubl_reg ubl_flow_regs[] = {
    { "link", NULL, NULL, "\"link\"", "Link direction: (interface, direction) — the data-link rules' key. Text `if 0 out`." },
    { "vl", NULL, NULL, "\"vl\"", "(interface, direction, LPH VL) of DLLDPs. Text `if 0 out vl 2`." },
    { "pair", NULL, NULL, "\"pair\"",
      "Unordered endpoint pair (SCNA/DCNA or IP addresses, plus EIDs): both directions of a conversation "
      "(the `-j` shard key). Text `0x0102<>0x0304`." },
    { "tp", NULL, NULL, "\"tp\"",
      "RTP channel (sender, receiver, sender TPN, receiver TPN): a TPACK/TPNAK/TPSACK maps to the channel of "
      "the data it acknowledges. Text `0x0102->0x0304 TPN 0x10->0x20` (as in findings)." },
    { "rc", NULL, NULL, "\"rc\"",
      "(initiator, target, INI_RC_ID) of transaction requests and responses; compact headers (no RC) share one "
      "`compact` flow per pair. Text `0x0102>0x0304 rc 0x5`." },
    { "tx", NULL, NULL, "\"tx\"",
      "One transaction: (initiator, target, RC, INI_TASSN) — a request and its response (TAACK, Read "
      "response, ...) have the same key. Text `0x0102>0x0304 rc 0x5 TASSN 7` (as in findings)." },
    { "initiator", NULL, NULL, "\"initiator\"", "The requester of a transaction packet (source of a request, destination of a response)." },
    { "target", NULL, NULL, "\"target\"", "The completer of a transaction packet." },
    { NULL, NULL, NULL, NULL, NULL }
};

/* ================================================================ keys */
typedef struct fkctx {
    ub_fh scna, dcna, ip4s, ip4d, ip6s, ip6d, seid, deid, vl;
    ub_fh rt_op, rt_stpn, rt_dtpn;
    ub_fh bt_tassn, bt_rctype, bt_rcid, at_tassn, at_rctype, at_rcid;
} fkctx;

static fkctx *fk_ctx(lua_State *L)
{
    lua_getfield(L, LUA_REGISTRYINDEX, REG_FKCTX);
    fkctx *c = lua_touserdata(L, -1);
    lua_pop(L, 1);
    return c;
}

typedef struct fkey {
    uint8_t len;
    uint8_t b[96];
} fkey;

static void k_add(fkey *k, const void *p, size_t n)
{
    if (k->len + n > sizeof k->b) n = sizeof k->b - k->len;
    memcpy(k->b + k->len, p, n);
    k->len = (uint8_t)(k->len + n);
}
static void k_addr(fkey *k, const ub_addr *a)
{
    k_add(k, &a->len, 1);
    k_add(k, a->b, a->len);
}

static const ub_layer *find_id(const ub_view *v, unsigned a, unsigned b, unsigned c)
{
    unsigned nl = v->nlayers > UB_MAX_LAYERS ? UB_MAX_LAYERS : v->nlayers;
    for (unsigned i = 0; i < nl; i++) {
        unsigned id = v->layer[i].hdr->id;
        if (id == a || id == b || id == c) return &v->layer[i];
    }
    return NULL;
}

static void addr_of(ub_addr *a, const ub_layer *l, const ub_fh *fh)
{
    a->len = 0;
    if (!l) return;
    for (unsigned i = 0; i < fh->n; i++) {
        if (fh->h[i] != l->hdr) continue;
        ub_val v;
        if (ub_field_value(l, fh->f[i], &v) != 0) return;
        if (fh->f[i]->type == UB_FT_UINT) {
            unsigned n = (fh->f[i]->bits + 7) / 8;
            a->len = (uint8_t)n;
            for (unsigned k = 0; k < n; k++) a->b[k] = (uint8_t)(v.u >> (8 * (n - 1 - k)));
        } else {
            a->len = (uint8_t)(v.nbytes > 16 ? 16 : v.nbytes);
            memcpy(a->b, v.bytes, a->len);
        }
        return;
    }
}

typedef struct fpkt {
    ub_addr src, dst, seid, deid;
} fpkt;

static void endpoints(const fkctx *c, const ub_view *v, fpkt *e)
{
    memset(e, 0, sizeof *e);
    const ub_layer *nth = find_id(v, UB_H_NTH16, UB_H_NTH24, UB_H_NTH24);
    if (nth) {
        addr_of(&e->src, nth, &c->scna);
        addr_of(&e->dst, nth, &c->dcna);
    } else {
        const ub_layer *ip = find_id(v, UB_H_IPV4, UB_H_IPV6, UB_H_IPV6);
        if (ip) {
            addr_of(&e->src, ip, ip->hdr->id == UB_H_IPV4 ? &c->ip4s : &c->ip6s);
            addr_of(&e->dst, ip, ip->hdr->id == UB_H_IPV4 ? &c->ip4d : &c->ip6d);
        }
    }
    const ub_layer *eidh = find_id(v, UB_H_EIDH40, UB_H_EIDH256, UB_H_EIDH256);
    if (eidh) {
        addr_of(&e->seid, eidh, &c->seid);
        addr_of(&e->deid, eidh, &c->deid);
    }
}

static int addr_cmp(const ub_addr *a, const ub_addr *b)
{
    if (a->len != b->len) return a->len < b->len ? -1 : 1;
    return memcmp(a->b, b->b, a->len);
}

/* RC part of the transaction keys (st_ta.c: INI_RC_ID, or markers for compact / SCID) */
enum { RCK_COMPACT = 0x1000000u, RCK_SCID = 0x2000000u };

/* Compute the key of `kind`; text (may be NULL) gets the printable form. false: no such flow. */
static bool flow_key(const fkctx *c, const ub_view *v, const ub_pktinfo *pi, int kind, fkey *k, char *text, size_t tn)
{
    k->len = 0;
    uint8_t kb = (uint8_t)kind;
    k_add(k, &kb, 1);
    char a[48], b[48];
    static const char *const dn[] = { "-", "in", "out" };
    const char *dir = dn[pi->dir <= 2 ? pi->dir : 0];
    switch (kind) {
    case FK_LINK:
        k_add(k, &pi->ifindex, sizeof pi->ifindex);
        k_add(k, &pi->dir, 1);
        if (text) snprintf(text, tn, "if %u %s", (unsigned)pi->ifindex, dir);
        return true;
    case FK_VL: {
        const ub_layer *lph = find_id(v, UB_H_LPH, UB_H_LPH, UB_H_LPH);
        if (!lph || !ub_fh_has(&c->vl, lph)) return false;
        uint8_t vl = (uint8_t)ub_fh_get(&c->vl, lph);
        k_add(k, &pi->ifindex, sizeof pi->ifindex);
        k_add(k, &pi->dir, 1);
        k_add(k, &vl, 1);
        if (text) snprintf(text, tn, "if %u %s vl %u", (unsigned)pi->ifindex, dir, vl);
        return true;
    }
    default: break;
    }
    fpkt e;
    endpoints(c, v, &e);
    if (!e.src.len && !e.dst.len) return false;
    if (kind == FK_PAIR) {
        bool sw = addr_cmp(&e.src, &e.dst) > 0 || (addr_cmp(&e.src, &e.dst) == 0 && addr_cmp(&e.seid, &e.deid) > 0);
        const ub_addr *x = sw ? &e.dst : &e.src, *y = sw ? &e.src : &e.dst;
        k_addr(k, x);
        k_addr(k, sw ? &e.deid : &e.seid);
        k_addr(k, y);
        k_addr(k, sw ? &e.seid : &e.deid);
        if (text) {
            ub_addr_str(x, a, sizeof a);
            ub_addr_str(y, b, sizeof b);
            snprintf(text, tn, "%s<>%s", a, b);
        }
        return true;
    }
    if (kind == FK_TP) {
        const ub_layer *rt = find_id(v, UB_H_RTPH, UB_H_RTPH, UB_H_RTPH);
        if (!rt || !ub_fh_has(&c->rt_stpn, rt) || !ub_fh_has(&c->rt_op, rt)) return false;
        uint32_t stpn = (uint32_t)ub_fh_get(&c->rt_stpn, rt), dtpn = (uint32_t)ub_fh_get(&c->rt_dtpn, rt);
        /* §6.2.1 Table 6-2: 1 RTP data; acks (2, 3, 5, 6) and CNPs (8) travel back to the sender */
        unsigned op = (unsigned)ub_fh_get(&c->rt_op, rt);
        if (op != 1 && op != 2 && op != 3 && op != 5 && op != 6 && op != 8) return false;
        bool ack = op != 1;
        const ub_addr *snd = ack ? &e.dst : &e.src, *rcv = ack ? &e.src : &e.dst;
        uint32_t ts = ack ? dtpn : stpn, tr = ack ? stpn : dtpn;
        k_addr(k, snd);
        k_addr(k, rcv);
        k_add(k, &ts, 4);
        k_add(k, &tr, 4);
        if (text) {
            ub_addr_str(snd, a, sizeof a);
            ub_addr_str(rcv, b, sizeof b);
            snprintf(text, tn, "%s->%s TPN 0x%x->0x%x", a, b, (unsigned)ts, (unsigned)tr);
        }
        return true;
    }
    /* transaction kinds: request (BTAH) from the initiator, response (ATAH) to it */
    const ub_layer *bt = find_id(v, UB_H_BTAH, UB_H_BTAH_C, UB_H_BTAH_ALT);
    const ub_layer *at = bt ? NULL : find_id(v, UB_H_ATAH, UB_H_ATAH_C, UB_H_ATAH_C);
    const ub_layer *t = bt ? bt : at;
    if (!t) return false;
    bool rsp = at != NULL;
    const ub_addr *ini = rsp ? &e.dst : &e.src, *tgt = rsp ? &e.src : &e.dst;
    const ub_addr *iei = rsp ? &e.deid : &e.seid, *tei = rsp ? &e.seid : &e.deid;
    if (kind == FK_INITIATOR || kind == FK_TARGET) {
        const ub_addr *x = kind == FK_INITIATOR ? ini : tgt, *xe = kind == FK_INITIATOR ? iei : tei;
        k_addr(k, x);
        k_addr(k, xe);
        if (text) ub_addr_str(x, text, tn);
        return true;
    }
    bool compact = t->hdr->id == UB_H_BTAH_C || t->hdr->id == UB_H_ATAH_C;
    const ub_fh *ty = rsp ? &c->at_rctype : &c->bt_rctype, *id = rsp ? &c->at_rcid : &c->bt_rcid;
    uint32_t rck = compact ? RCK_COMPACT : ub_fh_get(ty, t) == 2 ? RCK_SCID : (uint32_t)ub_fh_get(id, t);
    k_addr(k, ini);
    k_addr(k, iei);
    k_addr(k, tgt);
    k_addr(k, tei);
    k_add(k, &rck, 4);
    uint16_t sn = (uint16_t)ub_fh_get(rsp ? &c->at_tassn : &c->bt_tassn, t);
    if (kind == FK_TX) k_add(k, &sn, 2);
    if (text) {
        ub_addr_str(ini, a, sizeof a);
        ub_addr_str(tgt, b, sizeof b);
        char rc[24];
        if (rck < RCK_COMPACT) snprintf(rc, sizeof rc, " rc 0x%x", (unsigned)rck);
        else snprintf(rc, sizeof rc, rck == RCK_SCID ? " scid" : "");
        if (kind == FK_TX) snprintf(text, tn, "%s>%s%s TASSN %u", a, b, rc, (unsigned)sn);
        else snprintf(text, tn, "%s>%s%s", a, b, rck == RCK_COMPACT ? " compact" : rc);
    }
    return true;
}

/* the kinds are the rows of ubl_flow_regs, in enum order */
static int check_kind(lua_State *L, int idx)
{
    const char *k = luaL_checkstring(L, idx);
    for (int i = 0; i < FK__COUNT; i++)
        if (strcmp(ubl_flow_regs[i].name, k) == 0) return i;
    return luaL_argerror(L, idx, lua_pushfstring(L, "unknown flow kind '%s' (link, vl, pair, tp, rc, tx, initiator, target)", k));
}

int ubl_flow_key(lua_State *L)
{
    ubl_pktref p;
    ubl_check_pkt(L, 1, &p);
    int kind = check_kind(L, 2);
    fkey k;
    char text[160];
    if (!flow_key(fk_ctx(L), p.v, p.pi, kind, &k, text, sizeof text)) {
        lua_pushnil(L);
        return 1;
    }
    lua_pushlstring(L, (const char *)k.b, k.len);
    lua_pushstring(L, text);
    return 2;
}

/* ================================================================ bounded flow tables */
typedef struct fent {
    fkey key;
    uint64_t hash;
    uint32_t prev, next;   /* LRU list (slot indexes), UINT32_MAX = none */
    int ref;               /* index in the uservalue table (state tables) */
    bool used;
    char text[64];
} fent;

typedef struct ubl_flows {
    int kind;
    uint32_t max, count, cap; /* cap: power of two, >= 2 * count */
    uint64_t evicted;
    uint32_t head, tail;      /* most / least recently used */
    int next_ref;
    fent *e;
    lua_Alloc alloc;
    void *aud;
} ubl_flows;

static uint64_t fnv(const uint8_t *p, size_t n)
{
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < n; i++) h = (h ^ p[i]) * 1099511628211ull;
    return h ^ (h >> 29);
}

static void lru_unlink(ubl_flows *t, uint32_t i)
{
    fent *e = &t->e[i];
    if (e->prev != UINT32_MAX) t->e[e->prev].next = e->next;
    else t->head = e->next;
    if (e->next != UINT32_MAX) t->e[e->next].prev = e->prev;
    else t->tail = e->prev;
    e->prev = e->next = UINT32_MAX;
}
static void lru_front(ubl_flows *t, uint32_t i)
{
    fent *e = &t->e[i];
    e->prev = UINT32_MAX;
    e->next = t->head;
    if (t->head != UINT32_MAX) t->e[t->head].prev = i;
    t->head = i;
    if (t->tail == UINT32_MAX) t->tail = i;
}

static uint32_t find_slot(const ubl_flows *t, const fkey *k, uint64_t h, bool *found)
{
    uint32_t m = t->cap - 1;
    for (uint32_t i = (uint32_t)h & m;; i = (i + 1) & m) {
        const fent *e = &t->e[i];
        if (!e->used) {
            *found = false;
            return i;
        }
        if (e->hash == h && e->key.len == k->len && memcmp(e->key.b, k->b, k->len) == 0) {
            *found = true;
            return i;
        }
    }
}

/* move slot src to dst (table relinking) */
static void move_slot(ubl_flows *t, uint32_t src, uint32_t dst)
{
    t->e[dst] = t->e[src];
    fent *e = &t->e[dst];
    if (e->prev != UINT32_MAX) t->e[e->prev].next = dst;
    else t->head = dst;
    if (e->next != UINT32_MAX) t->e[e->next].prev = dst;
    else t->tail = dst;
    t->e[src].used = false;
}

/* remove slot i (backward-shift deletion); the caller clears the state table */
static void del_slot(ubl_flows *t, uint32_t i)
{
    lru_unlink(t, i);
    t->e[i].used = false;
    t->count--;
    uint32_t m = t->cap - 1;
    for (uint32_t j = (i + 1) & m; t->e[j].used; j = (j + 1) & m) {
        uint32_t home = (uint32_t)t->e[j].hash & m;
        /* can entry j move to the hole i? (home not cyclically in (i, j]) */
        bool between = i <= j ? (home > i && home <= j) : (home > i || home <= j);
        if (between) continue;
        move_slot(t, j, i);
        i = j;
    }
}

static bool grow(lua_State *L, ubl_flows *t)
{
    uint32_t ncap = t->cap ? t->cap * 2 : 64;
    fent *ne = t->alloc(t->aud, NULL, 0, (size_t)ncap * sizeof *ne);
    if (!ne) return false;
    (void)L;
    memset(ne, 0, (size_t)ncap * sizeof *ne);
    fent *old = t->e;
    uint32_t ocap = t->cap;
    t->e = ne;
    t->cap = ncap;
    /* reinsert in LRU order (least recent first, each to the front) */
    uint32_t i = t->tail;
    t->head = t->tail = UINT32_MAX;
    while (i != UINT32_MAX) {
        fent cur = old[i];
        bool f;
        uint32_t s = find_slot(t, &cur.key, cur.hash, &f);
        ne[s] = cur;
        lru_front(t, s);
        i = cur.prev;
    }
    if (old) t->alloc(t->aud, old, (size_t)ocap * sizeof *old, 0);
    return true;
}

static ubl_flows *flows_check(lua_State *L, int idx) { return luaL_checkudata(L, idx, MT_FLOWS); }

static int flows_gc(lua_State *L)
{
    ubl_flows *t = flows_check(L, 1);
    if (t->e) t->alloc(t->aud, t->e, (size_t)t->cap * sizeof *t->e, 0);
    t->e = NULL;
    t->cap = t->count = 0;
    return 0;
}

int ubl_flow_new(lua_State *L)
{
    int kind = check_kind(L, 1);
    lua_Integer max = 65536;
    if (lua_istable(L, 2)) {
        if (lua_getfield(L, 2, "max") != LUA_TNIL) max = luaL_checkinteger(L, -1);
        lua_pop(L, 1);
    }
    if (max < 1 || max > (1 << 24)) return luaL_error(L, "ub.flows: max must be 1..16777216");
    ubl_flows *t = lua_newuserdatauv(L, sizeof *t, 2);
    memset(t, 0, sizeof *t);
    t->kind = kind;
    t->max = (uint32_t)max;
    t->head = t->tail = UINT32_MAX;
    t->alloc = lua_getallocf(L, &t->aud);
    luaL_setmetatable(L, MT_FLOWS);
    lua_newtable(L); /* states by ref */
    lua_setiuservalue(L, -2, 1);
    if (lua_istable(L, 2) && lua_getfield(L, 2, "on_evict") != LUA_TNIL) {
        luaL_checktype(L, -1, LUA_TFUNCTION);
        lua_setiuservalue(L, -2, 2);
    } else if (lua_istable(L, 2)) {
        lua_pop(L, 1);
    }
    return 1;
}

/* the flow slot of the packet at idx, created when `create`; UINT32_MAX: none */
static uint32_t lookup(lua_State *L, ubl_flows *t, int pidx, bool create)
{
    ubl_pktref p;
    ubl_check_pkt(L, pidx, &p);
    fkey k;
    char text[160];
    if (!flow_key(fk_ctx(L), p.v, p.pi, t->kind, &k, create ? text : NULL, sizeof text)) return UINT32_MAX;
    uint64_t h = fnv(k.b, k.len);
    bool found = false;
    uint32_t i = t->cap ? find_slot(t, &k, h, &found) : 0;
    if (found) {
        if (t->head != i) {
            lru_unlink(t, i);
            lru_front(t, i);
        }
        return i;
    }
    if (!create) return UINT32_MAX;
    if (t->count >= t->max && t->tail != UINT32_MAX) { /* evict the least recently used flow */
        uint32_t v = t->tail;
        int ref = t->e[v].ref;
        char vt[64];
        memcpy(vt, t->e[v].text, sizeof vt);
        del_slot(t, v);
        t->evicted++;
        lua_getiuservalue(L, 1, 1);
        if (lua_getiuservalue(L, 1, 2) == LUA_TFUNCTION) {
            lua_pushstring(L, vt);
            lua_rawgeti(L, -3, ref);
            lua_call(L, 2, 0);
        } else {
            lua_pop(L, 1);
        }
        lua_pushnil(L);
        lua_rawseti(L, -2, ref);
        lua_pop(L, 1);
    }
    if ((t->count + 1) * 2 > t->cap && !grow(L, t)) luaL_error(L, "ub.flows: out of memory");
    i = find_slot(t, &k, h, &found);
    fent *e = &t->e[i];
    memset(e, 0, sizeof *e);
    e->used = true;
    e->key = k;
    e->hash = h;
    e->ref = ++t->next_ref;
    snprintf(e->text, sizeof e->text, "%.63s", text);
    lru_front(t, i);
    t->count++;
    lua_getiuservalue(L, 1, 1);
    lua_newtable(L);
    lua_rawseti(L, -2, e->ref);
    lua_pop(L, 1);
    return i;
}

static int push_state(lua_State *L, ubl_flows *t, uint32_t i)
{
    if (i == UINT32_MAX) {
        lua_pushnil(L);
        return 1;
    }
    lua_getiuservalue(L, 1, 1);
    lua_rawgeti(L, -1, t->e[i].ref);
    lua_remove(L, -2);
    return 1;
}

static int f_get(lua_State *L)
{
    ubl_flows *t = flows_check(L, 1);
    return push_state(L, t, lookup(L, t, 2, false));
}
static int f_at(lua_State *L)
{
    ubl_flows *t = flows_check(L, 1);
    return push_state(L, t, lookup(L, t, 2, true));
}
static int f_key(lua_State *L)
{
    ubl_flows *t = flows_check(L, 1);
    uint32_t i = lookup(L, t, 2, false);
    if (i == UINT32_MAX) lua_pushnil(L);
    else lua_pushstring(L, t->e[i].text);
    return 1;
}
static int f_remove(lua_State *L)
{
    ubl_flows *t = flows_check(L, 1);
    uint32_t i = lookup(L, t, 2, false);
    if (i == UINT32_MAX) {
        lua_pushnil(L);
        return 1;
    }
    int ref = t->e[i].ref;
    del_slot(t, i);
    lua_getiuservalue(L, 1, 1);
    lua_rawgeti(L, -1, ref);
    lua_pushnil(L);
    lua_rawseti(L, -3, ref);
    return 1; /* the removed state */
}
static int f_count(lua_State *L)
{
    lua_pushinteger(L, flows_check(L, 1)->count);
    return 1;
}
static int f_evicted(lua_State *L)
{
    lua_pushinteger(L, (lua_Integer)flows_check(L, 1)->evicted);
    return 1;
}
static int each_next(lua_State *L)
{
    /* upvalue 1: snapshot {text1, state1, text2, state2, ...}; 2: position */
    lua_Integer pos = lua_tointeger(L, lua_upvalueindex(2));
    if (lua_rawgeti(L, lua_upvalueindex(1), pos + 1) == LUA_TNIL) return 1;
    lua_rawgeti(L, lua_upvalueindex(1), pos + 2);
    lua_pushinteger(L, pos + 2);
    lua_replace(L, lua_upvalueindex(2));
    return 2;
}
/* (keytext, state) of every flow, least recently used first (a snapshot: safe to modify the table) */
static int f_each(lua_State *L)
{
    ubl_flows *t = flows_check(L, 1);
    lua_createtable(L, (int)(2 * t->count), 0);
    lua_getiuservalue(L, 1, 1);
    lua_Integer n = 0;
    for (uint32_t i = t->tail; i != UINT32_MAX; i = t->e[i].prev) {
        lua_pushstring(L, t->e[i].text);
        lua_rawseti(L, -3, ++n);
        lua_rawgeti(L, -1, t->e[i].ref);
        lua_rawseti(L, -3, ++n);
    }
    lua_pop(L, 1);
    lua_pushinteger(L, 0);
    lua_pushcclosure(L, each_next, 2);
    return 1;
}

static const luaL_Reg flow_methods[] = {
    { "get", f_get }, { "at", f_at }, { "key", f_key }, { "remove", f_remove },
    { "count", f_count }, { "evicted", f_evicted }, { "each", f_each }, { NULL, NULL }
};

static int flows_index(lua_State *L)
{
    if (lua_type(L, 2) == LUA_TSTRING) {
        lua_pushvalue(L, 2);
        if (lua_rawget(L, lua_upvalueindex(1)) != LUA_TNIL) return 1;
        return luaL_error(L, "a flow table has no method '%s'", lua_tostring(L, 2));
    }
    lua_settop(L, 2);
    return f_at(L);
}
static int flows_len(lua_State *L) { return f_count(L); }

void ubl_flow_init(lua_State *L)
{
    fkctx *c = lua_newuserdatauv(L, sizeof *c, 0);
    ub_fh_init(&c->scna, "ub.nth.scna");
    ub_fh_init(&c->dcna, "ub.nth.dcna");
    ub_fh_init(&c->ip4s, "ub.ipv4.src");
    ub_fh_init(&c->ip4d, "ub.ipv4.dst");
    ub_fh_init(&c->ip6s, "ub.ipv6.src");
    ub_fh_init(&c->ip6d, "ub.ipv6.dst");
    ub_fh_init(&c->seid, "ub.eidh.seid");
    ub_fh_init(&c->deid, "ub.eidh.deid");
    ub_fh_init(&c->vl, "ub.lph.vl");
    ub_fh_init(&c->rt_op, "ub.rtph.tpopcode");
    ub_fh_init(&c->rt_stpn, "ub.rtph.srctpn");
    ub_fh_init(&c->rt_dtpn, "ub.rtph.dsttpn");
    ub_fh_init(&c->bt_tassn, "ub.btah.ini_tassn");
    ub_fh_init(&c->bt_rctype, "ub.btah.ini_rc_type");
    ub_fh_init(&c->bt_rcid, "ub.btah.ini_rc_id");
    ub_fh_init(&c->at_tassn, "ub.atah.ini_tassn");
    ub_fh_init(&c->at_rctype, "ub.atah.ini_rc_type");
    ub_fh_init(&c->at_rcid, "ub.atah.ini_rc_id");
    lua_setfield(L, LUA_REGISTRYINDEX, REG_FKCTX);

    luaL_newmetatable(L, MT_FLOWS);
    luaL_newlib(L, flow_methods);
    lua_pushcclosure(L, flows_index, 1);
    lua_setfield(L, -2, "__index");
    lua_pushcfunction(L, flows_len);
    lua_setfield(L, -2, "__len");
    lua_pushcfunction(L, flows_gc);
    lua_setfield(L, -2, "__gc");
    lua_pushliteral(L, "locked");
    lua_setfield(L, -2, "__metatable");
    lua_pop(L, 1);
}

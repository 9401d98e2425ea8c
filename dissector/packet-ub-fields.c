/* packet-ub-fields.c — the Wireshark items of every libubparse schema row: hf ids and subtrees generated
 * once at start-up from the header tables (ub_hdr_get(), and the profile tables ub_hdr_variant()), and
 * the items of one decoded layer. Nothing about the wire format is written here. */
#include <string.h>

#include <wireshark.h>
#include <epan/packet.h>
#include <epan/proto.h>

#include <ubparse/ubparse.h>

#include "packet-ub.h"

/* How one schema row is put in the tree. */
enum row_kind {
    RK_SKIP = 0, /* not representable (bad row): left out */
    RK_ITEM,     /* proto_tree_add_item on the container bytes (bitmask shows the bit pattern) */
    RK_UVAL,     /* no 1..8-byte container: proto_tree_add_uint/uint64 with the decoded value */
    RK_SVAL,     /* same, signed */
    RK_BYTES,    /* FT_BYTES item */
    RK_VIRT,     /* virtual row (aux/status/variant): generated item */
};

typedef struct row_map {
    guint32 hf_slot;  /* index into ub_hf_ids[] */
    guint8 kind;      /* enum row_kind */
    guint8 ftype;     /* registered ftype */
    guint8 signed_;   /* display as signed */
    guint8 bits;      /* integer width (sign extension) */
    guint8 le;        /* little-endian on the wire (profile rows, UB_FF_LE) */
    guint8 byval;     /* RK_ITEM integer / boolean: added with its container value read here (proto_tree_add_uint
                       * and friends: what proto_tree_add_item would read, without its tvb and encoding work) */
    guint32 cstart;   /* container start, bytes from the layer start */
    guint32 clen;     /* container length in bytes (0 for BYTES rows: from the row / rest of layer) */
} row_map;

/* The rows of one table that a CRC layer's checksum text needs (checksum_text), found once. */
typedef struct ck_rows {
    gint16 carried;   /* the carried value's row, -1 none */
    gint16 aux;       /* the computed value's row, -1 none */
    gint16 status;    /* the status row, -1 none: no checksum text */
} ck_rows;

int *ub_hf_ids;                      /* every generated hf id */
int *ub_hdr_hf_slot;                 /* [UB_H__COUNT] -> slot of the header item hf, -1 none */
gint *ub_ett_hdr;                    /* [UB_H__COUNT] */
static row_map *row_maps[UB_H__COUNT];   /* [id][row] */
static row_map **row_maps_v;             /* [ub_hdr.vidx][row]: profile tables (docs/interop.md) */
static ck_rows ck_of[UB_H__COUNT];       /* [id] */
static ck_rows *ck_of_v;                 /* [ub_hdr.vidx] */
static unsigned n_variants;

/* ------------------------------------------------------------------------------------------ */
/* Field generation from the schema                                                            */
/* ------------------------------------------------------------------------------------------ */

static enum ftenum ft_uint_bytes(guint n, gboolean sgn)
{
    static const enum ftenum u[9] = { FT_UINT8, FT_UINT8, FT_UINT16, FT_UINT24, FT_UINT32,
                                      FT_UINT40, FT_UINT48, FT_UINT56, FT_UINT64 };
    static const enum ftenum s[9] = { FT_INT8, FT_INT8, FT_INT16, FT_INT24, FT_INT32,
                                      FT_INT40, FT_INT48, FT_INT56, FT_INT64 };
    if (n > 8) n = 8;
    return sgn ? s[n] : u[n];
}

static gboolean ft_is_64(enum ftenum t)
{
    return t == FT_UINT40 || t == FT_UINT48 || t == FT_UINT56 || t == FT_UINT64 ||
           t == FT_INT40 || t == FT_INT48 || t == FT_INT56 || t == FT_INT64;
}

/* the field-name prefixes of the neighbours shown by packet-neigh.c (infiniband.* is Wireshark's own) */
static gboolean shown_foreign(const char *a)
{
    return a && (strncmp(a, "sue.", 4) == 0 || strncmp(a, "pcieflit.", 9) == 0);
}

static gboolean abbrev_ok(const char *a)
{
    if (!a || !(strncmp(a, "ub.", 3) == 0 || shown_foreign(a)) || !a[3]) return FALSE;
    for (const char *p = a; *p; p++)
        if (!g_ascii_isalnum(*p) && *p != '.' && *p != '_' && *p != '-') return FALSE;
    return TRUE;
}

/* value_string / val64_string / true_false_string built from a ub_vname list (memoised). */
static GHashTable *vs_memo;

static const void *vals_for(const ub_vname *vn, int form /* 0 vs32, 1 vs64, 2 tfs */)
{
    if (!vn || !vn[0].name) return NULL;
    char key[64];
    g_snprintf(key, sizeof key, "%p/%d", (const void *)vn, form);
    void *hit = g_hash_table_lookup(vs_memo, key);
    if (hit) return hit;
    size_t n = 0;
    while (vn[n].name) n++;
    void *res;
    if (form == 0) {
        value_string *vs = g_new0(value_string, n + 1);
        for (size_t i = 0; i < n; i++) {
            vs[i].value = (guint32)vn[i].value;
            vs[i].strptr = vn[i].name;
        }
        res = vs;
    } else if (form == 1) {
        val64_string *vs = g_new0(val64_string, n + 1);
        for (size_t i = 0; i < n; i++) {
            vs[i].value = vn[i].value;
            vs[i].strptr = vn[i].name;
        }
        res = vs;
    } else {
        true_false_string *t = g_new0(true_false_string, 1);
        const char *yes = ub_vname_lookup(vn, 1), *no = ub_vname_lookup(vn, 0);
        t->true_string = yes ? yes : "True";
        t->false_string = no ? no : "False";
        res = t;
    }
    g_hash_table_insert(vs_memo, g_strdup(key), res);
    return res;
}

GArray *ub_hf_array;     /* hf_register_info being built */
GArray *ub_hf_neigh;     /* the same for the neighbours' rows (sue.*, pcieflit.*), registered by packet-neigh.c */
static GArray *hf_target; /* where new_hf puts the next item */
static GHashTable *hf_memo;  /* "abbrev|type|display|mask|strings" -> slot+1 */
static guint hf_nslots;
static guint hf_cap;

static guint32 new_hf(const char *name, const char *abbrev, enum ftenum type, int display,
                      const void *strings, guint64 mask, const char *blurb)
{
    char *key = g_strdup_printf("%s|%d|%d|%" G_GINT64_MODIFIER "x|%p", abbrev, (int)type, display, mask,
                                strings);
    gpointer hit = g_hash_table_lookup(hf_memo, key);
    if (hit) {
        g_free(key);
        return GPOINTER_TO_UINT(hit) - 1;
    }
    guint32 slot = hf_nslots++;
    g_assert(slot < hf_cap);
    hf_register_info r;
    memset(&r, 0, sizeof r);
    r.p_id = &ub_hf_ids[slot];
    r.hfinfo.name = name;
    r.hfinfo.abbrev = abbrev;
    r.hfinfo.type = type;
    r.hfinfo.display = display;
    r.hfinfo.strings = strings;
    r.hfinfo.bitmask = mask;
    r.hfinfo.blurb = blurb;
    /* HFILL */
    r.hfinfo.id = -1;
    r.hfinfo.parent = 0;
    r.hfinfo.ref_type = HF_REF_TYPE_NONE;
    r.hfinfo.same_name_prev_id = -1;
    r.hfinfo.same_name_next = NULL;
    g_array_append_val(hf_target, r);
    g_hash_table_insert(hf_memo, key, GUINT_TO_POINTER(slot + 1));
    return slot;
}

static int display_for(const ub_field *f)
{
    if (f->flags & UB_FF_SIGNED) return BASE_DEC; /* 4.0 rejects signed hex */
    switch (f->base) {
    case UB_BASE_HEX: return BASE_HEX;
    case UB_BASE_DEC_HEX: return BASE_DEC_HEX;
    default: return BASE_DEC;
    }
}

static const char *blurb_for(const ub_field *f)
{
    gboolean d = f->desc && *f->desc, sp = f->spec && *f->spec;
    if (d && sp) return g_strdup_printf("%s (%s)", f->desc, f->spec);
    if (d) return f->desc;
    return sp ? f->spec : NULL;
}

/* Map one schema row to an hf + how to add it. */
static void map_row(const ub_hdr *h, const ub_field *f, row_map *m)
{
    memset(m, 0, sizeof *m);
    m->kind = RK_SKIP;
    if (!abbrev_ok(f->abbrev)) {
        g_warning("ub: schema row %s in table %s has an unusable abbrev, left out", f->abbrev ? f->abbrev : "(null)",
                  h->key);
        return;
    }
    const char *name = f->name && *f->name ? f->name : f->abbrev;
    const char *blurb = blurb_for(f);
    gboolean sgn = (f->flags & UB_FF_SIGNED) != 0;

    if (f->flags & UB_FF_VIRTUAL) {
        guint bits = f->bits ? f->bits : 64;
        if (bits > 64) bits = 64;
        enum ftenum t = ft_uint_bytes(ub_field_ws_bytes(f), sgn);
        const void *strings = f->vals ? vals_for(f->vals, ft_is_64(t) ? 1 : 0) : NULL;
        int disp = display_for(f) | (strings && ft_is_64(t) ? BASE_VAL64_STRING : 0);
        m->hf_slot = new_hf(name, f->abbrev, t, disp, strings, 0, blurb);
        m->kind = RK_VIRT;
        m->ftype = (guint8)t;
        m->signed_ = (guint8)sgn;
        m->bits = (guint8)bits;
        return;
    }

    switch (f->type) {
    case UB_FT_UINT:
    case UB_FT_BOOL: {
        if (f->bits == 0 || f->bits > 64) return;
        if (f->flags & UB_FF_LEW) { /* bit_off numbers a little-endian 64-bit word (SUE RH): the value */
            enum ftenum t = ft_uint_bytes(ub_field_ws_bytes(f), FALSE);
            const void *strings = f->vals ? vals_for(f->vals, ft_is_64(t) ? 1 : 0) : NULL;
            m->hf_slot = new_hf(name, f->abbrev, t, display_for(f) | (strings && ft_is_64(t) ? BASE_VAL64_STRING : 0),
                                strings, 0, blurb);
            m->ftype = (guint8)t;
            m->bits = (guint8)f->bits;
            m->cstart = f->bit_off / 8;
            m->clen = (f->bit_off + f->bits - 1) / 8 - m->cstart + 1;
            m->kind = RK_UVAL;
            return;
        }
        guint32 start = f->bit_off / 8;
        guint32 end = (f->bit_off + f->bits - 1) / 8;
        guint32 n = end - start + 1;
        m->cstart = start;
        m->clen = n;
        m->bits = (guint8)f->bits;
        m->signed_ = (guint8)sgn;
        m->le = (f->flags & UB_FF_LE) ? 1 : 0;
        if (n <= 8 && !(f->flags & (UB_FF_X64 | UB_FF_BITREV))) {
            guint shift = n * 8 - (f->bit_off - start * 8) - f->bits;
            guint64 mask = (f->bits == n * 8) ? 0 : (((f->bits == 64) ? G_MAXUINT64 : ((G_GUINT64_CONSTANT(1) << f->bits) - 1)) << shift);
            if (f->type == UB_FT_BOOL) {
                const void *tfs = f->vals ? vals_for(f->vals, 2) : NULL;
                m->hf_slot = new_hf(name, f->abbrev, FT_BOOLEAN, mask ? (int)(n * 8) : BASE_NONE, tfs, mask, blurb);
                m->ftype = FT_BOOLEAN;
                m->byval = n <= 4; /* proto_tree_add_boolean takes 32 bits */
            } else {
                enum ftenum t = ft_uint_bytes(ub_field_ws_bytes(f), sgn);
                const void *strings = f->vals ? vals_for(f->vals, ft_is_64(t) ? 1 : 0) : NULL;
                int disp = display_for(f) | (strings && ft_is_64(t) ? BASE_VAL64_STRING : 0);
                m->hf_slot = new_hf(name, f->abbrev, t, disp, strings, mask, blurb);
                m->ftype = (guint8)t;
                m->byval = 1;
            }
            m->kind = RK_ITEM;
        } else {
            /* 9-byte span (unaligned 57..64-bit field), a value stored without its low zero bits
             * (UB_FF_X64, R-24) or with its bits swapped (UB_FF_BITREV): add the decoded value */
            enum ftenum t = ft_uint_bytes(ub_field_ws_bytes(f), sgn);
            const void *strings = f->vals ? vals_for(f->vals, ft_is_64(t) ? 1 : 0) : NULL;
            int disp = display_for(f) | (strings && ft_is_64(t) ? BASE_VAL64_STRING : 0);
            m->hf_slot = new_hf(name, f->abbrev, t, disp, strings, 0, blurb);
            m->ftype = (guint8)t;
            m->kind = sgn ? RK_SVAL : RK_UVAL;
        }
        return;
    }
    case UB_FT_IPV4:
    case UB_FT_IPV6:
    case UB_FT_MAC: {
        guint want = f->type == UB_FT_IPV4 ? 32 : f->type == UB_FT_IPV6 ? 128 : 48;
        m->cstart = f->bit_off / 8;
        if (f->bits == want && f->bit_off % 8 == 0) {
            enum ftenum t = f->type == UB_FT_IPV4 ? FT_IPv4 : f->type == UB_FT_IPV6 ? FT_IPv6 : FT_ETHER;
            m->hf_slot = new_hf(name, f->abbrev, t, BASE_NONE, NULL, 0, blurb);
            m->ftype = (guint8)t;
            m->clen = want / 8;
            m->kind = RK_ITEM;
            return;
        }
    }
    /* fall through: odd width/alignment, show as bytes */
    /* FALLTHROUGH */
    case UB_FT_BYTES:
    case UB_FT_GUID:
    case UB_FT_GUID_WS:
    default:
        m->cstart = f->bit_off / 8;
        m->clen = f->bits / 8;
        m->hf_slot = new_hf(name, f->abbrev, FT_BYTES, BASE_NONE, NULL, 0, blurb);
        m->ftype = FT_BYTES;
        m->kind = RK_BYTES;
        return;
    }
}

/* the rows checksum_text reads: the status row, the first computed (aux) row, and the widest plain
 * unsigned row (the carried CRC) */
static ck_rows ck_find(const ub_hdr *h)
{
    ck_rows c = { -1, -1, -1 };
    for (unsigned k = 0; h && k < h->nfields && k < G_MAXINT16; k++) {
        const ub_field *f = &h->fields[k];
        if (f->flags & UB_FF_STATUS) c.status = (gint16)k;
        else if (f->flags & UB_FF_AUX) { if (c.aux < 0) c.aux = (gint16)k; }
        else if (!(f->flags & (UB_FF_VARIANT | UB_FF_RSVD)) && f->type == UB_FT_UINT &&
                 (c.carried < 0 || f->bits > h->fields[c.carried].bits))
            c.carried = (gint16)k;
    }
    return c;
}

void ub_ws_register_fields(void)
{
    guint total = 16;
    for (unsigned id = 1; id < UB_H__COUNT; id++) {
        const ub_hdr *h = ub_hdr_get(id);
        if (h) total += 1u + h->nfields;
    }
    n_variants = ub_hdr_variant_count();
    for (unsigned n = 1; n <= n_variants; n++) total += ub_hdr_variant(n)->nfields;
    hf_cap = total;
    ub_hf_ids = g_new(int, total);
    for (guint i = 0; i < total; i++) ub_hf_ids[i] = -1;
    ub_hdr_hf_slot = g_new(int, UB_H__COUNT);
    ub_ett_hdr = g_new(gint, UB_H__COUNT);
    ub_hf_array = g_array_new(FALSE, TRUE, sizeof(hf_register_info));
    ub_hf_neigh = g_array_new(FALSE, TRUE, sizeof(hf_register_info));
    hf_memo = g_hash_table_new(g_str_hash, g_str_equal);
    vs_memo = g_hash_table_new(g_str_hash, g_str_equal);
    GHashTable *hdr_memo = g_hash_table_new(g_str_hash, g_str_equal); /* abbrev -> slot+1 */

    for (unsigned id = 0; id < UB_H__COUNT; id++) {
        ub_hdr_hf_slot[id] = -1;
        ub_ett_hdr[id] = -1;
        row_maps[id] = NULL;
        ck_of[id] = ck_find(ub_hdr_get(id));
    }
    for (unsigned id = 1; id < UB_H__COUNT; id++) {
        const ub_hdr *h = ub_hdr_get(id);
        if (!h || !h->abbrev) continue;
        gboolean nb = ub_hdr_foreign(h);
        if (nb && !shown_foreign(h->abbrev)) continue; /* RoCEv2: Wireshark's own InfiniBand dissector */
        hf_target = nb ? ub_hf_neigh : ub_hf_array;
        char *ha = g_strdup_printf("%s%s", ub_hdr_ns(h), h->abbrev);
        if (!abbrev_ok(ha)) {
            g_warning("ub: header table %s has an unusable abbrev, left out", h->key);
            g_free(ha);
            continue;
        }
        gpointer hit = g_hash_table_lookup(hdr_memo, ha);
        if (hit) { /* format variant of a header already registered: share the item */
            ub_hdr_hf_slot[id] = (int)GPOINTER_TO_UINT(hit) - 1;
            g_free(ha);
        } else {
            guint32 slot = new_hf(h->name ? h->name : ha, ha, FT_NONE, BASE_NONE, NULL, 0, h->spec);
            ub_hdr_hf_slot[id] = (int)slot;
            g_hash_table_insert(hdr_memo, ha, GUINT_TO_POINTER(slot + 1));
        }
        if (h->nfields) {
            row_maps[id] = g_new0(row_map, h->nfields);
            for (unsigned k = 0; k < h->nfields; k++) map_row(h, &h->fields[k], &row_maps[id][k]);
        }
    }
    /* profile tables: same header item and subtree as their id, rows of their own (same abbrevs) */
    row_maps_v = g_new0(row_map *, n_variants + 1);
    ck_of_v = g_new0(ck_rows, n_variants + 1);
    for (unsigned n = 1; n <= n_variants; n++) {
        const ub_hdr *h = ub_hdr_variant(n);
        gboolean nb = ub_hdr_foreign(h);
        hf_target = nb ? ub_hf_neigh : ub_hf_array;
        ck_of_v[n] = ck_find(h);
        row_maps_v[n] = nb && !shown_foreign(h->abbrev) ? NULL : g_new0(row_map, h->nfields ? h->nfields : 1);
        for (unsigned k = 0; row_maps_v[n] && k < h->nfields; k++) map_row(h, &h->fields[k], &row_maps_v[n][k]);
    }
    g_hash_table_destroy(hdr_memo);
    hf_target = NULL;
}

/* ------------------------------------------------------------------------------------------ */
/* Building the tree from a ub_view                                                            */
/* ------------------------------------------------------------------------------------------ */

static gint64 sign_extend(guint64 u, guint bits)
{
    if (bits == 0 || bits >= 64) return (gint64)u;
    guint64 m = G_GUINT64_CONSTANT(1) << (bits - 1);
    u &= (m << 1) - 1;
    return (gint64)((u ^ m) - m);
}

static proto_item *add_value(proto_tree *t, int hf, const row_map *m, tvbuff_t *tvb, gint off, gint len, guint64 u)
{
    enum ftenum ft = (enum ftenum)m->ftype;
    if (m->signed_) {
        gint64 s = sign_extend(u, m->bits);
        return ft_is_64(ft) ? proto_tree_add_int64(t, hf, tvb, off, len, s)
                            : proto_tree_add_int(t, hf, tvb, off, len, (gint32)s);
    }
    return ft_is_64(ft) ? proto_tree_add_uint64(t, hf, tvb, off, len, u)
                        : proto_tree_add_uint(t, hf, tvb, off, len, (guint32)u);
}

/* proto_item_append_text(it, "%s", text) without printf: the item's label (made from its value when it has
 * none yet) gets text appended, as far as it fits; nothing for a hidden item or an invisible tree */
static void label_append(proto_item *it, const char *text)
{
    if (!it || !PTREE_DATA(it)->visible) return;
    field_info *fi = PITEM_FINFO(it);
    if (!fi || proto_item_is_hidden(it)) return;
    if (!fi->rep) {
        fi->rep = wmem_new(PNODE_POOL(it), item_label_t);
        proto_item_fill_label(fi, fi->rep->representation);
    }
    g_strlcat(fi->rep->representation, text, ITEM_LABEL_LENGTH);
}

/* label_append(it, text) on an item whose label Wireshark 4.0 would make "Name: 0x<hex>" (an unsigned
 * integer of 1..4 bytes shown in hex, no value names; with a bitmask "..01 1010 ... = Name: 0x<hex>") from
 * the container value u: the whole label written here, without proto_item_fill_label (proto.c
 * fill_label_number / fill_label_bitfield: hex digits of the type's or the mask's width, the bit pattern
 * over the container's width); FALSE for any other item (then label_append) */
static gboolean hex_label_append(proto_item *it, guint64 u, const char *text)
{
    if (!it || !PTREE_DATA(it)->visible) return FALSE;
    field_info *fi = PITEM_FINFO(it);
    if (!fi || proto_item_is_hidden(it) || fi->rep) return FALSE;
    const header_field_info *hi = fi->hfinfo;
    int width = hi->type == FT_UINT8 ? 8 : hi->type == FT_UINT16 ? 16 : hi->type == FT_UINT24 ? 24
              : hi->type == FT_UINT32 ? 32 : 0;
    if (!width || hi->display != BASE_HEX || hi->strings) return FALSE;
    guint64 mask = hi->bitmask;
    if (mask >> width) return FALSE;
    guint64 v = u & (mask ? mask : (G_GUINT64_CONSTANT(1) << width) - 1);
    int digits = width / 4;
    if (mask) {
        int lo = __builtin_ctzll(mask), hi_bit = 63 - __builtin_clzll(mask);
        digits = (hi_bit - lo + 1 + 3) / 4;
        v >>= lo;
    }
    size_t nl = strlen(hi->name), tl = strlen(text);
    if ((size_t)width * 5 / 4 + 3 + nl + 4 + (size_t)digits + tl >= ITEM_LABEL_LENGTH) return FALSE;
    char b[ITEM_LABEL_LENGTH], *o = b;
    if (mask) { /* other_decode_bitfield_value + " = " */
        for (int i = 0; i < width; i++) {
            guint64 bit = G_GUINT64_CONSTANT(1) << (width - 1 - i);
            if (i && i % 4 == 0) *o++ = ' ';
            *o++ = (mask & bit) ? ((u & bit) ? '1' : '0') : '.';
        }
        memcpy(o, " = ", 3);
        o += 3;
    }
    memcpy(o, hi->name, nl);
    o += nl;
    memcpy(o, ": 0x", 4);
    o += 4;
    for (int i = digits - 1; i >= 0; i--) *o++ = "0123456789abcdef"[(v >> (4 * i)) & 15];
    memcpy(o, text, tl);
    o += tl;
    ub_ws_set_label(it, b, (size_t)(o - b));
    return TRUE;
}

/* proto_tree_add_checksum-style text on the carried value of a CRC layer (one with a status row); u is
 * the value of the item when known */
static void checksum_text(const ub_layer *l, const ck_rows *c, proto_item *carried, gboolean known, guint64 u)
{
    unsigned digits = (l->hdr->fields[c->carried].bits + 3) / 4;
    switch (l->status) {
    case UB_CK_GOOD:
        if (!known || !hex_label_append(carried, u, " [correct]")) label_append(carried, " [correct]");
        break;
    case UB_CK_BAD:
        if (c->aux >= 0)
            proto_item_append_text(carried, " [incorrect, should be 0x%0*" G_GINT64_MODIFIER "x]",
                                   (int)digits, (guint64)l->aux);
        else
            label_append(carried, " [incorrect]");
        break;
    case UB_CK_UNVERIFIED:
        if (!known || !hex_label_append(carried, u, " [unverified]")) label_append(carried, " [unverified]");
        break;
    default: break;
    }
}

void ub_ws_set_label(proto_item *it, const char *text, size_t n)
{
    field_info *fi = it ? PITEM_FINFO(it) : NULL;
    if (!fi || proto_item_is_hidden(it) || n >= ITEM_LABEL_LENGTH) return; /* as proto_tree_set_representation */
    if (!fi->rep) fi->rep = wmem_new(PNODE_POOL(it), item_label_t);
    memcpy(fi->rep->representation, text, n);
    fi->rep->representation[n] = '\0';
}

proto_item *ub_ws_add_labelled(proto_tree *tree, int hf, tvbuff_t *tvb, gint off, gint len, const char *text)
{
    size_t n = strlen(text);
    if (n >= ITEM_LABEL_LENGTH) return proto_tree_add_none_format(tree, hf, tvb, off, len, "%s", text); /* truncated */
    proto_item *it = proto_tree_add_item(tree, hf, tvb, off, len, ENC_NA);
    ub_ws_set_label(it, text, n);
    return it;
}

/* the container of an RK_ITEM row, as proto_tree_add_item reads it (clen <= 8 bytes, inside the layer) */
static guint64 container(const guint8 *p, const row_map *m)
{
    guint64 u = 0;
    if (m->le)
        for (guint32 i = m->clen; i-- > 0;) u = u << 8 | p[i];
    else
        for (guint32 i = 0; i < m->clen; i++) u = u << 8 | p[i];
    return u;
}

/* an RK_ITEM integer or boolean row with its container value (proto_tree_add_item's result, see byval) */
static proto_item *add_container(proto_tree *t, int hf, const row_map *m, tvbuff_t *tvb, gint off, guint64 u)
{
    enum ftenum ft = (enum ftenum)m->ftype;
    if (ft == FT_BOOLEAN) return proto_tree_add_boolean(t, hf, tvb, off, (gint)m->clen, (guint32)u);
    if (m->signed_) {
        gint64 s = sign_extend(u, m->clen * 8);
        return ft_is_64(ft) ? proto_tree_add_int64(t, hf, tvb, off, (gint)m->clen, s)
                            : proto_tree_add_int(t, hf, tvb, off, (gint)m->clen, (gint32)s);
    }
    return ft_is_64(ft) ? proto_tree_add_uint64(t, hf, tvb, off, (gint)m->clen, u)
                        : proto_tree_add_uint(t, hf, tvb, off, (gint)m->clen, (guint32)u);
}

void ub_ws_add_layer_fields(proto_tree *sub, const ub_layer *l, tvbuff_t *tvb, gint loff, gint llen,
                             packet_info *pinfo _U_)
{
    const ub_hdr *h = l->hdr;
    const row_map *rm;
    const ck_rows *ck;
    if (h->vidx) {
        if (h->vidx > n_variants) return;
        rm = row_maps_v[h->vidx];
        ck = &ck_of_v[h->vidx];
    } else {
        rm = row_maps[h->id];
        ck = &ck_of[h->id];
    }
    if (!rm || !sub) return;
    proto_item *carried = NULL; /* the item of the row ck->carried */
    guint64 carried_u = 0;      /* its value, when carried_known */
    gboolean carried_known = FALSE;
    gboolean has_status = FALSE;
    gboolean visible = PTREE_DATA(sub)->visible;
    for (unsigned k = 0; k < h->nfields; k++) {
        const ub_field *f = &h->fields[k];
        const row_map *m = &rm[k];
        if (m->kind == RK_SKIP) continue;
        int hf = ub_hf_ids[m->hf_slot];
        /* an invisible tree (tshark -T fields / -Y / taps) keeps only referenced fields: skip the
         * value and the item of the others (proto_tree_add_* would fake them anyway) */
        if (!visible && !proto_field_is_referenced(sub, hf)) continue;
        proto_item *it = NULL;
        if (m->kind == RK_ITEM) { /* the bounds check is the presence check (the container is read here) */
            if ((gint)(m->cstart + m->clen) > llen) continue;
            if (m->byval && l->data) {
                guint64 u = container(l->data + m->cstart, m);
                it = add_container(sub, hf, m, tvb, loff + (gint)m->cstart, u);
                if ((int)k == ck->carried) carried_u = u, carried_known = TRUE;
            } else {
                it = proto_tree_add_item(sub, hf, tvb, loff + (gint)m->cstart, (gint)m->clen,
                                         m->ftype == FT_ETHER || m->ftype == FT_IPv6 ? ENC_NA
                                         : m->le ? ENC_LITTLE_ENDIAN : ENC_BIG_ENDIAN);
            }
            if ((int)k == ck->carried) carried = it;
            continue;
        }
        ub_val val; /* the others need the decoded value */
        if (ub_field_value(l, f, &val) != 0) continue; /* not inside the (truncated) layer */
        switch (m->kind) {
        case RK_VIRT:
            it = add_value(sub, hf, m, tvb, loff, 0, val.u);
            proto_item_set_generated(it);
            if (f->flags & UB_FF_STATUS) has_status = TRUE;
            break;
        case RK_UVAL:
        case RK_SVAL:
            if ((gint)(m->cstart + m->clen) > llen) continue;
            it = add_value(sub, hf, m, tvb, loff + (gint)m->cstart, (gint)m->clen, val.u);
            break;
        case RK_BYTES: {
            guint32 st = (guint32)(val.bytes && l->data ? val.bytes - l->data : m->cstart);
            if ((gint)(st + val.nbytes) > llen) continue;
            it = proto_tree_add_item(sub, hf, tvb, loff + (gint)st, (gint)val.nbytes, ENC_NA);
            if (f->type == UB_FT_GUID_WS && val.nbytes == 16) {
                char g[64];
                ub_format_value(f, &val, false, g, sizeof g);
                proto_item_append_text(it, " (GUID %s)", g); /* R-34 word order */
            }
            break;
        }
        default: break;
        }
        if ((int)k == ck->carried) carried = it, carried_u = val.u, carried_known = TRUE;
    }
    if (has_status && ck->status >= 0 && carried) checksum_text(l, ck, carried, carried_known, carried_u);
}

/* ub.analysis.* and ub.stream.*: hf from libubparse's table (ubparse/anfields.h), one for all */
int ub_af_hf[UB_AF__COUNT];

void ub_ws_register_anfields(int proto, unsigned first, unsigned last)
{
    static hf_register_info hf[UB_AF__COUNT]; /* Wireshark keeps pointers into it */
    static const enum ftenum ft[] = { [UB_AFT_NONE] = FT_NONE, [UB_AFT_UINT32] = FT_UINT32,
                                      [UB_AFT_FRAMENUM] = FT_FRAMENUM, [UB_AFT_RELTIME] = FT_RELATIVE_TIME,
                                      [UB_AFT_STRING] = FT_STRING, [UB_AFT_EXPERT] = FT_NONE };
    static const ft_framenum_type_t fk[] = { [UB_AFF_NONE] = FT_FRAMENUM_NONE, [UB_AFF_REQUEST] = FT_FRAMENUM_REQUEST,
                                             [UB_AFF_RESPONSE] = FT_FRAMENUM_RESPONSE, [UB_AFF_ACK] = FT_FRAMENUM_ACK };
    if (last >= UB_AF__COUNT || first > last) return; /* UB_AFT_EXPERT rows are expert infos, not hf */
    for (unsigned i = first; i <= last; i++) {
        const ub_anfield *a = ub_anfield_get(i);
        ub_af_hf[i] = -1;
        hf[i] = (hf_register_info){ &ub_af_hf[i],
                                    { a->name, a->abbrev, ft[a->type], a->type == UB_AFT_UINT32 ? BASE_DEC : BASE_NONE,
                                      a->frame ? FRAMENUM_TYPE(fk[a->frame]) : NULL, 0x0, a->desc, HFILL } };
    }
    proto_register_field_array(proto, hf + first, (int)(last - first + 1));
}

/* Builder: field values -> bytes, through the same schema tables the decoder reads.
 *
 * Text form (docs/builder.md), one header per line, '#' comments:
 *   flit [icrc=le|be|none|bad] [bcrc=bad] [error_flag=1]   entry: flit|pkt|stream|sll|sll2|cfgph|eth|rawip|tph
 *   lph vl=1 cfg=9
 *   nth16 scna=0x0102 dcna=0x0304
 *   btah_c taopcode=Write ee_bits=1 ini_tassn=1
 *   maetah_c address=0x100000000040 tokenid=0x12345
 *   payload inc=64            (or hex=0011..., zero=N, fill=0xAB:N, len=N)
 * Unset length/next-header/padding fields are computed; ICRC (CFG 3/4/6/7), PLENGTH, LBH, padding
 * and BCRC/END are added. ICRC values come from the decoder's own ICRC computation. */
#include "internal.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>

#define MAX_ITEMS 64
#define MAX_SETS 48

typedef struct {
    int field;        /* index into hdr->fields */
    uint64_t u;
    uint8_t bytes[64];
    uint32_t nbytes;
    bool is_bytes;
} fset;

typedef struct {
    const ub_hdr *h;
    fset set[MAX_SETS];
    unsigned nset;
    uint32_t off, len;
    uint8_t *content; /* variable-length content (points into the build scratch) */
    uint32_t clen;
} item;

typedef struct {
    item it[MAX_ITEMS];
    unsigned n;
    ub_entry entry;
    int icrc;         /* -1 auto, 0 none, 1 le, 2 be, 3 bad */
    bool bcrc_bad, error_flag;
    uint8_t scratch[UB_MAX_NETPKT * 2];
    uint32_t sused;
    char *err;
    size_t errlen;
    /* incremental API (ub_builder_*) */
    const ub_opts *o;
    unsigned lno;      /* line of the text description, or header count for API calls */
    char errbuf[256];
    ub_view *icrc_view; /* incremental builders: the view the ICRC is computed with, kept across
                         * packets (allocated at the first ICRC, freed with the builder) */
    bool keep_view;
    /* incremental builders: name lookups remembered across packets (a responder names the same
     * tables and fields every time; a hit costs one string compare instead of a table scan) */
    struct { const char *key; const ub_hdr *h; } hcache[32];
    struct { const ub_hdr *h; const char *name; int idx; } fcache[128];
} bstate;
struct ub_builder { bstate b; };

static int fail(bstate *b, const char *fmt, const char *a, unsigned line)
{
    if (b->errlen) snprintf(b->err, b->errlen, "line %u: %s%s", line, fmt, a ? a : "");
    return -1;
}

static const ub_hdr *hdr_by_key(const char *key)
{
    for (unsigned id = 1; id < UB_H__COUNT; id++) {
        const ub_hdr *h = ub_hdr_get(id);
        if (h && h->key && strcmp(h->key, key) == 0) return h;
    }
    for (unsigned n = 1; n <= ub_hdr_variant_count(); n++) { /* profile tables: "lph_ns3", ... */
        const ub_hdr *h = ub_hdr_variant(n);
        if (h && h->key && strcmp(h->key, key) == 0) return h;
    }
    return NULL;
}

static bool streq_name(const char *a, const char *b)
{
    for (; *a && *b; a++, b++) {
        char ca = (char)tolower((unsigned char)*a), cb = (char)tolower((unsigned char)*b);
        if (ca == ' ' || ca == '-') ca = '_';
        if (cb == ' ' || cb == '-') cb = '_';
        if (ca != cb) return false;
    }
    return *a == *b;
}

static int parse_hex(const char *s, uint8_t *out, uint32_t cap)
{
    uint32_t n = 0;
    int hi = -1;
    if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) s += 2;
    for (; *s; s++) {
        int c = (unsigned char)*s, v;
        if (isdigit(c)) v = c - '0';
        else if (c >= 'a' && c <= 'f') v = c - 'a' + 10;
        else if (c >= 'A' && c <= 'F') v = c - 'A' + 10;
        else if (c == ':' || c == '.' || c == '_' || c == '-') continue;
        else return -1;
        if (hi < 0) hi = v;
        else {
            if (n >= cap) return -1;
            out[n++] = (uint8_t)(hi << 4 | v);
            hi = -1;
        }
    }
    return hi >= 0 ? -1 : (int)n;
}

static bool parse_u64(const char *s, uint64_t *u)
{
    char *e;
    if (!*s) return false;
    errno = 0;
    *u = strtoull(s, &e, 0);
    return *e == '\0' && errno == 0;
}

static int parse_value(const ub_field *f, const char *val, fset *fs)
{
    fs->is_bytes = false;
    switch (f->type) {
    case UB_FT_UINT:
    case UB_FT_BOOL:
        if (parse_u64(val, &fs->u)) {
            if (f->flags & UB_FF_X64) fs->u >>= 6; /* given as the full address */
            return 0;
        }
        for (const ub_vname *v = f->vals; v && v->name; v++)
            if (streq_name(v->name, val)) { fs->u = v->value; return 0; }
        return -1;
    case UB_FT_IPV4: {
        unsigned a, b2, c, d;
        char tail;
        if (sscanf(val, "%u.%u.%u.%u%c", &a, &b2, &c, &d, &tail) != 4 || a > 255 || b2 > 255 || c > 255 || d > 255) return -1;
        fs->bytes[0] = (uint8_t)a; fs->bytes[1] = (uint8_t)b2; fs->bytes[2] = (uint8_t)c; fs->bytes[3] = (uint8_t)d;
        fs->nbytes = 4;
        fs->is_bytes = true;
        return 0;
    }
    case UB_FT_IPV6: {
        /* the usual text form, or 32 hex digits (':' allowed as separators) */
        if (inet_pton(AF_INET6, val, fs->bytes) == 1) {
            fs->nbytes = 16;
            fs->is_bytes = true;
            return 0;
        }
        int n = parse_hex(val, fs->bytes, sizeof fs->bytes);
        if (n != 16) return -1;
        fs->nbytes = 16;
        fs->is_bytes = true;
        return 0;
    }
    case UB_FT_GUID_WS: {
        uint8_t g[16];
        if (parse_hex(val, g, 16) != 16) return -1;
        for (int w = 0; w < 4; w++) memcpy(fs->bytes + 4 * w, g + 4 * (3 - w), 4); /* */
        fs->nbytes = 16;
        fs->is_bytes = true;
        return 0;
    }
    default: {
        int n = parse_hex(val, fs->bytes, sizeof fs->bytes);
        if (n < 0) return -1;
        fs->nbytes = (uint32_t)n;
        fs->is_bytes = true;
        return 0;
    }
    }
}

int ub_field_parse(const ub_field *f, const char *text, ub_val *out, uint8_t *buf, size_t cap)
{
    fset fs;
    memset(out, 0, sizeof *out);
    if (parse_value(f, text, &fs) != 0) return -1;
    if (!fs.is_bytes) {
        out->u = (f->flags & UB_FF_X64) ? fs.u << 6 : fs.u; /* parse_value keeps the carried bits */
        return 0;
    }
    if (fs.nbytes > cap) return -1;
    memcpy(buf, fs.bytes, fs.nbytes);
    out->bytes = buf;
    out->nbytes = fs.nbytes;
    for (uint32_t i = 0; i < fs.nbytes && i < 8; i++) out->u = (out->u << 8) | fs.bytes[i];
    return 0;
}

static bool has_set(const item *it, const char *short_name)
{
    int k = ub_field_index(it->h, short_name);
    for (unsigned i = 0; k >= 0 && i < it->nset; i++)
        if (it->set[i].field == k) return true;
    return false;
}

static void set_auto(item *it, const char *short_name, uint64_t u)
{
    int k = ub_field_index(it->h, short_name);
    if (k < 0 || has_set(it, short_name) || it->nset >= MAX_SETS) return;
    fset *fs = &it->set[it->nset++];
    memset(fs, 0, sizeof *fs);
    fs->field = k;
    fs->u = u;
}

static uint64_t get_set(const item *it, const char *short_name, uint64_t dflt)
{
    int k = ub_field_index(it->h, short_name);
    for (unsigned i = 0; k >= 0 && i < it->nset; i++)
        if (it->set[i].field == k) return it->set[i].u;
    return dflt;
}

/* content for variable-length tables: hex=.. inc=N zero=N fill=0xAB:N */
static int parse_content(bstate *b, item *it, const char *key, const char *val, unsigned line)
{
    uint8_t *dst = b->scratch + b->sused;
    uint32_t cap = (uint32_t)sizeof b->scratch - b->sused;
    uint64_t n = 0;
    if (strcmp(key, "hex") == 0) {
        int k = parse_hex(val, dst, cap);
        if (k < 0) return fail(b, "bad hex content", NULL, line);
        n = (uint64_t)k;
    } else if (strcmp(key, "inc") == 0 || strcmp(key, "zero") == 0 || strcmp(key, "len") == 0) {
        if (!parse_u64(val, &n) || n > cap) return fail(b, "bad length: ", val, line);
        for (uint64_t i = 0; i < n; i++) dst[i] = key[0] == 'i' ? (uint8_t)i : 0;
    } else if (strcmp(key, "fill") == 0) {
        unsigned byte;
        unsigned long cnt;
        if (sscanf(val, "%i:%lu", (int *)&byte, &cnt) != 2 || cnt > cap) return fail(b, "fill=BYTE:COUNT", NULL, line);
        memset(dst, (int)(byte & 0xFF), cnt);
        n = cnt;
    } else {
        return 1; /* not a content key */
    }
    if (!it->content) { it->content = dst; it->clen = 0; }
    it->clen += (uint32_t)n;
    b->sused += (uint32_t)n;
    return 0;
}

static int parse_entry_line(bstate *b, char *line, unsigned lno)
{
    char *save = NULL;
    char *tok = strtok_r(line, " \t", &save);
    if (!tok) return fail(b, "empty entry line", NULL, lno);
    static const struct { const char *n; ub_entry e; } ents[] = {
        { "flit", UB_ENTRY_FLIT }, { "pkt", UB_ENTRY_PKT }, { "stream", UB_ENTRY_STREAM },
        { "sll", UB_ENTRY_SLL }, { "sll2", UB_ENTRY_SLL2 }, { "cfgph", UB_ENTRY_CFGPH },
        { "eth", UB_ENTRY_ETH }, { "rawip", UB_ENTRY_RAWIP }, { "tph", UB_ENTRY_TPH },
        { "pcieflit", UB_ENTRY_PCIEFLIT }, /* not UB: 256-byte PCIe 6 flits (docs/neighbours.md) */
    };
    for (unsigned i = 0; i < sizeof ents / sizeof ents[0]; i++)
        if (strcmp(tok, ents[i].n) == 0) b->entry = ents[i].e;
    if (b->entry == UB_ENTRY_NONE) return fail(b, "first line must name the entry point, not ", tok, lno);
    while ((tok = strtok_r(NULL, " \t", &save))) {
        if (strcmp(tok, "icrc=le") == 0) b->icrc = 1;
        else if (strcmp(tok, "icrc=be") == 0) b->icrc = 2;
        else if (strcmp(tok, "icrc=none") == 0) b->icrc = 0;
        else if (strcmp(tok, "icrc=bad") == 0) b->icrc = 3;
        else if (strcmp(tok, "bcrc=bad") == 0) b->bcrc_bad = true;
        else if (strcmp(tok, "error_flag=1") == 0) b->error_flag = true;
        else return fail(b, "unknown entry option ", tok, lno);
    }
    return 0;
}

static size_t ptr_slot(const void *a, const void *b2, size_t n)
{
    uintptr_t x = (uintptr_t)a * 0x9E3779B97F4A7C15ull ^ (uintptr_t)b2;
    return (size_t)((x ^ (x >> 29)) % n);
}

static const ub_hdr *hdr_cached(bstate *b, const char *key)
{
    if (!b->keep_view) return hdr_by_key(key);
    size_t i = ptr_slot(key, NULL, sizeof b->hcache / sizeof b->hcache[0]);
    if (b->hcache[i].key == key && b->hcache[i].h && strcmp(b->hcache[i].h->key, key) == 0) return b->hcache[i].h;
    const ub_hdr *h = hdr_by_key(key);
    if (h) { b->hcache[i].key = key; b->hcache[i].h = h; }
    return h;
}

static int field_cached(bstate *b, const ub_hdr *h, const char *name)
{
    if (!b->keep_view) return ub_field_index(h, name);
    size_t i = ptr_slot(h, name, sizeof b->fcache / sizeof b->fcache[0]);
    if (b->fcache[i].h == h && b->fcache[i].name == name) {
        const char *a = h->fields[b->fcache[i].idx].abbrev, *dot = strrchr(a, '.');
        if (dot && strcmp(dot + 1, name) == 0) return b->fcache[i].idx;
    }
    int k = ub_field_index(h, name);
    if (k >= 0) { b->fcache[i].h = h; b->fcache[i].name = name; b->fcache[i].idx = k; }
    return k;
}

static int add_header(bstate *b, const char *key, unsigned lno)
{
    if (b->entry == UB_ENTRY_NONE) return fail(b, "no entry point before header ", key, lno);
    const ub_hdr *h = hdr_cached(b, key);
    if (!h) return fail(b, "unknown header table ", key, lno);
    if (b->n >= MAX_ITEMS) return fail(b, "too many headers", NULL, lno);
    item *it = &b->it[b->n++];
    /* the scalar members only: set[] entries are initialised as they are added (new_set/set_auto),
     * and clearing ~4 KB of them per header would dominate a responder's per-packet cost */
    it->h = h;
    it->nset = 0;
    it->off = it->len = it->clen = 0;
    it->content = NULL;
    return 0;
}

/* key=value on the last header: content keys (hex, inc, zero, len, fill) or a field of its table */
static fset *new_set(bstate *b, const char *key, unsigned lno)
{
    if (b->n == 0) { fail(b, "no header for field ", key, lno); return NULL; }
    item *it = &b->it[b->n - 1];
    int k = field_cached(b, it->h, key);
    if (k < 0) { fail(b, "unknown field ", key, lno); return NULL; }
    if (it->nset >= MAX_SETS) { fail(b, "too many fields", NULL, lno); return NULL; }
    fset *fs = &it->set[it->nset++];
    memset(fs, 0, sizeof *fs);
    fs->field = k;
    return fs;
}

static int set_text(bstate *b, const char *key, const char *val, unsigned lno)
{
    if (b->n == 0) return fail(b, "no header for field ", key, lno);
    item *it = &b->it[b->n - 1];
    int r = parse_content(b, it, key, val, lno);
    if (r <= 0) return r;
    fset *fs = new_set(b, key, lno);
    if (!fs) return -1;
    if (parse_value(&it->h->fields[fs->field], val, fs) != 0) return fail(b, "bad value for ", key, lno);
    return 0;
}

static int parse_line(bstate *b, char *line, unsigned lno)
{
    if (!line[strspn(line, " \t")]) return 0;
    if (b->entry == UB_ENTRY_NONE) return parse_entry_line(b, line, lno);
    char *save = NULL;
    char *tok = strtok_r(line, " \t", &save);
    if (add_header(b, tok, lno) < 0) return -1;
    while ((tok = strtok_r(NULL, " \t", &save))) {
        char *eq = strchr(tok, '=');
        if (!eq) return fail(b, "expected field=value: ", tok, lno);
        *eq = '\0';
        if (set_text(b, tok, eq + 1, lno) < 0) return -1;
    }
    return 0;
}

static bool is_id(const item *it, unsigned id) { return it && it->h->id == id; }

/* next-header values implied by the chain (§1 dispatch, digest §3.7, §4) */
static void auto_fields(bstate *b)
{
    for (unsigned i = 0; i < b->n; i++) {
        item *it = &b->it[i];
        item *nx = i + 1 < b->n ? &b->it[i + 1] : NULL;
        unsigned nid = nx ? nx->h->id : UB_H_NONE;
        bool nx_tah = nid == UB_H_BTAH || nid == UB_H_BTAH_C || nid == UB_H_BTAH_ALT || nid == UB_H_ATAH || nid == UB_H_ATAH_C;
        switch (it->h->id) {
        case UB_H_LPH: {
            unsigned cfg = nid == UB_H_NTHIP ? 3 : nid == UB_H_NCTL ? 5 : nid == UB_H_NTH24 ? 7 : 6;
            if (nid == UB_H_NTHIP && i + 2 < b->n && is_id(&b->it[i + 2], UB_H_IPV6)) cfg = 4;
            if (nid == UB_H_NTH16 && i + 2 < b->n &&
                (b->it[i + 2].h->id == UB_H_BTAH_C || b->it[i + 2].h->id == UB_H_ATAH_C)) cfg = 9;
            set_auto(it, "cfg", cfg);
            break;
        }
        case UB_H_LCH: { /* Table 4-5: fixed 6'b100000; CTRL/SUB_CTRL/CLENGTH from the body table (Table 4-6) */
            set_auto(it, "fixed", 0x20);
            unsigned ctrl, sub, minf;
            if (nx && ub_dllcb_code(nid, &ctrl, &sub, &minf)) {
                set_auto(it, "ctrl", ctrl);
                set_auto(it, "sub_ctrl", sub);
                set_auto(it, "clength", nid == UB_H_LNA ? 4 : minf - 1); /* §10.4.4: 5-flit advertisement */
            }
            break;
        }
        case UB_H_NTH16: set_auto(it, "nlp", nid == UB_H_UPIH16 ? 1 : 0); break;
        case UB_H_NTH24: set_auto(it, "nlp", nid == UB_H_CTPH ? 0 : 2); break;
        case UB_H_CTPH:
        case UB_H_RTPH:
        case UB_H_UTPH:
            if (it->h->id == UB_H_RTPH) set_auto(it, "tpopcode", 1);
            set_auto(it, "nlp", nx_tah ? 0 : nid == UB_H_UPIH32 ? 1 : nid == UB_H_UPIH16 ? 2 : nid == UB_H_CIPH ? 3 : 0);
            break;
        case UB_H_CIPH: set_auto(it, "nlp", nid == UB_H_UPIH32 ? 0 : nid == UB_H_UPIH16 ? 1 : 2); break;
        case UB_H_IPV4:
            set_auto(it, "version", 4); set_auto(it, "ihl", 5); set_auto(it, "df", 1); set_auto(it, "ttl", 64);
            set_auto(it, "protocol", nid == UB_H_UDP ? 17 : 6);
            break;
        case UB_H_IPV6:
            set_auto(it, "version", 6); set_auto(it, "hop_limit", 64); set_auto(it, "next_header", nid == UB_H_UDP ? 17 : 6);
            break;
        case UB_H_UDP: set_auto(it, "dstport", UB_UDP_PORT); set_auto(it, "srcport", 0xC000); break;
        case UB_H_ETH: case UB_H_VLAN: case UB_H_VLAN_S: /* the next header's EtherType: a tag's TPID, IPv6, else IPv4 */
            set_auto(it, "type", nid == UB_H_VLAN ? 0x8100 : nid == UB_H_VLAN_S ? 0x88A8 : nid == UB_H_IPV6 ? 0x86DD : 0x0800);
            break;
        case UB_H_BTAH:
        case UB_H_BTAH_C:
        case UB_H_BTAH_ALT: {
            bool ud = false, tv = false, mt = false;
            for (unsigned k = i + 1; k < b->n; k++) {
                ud |= b->it[k].h->id == UB_H_UDETAH;
                tv |= b->it[k].h->id == UB_H_TVETAH;
                mt |= b->it[k].h->id == UB_H_MTETAH;
            }
            set_auto(it, "ud_flag", ud);
            set_auto(it, "tv_en", tv);
            set_auto(it, "mt_en", mt);
            set_auto(it, "ee_bits", 1);
            break;
        }
        default: break;
        }
    }
}

/* length of an item: fixed, or its content, or (variable tables) what its set fields cover */
static uint32_t item_len(const item *it)
{
    uint32_t n = it->clen;
    if (!it->content && it->h->len) n = it->h->len;
    if (it->h->len == 0) {
        for (unsigned i = 0; i < it->nset; i++) {
            const ub_field *f = &it->h->fields[it->set[i].field];
            if (f->flags & UB_FF_VIRTUAL) continue;
            uint32_t e = f->bits ? (f->bit_off + f->bits + 7) / 8 : f->bit_off / 8 + it->set[i].nbytes;
            if (e > n) n = e;
        }
    }
    return n;
}

static int write_item(bstate *b, const item *it, uint8_t *out, uint32_t cap, unsigned lno)
{
    uint32_t len = it->len;
    if (it->off + len > cap) return fail(b, "packet too long", NULL, lno);
    uint8_t *p = out + it->off;
    if (it->content) memcpy(p, it->content, it->clen);
    for (unsigned i = 0; i < it->nset; i++) {
        const fset *fs = &it->set[i];
        const ub_field *f = &it->h->fields[fs->field];
        if (f->flags & UB_FF_VIRTUAL) continue;
        if (fs->is_bytes) {
            uint32_t start = f->bit_off / 8;
            uint32_t n = f->bits ? f->bits / 8 : fs->nbytes;
            if (start + n > len || fs->nbytes > n) return fail(b, "value does not fit ", f->abbrev, lno);
            memset(p + start, 0, n);
            memcpy(p + start + (n - fs->nbytes), fs->bytes, fs->nbytes); /* right-align shorter values */
        } else {
            if (f->bit_off + f->bits > len * 8) return fail(b, "field outside header ", f->abbrev, lno);
            uint64_t u = fs->u;
            if (f->bits < 64 && (u >> f->bits)) return fail(b, "value too wide for ", f->abbrev, lno);
            if (f->flags & UB_FF_LEW) ub_lew_put(p, f, u); /* SUE RH, Dest_QP byte first */
            else ub_wr_bits(p, f->bit_off, f->bits, ub_field_unwire(f, u)); /* profile rows: LE / bit order */
        }
    }
    return 0;
}

static int field_put(item *it, uint8_t *base, const char *short_name, uint64_t u)
{
    int k = ub_field_index(it->h, short_name);
    if (k < 0) return -1;
    const ub_field *f = &it->h->fields[k];
    if (f->flags & UB_FF_LEW) ub_lew_put(base + it->off, f, u);
    else ub_wr_bits(base + it->off, f->bit_off, f->bits, ub_field_unwire(f, u));
    return 0;
}

static uint16_t ip_csum(const uint8_t *p, uint32_t n)
{
    uint32_t s = 0;
    for (uint32_t i = 0; i + 1 < n; i += 2) s += (uint32_t)(p[i] << 8 | p[i + 1]);
    while (s >> 16) s = (s & 0xFFFF) + (s >> 16);
    return (uint16_t)~s;
}

static long finish(bstate *b, uint8_t *out, size_t cap, ub_entry *entry_out)
{
    const ub_opts *o = b->o;
    unsigned lno = b->lno;
    long result = -1;
    if (b->entry == UB_ENTRY_NONE || b->n == 0) { fail(b, "empty description", NULL, lno); goto out; }
    auto_fields(b);

    /* layout */
    uint32_t off = 0;
    int ta_first = -1, tph = -1, icrc_start = -1, lph = -1, ip = -1, udp = -1, mgmt = -1, nctl = -1;
    for (unsigned i = 0; i < b->n; i++) {
        item *it = &b->it[i];
        unsigned id = it->h->id;
        it->len = item_len(it);
        if ((id >= UB_H_DLLCB_NULL && id <= UB_H_LNA) && lph >= 0) {
            /* DLLCB bodies re-describe the whole block from flit byte 0 (they overlay the LCH) */
            it->off = b->it[lph].off;
            if (it->off + it->len > off) off = it->off + it->len;
            continue;
        }
        it->off = off;
        off += it->len;
        if (id == UB_H_LPH || id == UB_H_LCH) lph = (int)i;
        if ((id == UB_H_NTH16 || id == UB_H_NTH24) && icrc_start < 0) icrc_start = (int)i;
        if ((id == UB_H_IPV4 || id == UB_H_IPV6) && ip < 0) { ip = (int)i; if (icrc_start < 0) icrc_start = (int)i; }
        if (id == UB_H_UDP && udp < 0) udp = (int)i;
        if ((id == UB_H_RTPH || id == UB_H_UTPH || id == UB_H_CTPH) && tph < 0) tph = (int)i;
        if ((id == UB_H_BTAH || id == UB_H_BTAH_C || id == UB_H_BTAH_ALT || id == UB_H_ATAH || id == UB_H_ATAH_C) && ta_first < 0) ta_first = (int)i;
        if (id == UB_H_MGMTETAH) mgmt = (int)i;
        if (id == UB_H_NCTL) nctl = (int)i;
    }
    (void)ta_first;
    (void)nctl;
    /* TP padding: (TPH .. payload end + Padding) % 4 == 0 (Table 6-2) unless given */
    uint32_t pad = 0;
    if (tph >= 0) {
        item *t = &b->it[tph];
        bool has_tppad = false;
        for (unsigned i = 0; i < b->n; i++) has_tppad |= b->it[i].h->id == UB_H_TPPAD;
        if (has_set(t, "padding")) pad = (uint32_t)get_set(t, "padding", 0);
        else if (!has_tppad) {
            uint32_t tlen = off - t->off;
            for (unsigned i = 0; i < b->n; i++) if (b->it[i].h->id == UB_H_ICV) tlen -= b->it[i].len;
            pad = (4 - tlen % 4) % 4;
            set_auto(t, "padding", pad);
        }
        if (has_tppad) pad = 0;
    }
    /* ICRC: CFG 3/4 (UB over UDP), 6 (not enumeration), 7 (§5.3.7) */
    unsigned cfg = lph >= 0 && b->it[lph].h->id == UB_H_LPH ? (unsigned)get_set(&b->it[lph], "cfg", 0) : 0;
    bool enumeration = false;
    for (unsigned i = 0; i < b->n; i++) enumeration |= b->it[i].h->id == UB_H_SCANHDR;
    bool want_icrc;
    if (b->icrc >= 0) want_icrc = b->icrc != 0;
    else if (b->entry == UB_ENTRY_ETH || b->entry == UB_ENTRY_RAWIP) want_icrc = udp >= 0 && tph >= 0;
    else want_icrc = (cfg == 3 || cfg == 4) ? (udp >= 0 && tph >= 0) : (cfg == 6 || cfg == 7) && !enumeration;
    if (b->entry == UB_ENTRY_TPH) want_icrc = false;
    /* pad bytes go after the last item that is not ICV */
    uint32_t total = off + pad + (want_icrc ? 4 : 0);
    uint8_t *pk = b->scratch + b->sused;
    if (b->sused + total > sizeof b->scratch) { fail(b, "packet too long", NULL, lno); goto out; }
    memset(pk, 0, total);
    {
        /* shift ICV items behind the padding */
        uint32_t icv_shift = pad;
        for (unsigned i = 0; i < b->n; i++)
            if (b->it[i].h->id == UB_H_ICV) b->it[i].off += icv_shift;
    }
    for (unsigned i = 0; i < b->n; i++)
        if (write_item(b, &b->it[i], pk, total, i + 1) < 0) goto out;
    uint32_t end_ta = off + pad; /* end of TP packet incl. ICV */
    /* lengths */
    if (mgmt >= 0 && !has_set(&b->it[mgmt], "pdu_length")) {
        item *g = &b->it[mgmt];
        uint32_t pl = off - (g->off + g->len);
        for (unsigned i = 0; i < b->n; i++) if (b->it[i].h->id == UB_H_ICV) pl -= b->it[i].len;
        field_put(g, pk, "pdu_length", pl);
    }
    if (udp >= 0 && !has_set(&b->it[udp], "length")) field_put(&b->it[udp], pk, "length", end_ta - b->it[udp].off);
    if (ip >= 0) {
        item *it = &b->it[ip];
        if (it->h->id == UB_H_IPV4) {
            if (!has_set(it, "total_length")) field_put(it, pk, "total_length", end_ta - it->off);
            if (!has_set(it, "checksum")) {
                field_put(it, pk, "checksum", 0);
                field_put(it, pk, "checksum", ip_csum(pk + it->off, 20));
            }
        } else if (!has_set(it, "payload_length")) {
            field_put(it, pk, "payload_length", end_ta - it->off - 40);
        }
    }
    /* ICRC via the decoder's own computation (one masking implementation) */
    if (want_icrc) {
        ub_view *v = b->icrc_view;
        if (!v) {
            v = malloc(sizeof *v);
            if (!v) goto out;
            ub_view_init(v);
            if (b->keep_view) b->icrc_view = v;
        }
        ub_entry de = b->entry;
        const uint8_t *dp = pk;
        uint32_t dl = total;
        if (de == UB_ENTRY_FLIT || de == UB_ENTRY_STREAM) de = UB_ENTRY_PKT;
        if (de == UB_ENTRY_SLL || de == UB_ENTRY_SLL2 || de == UB_ENTRY_CFGPH) de = UB_ENTRY_PKT;
        ub_opts o2 = *o;
        o2.crc_mode = true;
        if (udp >= 0) { /* the datagram is UB on whatever port it was given */
            const item *u = &b->it[udp];
            int k = ub_field_index(u->h, "dstport");
            ub_layer ul = { .hdr = u->h, .data = pk + u->off, .len = 8 };
            if (k >= 0) o2.udp_port = (uint16_t)ub_lget(&ul, (unsigned)k);
        }
        if (de == UB_ENTRY_PKT) { /* LPH PLENGTH must match for the decoder to see the whole packet */
            int pl = ub_plength_encode(total - 4, true);
            if (pl >= 0 && lph >= 0) field_put(&b->it[lph], pk, "plength", (uint64_t)pl); /* fuzz_build: no LPH */
        }
        ub_decode(v, &o2, de, dp, dl);
        int k = ub_view_find(v, UB_H_ICRC, 0);
        uint32_t crc = k >= 0 ? (uint32_t)v->layer[k].aux : 0;
        if (!b->keep_view) free(v);
        if (k < 0) { fail(b, "could not place the ICRC for this chain", NULL, lno); goto out; }
        if (b->icrc == 3) crc ^= 0xDEADBEEF;
        uint8_t *c = pk + total - 4;
        if (b->icrc == 2) { c[0] = (uint8_t)(crc >> 24); c[1] = (uint8_t)(crc >> 16); c[2] = (uint8_t)(crc >> 8); c[3] = (uint8_t)crc; }
        else { c[0] = (uint8_t)crc; c[1] = (uint8_t)(crc >> 8); c[2] = (uint8_t)(crc >> 16); c[3] = (uint8_t)(crc >> 24); } /* */
    }
    /* framing per entry point: link records start with a whole LPH/LCH (fuzz_build: content= can shrink it) */
    if ((b->entry == UB_ENTRY_FLIT || b->entry == UB_ENTRY_STREAM || b->entry == UB_ENTRY_PKT ||
         b->entry == UB_ENTRY_SLL || b->entry == UB_ENTRY_SLL2 || b->entry == UB_ENTRY_CFGPH) &&
        lph >= 0 && (b->it[lph].off != 0 || total < 4)) {
        fail(b, "the record must start with a whole lph or lch", NULL, lno);
        goto out;
    }
    switch (b->entry) {
    case UB_ENTRY_FLIT:
    case UB_ENTRY_STREAM:
        if (lph < 0) { fail(b, "flit records start with lph or lch", NULL, lno); goto out; }
        if (b->it[lph].h->id == UB_H_LCH) {
            item *l = &b->it[lph];
            unsigned flits = (unsigned)get_set(l, "clength", 0) + 1;
            if (flits * 20 > cap) { fail(b, "output buffer too small", NULL, lno); goto out; }
            memset(out, 0, flits * 20);
            memcpy(out, pk, total < flits * 20 ? total : flits * 20);
            ub_frame_dllcb(o, out, flits);
            if (b->bcrc_bad) out[flits * 20 - 1] ^= 0x01;
            result = flits * 20;
        } else {
            long n = ub_frame_dlldp(o, pk, pk + 4, total - 4, b->error_flag, out, cap);
            if (n < 0) { fail(b, "cannot frame the DLLDP (too long?)", NULL, lno); goto out; }
            if (b->bcrc_bad && o->crc_mode) out[n - 1] ^= 0x01;
            result = n;
        }
        break;
    case UB_ENTRY_PKT: {
        if (lph < 0) { fail(b, "pkt records start with lph or lch", NULL, lno); goto out; }
        int pl = ub_plength_encode(total - 4, o->crc_mode);
        if (pl < 0) { fail(b, "packet too long for PLENGTH", NULL, lno); goto out; }
        if (!has_set(&b->it[lph], "plength")) field_put(&b->it[lph], pk, "plength", (uint64_t)pl);
        if (total > cap) goto out;
        memcpy(out, pk, total);
        result = total;
        break;
    }
    case UB_ENTRY_SLL:
    case UB_ENTRY_SLL2:
    case UB_ENTRY_CFGPH: {
        if (lph < 0 || b->it[lph].h->id != UB_H_LPH) { fail(b, "cooked records start with lph (for the CFG)", NULL, lno); goto out; }
        uint32_t hl = b->entry == UB_ENTRY_SLL ? 16 : b->entry == UB_ENTRY_SLL2 ? 20 : 0;
        uint32_t n = hl + 1 + (total - 4);
        if (n > cap) goto out;
        memset(out, 0, hl);
        uint16_t proto = cfg == 5 ? UB_ETH_P_UB : cfg == 4 ? 0x86DD : 0x0800;
        if (b->entry == UB_ENTRY_SLL) { /* pkttype 0, hatype 38, halen 0, addr 0, protocol */
            out[2] = 0; out[3] = UB_ARPHRD_UB; out[14] = (uint8_t)(proto >> 8); out[15] = (uint8_t)proto;
        } else if (b->entry == UB_ENTRY_SLL2) {
            out[0] = (uint8_t)(proto >> 8); out[1] = (uint8_t)proto; out[7] = 1; out[8] = 0; out[9] = UB_ARPHRD_UB;
        }
        out[hl] = (uint8_t)cfg;
        memcpy(out + hl + 1, pk + 4, total - 4);
        result = n;
        break;
    }
    default:
        if (total > cap) goto out;
        memcpy(out, pk, total);
        result = total;
    }
    if (entry_out) *entry_out = b->entry == UB_ENTRY_STREAM ? UB_ENTRY_STREAM : b->entry;
out:
    return result;
}

static void reset(bstate *b, const ub_opts *o, char *err, size_t errlen)
{
    b->n = 0;
    b->entry = UB_ENTRY_NONE;
    b->icrc = -1;
    b->bcrc_bad = b->error_flag = false;
    b->sused = 0;
    b->o = o;
    b->lno = 0;
    b->err = err;
    b->errlen = errlen;
    if (errlen) err[0] = '\0';
}

long ub_build_text(const char *text, const ub_opts *o, uint8_t *out, size_t cap, ub_entry *entry_out, char *err,
                   size_t errlen)
{
    bstate *b = malloc(sizeof *b); /* builder only (not the decode path) */
    if (!b) return -1;
    reset(b, o, err, errlen);
    b->icrc_view = NULL;
    b->keep_view = false;
    long result = -1;
    char line[4096];
    const char *s = text;
    while (*s) {
        const char *nl = strchr(s, '\n');
        size_t n = nl ? (size_t)(nl - s) : strlen(s);
        b->lno++;
        if (n >= sizeof line) { fail(b, "line too long", NULL, b->lno); goto out; }
        memcpy(line, s, n);
        line[n] = '\0';
        char *hash = strchr(line, '#');
        if (hash) *hash = '\0';
        if (parse_line(b, line, b->lno) < 0) goto out;
        s += n + (nl ? 1 : 0);
    }
    result = finish(b, out, cap, entry_out);
out:
    free(b);
    return result;
}

/* ---------------------------------------------------------------- incremental API (ubparse.h) */
ub_builder *ub_builder_new(const ub_opts *o)
{
    ub_builder *w = malloc(sizeof *w);
    if (w) {
        reset(&w->b, o, w->b.errbuf, sizeof w->b.errbuf);
        w->b.icrc_view = NULL;
        w->b.keep_view = true; /* no allocation per packet (responders, rewrites) */
        memset(w->b.hcache, 0, sizeof w->b.hcache);
        memset(w->b.fcache, 0, sizeof w->b.fcache);
    }
    return w;
}
void ub_builder_free(ub_builder *w)
{
    if (w) free(w->b.icrc_view);
    free(w);
}
const char *ub_builder_error(const ub_builder *w) { return w->b.errbuf; }

int ub_builder_reset(ub_builder *w, const char *entry_line)
{
    bstate *b = &w->b;
    reset(b, b->o, b->errbuf, sizeof b->errbuf);
    char line[256];
    if (strlen(entry_line) >= sizeof line) return fail(b, "entry line too long", NULL, 0);
    strcpy(line, entry_line);
    return parse_entry_line(b, line, 0);
}
int ub_builder_header(ub_builder *w, const char *key)
{
    w->b.lno = w->b.n + 1;
    return add_header(&w->b, key, w->b.lno);
}
int ub_builder_set(ub_builder *w, const char *field, const char *value)
{
    return set_text(&w->b, field, value, w->b.lno);
}
int ub_builder_set_u64(ub_builder *w, const char *field, uint64_t v)
{
    fset *fs = new_set(&w->b, field, w->b.lno);
    if (!fs) return -1;
    const ub_field *f = &w->b.it[w->b.n - 1].h->fields[fs->field];
    if (f->type != UB_FT_UINT && f->type != UB_FT_BOOL) {
        w->b.it[w->b.n - 1].nset--;
        return fail(&w->b, "not an integer field: ", field, w->b.lno);
    }
    fs->u = (f->flags & UB_FF_X64) ? v >> 6 : v; /* given as the full address */
    return 0;
}
int ub_builder_set_bytes(ub_builder *w, const char *field, const uint8_t *p, size_t n)
{
    bstate *b = &w->b;
    if (b->n == 0) return fail(b, "no header for field ", field, b->lno);
    item *it = &b->it[b->n - 1];
    if (strcmp(field, "hex") == 0 || strcmp(field, "data") == 0) { /* content bytes */
        if (n > sizeof b->scratch - b->sused) return fail(b, "content too long", NULL, b->lno);
        uint8_t *dst = b->scratch + b->sused;
        memcpy(dst, p, n);
        if (!it->content) { it->content = dst; it->clen = 0; }
        it->clen += (uint32_t)n;
        b->sused += (uint32_t)n;
        return 0;
    }
    fset *fs = new_set(b, field, b->lno);
    if (!fs) return -1;
    const ub_field *f = &it->h->fields[fs->field];
    if (f->type == UB_FT_UINT || f->type == UB_FT_BOOL || n > sizeof fs->bytes) {
        it->nset--;
        return fail(b, "not a byte-string field (or too long): ", field, b->lno);
    }
    if (f->type == UB_FT_GUID_WS && n == 16) {
        for (int k = 0; k < 4; k++) memcpy(fs->bytes + 4 * k, p + 4 * (3 - k), 4); /* */
    } else {
        memcpy(fs->bytes, p, n);
    }
    fs->nbytes = (uint32_t)n;
    fs->is_bytes = true;
    return 0;
}
long ub_builder_finish(ub_builder *w, uint8_t *out, size_t cap, ub_entry *entry_out)
{
    w->b.lno = w->b.n;
    return finish(&w->b, out, cap, entry_out);
}

/* Builder -> decoder round trip for every packet of every captures/ .ub description (every packet
 * family and entry point): each record is built, decoded with its entry point, and every integer
 * field value written in the description must come back from the decoded layer of that table. */
#include "ubtest.h"
#include "ubparse/ubparse.h"

#include <ctype.h>
#include <dirent.h>
#include <stdlib.h>

static ub_view V;
static ub_opts O;

static const ub_hdr *hdr_by_key(const char *key)
{
    for (unsigned id = 1; id < UB_H__COUNT; id++) {
        const ub_hdr *h = ub_hdr_get(id);
        if (h && strcmp(h->key, key) == 0) return h;
    }
    return NULL;
}

static const ub_field *field_by_short(const ub_hdr *h, const char *name)
{
    size_t pl = strlen(ub_hdr_ns(h)) + strlen(h->abbrev) + 1; /* ["ub."] abbrev "." */
    for (unsigned i = 0; i < h->nfields; i++)
        if (strlen(h->fields[i].abbrev) > pl && strcmp(h->fields[i].abbrev + pl, name) == 0) return &h->fields[i];
    return NULL;
}

static bool name_value(const ub_field *f, const char *s, uint64_t *u)
{
    char *e;
    *u = strtoull(s, &e, 0);
    if (*s && *e == '\0') return true;
    for (const ub_vname *v = f->vals; v && v->name; v++) {
        const char *a = v->name, *b = s;
        for (; *a && *b; a++, b++)
            if (tolower((unsigned char)*a) != tolower((unsigned char)*b) && !(*a == ' ' && *b == '_')) break;
        if (!*a && !*b) { *u = v->value; return true; }
    }
    return false;
}

/* check the field assignments of one packet description against the decoded view */
static unsigned check_packet(const char *file, unsigned pkt, char *text)
{
    unsigned checked = 0;
    unsigned seen[UB_H__COUNT] = { 0 };
    char *save = NULL;
    bool first = true, cooked = false;
    for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        char *hash = strchr(line, '#');
        if (hash) *hash = '\0';
        char *s2 = NULL;
        char *key = strtok_r(line, " \t", &s2);
        if (!key) continue;
        if (first) { /* entry line; cooked captures carry the CFG in a 1-byte pseudo-header, no LPH */
            first = false;
            cooked = strcmp(key, "sll") == 0 || strcmp(key, "sll2") == 0 || strcmp(key, "cfgph") == 0;
            continue;
        }
        const ub_hdr *h = hdr_by_key(key);
        if (!h || (cooked && h->id == UB_H_LPH)) continue;
        /* the n-th occurrence of this table in the description = the n-th layer of it */
        unsigned want = seen[h->id]++, n = 0;
        const ub_layer *l = NULL;
        for (unsigned i = 0; i < V.nlayers; i++) {
            if (V.layer[i].hdr != h) continue;
            if (n++ == want) { l = &V.layer[i]; break; }
        }
        if (!l && h->id == UB_H_DATA && (V.neigh & UB_VN_QUOTED_UB) && V.nlayers && (V.layer[V.nlayers - 1].flags & UB_LF_QUOTED))
            continue; /* the first bytes of a UB header an ICMP error's quote cuts (icmp_ub.ub): decoded as that header */
        if (!l) {
            fprintf(stderr, "%s packet %u: no decoded %s layer #%u\n", file, pkt, key, want + 1);
            CHECK(l != NULL);
            continue;
        }
        for (char *kv = strtok_r(NULL, " \t", &s2); kv; kv = strtok_r(NULL, " \t", &s2)) {
            char *eq = strchr(kv, '=');
            if (!eq) continue;
            *eq = '\0';
            const ub_field *f = field_by_short(h, kv);
            if (!f || (f->type != UB_FT_UINT && f->type != UB_FT_BOOL)) continue;
            uint64_t want_v;
            if (!name_value(f, eq + 1, &want_v)) continue;
            ub_val got;
            int r = ub_field_value(l, f, &got);
            if (r != 0 || got.u != want_v)
                fprintf(stderr, "%s packet %u: %s = 0x%llx, described 0x%llx\n", file, pkt, f->abbrev,
                        (unsigned long long)got.u, (unsigned long long)want_v);
            CHECK_EQ(got.u, want_v);
            checked++;
        }
    }
    return checked;
}

/* the same description through the incremental builder API (ub_builder_*): must give the same bytes */
static long api_build(ub_builder *b, const char *text, uint8_t *out, size_t cap, ub_entry *e)
{
    static char copy[1 << 16];
    snprintf(copy, sizeof copy, "%s", text);
    char *save = NULL;
    bool first = true;
    for (char *line = strtok_r(copy, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        char *hash = strchr(line, '#');
        if (hash) *hash = '\0';
        if (!line[strspn(line, " \t")]) continue;
        if (first) {
            first = false;
            if (ub_builder_reset(b, line) != 0) return -1;
            continue;
        }
        char *s2 = NULL;
        char *key = strtok_r(line, " \t", &s2);
        if (ub_builder_header(b, key) != 0) return -1;
        for (char *kv = strtok_r(NULL, " \t", &s2); kv; kv = strtok_r(NULL, " \t", &s2)) {
            char *eq = strchr(kv, '=');
            if (!eq) return -1;
            *eq = '\0';
            if (ub_builder_set(b, kv, eq + 1) != 0) return -1;
        }
    }
    return ub_builder_finish(b, out, cap, e);
}

static void one_spec(const char *path, const char *name)
{
    FILE *f = fopen(path, "rb");
    CHECK(f != NULL);
    if (!f) return;
    static char buf[1 << 18];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    ub_opts o = O;
    if (strstr(buf, "mode=noncrc")) o.crc_mode = false;
    unsigned pkt = 0, total = 0;
    char *p = strstr(buf, "@packet");
    while (p) {
        char *next = strstr(p + 7, "@packet");
        if (next) *next = '\0';
        char *body = strchr(p, '\n');
        pkt++;
        if (body && !strstr(p, "trunc=") && !strstr(p, "xor=") && !strstr(body, "=bad") && !strstr(body, "error_flag=1")) {
            static uint8_t rec[30000];
            char err[200];
            ub_entry e;
            long len = ub_build_text(body + 1, &o, rec, sizeof rec, &e, err, sizeof err);
            if (len < 0) fprintf(stderr, "%s packet %u: %s\n", name, pkt, err);
            CHECK(len > 0);
            if (len > 0) { /* incremental API: identical bytes and entry */
                static uint8_t rec2[30000];
                ub_entry e2 = UB_ENTRY_NONE;
                ub_builder *b = ub_builder_new(&o);
                long len2 = b ? api_build(b, body + 1, rec2, sizeof rec2, &e2) : -1;
                if (len2 != len || memcmp(rec, rec2, (size_t)len) != 0)
                    fprintf(stderr, "%s packet %u: ub_builder_* gave %ld bytes (%s), text %ld\n", name, pkt, len2,
                            b ? ub_builder_error(b) : "no memory", len);
                CHECK_EQ(len2, len);
                CHECK(len2 == len && memcmp(rec, rec2, (size_t)len) == 0);
                CHECK_EQ(e2, e);
                ub_builder_free(b);
            }
            if (len > 0) {
                ub_decode(&V, &o, e == UB_ENTRY_STREAM ? UB_ENTRY_FLIT : e, rec, (uint32_t)len);
                if (!strstr(name, "malformed")) {
                    char names[256];
                    ub_error_names(&V, names, sizeof names);
                    if (V.nerrs && !strstr(name, "cip")) fprintf(stderr, "%s packet %u: errors %s\n", name, pkt, names);
                    if (!strstr(name, "cip")) CHECK_EQ(V.nerrs, 0);
                }
                static char copy[1 << 16];
                snprintf(copy, sizeof copy, "%s", body + 1);
                if (!strstr(name, "cip") && !strstr(name, "malformed")) total += check_packet(name, pkt, copy);
            }
        }
        if (!next) break;
        *next = '@';
        p = next;
    }
    CHECK(pkt > 0);
    if (!strstr(name, "cip") && !strstr(name, "malformed")) CHECK(total > 0);
}

/* typed setters and errors of the incremental API (digest §13.2 Write, compact TAH) */
static void typed_api(void)
{
    static const char *text = "flit\nlph vl=1\nnth16 scna=0x0102 dcna=0x0304\nbtah_c taopcode=Write ini_tassn=1\n"
                              "maetah_c address=0x0000100000000040 tokenid=0x12345\npayload inc=8\n";
    uint8_t a[512], b2[512], pay[8];
    for (int i = 0; i < 8; i++) pay[i] = (uint8_t)i;
    ub_entry e;
    char err[200];
    long n = ub_build_text(text, &O, a, sizeof a, &e, err, sizeof err);
    ub_builder *b = ub_builder_new(&O);
    CHECK(b != NULL);
    if (!b) return;
    CHECK_EQ(ub_builder_reset(b, "flit"), 0);
    CHECK_EQ(ub_builder_header(b, "lph"), 0);
    CHECK_EQ(ub_builder_set_u64(b, "vl", 1), 0);
    CHECK_EQ(ub_builder_header(b, "nth16"), 0);
    CHECK_EQ(ub_builder_set_u64(b, "scna", 0x102), 0);
    CHECK_EQ(ub_builder_set_u64(b, "dcna", 0x304), 0);
    CHECK_EQ(ub_builder_header(b, "btah_c"), 0);
    CHECK_EQ(ub_builder_set(b, "taopcode", "Write"), 0);
    CHECK_EQ(ub_builder_set_u64(b, "ini_tassn", 1), 0);
    CHECK_EQ(ub_builder_header(b, "maetah_c"), 0);
    CHECK_EQ(ub_builder_set_u64(b, "address", 0x0000100000000040ull), 0);
    CHECK_EQ(ub_builder_set_u64(b, "tokenid", 0x12345), 0);
    CHECK_EQ(ub_builder_header(b, "payload"), 0);
    CHECK_EQ(ub_builder_set_bytes(b, "data", pay, 8), 0);
    long m = ub_builder_finish(b, b2, sizeof b2, &e);
    CHECK(n > 0);
    CHECK_EQ(m, n);
    CHECK(m == n && memcmp(a, b2, (size_t)n) == 0);
    /* reuse after reset: same bytes again */
    CHECK_EQ(ub_builder_reset(b, "flit"), 0);
    CHECK_EQ(ub_builder_set_u64(b, "vl", 1), -1);            /* no header yet */
    CHECK(strstr(ub_builder_error(b), "no header") != NULL);
    CHECK_EQ(ub_builder_header(b, "no_such_table"), -1);
    CHECK(strstr(ub_builder_error(b), "unknown header table no_such_table") != NULL);
    CHECK_EQ(ub_builder_header(b, "lph"), 0);
    CHECK_EQ(ub_builder_set_u64(b, "no_such_field", 1), -1);
    CHECK_EQ(ub_builder_set(b, "vl", "not-a-number"), -1);
    CHECK_EQ(ub_builder_reset(b, "bogus"), -1);
    CHECK(strstr(ub_builder_error(b), "entry point") != NULL);
    ub_builder_free(b);
}

int main(void)
{
    ub_opts_default(&O);
    typed_api();
    const char *dir = UB_SOURCE_DIR "/captures";
    DIR *d = opendir(dir);
    CHECK(d != NULL);
    if (!d) return ub_test_finish();
    struct dirent *de;
    unsigned files = 0;
    while ((de = readdir(d))) {
        size_t l = strlen(de->d_name);
        if (l < 4 || strcmp(de->d_name + l - 3, ".ub") != 0) continue;
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
        one_spec(path, de->d_name);
        files++;
    }
    closedir(d);
    CHECK(files >= 10);
    return ub_test_finish();
}

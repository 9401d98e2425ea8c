/* Display filters (filter.h): every operator, value names, presence, repeated fields, pseudo-fields,
 * error messages with their column, and hostile / random expressions (no crash, bounded depth).
 * Matches are checked against views decoded from the bundled captures. */
#include "ubparse/capfile.h"
#include "ubparse/filter.h"
#include "ubparse/ubparse.h"
#include "ubtest.h"

#include "filter_int.h" /* ub_lit_str, ub_re_*: the literal bytes and the match limit, checked directly */

#include <stdlib.h>
#include <string.h>

#define MAXP 64
typedef struct cap {
    unsigned n;
    ub_view *v[MAXP];
    uint8_t *rec[MAXP];
    uint64_t frame[MAXP];
    uint32_t len[MAXP];
} cap;

static ub_opts O;
static cap *cur_cap;

static void add_unit(cap *c, const uint8_t *d, uint32_t n, ub_entry e, uint64_t frame)
{
    if (c->n >= MAXP) return;
    unsigned i = c->n++;
    c->rec[i] = malloc(n ? n : 1);
    memcpy(c->rec[i], d, n);
    c->v[i] = calloc(1, sizeof(ub_view));
    ub_decode(c->v[i], &O, e, c->rec[i], n);
    c->frame[i] = frame;
    c->len[i] = n;
}

static uint64_t unit_frame;
static void unit_cb(void *ctx, const uint8_t *u, uint32_t n, uint32_t flags)
{
    (void)flags;
    add_unit((cap *)ctx, u, n, UB_ENTRY_FLIT, unit_frame);
}

static cap *load(const char *name)
{
    char path[512], err[256];
    snprintf(path, sizeof path, "%s/captures/%s", UB_SOURCE_DIR, name);
    cap *c = calloc(1, sizeof *c);
    ub_capfile *cf = ub_cap_open(path, err, sizeof err);
    if (!cf) { fprintf(stderr, "%s: %s\n", path, err); CHECK(0); return c; }
    static ub_stream st[4];
    for (int i = 0; i < 4; i++) ub_stream_init(&st[i], &O);
    ub_rec r;
    while (ub_cap_next(cf, &r) == 1) {
        ub_entry e = ub_entry_for_linktype(&O, r.linktype);
        if (e == UB_ENTRY_STREAM) {
            unit_frame = r.frame;
            ub_stream_feed(&st[(r.ifindex & 1) * 2 + (r.dir == UB_DIR_IN)], r.data, r.caplen, unit_cb, c);
            continue;
        }
        add_unit(c, r.data, r.caplen, e, r.frame);
    }
    ub_cap_close(cf);
    return c;
}

static void free_cap(cap *c)
{
    for (unsigned i = 0; i < c->n; i++) { free(c->v[i]); free(c->rec[i]); }
    free(c);
}

/* frames of cur_cap matching expr, as "1,3,5"; "ERR" if it does not compile */
static const char *frames(const char *expr)
{
    static char out[512];
    char err[256];
    ub_filter *f = ub_filter_compile(expr, err, sizeof err);
    if (!f) { snprintf(out, sizeof out, "ERR %s", err); return out; }
    size_t o = 0;
    out[0] = 0;
    for (unsigned i = 0; i < cur_cap->n; i++) {
        if (!ub_filter_match_frame(f, cur_cap->v[i], cur_cap->frame[i], cur_cap->len[i])) continue;
        o += (size_t)snprintf(out + o, sizeof out - o, "%s%llu", o ? "," : "", (unsigned long long)cur_cap->frame[i]);
    }
    ub_filter_free(f);
    return out;
}

/* compile error message for expr ("" when it compiles) */
static const char *cerr(const char *expr)
{
    static char err[256];
    ub_filter *f = ub_filter_compile(expr, err, sizeof err);
    if (f) { ub_filter_free(f); return ""; }
    return err;
}

/* expr must fail to compile with an error at column col whose message contains text */
static void check_err(const char *expr, size_t col, const char *text, int line)
{
    char err[256];
    ub_filter *f = ub_filter_compile(expr, err, sizeof err);
    if (f) {
        ub_filter_free(f);
        ub_t_fail++;
        fprintf(stderr, "%s:%d: '%s' compiled, want an error\n", __FILE__, line, expr);
        return;
    }
    size_t got = ub_filter_err_column(err);
    if (got != col || !strstr(err, text)) {
        ub_t_fail++;
        fprintf(stderr, "%s:%d: error for '%s' is '%s', want column %zu and '%s'\n", __FILE__, line, expr, err, col, text);
        return;
    }
    ub_t_pass++;
}
#define CHECK_ERR(expr, col, text) check_err(expr, col, text, __LINE__)

static uint64_t rng = 0x9e3779b97f4a7c15ull;
static unsigned rnd(unsigned n)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (unsigned)(rng % n);
}

/* the bytes of a string token as ub_lit_str reads it, as hex ("ERR" on an escape error) */
static const char *lit_hex(const char *tok)
{
    static char out[128];
    lit L;
    ub_lit_str(tok, strlen(tok), &L);
    out[0] = 0;
    if (L.esc_err >= 0) return "ERR";
    for (uint32_t i = 0; i < L.nstr && i < 60; i++) snprintf(out + 2 * i, 3, "%02x", (uint8_t)L.str[i]);
    return out;
}

/* ub_re_match of pattern on subject (whole strings) */
static bool re_match(const char *pattern, const char *subject)
{
    char err[200];
    size_t off;
    ub_re *re = ub_re_compile((const uint8_t *)pattern, strlen(pattern), err, sizeof err, &off);
    if (!re) return false;
    bool m = ub_re_match(re, (const uint8_t *)subject, strlen(subject));
    ub_re_free(re);
    return m;
}

static void test_literals_and_limits(void)
{
    /* escapes to bytes (filter_lit.c) */
    CHECK_STR(lit_hex("\"\\u00e9\\U0010FFFF\\u0024\""), "c3a9f48fbfbf24");
    CHECK_STR(lit_hex("\"\\x2\\x41\\101\\0\\377\""), "02414100ff");
    CHECK_STR(lit_hex("\"\\a\\b\\f\\n\\r\\t\\v\\\\\\\"\\'\""), "07080c0a0d090b5c2227");
    CHECK_STR(lit_hex("r\"\\d\\\"\""), "5c645c22"); /* raw: \d\" as written */
    CHECK_STR(lit_hex("\"\\q\""), "ERR");
    /* PCRE2's match limit (filter_re.c): the first branch backtracks 2^40 ways on 40 a's and a b, so the
     * match stops at the limit and counts as no match, although the second branch matches; on 10 a's
     * the first branch fails within the limit and the second matches */
    char s[64];
    memset(s, 'a', 40);
    strcpy(s + 40, "b");
    CHECK(!re_match("^(?:a|a)+$|^a+b$", s));
    strcpy(s + 10, "b");
    CHECK(re_match("^(?:a|a)+$|^a+b$", s));
    CHECK(re_match("^A+B$", s)); /* case-insensitive */
    CHECK(!re_match("(?-i)^A+B$", s));
}

int main(void)
{
    test_literals_and_limits();
    ub_opts_default(&O);

    /* ---- CFG 9 coherent: Write, TAACK, Read, Read_response, Write_with_be, TAACK, Prefetch_tgt */
    cap *c9 = load("cfg9_coherent.pcapng");
    cur_cap = c9;
    CHECK_EQ(c9->n, 7);
    CHECK_STR(frames("ub.btah.taopcode == \"Read\""), "3");
    CHECK_STR(frames("ub.btah.taopcode == \"read\""), "3"); /* value names: case-insensitive fallback */
    CHECK_STR(frames("ub.btah.taopcode == 6"), "3");
    CHECK_STR(frames("ub.btah.taopcode == 0x06"), "3");
    CHECK_STR(frames("ub.btah.taopcode eq 0x6"), "3");
    CHECK_STR(frames("ub.atah.taopcode == \"TAACK\""), "2,6");
    CHECK_STR(frames("ub.atah.taopcode == \"Read_response\""), "4");
    CHECK_STR(frames("ub.btah.ini_tassn >= 3"), "5,7");
    CHECK_STR(frames("ub.btah.ini_tassn ge 3"), "5,7");
    CHECK_STR(frames("ub.btah.ini_tassn > 3"), "7");
    CHECK_STR(frames("ub.btah.ini_tassn gt 3"), "7");
    CHECK_STR(frames("ub.btah.ini_tassn < 2"), "1");
    CHECK_STR(frames("ub.btah.ini_tassn lt 2"), "1");
    CHECK_STR(frames("ub.btah.ini_tassn <= 2"), "1,3");
    CHECK_STR(frames("ub.btah.ini_tassn le 2"), "1,3");
    CHECK_STR(frames("ub.btah.ini_tassn != 1"), "3,5,7");   /* absent field: false */
    CHECK_STR(frames("ub.btah.ini_tassn ne 1"), "3,5,7");
    CHECK_STR(frames("!(ub.btah.ini_tassn == 1)"), "2,3,4,5,6,7");
    CHECK_STR(frames("not ub.btah.ini_tassn == 1"), "2,3,4,5,6,7");
    CHECK_STR(frames("ub.btah"), "1,3,5,7");                /* header presence (full/compact share it) */
    CHECK_STR(frames("ub.atah"), "2,4,6");
    CHECK_STR(frames("ub.beetah"), "5");
    CHECK_STR(frames("ub.maetah.length"), "1,3,5,7");       /* field presence */
    CHECK_STR(frames("ub.icrc"), "");                        /* CFG 9 has no ICRC */
    CHECK_STR(frames("ub.btah && ub.lph.vl == 1"), "3");
    CHECK_STR(frames("ub.btah and ub.lph.vl == 1"), "3");
    CHECK_STR(frames("ub.lph.vl == 1 || ub.atah.taopcode == \"TAACK\""), "2,3,4,6");
    CHECK_STR(frames("ub.lph.vl == 1 or ub.atah.taopcode == \"TAACK\""), "2,3,4,6");
    CHECK_STR(frames("not ub.btah and ub.lph.vl eq 0"), "2,6");
    CHECK_STR(frames("!ub.btah && !!ub.atah"), "2,4,6");
    CHECK_STR(frames("ub.nth.scna == 0x0304"), "2,4,6");
    CHECK_STR(frames("ub.nth.scna == 772"), "2,4,6");
    CHECK_STR(frames("(ub.lph.vl == 0 || ub.lph.vl == 1) && (ub.btah.ini_tassn == 4 || ub.atah.ini_tassn == 2)"), "4,7");
    CHECK_STR(frames("ub.lph.vl == 0 && ub.btah || ub.atah"), "1,2,4,5,6,7"); /* && binds tighter */
    CHECK_STR(frames("ub.lph.vl == 0 && (ub.btah || ub.atah)"), "1,2,5,6,7");
    CHECK_STR(frames("ub.maetah.address == 0x0000100000001000"), "3");
    CHECK_STR(frames("ub.maetah.address > 0x100000001000"), "5,7");
    CHECK_STR(frames("ub.error"), "");
    CHECK_STR(frames("ub"), "1,2,3,4,5,6,7");
    CHECK_STR(frames("frame.number > 3 && frame.number <= 5"), "4,5");
    CHECK_STR(frames("frame.len == 40"), "3,7");
    CHECK_STR(frames("ub.lph.cfg == \"Coherent (TP bypass)\""), "1,2,3,4,5,6,7");
    CHECK_STR(frames("ub.btah.taopcode === \"Write\""), "1");
    CHECK_STR(frames("ub.btah.taopcode !== \"Write\""), "3,5,7");
    CHECK_STR(frames("ub.btah.taopcode ~= \"Write\""), "3,5,7");
    CHECK_STR(frames("ub.btah.taopcode any_ne 3 && ub.btah.taopcode all_eq 6"), "3");
    CHECK_STR(frames("  ub.btah.taopcode==\"Read\"  "), "3");
    {   /* without frame info, frame.* is absent */
        ub_filter *f = ub_filter_compile("frame.number >= 0", NULL, 0);
        CHECK(f != NULL);
        CHECK(!ub_filter_match(f, c9->v[0]));
        CHECK(ub_filter_match_frame(f, c9->v[0], 1, 100));
        ub_filter_free(f);
        f = ub_filter_compile("ub.btah.taopcode == \"Write\"", NULL, 0);
        CHECK(ub_filter_match(f, c9->v[0]));
        CHECK(!ub_filter_match(f, c9->v[1]));
        CHECK(!ub_filter_match(NULL, c9->v[0]));
        ub_filter_free(f);
    }

    /* ---- CFG 7 RTP with ICRC */
    cap *c7 = load("cfg7_rtp.pcapng");
    cur_cap = c7;
    CHECK_STR(frames("ub.rtph.psn == 18"), "3,5,6");
    CHECK_STR(frames("ub.rtph.psn == 0x12 && ub.rtph.tpopcode == 5"), "5");
    CHECK_STR(frames("ub.icrc.status == \"Good\""), "1,2,3,4,5,6,7,8,9,10");
    CHECK_STR(frames("ub.icrc.status == \"Bad\""), "");
    CHECK_STR(frames("ub.icrc.status == 1"), "1,2,3,4,5,6,7,8,9,10");
    CHECK_STR(frames("ub.rtph"), "1,2,3,4,5,6,7");
    CHECK_STR(frames("ub.rtph.psn"), "1,2,3,4,5,6,7");
    CHECK_STR(frames("!ub.rtph"), "8,9,10");

    /* ---- malformed samples: ub.error and CRC status rows */
    cap *cm = load("malformed.pcapng");
    cur_cap = cm;
    CHECK_STR(frames("ub.error"), "1,2,3,4,5,6,7,8,9,10");
    CHECK_STR(frames("ub.error == \"bcrc_bad\""), "1,4,9");
    CHECK_STR(frames("ub.error == \"BCRC_BAD\""), "1,4,9");
    CHECK_STR(frames("ub.error == \"bcrc_bad\" && ub.error == \"unknown_cfg\""), "4");
    CHECK_STR(frames("ub.error != \"bcrc_bad\""), "2,3,5,6,7,8,10");     /* all errors differ */
    CHECK_STR(frames("ub.error !== \"bcrc_bad\""), "2,3,4,5,6,7,8,9,10"); /* some error differs */
    CHECK_STR(frames("ub.error === \"bcrc_bad\""), "1");
    CHECK_STR(frames("ub.bcrc.status == \"Bad\""), "1,4,9");
    CHECK_STR(frames("ub.icrc.status == \"Bad\""), "2");
    CHECK_STR(frames("ub.error == \"icrc_bad\" || ub.error == \"reserved_bits\""), "2,10");
    CHECK_STR(frames("!ub.error"), "");

    /* ---- repeated fields: URPC DMA entries 4096 and 8192 in frame 1 */
    cap *cu = load("urpc.pcapng");
    cur_cap = cu;
    CHECK_STR(frames("ub.urpc_dma.size == 8192"), "1");
    CHECK_STR(frames("ub.urpc_dma.size == 4096"), "1");
    CHECK_STR(frames("ub.urpc_dma.size != 4096"), "");  /* one occurrence equals */
    CHECK_STR(frames("ub.urpc_dma.size !== 4096"), "1"); /* another one differs */
    CHECK_STR(frames("ub.urpc_dma.size === 4096"), "");
    CHECK_STR(frames("ub.urpc_dma.size > 5000"), "1");
    CHECK_STR(frames("ub.urpc_dma.size < 4096"), "");

    /* ---- addresses and byte strings (UBoE) */
    cap *ce = load("uboe.pcapng");
    cur_cap = ce;
    CHECK_STR(frames("ub.ipv4.src == 192.168.1.2"), "2");
    CHECK_STR(frames("ub.ipv4.src >= 192.168.1.1"), "1,2");
    CHECK_STR(frames("ub.ipv6.src == fd00::1"), "3");
    CHECK_STR(frames("ub.ipv6.src != fd00::2"), "3");
    CHECK_STR(frames("ipv6.src == fd00:0:0:0:0:0:0:1"), "3"); /* uncompressed form too */
    CHECK_STR(frames("ipv6.src == FD00:0000::0001"), "3");
    CHECK_STR(frames("ub.eth.src == 02:00:00:00:00:01"), "1,3");
    CHECK_STR(frames("ub.eth.src == 02-00-00-00-00-02"), "2");
    CHECK_STR(frames("ub.ipv4 || ub.ipv6"), "1,2,3");
    /* Wireshark's outer-header names, operators (issue #10 item 2; tshark parity: t_filter_parity.sh) */
    CHECK_STR(frames("ip.src == 192.168.1.2"), "2");
    CHECK_STR(frames("ip.addr == 192.168.1.0/24"), "1,2");
    CHECK_STR(frames("ip.addr == 192.168.1.2/32"), "1,2"); /* src or dst */
    CHECK_STR(frames("ip.src != 192.168.1.0/30"), "");
    CHECK_STR(frames("ipv6.addr == fd00::/16"), "3");
    CHECK_STR(frames("eth.addr == 02:00:00:00:00:02"), "1,2,3");
    CHECK_STR(frames("eth.src[5] == 02"), "2");
    CHECK_STR(frames("eth.src[-1:] == 01"), "1,3");
    CHECK_STR(frames("eth.src[4-5] == 00:01"), "1,3");
    CHECK_STR(frames("eth.src[0:2] == 02:00 && eth.src[6:1] == 00"), ""); /* beyond the value: false */
    CHECK_STR(frames("eth.src contains 00:02"), "2");
    CHECK_STR(frames("vlan.id in {99, 100..101}"), "1,2");
    CHECK_STR(frames("udp.srcport in {51000, 51002}"), "1,3");
    /* Wireshark 4.0's "not in" (also "!in", "! in"): !(f in {...}), so frames without the field too */
    CHECK_STR(frames("udp.srcport not in {51000, 51002}"), "2");
    CHECK_STR(frames("vlan.id not in {100..101}"), "3");                /* frame 3 has no VLAN */
    CHECK_STR(frames("udp.srcport !in {51000} && not vlan.id ! in {100}"), "2");
    CHECK_STR(frames("not udp.srcport not in {51000}"), "1");
    CHECK_STR(frames("udp.srcport not in {51000} or frame.number == 1"), "1,2,3");
    CHECK_STR(frames("udp.srcport & 0x1"), "2");
    CHECK_STR(frames("udp.srcport & 0x3 == 2"), "3");
    CHECK_STR(frames("ip xor eth.src == 02:00:00:00:00:01"), "2,3");
    CHECK_STR(frames("ip ^^ ip"), "");
    CHECK_STR(frames("frame.len > 100 and frame.number in {1..2}"), "1");
    CHECK_STR(frames("frame[0:2] == 02:00"), "1,2,3");
    CHECK_STR(frames("frame matches \"^\\x02\""), "1,2,3");
    CHECK_STR(frames("ub.payload.data matches \"[0-9A-F]\""), "1"); /* case-insensitive */
    CHECK_STR(frames("frame matches \"^\\\\x02\\\\x00\""), "1,2,3");          /* PCRE's own \xhh */
    CHECK_STR(frames("frame matches \"^\\x02\\x00\""), "1,2,3");              /* a NUL byte in the pattern */
    CHECK_STR(frames("frame matches \"^\\\\D\\\\x00\""), "1,2,3");               /* \D: not a digit (not a 'D') */
    CHECK_STR(frames("frame matches \"^[\\\\x00-\\\\x03]{2}\""), "1,2,3");
    CHECK_STR(frames("frame matches \"^(.)(\\\\x00)\\\\2\""), "1,2,3");      /* 02 00 00: a back-reference */
    /* string escapes as Wireshark 4.0's: \a..\v, \xh, \xhh, octal, \u/\U as UTF-8; others are errors */
    CHECK_STR(frames("frame[0:3] == \"\\x2\\0\\000\""), "1,2,3");
    CHECK_STR(frames("frame[0:3] == \"\\2\\x00\\00\""), "1,2,3");
    CHECK(cerr("frame contains \"\\a\\b\\f\\n\\r\\t\\v\\\\\\\"\\'\\u0024\\U0010FFFF\\377\"")[0] == 0);
    CHECK_ERR("frame contains \"ab\\d\"", 19, "\\d is not a valid character escape sequence");
    CHECK_ERR("frame matches \"\\.\"", 16, "\\. is not a valid character escape sequence"); /* PCRE2's \. is "\\." */
    CHECK_ERR("frame contains \"\\x\"", 17, "\\x is not a valid");
    CHECK_ERR("frame contains \"\\400\"", 17, "\\400 is larger than 255");
    CHECK_ERR("frame contains \"\\u0041\"", 17, "\\u0041 is not a valid universal character name");
    CHECK_ERR("frame contains \"\\ud800\"", 17, "not a valid universal character name");
    CHECK_ERR("frame contains \"\\U00110000\"", 17, "not a valid universal character name");
    CHECK_ERR("frame contains \"\\u12\"", 17, "\\u12 is not a valid universal character name");
    /* raw strings r"..." / R"...": backslashes kept (for PCRE2), \" does not end them */
    CHECK_STR(frames("frame matches r\"^\\x02\\x00\\x00\""), "1,2,3");
    CHECK_STR(frames("frame contains R\"\\x02\""), "");               /* the 4 characters \ x 0 2 */
    CHECK(cerr("frame matches r\"a\\\"b\"")[0] == 0);                /* r"a\"b": the pattern a\"b */
    CHECK_ERR("frame matches r\"\\\"", 15, "expected a value");       /* r"\": no closing quote */
    /* numbers: a leading 0 is octal, 0b binary (Wireshark 4.0) */
    CHECK_STR(frames("frame.number == 03 && frame.number == 0b11 && frame.number == 0x3"), "3");
    CHECK_STR(frames("frame.number in {010, 0b1, 02}"), "1,2");
    CHECK_ERR("frame.number == 0b12", 17, "not a number");
    CHECK_ERR("frame.number == 09", 17, "frame.number compares with a number");
    /* patterns that backtrack a lot on these frames: evaluated, no match */
    CHECK_STR(frames("frame matches \"^(.|..)*\\\\1x$\""), "");
    CHECK_STR(frames("frame matches \"(.*)(.*)(.*)\\\\3\\\\2\\\\1\\\\xff\\\\xfe\\\\xfd\""), "");
    CHECK_STR(frames("ub.ipv4.src == 192.168.1.2 && !ip.src"), ""); /* UBoE: the same header */

    /* ---- raw flit stream: units decoded across records */
    cap *cs = load("stream.pcapng");
    cur_cap = cs;
    CHECK(cs->n > 0);
    CHECK(strncmp(frames("ub.lph || ub.lch"), "ERR", 3) != 0);

    /* ---- compile errors with their column */
    CHECK_ERR("", 1, "empty");
    CHECK_ERR("   ", 1, "empty");
    CHECK_ERR("ub.foo.bar", 1, "unknown field 'ub.foo.bar'");
    CHECK_ERR("ub.btah && ub.nope", 12, "unknown field 'ub.nope'");
    CHECK_ERR("ub.btah.taopcode == ", 21, "missing value");
    CHECK_ERR("ub.btah.taopcode == \"Reed\"", 21, "not a value name of 'ub.btah.taopcode'");
    /* tshark's limits: a literal above the field's FT_UINTn maximum is refused, named fields say so */
    CHECK_ERR("ub.btah.ini_tassn < 1000000", 21, "\"1000000\" too big for this field, maximum 65535.");
    CHECK_ERR("ub.btah.ini_tassn in {1, 70000}", 26, "\"70000\" too big for this field, maximum 65535.");
    CHECK_ERR("ub.btah.ini_tassn in {1..0x10000}", 26, "\"0x10000\" too big for this field, maximum 65535.");
    CHECK_ERR("ub.lph.cfg == 300", 15, "\"300\" cannot be found among the possible values for ub.lph.cfg.");
    CHECK(strcmp(cerr("ub.btah.ini_tassn == 65535 || ub.lph.cfg == 255"), "") == 0);
    CHECK(strcmp(cerr("ub.maetah.address == 0xffffffffffffffff"), "") == 0);
    CHECK_ERR("ub.btah.taopcode == Read", 21, "value names go in quotes");
    CHECK_ERR("ub.btah.ini_tassn == \"x\"", 22, "no value names");
    CHECK_ERR("(ub.btah", 9, "missing ')'");
    CHECK_ERR("ub.btah )", 9, "unbalanced ')'");
    CHECK_ERR("ub.btah & ub.atah", 9, "use '&&'");
    CHECK_ERR("ub.btah | ub.atah", 9, "use '||'");
    CHECK_ERR("ub.btah.taopcode = 3", 18, "use '=='");
    CHECK_ERR("ub.btah == 3", 9, "is a header");
    CHECK_ERR("3 == ub.btah", 1, "must be a field or a function, not a value");
    CHECK_ERR("ub.error == 5", 13, "quoted error name");
    CHECK_ERR("ub.error == \"no_such_error\"", 13, "unknown error name");
    CHECK_ERR("ub.error > \"bcrc_bad\"", 10, "supports ==");
    CHECK_ERR("ub.btah.taopcode == \"Read", 21, "");  /* unterminated string: rejected */
    CHECK(cerr("ub.btah.taopcode == \"Read")[0] != 0);
    CHECK_ERR("ub.btah &&", 11, "unexpected end");
    CHECK_ERR("&& ub.btah", 1, "without an operand");
    CHECK_ERR("ub.btah ub.atah", 9, "expected '&&', '||'");
    CHECK_ERR("ub.btah.taopcode == 3 == 4", 23, "comparison operator after");
    CHECK_ERR("== 3", 1, "without a field");
    CHECK_ERR("()", 2, "empty parentheses");
    CHECK_ERR("ub.btah.taopcode == 0x1ffffffffffffffff1", 21, "");
    CHECK_ERR("ub.btah.taopcode == 99999999999999999999999", 21, "");
    CHECK_ERR("ub.ipv6.src == 5", 16, "byte string");
    CHECK_ERR("frame.number == \"x\"", 17, "number");
    CHECK_ERR("ub.btah $", 9, "");
    CHECK_ERR("ub == 1", 4, "presence");
    CHECK_ERR("ub.lph.cfg[0] == 03", 11, "cannot be sliced");
    CHECK_ERR("ub.btah[0:2] == 00:00", 8, "cannot be sliced");
    CHECK_ERR("eth.src[0:x] == 02", 9, "bad slice");
    CHECK_ERR("eth.src[0:2 == 02", 13, "missing ']'");
    CHECK_ERR("ub.lph.cfg in 3", 15, "expected '{'");
    CHECK_ERR("ub.lph.cfg in {3", 17, "missing '}'");
    CHECK_ERR("ub.lph.cfg in {}", 16, "empty set");
    CHECK_ERR("ub.lph.cfg in {3..x}", 16, "lo..hi");
    CHECK_ERR("ub.lph.cfg in {3 5}", 18, "expected ',' or '}' after a set element"); /* commas, as Wireshark 4.0 */
    CHECK_ERR("ub.lph.cfg in {3, 4 .. 5 6}", 26, "expected ',' or '}'");
    CHECK_ERR("ub.lph.cfg in {3,}", 18, "expected a value after ','");
    CHECK_ERR("ub.lph.cfg in {3,,5}", 18, "expected a value after ','");
    CHECK_ERR("ub.lph.cfg in {,3}", 16, "expected a value or '}' in the set");
    CHECK_ERR("ub.lph.cfg not in {3 5}", 22, "expected ',' or '}'");
    CHECK_ERR("ub.lph.cfg not 3", 12, "expected '&&', '||' or the end of the expression, found 'not'");
    CHECK_ERR("eth.src[0:1] in {02, 03}", 14, "only a field may be tested for membership");
    CHECK_ERR("frame[0] not in {02}", 14, "only a field may be tested for membership");
    CHECK_ERR("ub.lph.cfg contains 03", 12, "cannot be searched");
    CHECK_ERR("ip.src contains 0a", 8, "cannot be searched");
    CHECK_ERR("eth.src matches 02", 17, "quoted regular expression");
    /* `matches` is PCRE2 as in Wireshark 4.0 (filter_re.c): its errors with the pattern offset */
    CHECK_ERR("frame matches \"(\"", 15, "bad regular expression: missing closing parenthesis (at character 1 ");
    CHECK_ERR("frame matches \"a+++\"", 15, "quantifier does not follow a repeatable item (at character 3 ");
    CHECK_ERR("frame matches \"x[\"", 15, "missing terminating ] for character class (at character 2 ");
    CHECK_ERR("frame matches \"(*UTF)x\"", 15, "using UTF is disabled by the application"); /* bytes, never UTF-8 */
    CHECK(cerr("frame matches \"a++b*+c?+\"")[0] == 0);              /* possessive quantifiers */
    CHECK(cerr("frame matches \"a.*?b.+?c\"")[0] == 0);              /* lazy */
    CHECK(cerr("frame matches \"(ab)\\\\1(?=x)(?<!y)\"")[0] == 0); /* back-reference, look-around */
    /* what glibc's regcomp/regexec could not take in bounded time or memory (fuzz_filter's inputs, the
     * expressions filter_re.c had to refuse) compile, and every match is bounded by PCRE2's limits */
    CHECK(cerr("frame matches \"a+++++++++++++++++++\"")[0] != 0);    /* an error at once, as Wireshark's */
    CHECK(cerr("frame matches \"((a*)?){22}\"")[0] == 0);
    CHECK(cerr("frame matches \"((a?){,20}){20,}\"")[0] == 0);
    CHECK(cerr("frame matches \"(a?){3000}\"")[0] == 0);
    CHECK(cerr("frame matches \"((a*|b*|c*|d*|e*|f*|g*|h*)+){27}\"")[0] == 0);
    CHECK_ERR("ub.lph.cfg & x", 12, "use '&&'");
    CHECK_ERR("ub.lph.cfg & 0x8 & 1", 18, "'&' (bitwise and) must follow");
    CHECK_ERR("ip.src < 10.0.0.0/8", 8, "prefix compares with == or !=");
    CHECK_ERR("frame.time_delta > x", 20, "seconds");
    CHECK_ERR("ub.analysis.rule == \"UB-NOPE-1\"", 21, "unknown rule");
    CHECK_ERR("ub.analysis.retransmission == 1", 28, "presence");
    CHECK_ERR("in {1}", 1, "'in' must follow a field");

    /* ---- depth and size limits */
    {
        char buf[4096];
        size_t o = 0;
        for (int i = 0; i < UB_FILTER_MAX_DEPTH; i++) buf[o++] = '(';
        o += (size_t)sprintf(buf + o, "ub.btah");
        for (int i = 0; i < UB_FILTER_MAX_DEPTH; i++) buf[o++] = ')';
        buf[o] = 0;
        cur_cap = c9;
        CHECK_STR(frames(buf), "1,3,5,7");
        o = 0;
        for (int i = 0; i < UB_FILTER_MAX_DEPTH + 1; i++) buf[o++] = '(';
        o += (size_t)sprintf(buf + o, "ub.btah");
        for (int i = 0; i < UB_FILTER_MAX_DEPTH + 1; i++) buf[o++] = ')';
        buf[o] = 0;
        CHECK(strstr(cerr(buf), "nested too deeply") != NULL);
        o = 0;
        for (int i = 0; i < 63; i++) buf[o++] = '!';
        o += (size_t)sprintf(buf + o, "ub.btah");
        buf[o] = 0;
        CHECK_STR(frames(buf), "2,4,6");
        o = 0;
        for (int i = 0; i < 1000; i++) buf[o++] = '!';
        o += (size_t)sprintf(buf + o, "ub.btah");
        buf[o] = 0;
        CHECK(strstr(cerr(buf), "too many negations") != NULL);
    }
    {   /* long flat chains compile to a flat program (no recursion while matching) */
        size_t cap_ = 200000, o = 0;
        char *big = malloc(cap_);
        for (int i = 0; i < 5000 && o + 64 < cap_; i++) o += (size_t)sprintf(big + o, "%sub.btah.ini_tassn == %d", i ? " || " : "", 1000 + i);
        o += (size_t)sprintf(big + o, " || ub.btah.ini_tassn == 4");
        big[o] = 0;
        CHECK(o > UB_FILTER_MAX_LEN);
        CHECK(strstr(cerr(big), "longer than") != NULL);
        o = 0;
        for (int i = 0; i < 1500; i++) o += (size_t)sprintf(big + o, "%sub.btah.ini_tassn == %d", i ? " || " : "", 1000 + i);
        o += (size_t)sprintf(big + o, " || ub.btah.ini_tassn == 4");
        big[o] = 0;
        CHECK_STR(frames(big), "7");
        o = 0;
        for (int i = 0; i < 1500; i++) o += (size_t)sprintf(big + o, "%sub.btah", i ? " && " : "");
        big[o] = 0;
        CHECK_STR(frames(big), "1,3,5,7");
        for (int i = 0; i < 1500; i++) o += (size_t)sprintf(big + o, " && ub.atah");
        big[o] = 0;
        CHECK_STR(frames(big), "");
        free(big);
    }

    /* ---- garbage: random token soup and random bytes must compile or fail cleanly */
    {
        static const char *toks[] = { "ub.btah", "ub.btah.taopcode", "ub.error", "ub.icrc.status", "ub.rtph.psn",
                                      "frame.number", "ub", "(", ")", "!", "not", "&&", "and", "||", "or", "==",
                                      "!=", "<", "<=", ">", ">=", "===", "!==", "~=", "eq", "5", "0x10", "\"Read\"",
                                      "\"bcrc_bad\"", "\"Bad\"", "aa:bb", "1.2.3.4", "::1", "\"", "&", "|", "=",
                                      "ub.nope", "0x", "-", ":", "\\", "\"\\\"", "ub..", "999999999999999999999" };
        unsigned ntok = sizeof toks / sizeof toks[0], compiled = 0;
        char buf[1024];
        ub_view *all[3 * MAXP];
        unsigned nall = 0;
        cap *caps[] = { c9, c7, cm, cu, ce, cs };
        for (unsigned k = 0; k < sizeof caps / sizeof caps[0]; k++)
            for (unsigned i = 0; i < caps[k]->n && nall < 3 * MAXP; i++) all[nall++] = caps[k]->v[i];
        for (int it = 0; it < 30000; it++) {
            size_t o = 0;
            unsigned nt = 1 + rnd(12);
            for (unsigned i = 0; i < nt && o + 40 < sizeof buf; i++) {
                if (rnd(5) == 0) { buf[o++] = (char)(1 + rnd(255)); continue; }
                o += (size_t)snprintf(buf + o, sizeof buf - o, "%s%s", rnd(3) ? " " : "", toks[rnd(ntok)]);
            }
            buf[o] = 0;
            char err[128];
            ub_filter *f = ub_filter_compile(buf, err, sizeof err);
            if (f) {
                compiled++;
                for (unsigned i = 0; i < nall; i++) (void)ub_filter_match_frame(f, all[i], i + 1, 64);
                ub_filter_free(f);
            } else {
                if (err[0] == 0 || ub_filter_err_column(err) == 0 || ub_filter_err_column(err) > o + 1) {
                    ub_t_fail++;
                    fprintf(stderr, "bad error message for '%s': '%s'\n", buf, err);
                }
            }
        }
        CHECK(compiled > 100);
        /* tiny error buffers are fine */
        char tiny[4];
        CHECK(ub_filter_compile("ub.nope", tiny, sizeof tiny) == NULL);
        CHECK(strlen(tiny) < sizeof tiny);
        CHECK(ub_filter_compile("ub.nope", NULL, 0) == NULL);
        CHECK(ub_filter_compile(NULL, tiny, sizeof tiny) == NULL);
    }
    { /* filters judged one packet at a time refuse what only ubdump's whole-capture pass has */
        char e[200] = "";
        CHECK(ub_filter_compile_live("ub.analysis.retransmission", e, sizeof e) == NULL);
        CHECK_STR(e, "ub.analysis.* needs the state engine's pass over the whole capture (ubdump -Y); not available in this filter");
        CHECK(ub_filter_compile_live("ub.rtph && frame.time_relative > 1", e, sizeof e) == NULL);
        CHECK_STR(e, "frame.time_* fields are not available in this filter (ubdump -Y has them)");
        ub_filter *f = ub_filter_compile_live("ub.rtph.psn == 3 && frame.number > 1", e, sizeof e);
        CHECK(f != NULL);
        ub_filter_free(f);
    }

    /* ---- Wireshark 4.0's value expressions (filter_expr.c, filter_gen.c): each result checked
     * against tshark 4.0.17 with the plugin on this capture */
    CHECK_STR(frames("len(ub.payload.data) == 64"), "1,5");
    CHECK_STR(frames("len(ub.nth.scna) == 2"), "1,2,3,4,5,6,7");      /* a number: its field's size */
    CHECK_STR(frames("len(frame) == frame.len"), "1,2,3,4,5,6,7");
    CHECK_STR(frames("count(ub.btah) == 1"), "1,3,5,7");
    CHECK_STR(frames("count(ub.atah) == 0"), "");                    /* no occurrence: no value */
    CHECK_STR(frames("ub.nth.scna > ub.nth.dcna"), "2,4,6");
    CHECK_STR(frames("ub.nth.scna == ub.nth.dcna"), "");
    CHECK_STR(frames("ub.btah.ini_tassn ~= frame.number"), "3,5,7");
    CHECK_STR(frames("ub.btah.ini_tassn != ub.btah.ini_tassn"), "");
    CHECK_STR(frames("ub.payload.data[0:4] == frame[16:4]"), "4");
    CHECK_STR(frames("ub.btah.ini_tassn * 2 - 1 == 5"), "5");
    CHECK_STR(frames("ub.btah.ini_tassn - 2 < 0"), "1");              /* below zero: signed */
    CHECK_STR(frames("ub.btah.ini_tassn / 2 == 1"), "3,5");
    CHECK_STR(frames("ub.btah.ini_tassn % 2 == 1"), "1,5");
    CHECK_STR(frames("ub.btah.ini_tassn / 0 == 0"), "");              /* division by zero: no value */
    CHECK_STR(frames("-ub.btah.ini_tassn == -4"), "7");
    CHECK_STR(frames("ub.btah.ini_tassn + 0xffff > 0"), "1,3,5,7");
    CHECK_STR(frames("frame.len * 0x2000000 > 0"), "1,2,3,5,6,7");    /* 160 * 2^25 leaves 32 bits: no value */
    CHECK_STR(frames("frame.len == 'd'"), "1");
    CHECK_STR(frames("frame[0] == '\\000' && !(frame[0] == '\\x09') && ub.lph.cfg == '\\t'"), "1,2,3,4,5,6,7"); /* a byte; a number */
    CHECK_STR(frames("string(ub.btah.ini_tassn) == \"3\""), "5");
    CHECK_STR(frames("string(ub.nth.scna) == \"772\""), "2,4,6");      /* decimal, as Wireshark's */
    CHECK_STR(frames("string(ub.btah.ini_tassn) contains \"2\" || string(ub.atah.taopcode) matches \"^1[78]$\""), "2,3,4,6");
    CHECK_STR(frames("max(frame.len, frame.cap_len) == 160"), "4");
    CHECK_STR(frames("min(frame.len, frame.cap_len) == 20"), "2,6");
    CHECK_STR(frames("abs(ub.btah.ini_tassn - 3) == 2"), "1");
    CHECK_STR(frames("ub.btah.ini_tassn + frame.number == 3 || frame.len - 100 == 60"), "4");
    CHECK_STR(frames("{frame.len + 20} / 2 == 60 || frame.len == {ub.btah.ini_tassn * 10 + 10}"), "1");
    CHECK_STR(frames("frame.len in {ub.btah.ini_tassn, 100, len(ub.payload.data)}"), "1");
    CHECK_STR(frames("ub.btah.ini_tassn in {frame.number, 4}"), "1,7");
    CHECK_ERR("frame.len in {frame.number + 1}", 28, "expected ',' or '}' after a set element"); /* no arithmetic */
    CHECK_ERR("frame.len in {ub.nosuch}", 15, "unknown field 'ub.nosuch'");
    CHECK_STR(frames("ub.btah.ini_tassn in {2 .. 3, 4.. 4}"), "3,5,7");        /* ranges written with spaces */
    CHECK_STR(frames("ub.btah.ini_tassn in {frame.number .. 4}"), "1");       /* frame 1: 1 <= 1 <= 4; 3: 3 > 2 */
    CHECK_STR(frames("frame.len in {len(ub.payload.data) .. 100, 160}"), "1,4");
    CHECK_ERR("ub.btah.ini_tassn in {1 .. }", 28, "expected a field, a value or a function");
    CHECK_ERR("max(frame.len, ub.btah.ini_tassn) > 1", 16, "arguments to 'max' must have the same type");
    CHECK_ERR("frame.len == ${frame.len}", 14, "field references ${...} name the packet selected");
    CHECK_ERR("frame.len + ${frame.len} == 2", 13, "field references ${...}");
    CHECK_ERR("{frame.len + 1 == 2", 16, "expected '}' to close the group opened at column 1");
    CHECK_ERR("upper(ub.btah.ini_tassn) == \"A\"", 7, "only string type fields can be used as parameter for upper()");
    CHECK_ERR("len(upper(ub.analysis.rule)) == 1", 5, "only fields can be used as parameter for len()");
    CHECK_ERR("count(frame.len + 1) == 1", 17, "only fields can be used as parameter for count()");
    CHECK_ERR("len(ub.btah)", 1, "must be compared with a value");
    CHECK_ERR("122 == frame.len", 1, "the left side of '==' must be a field or a function");
    CHECK_ERR("1 + frame.len == 2", 1, "must not start with a value");
    CHECK_ERR("frame.len + \"a\" == 1", 13, "expected a number");
    CHECK_ERR("ub.btah == ub.atah", 1, "has no value to compare");
    CHECK_ERR("frame.len == 'zz'", 14, "'zz' is not a valid character constant");
    CHECK_ERR("ub.btah.ini_tassn * 0x100000000 > 0", 21, "too big for this field");
    CHECK_ERR("frame.len == 0x100000000", 14, "too big for this field, maximum 4294967295.");
    CHECK_ERR("abs(ub.analysis.rule) == 1", 5, "abs() applies to numbers");
    CHECK_ERR("len(frame[0:4]) > 1", 5, "only fields can be used as parameter for len()");
    CHECK_ERR("upper(frame.protocols[0:2]) == \"UB\"", 7, "only string type fields can be used as parameter for upper()");
    CHECK_ERR("string(frame) == \"a\"", 8, "string conversion of 'frame' is not supported");
    CHECK_ERR("string(ub.payload.data) contains \"00\"", 8, "string conversion of 'ub.payload.data'");
    CHECK_STR(frames("frame.len -1 == 99 || frame.len-20 == 20"), "ERR column 23: unknown field 'frame.len-20' (ubdump -G fields lists them)");
    CHECK_STR(frames("frame.len -1 == 99 || frame.len - 20 == 20"), "1,3,7");
    CHECK_STR(frames("frame.len - -20 == 60 || frame.len > -1 || frame.len == -1 || ub.btah.ini_tassn * -1 == -1"), "");
    CHECK_STR(frames("frame.len != -1"), "1,2,3,4,5,6,7");
    CHECK_STR(frames("ub.btah.ini_tassn - 3 > -2"), "3");          /* tassn 1..4: -2 > -2 no, -1 yes, 0 (unsigned) no */
    CHECK_STR(frames("ub.btah.ini_tassn ~= -5"), "");
    CHECK_STR(frames("-ub.btah.ini_tassn + 1 == -2 || ub.btah.ini_tassn - 3 <= -1"), "1,3,5");
    CHECK_ERR("max() == 1", 5, "max() needs an argument");
    CHECK_ERR("len(frame, frame) == 1", 1, "len() takes one argument");
    CHECK_ERR("ub.nth.scna > ub.btah.ini_tassn[0:1]", 32, "cannot be sliced");
    CHECK_ERR("frame.len + 1 + 1 + 1 + 1 + 1 + 1 + 1 + 1 + 1 + 1 + 1 + 1 > 0", 55, "expression too complex");
    CHECK_STR(cerr("frame.len + 1 + 1 + 1 + 1 + 1 + 1 + 1 + 1 + 1 + 1 + 1 > 0"), "");

    free_cap(c9);
    free_cap(c7);
    free_cap(cm);
    free_cap(cu);
    free_cap(ce);
    free_cap(cs);
    return ub_test_finish();
}

#include "ubtest.h"
#include "internal.h"

/* ub_field_index as it was (a full short-name compare per row): the fast one must agree */
static int field_index_ref(const ub_hdr *h, const char *short_name)
{
    for (unsigned i = 0; i < h->nfields; i++)
        if (strcmp(ub_field_short(h, &h->fields[i]), short_name) == 0) return (int)i;
    return -1;
}

/* every row's short name, plus names that are absent or near misses, in table h; rows checked */
static unsigned index_agrees(const ub_hdr *h)
{
    static const char *const absent[] = { "", "x", "ub", "va", "psn.", ".psn", "nosuchfield", "reth.va", "ub.rtph.psn" };
    unsigned n = 0;
    for (unsigned i = 0; i < h->nfields; i++, n++) {
        const char *s = ub_field_short(h, &h->fields[i]);
        CHECK_EQ(ub_field_index(h, s), field_index_ref(h, s));
        CHECK(ub_field_index(h, s) >= 0 && ub_field_index(h, s) <= (int)i);
        for (const char *d = h->fields[i].abbrev; d; d = strchr(d + 1, '.')) /* every tail after a dot */
            CHECK_EQ(ub_field_index(h, d + (*d == '.')), field_index_ref(h, d + (*d == '.')));
        char t[96];
        snprintf(t, sizeof t, "%s_", s);
        CHECK_EQ(ub_field_index(h, t), field_index_ref(h, t));
        snprintf(t, sizeof t, "_%s", s);
        CHECK_EQ(ub_field_index(h, t), field_index_ref(h, t));
        if (*s) { /* s without its first or last character */
            CHECK_EQ(ub_field_index(h, s + 1), field_index_ref(h, s + 1));
            snprintf(t, sizeof t, "%.*s", (int)strlen(s) - 1, s);
            CHECK_EQ(ub_field_index(h, t), field_index_ref(h, t));
        }
    }
    for (size_t k = 0; k < sizeof absent / sizeof absent[0]; k++)
        CHECK_EQ(ub_field_index(h, absent[k]), field_index_ref(h, absent[k]));
    return n;
}

int main(void)
{
    unsigned rows = 0, tables = 0;
    for (unsigned id = 0; id < UB_H__COUNT; id++)
        if (ub_hdr_get(id)) { rows += index_agrees(ub_hdr_get(id)); tables++; }
    for (unsigned n = 1; n <= ub_hdr_variant_count(); n++, tables++) rows += index_agrees(ub_hdr_variant(n));
    CHECK(tables > 100);
    CHECK(rows > 800);
    /* known rows: a row of its own header, one named under another header (AtomicETH's infiniband.reth.va) */
    const ub_hdr *rtph = ub_hdr_get(UB_H_RTPH);
    CHECK(ub_field_index(rtph, "psn") >= 0);
    CHECK_STR(rtph->fields[ub_field_index(rtph, "psn")].abbrev, "ub.rtph.psn");
    CHECK_EQ(ub_field_index(rtph, "nosuchfield"), -1);
    const ub_hdr *ae = ub_hdr_get(UB_H_IB_ATOMICETH);
    CHECK(ub_field_index(ae, "va") >= 0);
    CHECK_STR(ae->fields[ub_field_index(ae, "va")].abbrev, "infiniband.reth.va");
    CHECK_STR(ae->fields[ub_field_index(ae, "cmpdt")].abbrev, "infiniband.atomiceth.cmpdt");
    CHECK_EQ(ub_field_index(ae, "reth.va"), -1);

    uint8_t b[] = { 0x00, 0x09, 0x00, 0x8b };
    uint64_t v;
    CHECK(ub_rd_bits(b, 4, 12, 4, &v)); CHECK_EQ(v, 9);
    CHECK(ub_rd_bits(b, 4, 18, 14, &v)); CHECK_EQ(v, 0x8b);
    CHECK(!ub_rd_bits(b, 4, 30, 4, &v));
    uint8_t w[4] = { 0 };
    ub_wr_bits(w, 7, 4, 0xF); CHECK_EQ(w[0], 0x01); CHECK_EQ(w[1], 0xE0);
    /* RFC 5952 IPv6 text (as glibc inet_ntop / tshark) */
    static const struct { uint16_t w[8]; const char *t; } v6[] = {
        { { 0 }, "::" },
        { { 0, 0, 0, 0, 0, 0, 0, 1 }, "::1" },
        { { 1, 0, 0, 0, 0, 0, 0, 0 }, "1::" },
        { { 0xfd00, 0, 0, 0, 0, 0, 0, 1 }, "fd00::1" },
        { { 0xfd00, 0, 0, 0, 0, 0, 0, 0xabc }, "fd00::abc" },
        { { 1, 0, 0, 1, 0, 0, 0, 1 }, "1:0:0:1::1" },          /* longest run */
        { { 1, 0, 0, 1, 0, 0, 1, 1 }, "1::1:0:0:1:1" },        /* first on ties */
        { { 1, 0, 1, 0, 1, 0, 1, 0 }, "1:0:1:0:1:0:1:0" },     /* single zero groups stay */
        { { 0x2001, 0xdb8, 0, 1, 1, 1, 1, 1 }, "2001:db8:0:1:1:1:1:1" },
        { { 0xABCD, 0x0EF0, 0, 0, 0, 0, 0, 0x00FF }, "abcd:ef0::ff" },
        { { 0, 0, 0, 0, 0, 0xffff, 0x0a00, 0x0001 }, "::ffff:10.0.0.1" },
        { { 0, 0, 0, 0, 0, 0, 0x0a00, 0x0001 }, "::10.0.0.1" }, /* IPv4-compatible, as inet_ntop */
        { { 0, 0, 0, 0, 0, 0xfffe, 0x0a00, 0x0001 }, "::fffe:a00:1" },
        { { 0xffff, 0xffff, 0xffff, 0xffff, 0xffff, 0xffff, 0xffff, 0xffff },
          "ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff" },
    };
    for (size_t i = 0; i < sizeof v6 / sizeof v6[0]; i++) {
        uint8_t a[16];
        char t[64];
        for (int k = 0; k < 8; k++) { a[2 * k] = (uint8_t)(v6[i].w[k] >> 8); a[2 * k + 1] = (uint8_t)v6[i].w[k]; }
        CHECK_EQ(ub_ipv6_format(a, t, sizeof t), strlen(v6[i].t));
        CHECK_STR(t, v6[i].t);
        char s[8];
        ub_ipv6_format(a, s, sizeof s); /* truncated, terminated */
        CHECK_EQ(strlen(s), strlen(v6[i].t) < 7 ? strlen(v6[i].t) : 7);
        /* the same text through the field formatter */
        ub_val v = { .bytes = a, .nbytes = 16 };
        ub_field f = { .type = UB_FT_IPV6 };
        CHECK_EQ(ub_format_value(&f, &v, false, t, sizeof t), strlen(v6[i].t));
        CHECK_STR(t, v6[i].t);
    }
    return ub_test_finish();
}

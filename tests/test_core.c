#include "ubtest.h"
#include "internal.h"
int main(void)
{
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

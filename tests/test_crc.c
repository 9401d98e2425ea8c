/* CRC paths (crc.c): the carry-less-multiply folding (when this CPU has PCLMULQDQ) and the portable
 * tables against bit-serial references — random data, every length 0..700, unaligned starts, chained
 * updates — plus fixed vectors (digest §13.1 BCRC, CRC-32 check value, a 1000-byte pattern whose
 * CRCs were computed independently with Python's zlib and a bit-serial CRC30). */
#include "ubtest.h"
#include "internal.h"

static uint32_t ref30(uint32_t r, const uint8_t *p, size_t n) /* §4.7.2, MSB first */
{
    for (size_t k = 0; k < n * 8; k++) {
        unsigned fb = ((r >> 29) & 1u) ^ ((p[k / 8] >> (7 - k % 8)) & 1u);
        r = (r << 1) & 0x3FFFFFFFu;
        if (fb) r ^= 0x15A94AD5u;
    }
    return r;
}
static uint32_t ref32(uint32_t crc, const uint8_t *p, size_t n) /* zlib crc32, bitwise */
{
    uint32_t c = ~crc;
    for (size_t i = 0; i < n; i++) {
        c ^= p[i];
        for (int k = 0; k < 8; k++) c = (c >> 1) ^ ((c & 1) ? 0xEDB88320u : 0);
    }
    return ~c;
}

static uint64_t rng = 0x9E3779B97F4A7C15ull;
static uint8_t rnd8(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (uint8_t)(rng >> 24);
}

int main(void)
{
    static uint8_t buf[10240 + 16];
    printf("carry-less multiply path: %s\n", ub_crc_clmul() ? "yes" : "no (tables only)");
    /* fixed vectors */
    CHECK_EQ(ub_crc32(0, (const uint8_t *)"123456789", 9), 0xCBF43926u);
    CHECK_EQ(ub_crc32_tables(0, (const uint8_t *)"123456789", 9), 0xCBF43926u);
    for (int i = 0; i < 1000; i++) buf[i] = (uint8_t)(i * 7 + 3);
    CHECK_EQ(ub_crc32(0, buf, 1000), 0x17bc2a46u);
    CHECK_EQ(ub_crc32_tables(0, buf, 1000), 0x17bc2a46u);
    CHECK_EQ(ub_crc30_update(0x3FFFFFFFu, buf, 1000), 0x24b4db88u);
    CHECK_EQ(ub_crc30_tables(0x3FFFFFFFu, buf, 1000), 0x24b4db88u);
    uint8_t nb[20] = { 0x02, 0x00, 0x00, 0x00 }; /* digest §13.1 */
    CHECK_EQ(ub_crc30_block(nb, 1, 0), 0x3D3B4DD6u);
    CHECK_EQ(ub_crc30_block(nb, 1, 1), 0x259A761Fu);

    /* random data: every length up to 700 at 4 alignments, and long blocks */
    unsigned bad30 = 0, bad30t = 0, bad32 = 0, bad32t = 0, badc = 0, n_checked = 0;
    for (size_t i = 0; i < sizeof buf; i++) buf[i] = rnd8();
    for (size_t n = 0; n <= 700; n++) {
        for (size_t a = 0; a < 4; a++) {
            const uint8_t *p = buf + a + n;
            uint32_t r0 = 0x3FFFFFFFu ^ (uint32_t)(n * 2654435761u & 0x3FFFFFFFu);
            uint32_t e30 = ref30(r0, p, n), e32 = ref32((uint32_t)n, p, n);
            bad30 += ub_crc30_update(r0, p, n) != e30;
            bad30t += ub_crc30_tables(r0, p, n) != e30;
            bad32 += ub_crc32((uint32_t)n, p, n) != e32;
            bad32t += ub_crc32_tables((uint32_t)n, p, n) != e32;
            size_t k = n / 3; /* chained: two updates = one */
            badc += ub_crc32(ub_crc32((uint32_t)n, p, k), p + k, n - k) != e32;
            badc += ub_crc30_update(ub_crc30_update(r0, p, k), p + k, n - k) != e30;
            n_checked++;
        }
    }
    for (size_t n = 10240 - 40; n <= 10240; n += 7) {
        bad30 += ub_crc30_update(0x3FFFFFFFu, buf + 3, n) != ref30(0x3FFFFFFFu, buf + 3, n);
        bad32 += ub_crc32(0, buf + 5, n) != ref32(0, buf + 5, n);
    }
    /* whole BCRC blocks of 1..32 flits (R-03 both variants) */
    for (unsigned f = 1; f <= 32; f++) {
        for (unsigned var = 0; var < 2; var++) {
            const uint8_t *b = buf + f;
            size_t n = f * 20u - 4u;
            uint32_t r = ref30(0x3FFFFFFFu, b, n);
            if (var == 0) { /* the 2 info bits of flit byte 16 of the last flit, MSB first */
                for (int k = 7; k >= 6; k--) {
                    unsigned fb = ((r >> 29) & 1u) ^ ((b[n] >> k) & 1u);
                    r = (r << 1) & 0x3FFFFFFFu;
                    if (fb) r ^= 0x15A94AD5u;
                }
            }
            bad30 += ub_crc30_block(b, f, var) != r;
        }
    }
    CHECK_EQ(n_checked, 701 * 4);
    CHECK_EQ(bad30, 0);
    CHECK_EQ(bad30t, 0);
    CHECK_EQ(bad32, 0);
    CHECK_EQ(bad32t, 0);
    CHECK_EQ(badc, 0);
    return ub_test_finish();
}

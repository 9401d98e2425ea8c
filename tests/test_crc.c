/* CRC paths (crc.c): the carry-less-multiply folding (SSSE3 and AVX copies, where this CPU has them)
 * and the portable tables against bit-serial references — random data, every length 0..400 at 8
 * start alignments (odd ones included), random start registers, chained updates, whole BCRC blocks
 * (R-03 both variants), the ICRC with masked bytes OR'ed in (ub_crc32_or), the functions
 * ub_crc_fns16 resolves for the templates — plus fixed vectors (digest §13.1 BCRC, CRC-32 check
 * value, a 1000-byte pattern whose CRCs were computed independently with Python's zlib and a
 * bit-serial CRC30). */
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
static uint32_t ref_block(const uint8_t *b, unsigned f, unsigned var) /* */
{
    size_t n = f * 20u - 4u;
    uint32_t r = ref30(0x3FFFFFFFu, b, n);
    if (var == 0) { /* the 2 info bits of flit byte 16 of the last flit, MSB first */
        for (int k = 7; k >= 6; k--) {
            unsigned fb = ((r >> 29) & 1u) ^ ((b[n] >> k) & 1u);
            r = (r << 1) & 0x3FFFFFFFu;
            if (fb) r ^= 0x15A94AD5u;
        }
    }
    return r;
}

static uint64_t rng = 0x9E3779B97F4A7C15ull;
static uint8_t rnd8(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (uint8_t)(rng >> 24);
}

#define NLV 3 /* paths: 0 tables, 1 SSSE3, 2 AVX (capped at what this CPU has) */

int main(void)
{
    static uint8_t buf[10240 + 16], masked[512];
    int have = ub_crc_clmul();
    printf("carry-less multiply path: %s\n", have == 2 ? "AVX" : have == 1 ? "SSSE3" : "no (tables only)");
    /* fixed vectors, every path */
    uint8_t nb[20] = { 0x02, 0x00, 0x00, 0x00 }; /* digest §13.1 */
    CHECK_EQ(ub_crc32(0, (const uint8_t *)"123456789", 9), 0xCBF43926u);
    CHECK_EQ(ub_crc30_block(nb, 1, 0), 0x3D3B4DD6u);
    CHECK_EQ(ub_crc30_block(nb, 1, 1), 0x259A761Fu);
    for (int i = 0; i < 1000; i++) buf[i] = (uint8_t)(i * 7 + 3);
    CHECK_EQ(ub_crc32(0, buf, 1000), 0x17bc2a46u);
    CHECK_EQ(ub_crc30_update(0x3FFFFFFFu, buf, 1000), 0x24b4db88u);
    for (int lv = 0; lv < NLV; lv++) {
        CHECK_EQ(ub_crc32_path(lv, 0, (const uint8_t *)"123456789", 9), 0xCBF43926u);
        CHECK_EQ(ub_crc32_path(lv, 0, buf, 1000), 0x17bc2a46u);
        CHECK_EQ(ub_crc30_path(lv, 0x3FFFFFFFu, buf, 1000), 0x24b4db88u);
        CHECK_EQ(ub_crc30_block_path(lv, nb, 1, 0), 0x3D3B4DD6u);
        CHECK_EQ(ub_crc30_block_path(lv, nb, 1, 1), 0x259A761Fu);
    }

    /* random data: every length 0..400 at 8 alignments, random start registers, every path */
    unsigned bad30[NLV] = { 0 }, bad32[NLV] = { 0 }, bador[NLV] = { 0 }, bad_def = 0, badc = 0, n_checked = 0;
    uint8_t orm[UB_CRC_ORM_LEN];
    ub_crc30_blk_fn fn30; /* the functions the template cache resolves once (n >= 16) */
    ub_crc32_or_fn fnor;
    ub_crc_fns16(&fn30, &fnor);
    for (size_t i = 0; i < sizeof buf; i++) buf[i] = rnd8();
    for (size_t n = 0; n <= 400; n++) {
        for (size_t a = 0; a < 8; a++) {
            const uint8_t *p = buf + a + 3 * n;
            uint32_t r0 = ((uint32_t)rnd8() << 22 | (uint32_t)rnd8() << 14 | (uint32_t)rnd8() << 6 | rnd8()) & 0x3FFFFFFFu;
            uint32_t c0 = (uint32_t)rnd8() << 24 | (uint32_t)rnd8() << 16 | (uint32_t)rnd8() << 8 | rnd8();
            uint32_t e30 = ref30(r0, p, n), e32 = ref32(c0, p, n);
            /* an OR pattern: a few runs of masked bytes inside the first UB_CRC_ORM_SPAN */
            memset(orm, 0, sizeof orm);
            for (int k = rnd8() % 6; k > 0; k--) {
                unsigned at = rnd8() % UB_CRC_ORM_SPAN, len = 1 + rnd8() % 4;
                uint8_t v = (rnd8() & 1) ? 0xFF : (uint8_t)(rnd8() | 0x0F);
                for (unsigned j = at; j < at + len && j < UB_CRC_ORM_SPAN; j++) orm[j] = v;
            }
            for (size_t j = 0; j < n; j++) masked[j] = (uint8_t)(p[j] | (j < UB_CRC_ORM_SPAN ? orm[j] : 0));
            uint32_t eor = ref32(0, masked, n);
            for (int lv = 0; lv < NLV; lv++) {
                bad30[lv] += ub_crc30_path(lv, r0, p, n) != e30;
                bad32[lv] += ub_crc32_path(lv, c0, p, n) != e32;
                bador[lv] += ub_crc32_or_path(lv, p, n, orm) != eor;
            }
            bad_def += ub_crc30_update(r0, p, n) != e30;
            bad_def += ub_crc32(c0, p, n) != e32;
            bad_def += ub_crc32_or(p, n, orm) != eor;
            if (n >= 16) bad_def += fnor(p, n, orm) != eor;
            size_t k = n / 3; /* chained: two updates = one */
            badc += ub_crc32(ub_crc32(c0, p, k), p + k, n - k) != e32;
            badc += ub_crc30_update(ub_crc30_update(r0, p, k), p + k, n - k) != e30;
            n_checked++;
        }
    }
    for (size_t n = 10240 - 40; n <= 10240; n += 7) {
        for (int lv = 0; lv < NLV; lv++) {
            bad30[lv] += ub_crc30_path(lv, 0x3FFFFFFFu, buf + 3, n) != ref30(0x3FFFFFFFu, buf + 3, n);
            bad32[lv] += ub_crc32_path(lv, 0, buf + 5, n) != ref32(0, buf + 5, n);
        }
    }
    /* whole BCRC blocks of 1..32 flits (R-03 both variants), odd and even starts */
    unsigned badb[NLV] = { 0 };
    for (unsigned f = 1; f <= 32; f++) {
        for (unsigned var = 0; var < 2; var++) {
            const uint8_t *b = buf + f;
            uint32_t e = ref_block(b, f, var);
            bad_def += ub_crc30_block(b, f, var) != e;
            bad_def += fn30(b, (size_t)f * 20u - 4u, var) != e;
            for (int lv = 0; lv < NLV; lv++) badb[lv] += ub_crc30_block_path(lv, b, f, var) != e;
        }
    }
    CHECK_EQ(n_checked, 401 * 8);
    for (int lv = 0; lv < NLV; lv++) {
        CHECK_EQ(bad30[lv], 0);
        CHECK_EQ(bad32[lv], 0);
        CHECK_EQ(bador[lv], 0);
        CHECK_EQ(badb[lv], 0);
    }
    CHECK_EQ(bad_def, 0);
    CHECK_EQ(badc, 0);
    return ub_test_finish();
}

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
    return ub_test_finish();
}

/* rowfast.h: the constant-row reader of the decode path reads every plain row of every table (and of
 * every profile table) as ub_lget() does, and UB_LROW() takes the layer's own table when it is not the
 * default one (a profile's rows sit elsewhere). */
#include "ubtest.h"
#include "internal.h"
#include "rowfast.h"

static bool plain(const ub_field *f)
{
    return (f->type == UB_FT_UINT || f->type == UB_FT_BOOL) && !(f->flags & (UB_FF_ENCODED | UB_FF_VIRTUAL)) &&
           f->bits >= 1 && f->bits <= 64 && ((f->bit_off + f->bits - 1u) >> 3) - (f->bit_off >> 3) < 8u;
}

/* every plain row of h over four byte patterns: ub_row_at == ub_lget; returns the rows compared */
static unsigned rows_agree(const ub_hdr *h, const uint8_t (*bufs)[256], unsigned nbufs)
{
    unsigned n = 0;
    for (unsigned i = 0; i < h->nfields; i++) {
        const ub_field *f = &h->fields[i];
        if (!plain(f) || f->bit_off + f->bits > 256u * 8u) continue;
        for (unsigned b = 0; b < nbufs; b++) {
            ub_layer l = { .hdr = h, .data = bufs[b], .len = 256 };
            uint64_t want = ub_lget(&l, i), got = ub_row_at(bufs[b], f);
            if (got != want) fprintf(stderr, "%s row %u (%s)\n", h->key, i, f->abbrev);
            CHECK_EQ(got, want);
            CHECK_EQ(UB_LROW(&l, h->fields, i), want); /* the default-table branch */
        }
        n++;
    }
    return n;
}

int main(void)
{
    static uint8_t bufs[4][256];
    uint32_t x = 0x12345678u;
    for (unsigned i = 0; i < 256; i++) {
        bufs[0][i] = 0xFF;
        bufs[1][i] = (uint8_t)i;
        x = x * 1103515245u + 12345u;
        bufs[2][i] = (uint8_t)(x >> 16);
        bufs[3][i] = (uint8_t)(i & 1 ? 0xA5 : 0x5A);
    }
    unsigned rows = 0, tables = 0;
    for (unsigned id = 0; id < UB_H__COUNT; id++) {
        const ub_hdr *h = ub_hdr_get(id);
        if (!h) continue;
        rows += rows_agree(h, (const uint8_t (*)[256])bufs, 4);
        tables++;
    }
    for (unsigned n = 1; n <= ub_hdr_variant_count(); n++) rows += rows_agree(ub_hdr_variant(n), (const uint8_t (*)[256])bufs, 4);
    CHECK(tables > 100);
    CHECK(rows > 800);
    printf("%u tables, %u rows\n", tables, rows);

    /* values: RTPH TPOpcode 0x01 and NLP 0 from 0x81 0x00; NTH24 NLP (bits 77-79) = 2 */
    const ub_hdr *rtph = ub_hdr_get(UB_H_RTPH), *nth24 = ub_hdr_get(UB_H_NTH24);
    uint8_t r[16] = { 0x81, 0x03 }, n24[10] = { 0 };
    n24[9] = 0x02;
    CHECK_EQ(ub_row_at(r, &rtph->fields[ub_field_index(rtph, "tpopcode")]), 1);
    CHECK_EQ(ub_row_at(r, &rtph->fields[ub_field_index(rtph, "nlp")]), 3);
    CHECK_EQ(ub_row_at(n24, &nth24->fields[ub_field_index(nth24, "nlp")]), 2);

    /* ATAH INI_RC_Type: bits 42-43 in the spec's table, 50-51 in ns-3-UB's (D11). A layer with the
     * profile's table reads the profile's row through UB_LROW, not the default one. */
    const ub_hdr *atah = ub_hdr_get(UB_H_ATAH), *atah_ns3 = NULL;
    for (unsigned n = 1; n <= ub_hdr_variant_count(); n++)
        if (ub_hdr_variant(n)->id == UB_H_ATAH) atah_ns3 = ub_hdr_variant(n);
    CHECK(atah_ns3 != NULL);
    int rc = ub_field_index(atah, "ini_rc_type");
    CHECK(rc >= 0);
    uint8_t a[8] = { 0x11, 0, 0, 1, 0, 0x30, 0x10, 0 };
    ub_layer la = { .hdr = atah, .data = a, .len = 8 }, ln = { .hdr = atah_ns3, .data = a, .len = 8 };
    if (atah_ns3 && rc >= 0) {
        CHECK_EQ(UB_LROW(&la, atah->fields, (unsigned)rc), 3);
        CHECK_EQ(UB_LROW(&ln, atah->fields, (unsigned)rc), 1);
    }
    return ub_test_finish();
}

/* Data link layer: CRC30/CRC-32 (§13.1), PLENGTH (§2.4), §13.2 flit bytes, DLLCB signatures (§13.4),
 * multi-block DLLDPs, error detection, truncation robustness. Asserts DLL-level layers and fields only. */
#include "ubtest.h"
#include "internal.h"
#include <stdlib.h>

static ub_view V;
static ub_opts O;

/* ------------------------------------------------------------------ helpers */
static bool has_err(const ub_view *v, unsigned code)
{
    for (unsigned i = 0; i < v->nerrs; i++)
        if (v->err[i].code == code) return true;
    return false;
}
static const ub_err *find_err(const ub_view *v, unsigned code)
{
    for (unsigned i = 0; i < v->nerrs; i++)
        if (v->err[i].code == code) return &v->err[i];
    return NULL;
}
/* errors raised on data-link headers (the network decoders may add their own) */
static unsigned dll_errs(const ub_view *v)
{
    unsigned n = 0;
    for (unsigned i = 0; i < v->nerrs; i++) {
        unsigned h = v->err[i].hdr;
        if (h == UB_H_NONE || (h >= UB_H_LPH && h <= UB_H_LNA)) {
            n++;
            fprintf(stderr, "  dll error: %s hdr %u off %u actual 0x%llx expected 0x%llx (%s)\n",
                    ub_err_get(v->err[i].code)->name, h, v->err[i].off, (unsigned long long)v->err[i].actual,
                    (unsigned long long)v->err[i].expected, v->err[i].what ? v->err[i].what : "");
        }
    }
    return n;
}
static uint64_t get(const ub_view *v, const char *abbrev)
{
    uint64_t u = 0xDEADBEEFull;
    if (ub_view_get(v, abbrev, &u) != 0) fprintf(stderr, "  field %s not present\n", abbrev);
    return u;
}
static bool present(const ub_view *v, const char *abbrev)
{
    uint64_t u;
    return ub_view_get(v, abbrev, &u) == 0;
}
static unsigned count_layers(const ub_view *v, unsigned id)
{
    unsigned n = 0;
    for (unsigned i = 0; i < v->nlayers; i++) n += v->layer[i].hdr->id == id;
    return n;
}

/* bit-serial CRC30 reference (digest §2.5) */
static uint32_t ref_crc30(const uint8_t *blk, unsigned flits, unsigned variant)
{
    uint32_t r = 0x3FFFFFFF;
    size_t n = (size_t)flits * 20 - 4;
    size_t nbits = n * 8 + (variant == 0 ? 2 : 0);
    for (size_t k = 0; k < nbits; k++) {
        unsigned bit = (blk[k / 8] >> (7 - k % 8)) & 1u;
        unsigned fb = ((r >> 29) & 1u) ^ bit;
        r = (r << 1) & 0x3FFFFFFF;
        if (fb) r ^= 0x15A94AD5;
    }
    return r;
}
/* bitwise zlib CRC-32 reference */
static uint32_t ref_crc32(const uint8_t *p, size_t n)
{
    uint32_t c = 0xFFFFFFFF;
    for (size_t i = 0; i < n; i++) {
        c ^= p[i];
        for (int k = 0; k < 8; k++) c = (c >> 1) ^ ((c & 1) ? 0xEDB88320u : 0);
    }
    return ~c;
}
/* digest §2.4 reference decoder, verbatim */
static int ref_payload_len(int nblk, int flast, int tail, int crc_mode)
{
    int N = (nblk - 1) * 32 + flast, t, x;
    if (crc_mode) {
        if (tail <= 15) { t = N - 1; x = tail + 1; }
        else if (tail <= 19) { t = N - 2; x = tail + 1; }
        else if (tail >= 24 && tail <= 27) { t = N - 2; x = tail - 11; }
        else return -1;
    } else {
        if (tail <= 15) { t = N - 1; x = tail + 1; }
        else if (tail == 17 || tail == 19) { t = N - 2; x = tail + 1; }
        else if (tail == 27) { t = N - 2; x = 16; }
        else if (tail >= 28 && tail <= 30) { t = N - 1; x = tail - 11; }
        else return -1;
    }
    if (t < 0) return -1;
    int len = x;
    for (int i = 0; i < t; i++) {
        int hdr = (i == 0) ? 4 : (i % 32 == 0 ? 2 : 0);
        len += 20 - hdr - ((crc_mode && i % 32 == 31) ? 4 : 0);
    }
    return len;
}
/* digest §2.8.4 reference CRD_NUM extraction */
static unsigned ref_crd_vl(const uint8_t *f0, int n)
{
    int bit = 6 * n;
    int msb_byte = 17 - (bit + 5) / 8, lsb_byte = 17 - bit / 8;
    uint32_t w = 0;
    for (int i = msb_byte; i <= lsb_byte; i++) w = (w << 8) | f0[i];
    return (w >> (bit % 8)) & 0x3F;
}

static uint32_t rng = 12345;
static uint8_t rnd8(void)
{
    rng = rng * 1103515245u + 12345u;
    return (uint8_t)(rng >> 16);
}

/* §13.2 network packet (88 B) */
static size_t pkt_13_2(uint8_t *p)
{
    size_t n = ub_hex("01 02 03 04 00 00 00 00  03 10 00 01  00 00 10 00 00 00 00 40 01 23 45 00", p, 64);
    for (int i = 0; i < 64; i++) p[n++] = (uint8_t)i;
    return n;
}

/* DLLCB block with LCH `lch` (4 hex bytes), body bytes from a caller, trailer filled */
static void mk_dllcb(uint8_t *blk, const char *lch, unsigned flits)
{
    memset(blk, 0, flits * 20);
    ub_hex(lch, blk, 4);
}

/* ------------------------------------------------------------------ §13.1 CRCs */
static void test_crc(void)
{
    uint8_t nb[20] = { 0x02, 0x00, 0x00, 0x00 };
    CHECK_EQ(ub_crc30_block(nb, 1, 0), 0x3D3B4DD6);
    CHECK_EQ(ub_crc30_block(nb, 1, 1), 0x259A761F);
    CHECK_EQ(ref_crc30(nb, 1, 0), 0x3D3B4DD6);
    CHECK_EQ(ref_crc30(nb, 1, 1), 0x259A761F);
    CHECK_EQ(ub_crc32(0, (const uint8_t *)"123456789", 9), 0xCBF43926);
    CHECK_EQ(ub_crc32(ub_crc32(0, (const uint8_t *)"1234", 4), (const uint8_t *)"56789", 5), 0xCBF43926);
    CHECK_EQ(ub_crc32(0, NULL, 0), 0);

    /* table-driven == bit-serial on random blocks of every size, both R-03 variants */
    static uint8_t blk[32 * 20];
    int bad = 0;
    for (unsigned f = 1; f <= 32; f++) {
        for (int rep = 0; rep < 4; rep++) {
            for (unsigned i = 0; i < f * 20; i++) blk[i] = rnd8();
            for (unsigned var = 0; var < 2; var++)
                bad += ub_crc30_block(blk, f, var) != ref_crc30(blk, f, var);
        }
    }
    CHECK_EQ(bad, 0);
    bad = 0;
    for (size_t n = 0; n < 300; n++) {
        for (size_t i = 0; i < n; i++) blk[i] = rnd8();
        bad += ub_crc32(0, blk, n) != ref_crc32(blk, n);
        /* split anywhere */
        size_t k = n / 3;
        bad += ub_crc32(ub_crc32(0, blk, k), blk + k, n - k) != ref_crc32(blk, n);
    }
    CHECK_EQ(bad, 0);
}

/* ------------------------------------------------------------------ §2.4 PLENGTH */
static void test_plength(void)
{
    /* digest §2.4 computed examples, CRC mode: L, N, nblk, flast, tail, PLENGTH */
    static const unsigned crc_rows[][6] = {
        { 1, 1, 1, 1, 0, 0x0000 },    { 12, 1, 1, 1, 11, 0x000B }, { 13, 2, 1, 2, 24, 0x0038 },
        { 16, 2, 1, 2, 27, 0x003B },  { 17, 2, 1, 2, 0, 0x0020 },  { 36, 3, 1, 3, 19, 0x0053 },
        { 64, 4, 1, 4, 7, 0x0067 },   { 88, 5, 1, 5, 11, 0x008B }, { 620, 32, 1, 32, 3, 0x03E3 },
        { 1000, 51, 2, 19, 9, 0x0649 },
    };
    for (size_t i = 0; i < sizeof crc_rows / sizeof crc_rows[0]; i++) {
        const unsigned *r = crc_rows[i];
        int p = ub_plength_encode(r[0], true);
        CHECK_EQ(p, r[5]);
        CHECK_EQ(ub_dlldp_flits(r[0], true), r[1]);
        CHECK_EQ(((unsigned)p >> 10) + 1, r[2]);
        CHECK_EQ((((unsigned)p >> 5) & 31) + 1, r[3]);
        CHECK_EQ((unsigned)p & 31, r[4]);
        CHECK_EQ(ub_plength_payload_len(r[5], true), r[0]);
    }
    /* Non-CRC examples */
    CHECK_EQ(ub_plength_encode(15, false), 0x000E);
    CHECK_EQ(ub_dlldp_flits(15, false), 1);
    CHECK_EQ(ub_plength_encode(16, false), 0x003B);
    CHECK_EQ(ub_dlldp_flits(16, false), 2);
    CHECK_EQ(ub_dlldp_flits(36, false), 3);
    CHECK_EQ(ub_plength_encode(36, false) & 31, 19);
    CHECK_EQ(ub_plength_encode(1000, false), 0x0645);
    CHECK_EQ(ub_dlldp_flits(1000, false), 51);

    /* spec examples Fig 4-7 / 4-8 / 4-9 (tails 27 / 9 / 13) */
    CHECK_EQ(ub_plength_encode(16, true) & 31, 27);          /* LPH flit with 16 B, 2nd-to-last */
    CHECK_EQ(ub_plength_encode(16 + 10, true) & 31, 9);      /* single DLLDB, last flit holds 10 B */
    CHECK_EQ(ub_plength_encode(16 + 20 + 14, true) & 31, 13); /* last flit holds 14 B */
    CHECK_EQ(ub_plength_encode(632 + 18 + 20 + 14, true) & 31, 13); /* last DLLDB of 2 */
    CHECK_EQ(ub_plength_payload_len((0 << 10) | (1 << 5) | 27, true), 16);
    CHECK_EQ(ub_plength_payload_len((0 << 10) | (1 << 5) | 9, true), 26);
    CHECK_EQ(ub_plength_payload_len((0 << 10) | (2 << 5) | 13, true), 50);

    /* reserved tail codes */
    static const unsigned rsvd_crc[] = { 20, 21, 22, 23, 28, 29, 30, 31 };
    static const unsigned rsvd_ncrc[] = { 16, 18, 20, 21, 22, 23, 24, 25, 26, 31 };
    for (size_t i = 0; i < sizeof rsvd_crc / sizeof rsvd_crc[0]; i++)
        CHECK_EQ(ub_plength_payload_len((4u << 5) | rsvd_crc[i], true), -1);
    for (size_t i = 0; i < sizeof rsvd_ncrc / sizeof rsvd_ncrc[0]; i++)
        CHECK_EQ(ub_plength_payload_len((4u << 5) | rsvd_ncrc[i], false), -1);
    CHECK_EQ(ub_plength_payload_len(0x4000, true), -1);
    /* 2nd-to-last rule with a 1-flit DLLDP: no such flit */
    CHECK_EQ(ub_plength_payload_len(24, true), -1);
    /* x does not fit: 1-flit DLLDP, LPH flit holding 16 B + BCRC */
    CHECK_EQ(ub_plength_payload_len(15, true), -1);

    /* exhaustive: every length round-trips; tail sets are exactly the digest's */
    for (int crc = 1; crc >= 0; crc--) {
        unsigned maxlen = crc ? 10142 : 10205;
        uint32_t tails = 0;
        int bad = 0, badref = 0;
        for (unsigned L = 1; L <= maxlen; L++) {
            int p = ub_plength_encode(L, crc);
            if (p < 0) { bad++; continue; }
            tails |= 1u << (p & 31);
            bad += ub_plength_payload_len((unsigned)p, crc) != (int)L;
            badref += ref_payload_len((p >> 10) + 1, ((p >> 5) & 31) + 1, p & 31, crc) != (int)L;
            unsigned n = ub_dlldp_flits(L, crc);
            bad += n != (unsigned)(((p >> 10) * 32) + ((p >> 5) & 31) + 1) || n > 512;
        }
        CHECK_EQ(bad, 0);
        CHECK_EQ(badref, 0);
        CHECK_EQ(tails, crc ? 0x0F0FFFFFu : 0x780AFFFFu);
        CHECK_EQ(ub_plength_encode(maxlen + 1, crc), -1);
        CHECK_EQ(ub_dlldp_flits(maxlen + 1, crc), 0);
        CHECK_EQ(ub_dlldp_flits(maxlen, crc), 512);
        CHECK_EQ(ub_plength_encode(0, crc), -1);
        /* every valid code is the encoding of exactly one length */
        unsigned valid = 0;
        bad = 0;
        for (unsigned p = 0; p < 0x4000; p++) {
            int L = ub_plength_payload_len(p, crc);
            if (L < 0) continue;
            valid++;
            bad += ub_plength_encode((unsigned)L, crc) != (int)p;
        }
        CHECK_EQ(bad, 0);
        CHECK_EQ(valid, maxlen);
    }
    /* Non-CRC: a full 32-flit block followed by a 1-flit block with only LBH + padding + END (flast = 1) */
    CHECK_EQ(ub_plength_encode(636, false), (1 << 10) | (0 << 5) | 19);
    CHECK_EQ(ub_plength_payload_len((1 << 10) | 19, false), 636);
}

/* ------------------------------------------------------------------ payload offset mapping */
static void test_pkt_to_rec(void)
{
    static uint8_t pkt[10205], out[512 * 20];
    static const unsigned lens[] = { 1, 12, 13, 88, 620, 632, 633, 636, 637, 1000, 1274, 5000, 10142, 10205 };
    for (int crc = 0; crc < 2; crc++) {
        ub_opts o;
        ub_opts_default(&o);
        o.crc_mode = crc;
        for (size_t k = 0; k < sizeof lens / sizeof lens[0]; k++) {
            unsigned L = lens[k];
            if (crc && L > 10142) continue;
            for (unsigned i = 0; i < L; i++) pkt[i] = rnd8();
            uint8_t lph[4] = { 0x00, 0x06, 0, 0 };
            long n = ub_frame_dlldp(&o, lph, pkt, L, false, out, sizeof out);
            CHECK_EQ(n, ub_dlldp_flits(L, crc) * 20);
            int bad = 0;
            for (unsigned i = 0; i < L; i++) bad += out[ub_dll_pkt_to_rec(crc, i)] != pkt[i];
            CHECK_EQ(bad, 0);
        }
    }
    CHECK_EQ(ub_dll_pkt_to_rec(true, 0), 4);
    CHECK_EQ(ub_dll_pkt_to_rec(true, 631), 635);  /* flit 31 byte 15 */
    CHECK_EQ(ub_dll_pkt_to_rec(true, 632), 642);  /* after the LBH of block 1 */
    CHECK_EQ(ub_dll_pkt_to_rec(false, 635), 639);
    CHECK_EQ(ub_dll_pkt_to_rec(false, 636), 642);
}

/* ------------------------------------------------------------------ §13.2 */
static const char *const flits_13_2 =
    "00 09 00 8b 01 02 03 04 00 00 00 00 03 10 00 01 00 00 10 00"
    "00 00 00 40 01 23 45 00 00 01 02 03 04 05 06 07 08 09 0a 0b"
    "0c 0d 0e 0f 10 11 12 13 14 15 16 17 18 19 1a 1b 1c 1d 1e 1f"
    "20 21 22 23 24 25 26 27 28 29 2a 2b 2c 2d 2e 2f 30 31 32 33"
    "34 35 36 37 38 39 3a 3b 3c 3d 3e 3f 00 00 00 00 18 aa d5 dc";

static void test_13_2(void)
{
    uint8_t pkt[128], want[100], out[200];
    size_t pl = pkt_13_2(pkt);
    CHECK_EQ(pl, 88);
    CHECK_EQ(ub_hex(flits_13_2, want, sizeof want), 100);
    uint8_t lph[4] = { 0x00, 0x09, 0x00, 0x00 };
    long n = ub_frame_dlldp(&O, lph, pkt, (uint32_t)pl, false, out, sizeof out);
    CHECK_EQ(n, 100);
    CHECK(memcmp(out, want, 100) == 0);
    CHECK_EQ(ub_frame_dlldp(&O, lph, pkt, (uint32_t)pl, false, out, 99), (unsigned long long)-1);

    /* R-03 alternative: bytes only */
    ub_opts o1 = O;
    o1.bcrc_variant = 1;
    n = ub_frame_dlldp(&o1, lph, pkt, (uint32_t)pl, false, out, sizeof out);
    CHECK_EQ(n, 100);
    uint8_t alt[4];
    ub_hex("06 2a b5 77", alt, 4);
    CHECK(memcmp(out + 96, alt, 4) == 0);
    CHECK(memcmp(out, want, 96) == 0);

    /* decode */
    ub_decode(&V, &O, UB_ENTRY_FLIT, want, 100);
    CHECK_EQ(dll_errs(&V), 0);
    CHECK_EQ(V.kind, UB_KIND_DLLDP);
    CHECK_EQ(V.cfg, 9);
    CHECK(V.pkt == want + 4);
    CHECK_EQ(V.pkt_len, 88);
    CHECK_EQ(V.pkt_off, 4);
    CHECK_EQ(get(&V, "ub.lph.cfg"), 9);
    CHECK_EQ(get(&V, "ub.lph.vl"), 0);
    CHECK_EQ(get(&V, "ub.lph.crd"), 0);
    CHECK_EQ(get(&V, "ub.lph.ack"), 0);
    CHECK_EQ(get(&V, "ub.lph.rt"), 0);
    CHECK_EQ(get(&V, "ub.lph.plength"), 0x8B);
    CHECK_EQ(get(&V, "ub.lph.plength_blocks"), 0);
    CHECK_EQ(get(&V, "ub.lph.plength_flits"), 4);
    CHECK_EQ(get(&V, "ub.lph.plength_tail"), 11);
    CHECK_EQ(get(&V, "ub.bcrc.status"), UB_CK_GOOD);
    CHECK_EQ(get(&V, "ub.bcrc.computed"), 0x18AAD5DC);
    CHECK_EQ(get(&V, "ub.bcrc.crc30"), 0x18AAD5DC);
    CHECK_EQ(get(&V, "ub.bcrc.error_flag"), 0);
    CHECK_EQ(V.layer[0].hdr->id, UB_H_LPH);
    CHECK_EQ(V.layer[0].off, 0);
    CHECK_EQ(V.layer[0].len, 4);
    /* trailer layers come last: padding (bytes 92..95), BCRC (96..99) */
    CHECK(V.nlayers >= 3);
    const ub_layer *pad = &V.layer[V.nlayers - 2], *bc = &V.layer[V.nlayers - 1];
    CHECK_EQ(pad->hdr->id, UB_H_FLITPAD);
    CHECK_EQ(pad->off, 92);
    CHECK_EQ(pad->len, 4);
    CHECK_EQ(bc->hdr->id, UB_H_BCRC);
    CHECK_EQ(bc->off, 96);
    CHECK_EQ(count_layers(&V, UB_H_LBH), 0);
    CHECK_EQ(count_layers(&V, UB_H_END), 0);
    /* field abbrevs follow the naming rule */
    const ub_hdr *hs[4];
    const ub_field *fs[4];
    CHECK_EQ(ub_field_find("ub.lph.crd_vl", hs, fs, 4), 2); /* the spec table and the ns-3-UB one */
    CHECK_EQ(ub_field_find("ub.init_block.feature_id", hs, fs, 4), 2); /* layouts A and B share names */

    /* the same bytes through the R-03 alternative fail; the alternative bytes pass */
    ub_decode(&V, &o1, UB_ENTRY_FLIT, want, 100);
    CHECK(has_err(&V, UB_E_BCRC_BAD));
    CHECK_EQ(get(&V, "ub.bcrc.status"), UB_CK_BAD);
    ub_decode(&V, &o1, UB_ENTRY_FLIT, out, 100);
    CHECK_EQ(dll_errs(&V), 0);

    /* corrupted payload -> bcrc_bad with actual = carried, expected = computed */
    uint8_t bad[100];
    memcpy(bad, want, 100);
    bad[50] ^= 0x01;
    ub_decode(&V, &O, UB_ENTRY_FLIT, bad, 100);
    const ub_err *e = find_err(&V, UB_E_BCRC_BAD);
    CHECK(e != NULL);
    if (e) {
        CHECK_EQ(e->actual, 0x18AAD5DC);
        CHECK_EQ(e->expected, ub_crc30_block(bad, 5, 0));
        CHECK_EQ(e->off, 96);
    }
    char names[256];
    ub_error_names(&V, names, sizeof names);
    CHECK(strstr(names, "bcrc_bad") != NULL);
    CHECK_EQ(get(&V, "ub.bcrc.status"), UB_CK_BAD);

    /* ERROR_FLAG set by the sender: CRC still good (R-03 covers the bit), warning raised */
    n = ub_frame_dlldp(&O, lph, pkt, (uint32_t)pl, true, out, sizeof out);
    CHECK_EQ(out[96] & 0x40, 0x40);
    ub_decode(&V, &O, UB_ENTRY_FLIT, out, 100);
    CHECK(has_err(&V, UB_E_ERROR_FLAG));
    CHECK(!has_err(&V, UB_E_BCRC_BAD));
    CHECK_EQ(get(&V, "ub.bcrc.error_flag"), 1);

    /* non-zero padding (BCRC recomputed) */
    memcpy(bad, want, 100);
    bad[93] = 0x5A;
    ub_frame_dllcb(&O, bad, 5);
    ub_decode(&V, &O, UB_ENTRY_FLIT, bad, 100);
    e = find_err(&V, UB_E_PADDING);
    CHECK(e != NULL);
    if (e) { CHECK_EQ(e->off, 93); CHECK_EQ(e->actual, 0x5A); }
    CHECK(!has_err(&V, UB_E_BCRC_BAD));

    /* reserved PLENGTH[4:0] code (20 in CRC mode) */
    memcpy(bad, want, 100);
    bad[3] = (uint8_t)((bad[3] & 0xE0) | 20);
    ub_frame_dllcb(&O, bad, 5);
    ub_decode(&V, &O, UB_ENTRY_FLIT, bad, 100);
    CHECK(has_err(&V, UB_E_PLENGTH_RSVD));
    CHECK_EQ(get(&V, "ub.bcrc.status"), UB_CK_GOOD);

    /* reserved CFG 8 */
    memcpy(bad, want, 100);
    bad[1] = 0x08;
    ub_decode(&V, &O, UB_ENTRY_FLIT, bad, 100);
    CHECK(has_err(&V, UB_E_UNKNOWN_CFG));
    CHECK_EQ(V.cfg, 8);

    /* reserved LPH bit */
    memcpy(bad, want, 100);
    bad[1] |= 0x10;
    ub_frame_dllcb(&O, bad, 5);
    ub_decode(&V, &O, UB_ENTRY_FLIT, bad, 100);
    e = find_err(&V, UB_E_RSVD_BITS);
    CHECK(e != NULL);
    if (e) CHECK_STR(e->what, "ub.lph.rsvd1");

    /* record longer than the flits */
    static uint8_t longer[120];
    memcpy(longer, want, 100);
    ub_decode(&V, &O, UB_ENTRY_FLIT, longer, 120);
    CHECK(has_err(&V, UB_E_LENGTH));
    CHECK_EQ(get(&V, "ub.bcrc.status"), UB_CK_GOOD);

    /* Non-CRC mode framing of the same packet: 5 flits, END at byte 99 */
    ub_opts on = O;
    on.crc_mode = false;
    n = ub_frame_dlldp(&on, lph, pkt, (uint32_t)pl, false, out, sizeof out);
    CHECK_EQ(n, 100);
    CHECK_EQ(out[3], 0x8B); /* x = 12: 12 + 1 fits */
    ub_decode(&V, &on, UB_ENTRY_FLIT, out, 100);
    CHECK_EQ(dll_errs(&V), 0);
    CHECK_EQ(count_layers(&V, UB_H_END), 1);
    CHECK_EQ(count_layers(&V, UB_H_BCRC), 0);
    CHECK_EQ(V.layer[V.nlayers - 1].off, 99);
    CHECK_EQ(V.layer[V.nlayers - 2].hdr->id, UB_H_FLITPAD);
    CHECK_EQ(V.layer[V.nlayers - 2].len, 7);
    n = ub_frame_dlldp(&on, lph, pkt, (uint32_t)pl, true, out, sizeof out);
    CHECK_EQ(out[99], 0x40);
    ub_decode(&V, &on, UB_ENTRY_FLIT, out, 100);
    CHECK(has_err(&V, UB_E_ERROR_FLAG));
    CHECK_EQ(get(&V, "ub.end.error_flag"), 1);
}

/* ------------------------------------------------------------------ LINKTYPE_USER1 */
static void test_pkt_record(void)
{
    uint8_t rec[128];
    ub_hex("00 09 00 8b", rec, 4);
    size_t pl = pkt_13_2(rec + 4);
    ub_decode(&V, &O, UB_ENTRY_PKT, rec, (uint32_t)(pl + 4));
    CHECK_EQ(dll_errs(&V), 0);
    CHECK_EQ(V.kind, UB_KIND_DLLDP);
    CHECK_EQ(V.cfg, 9);
    CHECK(V.pkt == rec + 4);
    CHECK_EQ(V.pkt_len, 88);
    CHECK_EQ(V.pkt_off, 4);
    CHECK_EQ(get(&V, "ub.lph.plength"), 0x8B);
    CHECK_EQ(count_layers(&V, UB_H_BCRC), 0);
    /* shorter than PLENGTH says: length error, still decoded */
    ub_decode(&V, &O, UB_ENTRY_PKT, rec, (uint32_t)(pl + 3));
    const ub_err *e = find_err(&V, UB_E_LENGTH);
    CHECK(e != NULL);
    if (e) { CHECK_EQ(e->actual, 87); CHECK_EQ(e->expected, 88); }
    CHECK_EQ(V.pkt_len, 87);
    /* Non-CRC mode: 88 B is tail 11 too; 16 B differs (0x3B Non-CRC vs CRC 0x3B) */
    ub_opts on = O;
    on.crc_mode = false;
    ub_decode(&V, &on, UB_ENTRY_PKT, rec, (uint32_t)(pl + 4));
    CHECK_EQ(dll_errs(&V), 0);
    /* DLLCB in a USER1 record */
    uint8_t cb[40];
    mk_dllcb(cb, "06 00 24 81", 2);
    ub_frame_dllcb(&O, cb, 2);
    ub_decode(&V, &O, UB_ENTRY_PKT, cb, 40);
    CHECK_EQ(dll_errs(&V), 0);
    CHECK_EQ(V.kind, UB_KIND_DLLCB);
    CHECK_EQ(get(&V, "ub.crd_ack.t"), 1);
}

/* ------------------------------------------------------------------ §13.4 DLLCBs */
static void decode_cb(const ub_opts *o, uint8_t *blk, unsigned flits)
{
    ub_frame_dllcb(o, blk, flits);
    ub_decode(&V, o, UB_ENTRY_FLIT, blk, flits * 20);
}

static void test_dllcb(void)
{
    static uint8_t b[32 * 20];
    static const struct { const char *lch; unsigned id; unsigned ctrl, sub; } simple[] = {
        { "02 00 00 00", UB_H_DLLCB_NULL, 0, 0 },       { "02 00 01 00", UB_H_DLLCB_NOB, 0, 1 },
        { "02 00 10 00", UB_H_DLLCB_RETRY_IDLE, 1, 0 }, { "02 00 11 00", UB_H_DLLCB_RETRY_REQ, 1, 1 },
        { "02 00 12 00", UB_H_DLLCB_RETRY_ACK, 1, 2 },  { "02 00 41 00", UB_H_DLLCB_LANE_MANAGE, 4, 1 },
        { "02 00 50 00", UB_H_DLLCB_BLOCK_MODE_CHG, 5, 0 },
    };
    for (size_t i = 0; i < sizeof simple / sizeof simple[0]; i++) {
        mk_dllcb(b, simple[i].lch, 1);
        decode_cb(&O, b, 1);
        CHECK_EQ(dll_errs(&V), 0);
        CHECK_EQ(V.kind, UB_KIND_DLLCB);
        CHECK_EQ(V.cfg, 0);
        CHECK_EQ(V.nlayers, 3);
        CHECK_EQ(V.layer[0].hdr->id, UB_H_LCH);
        CHECK_EQ(V.layer[1].hdr->id, simple[i].id);
        CHECK_EQ(V.layer[1].off, 0);
        CHECK_EQ(V.layer[1].len, 20);
        CHECK_EQ(V.layer[2].hdr->id, UB_H_BCRC);
        CHECK_EQ(get(&V, "ub.lch.ctrl"), simple[i].ctrl);
        CHECK_EQ(get(&V, "ub.lch.sub_ctrl"), simple[i].sub);
        CHECK_EQ(get(&V, "ub.lch.clength"), 0);
        CHECK_EQ(get(&V, "ub.lch.fixed"), 0x20);
        CHECK_EQ(get(&V, "ub.lch.cfg"), 0);
        CHECK_EQ(get(&V, "ub.bcrc.status"), UB_CK_GOOD);
    }
    /* §13.1: Null Block BCRC bytes */
    mk_dllcb(b, "02 00 00 00", 1);
    ub_frame_dllcb(&O, b, 1);
    uint8_t nbc[4];
    ub_hex("3D 3B 4D D6", nbc, 4);
    CHECK(memcmp(b + 16, nbc, 4) == 0);
    ub_opts o1 = O;
    o1.bcrc_variant = 1;
    ub_frame_dllcb(&o1, b, 1);
    ub_hex("25 9A 76 1F", nbc, 4);
    CHECK(memcmp(b + 16, nbc, 4) == 0);

    /* Retry_Req / Retry_Ack fields */
    mk_dllcb(b, "02 00 11 00", 1);
    ub_hex("12 34 00 02 00 03", b + 8, 6);
    decode_cb(&O, b, 1);
    CHECK_EQ(get(&V, "ub.retry_req.rcvptr"), 0x1234);
    CHECK_EQ(get(&V, "ub.retry_req.num_phy_reinit"), 2);
    CHECK_EQ(get(&V, "ub.retry_req.num_retry"), 3);
    mk_dllcb(b, "02 00 12 00", 1);
    ub_hex("01 00 12 34 12 40", b + 8, 6);
    decode_cb(&O, b, 1);
    CHECK_EQ(get(&V, "ub.retry_ack.numfreebuf"), 0x100);
    CHECK_EQ(get(&V, "ub.retry_ack.rdptr"), 0x1234);
    CHECK_EQ(get(&V, "ub.retry_ack.wrptr"), 0x1240);
    CHECK_EQ(dll_errs(&V), 0);

    /* Crd_Ack T=1 SD=1 (`06 00 24 81`), ACK_NUM, CRD_NUM per VL */
    mk_dllcb(b, "06 00 24 81", 2);
    b[4] = 0x00; b[5] = 0x07;
    for (int i = 6; i < 18; i++) b[i] = rnd8();
    decode_cb(&O, b, 2);
    CHECK_EQ(dll_errs(&V), 0);
    CHECK_EQ(V.layer[1].hdr->id, UB_H_DLLCB_CRD_ACK);
    CHECK_EQ(V.layer[1].len, 40);
    CHECK_EQ(get(&V, "ub.lch.clength"), 1);
    CHECK_EQ(get(&V, "ub.crd_ack.t"), 1);
    CHECK_EQ(get(&V, "ub.crd_ack.sd"), 1);
    CHECK_EQ(get(&V, "ub.crd_ack.ack_num"), 7);
    CHECK_EQ(get(&V, "ub.bcrc.status"), UB_CK_GOOD);
    CHECK_EQ(V.layer[2].off, 36); /* BCRC in flit 1 */
    {
        char nm[40];
        int bad = 0;
        for (int n = 0; n < 16; n++) {
            snprintf(nm, sizeof nm, "ub.crd_ack.crd_num_vl%d", n);
            bad += get(&V, nm) != ref_crd_vl(b, n);
        }
        CHECK_EQ(bad, 0);
    }
    /* a known value: VL0 = 5, VL15 = 42, others 0 */
    mk_dllcb(b, "06 00 24 00", 2);
    b[17] = 5;                  /* CRD_NUM[5:0] */
    b[6] = (uint8_t)(42 << 2);  /* CRD_NUM[95:90] */
    decode_cb(&O, b, 2);
    CHECK_EQ(get(&V, "ub.crd_ack.t"), 0);
    CHECK_EQ(get(&V, "ub.crd_ack.sd"), 0);
    CHECK_EQ(get(&V, "ub.crd_ack.crd_num_vl0"), 5);
    CHECK_EQ(get(&V, "ub.crd_ack.crd_num_vl15"), 42);
    CHECK_EQ(get(&V, "ub.crd_ack.crd_num_vl7"), 0);

    /* Param_Exchg 5 flits (`12 00 30 00`) = link-neighbour advertisement (§7.6) */
    mk_dllcb(b, "12 00 30 00", 5);
    ub_hex("00 00 00 07", b + 8, 4);
    ub_hex("00 00 00 09", b + 20 + 8, 4);   /* GUID[31:0] */
    ub_hex("00 00 00 00", b + 40 + 8, 4);
    ub_hex("12 00 00 00", b + 60 + 8, 4);   /* GUID[95:64] */
    ub_hex("12 34 56 78", b + 80 + 8, 4);   /* GUID[127:96] */
    decode_cb(&O, b, 5);
    CHECK_EQ(dll_errs(&V), 0);
    CHECK_EQ(V.nlayers, 4);
    CHECK_EQ(V.layer[1].hdr->id, UB_H_DLLCB_PARAM_EXCHG);
    CHECK_EQ(V.layer[2].hdr->id, UB_H_LNA);
    CHECK_EQ(V.layer[2].depth, V.layer[1].depth + 1);
    CHECK(V.layer[2].flags & UB_LF_OVERLAY);
    CHECK_EQ(get(&V, "ub.lch.clength"), 4);
    CHECK_EQ(get(&V, "ub.param_exchg.data0"), 7);
    CHECK_EQ(get(&V, "ub.param_exchg.data4"), 0x12345678);
    CHECK(!present(&V, "ub.param_exchg.data5"));
    CHECK_EQ(get(&V, "ub.lna.port_idx"), 7);
    CHECK_EQ(get(&V, "ub.lna.guid_31_0"), 9);
    CHECK_EQ(get(&V, "ub.lna.guid_63_32"), 0);
    CHECK_EQ(get(&V, "ub.lna.guid_95_64"), 0x12000000);
    CHECK_EQ(get(&V, "ub.lna.guid_127_96"), 0x12345678);
    CHECK_EQ(get(&V, "ub.bcrc.status"), UB_CK_GOOD);
    /* other lengths: no overlay */
    mk_dllcb(b, "02 00 30 00", 1);
    decode_cb(&O, b, 1);
    CHECK_EQ(count_layers(&V, UB_H_LNA), 0);
    CHECK_EQ(dll_errs(&V), 0);
    mk_dllcb(b, "7e 00 30 00", 32);
    b[31 * 20 + 8] = 0xAB;
    decode_cb(&O, b, 32);
    CHECK_EQ(dll_errs(&V), 0);
    CHECK_EQ(get(&V, "ub.param_exchg.data31"), 0xAB000000u);

    /* Lane_Manage CMD (Table 4-7, R-09) */
    mk_dllcb(b, "02 00 41 00", 1);
    ub_hex("57 a6 04 08", b + 4, 4);
    decode_cb(&O, b, 1);
    CHECK_EQ(dll_errs(&V), 0);
    CHECK_EQ(get(&V, "ub.lane_manage.req_id"), 5);
    CHECK_EQ(get(&V, "ub.lane_manage.power_down"), 1);
    CHECK_EQ(get(&V, "ub.lane_manage.change_rlw"), 1);
    CHECK_EQ(get(&V, "ub.lane_manage.change_tlw"), 1);
    CHECK_EQ(get(&V, "ub.lane_manage.rsp_id"), 0xA);
    CHECK_EQ(get(&V, "ub.lane_manage.rx_lane_up"), 1);
    CHECK_EQ(get(&V, "ub.lane_manage.rsp_rlw"), 1);
    CHECK_EQ(get(&V, "ub.lane_manage.rsp_tlw"), 0);
    CHECK_EQ(get(&V, "ub.lane_manage.tlw"), 4);
    CHECK_EQ(get(&V, "ub.lane_manage.rlw"), 8);

    /* Block_Mode_Chg REQ / ACK */
    mk_dllcb(b, "02 00 50 00", 1);
    decode_cb(&O, b, 1);
    CHECK_EQ(get(&V, "ub.block_mode_chg.type"), 0);
    mk_dllcb(b, "02 00 50 01", 1);
    decode_cb(&O, b, 1);
    CHECK_EQ(get(&V, "ub.block_mode_chg.type"), 1);
    CHECK_EQ(dll_errs(&V), 0);

    /* Init Block 5 flits (`12 00 c8 00`), layout A (Table 4-8, R-08) */
    mk_dllcb(b, "12 00 c8 00", 5);
    ub_hex("00 01 01 20 01 08 00 03 00 04 00", b + 9, 11); /* bytes 9..19 */
    b[20 + 19] = 0x01;  /* CTRL_CREDIT VL0 */
    b[20 + 6] = 0x02;   /* CTRL_CREDIT VL13 */
    b[40 + 18] = 0x03;  /* CTRL_CREDIT VL15 */
    b[40 + 19] = 0x0A;  /* CTRL_CREDIT VL14 */
    b[40 + 17] = 0x04;  /* DATA_CREDIT VL0 */
    b[60 + 15] = 9;     /* PACKET_MIN_INTERVAL */
    b[60 + 16] = 0x06;  /* DATA_CREDIT VL15 */
    b[60 + 19] = 0x05;  /* DATA_CREDIT VL12 */
    for (unsigned var = 0; var <= 2; var += 2) {
        ub_opts oi = O;
        oi.init_variant = (uint8_t)var;
        decode_cb(&oi, b, 5);
        CHECK_EQ(dll_errs(&V), 0);
        CHECK_EQ(V.layer[1].hdr->id, UB_H_DLLCB_INIT);
        CHECK_EQ(get(&V, "ub.lch.clength"), 4);
        CHECK_EQ(get(&V, "ub.init_block.feature_id"), 1);
        CHECK_EQ(get(&V, "ub.init_block.rxbuf_vl_share"), 1);
        CHECK_EQ(get(&V, "ub.init_block.data_ack_grain_size"), 0x20);
        CHECK_EQ(get(&V, "ub.init_block.ctrl_ack_grain_size"), 0x01);
        CHECK_EQ(get(&V, "ub.init_block.flow_ctrl_size"), 0x08);
        CHECK_EQ(get(&V, "ub.init_block.vl_enable"), 0x0003);
        CHECK_EQ(get(&V, "ub.init_block.retry_buf_depth"), 0x0400);
        CHECK_EQ(get(&V, "ub.init_block.ctrl_credit_grain_size_vl0"), 1);
        CHECK_EQ(get(&V, "ub.init_block.ctrl_credit_grain_size_vl13"), 2);
        CHECK_EQ(get(&V, "ub.init_block.ctrl_credit_grain_size_vl15"), 3);
        CHECK_EQ(get(&V, "ub.init_block.ctrl_credit_grain_size_vl14"), 0x0A);
        CHECK_EQ(get(&V, "ub.init_block.data_credit_grain_size_vl0"), 4);
        CHECK_EQ(get(&V, "ub.init_block.data_credit_grain_size_vl12"), 5);
        CHECK_EQ(get(&V, "ub.init_block.data_credit_grain_size_vl15"), 6);
        CHECK_EQ(get(&V, "ub.init_block.packet_min_interval"), 9);
    }
    /* the same parameters in figure layout B */
    mk_dllcb(b, "12 00 c8 00", 5);
    ub_hex("00 01 01 20 01 08 00 03 00 04 00", b + 5, 11); /* bytes 5..15 */
    b[20 + 17] = 0x01;  /* CTRL_CREDIT VL0 */
    b[20 + 4] = 0x02;   /* CTRL_CREDIT VL13 */
    b[40 + 16] = 0x03;  /* CTRL_CREDIT VL15 */
    b[40 + 15] = 0x04;  /* DATA_CREDIT VL0 */
    b[60 + 13] = 9;     /* PACKET_MIN_INTERVAL */
    b[60 + 14] = 0x06;  /* DATA_CREDIT VL15 */
    b[60 + 17] = 0x05;  /* DATA_CREDIT VL12 */
    for (unsigned var = 1; var <= 2; var++) {
        ub_opts oi = O;
        oi.init_variant = (uint8_t)var;
        decode_cb(&oi, b, 5);
        CHECK_EQ(dll_errs(&V), 0);
        CHECK_EQ(V.layer[1].hdr->id, UB_H_DLLCB_INIT_ALT);
        CHECK_EQ(get(&V, "ub.init_block.feature_id"), 1);
        CHECK_EQ(get(&V, "ub.init_block.rxbuf_vl_share"), 1);
        CHECK_EQ(get(&V, "ub.init_block.vl_enable"), 3);
        CHECK_EQ(get(&V, "ub.init_block.retry_buf_depth"), 0x0400);
        CHECK_EQ(get(&V, "ub.init_block.ctrl_credit_grain_size_vl0"), 1);
        CHECK_EQ(get(&V, "ub.init_block.ctrl_credit_grain_size_vl13"), 2);
        CHECK_EQ(get(&V, "ub.init_block.ctrl_credit_grain_size_vl15"), 3);
        CHECK_EQ(get(&V, "ub.init_block.data_credit_grain_size_vl0"), 4);
        CHECK_EQ(get(&V, "ub.init_block.data_credit_grain_size_vl12"), 5);
        CHECK_EQ(get(&V, "ub.init_block.data_credit_grain_size_vl15"), 6);
        CHECK_EQ(get(&V, "ub.init_block.packet_min_interval"), 9);
    }
    /* auto with neither layout plausible: layout A + note */
    mk_dllcb(b, "12 00 c8 00", 5);
    {
        ub_opts oi = O;
        oi.init_variant = 2;
        decode_cb(&oi, b, 5);
        CHECK_EQ(V.layer[1].hdr->id, UB_H_DLLCB_INIT);
        CHECK(has_err(&V, UB_E_AMBIGUOUS));
    }

    /* malformed: unknown CTRL, CLENGTH not allowed, fixed pattern, bad BCRC */
    mk_dllcb(b, "02 00 70 00", 1);
    decode_cb(&O, b, 1);
    CHECK(has_err(&V, UB_E_UNKNOWN_DLLCB));
    CHECK_EQ(V.layer[1].hdr->id, UB_H_DLLCB_RSVD);
    CHECK_EQ(get(&V, "ub.bcrc.status"), UB_CK_GOOD);
    mk_dllcb(b, "06 00 00 00", 2); /* Null Block with 2 flits */
    decode_cb(&O, b, 2);
    CHECK(has_err(&V, UB_E_CLENGTH));
    mk_dllcb(b, "0e 00 c8 00", 4); /* Init Block with 4 flits */
    decode_cb(&O, b, 4);
    CHECK(has_err(&V, UB_E_CLENGTH));
    mk_dllcb(b, "03 00 00 00", 1);
    decode_cb(&O, b, 1);
    CHECK(has_err(&V, UB_E_LCH_PATTERN));
    mk_dllcb(b, "82 10 00 00", 1);
    decode_cb(&O, b, 1);
    CHECK(has_err(&V, UB_E_LCH_PATTERN));
    mk_dllcb(b, "02 00 00 00", 1);
    ub_frame_dllcb(&O, b, 1);
    b[19] ^= 1;
    ub_decode(&V, &O, UB_ENTRY_FLIT, b, 20);
    CHECK(has_err(&V, UB_E_BCRC_BAD));
    mk_dllcb(b, "02 00 00 00", 1);
    b[5] = 1; /* reserved body byte */
    decode_cb(&O, b, 1);
    CHECK(has_err(&V, UB_E_RSVD_BITS));
    /* record length disagrees with CLENGTH */
    mk_dllcb(b, "06 00 24 00", 2);
    decode_cb(&O, b, 2);
    ub_decode(&V, &O, UB_ENTRY_FLIT, b, 60);
    CHECK(has_err(&V, UB_E_LENGTH));

    /* Non-CRC mode: END at byte 19 instead of BCRC */
    ub_opts on = O;
    on.crc_mode = false;
    mk_dllcb(b, "06 00 24 81", 2);
    decode_cb(&on, b, 2);
    CHECK_EQ(dll_errs(&V), 0);
    CHECK_EQ(count_layers(&V, UB_H_BCRC), 0);
    CHECK_EQ(count_layers(&V, UB_H_END), 1);
    CHECK_EQ(V.layer[V.nlayers - 1].off, 39);
}

/* ------------------------------------------------------------------ multi-block DLLDPs */
static void roundtrip(bool crc, unsigned L, unsigned want_flits)
{
    static uint8_t pkt[10240], rec[512 * 20];
    ub_opts o = O;
    o.crc_mode = crc;
    for (unsigned i = 0; i < L; i++) pkt[i] = rnd8();
    uint8_t lph[4] = { 0xC1, 0x26, 0x40, 0x00 }; /* CRD 1, ACK 1, CRD_VL 0, VL 9, CFG 6, RT 1 */
    long n = ub_frame_dlldp(&o, lph, pkt, L, false, rec, sizeof rec);
    CHECK_EQ(n, want_flits * 20);
    if (n <= 0) return;
    unsigned nblk = (want_flits + 31) / 32;
    for (unsigned b = 1; b < nblk; b++) { /* LBH: CRD/ACK 0, VL 9, CFG 6 */
        CHECK_EQ(rec[b * 640], 0x01);
        CHECK_EQ(rec[b * 640 + 1], 0x26);
    }
    ub_decode(&V, &o, UB_ENTRY_FLIT, rec, (uint32_t)n);
    CHECK_EQ(dll_errs(&V), 0);
    CHECK_EQ(V.kind, UB_KIND_DLLDP);
    CHECK_EQ(V.cfg, 6);
    CHECK_EQ(V.pkt_len, L);
    CHECK(V.pkt && memcmp(V.pkt, pkt, L) == 0);
    if (nblk > 1) {
        CHECK(V.pkt == V.netbuf);
        CHECK_EQ(V.pkt_off, UINT32_MAX);
    } else {
        CHECK(V.pkt == rec + 4);
    }
    CHECK_EQ(get(&V, "ub.lph.vl"), 9);
    CHECK_EQ(get(&V, "ub.lph.crd"), 1);
    CHECK_EQ(get(&V, "ub.lph.ack"), 1);
    CHECK_EQ(get(&V, "ub.lph.rt"), 1);
    CHECK_EQ(count_layers(&V, UB_H_LBH), nblk - 1);
    CHECK_EQ(count_layers(&V, UB_H_BCRC), crc ? nblk : 0);
    CHECK_EQ(count_layers(&V, UB_H_END), crc ? 0 : 1);
    int goodcrc = 0;
    for (unsigned i = 0; i < V.nlayers; i++) {
        if (V.layer[i].hdr->id == UB_H_BCRC) goodcrc += V.layer[i].status == UB_CK_GOOD;
        if (V.layer[i].hdr->id == UB_H_LBH) CHECK_EQ(V.layer[i].off % 640, 0);
    }
    CHECK_EQ(goodcrc, crc ? nblk : 0);
    if (nblk > 1) {
        CHECK_EQ(get(&V, "ub.lbh.vl"), 9);
        CHECK_EQ(get(&V, "ub.lbh.cfg"), 6);
        CHECK_EQ(get(&V, "ub.lbh.crd"), 0);
        /* LBH VL differs from the LPH */
        rec[640 + 1] = 0x46; /* VL 10 */
        if (crc) ub_frame_dllcb(&o, rec + 640, nblk == 2 ? (unsigned)(n / 20 - 32) : 32);
        ub_decode(&V, &o, UB_ENTRY_FLIT, rec, (uint32_t)n);
        const ub_err *e = find_err(&V, UB_E_LBH_MISMATCH);
        CHECK(e != NULL);
        if (e) { CHECK_EQ(e->actual, 10); CHECK_EQ(e->expected, 9); CHECK_EQ(e->off, 640); }
        CHECK(!has_err(&V, UB_E_BCRC_BAD));
    }
}

static void test_multiblock(void)
{
    roundtrip(true, 1000, 51);
    roundtrip(false, 1000, 51);
    roundtrip(true, 620, 32);
    roundtrip(true, 632, 32);
    roundtrip(true, 633, 33);
    roundtrip(false, 636, 33); /* trailer flit is a 1-flit block: LBH + padding + END */
    roundtrip(true, 10142, 512);
    roundtrip(false, 10205, 512);
    roundtrip(true, 5000, ub_dlldp_flits(5000, true));
    roundtrip(true, 1, 1);
    roundtrip(false, 1, 1);

    /* a network-layer offset in the de-interleaved payload maps to its record offset */
    CHECK_EQ(ub_dll_pkt_to_rec(true, 700), 640 + 20 + 700 - 632 - 18);
}

/* ------------------------------------------------------------------ truncation */
static void truncations(const ub_opts *o, const uint8_t *rec, uint32_t len, ub_entry entry)
{
    static uint8_t cut[512 * 20];
    int bad = 0;
    for (uint32_t k = 0; k < len; k++) {
        memcpy(cut, rec, k);
        ub_decode(&V, o, entry, cut, k);
        if (!has_err(&V, UB_E_TRUNCATED) && !has_err(&V, UB_E_LENGTH)) {
            bad++;
            fprintf(stderr, "  prefix %u of %u: no truncated/length error\n", k, len);
        }
    }
    CHECK_EQ(bad, 0);
}

static void test_truncation(void)
{
    static uint8_t rec[512 * 20], pkt[10240];
    uint8_t want[100];
    ub_hex(flits_13_2, want, 100);
    truncations(&O, want, 100, UB_ENTRY_FLIT);
    uint8_t prec[92];
    ub_hex("00 09 00 8b", prec, 4);
    pkt_13_2(prec + 4);
    truncations(&O, prec, 92, UB_ENTRY_PKT);
    for (int crc = 0; crc < 2; crc++) {
        ub_opts o = O;
        o.crc_mode = crc;
        for (unsigned i = 0; i < 1000; i++) pkt[i] = rnd8();
        uint8_t lph[4] = { 0, 0x06, 0, 0 };
        long n = ub_frame_dlldp(&o, lph, pkt, 1000, false, rec, sizeof rec);
        truncations(&o, rec, (uint32_t)n, UB_ENTRY_FLIT);
        n = ub_frame_dlldp(&o, lph, pkt, 636, false, rec, sizeof rec);
        truncations(&o, rec, (uint32_t)n, UB_ENTRY_FLIT);
    }
    static const struct { const char *lch; unsigned flits; } cbs[] = {
        { "02 00 00 00", 1 }, { "06 00 24 81", 2 }, { "12 00 30 00", 5 }, { "12 00 c8 00", 5 }, { "02 00 70 00", 1 },
    };
    for (size_t i = 0; i < sizeof cbs / sizeof cbs[0]; i++) {
        mk_dllcb(rec, cbs[i].lch, cbs[i].flits);
        ub_frame_dllcb(&O, rec, cbs[i].flits);
        truncations(&O, rec, cbs[i].flits * 20, UB_ENTRY_FLIT);
        truncations(&O, rec, cbs[i].flits * 20, UB_ENTRY_PKT);
    }
    /* random garbage of every length: must not crash */
    for (int rep = 0; rep < 2000; rep++) {
        uint32_t len = rnd8() % 120 + (rep % 7 == 0 ? 600 : 0);
        for (uint32_t i = 0; i < len; i++) rec[i] = rnd8();
        if (rep & 1) rec[1] = (uint8_t)((rec[1] & 0xF0) | 9);
        ub_decode(&V, &O, (rep & 2) ? UB_ENTRY_PKT : UB_ENTRY_FLIT, rec, len);
    }
    CHECK(1);
}

int main(void)
{
    ub_opts_default(&O);
    test_crc();
    test_plength();
    test_pkt_to_rec();
    test_13_2();
    test_pkt_record();
    test_dllcb();
    test_multiblock();
    test_truncation();
    return ub_test_finish();
}

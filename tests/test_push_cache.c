/* The decoder's fast paths give what the general paths give: ub_push's per-view reserved-row cache
 * follows the profile of each decode (one view, spec / ns-3-UB / spec), a reserved bit is found on the
 * cached path too, a view that was never initialised decodes as a fresh one, the fixed-offset DLLDP
 * (one DLLDB) and the general one report the same layers, and PLENGTH decodes every length back. */
#include "ubtest.h"
#include "internal.h"

/* The benchmark packet (bench/write64.ub): CFG 9 Write, 64 bytes, one DLLDB of 5 flits, BCRC good */
static const char BENCH_HEX[] =
    "0009008b010203040000000003100001000010000000004001234500000102030405060708090a0b0c0d0e0f1011121314"
    "15161718191a1b1c1d1e1f202122232425262728292a2b2c2d2e2f303132333435363738393a3b3c3d3e3f0000000018aad5dc";

static int find(const ub_view *v, unsigned id)
{
    return ub_view_find(v, id, 0);
}

static ub_view V, G;

int main(void)
{
    uint8_t rec[128];
    size_t n = ub_hex(BENCH_HEX, rec, sizeof rec);
    CHECK_EQ(n, 100);
    ub_opts spec, ns3;
    ub_opts_default(&spec);
    ub_opts_default(&ns3);
    ns3.profile = UB_PROFILE_NS3UB;

    /* byte 2 b7:6 = RT: 01 on the wire is RT 1 in the spec table, RT 2 in the ns-3-UB one (D1) */
    rec[2] |= 0x40;
    ub_frame_dllcb(&spec, rec, 5); /* the BCRC again (one block of 5 flits) */
    ub_view_init(&V);
    for (int round = 0; round < 3; round++) {
        bool n3 = round == 1;
        ub_decode(&V, n3 ? &ns3 : &spec, UB_ENTRY_FLIT, rec, (uint32_t)n);
        int l = find(&V, UB_H_LPH);
        CHECK_EQ(l, 0);
        CHECK_EQ(V.layer[l].hdr->vidx, n3 ? UB_V_LPH_NS3 : 0);
        CHECK_EQ(ub_lget(&V.layer[l], 7 /* LPH_RT */), n3 ? 2 : 1);
        CHECK_EQ(V.nerrs, 0);
        CHECK_EQ(V.nlayers, n3 ? 7 : 8); /* LPH NTH [CCI overlay: not with ns-3-UB] BTAH MAETAH payload padding BCRC */
        int b = find(&V, UB_H_BCRC), p = find(&V, UB_H_FLITPAD);
        CHECK_EQ(b, V.nlayers - 1);
        CHECK_EQ(V.layer[b].status, UB_CK_GOOD);
        CHECK_EQ(V.layer[b].off, 96);
        CHECK_EQ(p, V.nlayers - 2);
        CHECK_EQ(V.layer[p].off, 92);
        CHECK_EQ(V.layer[p].len, 4);
    }
    rec[2] &= 0x3F;
    ub_frame_dllcb(&spec, rec, 5);

    /* LPH bit 11 (reserved) set: found on every decode, also once the table's entry is cached */
    for (int round = 0; round < 3; round++) {
        bool bad = round != 1;
        if (bad) rec[1] |= 0x10;
        else rec[1] &= 0xEF;
        ub_decode(&V, &spec, UB_ENTRY_FLIT, rec, (uint32_t)n);
        /* the BCRC covers the LPH: a changed bit is also a bad BCRC */
        CHECK_EQ(V.nerrs, bad ? 2 : 0);
        if (bad) {
            CHECK_EQ(V.err[0].code, UB_E_RSVD_BITS);
            CHECK_EQ(V.err[0].hdr, UB_H_LPH);
            CHECK_EQ(V.err[0].off, 1);
            CHECK_STR(V.err[0].what, "ub.lph.rsvd1");
            CHECK_EQ(V.err[1].code, UB_E_BCRC_BAD);
            CHECK_EQ(V.err[1].off, 96);
        }
    }
    rec[1] &= 0xEF;

    /* a view never initialised (garbage storage) decodes as a fresh one */
    memset(&G, 0xA5, sizeof G);
    ub_decode(&G, &spec, UB_ENTRY_FLIT, rec, (uint32_t)n);
    ub_decode(&V, &spec, UB_ENTRY_FLIT, rec, (uint32_t)n);
    CHECK_EQ(G.nerrs, 0);
    CHECK_EQ(G.nlayers, V.nlayers);
    for (unsigned i = 0; i < V.nlayers && i < G.nlayers; i++) {
        CHECK(G.layer[i].hdr == V.layer[i].hdr);
        CHECK_EQ(G.layer[i].off, V.layer[i].off);
        CHECK_EQ(G.layer[i].len, V.layer[i].len);
        CHECK_EQ(G.layer[i].depth, V.layer[i].depth);
    }

    /* the same record cut by the snapshot length takes the general DLLDP path: the same layers up to
     * the cut, no error for what is missing */
    ub_decode_wire(&G, &spec, UB_ENTRY_FLIT, rec, 94, (uint32_t)n);
    CHECK_EQ(G.nerrs, 0);
    CHECK_EQ(G.nlayers, 7); /* no BCRC: not present */
    for (unsigned i = 0; i < 6; i++) CHECK(G.layer[i].hdr == V.layer[i].hdr);
    CHECK_EQ(G.layer[6].hdr->id, UB_H_FLITPAD);
    CHECK_EQ(G.layer[6].len, 2);

    /* padding not zero (DL-08) on the fixed-offset path: at its byte */
    rec[94] = 0x01;
    ub_decode(&V, &spec, UB_ENTRY_FLIT, rec, (uint32_t)n);
    CHECK(V.nerrs >= 1);
    CHECK_EQ(V.err[0].code, UB_E_PADDING);
    CHECK_EQ(V.err[0].off, 94);
    rec[94] = 0;

    /* PLENGTH: every payload length encodes and decodes back; the valid codes are exactly those */
    for (int crc = 0; crc < 2; crc++) {
        unsigned valid = 0, lens = 0;
        for (unsigned p = 0; p < 0x4000; p++) valid += ub_plength_payload_len(p, crc) >= 0;
        for (unsigned len = 1; len < 10300; len++) {
            int p = ub_plength_encode(len, crc);
            if (p < 0) continue;
            lens++;
            CHECK_EQ(ub_plength_payload_len((unsigned)p, crc), (int)len);
        }
        CHECK_EQ(valid, crc ? 10142 : 10205);
        CHECK_EQ(lens, valid);
    }
    return ub_test_finish();
}

#include "decoder_test.h"

/* ====================================================================== test_cfg5.c
 * CFG 5 network-control packets (App. F, digest §9.2): direct calls of ub_dec_cfg5 and
 * end-to-end through ub_decode (LPH / 1-byte CFG pseudo-header entries). */
static ub_view V;
static ub_opts O;

static void run(const uint8_t *p, uint32_t len)
{
    ub_dec d;
    td_init(&d, &V, &O, p, len);
    ub_dec_cfg5(&d, 0, len);
}

static void prefixes(const uint8_t *p, uint32_t len, bool must_err)
{
    for (uint32_t n = 0; n < len; n++) {
        run(p, n);
        if (must_err && V.nerrs == 0) {
            fprintf(stderr, "cfg5 prefix %u of %u: no error\n", n, len);
            CHECK(V.nerrs > 0);
        }
        for (unsigned i = 0; i < V.nlayers; i++) CHECK(V.layer[i].off + V.layer[i].len <= n);
    }
}

#define ONES14 "ff ff ff ff ff ff ff ff ff ff ff ff ff ff "
#define SGUID "00 11 22 33 44 55 66 77 88 99 aa bb cc dd ee ff "

/* build Protocol + DGUID + SGUID + PDU */
static uint32_t frame(uint8_t *b, size_t cap, const char *proto_dguid_hex, const char *pdu_hex)
{
    size_t n = ub_hex(proto_dguid_hex, b, cap);
    n += ub_hex(SGUID, b + n, cap - n);
    n += ub_hex(pdu_hex, b + n, cap - n);
    return (uint32_t)n;
}

static void t_ipnotify(void)
{
    uint8_t b[128];
    char buf[64];
    /* IPv4, DGUID all ones (HiSilicon driver, I-36) */
    uint32_t n = frame(b, sizeof b, "01 02 " ONES14 "ff ff", "10 18 c0 a8 01 02");
    CHECK_EQ(n, 40);
    run(b, n);
    CHECK_NOERR(&V, "ipn4");
    CHECK_EQ(V.nlayers, 2);
    CHECK_EQ(V.layer[0].hdr->id, UB_H_NCTL);
    CHECK_EQ(V.layer[1].hdr->id, UB_H_IPNOTIFY4);
    CHECK_EQ(td_get(&V, "ub.nctl.protocol"), 0x0102);
    CHECK_EQ(td_get(&V, "ub.nctl.dguid_kind"), 2);
    CHECK_STR(td_fmt(&V, 0, "dguid", buf, sizeof buf), "ffffffffffffffffffffffffffffffff");
    CHECK_STR(td_fmt(&V, 0, "sguid", buf, sizeof buf), "00112233445566778899aabbccddeeff");
    CHECK_EQ(td_get(&V, "ub.ipnotify.version"), 1);
    CHECK_EQ(td_get(&V, "ub.ipnotify.mask"), 24);
    CHECK_STR(td_fmt(&V, 1, "ip_address", buf, sizeof buf), "192.168.1.2");
    prefixes(b, n, true);
    /* well-known DGUID of IP notify (low 16 bits 0x0102) */
    n = frame(b, sizeof b, "01 02 " ONES14 "01 02", "10 18 c0 a8 01 02");
    run(b, n);
    CHECK_NOERR(&V, "ipn4 wk");
    CHECK_EQ(td_get(&V, "ub.nctl.dguid_kind"), 1);
    /* well-known GUID of another protocol; a device GUID */
    n = frame(b, sizeof b, "01 02 " ONES14 "01 00", "10 18 c0 a8 01 02");
    run(b, n);
    CHECK_EQ(td_get(&V, "ub.nctl.dguid_kind"), 3);
    n = frame(b, sizeof b, "01 02 " SGUID, "10 18 c0 a8 01 02");
    run(b, n);
    CHECK_EQ(td_get(&V, "ub.nctl.dguid_kind"), 0);
    CHECK_NOERR(&V, "ipn4 unicast");
    /* IPv6 */
    n = frame(b, sizeof b, "01 02 " ONES14 "01 02", "20 40 20 01 0d b8 00 00 00 00 00 00 00 00 00 00 00 01");
    CHECK_EQ(n, 52);
    run(b, n);
    CHECK_NOERR(&V, "ipn6");
    CHECK_EQ(V.layer[1].hdr->id, UB_H_IPNOTIFY6);
    CHECK_EQ(td_get(&V, "ub.ipnotify.version"), 2);
    CHECK_EQ(td_get(&V, "ub.ipnotify.mask"), 64);
    CHECK_STR(td_fmt(&V, 1, "ip_address", buf, sizeof buf), "2001:db8::1");
    prefixes(b, n, true);
    /* reserved Version, trailing bytes, reserved bits */
    n = frame(b, sizeof b, "01 02 " ONES14 "ff ff", "30 18 c0 a8 01 02");
    run(b, n);
    CHECK_EQ(td_nerr(&V, UB_E_RSVD_VALUE), 1);
    CHECK_EQ(V.layer[1].hdr->id, UB_H_NCTL_PDU);
    n = frame(b, sizeof b, "01 02 " ONES14 "ff ff", "10 18 c0 a8 01 02 00 00");
    run(b, n);
    CHECK_EQ(td_nerr(&V, UB_E_TRAILING), 1);
    CHECK_EQ(V.nlayers, 3);
    n = frame(b, sizeof b, "01 02 " ONES14 "ff ff", "11 18 c0 a8 01 02");
    run(b, n);
    CHECK_EQ(td_nerr(&V, UB_E_RSVD_BITS), 1);
}

static void t_npic(void)
{
    uint8_t b[128];
    char buf[64];
    uint32_t n = frame(b, sizeof b, "01 06 " ONES14 "01 06",
                       "01 00 00 02 "
                       "01 02 03 04 05 06 07 08 09 0a 0b 0c 0d 0e 0f 10 00 00 00 01 "
                       "a1 a2 a3 a4 a5 a6 a7 a8 a9 aa ab ac ad ae af b0 01 00 00 05");
    CHECK_EQ(n, 78);
    run(b, n);
    CHECK_NOERR(&V, "npic");
    CHECK_EQ(td_get(&V, "ub.nctl.dguid_kind"), 1);
    CHECK_EQ(td_get(&V, "ub.npic.opcode"), 1);
    CHECK_EQ(td_get(&V, "ub.npic.sum"), 2);
    int e0 = ub_view_find(&V, UB_H_NPIC_ENTRY, 0), e1 = ub_view_find(&V, UB_H_NPIC_ENTRY, e0 + 1);
    CHECK_EQ(e0, 2);
    CHECK_EQ(e1, 3);
    CHECK_EQ(V.nlayers, 4);
    CHECK_EQ(V.layer[e0].depth, 1);
    CHECK_STR(td_fmt(&V, e0, "guid", buf, sizeof buf), "0102030405060708090a0b0c0d0e0f10");
    CHECK_EQ(td_lv(&V, e0, "npi"), 1);
    CHECK_EQ(td_lv(&V, e0, "npi_permission"), 0);
    CHECK_EQ(td_lv(&V, e0, "npi_id"), 1);
    CHECK_EQ(td_lv(&V, e1, "npi"), 0x01000005);
    CHECK_EQ(td_lv(&V, e1, "npi_permission"), 1);
    CHECK_EQ(td_lv(&V, e1, "npi_id"), 5);
    prefixes(b, n, true);
    /* reserved opcode; Sum larger than the pairs present; NPI[31:25] set */
    b[34] = 3;
    run(b, n);
    CHECK_EQ(td_nerr(&V, UB_E_RSVD_VALUE), 1);
    b[34] = 1;
    b[37] = 3;
    run(b, n);
    CHECK_EQ(td_nerr(&V, UB_E_LENGTH), 1);
    CHECK_EQ(V.nlayers, 4);
    b[37] = 2;
    b[54] = 0x80;
    run(b, n);
    CHECK_EQ(td_nerr(&V, UB_E_RSVD_BITS), 1);
    CHECK_EQ(V.nerrs, 1);
    /* clear: Sum 0 */
    n = frame(b, sizeof b, "01 06 " ONES14 "01 06", "02 00 00 00");
    run(b, n);
    CHECK_NOERR(&V, "npic clear");
    CHECK_EQ(V.nlayers, 2);
}

static void t_other(void)
{
    uint8_t b[200];
    /* LLDP (HiSilicon 0x0109, I-22) */
    uint32_t n = frame(b, sizeof b, "01 09 " ONES14 "01 09", "02 07 04 00 11 22 33 44 55 00 00");
    run(b, n);
    CHECK_NOERR(&V, "lldp");
    CHECK_EQ(V.nlayers, 2);
    CHECK_EQ(V.layer[1].hdr->id, UB_H_NCTL_PDU);
    CHECK_EQ(V.layer[1].len, 11);
    /* ULAP */
    n = frame(b, sizeof b, "01 04 " ONES14 "01 04", "01 01 01 14");
    run(b, n);
    CHECK_NOERR(&V, "ulap");
    CHECK_EQ(V.layer[1].hdr->id, UB_H_NCTL_PDU);
    /* vendor range */
    n = frame(b, sizeof b, "01 15 " SGUID, "de ad");
    run(b, n);
    CHECK_NOERR(&V, "vendor");
    /* reserved protocols */
    n = frame(b, sizeof b, "01 03 " SGUID, "de ad");
    run(b, n);
    CHECK_EQ(td_nerr(&V, UB_E_RSVD_VALUE), 1);
    n = frame(b, sizeof b, "08 00 " SGUID, "de ad");
    run(b, n);
    CHECK_EQ(td_nerr(&V, UB_E_RSVD_VALUE), 1);
    CHECK_EQ(V.nlayers, 2);
    /* header only */
    n = frame(b, sizeof b, "01 09 " SGUID, "");
    run(b, n);
    CHECK_NOERR(&V, "hdr only");
    CHECK_EQ(V.nlayers, 1);

    /* DHCPv4: IPv4 (20) + UDP (8) + DHCP (op 1, htype 38, hlen 16) */
    n = frame(b, sizeof b, "01 00 " ONES14 "01 00",
              "45 00 01 48 00 00 40 00 40 11 00 00 00 00 00 00 ff ff ff ff "
              "00 44 00 43 01 34 00 00 "
              "01 26 10 00 12 34 56 78");
    run(b, n);
    CHECK_NOERR(&V, "dhcp4");
    CHECK_EQ(V.nlayers, 4);
    CHECK_EQ(V.layer[1].hdr->id, UB_H_IPV4);
    CHECK_EQ(V.layer[2].hdr->id, UB_H_UDP);
    CHECK_EQ(V.layer[3].hdr->id, UB_H_NCTL_PDU);
    CHECK_EQ(V.layer[1].len, 20);
    CHECK_EQ(V.layer[3].off, 34 + 28);
    CHECK_EQ(td_get(&V, "ub.ipv4.protocol"), 17);
    CHECK_EQ(td_get(&V, "ub.udp.dstport"), 67);
    CHECK_EQ(td_get(&V, "ub.nctl.dguid_kind"), 1);
    prefixes(b, n, false);
    run(b, 34 + 10);
    CHECK_EQ(td_nerr(&V, UB_E_TRUNCATED), 1);
    /* DHCPv6 */
    n = frame(b, sizeof b, "01 01 " ONES14 "01 01",
              "60 00 00 00 00 0c 11 40 fe 80 00 00 00 00 00 00 00 00 00 00 00 00 00 01 "
              "ff 02 00 00 00 00 00 00 00 00 00 00 00 01 00 02 "
              "02 22 02 23 00 0c 00 00 01 00 00 01");
    run(b, n);
    CHECK_NOERR(&V, "dhcp6");
    CHECK_EQ(V.layer[1].hdr->id, UB_H_IPV6);
    CHECK_EQ(V.layer[2].hdr->id, UB_H_UDP);
    CHECK_EQ(V.layer[3].len, 4);
    CHECK_EQ(td_get(&V, "ub.udp.dstport"), 547);
    prefixes(b, n, false);
}

static void t_mutate(void)
{
    uint8_t base[3][128], c[160];
    uint32_t len[3];
    len[0] = frame(base[0], sizeof base[0], "01 02 " ONES14 "ff ff", "20 40 20 01 0d b8 00 00 00 00 00 00 00 00 00 00 00 01");
    len[1] = frame(base[1], sizeof base[1], "01 06 " ONES14 "01 06",
                   "01 00 00 02 01 02 03 04 05 06 07 08 09 0a 0b 0c 0d 0e 0f 10 00 00 00 01 "
                   "a1 a2 a3 a4 a5 a6 a7 a8 a9 aa ab ac ad ae af b0 01 00 00 05");
    len[2] = frame(base[2], sizeof base[2], "01 00 " ONES14 "01 00",
                   "45 00 01 48 00 00 40 00 40 11 00 00 00 00 00 00 ff ff ff ff 00 44 00 43 01 34 00 00 01 26");
    uint32_t x = 0x9e3779b9u;
    for (int it = 0; it < 20000; it++) {
        int s = it % 3;
        memcpy(c, base[s], len[s]);
        for (int k = 0; k < 3; k++) {
            x ^= x << 13; x ^= x >> 17; x ^= x << 5;
            uint32_t pos = (x & 0x100) ? x % len[s] : 34 + x % (len[s] - 34);
            c[pos] = (uint8_t)(x >> 16);
        }
        x ^= x << 13; x ^= x >> 17; x ^= x << 5;
        if ((x & 7) == 0) c[1] = (uint8_t)(x >> 8); /* any protocol */
        run(c, len[s]);
        for (unsigned i = 0; i < V.nlayers; i++) CHECK(V.layer[i].off + V.layer[i].len <= len[s]);
    }
}

static void t_e2e(void)
{
    uint8_t b[128], rec[160];
    uint32_t n = frame(b, sizeof b, "01 02 " ONES14 "ff ff", "10 18 c0 a8 01 02");
    /* 1-byte CFG pseudo-header (Linux ubl capture) */
    rec[0] = 5;
    memcpy(rec + 1, b, n);
    ub_decode(&V, &O, UB_ENTRY_CFGPH, rec, n + 1);
    CHECK_NOERR(&V, "cfgph");
    CHECK_EQ(td_get(&V, "ub.ipnotify.mask"), 24);
    CHECK_EQ(td_get(&V, "ub.nctl.protocol"), 0x0102);
    /* LPH (CFG 5) + packet, no ICRC */
    int pl = ub_plength_encode(n, O.crc_mode);
    CHECK(pl >= 0);
    rec[0] = 0x00;
    rec[1] = 0x05;
    rec[2] = (uint8_t)((pl >> 8) & 0x3F);
    rec[3] = (uint8_t)pl;
    memcpy(rec + 4, b, n);
    ub_decode(&V, &O, UB_ENTRY_PKT, rec, n + 4);
    CHECK_NOERR(&V, "lph cfg5");
    CHECK_EQ(td_get(&V, "ub.ipnotify.version"), 1);
    CHECK_EQ(td_get(&V, "ub.nctl.dguid_kind"), 2);
    for (uint32_t k = 1; k < n + 4; k++) ub_decode(&V, &O, UB_ENTRY_PKT, rec, k);
}

int main(void)
{
    ub_opts_default(&O);
    t_ipnotify();
    t_npic();
    t_other();
    t_mutate();
    t_e2e();
    return ub_test_finish();
}

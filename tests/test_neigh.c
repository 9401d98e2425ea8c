/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Neighbouring interconnects (docs/neighbours.md): RoCEv2/IB transport on UDP 4791 and inside UB CFG 3/4,
 * the UDP 4791 rule (RoCEv2 vs SUE), SUE RH (both byte orders) over UDP and AFH framing, PCIe 6 flits.
 * Decoded values, errors, names, and that none of it is taken for UB. */
#include "internal.h"
#include "ubparse/audit.h"
#include "ubparse/state.h"
#include "ubparse/capfile.h"
#include "ubtest.h"

static ub_opts O;
static ub_view V;
static uint8_t buf[4096];

static uint32_t build(const char *text)
{
    char err[200] = "";
    ub_entry e = UB_ENTRY_NONE;
    long n = ub_build_text(text, &O, buf, sizeof buf, &e, err, sizeof err);
    if (n < 0) fprintf(stderr, "build: %s\n", err);
    CHECK(n > 0);
    return n > 0 ? (uint32_t)n : 0;
}
static int dec(const char *text, ub_entry e)
{
    uint32_t n = build(text);
    return ub_decode(&V, &O, e, buf, n);
}
static uint64_t get(const char *name)
{
    uint64_t u = 0xDEADBEEF;
    CHECK_EQ(ub_view_get(&V, name, &u), 0);
    return u;
}
static const char *sum(void)
{
    static char s[256];
    ub_summary(&V, s, sizeof s);
    return s;
}
#define ETH4791 "eth icrc=none\neth dst=02:00:00:00:00:02 src=02:00:00:00:00:01\nipv4 src=10.0.0.1 dst=10.0.0.2\nudp srcport=49152 dstport=4791\n"

static void t_rocev2(void)
{
    CHECK_EQ(dec(ETH4791 "ib_bth opcode=4 p_key=0xffff destqp=0x12 a=1 psn=5\ndata inc=16\nib_icrc crc=0x11223344\n", UB_ENTRY_ETH), 0);
    CHECK_EQ(V.kind, UB_KIND_OTHER); /* not UB */
    CHECK(!ub_view_ub(&V));
    CHECK_EQ(get("infiniband.bth.opcode"), 4);
    CHECK_EQ(get("infiniband.bth.destqp"), 0x12);
    CHECK_EQ(get("infiniband.bth.psn"), 5);
    CHECK_EQ(get("infiniband.bth.a"), 1);
    CHECK_EQ(get("infiniband.invariant.crc"), 0x11223344);
    CHECK_STR(sum(), "ETH/IPv4/UDP 10.0.0.1:49152→10.0.0.2:4791 RoCEv2 RC SEND_ONLY QP 0x12 PSN 5 AckReq");
    /* RDMA Write First: BTH, RETH */
    CHECK_EQ(dec(ETH4791 "ib_bth opcode=6 p_key=0xffff destqp=0x12 psn=6\nib_reth va=0x10000000 r_key=0x77 dmalen=128\ndata inc=64\nib_icrc\n", UB_ENTRY_ETH), 0);
    CHECK_EQ(get("infiniband.reth.va"), 0x10000000);
    CHECK_EQ(get("infiniband.reth.r_key"), 0x77);
    CHECK_EQ(get("infiniband.reth.dmalen"), 128);
    /* NAK (PSN sequence error), AETH */
    CHECK_EQ(dec(ETH4791 "ib_bth opcode=0x11 p_key=0xffff destqp=0x11 psn=8\nib_aeth syndrome=0x60 msn=3\nib_icrc\n", UB_ENTRY_ETH), 0);
    CHECK_EQ(get("infiniband.aeth.syndrome"), 0x60);
    CHECK_EQ(get("infiniband.aeth.syndrome.opcode"), 3);
    CHECK_EQ(get("infiniband.aeth.msn"), 3);
    CHECK_STR(sum(), "ETH/IPv4/UDP 10.0.0.1:49152→10.0.0.2:4791 RoCEv2 RC ACKNOWLEDGE QP 0x11 PSN 8 NAK PSN sequence error");
    /* Atomic ACK: BTH, AETH, AtomicAckETH; compare-swap: AtomicETH */
    CHECK_EQ(dec(ETH4791 "ib_bth opcode=0x12 p_key=0xffff destqp=0x11 psn=11\nib_aeth msn=6\nib_atomicacketh origremdt=0x1234\nib_icrc\n", UB_ENTRY_ETH), 0);
    CHECK_EQ(get("infiniband.atomicacketh.origremdt"), 0x1234);
    CHECK_EQ(dec(ETH4791 "ib_bth opcode=0x13 p_key=0xffff destqp=0x12 psn=11\nib_atomiceth va=0x2000 r_key=9 swapdt=5 cmpdt=4\nib_icrc\n", UB_ENTRY_ETH), 0);
    CHECK_EQ(get("infiniband.atomiceth.cmpdt"), 4);
    CHECK_EQ(get("infiniband.atomiceth.swapdt"), 5);
    CHECK_EQ(get("infiniband.reth.va"), 0x2000); /* Wireshark's name for the AtomicETH VA and R_Key */
    CHECK_EQ(get("infiniband.reth.r_key"), 9);
    /* UD send with immediate: BTH, DETH, ImmDt; send with invalidate: IETH; CNP */
    CHECK_EQ(dec(ETH4791 "ib_bth opcode=0x65 p_key=0xffff destqp=1 psn=1\nib_deth q_key=0x11111111 srcqp=0x99\nib_immdt data=0xabcd\ndata inc=8\nib_icrc\n", UB_ENTRY_ETH), 0);
    CHECK_EQ(get("infiniband.deth.srcqp"), 0x99);
    CHECK_EQ(get("infiniband.immdt.data"), 0xabcd);
    CHECK_EQ(dec(ETH4791 "ib_bth opcode=0x17 p_key=0xffff destqp=0x12 psn=13\nib_ieth r_key=0x4242\nib_icrc\n", UB_ENTRY_ETH), 0);
    CHECK_EQ(get("infiniband.ieth.r_key"), 0x4242);
    CHECK_EQ(dec(ETH4791 "ib_bth opcode=0x81 p_key=0xffff destqp=0x11 psn=0\nib_cnp\nib_icrc\n", UB_ENTRY_ETH), 0);
    CHECK_STR(sum(), "ETH/IPv4/UDP 10.0.0.1:49152→10.0.0.2:4791 RoCEv2 CNP QP 0x11");
    /* inside a UB CFG 3 packet: a UB link packet whose IP part is RoCEv2 */
    CHECK_EQ(dec("pkt icrc=none\nlph vl=0 cfg=3\nnthip npi_id=1\nipv4 src=10.0.0.2 dst=10.0.0.1\nudp srcport=49152 dstport=4791\n"
                  "ib_bth opcode=0x11 p_key=0xffff destqp=0x11 psn=5\nib_aeth syndrome=0x1f msn=1\nib_icrc\n", UB_ENTRY_PKT), 0);
    CHECK_EQ(V.claim, UB_CLAIM_NONE); /* the IP packet is not UB transport */
    CHECK_EQ(get("infiniband.aeth.msn"), 1);
    CHECK_STR(sum(), "CFG3 IPv4/UDP 10.0.0.2:49152→10.0.0.1:4791 RoCEv2 RC ACKNOWLEDGE QP 0x11 PSN 5 ACK MSN 1");
    /* truncated BTH chain: an error, no crash */
    CHECK(dec(ETH4791 "data hex=0c00ffff0000001280000001000000\n", UB_ENTRY_ETH) >= 0);
    CHECK(ub_view_find(&V, UB_H_IB_BTH, 0) < 0); /* 15 bytes: neither RoCEv2 nor SUE */
}

/* the UDP 4791 rule */
static void t_4791(void)
{
    uint8_t b[64];
    /* BTH SEND_ONLY, P_Key 0xFFFF, 16 payload, ICRC */
    size_t n = ub_hex("04 00 ff ff 00 00 00 12 80 00 00 05 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 11 22 33 44", b, sizeof b);
    CHECK_EQ(ub_udp4791_kind(&O, b, (uint32_t)n), UB_NEIGH_ROCEV2);
    /* RH (Opcode byte first): SEND, ts_en, Pkt_len 40 = 8 + 32 */
    uint8_t r[40] = { 0x01, 0x12, 0x34, 0x05, (40 << 1) | 0, 0x00, 0xE0, 0x03 };
    CHECK_EQ(ub_udp4791_kind(&O, r, 40), UB_NEIGH_SUE);
    /* an RH ACK (8 bytes) cannot be a BTH (no room for BTH + ICRC) */
    uint8_t a[8] = { 0x40, 0, 0, 0, 0x60 << 1, 0, 0xE0, 0x03 };
    CHECK_EQ(ub_udp4791_kind(&O, a, 8), UB_NEIGH_SUE);
    /* both fit: P_Key 0xFFFF says RoCEv2 */
    uint8_t both[32] = { 0x00, 0x00, 0xff, 0xff, 0, 0, 0, 0x12, 0, 0, 0, 1 };
    CHECK_EQ(ub_udp4791_kind(&O, both, 32), UB_NEIGH_ROCEV2);
    /* neither: TVer 3 and a reserved RH opcode */
    uint8_t none[32] = { 0xC3, 0x03, 0xff, 0xff };
    CHECK_EQ(ub_udp4791_kind(&O, none, 32), UB_NEIGH_NONE);
    /* forced */
    ub_opts f = O;
    CHECK_EQ(ub_opts_set(&f, "udp4791=sue", NULL, 0), 0);
    CHECK_EQ(ub_udp4791_kind(&f, b, (uint32_t)n), UB_NEIGH_SUE);
    CHECK_EQ(ub_opts_set(&f, "udp4791=roce", NULL, 0), 0);
    CHECK_EQ(ub_udp4791_kind(&f, r, 40), UB_NEIGH_ROCEV2);
    CHECK(ub_opts_set(&f, "udp4791=both", NULL, 0) != 0);
}

static void t_sue(void)
{
    CHECK_EQ(dec(ETH4791 "sue_rh opcode=0 ts_en=1 timestamp=0x1234 p_key=5 pkt_len=40 psn=7 dest_qp=3\ndata inc=32\n", UB_ENTRY_ETH), 0);
    CHECK_EQ(V.kind, UB_KIND_OTHER);
    CHECK_EQ(get("sue.rh.opcode"), 0);
    CHECK_EQ(get("sue.rh.psn"), 7);
    CHECK_EQ(get("sue.rh.dest_qp"), 3);
    CHECK_EQ(get("sue.rh.timestamp"), 0x1234);
    CHECK_EQ(get("sue.rh.pkt_len"), 40);
    CHECK_EQ(V.rec[14 + 20 + 8], 0x01); /* Opcode byte first: 00 0 00 00 1 */
    CHECK_STR(sum(), "ETH/IPv4/UDP 10.0.0.1:49152→10.0.0.2:4791 SUE SEND QP 0x3 PSN 7");
    /* a wrong Pkt_len is an error */
    CHECK_EQ(dec(ETH4791 "sue_rh opcode=0 ts_en=1 pkt_len=41 psn=7 dest_qp=3\ndata inc=32\n", UB_ENTRY_ETH), 0); /* rule: not SUE now */
    CHECK(ub_view_find(&V, UB_H_SUE_RH, 0) < 0);
    ub_opts keep = O;
    CHECK_EQ(ub_opts_set(&O, "udp4791=sue", NULL, 0), 0);
    CHECK_EQ(dec(ETH4791 "sue_rh opcode=0 ts_en=1 pkt_len=41 psn=7 dest_qp=3\ndata inc=32\n", UB_ENTRY_ETH), 1);
    CHECK_EQ(V.err[0].code, UB_E_LENGTH);
    CHECK_EQ(V.err[0].actual, 41);
    CHECK_EQ(V.err[0].expected, 40);
    /* the other byte order: Dest_QP byte first */
    CHECK_EQ(ub_opts_set(&O, "sue.rh_order=le", NULL, 0), 0);
    CHECK_EQ(dec(ETH4791 "sue_rh_le opcode=1 aeth_syndrome=0x60 psn=0x123 dest_qp=0x1abc\n", UB_ENTRY_ETH), 0);
    CHECK_EQ(get("sue.rh.psn"), 0x123);
    CHECK_EQ(get("sue.rh.dest_qp"), 0x1abc);
    CHECK_EQ(get("sue.rh.opcode"), 1);
    CHECK_EQ(V.rec[14 + 20 + 8], 0xbc);     /* Dest_QP[7:0] */
    CHECK_EQ(V.rec[14 + 20 + 8 + 7], 0x40); /* Opcode 01 in the last byte */
    CHECK_STR(sum(), "ETH/IPv4/UDP 10.0.0.1:49152→10.0.0.2:4791 SUE NAK QP 0x1abc PSN 291 [RH Dest_QP byte first]");
    O = keep;
    /* AFH_GEN2_16b: EtherType 0x88B5, Key_words 0x82 */
    CHECK_EQ(dec("eth icrc=none\neth dst=03:00:01:00:00:02 src=82:00:00:00:00:01 type=0x88b5\nsue_rh opcode=1 aeth_syndrome=0 psn=9 dest_qp=3\n", UB_ENTRY_ETH), 0);
    CHECK_EQ(get("sue.afh.tc"), 3);
    CHECK_EQ(get("sue.afh.key_words"), 0x82);
    CHECK_EQ(get("sue.afh.dst_addr"), 2);
    CHECK_EQ(get("sue.afh.src_addr"), 1);
    CHECK_STR(sum(), "ETH/SUE AFH ACK QP 0x3 PSN 9");
    /* AFH_GEN1 (Key_words absent: auto), TC in SA */
    CHECK_EQ(dec("eth icrc=none\neth dst=02:00:00:00:00:02 src=05:00:00:00:00:01 type=0x88b5\nsue_rh opcode=0 psn=10 dest_qp=3\ndata inc=4\n", UB_ENTRY_ETH), 0);
    CHECK_EQ(get("sue.afh.tc"), 5);
    CHECK_EQ(get("sue.afh.src_addr"), 1);
    /* TYPE2 EtherType with M = 0: an error */
    CHECK_EQ(dec("eth icrc=none\neth dst=03:00:01:00:00:02 src=82:00:00:00:00:01 type=0x88b6\nsue_rh opcode=0 psn=9 dest_qp=3\n", UB_ENTRY_ETH), 1);
    CHECK_EQ(V.err[0].code, UB_E_VALUE);
}

static void t_flit(void)
{
    CHECK_EQ(ub_entry_for_linktype(&O, 150), UB_ENTRY_PCIEFLIT);
    CHECK_EQ(ub_entry_for_linktype(&O, 228), UB_ENTRY_IP); /* LINKTYPE_IPV4 / IPV6: as LINKTYPE_RAW */
    CHECK_EQ(ub_entry_for_linktype(&O, 229), UB_ENTRY_IP);
    CHECK_EQ(dec("pcieflit\npcieflit usage=1 replay_cmd=0 seq=2 dllp_type=1 dllp=0xA0000000\npcieflit usage=0 replay_cmd=1 seq=0x3fe dllp_type=1 dllp=0x00102345\n",
                 UB_ENTRY_PCIEFLIT), 0);
    CHECK_EQ(V.kind, UB_KIND_OTHER);
    CHECK_EQ(V.rec_len, 512);
    CHECK_EQ(V.rec[236], 0x50); /* DLP0: usage 01, dllp type 1, cmd 00, seq[9:8] 00 */
    CHECK_EQ(V.rec[237], 2);
    CHECK_EQ(get("pcieflit.flit.seq"), 2);
    CHECK_EQ(get("pcieflit.marker.status"), 1);
    CHECK_EQ(get("pcieflit.oufc.p_hdr"), 2);
    CHECK_EQ(get("pcieflit.oufc.p_data"), 0x345);
    CHECK_STR(sum(), "PCIe flit Payload seq 2 nullified, NOP Ack 1022 (2 flits)");
    /* a Payload flit with sequence number 0, a reserved usage, a partial flit */
    CHECK_EQ(dec("pcieflit\npcieflit usage=1 seq=0\n", UB_ENTRY_PCIEFLIT), 1);
    CHECK_EQ(V.err[0].code, UB_E_VALUE);
    CHECK_EQ(dec("pcieflit\npcieflit usage=2 seq=1\n", UB_ENTRY_PCIEFLIT), 1);
    CHECK_EQ(V.err[0].code, UB_E_RSVD_VALUE);
    memset(buf, 0, 300);
    CHECK_EQ(ub_decode(&V, &O, UB_ENTRY_PCIEFLIT, buf, 300), 1);
    CHECK_EQ(V.err[0].code, UB_E_LENGTH);
    CHECK_EQ(V.err[0].off, 256);
}

/* names: infiniband.* / sue.* / pcieflit.* resolve, ub.* versions do not exist */
static void t_names(void)
{
    const ub_hdr *h[4];
    const ub_field *f[4];
    CHECK_EQ(ub_field_find("infiniband.bth.psn", h, f, 4), 1);
    CHECK_EQ(ub_field_find("ub.infiniband.bth.psn", h, f, 4), 0);
    CHECK_EQ(ub_field_find("sue.rh.psn", h, f, 4), 2); /* both byte orders */
    CHECK_EQ(ub_field_find("sue.afh.tc", h, f, 4), 2);
    CHECK_EQ(ub_field_find("pcieflit.flit.seq", h, f, 4), 1);
    CHECK_EQ(ub_field_find("ub.udp.dstport", h, f, 4), 1);
    CHECK_STR(ub_hdr_ns(ub_hdr_get(UB_H_IB_BTH)), "");
    CHECK_STR(ub_hdr_ns(ub_hdr_get(UB_H_UDP)), "ub.");
}

/* ---------------------------------------------------------------- the reliable-transport core, through the engine */
static char found[4096];
static void on_finding(void *ctx, const ub_finding *f)
{
    (void)ctx;
    size_t n = strlen(found);
    snprintf(found + n, sizeof found - n, "%s%s@%" PRIu64, n ? " " : "", ub_rule_get(f->rule)->id, f->frame);
}
static ub_state *ST;
static uint64_t FRAME;
static void feed(const char *text, ub_entry e, unsigned dir)
{
    uint32_t n = build(text);
    ub_decode(&V, &O, e, buf, n);
    FRAME++;
    ub_pktinfo pi = { FRAME, FRAME * 1000, 0, (uint8_t)dir };
    ub_state_packet(ST, &V, &pi);
}
static void engine(void)
{
    ub_state_cfg c;
    ub_state_cfg_default(&c);
    found[0] = 0;
    FRAME = 0;
    ST = ub_state_new(&c, on_finding, NULL);
    CHECK(ST != NULL);
}
static const char *engine_end(void)
{
    ub_state_finish(ST);
    ub_state_free(ST);
    return found;
}

static void t_core(void)
{
    char t[512];
    /* SUE TYPE1: 12-bit PSNs wrap 4095 -> 0, more than 512 outstanding is SUE-TP-006 (once), then acked */
    engine();
    for (unsigned i = 0; i < 514; i++) {
        snprintf(t, sizeof t, ETH4791 "sue_rh opcode=0 ts_en=1 timestamp=0x0a01 pkt_len=12 psn=%u dest_qp=3\ndata inc=4\n", (3800 + i) % 4096);
        feed(t, UB_ENTRY_ETH, 2);
    }
    feed("eth icrc=none\neth dst=02:00:00:00:00:01 src=02:00:00:00:00:02\nipv4 src=10.0.0.2 dst=10.0.0.1\nudp srcport=1 dstport=4791\n"
         "sue_rh opcode=1 aeth_syndrome=0 psn=217 dest_qp=2\n", UB_ENTRY_ETH, 1); /* (3800 + 513) % 4096 */
    CHECK_STR(engine_end(), "SUE-TP-006@513"); /* the 513th outstanding */
    /* IB RC: 24-bit PSNs wrap 0xFFFFFF -> 0 without a gap; a jump after an RDMA Read is no gap */
    engine();
    feed(ETH4791 "ib_bth opcode=4 p_key=0xffff destqp=0x12 psn=0xfffffe\ndata inc=4\nib_icrc\n", UB_ENTRY_ETH, 2);
    feed(ETH4791 "ib_bth opcode=4 p_key=0xffff destqp=0x12 psn=0xffffff\ndata inc=4\nib_icrc\n", UB_ENTRY_ETH, 2);
    feed(ETH4791 "ib_bth opcode=0x0c p_key=0xffff destqp=0x12 psn=0\nib_reth dmalen=8192\nib_icrc\n", UB_ENTRY_ETH, 2);
    feed(ETH4791 "ib_bth opcode=4 p_key=0xffff destqp=0x12 psn=2\ndata inc=4\nib_icrc\n", UB_ENTRY_ETH, 2); /* Read took 0, 1 */
    feed(ETH4791 "ib_bth opcode=4 p_key=0xffff destqp=0x12 psn=4\ndata inc=4\nib_icrc\n", UB_ENTRY_ETH, 2); /* 3 lost */
    CHECK_STR(engine_end(), "IB-RC-001@5");
    /* PCIe flits: sequence 1023 -> 1 (0 skipped); an Ack of 1 covers 1023 and 1 */
    engine();
    feed("pcieflit\npcieflit usage=1 seq=1022\n", UB_ENTRY_PCIEFLIT, 2);
    feed("pcieflit\npcieflit usage=1 seq=1023 prior_payload=1\n", UB_ENTRY_PCIEFLIT, 2);
    feed("pcieflit\npcieflit usage=1 replay_cmd=1 seq=0 prior_payload=1\n", UB_ENTRY_PCIEFLIT, 2); /* implied 1; Ack 0 ignored */
    feed("pcieflit\npcieflit usage=1 seq=2 prior_payload=1\n", UB_ENTRY_PCIEFLIT, 2);
    feed("pcieflit\npcieflit usage=0 replay_cmd=1 seq=2\n", UB_ENTRY_PCIEFLIT, 1);
    /* 4 back: within the window, but behind ACKD_FLIT_SEQ_NUM = 2 ((N - ACKD) mod 1023 > 511, st_pcie.c) */
    feed("pcieflit\npcieflit usage=0 replay_cmd=1 seq=1021\n", UB_ENTRY_PCIEFLIT, 1);
    feed("pcieflit\npcieflit usage=0 replay_cmd=1 seq=3\n", UB_ENTRY_PCIEFLIT, 1);  /* never sent */
    CHECK_STR(engine_end(), "PCIE-FL-003@6 PCIE-FL-003@7");
}

/* hostile input: every record of the neighbour captures, mutated, through decode, printers and the engine */
static void t_mutate(void)
{
    static const char *const caps[] = { "rocev2_rc", "rocev2_cfg3", "sue_std", "sue_afh", "pcie_flit", "pcie_nak" };
    FILE *out = fopen("/dev/null", "w");
    CHECK(out != NULL);
    uint32_t x = 99;
    for (unsigned c = 0; c < sizeof caps / sizeof caps[0] && out; c++) {
        char path[1024], err[200];
        snprintf(path, sizeof path, "%s/captures/%s.pcapng", UB_SOURCE_DIR, caps[c]);
        ub_capfile *cf = ub_cap_open(path, err, sizeof err);
        CHECK(cf != NULL);
        if (!cf) continue;
        engine();
        ub_rec r;
        unsigned n = 0;
        while (ub_cap_next(cf, &r) == 1) {
            ub_entry e = ub_entry_for_linktype(&O, r.linktype);
            for (int round = 0; round < 200; round++) {
                uint32_t len = r.caplen > sizeof buf ? (uint32_t)sizeof buf : r.caplen;
                memcpy(buf, r.data, len);
                for (int k = 0; k < 1 + round % 4; k++) {
                    x = x * 1103515245u + 12345u;
                    if (len) buf[(x >> 8) % len] ^= (uint8_t)(1u << ((x >> 4) & 7));
                }
                if (round % 5 == 4 && len) len = (x >> 12) % len; /* cut short */
                for (int o = 0; o < 3; o++) {
                    ub_opts op = O;
                    op.udp4791 = (uint8_t)o;
                    op.sue_rh_order = (uint8_t)(round & 1);
                    ub_decode(&V, &op, e, buf, len);
                    char sm[256];
                    ub_summary(&V, sm, sizeof sm);
                    ub_print_tree(out, &V);
                    ub_print_json(out, &V);
                    FRAME++;
                    ub_pktinfo pi = { FRAME, FRAME, 0, (uint8_t)(1 + (round & 1)) };
                    ub_state_packet(ST, &V, &pi);
                    CHECK(V.nlayers <= UB_MAX_LAYERS);
                }
            }
            n++;
        }
        CHECK(n > 0);
        engine_end();
        ub_cap_close(cf);
    }
    if (out) fclose(out);
}

int main(void)
{
    ub_opts_default(&O);
    ub_view_init(&V);
    t_rocev2();
    t_4791();
    t_sue();
    t_flit();
    t_names();
    t_core();
    t_mutate();
    return ub_test_finish();
}

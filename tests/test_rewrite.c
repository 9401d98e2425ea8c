/* Rewrite pipeline (rewrite.h): every rewritten packet is compared byte for byte with the packet the
 * builder makes from the new field values (so every other byte is unchanged and every CRC is the
 * right one), decoded for good CRCs, and unmodified packets must come out untouched. */
#include "ubparse/rewrite.h"
#include "ubparse/ubparse.h"
#include "ubtest.h"

#include <stdlib.h>

static ub_opts O;
static ub_view V;

static long build(const char *text, uint8_t *out, size_t cap, ub_entry *e)
{
    char err[256];
    long n = ub_build_text(text, &O, out, cap, e, err, sizeof err);
    if (n < 0) { fprintf(stderr, "build: %s\n%s\n", err, text); abort(); }
    return n;
}

static uint64_t field(const uint8_t *p, uint32_t n, ub_entry e, const char *abbrev)
{
    ub_decode(&V, &O, e, p, n);
    uint64_t u = UINT64_MAX;
    if (ub_view_get(&V, abbrev, &u) < 0) return UINT64_MAX;
    return u;
}

static int n_errors(const uint8_t *p, uint32_t n, ub_entry e)
{
    ub_decode(&V, &O, e, p, n);
    return V.nerrs;
}

static ub_rw *mk(const ub_rw_cfg *c)
{
    char err[256];
    ub_rw *rw = ub_rw_new(c, err, sizeof err);
    if (!rw) { fprintf(stderr, "%s\n", err); abort(); }
    return rw;
}

#define RTP_WRITE(scna, psn, tassn, lenpay) \
    "flit\nlph vl=2\nnth24 scna=" scna " dcna=0x0a0b0c\n" \
    "rtph last=1 srctpn=0x101 dsttpn=0x202 psn=" psn " tpmsn=1 a=1\n" \
    "btah taopcode=Write ini_tassn=" tassn " ini_rc_id=0x20\n" \
    "maetah address=0x80000000 tokenid=0x42 length=" lenpay "\npayload inc=" lenpay "\n"

static void same(const uint8_t *a, long na, const uint8_t *b, long nb, int line)
{
    if (na != nb || memcmp(a, b, (size_t)na) != 0) {
        fprintf(stderr, "line %d: bytes differ (%ld vs %ld)\n", line, na, nb);
        for (long i = 0; i < na && i < nb; i++)
            if (a[i] != b[i]) { fprintf(stderr, "  first difference at %ld: %02x vs %02x\n", i, a[i], b[i]); break; }
        CHECK(0);
    } else {
        CHECK(1);
    }
}
#define SAME(a, na, b, nb) same(a, na, b, nb, __LINE__)

static void test_map_cna(void)
{
    uint8_t in[4096], ref[4096], out[4096];
    ub_entry e, e2;
    /* a 3-block DLLDP (300-byte payload): map the source CNA, result = the builder's packet */
    long n = build(RTP_WRITE("0x010203", "7", "1", "300"), in, sizeof in, &e);
    long nr = build(RTP_WRITE("0x111111", "7", "1", "300"), ref, sizeof ref, &e2);
    ub_rw_cfg c;
    ub_rw_cfg_default(&c);
    c.opts = &O;
    ub_rw *rw = mk(&c);
    char err[256];
    CHECK(ub_rw_add_map(rw, "cna", "0x010203=0x111111,0x999=0x998", err, sizeof err) == 0);
    CHECK(!ub_rw_passthrough(rw, e));
    ub_rw_result r;
    long no = ub_rw_packet(rw, e, in, (uint32_t)n, out, sizeof out, &r);
    CHECK_EQ(r.status, UB_RW_SEND);
    CHECK(r.flags & UB_RWF_MODIFIED);
    CHECK(r.flags & UB_RWF_FIXED);
    SAME(out, no, ref, nr);
    CHECK_EQ(field(out, (uint32_t)no, e, "ub.nth.scna"), 0x111111);
    CHECK_EQ(field(out, (uint32_t)no, e, "ub.icrc.status"), UB_CK_GOOD);
    CHECK_EQ(n_errors(out, (uint32_t)no, e), 0);
    /* a packet the map does not touch is sent as it was, without any fixup */
    long n2 = build(RTP_WRITE("0x000777", "7", "1", "300"), in, sizeof in, &e);
    in[n2 - 1] ^= 0x10; /* even with a bad BCRC */
    no = ub_rw_packet(rw, e, in, (uint32_t)n2, out, sizeof out, &r);
    CHECK_EQ(r.flags, 0);
    SAME(out, no, in, n2);
    ub_rw_stats st;
    ub_rw_get_stats(rw, &st);
    CHECK_EQ(st.packets, 2);
    CHECK_EQ(st.modified, 1);
    CHECK_EQ(st.mapped[0], 1);
    ub_rw_free(rw);
}

static void test_set_and_crc_policy(void)
{
    uint8_t in[4096], ref[4096], out[4096];
    ub_entry e;
    const char *a = "flit\nlph vl=0\nnth16 scna=0x0102 dcna=0x0304\nbtah_c taopcode=Write ee_bits=1 ini_tassn=1\n"
                    "maetah_c address=0x0000100000000040 tokenid=0x12345 length=0\npayload inc=64\n";
    const char *b = "flit\nlph vl=0\nnth16 scna=0x0102 dcna=0x0304\nbtah_c taopcode=Write ee_bits=1 ini_tassn=77\n"
                    "maetah_c address=0x0000100000000040 tokenid=0x12345 length=0\npayload inc=64\n";
    long n = build(a, in, sizeof in, &e), nr = build(b, ref, sizeof ref, &e);
    ub_rw_cfg c;
    ub_rw_cfg_default(&c);
    c.opts = &O;
    char err[256];
    ub_rw *rw = mk(&c);
    CHECK(ub_rw_add_set(rw, "ub.btah.ini_tassn=77", err, sizeof err) == 0);
    CHECK(ub_rw_add_set(rw, "ub.nope.x=1", err, sizeof err) < 0);
    CHECK(ub_rw_add_set(rw, "ub.icrc.status=1", err, sizeof err) < 0);   /* virtual */
    CHECK(ub_rw_add_set(rw, "ub.btah.taopcode=Nonsense", err, sizeof err) < 0);
    ub_rw_result r;
    long no = ub_rw_packet(rw, e, in, (uint32_t)n, out, sizeof out, &r);
    SAME(out, no, ref, nr);
    ub_rw_free(rw);

    /* --keep-crc: the field changes, the carried BCRC stays the original one (now wrong) */
    c.crc = UB_RW_CRC_KEEP;
    rw = mk(&c);
    ub_rw_add_set(rw, "ub.btah.ini_tassn=77", err, sizeof err);
    no = ub_rw_packet(rw, e, in, (uint32_t)n, out, sizeof out, &r);
    CHECK_EQ(field(out, (uint32_t)no, e, "ub.btah.ini_tassn"), 77);
    CHECK_EQ(field(out, (uint32_t)no, e, "ub.bcrc.status"), UB_CK_BAD);
    CHECK(memcmp(out + no - 4, in + n - 4, 4) == 0);
    ub_rw_free(rw);

    /* --break-crc on an unmodified packet: only the CRC bytes differ, and they are bad */
    c.crc = UB_RW_CRC_BREAK;
    rw = mk(&c);
    CHECK(!ub_rw_passthrough(rw, e));
    no = ub_rw_packet(rw, e, in, (uint32_t)n, out, sizeof out, &r);
    CHECK(r.flags & UB_RWF_BROKEN);
    CHECK_EQ(no, n);
    CHECK_EQ(field(out, (uint32_t)no, e, "ub.bcrc.status"), UB_CK_BAD);
    int diff = 0;
    for (long i = 0; i < n; i++) diff += out[i] != in[i];
    CHECK_EQ(diff, 1);
    ub_rw_free(rw);

    /* RTP with an ICRC: break both; ICRC bad, BCRC bad */
    n = build(RTP_WRITE("0x010203", "7", "1", "16"), in, sizeof in, &e);
    rw = mk(&c);
    no = ub_rw_packet(rw, e, in, (uint32_t)n, out, sizeof out, &r);
    CHECK_EQ(field(out, (uint32_t)no, e, "ub.icrc.status"), UB_CK_BAD);
    CHECK_EQ(field(out, (uint32_t)no, e, "ub.bcrc.status"), UB_CK_BAD);
    ub_rw_free(rw);
    c.break_mask = UB_RW_BREAK_ICRC;
    rw = mk(&c);
    no = ub_rw_packet(rw, e, in, (uint32_t)n, out, sizeof out, &r);
    CHECK_EQ(field(out, (uint32_t)no, e, "ub.icrc.status"), UB_CK_BAD);
    CHECK_EQ(field(out, (uint32_t)no, e, "ub.bcrc.status"), UB_CK_GOOD);
    ub_rw_free(rw);

    /* --fix-all repairs a packet with a bad ICRC that no edit touched */
    ub_rw_cfg_default(&c);
    c.opts = &O;
    c.fix_all = true;
    rw = mk(&c);
    uint8_t bad[4096];
    char t[1024];
    snprintf(t, sizeof t, "flit icrc=bad\n%s", strchr(RTP_WRITE("0x010203", "7", "1", "16"), '\n') + 1);
    long nb = build(t, bad, sizeof bad, &e);
    CHECK_EQ(field(bad, (uint32_t)nb, e, "ub.icrc.status"), UB_CK_BAD);
    no = ub_rw_packet(rw, e, bad, (uint32_t)nb, out, sizeof out, &r);
    SAME(out, no, in, n);
    ub_rw_free(rw);
}

static void test_dllcb(void)
{
    uint8_t in[256], ref[256], out[256];
    ub_entry e;
    long n = build("flit\nlch clength=1 ctrl=2 sub_ctrl=4\ndllcb_crd_ack t=0 ack_num=12 crd_num_vl0=4\n", in, sizeof in, &e);
    long nr = build("flit\nlch clength=1 ctrl=2 sub_ctrl=4\ndllcb_crd_ack t=0 ack_num=12 crd_num_vl0=9\n", ref, sizeof ref, &e);
    ub_rw_cfg c;
    ub_rw_cfg_default(&c);
    c.opts = &O;
    ub_rw *rw = mk(&c);
    char err[256];
    CHECK(ub_rw_add_set(rw, "ub.crd_ack.crd_num_vl0=9", err, sizeof err) == 0);
    ub_rw_result r;
    long no = ub_rw_packet(rw, e, in, (uint32_t)n, out, sizeof out, &r);
    SAME(out, no, ref, nr);
    ub_rw_free(rw);
}

static void test_uboe(void)
{
    uint8_t in[4096], ref[4096], out[4096];
    ub_entry e;
    const char *a = "eth\neth dst=02:00:00:00:00:02 src=02:00:00:00:00:01\nipv4 src=10.0.0.1 dst=10.0.0.2\n"
                    "udp srcport=51000\nrtph tpopcode=1 last=1 srctpn=0x100 dsttpn=0x200 psn=1 tpmsn=1 a=1\n"
                    "btah taopcode=Write ini_tassn=1 ini_rc_id=0x10\nmaetah address=0x400000 tokenid=0x100 length=32\n"
                    "payload inc=32\n";
    const char *b = "eth\neth dst=02:00:00:00:00:02 src=02:00:00:00:00:01\nipv4 src=10.9.9.9 dst=10.0.0.2\n"
                    "udp srcport=51000\nrtph tpopcode=1 last=1 srctpn=0x100 dsttpn=0x555 psn=1 tpmsn=1 a=1\n"
                    "btah taopcode=Write ini_tassn=1 ini_rc_id=0x10\nmaetah address=0x400000 tokenid=0x100 length=32\n"
                    "payload inc=32\n";
    long n = build(a, in, sizeof in, &e), nr = build(b, ref, sizeof ref, &e);
    ub_rw_cfg c;
    ub_rw_cfg_default(&c);
    c.opts = &O;
    ub_rw *rw = mk(&c);
    char err[256];
    CHECK(ub_rw_add_map(rw, "ip", "10.0.0.1=10.9.9.9", err, sizeof err) == 0);
    CHECK(ub_rw_add_map(rw, "tpn", "0x200=0x555", err, sizeof err) == 0);
    CHECK(ub_rw_add_map(rw, "ip", "10.0.0.1=fd00::1", err, sizeof err) < 0); /* families differ */
    CHECK(ub_rw_add_map(rw, "mac", "1=2", err, sizeof err) < 0);
    ub_rw_result r;
    long no = ub_rw_packet(rw, e, in, (uint32_t)n, out, sizeof out, &r);
    SAME(out, no, ref, nr); /* IPv4 checksum and ICRC recomputed */
    ub_rw_stats st;
    ub_rw_get_stats(rw, &st);
    CHECK_EQ(st.mapped[2], 1);
    CHECK_EQ(st.mapped[3], 1);
    ub_rw_free(rw);

    /* UBoE -> UDP payload: exactly the bytes after the UDP header, without the ICRC */
    ub_rw_cfg_default(&c);
    c.opts = &O;
    c.out = UB_RW_OUT_TPH;
    rw = mk(&c);
    no = ub_rw_packet(rw, e, in, (uint32_t)n, out, sizeof out, &r);
    CHECK_EQ(r.out_entry, UB_ENTRY_TPH);
    SAME(out, no, in + 14 + 20 + 8, n - 14 - 20 - 8 - 4);
    ub_rw_free(rw);

    /* UBoE -> CFG pseudo-header form (ubl interface): CFG 3, UBL header, IP packet, ICRC */
    c.out = UB_RW_OUT_CFGPH;
    c.npi = 5;
    rw = mk(&c);
    no = ub_rw_packet(rw, e, in, (uint32_t)n, out, sizeof out, &r);
    CHECK_EQ(out[0], 3);
    CHECK_EQ(field(out, (uint32_t)no, UB_ENTRY_CFGPH, "ub.nth.npi_id"), 5);
    CHECK_EQ(field(out, (uint32_t)no, UB_ENTRY_CFGPH, "ub.rtph.psn"), 1);
    CHECK_EQ(field(out, (uint32_t)no, UB_ENTRY_CFGPH, "ub.icrc.status"), UB_CK_GOOD);
    CHECK_EQ(n_errors(out, (uint32_t)no, UB_ENTRY_CFGPH), 0);
    CHECK(memcmp(out + 7, in + 14, 20 + 8) == 0); /* IP + UDP unchanged */
    ub_rw_free(rw);
    /* ... and as a flit-framed DLLDP */
    c.out = UB_RW_OUT_RAW;
    c.raw_entry = UB_ENTRY_FLIT;
    rw = mk(&c);
    no = ub_rw_packet(rw, e, in, (uint32_t)n, out, sizeof out, &r);
    CHECK_EQ(field(out, (uint32_t)no, UB_ENTRY_FLIT, "ub.lph.cfg"), 3);
    CHECK_EQ(field(out, (uint32_t)no, UB_ENTRY_FLIT, "ub.bcrc.status"), UB_CK_GOOD);
    CHECK_EQ(field(out, (uint32_t)no, UB_ENTRY_FLIT, "ub.icrc.status"), UB_CK_GOOD);
    CHECK_EQ(n_errors(out, (uint32_t)no, UB_ENTRY_FLIT), 0);
    ub_rw_free(rw);
}

static void test_convert_nth(void)
{
    uint8_t in[4096], out[4096], tph[4096];
    ub_entry e;
    long n = build(RTP_WRITE("0x010203", "9", "3", "40"), in, sizeof in, &e);
    ub_rw_cfg c;
    ub_rw_cfg_default(&c);
    c.opts = &O;
    c.out = UB_RW_OUT_ETH;
    ub_rw *rw = mk(&c);
    char err[256];
    ub_rw_result r;
    /* without a CNA -> IP map the packet is skipped and counted */
    long no = ub_rw_packet(rw, e, in, (uint32_t)n, out, sizeof out, &r);
    CHECK_EQ(no, 0);
    CHECK_EQ(r.status, UB_RW_SKIP);
    CHECK(r.reason && strstr(r.reason, "--cna-ip"));
    CHECK(ub_rw_add_cna_ip(rw, "0x010203=192.0.2.1,0x0a0b0c=192.0.2.2", err, sizeof err) == 0);
    CHECK(ub_rw_add_cna_ip(rw, "0x5=fd00::5", err, sizeof err) < 0); /* one IP version */
    no = ub_rw_packet(rw, e, in, (uint32_t)n, out, sizeof out, &r);
    CHECK_EQ(r.status, UB_RW_SEND);
    CHECK(r.flags & UB_RWF_CONVERTED);
    CHECK_EQ(field(out, (uint32_t)no, UB_ENTRY_ETH, "ub.udp.dstport"), 4792);
    CHECK_EQ(field(out, (uint32_t)no, UB_ENTRY_ETH, "ub.rtph.psn"), 9);
    CHECK_EQ(field(out, (uint32_t)no, UB_ENTRY_ETH, "ub.btah.ini_tassn"), 3);
    CHECK_EQ(field(out, (uint32_t)no, UB_ENTRY_ETH, "ub.icrc.status"), UB_CK_GOOD);
    CHECK_EQ(n_errors(out, (uint32_t)no, UB_ENTRY_ETH), 0);
    uint8_t ip[4] = { 192, 0, 2, 1 };
    CHECK(memcmp(out + 14 + 12, ip, 4) == 0);
    ub_rw_free(rw);
    /* the same packet to UDP: the TPH .. payload bytes of the original */
    c.out = UB_RW_OUT_TPH;
    rw = mk(&c);
    long nt = ub_rw_packet(rw, e, in, (uint32_t)n, tph, sizeof tph, &r);
    ub_decode(&V, &O, e, in, (uint32_t)n);
    int k = ub_view_find(&V, UB_H_RTPH, 0), ic = ub_view_find(&V, UB_H_ICRC, 0);
    CHECK(k >= 0 && ic > k);
    SAME(tph, nt, V.layer[k].data, (long)(V.layer[ic].data - V.layer[k].data));
    ub_rw_free(rw);
    /* CFG 9 (TP bypass) has no UBoE form: skipped with a reason */
    n = build("flit\nlph vl=0\nnth16 scna=0x0102 dcna=0x0304\nbtah_c taopcode=Read ee_bits=1 ini_tassn=2\n"
              "maetah_c address=0x0000100000001000 tokenid=0x12345 length=1\n", in, sizeof in, &e);
    c.out = UB_RW_OUT_ETH;
    rw = mk(&c);
    ub_rw_add_cna_ip(rw, "0x0102=192.0.2.1,0x0304=192.0.2.2", err, sizeof err);
    no = ub_rw_packet(rw, e, in, (uint32_t)n, out, sizeof out, &r);
    CHECK_EQ(r.status, UB_RW_SKIP);
    CHECK(r.reason && strstr(r.reason, "RTP/UTP"));
    ub_rw_stats st;
    ub_rw_get_stats(rw, &st);
    CHECK_EQ(st.unconvertible, 1);
    ub_rw_free(rw);
    /* flit -> packet record (USER1) and back: same fields, good CRCs */
    n = build(RTP_WRITE("0x010203", "9", "3", "300"), in, sizeof in, &e);
    c.out = UB_RW_OUT_RAW;
    c.raw_entry = UB_ENTRY_PKT;
    rw = mk(&c);
    no = ub_rw_packet(rw, e, in, (uint32_t)n, out, sizeof out, &r);
    CHECK_EQ(field(out, (uint32_t)no, UB_ENTRY_PKT, "ub.maetah.length"), 300);
    CHECK_EQ(n_errors(out, (uint32_t)no, UB_ENTRY_PKT), 0);
    ub_rw_free(rw);
    c.raw_entry = UB_ENTRY_FLIT;
    rw = mk(&c);
    uint8_t back[4096];
    long nbk = ub_rw_packet(rw, UB_ENTRY_PKT, out, (uint32_t)no, back, sizeof back, &r);
    SAME(back, nbk, in, n);
    ub_rw_free(rw);
}

#define ACK(psn) \
    "flit\nlph vl=2\nnth24 scna=0x0a0b0c dcna=0x010203\nrtph tpopcode=2 srctpn=0x202 dsttpn=0x101 psn=" psn " tpmsn=1\n"

static void test_renumber(void)
{
    uint8_t in[4096], out[4096];
    ub_entry e;
    ub_rw_cfg c;
    ub_rw_cfg_default(&c);
    c.opts = &O;
    c.unique_per_loop = true;
    ub_rw *rw = mk(&c);
    char err[256];
    CHECK(ub_rw_renumber(rw, "psn", "5000", err, sizeof err) == 0);
    CHECK(ub_rw_renumber(rw, "tassn", "1", err, sizeof err) == 0);
    CHECK(ub_rw_renumber(rw, "psn", "0x1000000", err, sizeof err) < 0);
    CHECK(ub_rw_renumber(rw, "msn", "1", err, sizeof err) < 0);
    const char *pk[] = { RTP_WRITE("0x010203", "100", "10", "8"), ACK("100"), RTP_WRITE("0x010203", "101", "11", "8"),
                         RTP_WRITE("0x010203", "102", "12", "8"), ACK("102") };
    const uint64_t want_psn[2][5] = { { 5000, 5000, 5001, 5002, 5002 }, { 5003, 5003, 5004, 5005, 5005 } };
    const uint64_t want_tassn[2][5] = { { 1, UINT64_MAX, 2, 3, UINT64_MAX }, { 4, UINT64_MAX, 5, 6, UINT64_MAX } };
    for (unsigned loop = 0; loop < 2; loop++) {
        ub_rw_loop(rw, loop);
        for (unsigned i = 0; i < 5; i++) {
            long n = build(pk[i], in, sizeof in, &e);
            ub_rw_result r;
            long no = ub_rw_packet(rw, e, in, (uint32_t)n, out, sizeof out, &r);
            CHECK_EQ(field(out, (uint32_t)no, e, "ub.rtph.psn"), want_psn[loop][i]);
            CHECK_EQ(field(out, (uint32_t)no, e, "ub.btah.ini_tassn"), want_tassn[loop][i]);
            CHECK_EQ(n_errors(out, (uint32_t)no, e), 0);
        }
    }
    ub_rw_free(rw);
    /* a TAACK carries the TASSN of its request: renumbered with it */
    ub_rw_cfg_default(&c);
    c.opts = &O;
    rw = mk(&c);
    ub_rw_renumber(rw, "tassn", "500", err, sizeof err);
    long n = build("flit\nlph vl=0\nnth16 scna=0x0102 dcna=0x0304\nbtah_c taopcode=Write ee_bits=1 ini_tassn=9\n"
                   "maetah_c address=0x0000100000000040 tokenid=0x12345 length=0\npayload inc=64\n", in, sizeof in, &e);
    ub_rw_result r;
    long no = ub_rw_packet(rw, e, in, (uint32_t)n, out, sizeof out, &r);
    CHECK_EQ(field(out, (uint32_t)no, e, "ub.btah.ini_tassn"), 500);
    n = build("flit\nlph vl=0\nnth16 scna=0x0304 dcna=0x0102\natah_c taopcode=TAACK ini_tassn=9\n", in, sizeof in, &e);
    no = ub_rw_packet(rw, e, in, (uint32_t)n, out, sizeof out, &r);
    CHECK_EQ(field(out, (uint32_t)no, e, "ub.atah.ini_tassn"), 500);
    /* a random base is reproducible from the seed */
    ub_rw_free(rw);
    c.seed = 42;
    uint64_t v1, v2;
    rw = mk(&c);
    ub_rw_renumber(rw, "psn", "random", err, sizeof err);
    n = build(RTP_WRITE("0x010203", "100", "10", "8"), in, sizeof in, &e);
    no = ub_rw_packet(rw, e, in, (uint32_t)n, out, sizeof out, &r);
    v1 = field(out, (uint32_t)no, e, "ub.rtph.psn");
    ub_rw_free(rw);
    rw = mk(&c);
    ub_rw_renumber(rw, "psn", "random", err, sizeof err);
    no = ub_rw_packet(rw, e, in, (uint32_t)n, out, sizeof out, &r);
    v2 = field(out, (uint32_t)no, e, "ub.rtph.psn");
    CHECK_EQ(v1, v2);
    CHECK(v1 < (1u << 24));
    ub_rw_free(rw);
}

static void test_fuzz_and_bad(void)
{
    uint8_t in[4096], o1[4096], o2[4096];
    ub_entry e;
    long n = build(RTP_WRITE("0x010203", "100", "10", "8"), in, sizeof in, &e);
    ub_rw_cfg c;
    ub_rw_cfg_default(&c);
    c.opts = &O;
    c.seed = 7;
    char err[256];
    ub_rw *a = mk(&c), *b = mk(&c);
    CHECK(ub_rw_add_fuzz(a, "ub.maetah.address", err, sizeof err) == 0);
    CHECK(ub_rw_add_fuzz(b, "ub.maetah.address", err, sizeof err) == 0);
    CHECK(ub_rw_add_fuzz(a, "ub.icrc.status", err, sizeof err) < 0);
    CHECK(ub_rw_add_fuzz(a, "ub.rtph.psn:1.5", err, sizeof err) < 0);
    ub_rw_result r;
    long n1 = ub_rw_packet(a, e, in, (uint32_t)n, o1, sizeof o1, &r);
    CHECK(r.flags & UB_RWF_FUZZED);
    long n2 = ub_rw_packet(b, e, in, (uint32_t)n, o2, sizeof o2, &r);
    SAME(o1, n1, o2, n2); /* same seed, same packet */
    CHECK(field(o1, (uint32_t)n1, e, "ub.maetah.address") != 0x80000000);
    CHECK_EQ(n_errors(o1, (uint32_t)n1, e), 0);
    ub_rw_free(a);
    ub_rw_free(b);
    /* probability 0: never */
    a = mk(&c);
    ub_rw_add_fuzz(a, "ub.rtph.psn:0", err, sizeof err);
    n1 = ub_rw_packet(a, e, in, (uint32_t)n, o1, sizeof o1, &r);
    SAME(o1, n1, in, n);
    ub_rw_free(a);

    /* a packet that cannot be parsed (cut in the TAH): pass / skip / abort, counted */
    long nt = n - 60;
    const uint8_t pol[3] = { UB_RW_BAD_PASS, UB_RW_BAD_SKIP, UB_RW_BAD_ABORT };
    const uint8_t want[3] = { UB_RW_SEND, UB_RW_SKIP, UB_RW_ABORT };
    for (int i = 0; i < 3; i++) {
        c.on_bad = pol[i];
        a = mk(&c);
        ub_rw_add_map(a, "cna", "0x010203=0x5", err, sizeof err);
        n1 = ub_rw_packet(a, UB_ENTRY_PKT, in, (uint32_t)nt, o1, sizeof o1, &r);
        CHECK_EQ(r.status, want[i]);
        CHECK(r.flags & UB_RWF_BAD);
        if (i == 0) SAME(o1, n1, in, nt);
        ub_rw_stats st;
        ub_rw_get_stats(a, &st);
        CHECK_EQ(st.bad, 1);
        CHECK_EQ(st.bad_passed + st.bad_skipped + st.bad_aborted, 1);
        ub_rw_free(a);
    }
}

static void test_fixup(void)
{
    uint8_t in[4096], out[4096];
    ub_entry e;
    long n = build(RTP_WRITE("0x010203", "100", "10", "300"), in, sizeof in, &e);
    uint8_t ref[4096];
    memcpy(ref, in, (size_t)n);
    in[n - 1] ^= 0xFF; /* last BCRC */
    in[100] ^= 0x01;   /* ... and a payload byte: the ICRC of the original no longer matches */
    long no = ub_fixup(&O, &V, e, in, (uint32_t)n, out, sizeof out);
    CHECK_EQ(no, n);
    CHECK_EQ(n_errors(out, (uint32_t)no, e), 0);
    CHECK(memcmp(out, ref, 100) == 0);
    CHECK_EQ(out[100], ref[100] ^ 1);
}

int main(void)
{
    ub_opts_default(&O);
    ub_view_init(&V);
    test_map_cna();
    test_set_and_crc_policy();
    test_dllcb();
    test_uboe();
    test_convert_nth();
    test_renumber();
    test_fuzz_and_bad();
    test_fixup();
    return ub_test_finish();
}

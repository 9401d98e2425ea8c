/* Header one-liners (ub_layer_summary) and the top-layer protocol name (ub_view_protocol), hdrsum.c:
 * the text of the Wireshark header items and Protocol column (docs/wireshark.md). */
#include <ubparse/ubparse.h>

#include "ubtest.h"

static ub_opts O;
static ub_view V;

/* build `text`, decode it with its entry; returns the record length (0 on a build error) */
static long build_decode(const char *text, uint8_t *rec, size_t cap)
{
    char err[200];
    ub_entry e;
    long n = ub_build_text(text, &O, rec, cap, &e, err, sizeof err);
    if (n < 0) fprintf(stderr, "build: %s\n", err);
    CHECK(n > 0);
    if (n <= 0) return 0;
    ub_decode(&V, &O, e, rec, (uint32_t)n);
    return n;
}

/* summary of the first layer with header id */
static const char *sum_of(unsigned id, char *buf, size_t n)
{
    int i = ub_view_find(&V, id, 0);
    buf[0] = '\0';
    if (i >= 0) ub_layer_summary(&V.layer[i], buf, n);
    return buf;
}

int main(void)
{
    ub_opts_default(&O);
    ub_view_init(&V);
    static uint8_t rec[4096];
    char b[256];

    /* RTP Write request: every header names its key fields */
    long n = build_decode("pkt\nlph vl=2\nnth24 scna=0x010203 dcna=0x0a0b0c sl=2\n"
                          "rtph last=1 srctpn=0x101 dsttpn=0x202 psn=17 tpmsn=1\n"
                          "btah taopcode=Write ini_tassn=50\nmaetah address=0x30c80 tokenid=1 length=64\n"
                          "payload inc=64\n", rec, sizeof rec);
    CHECK_STR(sum_of(UB_H_LPH, b, sizeof b), "Link Packet Header, CFG 7, VL 2");
    CHECK_STR(sum_of(UB_H_NTH24, b, sizeof b), "Network Header (24-bit CNA), SCNA 0x10203 → DCNA 0xa0b0c");
    CHECK_STR(sum_of(UB_H_RTPH, b, sizeof b), "Reliable Transport Header, RTP data, PSN 17, TPN 0x101→0x202");
    CHECK_STR(sum_of(UB_H_BTAH, b, sizeof b), "Basic Transaction Header, Write, INI_TASSN 50");
    CHECK_STR(sum_of(UB_H_MAETAH, b, sizeof b), "Memory Access ETAH, Address 0x30c80, Length 64");
    CHECK_STR(sum_of(UB_H_PAYLOAD, b, sizeof b), "Payload"); /* no key fields: the name only */
    CHECK_STR(ub_view_protocol(&V), "UB-TA");

    /* a small buffer: cut, terminated, length = what was written */
    char small[20];
    int ir = ub_view_find(&V, UB_H_RTPH, 0);
    CHECK(ir >= 0);
    if (ir >= 0) {
        size_t w = ub_layer_summary(&V.layer[ir], small, sizeof small);
        CHECK_EQ(w, strlen(small));
        CHECK(w < sizeof small);
        CHECK_EQ(strncmp(small, "Reliable Transport ", 19), 0);
    }

    /* the same RTPH cut short by the record: the fields that are not there are left out */
    if (n > 0) {
        int ip = ub_view_find(&V, UB_H_RTPH, 0);
        /* TPOpcode..DstTPN present, PSN not */
        uint32_t cut = ip >= 0 ? (uint32_t)(V.layer[ip].data - rec) + 10 : 0;
        ub_decode(&V, &O, UB_ENTRY_PKT, rec, cut);
        CHECK_STR(sum_of(UB_H_RTPH, b, sizeof b), "Reliable Transport Header, RTP data, TPN 0x101→0x202");
    }

    /* transport ack without a transaction header */
    build_decode("pkt\nlph vl=2\nnth24 scna=0x0a0b0c dcna=0x010203\n"
                 "rtph tpopcode=2 srctpn=0x202 dsttpn=0x101 psn=17 rspst=3 rspinfo=0\n", rec, sizeof rec);
    CHECK_STR(sum_of(UB_H_RTPH, b, sizeof b), "Reliable Transport Header, TPACK/TPNAK, PSN 17, TPN 0x202→0x101");
    CHECK_STR(ub_view_protocol(&V), "UB-TP");

    /* data link control block */
    build_decode("flit\nlch clength=1 ctrl=2 sub_ctrl=4\ndllcb_crd_ack t=1 sd=1 ack_num=0 crd_num_vl0=63\n", rec, sizeof rec);
    CHECK_STR(sum_of(UB_H_DLLCB_CRD_ACK, b, sizeof b), "Crd_Ack Block, T 1, SD (SEND_DONE) 1, ACK_NUM 0");
    CHECK_STR(ub_view_protocol(&V), "UB-DLL");

    /* network header only (CFG 9, nothing after the NTH) */
    build_decode("pkt\nlph\nnth16 scna=0x102 dcna=0x304\n", rec, sizeof rec);
    CHECK_STR(sum_of(UB_H_NTH16, b, sizeof b), "Network Header (16-bit CNA), SCNA 0x102 → DCNA 0x304");

    /* not a layer */
    CHECK_EQ(ub_layer_summary(NULL, b, sizeof b), 0);
    CHECK_STR(b, "");
    return ub_test_finish();
}

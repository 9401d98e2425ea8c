/* The one-line summary's text building (sumfmt.h, summary.c): the constant rows it reads are the rows
 * ub_field_index names in every table of their headers (profile tables too), the number appenders
 * give printf's digits at the edges, the text is cut as snprintf cuts it, and whole lines. */
#include "ubtest.h"
#include "internal.h"
#include "sumfmt.h"
#include "rows.h"

#include <inttypes.h>

static ub_opts O;
static ub_view V;

/* The row enums of rows.h against the tables (registered and every profile table of the id): each index the
 * summaries and the header one-liners (hdrsum.c) read names its row, and each enum ends where its table does. */
typedef struct { int row; const char *name; uint16_t ids[3]; } row_case;
#define R(e, nm, ...) { (e), (nm), { __VA_ARGS__ } }
static const row_case row_cases[] = {
    R(CRD_T, "t", UB_H_DLLCB_CRD_ACK), R(CRD_SD, "sd", UB_H_DLLCB_CRD_ACK), R(CRD_ACK_NUM, "ack_num", UB_H_DLLCB_CRD_ACK),
    R(RREQ_RCVPTR, "rcvptr", UB_H_DLLCB_RETRY_REQ), R(RREQ_NUM_RETRY, "num_retry", UB_H_DLLCB_RETRY_REQ),
    R(RACK_RDPTR, "rdptr", UB_H_DLLCB_RETRY_ACK), R(RACK_WRPTR, "wrptr", UB_H_DLLCB_RETRY_ACK),
    R(NTH16_SCNA, "scna", UB_H_NTH16, UB_H_NTH24), R(NTH16_DCNA, "dcna", UB_H_NTH16, UB_H_NTH24),
    R(IP4_SRC, "src", UB_H_IPV4), R(IP4_DST, "dst", UB_H_IPV4), R(IP4_PROTO, "protocol", UB_H_IPV4),
    R(IP4_FRAG, "frag_offset", UB_H_IPV4), R(IP4_MF, "mf", UB_H_IPV4),
    R(IP6_SRC, "src", UB_H_IPV6), R(IP6_DST, "dst", UB_H_IPV6), R(IP6_NH, "next_header", UB_H_IPV6),
    R(UDP_SPORT, "srcport", UB_H_UDP, UB_H_TCP), R(UDP_DPORT, "dstport", UB_H_UDP, UB_H_TCP),
    R(ETH_TYPE, "type", UB_H_ETH), R(SLL_PROTOCOL, "protocol", UB_H_SLL), R(SLL2_PROTOCOL, "protocol", UB_H_SLL2),
    R(VLAN_VID, "vid", UB_H_VLAN), R(VLAN_TYPE, "type", UB_H_VLAN),
    R(ARP_OPER, "opcode", UB_H_ARP), R(ARP_SHA, "src_hw", UB_H_ARP), R(ARP_SPA, "src_ip", UB_H_ARP), R(ARP_TPA, "dst_ip", UB_H_ARP),
    R(NCTL_PROTOCOL, "protocol", UB_H_NCTL),
    R(RTPH_LAST, "last", UB_H_RTPH), R(RTPH_OP, "tpopcode", UB_H_RTPH), R(RTPH_SRC, "srctpn", UB_H_RTPH),
    R(RTPH_DST, "dsttpn", UB_H_RTPH), R(RTPH_PSN, "psn", UB_H_RTPH), R(RTPH_RSPST, "rspst", UB_H_RTPH),
    R(CTPH_OP, "tpopcode", UB_H_CTPH), R(SH_HOPS, "hops", UB_H_SCANHDR), R(SH_STEP, "step", UB_H_SCANHDR),
    R(SH_TYPE, "type", UB_H_SCANHDR), R(SH_FPATH, "forward_path", UB_H_SCANHDR), R(0, "return_path", UB_H_SCAN_RPATH),
    R(SQ_CMD, "cmd", UB_H_SCANPDU_REQ, UB_H_SCANPDU_RSP), R(SQ_OPCODE, "opcode", UB_H_SCANPDU_REQ, UB_H_SCANPDU_RSP),
    R(SQ_MSN, "msn", UB_H_SCANPDU_REQ, UB_H_SCANPDU_RSP),
    R(BT_OP, "taopcode", UB_H_BTAH, UB_H_BTAH_C, UB_H_BTAH_ALT), R(BT_TASSN, "ini_tassn", UB_H_BTAH, UB_H_BTAH_C, UB_H_BTAH_ALT),
    R(MG_SUB, "sub_code", UB_H_MGMTETAH), R(MG_CODE, "code", UB_H_MGMTETAH), R(MG_RSP, "rsp", UB_H_MGMTETAH),
    R(MG_STATUS, "status", UB_H_MGMTETAH), R(MA_ADDR, "address", UB_H_MAETAH, UB_H_MAETAH_C), R(MA_LEN, "length", UB_H_MAETAH),
    R(MAC_LEN, "length", UB_H_MAETAH_C), R(AT_OP, "taopcode", UB_H_ATAH, UB_H_ATAH_C),
    R(AT_TASSN, "ini_tassn", UB_H_ATAH, UB_H_ATAH_C), R(AT_RSPST, "rspst", UB_H_ATAH), R(AT_RSPINFO, "rspinfo", UB_H_ATAH),
    R(ATC_STATUS, "status", UB_H_ATAH_C), R(RQ_ID, "request_id", UB_H_URPC_REQ), R(RS_ID, "request_id", UB_H_URPC_ACK, UB_H_URPC_RSP),
    R(RS_STATUS, "status", UB_H_URPC_RSP),
    R(BTH_OP, "opcode", UB_H_IB_BTH), R(BTH_DQP, "destqp", UB_H_IB_BTH), R(BTH_PSN, "psn", UB_H_IB_BTH), R(BTH_A, "a", UB_H_IB_BTH),
    R(AETH_SYN_OP, "syndrome.opcode", UB_H_IB_AETH), R(AETH_SYN_VAL, "syndrome.value", UB_H_IB_AETH),
    R(AETH_MSN, "msn", UB_H_IB_AETH), R(RETH_VA, "va", UB_H_IB_RETH), R(RETH_DMALEN, "dmalen", UB_H_IB_RETH),
    R(RH_OP, "opcode", UB_H_SUE_RH), R(RH_FACK, "fack", UB_H_SUE_RH), R(RH_SYN, "aeth_syndrome", UB_H_SUE_RH),
    R(RH_PSN, "psn", UB_H_SUE_RH), R(RH_DQP, "dest_qp", UB_H_SUE_RH), R(FL_USAGE, "usage", UB_H_PCIEFLIT),
    R(FL_REPLAY, "replay_cmd", UB_H_PCIEFLIT), R(FL_SEQ, "seq", UB_H_PCIEFLIT), R(FM_STATUS, "status", UB_H_PCIEFLIT_MARKER),
    R(LPH_CFG, "cfg", UB_H_LPH), R(LPH_VL, "vl", UB_H_LPH), R(LBH_CFG, "cfg", UB_H_LBH), R(LBH_VL, "vl", UB_H_LBH),
    R(LCH_CTRL, "ctrl", UB_H_LCH), R(LCH_SUB_CTRL, "sub_ctrl", UB_H_LCH), R(BCRC_CRC30, "crc30", UB_H_BCRC),
    R(BCRC_STATUS, "status", UB_H_BCRC), R(END_ERROR_FLAG, "error_flag", UB_H_END), R(NTH24_SCNA, "scna", UB_H_NTH24),
    R(NTH24_DCNA, "dcna", UB_H_NTH24), R(ICRC_ICRC, "icrc", UB_H_ICRC), R(ICRC_STATUS, "status", UB_H_ICRC),
    R(UTPH_OP, "tpopcode", UB_H_UTPH), R(SAE_MAXRCV, "maxrcvpsn", UB_H_SAETPH), R(UPIH_UPI, "upi", UB_H_UPIH16, UB_H_UPIH32),
    R(EIDH_SEID, "seid", UB_H_EIDH40, UB_H_EIDH256), R(EIDH_DEID, "deid", UB_H_EIDH40, UB_H_EIDH256),
    R(CIPH_ID, "cip_id", UB_H_CIPH), R(CIPH_SN, "sn", UB_H_CIPH), R(ATC_OP, "taopcode", UB_H_ATAH_C),
    R(ATC_TASSN, "ini_tassn", UB_H_ATAH_C), R(MAC_ADDR, "address", UB_H_MAETAH_C),
};
/* the last enumerator of each rows.h enum and its tables: the enum has as many rows as the table (not the
 * Scan PDU's: GUIDWS adds the GUID's parts after SQ_GUID) */
static const row_case row_ends[] = {
    R(SLL_PROTOCOL, "", UB_H_SLL), R(SLL2_ADDR, "", UB_H_SLL2), R(ETH_TYPE, "", UB_H_ETH), R(VLAN_TYPE, "", UB_H_VLAN),
    R(IP4_DST, "", UB_H_IPV4), R(IP6_DST, "", UB_H_IPV6), R(UDP_CSUM, "", UB_H_UDP), R(TCP_URG, "", UB_H_TCP),
    R(ARP_TPA, "", UB_H_ARP), R(NTH16_NLP, "", UB_H_NTH16), R(NTH24_NLP, "", UB_H_NTH24), R(RTPH_TPMSN, "", UB_H_RTPH),
    R(CTPH_NLP, "", UB_H_CTPH), R(RREQ_RSVD2, "", UB_H_DLLCB_RETRY_REQ), R(RACK_RSVD2, "", UB_H_DLLCB_RETRY_ACK),
    R(CRD_RSVD2, "", UB_H_DLLCB_CRD_ACK), R(NCTL_DGUID_KIND, "", UB_H_NCTL), R(SH_FPATH, "", UB_H_SCANHDR),
    R(BT_RCID, "", UB_H_BTAH, UB_H_BTAH_ALT), R(BT_TASSN, "", UB_H_BTAH_C),
    R(AT_RCID, "", UB_H_ATAH), R(ATC_TASSN, "", UB_H_ATAH_C), R(MA_LEN, "", UB_H_MAETAH), R(MAC_RSVD1, "", UB_H_MAETAH_C),
    R(MG_LEN, "", UB_H_MGMTETAH), R(RQ_FDEF, "", UB_H_URPC_REQ), R(AK_RSVD1, "", UB_H_URPC_ACK), R(RS_TOTAL, "", UB_H_URPC_RSP),
    R(BTH_PSN, "", UB_H_IB_BTH), R(RETH_DMALEN, "", UB_H_IB_RETH), R(AETH_MSN, "", UB_H_IB_AETH), R(RH_DQP, "", UB_H_SUE_RH),
    R(FL_ECC, "", UB_H_PCIEFLIT), R(FM_REST, "", UB_H_PCIEFLIT_MARKER), R(LPH_PLENGTH_TAIL, "", UB_H_LPH),
    R(LBH_CFG, "", UB_H_LBH), R(LCH_SUB_CTRL, "", UB_H_LCH), R(BCRC_STATUS, "", UB_H_BCRC), R(END_RSVD1, "", UB_H_END),
    R(ICRC_ORDER, "", UB_H_ICRC), R(UTPH_RSVD, "", UB_H_UTPH), R(SAE_BITMAP, "", UB_H_SAETPH),
    R(UPIH_UPI, "", UB_H_UPIH16, UB_H_UPIH32), R(EIDH_DEID, "", UB_H_EIDH40, UB_H_EIDH256), R(CIPH_RSVD, "", UB_H_CIPH),
};

/* the registered table of id and every profile table of it, through *h; false at the end */
static bool next_table(unsigned id, unsigned *vn, const ub_hdr **h)
{
    for (; *vn <= ub_hdr_variant_count(); (*vn)++) {
        *h = *vn ? ub_hdr_variant(*vn) : ub_hdr_get(id);
        if (*h && (*h)->id == id) { (*vn)++; return true; }
    }
    return false;
}

static void rows_match(void)
{
    unsigned checked = 0;
    for (size_t i = 0; i < sizeof row_cases / sizeof row_cases[0]; i++) {
        const row_case *r = &row_cases[i];
        for (unsigned k = 0; k < 3 && r->ids[k]; k++) {
            const ub_hdr *h;
            for (unsigned vn = 0; next_table(r->ids[k], &vn, &h); checked++) {
                int fi = ub_field_index(h, r->name);
                if (fi != r->row) fprintf(stderr, "row %s of %s: table has %d, rows.h %d\n", r->name, h->key, fi, r->row);
                CHECK_EQ(fi, r->row);
            }
        }
    }
    CHECK(checked >= 120);
    checked = 0;
    for (size_t i = 0; i < sizeof row_ends / sizeof row_ends[0]; i++) {
        const row_case *r = &row_ends[i];
        for (unsigned k = 0; k < 3 && r->ids[k]; k++) {
            const ub_hdr *h;
            for (unsigned vn = 0; next_table(r->ids[k], &vn, &h); checked++) {
                if (h->nfields != r->row + 1) fprintf(stderr, "%s: %u rows, rows.h enum %d\n", h->key, h->nfields, r->row + 1);
                CHECK_EQ(h->nfields, r->row + 1);
                for (unsigned f = 0; f < h->nfields; f++) CHECK(h->fields[f].abbrev != NULL); /* no hole */
            }
        }
    }
    CHECK(checked >= 55);
}

static const char *dec_text(uint64_t v, char *b)
{
    size_t k = ub_u64_dec(b, v);
    b[k] = '\0';
    return b;
}

static const char *hex_text(uint64_t v, unsigned w, char *b)
{
    size_t k = ub_u64_hex(b, v, w);
    b[k] = '\0';
    return b;
}

static void numbers(void)
{
    char b[40], ref[256];
    CHECK_STR(dec_text(0, b), "0");
    CHECK_STR(dec_text(9, b), "9");
    CHECK_STR(dec_text(10, b), "10");
    CHECK_STR(dec_text(UINT64_MAX, b), "18446744073709551615");
    CHECK_STR(dec_text(10000000000000000000ull, b), "10000000000000000000");
    CHECK_STR(hex_text(0, 0, b), "0");
    CHECK_STR(hex_text(0, 4, b), "0000");
    CHECK_STR(hex_text(0x1a, 2, b), "1a");
    CHECK_STR(hex_text(0x1a, 6, b), "00001a");
    CHECK_STR(hex_text(0x123456, 4, b), "123456");
    CHECK_STR(hex_text(UINT64_MAX, 0, b), "ffffffffffffffff");
    CHECK_STR(hex_text(1ull << 63, 2, b), "8000000000000000");
    CHECK_STR(hex_text(5, 32, b), "00000000000000000000000000000005");
    CHECK_STR(hex_text(5, 99, b), "00000000000000000000000000000005"); /* capped at 32 digits */
    for (uint64_t p = 1, i = 0; i < 20; i++, p *= 10) /* every digit count's edges */
        for (uint64_t v = p - 1; v <= p + 1; v++) {
            snprintf(ref, sizeof ref, "%" PRIu64, v);
            CHECK_STR(dec_text(v, b), ref);
            snprintf(ref, sizeof ref, "%" PRIx64, v);
            CHECK_STR(hex_text(v, 0, b), ref);
        }
    /* against printf over a spread of values */
    for (uint64_t v = 1, k = 0; k < 200; k++, v = v * 3 + k) {
        snprintf(ref, sizeof ref, "%" PRIu64, v);
        CHECK_STR(dec_text(v, b), ref);
        snprintf(ref, sizeof ref, "%06" PRIx64, v);
        CHECK_STR(hex_text(v, 6, b), ref);
    }
    /* ub_sb: the directives it does by hand give snprintf's text */
    char out[128];
    ub_sbuf s = { out, sizeof out, 0 };
    ub_sb(&s, "a%s|%5s|%d|%d|%u|%04x|%*d|%" PRIu64 "|%" PRIx64 "|%lld", "x", "ab", -7, 0, 4000000000u, 0xbeu, 6, -42,
          UINT64_MAX, UINT64_MAX, (long long)INT64_MIN);
    snprintf(ref, sizeof ref, "a%s|%5s|%d|%d|%u|%04x|%*d|%" PRIu64 "|%" PRIx64 "|%lld", "x", "ab", -7, 0, 4000000000u,
             0xbeu, 6, -42, UINT64_MAX, UINT64_MAX, (long long)INT64_MIN);
    CHECK_STR(out, ref);
    CHECK_EQ(s.w, strlen(ref));
}

/* the appenders cut as snprintf does: every buffer size keeps a terminated prefix, w the whole length */
static void cuts(void)
{
    const char *full = "CFG7 0x010203→0x0a0b0c 17";
    size_t len = strlen(full);
    for (size_t n = 0; n <= len + 2; n++) {
        char b[64];
        memset(b, 'Z', sizeof b);
        ub_sbuf s = { b, n, 0 };
        ub_sb_lit(&s, "CFG");
        ub_sb_u64(&s, 7);
        ub_sb_lit(&s, " 0x");
        ub_sb_hex(&s, 0x10203, 6);
        ub_sb_str(&s, "→0x");
        ub_sb_hex(&s, 0xa0b0c, 6);
        ub_sb_chr(&s, ' ');
        ub_sb_u64(&s, 17);
        CHECK_EQ(ub_sb_end(&s), len);
        if (n == 0) { CHECK_EQ(b[0], 'Z'); continue; }
        size_t k = n - 1 < len ? n - 1 : len;
        CHECK_EQ(strlen(b), k);
        CHECK_EQ(memcmp(b, full, k), 0);
        for (size_t i = k + 1; i < sizeof b; i++) /* nothing written past the terminator */
            if (b[i] != 'Z') { CHECK_EQ(i, 0); break; }
    }
}

static void decode_text(const char *text)
{
    static uint8_t rec[4096];
    char err[200];
    ub_entry e;
    long n = ub_build_text(text, &O, rec, sizeof rec, &e, err, sizeof err);
    if (n < 0) fprintf(stderr, "build: %s\n", err);
    CHECK(n > 0);
    if (n > 0) ub_decode(&V, &O, e, rec, (uint32_t)n);
}

/* a decoded packet's line, and the same line cut at every length */
static void line_is(const char *want)
{
    char b[512], c[512];
    size_t w = ub_summary(&V, b, sizeof b);
    CHECK_STR(b, want);
    CHECK_EQ(w, strlen(want));
    for (size_t n = 1; n < w + 2 && n < sizeof c; n++) {
        memset(c, 'Z', sizeof c);
        CHECK_EQ(ub_summary(&V, c, n), w);
        CHECK_EQ(strlen(c), n - 1 < w ? n - 1 : w);
        CHECK_EQ(strncmp(c, want, n - 1), 0);
    }
}

int main(void)
{
    ub_opts_default(&O);
    ub_view_init(&V);
    rows_match();
    numbers();
    cuts();

    decode_text("pkt\nlph vl=2\nnth24 scna=0x010203 dcna=0x0a0b0c sl=2\n"
                "rtph last=1 srctpn=0x101 dsttpn=0x202 psn=17 tpmsn=1\n"
                "btah taopcode=Write ini_tassn=50\nmaetah address=0x30c80 tokenid=1 length=64\npayload inc=64\n");
    line_is("CFG7 0x010203→0x0a0b0c RTP PSN 17 TPN 0x101→0x202 last Write req TASSN 50 addr 0x30c80 len 64");
    decode_text("pkt\nlph vl=2\nnth24 scna=0x0a0b0c dcna=0x010203\n"
                "rtph tpopcode=2 srctpn=0x202 dsttpn=0x101 psn=16777215 rspst=3 rspinfo=0\n");
    line_is("CFG7 0x0a0b0c→0x010203 TPNAK PSN 16777215 TPN 0x202→0x101");
    decode_text("flit\nlch clength=1 ctrl=2 sub_ctrl=4\ndllcb_crd_ack t=1 sd=1 ack_num=65535 crd_num_vl0=63\n");
    line_is("DLLCB Crd_Ack Block T=1 SD=1 ACK_NUM=65535");
    return ub_test_finish();
}

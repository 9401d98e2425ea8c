#include "decoder_test.h"

/* ====================================================================== test_mgmt.c
 * Enumeration (§10.4.3.2, digest §7.1) and configuration-management PDUs (§7.5): direct calls of
 * ub_dec_enum / ub_dec_mgmt_pdu / ub_dec_tlvs and end-to-end packets through ub_decode. */
unsigned ub_scan_path_entry(const uint8_t *path, unsigned i, unsigned w, unsigned packing);

static ub_view V;
static ub_opts O;

/* run ub_dec_enum on a network packet whose padding starts at `off` */
static uint32_t run_enum(const uint8_t *p, uint32_t len, uint32_t off)
{
    ub_dec d;
    td_init(&d, &V, &O, p, len);
    return ub_dec_enum(&d, off, len);
}
static void run_pdu(const uint8_t *p, uint32_t len, unsigned code, unsigned sub, bool rsp)
{
    ub_dec d;
    td_init(&d, &V, &O, p, len);
    ub_dec_mgmt_pdu(&d, 0, len, code, sub, rsp);
}

/* layer index of the k-th layer with id */
static int nth_layer(unsigned id, int k)
{
    int i = -1;
    do i = ub_view_find(&V, id, i + 1); while (i >= 0 && k-- > 0);
    return i;
}

/* every prefix of a sample decodes without crashing; shorter ones must report an error */
static void prefixes_enum(const uint8_t *p, uint32_t len, uint32_t off)
{
    for (uint32_t n = 0; n < len; n++) {
        uint32_t r = run_enum(p, n, off);
        CHECK(r <= n || n < off);
        if (n > off && V.nerrs == 0) {
            fprintf(stderr, "enum prefix %u of %u: no error\n", n, len);
            CHECK(V.nerrs > 0);
        }
    }
}
static void prefixes_pdu(const uint8_t *p, uint32_t len, unsigned code, unsigned sub, bool rsp, bool must_err)
{
    for (uint32_t n = 0; n < len; n++) {
        run_pdu(p, n, code, sub, rsp);
        if (must_err && !(rsp && n == 0) && V.nerrs == 0) {
            fprintf(stderr, "pdu %u/%u prefix %u of %u: no error\n", code, sub, n, len);
            CHECK(V.nerrs > 0);
        }
        for (unsigned i = 0; i < V.nlayers; i++)
            CHECK(V.layer[i].off + V.layer[i].len <= n);
    }
}

/* ---------------------------------------------------------------- §13.5 */
static const char *V135 =
    "00 00 00 00 00 00 00 09 7f ff 00 00 00 11 02 00 00 00 05 03 00 00 01 07 "
    "01 00 01 00 00 06 00 01 00 00 00 09 00 00 00 00 12 00 00 00 12 34 56 78";

static void t_path_entry(void)
{
    uint8_t p[8];
    ub_hex("04 03 02 01", p, sizeof p);
    for (unsigned i = 0; i < 4; i++) CHECK_EQ(ub_scan_path_entry(p, i, 8, 0), i + 1);
    ub_hex("87 65 43 21", p, sizeof p);
    for (unsigned i = 0; i < 8; i++) CHECK_EQ(ub_scan_path_entry(p, i, 4, 0), i + 1);
    ub_hex("00 02 00 01", p, sizeof p);
    CHECK_EQ(ub_scan_path_entry(p, 0, 16, 0), 1);
    CHECK_EQ(ub_scan_path_entry(p, 1, 16, 0), 2);
    /* R-32 alternative (rev. 1): MSB-first */
    ub_hex("01 02 03 04 05 06 07 08", p, sizeof p);
    for (unsigned i = 0; i < 8; i++) CHECK_EQ(ub_scan_path_entry(p, i, 8, 1), i + 1);
    ub_hex("12 34 56 78", p, sizeof p);
    for (unsigned i = 0; i < 8; i++) CHECK_EQ(ub_scan_path_entry(p, i, 4, 1), i + 1);
    ub_hex("00 01 00 02", p, sizeof p);
    CHECK_EQ(ub_scan_path_entry(p, 1, 16, 1), 2);
    /* second word */
    ub_hex("04 03 02 01 00 00 00 05", p, sizeof p);
    CHECK_EQ(ub_scan_path_entry(p, 4, 8, 0), 5);
    CHECK_EQ(ub_scan_path_entry(p, 0, 5, 0), 0); /* invalid width */
}

static void t_enum_135(void)
{
    uint8_t b[64];
    size_t n = ub_hex(V135, b, sizeof b);
    CHECK_EQ(n, 48);
    CHECK_EQ(run_enum(b, 48, 10), 48);
    CHECK_NOERR(&V, "13.5");
    CHECK_EQ(V.nlayers, 4);
    CHECK_EQ(V.layer[0].hdr->id, UB_H_ENUMPAD);
    CHECK_EQ(V.layer[1].hdr->id, UB_H_SCANHDR);
    CHECK_STR(V.layer[2].hdr->key, "scan_rpath");
    CHECK_EQ(V.layer[2].hdr->id, UB_H_SCAN_RPATH);
    CHECK_EQ(V.layer[3].hdr->id, UB_H_SCANPDU_REQ);
    CHECK_EQ(V.layer[1].off, 12);
    CHECK_EQ(V.layer[1].len, 8);
    CHECK_EQ(V.layer[2].len, 4);
    CHECK_EQ(V.layer[3].len, 24);
    CHECK_EQ(td_get(&V, "ub.enumpad.padding"), 0);
    CHECK_EQ(td_get(&V, "ub.scanhdr.r"), 1);
    CHECK_EQ(td_get(&V, "ub.scanhdr.type"), 1);
    CHECK_EQ(td_get(&V, "ub.scanhdr.hops"), 2);
    CHECK_EQ(td_get(&V, "ub.scanhdr.step"), 0);
    CHECK_EQ(td_get(&V, "ub.scan.version"), 1);
    CHECK_EQ(td_get(&V, "ub.scan.cmd"), 0);
    CHECK_EQ(td_get(&V, "ub.scan.opcode"), 1);
    CHECK_EQ(td_get(&V, "ub.scan.slice_id"), 0);
    CHECK_EQ(td_get(&V, "ub.scan.msgq_id"), 0);
    CHECK_EQ(td_get(&V, "ub.scan.length"), 6);
    CHECK_EQ(td_get(&V, "ub.scan.msn"), 1);
    CHECK_EQ(td_get(&V, "ub.scan.guid_vendor_id"), 0x1234);
    CHECK_EQ(td_get(&V, "ub.scan.guid_device_id"), 0x5678);
    CHECK_EQ(td_get(&V, "ub.scan.guid_version"), 1);
    CHECK_EQ(td_get(&V, "ub.scan.guid_type"), 2);
    CHECK_EQ(td_get(&V, "ub.scan.guid_seq_lo"), 9);
    CHECK_EQ(td_get(&V, "ub.scan.guid_seq_hi"), 0);
    char buf[64];
    CHECK_STR(td_fmt(&V, 3, "guid", buf, sizeof buf), "12345678120000000000000000000009");
    /* hop lists via the helper, from the layer bytes */
    ub_val fp, rp;
    const ub_layer *sh = &V.layer[1], *rl = &V.layer[2];
    CHECK_EQ(ub_field_value(sh, &sh->hdr->fields[ub_field_index(sh->hdr, "forward_path")], &fp), 0);
    CHECK_EQ(fp.nbytes, 4);
    CHECK_EQ(ub_scan_path_entry(fp.bytes, 0, 8, O.scan_packing), 3);
    CHECK_EQ(ub_scan_path_entry(fp.bytes, 1, 8, O.scan_packing), 5);
    CHECK_EQ(ub_field_value(rl, &rl->hdr->fields[ub_field_index(rl->hdr, "return_path")], &rp), 0);
    CHECK_EQ(rp.nbytes, 4);
    CHECK_EQ(ub_scan_path_entry(rp.bytes, 0, 8, O.scan_packing), 7);
    CHECK_EQ(ub_scan_path_entry(rp.bytes, 1, 8, O.scan_packing), 1);
    size_t nf = 0;
    const ub_hdr *hh[8];
    const ub_field *ff[8];
    nf = ub_field_find("ub.scanhdr.forward_path", hh, ff, 8);
    CHECK_EQ(nf, 1);
    CHECK_EQ(ub_field_find("ub.scanhdr.return_path", hh, ff, 8), 1);

    /* with a 4-byte ICRC after the PDU: the caller's business, no error here */
    uint8_t c[64];
    memcpy(c, b, 48);
    memset(c + 48, 0xAA, 4);
    CHECK_EQ(run_enum(c, 52, 10), 48);
    CHECK_NOERR(&V, "13.5+icrc");
    /* 8 trailing bytes: Length inconsistent with the packet */
    memset(c + 48, 0, 8);
    CHECK_EQ(run_enum(c, 56, 10), 48);
    CHECK_EQ(td_nerr(&V, UB_E_LENGTH), 1);

    /* rev. 1 packing (R-32 alternative) */
    memcpy(c, b, 48);
    ub_hex("03 05 00 00 07 01 00 00", c + 16, 8);
    O.scan_packing = 1;
    CHECK_EQ(run_enum(c, 48, 10), 48);
    CHECK_NOERR(&V, "rev1");
    CHECK_EQ(ub_scan_path_entry(V.layer[1].data + 4, 1, 8, O.scan_packing), 5);
    CHECK_EQ(ub_scan_path_entry(V.layer[2].data, 0, 8, O.scan_packing), 7);
    O.scan_packing = 0;

    prefixes_enum(b, 48, 10);
}

static void t_enum_errors(void)
{
    uint8_t b[64], c[64];
    ub_hex(V135, b, sizeof b);
    /* Type 3: reserved, rest opaque */
    memcpy(c, b, 48);
    c[13] = 0x13;
    CHECK_EQ(run_enum(c, 48, 10), 48);
    CHECK_EQ(td_nerr(&V, UB_E_RSVD_VALUE), 1);
    CHECK(ub_view_find(&V, UB_H_MG_OPAQUE, 0) >= 0);
    CHECK_EQ(ub_view_find(&V, UB_H_SCANPDU_REQ, 0), -1);
    /* Step > Hops */
    memcpy(c, b, 48);
    c[15] = 3;
    run_enum(c, 48, 10);
    CHECK_EQ(td_nerr(&V, UB_E_VALUE), 1);
    CHECK_EQ(V.err[0].actual, 3);
    CHECK_EQ(V.err[0].expected, 2);
    /* Step == Hops is fine (at the destination) */
    c[15] = 2;
    run_enum(c, 48, 10);
    CHECK_NOERR(&V, "step==hops");
    /* Version 2 */
    memcpy(c, b, 48);
    c[24] = 2;
    run_enum(c, 48, 10);
    CHECK_EQ(td_nerr(&V, UB_E_VALUE), 1);
    /* non-zero padding */
    memcpy(c, b, 48);
    c[11] = 1;
    run_enum(c, 48, 10);
    CHECK_EQ(td_nerr(&V, UB_E_PADDING), 1);
    /* unused path entries must be 0 */
    memcpy(c, b, 48);
    c[16] = 9;
    run_enum(c, 48, 10);
    CHECK_EQ(td_nerr(&V, UB_E_PADDING), 1);
    /* R = 0 in a request (MG-02): the PDU then starts after the forward path */
    uint8_t r0[64];
    ub_hex("00 00 00 00 00 00 00 09 7f ff 00 00 00 01 02 00 00 00 05 03 "
           "01 00 01 00 00 06 00 01 00 00 00 09 00 00 00 00 12 00 00 00 12 34 56 78", r0, sizeof r0);
    CHECK_EQ(run_enum(r0, 44, 10), 44);
    CHECK_EQ(td_nerr(&V, UB_E_VALUE), 1);
    CHECK_EQ(td_get(&V, "ub.scan.msn"), 1);
    /* Length says 28 bytes but only 24 present */
    memcpy(c, b, 48);
    c[29] = 7;
    run_enum(c, 48, 10);
    CHECK(td_nerr(&V, UB_E_LENGTH) >= 1);
    /* CMD 7: user-defined -> note, rest opaque */
    memcpy(c, b, 48);
    c[25] = 7;
    memset(c + 48, 0x5A, 8);
    c[29] = 8;
    CHECK_EQ(run_enum(c, 56, 10), 56);
    CHECK_EQ(td_nerr(&V, UB_E_AMBIGUOUS), 1);
    CHECK_EQ(V.nerrs, 1);
    int oi = ub_view_find(&V, UB_H_MG_OPAQUE, 0);
    CHECK(oi >= 0);
    if (oi >= 0) CHECK_EQ(V.layer[oi].len, 8);
    /* reserved Opcode for CMD 0 */
    memcpy(c, b, 48);
    c[26] = 5;
    run_enum(c, 48, 10);
    CHECK_EQ(td_nerr(&V, UB_E_RSVD_VALUE), 1);
}

/* topology query response with every TLV type (Figs 10-25..10-30) */
static const char *VTOPO =
    "00 00 00 00 00 00 00 09 7f ff 00 00 "
    "00 00 01 01 00 00 00 05 "                                  /* R 0, Type 0, Hops 1, Step 1; entry 5 */
    "01 00 00 00 00 14 00 01 "                                  /* rsp, Length 20, MSN 1 */
    "00 00 00 0a 00 00 00 00 21 00 00 00 19 e5 00 01 "          /* GUID */
    "00 04 01 00 "                                              /* Slice_info */
    "01 08 00 02 00 01 00 00 "                                  /* Port_num */
    "02 1c 05 00 00 03 00 07 00 64 00 32 "                      /* Port_info */
    "00 00 00 0b 00 00 00 00 21 00 00 00 19 e5 00 02 "
    "04 08 12 01 00 00 02 00 "                                  /* Cap_info */
    "80 08 aa bb cc dd ee ff";                                  /* vendor TLV */

static void t_enum_topo_rsp(void)
{
    uint8_t b[128];
    size_t n = ub_hex(VTOPO, b, sizeof b);
    CHECK_EQ(n, 100);
    CHECK_EQ(run_enum(b, 100, 10), 100);
    CHECK_NOERR(&V, "topo");
    CHECK_EQ(ub_view_find(&V, UB_H_SCANPDU_RSP, 0), 2);
    CHECK_EQ(td_get(&V, "ub.scanhdr.r"), 0);
    CHECK_EQ(td_get(&V, "ub.scanhdr.type"), 0);
    CHECK_EQ(ub_scan_path_entry(V.layer[1].data + 4, 0, 4, 0), 5);
    CHECK_EQ(td_get(&V, "ub.scan.status"), 0);
    CHECK_EQ(td_get(&V, "ub.scan.length"), 20);
    CHECK_EQ(td_get(&V, "ub.scan.guid_vendor_id"), 0x19e5);
    CHECK_EQ(td_get(&V, "ub.slice_info.type"), 0);
    CHECK_EQ(td_get(&V, "ub.slice_info.length"), 4);
    CHECK_EQ(td_get(&V, "ub.slice_info.total_slice"), 1);
    CHECK_EQ(td_get(&V, "ub.slice_info.slice_id"), 0);
    CHECK_EQ(td_get(&V, "ub.port_num.total_num_ports"), 2);
    CHECK_EQ(td_get(&V, "ub.port_num.num_port_tlv"), 1);
    CHECK_EQ(td_get(&V, "ub.port_info.length"), 28);
    CHECK_EQ(td_get(&V, "ub.port_info.t"), 0);
    CHECK_EQ(td_get(&V, "ub.port_info.w"), 1);
    CHECK_EQ(td_get(&V, "ub.port_info.b"), 0);
    CHECK_EQ(td_get(&V, "ub.port_info.s"), 1);
    CHECK_EQ(td_get(&V, "ub.port_info.local_port_idx"), 3);
    CHECK_EQ(td_get(&V, "ub.port_info.remote_port_idx"), 7);
    CHECK_EQ(td_get(&V, "ub.port_info.max_rate"), 100);
    CHECK_EQ(td_get(&V, "ub.port_info.cur_rate"), 50);
    CHECK_EQ(td_get(&V, "ub.port_info.remote_guid_device_id"), 2);
    CHECK_EQ(td_get(&V, "ub.port_info.remote_guid_seq_lo"), 0xb);
    CHECK_EQ(td_get(&V, "ub.cap_info.sup_mtu"), 1);
    CHECK_EQ(td_get(&V, "ub.cap_info.mtu"), 2);
    CHECK_EQ(td_get(&V, "ub.cap_info.da"), 1);
    CHECK_EQ(td_get(&V, "ub.cap_info.class_code"), 0x0200);
    CHECK_EQ(td_get(&V, "ub.tlv.type"), 0x80);
    CHECK_EQ(td_get(&V, "ub.tlv.length"), 8);
    int ti = ub_view_find(&V, UB_H_TLV_SLICE, 0);
    CHECK(ti > 0);
    if (ti > 0) CHECK_EQ(V.layer[ti].depth, 1);
    CHECK_EQ(V.nlayers, 8);

    /* TLV errors: Port_info with Length 24, reserved type 5, Length 0 */
    uint8_t c[128];
    memcpy(c, b, 100);
    c[57] = 24; /* Port_info Length */
    run_enum(c, 100, 10);
    CHECK(td_nerr(&V, UB_E_LENGTH) >= 1);
    memcpy(c, b, 100);
    c[92] = 5; /* vendor TLV -> reserved type */
    run_enum(c, 100, 10);
    CHECK_EQ(td_nerr(&V, UB_E_RSVD_VALUE), 1);
    memcpy(c, b, 100);
    c[93] = 0; /* Length 0 */
    run_enum(c, 100, 10);
    CHECK_EQ(td_nerr(&V, UB_E_LENGTH), 1);
    memcpy(c, b, 100);
    c[93] = 12; /* past the end */
    run_enum(c, 100, 10);
    CHECK_EQ(td_nerr(&V, UB_E_TRUNCATED), 1);

    prefixes_enum(b, 100, 10);
}

static void t_enum_cna(void)
{
    uint8_t b[128];
    /* Configure CNA request, Opcode 3 (Port CNA), Port_idx 5, CNA 0x000123 */
    size_t n = ub_hex("00 00 00 00 00 00 00 09 7f ff 00 00 00 11 01 00 00 00 00 02 00 00 00 04 "
                      "01 01 03 00 00 08 00 05 00 00 00 01 00 00 00 00 21 00 00 00 19 e5 00 01 "
                      "00 05 00 00 00 00 01 23", b, sizeof b);
    CHECK_EQ(n, 56);
    CHECK_EQ(run_enum(b, 56, 10), 56);
    CHECK_NOERR(&V, "cfgcna");
    CHECK_EQ(td_get(&V, "ub.scan.cmd"), 1);
    CHECK_EQ(td_get(&V, "ub.scan.opcode"), 3);
    CHECK_EQ(td_get(&V, "ub.scan.msn"), 5);
    int ei = ub_view_find(&V, UB_H_SCAN_CFGCNA_REQ, 0);
    CHECK(ei > 0);
    CHECK_EQ(td_lv(&V, ei, "port_idx"), 5);
    CHECK_EQ(td_lv(&V, ei, "cna"), 0x123);
    prefixes_enum(b, 56, 10);
    /* Configure CNA response, 24 bytes */
    n = ub_hex("00 00 00 00 00 00 00 09 7f ff 00 00 00 01 01 01 00 00 00 04 "
               "01 01 00 00 00 06 00 05 00 00 00 02 00 00 00 00 21 00 00 00 19 e5 00 01", b, sizeof b);
    CHECK_EQ(run_enum(b, (uint32_t)n, 10), n);
    CHECK_NOERR(&V, "cfgcna rsp");
    CHECK_EQ(td_get(&V, "ub.scan.status"), 0);
    /* Query CNA request, Opcode 3, Port_idx 9 at B26-27 (I-21) */
    n = ub_hex("00 00 00 00 00 00 00 09 7f ff 00 00 00 11 01 00 00 00 00 02 00 00 00 04 "
               "01 02 03 00 00 07 00 06 00 00 00 01 00 00 00 00 21 00 00 00 19 e5 00 01 "
               "00 00 00 09", b, sizeof b);
    CHECK_EQ(run_enum(b, (uint32_t)n, 10), n);
    CHECK_NOERR(&V, "qrycna");
    ei = ub_view_find(&V, UB_H_SCAN_QRYCNA_REQ, 0);
    CHECK_EQ(td_lv(&V, ei, "port_idx"), 9);
    prefixes_enum(b, (uint32_t)n, 10);
    /* Query CNA response, CNA 0x000456 */
    n = ub_hex("00 00 00 00 00 00 00 09 7f ff 00 00 00 01 01 01 00 00 00 04 "
               "01 02 00 00 00 07 00 06 00 00 00 02 00 00 00 00 21 00 00 00 19 e5 00 01 "
               "00 00 04 56", b, sizeof b);
    CHECK_EQ(run_enum(b, (uint32_t)n, 10), n);
    CHECK_NOERR(&V, "qrycna rsp");
    CHECK_EQ(td_get(&V, "ub.scan.cna"), 0x456);
    /* wrong Length for the command */
    b[25] = 6;
    run_enum(b, (uint32_t)n, 10);
    CHECK(td_nerr(&V, UB_E_LENGTH) >= 1);
}

/* ---------------------------------------------------------------- §7.5 PDUs */
static void t_pdus(void)
{
    uint8_t b[128];
    size_t n;
    int li;

    /* §13.3 default: Configuration Space0 Read, Entity 0, Request Address 4 */
    n = ub_hex("00 00 00 00 00 00 00 04 00 00 00 00 00 00 00 00", b, sizeof b);
    run_pdu(b, (uint32_t)n, 2, 0, false);
    CHECK_NOERR(&V, "cfg read");
    CHECK_EQ(V.nlayers, 1);
    CHECK_EQ(V.layer[0].hdr->id, UB_H_MG_CFG_REQ);
    CHECK_EQ(V.layer[0].len, 16);
    CHECK_EQ(td_get(&V, "ub.cfgmsg.entity_idx"), 0);
    CHECK_EQ(td_get(&V, "ub.cfgmsg.request_address"), 4);
    prefixes_pdu(b, (uint32_t)n, 2, 0, false, true);
    /* write: Entity 2, Byte_En 0xF, address 0x10, data 0x11223344 */
    n = ub_hex("00 02 00 f0 00 00 00 10 00 00 00 00 11 22 33 44", b, sizeof b);
    run_pdu(b, (uint32_t)n, 2, 1, false);
    CHECK_NOERR(&V, "cfg write");
    CHECK_EQ(td_get(&V, "ub.cfgmsg.entity_idx"), 2);
    CHECK_EQ(td_get(&V, "ub.cfgmsg.byte_en"), 0xF);
    CHECK_EQ(td_get(&V, "ub.cfgmsg.data"), 0x11223344);
    /* R-35 alternative: 20 bytes */
    n = ub_hex("00 00 00 00 00 00 00 04 00 00 00 00 00 00 00 00 00 00 00 00", b, sizeof b);
    run_pdu(b, (uint32_t)n, 2, 0, false);
    CHECK_NOERR(&V, "cfg read 20");
    CHECK_EQ(V.layer[0].len, 20);
    CHECK_EQ(td_get(&V, "ub.cfgmsg.rsvd3"), 0);
    /* reserved rows with the trailing RSVD outside the 16-byte table: checked only when the layer holds it
     * (twice each: the first push learns the view's reserved-row cache, the second uses it) */
    for (int rep = 0; rep < 2; rep++) {
        b[19] = 0x01; /* rsvd3 */
        run_pdu(b, 20, 2, 0, false);
        CHECK_EQ(V.nerrs, 1);
        CHECK_EQ(V.err[0].code, UB_E_RSVD_BITS);
        CHECK_EQ(V.err[0].hdr, UB_H_MG_CFG_REQ);
        CHECK_EQ(V.err[0].off, 16);
        run_pdu(b, 16, 2, 0, false); /* the same bytes as a 16-byte request: byte 19 is not in it */
        CHECK_NOERR(&V, "cfg read 16, byte 19 set");
        b[19] = 0;
        b[9] = 0x80; /* rsvd2 */
        run_pdu(b, 20, 2, 0, false);
        CHECK_EQ(V.nerrs, 1);
        CHECK_EQ(V.err[0].code, UB_E_RSVD_BITS);
        CHECK_EQ(V.err[0].off, 8);
        run_pdu(b, 16, 2, 0, false);
        CHECK_EQ(V.nerrs, 1);
        CHECK_EQ(V.err[0].code, UB_E_RSVD_BITS);
        CHECK_EQ(V.err[0].off, 8);
        b[9] = 0;
    }
    run_pdu(b, 18, 2, 0, false);
    CHECK_EQ(td_nerr(&V, UB_E_LENGTH), 1);
    /* response */
    n = ub_hex("de ad be ef 00 00 00 00 00 00 00 00 00 00 00 00", b, sizeof b);
    run_pdu(b, (uint32_t)n, 2, 0, true);
    CHECK_NOERR(&V, "cfg rsp");
    CHECK_EQ(V.layer[0].hdr->id, UB_H_MG_CFG_RSP);
    CHECK_EQ(td_get(&V, "ub.cfgmsg.data"), 0xdeadbeef);
    prefixes_pdu(b, (uint32_t)n, 2, 0, true, true);

    /* Error Message: SCNA 0x5678, EL 1, Port_idx 3 */
    n = ub_hex("00 00 56 78 80 00 00 03", b, sizeof b);
    run_pdu(b, (uint32_t)n, 0, 1, false);
    CHECK_NOERR(&V, "errmsg");
    CHECK_EQ(td_get(&V, "ub.errmsg.scna"), 0x5678);
    CHECK_EQ(td_get(&V, "ub.errmsg.el"), 1);
    CHECK_EQ(td_get(&V, "ub.errmsg.port_idx"), 3);
    prefixes_pdu(b, (uint32_t)n, 0, 1, false, true);
    /* events have no response PDU */
    run_pdu(b, (uint32_t)n, 0, 1, true);
    CHECK_EQ(td_nerr(&V, UB_E_LENGTH), 1);
    CHECK_EQ(V.layer[0].hdr->id, UB_H_MG_OPAQUE);
    run_pdu(b, 0, 0, 1, true);
    CHECK_NOERR(&V, "event rsp");

    /* Link Down (digest §13.4 MGMTETAH 12 00 00 08): SCNA 0x1234, Port_idx 7 */
    n = ub_hex("00 00 12 34 00 00 00 07", b, sizeof b);
    run_pdu(b, (uint32_t)n, 1, 1, false);
    CHECK_NOERR(&V, "link");
    CHECK_EQ(V.layer[0].hdr->id, UB_H_MG_LINK);
    CHECK_EQ(td_get(&V, "ub.linkchg.scna"), 0x1234);
    CHECK_EQ(td_get(&V, "ub.linkchg.port_idx"), 7);
    run_pdu(b, 6, 1, 1, false);
    CHECK_EQ(td_nerr(&V, UB_E_LENGTH), 1);
    CHECK_EQ(V.nerrs, 1);
    CHECK(V.layer[0].flags & UB_LF_TRUNC);
    run_pdu(b, 0, 1, 1, false); /* request without its PDU (MG-04) */
    CHECK_EQ(td_nerr(&V, UB_E_LENGTH), 1);
    CHECK_EQ(V.nlayers, 0);
    run_pdu(b, 0, 4, 2, true); /* response without PDU (error status): accepted */
    CHECK_NOERR(&V, "empty rsp");
    run_pdu(b, 0, 7, 0, true); /* reserved Code even without PDU */
    CHECK_EQ(td_nerr(&V, UB_E_RSVD_VALUE), 1);
    prefixes_pdu(b, (uint32_t)n, 1, 1, false, true);
    /* Hot-plug: Slot_idx 12 */
    n = ub_hex("00 00 00 0c 00 00 00 00", b, sizeof b);
    run_pdu(b, (uint32_t)n, 1, 3, false);
    CHECK_NOERR(&V, "hotplug");
    CHECK_EQ(td_get(&V, "ub.hotplug.slot_idx"), 12);
    /* reserved bits -> warning only */
    b[0] = 1;
    run_pdu(b, (uint32_t)n, 1, 2, false);
    CHECK_EQ(td_nerr(&V, UB_E_RSVD_BITS), 1);
    CHECK_EQ(ub_view_worst(&V), UB_SEV_WARN);

    /* VDM for Vendor, figure order (R-36 default) */
    n = ub_hex("12 00 56 78 12 34 aa bb", b, sizeof b);
    run_pdu(b, (uint32_t)n, 3, 15, false);
    CHECK_NOERR(&V, "vdm");
    CHECK_EQ(V.layer[0].hdr->id, UB_H_MG_VDM_VENDOR);
    CHECK_EQ(td_get(&V, "ub.vdm.version"), 1);
    CHECK_EQ(td_get(&V, "ub.vdm.type"), 2);
    CHECK_EQ(td_get(&V, "ub.vdm.device_id"), 0x5678);
    CHECK_EQ(td_get(&V, "ub.vdm.vendor_id"), 0x1234);
    CHECK_EQ(td_get(&V, "ub.vdm.vendor_definition"), 0xaabb);
    prefixes_pdu(b, 6, 3, 15, false, true);
    /* EV-UBUS layout (I-35) */
    n = ub_hex("12 00 00 00 12 34 56 78 01 02 03 04", b, sizeof b);
    O.vdm_variant = 1;
    run_pdu(b, (uint32_t)n, 3, 15, true);
    CHECK_NOERR(&V, "vdm alt");
    CHECK_EQ(V.layer[0].hdr->id, UB_H_MG_VDM_VENDOR_ALT);
    CHECK_EQ(td_get(&V, "ub.vdm.vendor_id"), 0x1234);
    CHECK_EQ(td_get(&V, "ub.vdm.device_id"), 0x5678);
    CHECK_EQ(td_get(&V, "ub.vdm.vendor_definition"), 0x01020304);
    prefixes_pdu(b, 8, 3, 15, false, true);
    O.vdm_variant = 0;
    /* MCTP: opaque */
    run_pdu(b, (uint32_t)n, 3, 0, false);
    CHECK_NOERR(&V, "mctp");
    CHECK_EQ(V.layer[0].hdr->id, UB_H_MG_OPAQUE);
    CHECK_EQ(V.layer[0].len, n);

    /* Resource Space Information Exchange */
    n = ub_hex("00 00 00 00", b, sizeof b);
    run_pdu(b, (uint32_t)n, 4, 1, false);
    CHECK_NOERR(&V, "rsi get");
    CHECK_EQ(td_get(&V, "ub.rsi.opcode"), 0);
    CHECK_EQ(V.layer[0].len, 4);
    n = ub_hex("00 00 00 01 89 ab cd ef 01 23 45 67 00 00 10 00 00 00 00 02 00 00 20 00 00 00 00 03",
               b, sizeof b);
    CHECK_EQ(n, 28);
    run_pdu(b, (uint32_t)n, 4, 1, false);
    CHECK_NOERR(&V, "rsi cfg");
    CHECK_EQ(td_get(&V, "ub.rsi.opcode"), 1);
    CHECK_EQ(td_get(&V, "ub.rsi.ers0_sa0"), 0x89abcdef);
    CHECK_EQ(td_get(&V, "ub.rsi.ers0_sa1"), 0x01234567);
    CHECK_EQ(td_get(&V, "ub.rsi.ers2_sa0"), 0x2000);
    CHECK_EQ(td_get(&V, "ub.rsi.ers2_sa1"), 3);
    prefixes_pdu(b, (uint32_t)n, 4, 1, false, true);
    run_pdu(b, 4, 4, 1, false); /* Opcode 1 needs 28 bytes */
    CHECK_EQ(td_nerr(&V, UB_E_LENGTH), 1);
    b[3] = 2;
    run_pdu(b, 28, 4, 1, false);
    CHECK_EQ(td_nerr(&V, UB_E_RSVD_VALUE), 1);
    n = ub_hex("00 00 00 10 00 00 10 00 00 00 00 00 00 00 00 20 00 00 20 00 00 00 00 00 "
               "00 00 00 00 00 00 00 00 00 00 00 00", b, sizeof b);
    CHECK_EQ(n, 36);
    run_pdu(b, (uint32_t)n, 4, 1, true);
    CHECK_NOERR(&V, "rsi rsp");
    CHECK_EQ(td_get(&V, "ub.rsi.ers0_ss"), 0x10);
    CHECK_EQ(td_get(&V, "ub.rsi.ers0_sa0"), 0x1000);
    CHECK_EQ(td_get(&V, "ub.rsi.ers1_ss"), 0x20);
    CHECK_EQ(td_get(&V, "ub.rsi.ers1_sa0"), 0x2000);
    CHECK_EQ(td_get(&V, "ub.rsi.ers2_ss"), 0);
    run_pdu(b, 0, 4, 1, true); /* Opcode 1 response: none */
    CHECK_NOERR(&V, "rsi rsp 0");
    prefixes_pdu(b + 0, 36, 4, 1, true, false);

    /* Obtaining Entity Information: 2 MUEs, 5 Entities */
    n = ub_hex("00 00 00 00 00 02 00 05 00 01 00 00 00 04 00 02", b, sizeof b);
    run_pdu(b, (uint32_t)n, 4, 2, true);
    CHECK_NOERR(&V, "entinfo");
    CHECK_EQ(td_get(&V, "ub.entinfo.mue_nums"), 2);
    CHECK_EQ(td_get(&V, "ub.entinfo.entity_nums"), 5);
    li = nth_layer(UB_H_MG_ENTINFO_MUE, 1);
    CHECK_EQ(td_lv(&V, li, "end_ue_idx"), 4);
    CHECK_EQ(td_lv(&V, li, "start_ue_idx"), 2);
    CHECK_EQ(V.layer[li].depth, 1);
    CHECK_EQ(V.nlayers, 3);
    prefixes_pdu(b, (uint32_t)n, 4, 2, true, true);
    run_pdu(b, 4, 4, 2, false); /* request has no PDU */
    CHECK_EQ(td_nerr(&V, UB_E_LENGTH), 1);

    /* Link Neighbor Query: list of 3 ports (1, 2, 5) + padding; range 2..5 */
    n = ub_hex("80 03 00 00 00 01 00 02 00 05 00 00", b, sizeof b);
    run_pdu(b, (uint32_t)n, 4, 7, false);
    CHECK_NOERR(&V, "lnq list");
    CHECK_EQ(td_get(&V, "ub.lnq.d"), 1);
    CHECK_EQ(td_get(&V, "ub.lnq.port_num"), 3);
    CHECK_EQ(td_get(&V, "ub.lnq.port_idx0"), 1);
    CHECK_EQ(td_get(&V, "ub.lnq.port_idx1"), 2);
    CHECK_EQ(td_get(&V, "ub.lnq.port_idx2"), 5);
    CHECK_EQ(td_get(&V, "ub.lnq.port_idx3"), 0);
    CHECK_EQ(td_get(&V, "ub.lnq.port_idx4"), ~0ull);
    prefixes_pdu(b, (uint32_t)n, 4, 7, false, true);
    b[11] = 1;
    run_pdu(b, (uint32_t)n, 4, 7, false);
    CHECK_EQ(td_nerr(&V, UB_E_PADDING), 1);
    n = ub_hex("00 04 00 00 00 02 00 05", b, sizeof b);
    run_pdu(b, (uint32_t)n, 4, 7, false);
    CHECK_NOERR(&V, "lnq range");
    CHECK_EQ(td_get(&V, "ub.lnq.port_idx1"), 5);
    /* a long list: 40 ports -> 32 named rows + the rest as bytes */
    memset(b, 0, sizeof b);
    b[0] = 0x80;
    b[1] = 40;
    for (int i = 0; i < 40; i++) b[4 + 2 * i + 1] = (uint8_t)(i + 1);
    run_pdu(b, 84, 4, 7, false);
    CHECK_NOERR(&V, "lnq 40");
    CHECK_EQ(td_get(&V, "ub.lnq.port_idx31"), 32);
    {
        ub_val x;
        const ub_layer *l = &V.layer[0];
        CHECK_EQ(ub_field_value(l, &l->hdr->fields[ub_field_index(l->hdr, "port_idx_rest")], &x), 0);
        CHECK_EQ(x.nbytes, 16);
        CHECK_EQ(x.bytes[1], 33);
    }
    /* response: Port_info TLVs */
    n = ub_hex("02 1c 01 00 00 01 00 02 00 00 00 00 00 00 00 01 00 00 00 00 21 00 00 00 19 e5 00 03 "
               "02 1c 00 00 00 02 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00",
               b, sizeof b);
    CHECK_EQ(n, 56);
    run_pdu(b, (uint32_t)n, 4, 7, true);
    CHECK_NOERR(&V, "lnq rsp");
    CHECK_EQ(V.nlayers, 2);
    CHECK_EQ(td_lv(&V, 0, "local_port_idx"), 1);
    CHECK_EQ(td_lv(&V, 0, "remote_port_idx"), 2);
    CHECK_EQ(td_lv(&V, 0, "s"), 1);
    CHECK_EQ(td_lv(&V, 1, "local_port_idx"), 2);
    CHECK_EQ(td_lv(&V, 1, "s"), 0);
    prefixes_pdu(b, (uint32_t)n, 4, 7, true, false);

    /* Token Check Configuration */
    n = ub_hex("00 00 00 01", b, sizeof b);
    run_pdu(b, (uint32_t)n, 5, 2, false);
    CHECK_NOERR(&V, "tok req");
    CHECK_EQ(td_get(&V, "ub.tokchk.check_en"), 1);
    n = ub_hex("00 0a bc de 11 22 33 44", b, sizeof b);
    run_pdu(b, (uint32_t)n, 5, 2, true);
    CHECK_NOERR(&V, "tok rsp");
    CHECK_EQ(td_get(&V, "ub.tokchk.tokenid"), 0xabcde);
    CHECK_EQ(td_get(&V, "ub.tokchk.tokenvalue"), 0x11223344);
    run_pdu(b, 0, 5, 2, true);
    CHECK_NOERR(&V, "tok rsp none");
    prefixes_pdu(b, (uint32_t)n, 5, 2, true, false);
    run_pdu(b, 4, 5, 2, true);
    CHECK_EQ(td_nerr(&V, UB_E_LENGTH), 1);
    /* SPDM */
    run_pdu(b, 8, 5, 1, true);
    CHECK_NOERR(&V, "spdm");
    CHECK_EQ(V.layer[0].hdr->id, UB_H_MG_OPAQUE);
}

static const char *GUIDWS_HEX = "00 00 00 01 00 00 00 00 21 00 00 00 19 e5 00 09";

static void t_pool(void)
{
    uint8_t b[128];
    char buf[80];
    size_t n = 0;
    /* Entity Registration, 92 bytes */
    memset(b, 0, sizeof b);
    ub_hex("12 34 00 07", b, 4);                      /* UPI 0x1234, Entity_idx 7 */
    ub_hex("00 0a bc de", b + 4, 4);                  /* EID word 0 */
    ub_hex(GUIDWS_HEX, b + 20, 16);
    ub_hex("00 00 ca fe", b + 36, 4);                 /* CNA */
    ub_hex("00 0f ed cb", b + 40, 4);                 /* UEID word 0 */
    ub_hex("00 00 01 00 00 00 10 00 00 00 00 01", b + 56, 12); /* ERS0 SS, SA */
    ub_hex("00 00 00 02 00 00 00 00 00 00 00 00", b + 68, 12);
    ub_hex("00 00 00 00 00 00 00 00 00 00 00 00", b + 80, 12);
    run_pdu(b, 92, 6, 0, false);
    CHECK_NOERR(&V, "entreg");
    CHECK_EQ(V.layer[0].hdr->id, UB_H_MG_ENT_REG);
    CHECK_EQ(td_get(&V, "ub.entreg.upi"), 0x1234);
    CHECK_EQ(td_get(&V, "ub.entreg.entity_idx"), 7);
    CHECK_EQ(td_get(&V, "ub.entreg.eid0"), 0xabcde);
    CHECK_EQ(td_get(&V, "ub.entreg.ueid0"), 0xfedcb);
    CHECK_EQ(td_get(&V, "ub.entreg.cna"), 0xcafe);
    CHECK_EQ(td_get(&V, "ub.entreg.ers0_ss"), 0x100);
    CHECK_EQ(td_get(&V, "ub.entreg.ers0_sa0"), 0x1000);
    CHECK_EQ(td_get(&V, "ub.entreg.ers0_sa1"), 1);
    CHECK_EQ(td_get(&V, "ub.entreg.ers1_ss"), 2);
    CHECK_STR(td_fmt(&V, 0, "guid", buf, sizeof buf), "19e50009210000000000000000000001");
    prefixes_pdu(b, 92, 6, 0, false, true);
    run_pdu(b, 90, 6, 0, false); /* MG-04 */
    CHECK_EQ(td_nerr(&V, UB_E_LENGTH), 1);
    memset(b + 92, 0, 4);
    run_pdu(b, 96, 6, 0, false);
    CHECK_EQ(td_nerr(&V, UB_E_LENGTH), 1);
    CHECK_EQ(V.nlayers, 2);
    run_pdu(b, 0, 6, 0, true); /* response: no PDU */
    CHECK_NOERR(&V, "entreg rsp");

    /* Entity Deregistration, 20 bytes, Reason 2 */
    memset(b, 0, sizeof b);
    ub_hex("00 0a bc de", b, 4);
    b[19] = 2;
    run_pdu(b, 20, 6, 1, false);
    CHECK_NOERR(&V, "dereg");
    CHECK_EQ(td_get(&V, "ub.entdereg.eid0"), 0xabcde);
    CHECK_EQ(td_get(&V, "ub.entdereg.reason"), 2);
    prefixes_pdu(b, 20, 6, 1, false, true);

    /* Bus Instance Create, 36 bytes, UPI 5 */
    memset(b, 0, sizeof b);
    ub_hex(GUIDWS_HEX, b, 16);
    ub_hex("00 00 00 77", b + 16, 4);
    ub_hex("00 00 00 05", b + 32, 4);
    run_pdu(b, 36, 6, 2, false);
    CHECK_NOERR(&V, "bicreate");
    CHECK_EQ(td_get(&V, "ub.bicreate.upi"), 5);
    CHECK_EQ(td_get(&V, "ub.bicreate.eid0"), 0x77);
    CHECK_STR(td_fmt(&V, 0, "guid", buf, sizeof buf), "19e50009210000000000000000000001");
    prefixes_pdu(b, 36, 6, 2, false, true);

    /* Bus Instance Destroy, 16 bytes */
    run_pdu(b, 16, 6, 3, false);
    CHECK_NOERR(&V, "bidestroy");
    CHECK_EQ(V.layer[0].hdr->id, UB_H_MG_BI_DESTROY);

    /* Configuration Completion Notification, F = 1 */
    memset(b, 0, sizeof b);
    b[3] = 1;
    ub_hex(GUIDWS_HEX, b + 4, 16);
    ub_hex("00 00 00 42", b + 20, 4);
    run_pdu(b, 36, 6, 4, false);
    CHECK_NOERR(&V, "cfgcpl");
    CHECK_EQ(td_get(&V, "ub.cfgcpl.f"), 1);
    CHECK_EQ(td_get(&V, "ub.cfgcpl.eid0"), 0x42);
    prefixes_pdu(b, 36, 6, 4, false, true);

    /* Port Reset Notification: Port 9, T = 1 */
    n = ub_hex("00 09 00 01", b, sizeof b);
    run_pdu(b, (uint32_t)n, 6, 5, false);
    CHECK_NOERR(&V, "portreset");
    CHECK_EQ(td_get(&V, "ub.portreset.port_idx"), 9);
    CHECK_EQ(td_get(&V, "ub.portreset.t"), 1);
    prefixes_pdu(b, 4, 6, 5, false, true);
}

static void t_reserved_codes(void)
{
    uint8_t b[16] = { 1, 2, 3, 4, 5, 6, 7, 8 };
    struct { unsigned code, sub; } rs[] = { { 7, 0 }, { 0, 3 }, { 1, 4 }, { 2, 4 }, { 3, 5 }, { 4, 0 }, { 4, 3 },
                                            { 4, 8 }, { 5, 0 }, { 5, 3 }, { 6, 6 }, { 6, 15 } };
    for (unsigned i = 0; i < sizeof rs / sizeof rs[0]; i++) {
        run_pdu(b, 8, rs[i].code, rs[i].sub, false);
        CHECK_EQ(td_nerr(&V, UB_E_RSVD_VALUE), 1);
        CHECK_EQ(V.nlayers, 1);
        CHECK_EQ(V.layer[0].hdr->id, UB_H_MG_OPAQUE);
    }
    /* every code/sub/direction on a random-ish buffer: no crash, layers inside the PDU */
    uint8_t r[200];
    for (unsigned i = 0; i < sizeof r; i++) r[i] = (uint8_t)(i * 37 + 11);
    for (unsigned code = 0; code < 8; code++)
        for (unsigned sub = 0; sub < 16; sub++)
            for (int rsp = 0; rsp < 2; rsp++)
                for (uint32_t len = 0; len <= sizeof r; len += 7) {
                    run_pdu(r, len, code, sub, rsp);
                    for (unsigned k = 0; k < V.nlayers && k < UB_MAX_LAYERS; k++)
                        CHECK(V.layer[k].off + V.layer[k].len <= len);
                }
}

/* mutated samples: no crash, every layer inside the input, result within bounds */
static void t_mutate(void)
{
    uint8_t base[2][128], c[160];
    uint32_t len[2];
    len[0] = (uint32_t)ub_hex(V135, base[0], sizeof base[0]);
    len[1] = (uint32_t)ub_hex(VTOPO, base[1], sizeof base[1]);
    uint32_t x = 0x12345678u;
    for (int it = 0; it < 20000; it++) {
        int s = it & 1;
        memcpy(c, base[s], len[s]);
        for (int k = 0; k < 3; k++) {
            x ^= x << 13; x ^= x >> 17; x ^= x << 5;
            c[10 + x % (len[s] - 10)] = (uint8_t)(x >> 8);
        }
        x ^= x << 13; x ^= x >> 17; x ^= x << 5;
        uint32_t n = len[s] - (x % 8 == 0 ? x % 20 : 0);
        O.scan_packing = (uint8_t)(x >> 30 & 1);
        uint32_t r = run_enum(c, n, 10);
        CHECK(r <= n);
        for (unsigned i = 0; i < V.nlayers; i++) CHECK(V.layer[i].off + V.layer[i].len <= n);
    }
    O.scan_packing = 0;
}

/* ---------------------------------------------------------------- end to end (needs net.c/dll.c) */
static void t_e2e(void)
{
    uint8_t rec[128];
    /* §13.5: LPH 00 06 00 4B + 48-byte network packet, no ICRC */
    ub_hex("00 06 00 4b", rec, 4);
    ub_hex(V135, rec + 4, 48);
    ub_decode(&V, &O, UB_ENTRY_PKT, rec, 52);
    CHECK_NOERR(&V, "e2e 13.5");
    CHECK_EQ(td_get(&V, "ub.scan.msn"), 1);
    CHECK_EQ(td_get(&V, "ub.scan.guid_vendor_id"), 0x1234);
    CHECK_EQ(td_get(&V, "ub.scanhdr.hops"), 2);
    CHECK(ub_view_find(&V, UB_H_ICRC, 0) < 0);

    /* §13.3 default vector, 16-byte PDU, with ICRC */
    size_t n = ub_hex("00 06 00 4b 00 01 00 10 80 02 5a 08 02 7f ff 00 00 10 00 02 10 10 00 07 00 00 00 03 "
                      "04 00 00 10 00 00 00 00 00 00 00 04 00 00 00 00 00 00 00 00 ee 64 42 30",
                      rec, sizeof rec);
    CHECK_EQ(n, 52);
    ub_decode(&V, &O, UB_ENTRY_PKT, rec, (uint32_t)n);
    CHECK_NOERR(&V, "e2e 13.3");
    CHECK_EQ(td_get(&V, "ub.cfgmsg.entity_idx"), 0);
    CHECK_EQ(td_get(&V, "ub.cfgmsg.request_address"), 4);
    int li = ub_view_find(&V, UB_H_MG_CFG_REQ, 0);
    CHECK(li > 0);
    if (li > 0) CHECK_EQ(V.layer[li].len, 16);

    /* every prefix of both records: no crash */
    for (uint32_t k = 1; k < n; k++) ub_decode(&V, &O, UB_ENTRY_PKT, rec, k);
}

int main(void)
{
    ub_opts_default(&O);
    t_path_entry();
    t_enum_135();
    t_enum_errors();
    t_enum_topo_rsp();
    t_enum_cna();
    t_pdus();
    t_pool();
    t_reserved_codes();
    t_mutate();
    t_e2e();
    return ub_test_finish();
}

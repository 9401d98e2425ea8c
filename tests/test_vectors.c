/* The digest's test vectors (§13), written out as bytes here (not produced by our builder), decoded
 * field by field; then the builder must reproduce the very same bytes from field values. */
#include "ubtest.h"
#include "ubparse/ubparse.h"

#include <stdlib.h>

static ub_view V;
static ub_opts O;

static uint64_t get(const char *abbrev)
{
    uint64_t u = 0xDEADDEADDEADDEADull;
    if (ub_view_get(&V, abbrev, &u) != 0) fprintf(stderr, "  field %s absent\n", abbrev);
    return u;
}
#define F(name, val) CHECK_EQ(get(name), (val))

/* §13.2: CFG 9 compact Write, 64-byte payload, CRC mode — five flits */
static const char *v132 =
    "00 09 00 8b 01 02 03 04 00 00 00 00 03 10 00 01 00 00 10 00"
    "00 00 00 40 01 23 45 00 00 01 02 03 04 05 06 07 08 09 0a 0b"
    "0c 0d 0e 0f 10 11 12 13 14 15 16 17 18 19 1a 1b 1c 1d 1e 1f"
    "20 21 22 23 24 25 26 27 28 29 2a 2b 2c 2d 2e 2f 30 31 32 33"
    "34 35 36 37 38 39 3a 3b 3c 3d 3e 3f 00 00 00 00 18 aa d5 dc";

/* §13.3 (rev. 2 default): configuration-space read, LPH + 44 B + ICRC (little-endian, R-15) */
static const char *v133 =
    "00 06 00 4b"
    "00 01 00 10 80 02 5a 08" "02" "7f ff" "00 00 10 00 02" "10 10 00 07 00 00 00 03" "04 00 00 10"
    "00 00 00 00 00 00 00 04 00 00 00 00 00 00 00 00"
    "ee 64 42 30";

/* §13.5: enumeration topology query request, 2 hops, no ICRC */
static const char *v135 =
    "00 06 00 4b"
    "00 00 00 00 00 00 00 09" "7f ff 00 00" "00 11 02 00" "00 00 05 03" "00 00 01 07"
    "01 00 01 00" "00 06 00 01" "00 00 00 09 00 00 00 00 12 00 00 00 12 34 56 78";

static void test_132(void)
{
    uint8_t b[256];
    size_t n = ub_hex(v132, b, sizeof b);
    CHECK_EQ(n, 100);
    ub_decode(&V, &O, UB_ENTRY_FLIT, b, (uint32_t)n);
    CHECK_EQ(V.nerrs, 0);
    CHECK_EQ(V.kind, UB_KIND_DLLDP);
    F("ub.lph.cfg", 9);
    F("ub.lph.vl", 0);
    F("ub.lph.plength_blocks", 0);
    F("ub.lph.plength_flits", 4); /* 5 flits */
    F("ub.lph.plength_tail", 11); /* last flit holds 12 B */
    F("ub.nth.scna", 0x0102);
    F("ub.nth.dcna", 0x0304);
    F("ub.nth.nlp", 0);
    F("ub.btah.taopcode", 0x03);
    F("ub.btah.ee_bits", 1);
    F("ub.btah.ini_tassn", 1);
    F("ub.maetah.address", 0x0000100000000040ull);
    F("ub.maetah.tokenid", 0x12345);
    F("ub.maetah.length", 0);
    F("ub.bcrc.crc30", 0x18aad5dc);
    F("ub.bcrc.computed", 0x18aad5dc);
    F("ub.bcrc.status", UB_CK_GOOD);
    CHECK_EQ(V.pkt_len, 88);
    int p = ub_view_find(&V, UB_H_PAYLOAD, 0);
    CHECK(p >= 0);
    if (p >= 0) {
        CHECK_EQ(V.layer[p].len, 64);
        CHECK_EQ(V.layer[p].data[63], 0x3f);
    }
    CHECK_EQ(V.tah_fmt, UB_TAH_COMPACT);
    char sum[256];
    ub_summary(&V, sum, sizeof sum);
    CHECK(strstr(sum, "Write req TASSN 1") != NULL);

    /* R-03 alternative (bytes only): BCRC 06 2a b5 77 */
    uint8_t alt[100];
    memcpy(alt, b, 100);
    alt[96] = 0x06; alt[97] = 0x2a; alt[98] = 0xb5; alt[99] = 0x77;
    ub_opts o1 = O;
    o1.bcrc_variant = 1;
    ub_decode(&V, &o1, UB_ENTRY_FLIT, alt, 100);
    F("ub.bcrc.status", UB_CK_GOOD);
    ub_decode(&V, &O, UB_ENTRY_FLIT, alt, 100); /* default variant rejects it */
    F("ub.bcrc.status", UB_CK_BAD);
    char names[128];
    ub_error_names(&V, names, sizeof names);
    CHECK_STR(names, "bcrc_bad");

    /* the builder reproduces the vector from field values */
    const char *spec = "flit\nlph vl=0\nnth16 scna=0x0102 dcna=0x0304\n"
                       "btah_c taopcode=Write ee_bits=1 ini_tassn=1\n"
                       "maetah_c address=0x0000100000000040 tokenid=0x12345 length=0\npayload inc=64\n";
    uint8_t out[256];
    char err[128];
    ub_entry e;
    long bn = ub_build_text(spec, &O, out, sizeof out, &e, err, sizeof err);
    CHECK_EQ(bn, 100);
    CHECK(bn == 100 && memcmp(out, b, 100) == 0);
    CHECK_EQ(e, UB_ENTRY_FLIT);
}

static void test_133(void)
{
    uint8_t b[128];
    size_t n = ub_hex(v133, b, sizeof b);
    CHECK_EQ(n, 52);
    ub_decode(&V, &O, UB_ENTRY_PKT, b, (uint32_t)n);
    CHECK_EQ(V.nerrs, 0);
    F("ub.lph.cfg", 6);
    F("ub.nth.scna", 1);
    F("ub.nth.dcna", 0x10);
    F("ub.nth.cci", 0x8002);
    F("ub.cci.mode", 4); /* FECN */
    F("ub.cci.fecn", 2); /* markable, no congestion */
    F("ub.nth.lbf", 0x5a);
    F("ub.nth.mgmt", 1);
    F("ub.nth.nlp", 0);
    F("ub.ctph.tpopcode", 0);
    F("ub.ctph.nlp", 2);
    F("ub.upih.upi", 0x7fff);
    F("ub.eidh.seid", 1);
    F("ub.eidh.deid", 2);
    F("ub.btah.taopcode", 0x10);
    F("ub.btah.ee_bits", 1);
    F("ub.btah.ini_tassn", 7);
    F("ub.btah.ini_rc_id", 3);
    F("ub.mgmtetah.code", 2);
    F("ub.mgmtetah.sub_code", 0);
    F("ub.mgmtetah.rsp", 0);
    F("ub.mgmtetah.pdu_length", 16);
    F("ub.cfgmsg.entity_idx", 0);
    F("ub.cfgmsg.request_address", 4);
    F("ub.icrc.computed", 0x304264ee);
    F("ub.icrc.status", UB_CK_GOOD);
    F("ub.icrc.byte_order", 1); /* R-15 default: little-endian */
    CHECK_EQ(V.tah_fmt, UB_TAH_FULL);
    /* big-endian ICRC is recognised too (R-15 alternative) */
    uint8_t be[52];
    memcpy(be, b, 52);
    be[48] = 0x30; be[49] = 0x42; be[50] = 0x64; be[51] = 0xee;
    ub_decode(&V, &O, UB_ENTRY_PKT, be, 52);
    F("ub.icrc.status", UB_CK_GOOD);
    F("ub.icrc.byte_order", 2);
    /* a masked field (LBF) may change without breaking the ICRC; an unmasked one may not */
    be[10] ^= 0xff;
    ub_decode(&V, &O, UB_ENTRY_PKT, be, 52);
    F("ub.icrc.status", UB_CK_GOOD);
    be[20] ^= 0x01;
    ub_decode(&V, &O, UB_ENTRY_PKT, be, 52);
    F("ub.icrc.status", UB_CK_BAD);

    const char *spec = "pkt\nlph\nnth16 scna=1 dcna=0x10 cci=0x8002 lbf=0x5a mgmt=1\nctph\nupih16 upi=0x7fff\n"
                       "eidh40 seid=1 deid=2\nbtah taopcode=Management ee_bits=1 ini_tassn=7 ini_rc_id=3\n"
                       "mgmtetah code=2 sub_code=0\nmg_cfg_req entity_idx=0 request_address=4\n";
    uint8_t out[128];
    char err[128];
    long bn = ub_build_text(spec, &O, out, sizeof out, NULL, err, sizeof err);
    if (bn < 0) fprintf(stderr, "build: %s\n", err);
    CHECK_EQ(bn, 52);
    CHECK(bn == 52 && memcmp(out, b, 52) == 0);
}

static void test_135(void)
{
    uint8_t b[128];
    size_t n = ub_hex(v135, b, sizeof b);
    CHECK_EQ(n, 52);
    ub_decode(&V, &O, UB_ENTRY_PKT, b, (uint32_t)n);
    CHECK_EQ(V.nerrs, 0);
    F("ub.nth.nlp", 1);
    F("ub.nth.mgmt", 1);
    F("ub.upih.upi", 0x7fff);
    F("ub.scanhdr.r", 1);
    F("ub.scanhdr.type", 1);
    F("ub.scanhdr.hops", 2);
    F("ub.scanhdr.step", 0);
    F("ub.scan.version", 1);
    F("ub.scan.cmd", 0);
    F("ub.scan.opcode", 1);
    F("ub.scan.slice_id", 0);
    F("ub.scan.msgq_id", 0);
    F("ub.scan.length", 6);
    F("ub.scan.msn", 1);
    F("ub.scan.guid_vendor_id", 0x1234);
    F("ub.scan.guid_device_id", 0x5678);
    F("ub.scan.guid_version", 1);
    F("ub.scan.guid_type", 2);
    CHECK(ub_view_find(&V, UB_H_ICRC, 0) < 0); /* HiSilicon sends enumeration without ICRC */
}

int main(void)
{
    ub_opts_default(&O);
    test_132();
    test_133();
    test_135();
    return ub_test_finish();
}

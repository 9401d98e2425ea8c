/* The ns-3-UB profile (-o profile=ns3ub, docs/interop.md): the profile table itself, every hex vector
 * of ../shared/interop/ns3-ub/ns3-ub.md §2.5 read through the profile tables, whole packets built from
 * the documented header prefixes, and the shared simulator traces (skipped with a message when the
 * folder is absent): decoded values, no decode error, the audit's findings, the dialect detector. */
#include "internal.h"
#include "rules.h"
#include "ubtest.h"
#include "ubparse/capfile.h"
#include "ubparse/state.h"

#include <stdlib.h>
#include <sys/stat.h>

static ub_view V;
static ub_opts NS3, SPEC;

/* ---------------------------------------------------------------- helpers */
static const ub_hdr *table(const char *key)
{
    for (unsigned id = 1; id < UB_H__COUNT; id++)
        if (ub_hdr_get(id) && strcmp(ub_hdr_get(id)->key, key) == 0) return ub_hdr_get(id);
    for (unsigned n = 1; n <= ub_hdr_variant_count(); n++)
        if (strcmp(ub_hdr_variant(n)->key, key) == 0) return ub_hdr_variant(n);
    return NULL;
}

/* field `name` (short) of table `key` over the bytes of hex text */
static uint64_t fld(const char *key, const char *hex, const char *name)
{
    static uint8_t b[64];
    const ub_hdr *h = table(key);
    if (!h) return ~0ull;
    ub_layer l;
    memset(&l, 0, sizeof l);
    l.hdr = h;
    l.data = b;
    l.len = (uint32_t)ub_hex(hex, b, sizeof b);
    int i = ub_field_index(h, name);
    ub_val v;
    if (i < 0 || ub_field_value(&l, &h->fields[i], &v) != 0) return ~0ull;
    return v.u;
}

static uint64_t get(const char *abbrev)
{
    uint64_t u = ~0ull;
    return ub_view_get(&V, abbrev, &u) == 0 ? u : ~0ull;
}

static int worst(void) { return ub_view_worst(&V); }

static const ub_layer *layer(unsigned id)
{
    int i = ub_view_find(&V, id, 0);
    return i < 0 ? NULL : &V.layer[i];
}

/* ---------------------------------------------------------------- the profile table */
static void t_table(void)
{
    const ub_profile *p = &ub_profiles[UB_PROFILE_NS3UB];
    uint32_t sw = 0;
    bool used[UB_V__COUNT] = { false };
    for (unsigned i = 0; i < p->ndevs; i++) {
        sw |= p->devs[i].sw;
        for (unsigned k = 0; k < 3 && p->devs[i].vidx[k]; k++) used[p->devs[i].vidx[k]] = true;
        CHECK(p->devs[i].d.id && p->devs[i].d.handling && p->devs[i].d.dialect && p->devs[i].d.spec);
    }
    CHECK_EQ(sw, p->sw); /* every switch belongs to a documented deviation and back */
    for (unsigned id = 1; id < UB_H__COUNT; id++) {
        const ub_hdr *v = p->tables[id];
        if (!v) continue;
        const ub_hdr *b = ub_hdr_get(id);
        CHECK(used[v->vidx]);
        CHECK_EQ(v->id, id); /* same id, same rows, same order: decoders read rows by index */
        CHECK_EQ(v->nfields, b->nfields);
        CHECK_EQ(v->len, b->len);
        CHECK_STR(v->abbrev, b->abbrev);
        for (unsigned k = 0; k < v->nfields && k < b->nfields; k++) CHECK_STR(v->fields[k].abbrev, b->fields[k].abbrev);
        CHECK(ub_hdr_variant(v->vidx) == v);
    }
    for (unsigned n = 1; n < UB_V__COUNT; n++) CHECK(used[n] || n == UB_V_SUE_RH_LE); /* a switch, not a profile */
    CHECK_EQ(ub_profile_find("ns3ub"), UB_PROFILE_NS3UB);
    CHECK_EQ(ub_profile_find("spec"), UB_PROFILE_SPEC);
    CHECK_EQ(ub_profile_find("ns4"), -1);
    unsigned nd = 0;
    CHECK(ub_profile_describe(UB_PROFILE_NS3UB, &nd) != NULL);
    CHECK_EQ(nd, p->ndevs);
    CHECK_STR(ub_profile_deviation(UB_PROFILE_NS3UB, 0)->id, "D1");
    CHECK(ub_profile_deviation(UB_PROFILE_NS3UB, nd) == NULL);
}

/* ---------------------------------------------------------------- ns3-ub.md §2.5 vectors */
static void t_vectors(void)
{
    /* LPH crd=1 ack=0 crdvl=5 vl=10 lb=1 rp=0 cfg=3: RT = [path 0][LB 1] = 01 per-packet, all paths (D1) */
    CHECK_EQ(fld("lph_ns3", "95438000", "crd"), 1);
    CHECK_EQ(fld("lph_ns3", "95438000", "ack"), 0);
    CHECK_EQ(fld("lph_ns3", "95438000", "crd_vl"), 5);
    CHECK_EQ(fld("lph_ns3", "95438000", "vl"), 10);
    CHECK_EQ(fld("lph_ns3", "95438000", "cfg"), 3);
    CHECK_EQ(fld("lph_ns3", "95438000", "rt"), 1);
    CHECK_EQ(fld("lph", "95438000", "rt"), 2); /* the spec reading of the same bits */
    /* LPH vl=1 crdvl=1 lb=0 rp=1 cfg=9: RT 10 per-flow, shortest */
    CHECK_EQ(fld("lph_ns3", "04294000", "vl"), 1);
    CHECK_EQ(fld("lph_ns3", "04294000", "crd_vl"), 1);
    CHECK_EQ(fld("lph_ns3", "04294000", "cfg"), 9);
    CHECK_EQ(fld("lph_ns3", "04294000", "rt"), 2);
    /* Crd_Ack VLi = i+1, sd=1 t=1 ack=0x1234 (D3: VL0 first) */
    const char *crd = "06002481 12340420 c41461c8 24a2cc34 e3d00000 00000000 00000000 00000000 00000000 00000000";
    char nm[32];
    for (unsigned v = 0; v < 16; v++) {
        snprintf(nm, sizeof nm, "crd_num_vl%u", v);
        CHECK_EQ(fld("dllcb_crd_ack_ns3", crd, nm), v + 1);
    }
    CHECK_EQ(fld("dllcb_crd_ack_ns3", crd, "ack_num"), 0x1234);
    CHECK_EQ(fld("dllcb_crd_ack_ns3", crd, "sd"), 1);
    CHECK_EQ(fld("dllcb_crd_ack_ns3", crd, "t"), 1);
    CHECK_EQ(fld("dllcb_crd_ack", crd, "crd_num_vl15"), 1); /* the spec order puts it at VL15 */
    const char *crd0 = "06002400 0000fc00 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000";
    CHECK_EQ(fld("dllcb_crd_ack_ns3", crd0, "crd_num_vl0"), 63);
    CHECK_EQ(fld("dllcb_crd_ack_ns3", crd0, "crd_num_vl1"), 0);
    CHECK_EQ(fld("dllcb_crd_ack_ns3", crd0, "sd"), 0);
    CHECK_EQ(fld("dllcb_crd_ack_ns3", crd0, "t"), 0);
    /* IP-based NTH: the CCI matches the spec (no profile table) */
    CHECK_EQ(fld("cci_caqm", "16ab", "loc"), 1);
    CHECK_EQ(fld("cci_caqm", "16ab", "enable"), 1);
    CHECK_EQ(fld("cci_caqm", "16ab", "c"), 1);
    CHECK_EQ(fld("cci_caqm", "16ab", "i"), 0);
    CHECK_EQ(fld("cci_caqm", "16ab", "hint"), 0xab);
    CHECK_EQ(fld("cci_fecn", "9003", "mode"), 4);
    CHECK_EQ(fld("cci_fecn", "9003", "loc"), 1);
    CHECK_EQ(fld("cci_fecn", "9003", "fecn"), 3);
    CHECK_EQ(fld("cci_fecn_rtt", "4ffd", "mode"), 2);
    CHECK_EQ(fld("cci_fecn_rtt", "4ffd", "timestamp"), 0x3ff);
    CHECK_EQ(fld("cci_fecn_rtt", "4ffd", "fecn"), 1);
    CHECK_EQ(fld("nthip", "16ab00000000", "npi_id"), 0);
    /* CNA16 s=1234 d=5678 lb=9a sl=c nlp=5: little-endian addresses (D6) */
    CHECK_EQ(fld("nth16_ns3", "34127856 01009ac5", "scna"), 0x1234);
    CHECK_EQ(fld("nth16_ns3", "34127856 01009ac5", "dcna"), 0x5678);
    CHECK_EQ(fld("nth16_ns3", "34127856 01009ac5", "cci"), 0x0001);
    CHECK_EQ(fld("nth16_ns3", "34127856 01009ac5", "lbf"), 0x9a);
    CHECK_EQ(fld("nth16_ns3", "34127856 01009ac5", "sl"), 0xc);
    CHECK_EQ(fld("nth16_ns3", "34127856 01009ac5", "nlp"), 5);
    CHECK_EQ(fld("nth16", "34127856 01009ac5", "scna"), 0x3412);
    CHECK_EQ(fld("nth16_ns3", "10002000 00800000", "scna"), 0x0010);
    CHECK_EQ(fld("nth16_ns3", "10002000 00800000", "dcna"), 0x0020);
    CHECK_EQ(fld("nth16_ns3", "10002000 00800000", "cci"), 0x8000); /* mode 4 survives, FECN lost on the wire */
    /* CNA24: addresses big-endian, CCI little-endian (D7) */
    CHECK_EQ(fld("nth24_ns3", "123456ab cdef0100 9ac2", "scna"), 0x123456);
    CHECK_EQ(fld("nth24_ns3", "123456ab cdef0100 9ac2", "dcna"), 0xabcdef);
    CHECK_EQ(fld("nth24_ns3", "123456ab cdef0100 9ac2", "cci"), 0x0001);
    CHECK_EQ(fld("nth24_ns3", "123456ab cdef0100 9ac2", "lbf"), 0x9a);
    CHECK_EQ(fld("nth24_ns3", "123456ab cdef0100 9ac2", "sl"), 0xc);
    CHECK_EQ(fld("nth24_ns3", "123456ab cdef0100 9ac2", "nlp"), 2);
    /* RTPH: as the spec (figure 6-8) */
    const char *rt = "81001122 33445566 c0778899 a2aabbcc";
    CHECK_EQ(fld("rtph_ns3", rt, "last"), 1);
    CHECK_EQ(fld("rtph_ns3", rt, "tpopcode"), 1);
    CHECK_EQ(fld("rtph_ns3", rt, "srctpn"), 0x112233);
    CHECK_EQ(fld("rtph_ns3", rt, "dsttpn"), 0x445566);
    CHECK_EQ(fld("rtph_ns3", rt, "a"), 1);
    CHECK_EQ(fld("rtph_ns3", rt, "f"), 1);
    CHECK_EQ(fld("rtph_ns3", rt, "psn"), 0x778899);
    CHECK_EQ(fld("rtph_ns3", rt, "rspst"), 5);
    CHECK_EQ(fld("rtph_ns3", rt, "rspinfo"), 2);
    CHECK_EQ(fld("rtph_ns3", rt, "tpmsn"), 0xaabbcc);
    /* CAQM CETPH ack=01020304 loc=1 i=1 c=55 hint=a1b2 (D9) */
    CHECK_EQ(fld("cetph_caqm_ns3", "01020304 a1b255c0", "ack_seq"), 0x01020304);
    CHECK_EQ(fld("cetph_caqm_ns3", "01020304 a1b255c0", "hint"), 0xa1b2);
    CHECK_EQ(fld("cetph_caqm_ns3", "01020304 a1b255c0", "c"), 0x55);
    CHECK_EQ(fld("cetph_caqm_ns3", "01020304 a1b255c0", "i"), 1);
    CHECK_EQ(fld("cetph_caqm_ns3", "01020304 a1b255c0", "loc"), 1);
    CHECK_EQ(fld("cetph_caqm_ns3", "00001000 10000080", "hint"), 0x1000); /* captured TPACK-CC */
    CHECK_EQ(fld("cetph_caqm_ns3", "00001000 10000080", "i"), 1);
    CHECK_EQ(fld("cetph_caqm_ns3", "00001000 10000080", "c"), 0);
    CHECK_EQ(fld("cetph_cnp", "e0000000 00000000 00000000 00000000", "ecn"), 3);
    CHECK_EQ(fld("cetph_cnp", "e0000000 00000000 00000000 00000000", "loc"), 1);
    CHECK_EQ(fld("saetph", "000a0b0c 01020000 00000080", "maxrcvpsn"), 0x0a0b0c);
    CHECK_EQ(fld("saetph", "000a0b0c 01020000 00000080", "bitmapsize"), 0);
    /* BTAH op=3 tassn=beef odr=2 mt_en=1 E=1 rct=2 rcid=abcde: as the spec */
    const char *bt = "0300beef 286abcde";
    CHECK_EQ(fld("btah_ns3", bt, "taopcode"), 3);
    CHECK_EQ(fld("btah_ns3", bt, "ini_tassn"), 0xbeef);
    CHECK_EQ(fld("btah_ns3", bt, "odr"), 2);
    CHECK_EQ(fld("btah_ns3", bt, "mt_en"), 1);
    CHECK_EQ(fld("btah_ns3", bt, "e_bit"), 1);
    CHECK_EQ(fld("btah_ns3", bt, "ini_rc_type"), 2);
    CHECK_EQ(fld("btah_ns3", bt, "ini_rc_id"), 0xabcde);
    /* ATAH op=11 sv=1 poison=1 tassn=beef st=5 info=1f rct=2 rcid=abcde -> 12-bit ID 0xcde (D11) */
    const char *at = "110cbeef bf002cde";
    CHECK_EQ(fld("atah_ns3", at, "taopcode"), 0x11);
    CHECK_EQ(fld("atah_ns3", at, "sv"), 1);
    CHECK_EQ(fld("atah_ns3", at, "poison"), 1);
    CHECK_EQ(fld("atah_ns3", at, "ini_tassn"), 0xbeef);
    CHECK_EQ(fld("atah_ns3", at, "rspst"), 5);
    CHECK_EQ(fld("atah_ns3", at, "rspinfo"), 0x1f);
    CHECK_EQ(fld("atah_ns3", at, "ini_rc_type"), 2);
    CHECK_EQ(fld("atah_ns3", at, "ini_rc_id"), 0xcde);
    CHECK_EQ(fld("atah", at, "ini_rc_id"), 0x02cde);
    CHECK_EQ(fld("btah_c_ns3", "06001234", "taopcode"), 6);
    CHECK_EQ(fld("btah_c_ns3", "06001234", "ini_tassn"), 0x1234);
    CHECK_EQ(fld("atah_c", "12041234", "taopcode"), 0x12);
    CHECK_EQ(fld("atah_c", "12041234", "poison"), 1);
    CHECK_EQ(fld("atah_c", "12041234", "ini_tassn"), 0x1234);
    CHECK_EQ(fld("maetah", "01234567 89abcdef 0fedcb00 00010000", "address"), 0x0123456789abcdefull);
    CHECK_EQ(fld("maetah", "01234567 89abcdef 0fedcb00 00010000", "tokenid"), 0xfedcb);
    CHECK_EQ(fld("maetah", "01234567 89abcdef 0fedcb00 00010000", "length"), 65536);
    /* cMAETAH va=0123456789abcdc0 tok=fedcb so=1 len=3: VA << 6 (D18) */
    const char *cm = "48d159e2 6af3700b 0fedcb00";
    CHECK_EQ(fld("maetah_c_ns3", cm, "address"), 0x0123456789abcdc0ull);
    CHECK_EQ(fld("maetah_c_ns3", cm, "so"), 1);
    CHECK_EQ(fld("maetah_c_ns3", cm, "length"), 3);
    CHECK_EQ(fld("maetah_c_ns3", cm, "tokenid"), 0xfedcb);
}

/* ---------------------------------------------------------------- whole packets (§2.5 prefixes) */
static void decode(const ub_opts *o, const char *hex, uint32_t wire)
{
    static uint8_t b[2048];
    size_t n = ub_hex(hex, b, sizeof b);
    ub_decode_wire(&V, o, UB_ENTRY_PKT, b, (uint32_t)n, wire ? wire : (uint32_t)n);
}

static void t_packets(void)
{
    /* URMA write data, ns3ub-urma-write-read-cbfc.pcap #1: 78 B of headers of a 4174-byte packet */
    const char *w = "1ce34000 000000000000 4500104400000000401100000a0000000a000100 0000000010300000 "
                    "01000000000000008000000000000000 0300000000100000 00000000000000000000000000001000";
    decode(&NS3, w, 4174);
    CHECK_EQ(V.nerrs, 0);
    CHECK_EQ(V.kind, UB_KIND_DLLDP);
    CHECK_EQ(V.claim, UB_CLAIM_PROFILE);
    CHECK_EQ(get("ub.lph.cfg"), 3);
    CHECK_EQ(get("ub.lph.vl"), 7);
    CHECK_EQ(get("ub.lph.rt"), 2); /* per-flow, shortest paths: the usual ns-3 URMA setting */
    CHECK_EQ(get("ub.nth.npi_id"), 0);
    CHECK_EQ(get("ub.udp.dstport"), 0);
    CHECK_EQ(get("ub.rtph.tpopcode"), 1);
    CHECK_EQ(get("ub.rtph.psn"), 0);
    CHECK_EQ(get("ub.rtph.a"), 1);
    CHECK_EQ(get("ub.btah.taopcode"), 3);
    CHECK_EQ(get("ub.btah.ini_rc_type"), 1);
    CHECK_EQ(get("ub.maetah.length"), 4096);
    const ub_layer *pl = layer(UB_H_PAYLOAD);
    CHECK(pl && pl->wlen == 4096 && pl->len == 0 && (pl->flags & UB_LF_TRUNC));
    /* the same packet without the profile: the spec finds fault with it */
    decode(&SPEC, w, 4174);
    CHECK(V.nerrs > 0);
    CHECK_EQ(V.claim, UB_CLAIM_NONE); /* UDP port 0, and the heuristic needs the UB checksum/length rules */
    CHECK(layer(UB_H_RTPH) == NULL);

    /* TPACK + ATAH, same file #12 (D13) */
    decode(&NS3, "40e34000 000000000000 4500003400000000401100000a0000000a000100 0000000000200000 "
                 "82000000000000008000000000000000 1100000000000000", 0);
    CHECK_EQ(V.nerrs, 0);
    CHECK_EQ(get("ub.lph.ack"), 1);
    CHECK_EQ(get("ub.rtph.tpopcode"), 2);
    CHECK_EQ(get("ub.rtph.last"), 1);
    CHECK_EQ(get("ub.atah.taopcode"), 0x11);
    /* Crd_Ack (CBFC, VL7 credit=32), #375 (D3, D21: no BCRC) */
    decode(&NS3, "06002481 00000000 00000020 00000000 00000000 00000000 00000000 00000000 00000000 00000000", 0);
    CHECK_EQ(V.nerrs, 0);
    CHECK_EQ(V.kind, UB_KIND_DLLCB);
    CHECK_EQ(get("ub.crd_ack.crd_num_vl7"), 32);
    CHECK_EQ(get("ub.crd_ack.crd_num_vl8"), 0);
    CHECK(layer(UB_H_BCRC) == NULL);
    /* CFG 9 store, ns3ub-ldst-cfg9.pcap #1 (LE CNAs, cBTAH, cMAETAH 512 B), 540 bytes on the wire */
    decode(&NS3, "1ce9c000 0000100000000170 03000000 000000000000000300000000", 540);
    CHECK_EQ(V.nerrs, 0);
    CHECK_EQ(get("ub.lph.rt"), 3); /* RT 11: per-packet, shortest (packet spray) */
    CHECK_EQ(get("ub.nth.scna"), 0x0000);
    CHECK_EQ(get("ub.nth.dcna"), 0x0010);
    CHECK_EQ(get("ub.nth.lbf"), 1);
    CHECK_EQ(get("ub.nth.sl"), 7);
    CHECK_EQ(get("ub.btah.taopcode"), 3);
    CHECK_EQ(get("ub.maetah.length"), 3);
    CHECK(layer(UB_H_CCI_CAQM) == NULL); /* the CNA16 CCI is garbage (D6): no sub-tree */
    /* CFG 9 load request with 64 B of payload (D17) */
    decode(&NS3, "1ce9c000 0000100000000570 06000002 000000000000000300000000", 92);
    CHECK_EQ(V.nerrs, 0);
    CHECK_EQ(get("ub.btah.taopcode"), 6);
    CHECK(layer(UB_H_PAYLOAD) && layer(UB_H_PAYLOAD)->wlen == 64);
    /* CFG 9 load response #27 */
    decode(&NS3, "5ce9c000 1000000000000570 12000002", 528);
    CHECK_EQ(V.nerrs, 0);
    CHECK_EQ(get("ub.nth.scna"), 0x0010);
    CHECK_EQ(get("ub.nth.lbf"), 5);
    CHECK_EQ(get("ub.atah.taopcode"), 0x12);
    CHECK_EQ(get("ub.atah.ini_tassn"), 2);
    CHECK(layer(UB_H_PAYLOAD) && layer(UB_H_PAYLOAD)->wlen == 512);
    /* TPACK-CC, ns3ub-caqm-tpack-cc.pcap #18: CAQM CETPH byte-reversed (D9), then an ATAH */
    decode(&NS3, "dce34000 018000000000 4500003c00000000401100000a0001000a000000 0000000000280000 "
                 "03000000000000008000000000000000 0000100010000080 1100000000000000", 0);
    CHECK_EQ(V.nerrs, 0);
    CHECK_EQ(get("ub.rtph.tpopcode"), 3);
    CHECK_EQ(get("ub.cetph.ack_seq"), 4096);
    CHECK_EQ(get("ub.cetph.hint"), 0x1000);
    CHECK_EQ(get("ub.cetph.i"), 1);
    CHECK_EQ(get("ub.cetph.c"), 0);
    CHECK_EQ(get("ub.cci.i"), 1); /* IP-NTH CCI 0x0180: CAQM I = 1, Hint 0x80 */
    CHECK_EQ(get("ub.cci.hint"), 0x80);
    /* TPSACK (PSN 0 and 2 received, 1 missing) + ATAH */
    decode(&NS3, "40e34000 000000000000 4500004000000000401100000a0001000a000000 00000000002c0000 "
                 "85000000000000008000000000000000 00000002 0500000000000000 1100000000000000", 0);
    CHECK_EQ(V.nerrs, 0);
    CHECK_EQ(get("ub.rtph.tpopcode"), 5);
    CHECK_EQ(get("ub.saetph.maxrcvpsn"), 2);
    CHECK_EQ(get("ub.atah.taopcode"), 0x11);
    /* CNP with ECN 01 (DCQCN) */
    decode(&NS3, "40e34000 000000000000 4500003c00000000401100000a0001000a000000 0000000000280000 "
                 "88000000000000000000000000000000 40000000000000000000000000000000", 0);
    CHECK_EQ(V.nerrs, 0);
    CHECK_EQ(get("ub.rtph.tpopcode"), 8);
    CHECK_EQ(get("ub.cetph.ecn"), 1);
    /* FECN-marked data: IP-NTH 80 01 = mode 100, FECN 01 */
    decode(&NS3, "1ce34000 800100000000 4500104400000000401100000a0000000a000100 0000000010300000 "
                 "01000000000000008000000500000000 0300000000100000 00000000000000000000000000001000", 4174);
    CHECK_EQ(V.nerrs, 0);
    CHECK_EQ(get("ub.cci.mode"), 4);
    CHECK_EQ(get("ub.cci.fecn"), 1);
    /* NAK as ns-3 writes it: TPOpcode 4 (D14) */
    decode(&NS3, "40e34000 000000000000 4500003400000000401100000a0001000a000000 0000000000200000 "
                 "84000000000000008000000300000000 1100000000000000", 0);
    CHECK_EQ(V.nerrs, 0);
    CHECK_EQ(get("ub.rtph.tpopcode"), 4);
    decode(&SPEC, "40e34000 000000000000 4500003400000000401100000a0001000a000000 0000000000200000 "
                  "84000000000000008000000300000000 1100000000000000", 0);
    CHECK(V.nerrs > 0);
    /* TAACK as TP data: BTAH 0x11 + MAETAH + 1 dummy byte (D12), no padding (PAD) */
    decode(&NS3, "9ce34000 000000000000 4500004500000000401100000a0001000a000000 0000000000310000 "
                 "81000000000000008000000000000000 1100000000100000 00000000000000000000000000000001 00", 0);
    CHECK_EQ(V.nerrs, 0);
    CHECK_EQ(get("ub.btah.taopcode"), 0x11);
    CHECK_EQ(get("ub.maetah.length"), 1);
    CHECK(layer(UB_H_ATAH) == NULL);
}

/* ---------------------------------------------------------------- the shared traces */
typedef struct trace_stats {
    unsigned recs, errs, warns, ub;
    unsigned op[256];  /* RTPH TPOpcode */
    unsigned ta[256];  /* TAOpcode of BTAH (responses included) / ATAH */
    unsigned crd;
    unsigned finding[UB_R__COUNT][3];
    ub_sniff spec_sniff;
} trace_stats;

static void on_finding(void *ctx, const ub_finding *f)
{
    trace_stats *t = ctx;
    if (f->rule < UB_R__COUNT && f->severity < 3) t->finding[f->rule][f->severity]++;
}

static bool read_trace(const char *dir, const char *name, trace_stats *t, void (*check)(unsigned frame))
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    char err[256];
    ub_capfile *c = ub_cap_open(path, err, sizeof err);
    if (!c) {
        fprintf(stderr, "%s: %s\n", path, err);
        CHECK(c != NULL);
        return false;
    }
    memset(t, 0, sizeof *t);
    ub_state_cfg sc;
    ub_state_cfg_default(&sc);
    ub_state *st = ub_state_new(&sc, on_finding, t);
    static ub_view spec_view;
    ub_rec r;
    while (ub_cap_next(c, &r) == 1) {
        t->recs++;
        ub_entry e = ub_entry_for_linktype(&NS3, r.linktype);
        ub_decode_wire(&spec_view, &SPEC, e, r.data, r.caplen, r.origlen);
        ub_sniff_view(&t->spec_sniff, &spec_view);
        ub_decode_wire(&V, &NS3, e, r.data, r.caplen, r.origlen);
        if (ub_view_ub(&V)) t->ub++;
        int w = worst();
        if (w >= UB_SEV_ERROR) t->errs++;
        else if (w == UB_SEV_WARN) t->warns++;
        if (w >= UB_SEV_WARN) fprintf(stderr, "%s frame %llu: decode error\n", name, (unsigned long long)r.frame);
        uint64_t op = get("ub.rtph.tpopcode"), ta = get("ub.btah.taopcode");
        if (op < 256) t->op[op]++;
        if (ta == ~0ull) ta = get("ub.atah.taopcode");
        if (ta < 256 && !(op >= 2 && op < 256)) t->ta[ta]++;
        if (layer(UB_H_DLLCB_CRD_ACK)) t->crd++;
        if (check) check((unsigned)r.frame);
        ub_pktinfo pi = { r.frame, r.ts_ns, r.ifindex, r.dir };
        ub_state_packet(st, &V, &pi);
    }
    ub_state_finish(st);
    ub_state_free(st);
    ub_cap_close(c);
    return true;
}

static unsigned nfind(const trace_stats *t, unsigned sev)
{
    unsigned n = 0;
    for (unsigned r = 0; r < UB_R__COUNT; r++) n += t->finding[r][sev];
    return n;
}

static void urma_check(unsigned frame)
{
    if (frame == 1) {
        CHECK_EQ(get("ub.rtph.psn"), 0);
        CHECK_EQ(get("ub.btah.ini_tassn"), 0);
        CHECK_EQ(get("ub.maetah.length"), 4096);
    } else if (frame == 12) {
        CHECK_EQ(get("ub.rtph.tpopcode"), 2);
        CHECK_EQ(get("ub.atah.taopcode"), 0x11);
    } else if (frame == 375) {
        CHECK_EQ(get("ub.crd_ack.crd_num_vl7"), 32);
        CHECK_EQ(get("ub.crd_ack.t"), 1);
        CHECK_EQ(get("ub.crd_ack.sd"), 1);
    }
}

static void ldst_check(unsigned frame)
{
    if (frame == 1) {
        CHECK_EQ(get("ub.nth.dcna"), 0x0010);
        CHECK_EQ(get("ub.nth.lbf"), 1);
        CHECK_EQ(get("ub.btah.taopcode"), 3);
    } else if (frame == 27) {
        CHECK_EQ(get("ub.nth.scna"), 0x0010);
        CHECK_EQ(get("ub.atah.taopcode"), 0x12);
        CHECK_EQ(get("ub.atah.ini_tassn"), 2);
        CHECK(layer(UB_H_PAYLOAD) && layer(UB_H_PAYLOAD)->wlen == 512);
    }
}

static void caqm_check(unsigned frame)
{
    if (frame == 18) {
        CHECK_EQ(get("ub.rtph.tpopcode"), 3);
        CHECK_EQ(get("ub.cetph.ack_seq"), 4096);
        CHECK_EQ(get("ub.cetph.hint"), 0x1000);
        CHECK_EQ(get("ub.cetph.i"), 1);
    }
}

static void t_shared(void)
{
    const char *src = getenv("UB_SOURCE_DIR") ? getenv("UB_SOURCE_DIR") : UB_SOURCE_DIR;
    char dir[1024];
    snprintf(dir, sizeof dir, "%s/../shared/interop/ns3-ub", src);
    struct stat sb;
    if (stat(dir, &sb) != 0) {
        printf("SKIP: %s absent: the shared ns-3-UB traces are not checked\n", dir);
        return;
    }
    trace_stats t;
    char msg[512];
    if (read_trace(dir, "ns3ub-urma-write-read-cbfc.pcap", &t, urma_check)) {
        CHECK_EQ(t.recs, 888);
        CHECK_EQ(t.ub, 888);
        CHECK_EQ(t.errs + t.warns, 0);
        CHECK_EQ(t.crd, 8);
        CHECK_EQ(t.op[1] + t.op[2], 880);
        CHECK(t.op[1] > 0 && t.op[2] > 0);
        CHECK(t.ta[0x03] > 0 && t.ta[0x06] > 0 && t.ta[0x11] > 0 && t.ta[0x12] > 0); /* write, read, TAACK, read response */
        CHECK_EQ(nfind(&t, UB_SEV_ERROR), 0);
        CHECK_EQ(nfind(&t, UB_SEV_WARN), 0);
        CHECK_EQ(t.finding[UB_R_DL_CREDIT_RETURN][UB_SEV_NOTE], 8); /* CBFC: 8 credit returns on VL7 */
        CHECK_EQ(ub_sniff_verdict(&t.spec_sniff, msg, sizeof msg), UB_PROFILE_NS3UB);
        CHECK(strstr(msg, "-o profile=ns3ub") != NULL);
    }
    if (read_trace(dir, "ns3ub-ldst-cfg9.pcap", &t, ldst_check)) {
        CHECK_EQ(t.recs, 48);
        CHECK_EQ(t.errs + t.warns, 0);
        CHECK(t.ta[0x03] && t.ta[0x06] && t.ta[0x11] && t.ta[0x12]);
        /* the simulated behaviour the spec forbids: one TASSN over two packets, each acknowledged (TA-07) */
        CHECK_EQ(t.finding[UB_R_TA_SLICING][UB_SEV_ERROR], 2);
        CHECK_EQ(t.finding[UB_R_TA_DUP_RESPONSE][UB_SEV_ERROR], 2);
        CHECK_EQ(nfind(&t, UB_SEV_ERROR), 4);
        CHECK_EQ(nfind(&t, UB_SEV_WARN), 0);
        CHECK_EQ(ub_sniff_verdict(&t.spec_sniff, msg, sizeof msg), UB_PROFILE_NS3UB);
    }
    if (read_trace(dir, "ns3ub-caqm-tpack-cc.pcap", &t, caqm_check)) {
        CHECK_EQ(t.recs, 136);
        CHECK_EQ(t.errs + t.warns, 0);
        CHECK_EQ(t.op[3], 68); /* TPACK-CC */
        CHECK_EQ(nfind(&t, UB_SEV_ERROR), 0);
        CHECK_EQ(nfind(&t, UB_SEV_WARN), 0);
        CHECK(t.finding[UB_R_NW_CONGESTED][UB_SEV_NOTE] > 0); /* CAQM marks by the switches */
        CHECK_EQ(ub_sniff_verdict(&t.spec_sniff, msg, sizeof msg), UB_PROFILE_NS3UB);
    }
}

/* a capture of this project is not mistaken for ns-3-UB */
static void t_sniff_spec(void)
{
    char path[1024], err[256], msg[256];
    snprintf(path, sizeof path, "%s/captures/cfg3_ipv4.pcapng", UB_SOURCE_DIR);
    ub_capfile *c = ub_cap_open(path, err, sizeof err);
    CHECK(c != NULL);
    if (!c) return;
    ub_sniff s;
    ub_sniff_init(&s);
    ub_rec r;
    while (ub_cap_next(c, &r) == 1) {
        ub_decode_wire(&V, &SPEC, ub_entry_for_linktype(&SPEC, r.linktype), r.data, r.caplen, r.origlen);
        ub_sniff_view(&s, &V);
    }
    ub_cap_close(c);
    CHECK(s.ub > 0);
    CHECK_EQ(ub_sniff_verdict(&s, msg, sizeof msg), UB_PROFILE_SPEC);
    CHECK_STR(msg, "");
}

int main(void)
{
    ub_opts_default(&SPEC);
    ub_opts_default(&NS3);
    NS3.profile = UB_PROFILE_NS3UB;
    ub_view_init(&V);
    t_table();
    t_vectors();
    t_packets();
    t_shared();
    t_sniff_spec();
    return ub_test_finish();
}

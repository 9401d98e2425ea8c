/* Every TAOpcode's header chain (Tables 7-2/7-4, digest §6.5), every transport opcode (§6.2) and every
 * CFG/NLP dispatch (§1): packets are built from field values, decoded, and the exact sequence of
 * decoded headers plus key field values are asserted. */
#include "ubtest.h"
#include "ubparse/ubparse.h"

static ub_view V;
static ub_opts O;

typedef struct {
    const char *name;
    const char *spec;     /* builder text */
    const char *layers;   /* expected header keys, space separated */
    const char *field;    /* optional field to check */
    uint64_t value;
    const char *errors;   /* expected ub.error ("" = clean) */
} chain_case;

#define RTP "pkt\nlph\nnth24 scna=1 dcna=2\nrtph tpopcode=1 last=1 srctpn=5 dsttpn=6 psn=9 tpmsn=1\n"
#define RTP_L "lph nth24 cci_caqm rtph "
#define C9 "pkt\nlph\nnth16 scna=1 dcna=2\n"
#define C9_L "lph nth16 cci_caqm "

static const chain_case cases[] = {
    { "write", RTP "btah taopcode=Write ini_tassn=1\nmaetah address=0x1000 tokenid=1 length=16\npayload inc=16\n",
      RTP_L "btah maetah payload icrc", "ub.maetah.length", 16, "" },
    { "write+ud+tv", RTP "btah taopcode=Write ini_tassn=1\nudetah ud=0x55\nmaetah address=0x1000 tokenid=1 length=8\ntvetah tokenvalue=7\npayload inc=8\n",
      RTP_L "btah udetah maetah tvetah payload icrc", "ub.tvetah.tokenvalue", 7, "" },
    { "write_with_notify", RTP "btah taopcode=Write_with_notify ini_tassn=2\nmaetah address=0x1000 tokenid=1 length=8\nntfetah address=0x2000 notify_tokenid=3 notify_data=0x99\npayload inc=8\n",
      RTP_L "btah maetah ntfetah payload icrc", "ub.ntfetah.notify_data", 0x99, "" },
    { "write_with_be", RTP "btah taopcode=Write_with_be ini_tassn=3\nmaetah address=0x1000 tokenid=1 length=64\nbeetah hex=ffffffffffffffff\npayload inc=64\n",
      RTP_L "btah maetah beetah payload icrc", "ub.maetah.length", 64, "" },
    { "writeback", RTP "btah taopcode=Writeback ini_tassn=4\nmaetah address=0x1000 tokenid=1 length=4\npayload inc=4\n",
      RTP_L "btah maetah payload icrc", "ub.btah.taopcode", 0x17, "" },
    { "writeback_with_be", RTP "btah taopcode=Writeback_with_be ini_tassn=4\nmaetah address=0x1000 tokenid=1 length=128\nbeetah hex=ffffffffffffffffffffffffffffffff\npayload inc=128\n",
      RTP_L "btah maetah beetah payload icrc", "ub.btah.taopcode", 0x18, "" },
    { "read", RTP "btah taopcode=Read ini_tassn=5\nmaetah address=0x1000 tokenid=1 length=4096\n",
      RTP_L "btah maetah icrc", "ub.maetah.length", 4096, "" },
    { "read+taid+ofst", RTP "btah taopcode=Read ini_tassn=5\ntaidetah taid=0x77\nofstetah offset=3\nmaetah address=0x1000 tokenid=1 length=4096\n",
      RTP_L "btah taidetah ofstetah maetah icrc", "ub.taidetah.taid", 0x77, "" },
    { "read+4 (RTP: OFSTETAH, R-26)", RTP "btah taopcode=Read ini_tassn=5\nofstetah offset=3\nmaetah address=0x1000 tokenid=1 length=4096\n",
      RTP_L "btah ofstetah maetah icrc", "ub.ofstetah.offset", 3, "ambiguous" },
    { "atomic_cas", RTP "btah taopcode=Atomic_compare_swap ini_tassn=6\nmaetah address=0x1000 tokenid=1 length=8\npayload inc=16\n",
      RTP_L "btah maetah atomic_ops atomic_ops icrc", "ub.maetah.length", 8, "" },
    { "atomic_fetch_add+taid", RTP "btah taopcode=Atomic_fetch_add ini_tassn=6\ntaidetah taid=9\nmaetah address=0x1000 tokenid=1 length=4\npayload inc=8\n",
      RTP_L "btah taidetah maetah atomic_ops atomic_ops icrc", "ub.taidetah.taid", 9, "" },
    { "atomic_store+ud", RTP "btah taopcode=Atomic_store ini_tassn=6\nudetah atomic_subop=SMAX\nmaetah address=0x1000 tokenid=1 length=8\npayload inc=16\n",
      RTP_L "btah udetah maetah atomic_ops atomic_ops icrc", "ub.udetah.atomic_subop", 4, "" },
    { "atomic misaligned", RTP "btah taopcode=Atomic_swap ini_tassn=6\nmaetah address=0x1004 tokenid=1 length=8\npayload inc=16\n",
      RTP_L "btah maetah atomic_ops atomic_ops icrc", "ub.maetah.address", 0x1004, "bad_value" },
    { "send", RTP "btah taopcode=Send ini_tassn=7\nmtetah tgt_tc_id=3\nofstetah offset=0\npayload inc=8\n",
      RTP_L "btah mtetah ofstetah payload icrc", "ub.mtetah.tgt_tc_id", 3, "" },
    { "send_with_immediate", RTP "btah taopcode=Send_with_immediate ini_tassn=7\nmtetah tgt_tc_id=3\nofstetah offset=0\nimmetah immediate_data=0x42\npayload inc=8\n",
      RTP_L "btah mtetah ofstetah immetah payload icrc", "ub.immetah.immediate_data", 0x42, "" },
    { "write_with_immediate", RTP "btah taopcode=Write_with_immediate ini_tassn=8\nmtetah tgt_tc_id=3\nmaetah address=0x1000 tokenid=1 length=8\nimmetah immediate_data=0x43 msg_length=8\npayload inc=8\n",
      RTP_L "btah mtetah maetah immetah payload icrc", "ub.immetah.msg_length", 8, "" },
    { "prefetch_tgt", RTP "btah taopcode=Prefetch_tgt ini_tassn=9\nmaetah address=0x1000 tokenid=1 length=64\n",
      RTP_L "btah maetah icrc", "ub.btah.taopcode", 0x15, "" },
    { "taack", RTP "atah taopcode=TAACK ini_tassn=9 rspst=0 rspinfo=3\n",
      RTP_L "atah icrc", "ub.atah.rspinfo", 3, "" },
    { "read_response", RTP "atah taopcode=Read_response ini_tassn=9\npayload inc=64\n",
      RTP_L "atah payload icrc", "ub.atah.ini_tassn", 9, "" },
    { "atomic_response", RTP "atah taopcode=Atomic_response ini_tassn=9\npayload inc=8\n",
      RTP_L "atah payload icrc", "ub.atah.taopcode", 0x13, "" },
    { "taack rnr timer 20", RTP "atah taopcode=TAACK ini_tassn=9 rspst=1 rspinfo=20\n",
      RTP_L "atah icrc", "ub.atah.rspst", 1, "bad_value" },
    { "mt_en wrong", RTP "btah taopcode=Write ini_tassn=1 mt_en=1\nmaetah address=0x1000 tokenid=1 length=4\npayload inc=4\n",
      RTP_L "btah maetah payload icrc", "ub.btah.mt_en", 1, "flags_mismatch" },
    /* compact TAH over CFG 9 */
    { "cfg9 write", C9 "btah_c taopcode=Write ee_bits=1 ini_tassn=1\nmaetah_c address=0x1000 tokenid=1 length=0\npayload inc=64\n",
      C9_L "btah_c maetah_c payload", "ub.maetah.address", 0x1000, "" },
    { "cfg9 read", C9 "btah_c taopcode=Read ee_bits=1 ini_tassn=1\nmaetah_c address=0x1040 tokenid=1 length=2\n",
      C9_L "btah_c maetah_c", "ub.maetah.length", 2, "" },
    { "cfg9 atomic", C9 "btah_c taopcode=Atomic_load ee_bits=1 ini_tassn=1\nmaetah_c address=0x1000 tokenid=1 length=0\npayload inc=128\n",
      C9_L "btah_c maetah_c atomic_ops atomic_ops", "ub.btah.taopcode", 0x0A, "" /* compact Length 0 = 64-byte operands */ },
    { "cfg9 taack", C9 "atah_c taopcode=TAACK ini_tassn=1 status=1\n",
      C9_L "atah_c", "ub.atah.status", 1, "" },
    { "cfg9 ee_bits reserved", C9 "btah_c taopcode=Read ee_bits=0 ini_tassn=1\nmaetah_c address=0x1040 tokenid=1 length=2\n",
      C9_L "btah_c maetah_c", "ub.btah.ee_bits", 0, "reserved_attribute" },
    /* transport opcodes (§6.2) */
    { "tpack", "pkt\nlph\nnth24 scna=1 dcna=2\nrtph tpopcode=2 srctpn=5 dsttpn=6 psn=9\n",
      "lph nth24 cci_caqm rtph icrc", "ub.rtph.psn", 9, "" },
    { "tpnak", "pkt\nlph\nnth24 scna=1 dcna=2\nrtph tpopcode=2 rspst=3 srctpn=5 dsttpn=6 psn=10\n",
      "lph nth24 cci_caqm rtph icrc", "ub.rtph.rspst", 3, "" },
    { "tpack-cc", "pkt\nlph\nnth24 scna=1 dcna=2\nrtph tpopcode=3 srctpn=5 dsttpn=6 psn=9\ncetph_ldcp ack_seq=100 ce_seq=2\n",
      "lph nth24 cci_caqm rtph cetph_ldcp icrc", "ub.cetph.ack_seq", 100, "" },
    { "tpsack", "pkt\nlph\nnth24 scna=1 dcna=2\nrtph tpopcode=5 srctpn=5 dsttpn=6 psn=9\nsaetph bitmapsize=1 maxrcvpsn=40 bitmap=00000000000000000000000000000001\n",
      "lph nth24 cci_caqm rtph saetph icrc", "ub.saetph.maxrcvpsn", 40, "" },
    { "tpsack-cc", "pkt\nlph\nnth24 scna=1 dcna=2\nrtph tpopcode=6 srctpn=5 dsttpn=6 psn=9\ncetph_ldcp ack_seq=1\nsaetph bitmapsize=0 maxrcvpsn=12 bitmap=0000000000000003\n",
      "lph nth24 cci_caqm rtph cetph_ldcp saetph icrc", "ub.saetph.bitmapsize", 0, "" },
    { "cnp", "pkt\nlph\nnth24 scna=1 dcna=2\nrtph tpopcode=8 srctpn=5 dsttpn=6\ncetph_cnp ecn=1\n",
      "lph nth24 cci_caqm rtph cetph_cnp icrc", "ub.cetph.ecn", 1, "" },
    { "ctp cnp", "pkt\nlph\nnth16 scna=1 dcna=2\nctph tpopcode=1\ncetph_cnp ecn=3\n",
      "lph nth16 cci_caqm ctph cetph_cnp tppad icrc", "ub.ctph.tpopcode", 1, "" },
    { "utp send", "pkt\nlph\nnth24 scna=1 dcna=2\nutph\nbtah taopcode=Send ini_tassn=1\nmtetah tgt_tc_id=1\nofstetah\npayload inc=4\n",
      "lph nth24 cci_caqm utph btah mtetah ofstetah payload icrc", "ub.utph.tpopcode", 0, "" },
    { "rtp upi/eid", "pkt\nlph\nnth24 scna=1 dcna=2\nrtph tpopcode=1 srctpn=5 dsttpn=6\nupih32 upi=0x123456\neidh256 seid=fd000000000000000000000000000001 deid=fd000000000000000000000000000002\nbtah taopcode=Write ini_tassn=1\nmaetah address=0x1000 tokenid=1 length=4\npayload inc=4\n",
      "lph nth24 cci_caqm rtph upih32 eidh256 btah maetah payload icrc", "ub.upih.upi", 0x123456, "" },
    { "ctp upi16/eid40", "pkt\nlph\nnth16 scna=1 dcna=2\nctph\nupih16 upi=0x42\neidh40 seid=0x12345 deid=0xabcde\nbtah_c taopcode=Write ee_bits=1 ini_tassn=1\nmaetah_c address=0x1000 tokenid=1 length=0\npayload inc=64\n",
      "lph nth16 cci_caqm ctph upih16 eidh40 btah_c maetah_c payload icrc", "ub.eidh.deid", 0xabcde, "" },
    { "padding", "pkt\nlph\nnth24 scna=1 dcna=2\nrtph tpopcode=1 srctpn=5 dsttpn=6\nbtah taopcode=Write ini_tassn=1\nmaetah address=0x1000 tokenid=1 length=5\npayload inc=5\n",
      "lph nth24 cci_caqm rtph btah maetah payload tppad icrc", "ub.rtph.padding", 3, "" },
    { "unknown tpopcode", "pkt\nlph\nnth24 scna=1 dcna=2\nrtph tpopcode=0x7f srctpn=5 dsttpn=6\n",
      "lph nth24 cci_caqm rtph icrc", "ub.rtph.tpopcode", 0x7f, "unknown_tpopcode" },
    { "cfg3 tcp", "pkt\nlph\nnthip npi_id=1\nipv4 src=1.2.3.4 dst=5.6.7.8 protocol=6\ndata inc=20\n",
      "lph nthip cci_caqm ipv4 tcp", "ub.ipv4.protocol", 6, "" },
    { "cfg4 ub", "pkt\nlph\nnthip npi_id=1\nipv6 src=fd000000000000000000000000000001 dst=fd000000000000000000000000000002\nudp\nrtph tpopcode=2 srctpn=1 dsttpn=2 psn=1\n",
      "lph nthip cci_caqm ipv6 udp rtph icrc", "ub.lph.cfg", 4, "" },
    { "cfg3 npi 0", "pkt\nlph\nnthip npi_id=0\nipv4 src=1.2.3.4 dst=5.6.7.8\nudp\nrtph tpopcode=2 srctpn=1 dsttpn=2 psn=1\n",
      "lph nthip cci_caqm ipv4 udp rtph icrc", "ub.nth.npi_id", 0, "bad_value" },
    { "cfg9 mgmt bit", C9 "atah_c taopcode=TAACK ini_tassn=1\n",
      C9_L "atah_c", "ub.lph.cfg", 9, "" },
};

static void layer_keys(char *buf, size_t n)
{
    size_t w = 0;
    buf[0] = '\0';
    for (unsigned i = 0; i < V.nlayers; i++) {
        int k = snprintf(buf + w, n - w, "%s%s", i ? " " : "", V.layer[i].hdr->key);
        if (k > 0) w += (size_t)k;
        if (w >= n) break;
    }
}

int main(void)
{
    ub_opts_default(&O);
    uint8_t out[20000];
    char err[160], keys[1024], errs[256];
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const chain_case *c = &cases[i];
        long n = ub_build_text(c->spec, &O, out, sizeof out, NULL, err, sizeof err);
        if (n < 0) {
            fprintf(stderr, "%s: build failed: %s\n", c->name, err);
            CHECK(n > 0);
            continue;
        }
        ub_decode(&V, &O, UB_ENTRY_PKT, out, (uint32_t)n);
        layer_keys(keys, sizeof keys);
        if (strcmp(keys, c->layers) != 0) fprintf(stderr, "case %s:\n", c->name);
        CHECK_STR(keys, c->layers);
        uint64_t u = ~0ull;
        if (c->field) {
            int r = ub_view_get(&V, c->field, &u);
            if (r != 0 || u != c->value) fprintf(stderr, "case %s: %s\n", c->name, c->field);
            CHECK_EQ(u, c->value);
        }
        ub_error_names(&V, errs, sizeof errs);
        if (strcmp(errs, c->errors) != 0) fprintf(stderr, "case %s: errors\n", c->name);
        CHECK_STR(errs, c->errors);
    }
    return ub_test_finish();
}

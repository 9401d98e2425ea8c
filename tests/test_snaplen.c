/* Records cut by the capture's snapshot length (pcap caplen < orig_len), as simulator traces and
 * `tcpdump -s` write them: ub_decode_wire() checks lengths against the length on the wire, marks what
 * is missing as truncated (layer.wlen > layer.len) and reports no error for it; a record that is really
 * too short (caplen == orig_len) still is one. */
#include "internal.h"
#include "ubparse/capfile.h"
#include "ubtest.h"

static ub_view V;
static ub_opts O;
static uint8_t B[16384];

static long build(const char *text, ub_entry *e)
{
    char err[256];
    long n = ub_build_text(text, &O, B, sizeof B, e, err, sizeof err);
    if (n <= 0) fprintf(stderr, "build: %s\n", err);
    CHECK(n > 0);
    return n;
}

static const ub_layer *layer(unsigned id)
{
    int i = ub_view_find(&V, id, 0);
    return i < 0 ? NULL : &V.layer[i];
}

static void cut_everywhere(const char *what, ub_entry e, long n, unsigned from)
{
    /* every cut from `from` bytes on decodes without an error; the full record too */
    unsigned bad = 0;
    for (uint32_t cap = from; cap <= (uint32_t)n; cap++) {
        ub_decode_wire(&V, &O, e, B, cap, (uint32_t)n);
        if (V.nerrs) {
            if (!bad++) fprintf(stderr, "%s cut at %u: %u errors, first %s\n", what, cap, V.nerrs,
                                ub_err_get(V.err[0].code)->name);
        }
        for (unsigned i = 0; i < V.nlayers; i++) {
            const ub_layer *l = &V.layer[i];
            if (l->wlen < l->len || ((l->flags & UB_LF_TRUNC) && l->wlen <= l->len && cap < (uint32_t)n))
                if (!bad++) fprintf(stderr, "%s cut at %u: layer %s len %u wlen %u\n", what, cap, l->hdr->key, l->len, l->wlen);
        }
    }
    CHECK_EQ(bad, 0);
}

/* every record of a bundled capture that decodes without an error: cut after each of its bytes from the
 * second (the wire length kept), it still decodes without one (management PDUs, Scan PDUs, CFG 5, URPC: lengths
 * checked against what follows the cut are no verdict); a raw flit stream is left out (its records
 * are not whole units) */
static unsigned cut_capture(const char *name)
{
    char path[1024], err[256];
    snprintf(path, sizeof path, "%s/captures/%s", UB_SOURCE_DIR, name);
    ub_capfile *cf = ub_cap_open(path, err, sizeof err);
    CHECK(cf != NULL);
    if (!cf) return 0;
    ub_rec r;
    unsigned tried = 0, bad = 0;
    while (ub_cap_next(cf, &r) == 1) {
        ub_entry e = ub_entry_for_linktype(&O, r.linktype);
        if (e == UB_ENTRY_STREAM || r.caplen != r.origlen || r.caplen > sizeof B) continue;
        memcpy(B, r.data, r.caplen);
        ub_decode_wire(&V, &O, e, B, r.caplen, r.caplen);
        if (V.nerrs || !ub_view_ub(&V)) continue;
        tried++;
        for (uint32_t cap = 2; cap < r.caplen; cap++) { /* (from 2: one byte does not tell LPH from LCH) */
            ub_decode_wire(&V, &O, e, B, cap, r.caplen);
            if (V.nerrs && !bad++)
                fprintf(stderr, "%s record %llu cut at %u of %u: %s (%s)\n", name, (unsigned long long)r.frame, cap,
                        r.caplen, ub_err_get(V.err[0].code)->name, V.err[0].what ? V.err[0].what : "");
        }
    }
    ub_cap_close(cf);
    CHECK_EQ(bad, 0);
    return tried;
}

int main(void)
{
    ub_opts_default(&O);
    ub_view_init(&V);
    ub_entry e;

    /* CFG 3 packet record (LPH, IP-based NTH, IPv4, UDP, RTPH, BTAH, MAETAH, 1000 bytes, ICRC) cut at 96 */
    long n = build("pkt\nlph vl=1\nnthip npi_id=1\nipv4 src=10.0.0.1 dst=10.0.0.2\nudp srcport=1\n"
                   "rtph tpopcode=1 last=1 srctpn=1 dsttpn=2 psn=3 tpmsn=1\nbtah taopcode=Write ini_tassn=4 ini_rc_id=1\n"
                   "maetah address=0x1000 tokenid=1 length=1000\npayload inc=1000", &e);
    ub_decode_wire(&V, &O, e, B, 96, (uint32_t)n);
    CHECK_EQ(V.nerrs, 0);
    CHECK_EQ(V.wire_len, (uint32_t)n);
    const ub_layer *p = layer(UB_H_PAYLOAD);
    CHECK(p && (p->flags & UB_LF_TRUNC) && p->wlen == 1000 && p->len == 96 - 10 - 20 - 8 - 16 - 8 - 16);
    const ub_layer *ic = layer(UB_H_ICRC);
    CHECK(ic && ic->status == UB_CK_UNVERIFIED && ic->len == 0 && ic->wlen == 4);
    /* the same bytes as a complete record of 96: now an error (lengths disagree) */
    ub_decode(&V, &O, e, B, 96);
    CHECK(V.nerrs > 0);
    cut_everywhere("CFG 3 pkt", e, n, 1);

    /* CFG 7 flit record of two blocks (de-interleaved payload) cut inside the second block */
    n = build("flit\nlph vl=0\nnth24 scna=0x000002 dcna=0x000001\nctph\nbtah taopcode=Write ini_tassn=1000 ini_rc_id=0x00001\n"
              "maetah address=0x0000000100000000 tokenid=0x00007 length=1000\npayload inc=1000", &e);
    CHECK(n > 32 * 20);
    ub_decode_wire(&V, &O, e, B, 700, (uint32_t)n);
    CHECK_EQ(V.nerrs, 0);
    p = layer(UB_H_PAYLOAD);
    CHECK(p && p->wlen == 1000 && p->len < 1000);
    cut_everywhere("CFG 7 flit, 2 blocks", e, n, 1);

    /* UBoE cut before its ICRC; and a cut inside the IPv4 header */
    n = build("eth\neth dst=02:00:00:00:00:02 src=02:00:00:00:00:01\nipv4 src=192.168.1.1 dst=192.168.1.2\nudp srcport=1\n"
              "rtph tpopcode=1 last=1 srctpn=1 dsttpn=2 psn=1 tpmsn=1\nbtah taopcode=Write ini_tassn=1 ini_rc_id=1\n"
              "maetah address=0x1000 tokenid=1 length=256\npayload inc=256", &e);
    ub_decode_wire(&V, &O, e, B, (uint32_t)n - 2, (uint32_t)n);
    CHECK_EQ(V.nerrs, 0);
    CHECK_EQ(V.claim, UB_CLAIM_PORT);
    CHECK(layer(UB_H_ICRC) && layer(UB_H_ICRC)->status == UB_CK_UNVERIFIED);
    ub_decode_wire(&V, &O, e, B, 20, (uint32_t)n);
    CHECK_EQ(V.nerrs, 0);
    CHECK(layer(UB_H_IPV4) && (layer(UB_H_IPV4)->flags & UB_LF_TRUNC));
    cut_everywhere("UBoE", e, n, 14 + 20 + 8); /* before the UDP header is whole the claim cannot be made */

    /* CFG 9 packet record (no ICRC) */
    n = build("pkt\nlph vl=1\nnth16 scna=0x0102 dcna=0x0304\nbtah_c taopcode=Write ini_tassn=1\n"
              "maetah_c address=0x0000100000000040 tokenid=0x12345 length=3\npayload inc=512", &e);
    cut_everywhere("CFG 9 pkt", e, n, 1);

    /* the bundled captures of management, enumeration, CFG 5, URPC and the rest, cut everywhere */
    static const char *const caps[] = { "audit_mgmt.pcapng", "cfg6_mgmt.pcapng", "cfg6_enum.pcapng", "audit_txn_clean.pcapng",
                                        "cfg5_netctl.pcapng", "urpc.pcapng", "cfg7_rtp.pcapng", "cfg9_coherent.pcapng",
                                        "dllcb.pcapng", "cfg3_ipv4.pcapng", "uboe.pcapng", "audit_linkup.pcapng" };
    unsigned tried = 0;
    for (unsigned i = 0; i < sizeof caps / sizeof caps[0]; i++) tried += cut_capture(caps[i]);
    CHECK(tried >= 100);

    /* a record really too short stays an error */
    ub_decode_wire(&V, &O, e, B, 30, 30);
    CHECK(V.nerrs > 0);
    return ub_test_finish();
}

/* Claim only UB (issue #9 item 1): one rule for UB over IP/UDP (ub_ip_claim: UDP destination port
 * 4792 or a configured one, or the strict heuristic), and everything else shown as what it is, never
 * matching a ub.* filter. Reads captures/mixed_eth.pcapng (Ethernet: TCP, DNS, ARP, RoCEv2, IPv6,
 * LLDP, UBoE on 4792 and on 5000, a UB look-alike with a bad ICRC, UB-looking bytes on 4791) and
 * captures/cfg3_plain_ip.pcapng (plain IP on a CFG 3/4 link). */
#include "internal.h"
#include "ubtest.h"
#include "ubparse/capfile.h"
#include "ubparse/filter.h"

#include <stdlib.h>

#define MAXREC 32
static uint8_t recs[MAXREC][2048];
static uint32_t lens[MAXREC];
static unsigned nrec;
static ub_view V;

static void load(const char *name)
{
    char path[1024], err[256];
    snprintf(path, sizeof path, "%s/captures/%s", UB_SOURCE_DIR, name);
    ub_capfile *c = ub_cap_open(path, err, sizeof err);
    CHECK(c != NULL);
    nrec = 0;
    if (!c) return;
    ub_rec r;
    while (ub_cap_next(c, &r) == 1 && nrec < MAXREC) {
        CHECK(r.caplen <= sizeof recs[0]);
        memcpy(recs[nrec], r.data, r.caplen);
        lens[nrec++] = r.caplen;
    }
    ub_cap_close(c);
}

static const char *sum(void)
{
    static char b[512];
    ub_summary(&V, b, sizeof b);
    return b;
}

static bool match(const char *expr, unsigned frame)
{
    char err[256];
    ub_filter *f = ub_filter_compile(expr, err, sizeof err);
    CHECK(f != NULL);
    if (!f) return false;
    bool m = ub_filter_match_frame(f, &V, frame, V.rec_len);
    ub_filter_free(f);
    return m;
}

static void eth(const ub_opts *o, unsigned frame)
{
    ub_decode(&V, o, UB_ENTRY_ETH, recs[frame - 1], lens[frame - 1]);
}

static void t_mixed(void)
{
    load("mixed_eth.pcapng");
    CHECK_EQ(nrec, 11);
    if (nrec != 11) return;
    ub_opts o;
    ub_opts_default(&o);
    static const struct { const char *sum; bool ub; uint8_t claim; } want[11] = {
        { "ETH/IPv4/TCP 10.0.0.1:1234→10.0.0.2:80", false, UB_CLAIM_NONE },
        { "ETH/IPv4/UDP 10.0.0.1:5353→10.0.0.2:53", false, UB_CLAIM_NONE },
        { "ETH/ARP who-has 10.0.0.2 tell 10.0.0.1", false, UB_CLAIM_NONE },
        { "ETH/IPv4/UDP 10.0.0.1:49152→10.0.0.2:4791 (RoCEv2)", false, UB_CLAIM_NONE },
        { "ETH/IPv6/UDP [fd00::1]:5000→[fd00::2]:9999", false, UB_CLAIM_NONE },
        { "UBoE 192.168.1.1→192.168.1.2 RTP PSN 1 TPN 0x100→0x200 last Write req TASSN 1 addr 0x400000 len 64", true, UB_CLAIM_PORT },
        { "UBoE 192.168.1.1→192.168.1.2 RTP PSN 2 TPN 0x100→0x200 last Write req TASSN 2 addr 0x400040 len 64", true, UB_CLAIM_HEURISTIC },
        { "ETH/IPv4/UDP 192.168.1.1:51000→192.168.1.2:5001", false, UB_CLAIM_NONE }, /* bad ICRC: not UB */
        { "ETH LLDP (0x88cc)", false, UB_CLAIM_NONE },
        { "ETH/IPv4/UDP 192.168.1.1:51000→192.168.1.2:4791 (RoCEv2)", false, UB_CLAIM_NONE }, /* never by heuristic */
        { "ETH/IPv6/TCP [fd00::1]:40000→[fd00::2]:443", false, UB_CLAIM_NONE },
    };
    for (unsigned i = 0; i < 11; i++) {
        eth(&o, i + 1);
        CHECK_STR(sum(), want[i].sum);
        CHECK_EQ(ub_view_ub(&V), want[i].ub);
        CHECK_EQ(V.kind, want[i].ub ? UB_KIND_UBOE : UB_KIND_OTHER);
        CHECK_EQ(V.claim, want[i].claim);
        CHECK_EQ(V.nerrs, 0); /* what is not UB has no UB error; the UB frames are clean */
        CHECK_EQ(match("ub", i + 1), want[i].ub);
        CHECK_EQ(match("!ub", i + 1), !want[i].ub);
        CHECK_EQ(match("ub.ipv4 || ub.ipv6 || ub.eth || ub.tcp || ub.arp || ub.udp", i + 1), want[i].ub);
        CHECK_EQ(match("ub.ipv4.src == 10.0.0.1", i + 1), false);
        CHECK(match("frame.number == 0", i + 1) == false && match("frame.len > 0", i + 1));
        /* the same rule through the API the Wireshark heuristic uses (IP header at byte 14) */
        static ub_view w;
        if (lens[i] > 14 && (recs[i][12] == 0x08 || recs[i][12] == 0x86) && recs[i][13] != 0x06)
            CHECK_EQ(ub_ip_claim(&w, &o, recs[i] + 14, lens[i] - 14, lens[i] - 14), want[i].claim);
    }
    eth(&o, 3); /* the ARP layer is shown */
    CHECK_EQ(ub_view_find(&V, UB_H_ARP, 0), 1);
    eth(&o, 1);
    CHECK_EQ(ub_view_find(&V, UB_H_TCP, 0), 2);
    /* the heuristic's ICRC is the UB one: frame 7 carries an ICRC that matched */
    eth(&o, 7);
    CHECK(ub_view_find(&V, UB_H_ICRC, 0) > 0 && V.layer[ub_view_find(&V, UB_H_ICRC, 0)].status == UB_CK_GOOD);

    /* without the heuristic only the ports count */
    o.udp_heuristic = false;
    eth(&o, 7);
    CHECK(!ub_view_ub(&V));
    CHECK_STR(sum(), "ETH/IPv4/UDP 192.168.1.1:51000→192.168.1.2:5000");
    o.udp_more[0] = 5000; /* -o udp.port=4792,5000 */
    o.n_udp_more = 1;
    eth(&o, 7);
    CHECK_EQ(V.claim, UB_CLAIM_PORT);
    eth(&o, 8); /* a configured port claims even with a bad ICRC, and reports it */
    CHECK(!ub_view_ub(&V));
    o.udp_more[0] = 5001;
    eth(&o, 8);
    CHECK_EQ(V.claim, UB_CLAIM_PORT);
    CHECK_EQ(V.nerrs, 1);
    CHECK_EQ(V.err[0].code, UB_E_ICRC_BAD);
    /* no UB port at all: 4792 traffic only through the heuristic (it passes: clean, ICRC good) */
    ub_opts_default(&o);
    o.udp_port = 0;
    eth(&o, 6);
    CHECK_EQ(V.claim, UB_CLAIM_HEURISTIC);
    /* a record cut by the snapshot length: the heuristic cannot check the ICRC and says no; the port still claims */
    ub_opts_default(&o);
    ub_decode_wire(&V, &o, UB_ENTRY_ETH, recs[6], 80, lens[6]);
    CHECK(!ub_view_ub(&V));
    ub_decode_wire(&V, &o, UB_ENTRY_ETH, recs[5], 80, lens[5]);
    CHECK_EQ(V.claim, UB_CLAIM_PORT);
    CHECK_EQ(V.nerrs, 0); /* what the snapshot cut is no error */
    int ic = ub_view_find(&V, UB_H_ICRC, 0);
    CHECK(ic > 0 && V.layer[ic].status == UB_CK_UNVERIFIED && V.layer[ic].len == 0 && V.layer[ic].wlen == 4);
    /* a runt Ethernet frame is not UB either */
    ub_decode(&V, &o, UB_ENTRY_ETH, recs[0], 10);
    CHECK(!ub_view_ub(&V));
}

static void t_cfg34(void)
{
    load("cfg3_plain_ip.pcapng");
    CHECK_EQ(nrec, 6);
    if (nrec != 6) return;
    ub_opts o;
    ub_opts_default(&o);
    static const char *const want[6] = {
        "CFG3 IPv4/TCP 10.0.0.1:45000→10.0.0.2:22",
        "CFG3 IPv4/UDP 10.0.0.1:33000→10.0.0.2:53",
        "CFG3 IPv4/UDP 10.0.0.1:49152→10.0.0.2:4791 (RoCEv2)",
        "CFG4 IPv6/UDP [fd00::2]:40000→[fd00::1]:9000",
        "CFG3 10.0.0.1→10.0.0.2 RTP PSN 7 TPN 0x10→0x20 last Write req TASSN 5 addr 0x80000000 len 16",
        "CFG3 IPv4/ICMP 10.0.0.2→10.0.0.1 echo reply id 0x0042 seq 7",
    };
    for (unsigned i = 0; i < 6; i++) {
        ub_decode(&V, &o, UB_ENTRY_PKT, recs[i], lens[i]);
        CHECK_STR(sum(), want[i]);
        CHECK_EQ(V.kind, UB_KIND_DLLDP); /* a UB link packet, whatever it carries */
        CHECK_EQ(V.nerrs, 0);
        CHECK(match("ub.lph", i + 1));
        CHECK_EQ(V.claim, i == 4 ? UB_CLAIM_PORT : UB_CLAIM_NONE);
        CHECK_EQ(ub_view_find(&V, UB_H_RTPH, 0) >= 0, i == 4); /* named, not decoded further */
    }
    /* the IP part of a plain packet starts after the LPH and the 6-byte IP-based NTH (the plugin hands
     * exactly these bytes to Wireshark's IP dissector) */
    ub_decode(&V, &o, UB_ENTRY_PKT, recs[0], lens[0]);
    int ip = ub_view_find(&V, UB_H_IPV4, 0);
    CHECK(ip >= 0 && V.layer[ip].data == recs[0] + 10);
    /* its ICMP (Wireshark's, not UB's): in the plain IP part, the echo's data after it */
    ub_decode(&V, &o, UB_ENTRY_PKT, recs[5], lens[5]);
    unsigned lo = 0, hi = 0;
    int ic = ub_view_find(&V, UB_H_ICMP_ECHO, 0);
    CHECK(ub_view_plain_ip(&V, &lo, &hi) && ic > 0 && (unsigned)ic > lo && (unsigned)ic < hi && hi == V.nlayers);
    CHECK(ic > 0 && V.layer[ic].len == 8 && V.layer[ic + 1].hdr->id == UB_H_DATA && V.layer[ic + 1].len == 24);
    CHECK(match("icmp.type == 0 && icmp.ident == 0x42 && icmp.seq == 7 && icmp && data && ip.src == 10.0.0.2", 6));
    CHECK(!match("icmp.type == 8 || udp || tcp", 6));
    /* the same datagram as a fragment (a later one: offset 1 = 8 bytes; the first one: MF set): its bytes
     * after the IP header are the fragment's data, no ICMP header to read there (Wireshark: data) */
    static const uint8_t fl[2][2] = { { 0x00, 0x01 }, { 0x20, 0x00 } };
    for (unsigned k = 0; k < 2; k++) {
        uint8_t frag[2048];
        memcpy(frag, recs[5], lens[5]);
        frag[10 + 6] = fl[k][0];
        frag[10 + 7] = fl[k][1];
        ub_decode(&V, &o, UB_ENTRY_PKT, frag, lens[5]);
        int ipf = ub_view_find(&V, UB_H_IPV4, 0);
        CHECK(ipf >= 0 && ub_view_find(&V, UB_H_ICMP_ECHO, 0) < 0 && ub_view_find(&V, UB_H_ICMP, 0) < 0);
        CHECK(ipf >= 0 && (unsigned)ipf + 1 < V.nlayers && V.layer[ipf + 1].hdr->id == UB_H_DATA && V.layer[ipf + 1].len == 32);
        CHECK(match("ip && data && !icmp", 6));
    }
}

int main(void)
{
    ub_view_init(&V);
    t_mixed();
    t_cfg34();
    return ub_test_finish();
}

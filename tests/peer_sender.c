/* Test helper (not a test itself): the "tiny sender" of tests/t_peer*.sh. Reads captures and sends
 * their requests — records with direction "out" (or every record with --all) — to the endpoint
 * named on the command line, through io.h:
 *   --udp HOST:PORT [--bind ADDR]   the TP packet of each record (RTPH/UTPH .. end, without ICRC) as
 *                                   the UDP payload; records without RTPH/UTPH are skipped
 *   -i IFACE --eth                  UBoE frames: Ethernet records as they are; other RTP/UTP records
 *                                   wrapped into Ethernet/IPv4/UDP 4792 with an ICRC (IPs from the NTH
 *                                   CNAs: 10.x.y.z, or the record's own IP addresses)
 *   -i IFACE --raw                  the records unchanged (flit / packet records)
 *   --requests                      only requests (no transport acks, no responses: the recorded
 *                                   acks refer to the original responder's PSNs, not ubpeer's)
 *   --dry                           send nothing, print how many packets would be sent
 *   --gap-us N                      pause between packets
 * Prints "sent N" (or "would send N"). Exit 0, or 2 on errors. Used only inside the tests' own
 * network namespaces or towards loopback. */
#define _GNU_SOURCE 1
#include "ubparse/capfile.h"
#include "ubparse/io.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { M_UDP, M_ETH, M_RAW };

static ub_view V;

/* the TP packet (TPH .. before the ICRC) of a decoded record, NULL if it has no RTPH/UTPH */
static const uint8_t *tp_packet(const ub_view *v, uint32_t *len)
{
    int k = ub_view_find(v, UB_H_RTPH, 0);
    if (k < 0) k = ub_view_find(v, UB_H_UTPH, 0);
    if (k < 0) return NULL;
    const ub_layer *t = &v->layer[k];
    /* pointers: the TPH lives in the record or in the de-interleaved network packet (v->pkt) */
    const uint8_t *start = t->data, *end = v->rec + v->rec_len;
    if (v->pkt && start >= v->pkt && start < v->pkt + v->pkt_len) end = v->pkt + v->pkt_len;
    int ic = ub_view_find(v, UB_H_ICRC, k);
    if (ic >= 0 && v->layer[ic].data > start && v->layer[ic].data < end) end = v->layer[ic].data;
    int ud = ub_view_find(v, UB_H_UDP, 0);
    if (ud >= 0 && ud < k) { /* UDP length bounds the payload */
        uint64_t ul = 0;
        ub_view_get(v, "ub.udp.length", &ul);
        const uint8_t *uend = v->layer[ud].data + ul;
        if (ul >= 8 && uend < end) end = uend;
    }
    if (end <= start) return NULL;
    *len = (uint32_t)(end - start);
    return start;
}

static void ip_of(const ub_view *v, const char *which, uint8_t out[4])
{
    uint64_t cna = 0;
    char name[32];
    snprintf(name, sizeof name, "ub.nth.%s", which);
    int k = ub_view_find(v, UB_H_IPV4, 0);
    if (k >= 0) {
        memcpy(out, v->layer[k].data + (strcmp(which, "scna") ? 16 : 12), 4);
        return;
    }
    ub_view_get(v, name, &cna);
    out[0] = 10;
    out[1] = (uint8_t)(cna >> 16);
    out[2] = (uint8_t)(cna >> 8);
    out[3] = (uint8_t)cna;
}

/* a transaction / management / enumeration request (not an ack, not a response) */
static bool is_request(const ub_view *v)
{
    uint64_t u;
    if (ub_view_find(v, UB_H_SCANPDU_REQ, 0) >= 0) return true;
    if (ub_view_find(v, UB_H_ATAH, 0) >= 0 || ub_view_find(v, UB_H_ATAH_C, 0) >= 0) return false;
    if (ub_view_get(v, "ub.mgmtetah.rsp", &u) == 0) return u == 0;
    if (ub_view_get(v, "ub.rtph.tpopcode", &u) == 0 && u != 1) return false;
    return ub_view_find(v, UB_H_BTAH, 0) >= 0 || ub_view_find(v, UB_H_BTAH_C, 0) >= 0 || ub_view_find(v, UB_H_BTAH_ALT, 0) >= 0;
}

/* Ethernet/IPv4/UDP(4792)/TP packet/ICRC around a record's TP packet */
static long to_uboe(const ub_opts *o, const ub_view *v, uint8_t *out, size_t cap)
{
    uint32_t tl;
    const uint8_t *tp = tp_packet(v, &tl);
    if (!tp || 14 + 20 + 8 + tl + 4 > cap) return -1;
    uint8_t s[4], d[4];
    ip_of(v, "scna", s);
    ip_of(v, "dcna", d);
    uint8_t *p = out;
    static const uint8_t dmac[6] = { 2, 0, 0, 0, 0, 2 }, smac[6] = { 2, 0, 0, 0, 0, 1 };
    memcpy(p, dmac, 6);
    memcpy(p + 6, smac, 6);
    p[12] = 0x08;
    p[13] = 0x00;
    uint8_t *ip = p + 14;
    memset(ip, 0, 28);
    uint32_t tot = 20 + 8 + tl;
    ip[0] = 0x45;
    ip[2] = (uint8_t)(tot >> 8);
    ip[3] = (uint8_t)tot;
    ip[6] = 0x40;
    ip[8] = 64;
    ip[9] = 17;
    memcpy(ip + 12, s, 4);
    memcpy(ip + 16, d, 4);
    uint32_t sum = 0;
    for (int i = 0; i < 20; i += 2) sum += (uint32_t)(ip[i] << 8 | ip[i + 1]);
    while (sum >> 16) sum = (sum & 0xFFFF) + (sum >> 16);
    ip[10] = (uint8_t)(~sum >> 8);
    ip[11] = (uint8_t)~sum;
    uint8_t *u = ip + 20;
    u[0] = 0xC0;
    u[1] = 0x00;
    u[2] = (uint8_t)(UB_UDP_PORT >> 8);
    u[3] = (uint8_t)UB_UDP_PORT;
    u[4] = (uint8_t)((8 + tl) >> 8);
    u[5] = (uint8_t)(8 + tl);
    memcpy(u + 8, tp, tl);
    uint32_t n = 14 + tot + 4;
    memset(out + n - 4, 0, 4);
    /* the ICRC the decoder computes (one masking implementation), little-endian (R-15 default) */
    static ub_view w;
    ub_view_init(&w);
    ub_decode(&w, o, UB_ENTRY_ETH, out, n);
    int k = ub_view_find(&w, UB_H_ICRC, 0);
    if (k < 0) return -1;
    uint32_t c = (uint32_t)w.layer[k].aux;
    out[n - 4] = (uint8_t)c;
    out[n - 3] = (uint8_t)(c >> 8);
    out[n - 2] = (uint8_t)(c >> 16);
    out[n - 1] = (uint8_t)(c >> 24);
    return n;
}

int main(int argc, char **argv)
{
    const char *udp = NULL, *bind_addr = NULL, *ifname = NULL;
    int mode = -1, all = 0, dry = 0, requests = 0;
    unsigned long gap_us = 0;
    int i = 1;
    for (; i < argc && argv[i][0] == '-'; i++) {
        if (!strcmp(argv[i], "--udp") && i + 1 < argc) { udp = argv[++i]; mode = M_UDP; }
        else if (!strcmp(argv[i], "--bind") && i + 1 < argc) bind_addr = argv[++i];
        else if (!strcmp(argv[i], "-i") && i + 1 < argc) ifname = argv[++i];
        else if (!strcmp(argv[i], "--eth")) mode = M_ETH;
        else if (!strcmp(argv[i], "--raw")) mode = M_RAW;
        else if (!strcmp(argv[i], "--all")) all = 1;
        else if (!strcmp(argv[i], "--dry")) dry = 1;
        else if (!strcmp(argv[i], "--requests")) requests = 1;
        else if (!strcmp(argv[i], "--gap-us") && i + 1 < argc) gap_us = strtoul(argv[++i], NULL, 10);
        else { fprintf(stderr, "peer_sender: bad argument %s\n", argv[i]); return 2; }
    }
    if (i >= argc || mode < 0 || (mode != M_UDP && !ifname && !dry)) {
        fprintf(stderr, "usage: peer_sender (--udp HOST:PORT [--bind ADDR] | -i IFACE --eth|--raw) [--all] [--dry] [--gap-us N] FILE...\n");
        return 2;
    }
    char err[256];
    ub_io *io = NULL;
    if (!dry) {
        ub_io_cfg c;
        ub_io_cfg_default(&c);
        c.rx = false;
        if (mode == M_UDP) {
            char local[128];
            if (bind_addr) snprintf(local, sizeof local, strchr(bind_addr, ':') ? "[%s]:0" : "%s:0", bind_addr);
            io = ub_io_open_udp(&c, udp, bind_addr ? local : NULL, err, sizeof err);
        } else {
            c.raw = mode == M_RAW;
            io = ub_io_open_if(&c, ifname, err, sizeof err);
        }
        if (!io) { fprintf(stderr, "peer_sender: %s\n", err); return 2; }
    }
    ub_opts o;
    ub_opts_default(&o);
    ub_view_init(&V);
    static uint8_t frame[UB_MAX_NETPKT * 2];
    unsigned long sent = 0, skipped = 0;
    for (; i < argc; i++) {
        ub_capfile *cf = ub_cap_open(argv[i], err, sizeof err);
        if (!cf) { fprintf(stderr, "peer_sender: %s: %s\n", argv[i], err); return 2; }
        ub_rec r;
        int rc;
        while ((rc = ub_cap_next(cf, &r)) == 1) {
            if (!all && r.dir != UB_DIR_OUT) continue;
            ub_entry e = ub_entry_for_linktype(&o, r.linktype);
            ub_decode(&V, &o, e, r.data, r.caplen);
            if (requests && !is_request(&V)) continue;
            const uint8_t *d = r.data;
            uint32_t len = r.caplen;
            if (mode == M_UDP) {
                d = tp_packet(&V, &len);
                if (!d) { skipped++; continue; }
            } else if (mode == M_ETH && e != UB_ENTRY_ETH) {
                long n = to_uboe(&o, &V, frame, sizeof frame);
                if (n < 0) { skipped++; continue; }
                d = frame;
                len = (uint32_t)n;
            }
            if (!dry) {
                ub_io_tx t = { .data = d, .len = len };
                if (ub_io_send(io, &t, 1) != 1) {
                    fprintf(stderr, "peer_sender: send: %s\n", t.err ? strerror(t.err) : ub_io_error(io));
                    return 2;
                }
                if (gap_us) {
                    struct timespec ts = { (time_t)(gap_us / 1000000), (long)(gap_us % 1000000) * 1000 };
                    nanosleep(&ts, NULL);
                }
            }
            sent++;
        }
        if (rc < 0) { fprintf(stderr, "peer_sender: %s: %s\n", argv[i], ub_cap_error(cf)); return 2; }
        ub_cap_close(cf);
    }
    printf("%s %lu\n", dry ? "would send" : "sent", sent);
    if (skipped) fprintf(stderr, "peer_sender: %lu records skipped (no RTP/UTP transport for this endpoint)\n", skipped);
    ub_io_close(io);
    return 0;
}

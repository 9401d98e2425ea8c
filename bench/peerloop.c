/* Cost of the reference responder's core (peer.h) per request, no I/O: N RTP Writes of 64 bytes
 * (flit records, CFG 7) decoded and answered (TPACK + TAACK built with the incremental builder, ICRC
 * and BCRC computed). Prints "REQUESTS OUTPUTS SECONDS ns/request".
 *   cc -O2 -Ilibubparse/include bench/peerloop.c build/libubparse.a -o bench/out/peerloop */
#include "ubparse/peer.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static unsigned long outs;
static void out(void *ctx, const ub_peer_out *o) { (void)ctx; outs += o->len > 0; }

int main(int argc, char **argv)
{
    unsigned long n = argc > 1 ? strtoul(argv[1], NULL, 10) : 200000;
    ub_opts o;
    ub_opts_default(&o);
    ub_peer_cfg c;
    ub_peer_cfg_default(&c);
    c.opts = &o;
    char err[256], text[512];
    ub_peer *p = ub_peer_new(&c, out, NULL, err, sizeof err);
    ub_view *v = malloc(sizeof *v);
    if (!p || !v) return 1;
    ub_view_init(v);
    enum { K = 1024 };
    static uint8_t rec[K][256];
    static uint32_t len[K];
    for (unsigned i = 0; i < K; i++) { /* PSNs 1..K, the loop continues with the ring of them */
        snprintf(text, sizeof text,
                 "flit\nlph vl=2\nnth24 scna=0x010203 dcna=0x0a0b0c\nrtph last=1 srctpn=0x101 dsttpn=0x202 psn=%u tpmsn=%u\n"
                 "btah taopcode=Write ini_tassn=%u ini_rc_id=0x20\nmaetah address=0x%x tokenid=0x42 length=64\npayload inc=64\n",
                 i + 1, i + 1, i + 1, 0x80000000u + 64 * i);
        ub_entry e;
        long l = ub_build_text(text, &o, rec[i], sizeof rec[i], &e, err, sizeof err);
        if (l < 0) { fprintf(stderr, "%s\n", err); return 1; }
        len[i] = (uint32_t)l;
    }
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    unsigned long done = 0;
    while (done < n) { /* each lap a new channel (flow), so PSNs stay in order */
        ub_peer_pktinfo pi = { 0, done / K };
        for (unsigned i = 0; i < K && done < n; i++, done++) {
            ub_decode(v, &o, UB_ENTRY_FLIT, rec[i], len[i]);
            ub_peer_packet(p, v, &pi);
        }
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double s = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
    printf("%lu %lu %.4f %.0f\n", n, outs, s, s * 1e9 / (double)n);
    ub_peer_free(p);
    free(v);
    return 0;
}

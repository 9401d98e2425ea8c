/* Send-path benchmark of the I/O module (libubparse/src/io.c): N copies of one UBoE frame through
 * an AF_PACKET endpoint with sendmmsg or PACKET_TX_RING. Prints "MODE SIZE PACKETS SECONDS PPS CPU".
 * Run only on an interface you own, e.g. inside `unshare -rn` on a veth pair (bench/io_send.sh):
 *   iosend IFACE sendmmsg|ring PACKETS SIZE [BATCH] [qdisc-bypass]
 *   cc -O2 -Ilibubparse/include bench/iosend.c libubparse/src/io.c -o bench/out/iosend */
#include "ubparse/io.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

int main(int argc, char **argv)
{
    if (argc < 5) {
        fprintf(stderr, "usage: iosend IFACE sendmmsg|ring PACKETS SIZE [BATCH] [qdisc-bypass]\n");
        return 2;
    }
    ub_io_cfg c;
    ub_io_cfg_default(&c);
    c.rx = false;
    c.txmode = strcmp(argv[2], "ring") == 0 ? UB_IO_TX_RING : UB_IO_TX_SENDMMSG;
    unsigned long n = strtoul(argv[3], NULL, 10);
    unsigned size = (unsigned)strtoul(argv[4], NULL, 10);
    if (argc > 5) c.batch = (unsigned)strtoul(argv[5], NULL, 10);
    if (argc > 6 && strcmp(argv[6], "qdisc-bypass") == 0) c.qdisc_bypass = true;
    if (size < 60 || size > 1514) size = 64;
    char err[256];
    ub_io *io = ub_io_open_if(&c, argv[1], err, sizeof err);
    if (!io) {
        fprintf(stderr, "iosend: %s\n", err);
        return 2;
    }
    static uint8_t frame[1514];
    memset(frame, 0, sizeof frame);
    memset(frame, 0xff, 6);           /* broadcast DMAC */
    frame[6] = 0x02;                  /* locally administered SMAC */
    frame[12] = 0x08;                 /* IPv4 / UDP 4792 (UBoE) */
    frame[14] = 0x45;
    frame[16] = (uint8_t)((size - 14) >> 8);
    frame[17] = (uint8_t)(size - 14);
    frame[20] = 0x40;
    frame[22] = 64;
    frame[23] = 17;
    frame[36] = 0xC0;
    frame[38] = 0x12;
    frame[39] = 0xB8;
    enum { CHUNK = 1024 };
    static ub_io_tx tx[CHUNK];
    for (unsigned i = 0; i < CHUNK; i++) tx[i] = (ub_io_tx){ .data = frame, .len = size };
    struct timespec t0, t1, c0, c1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &c0);
    unsigned long done = 0;
    while (done < n) {
        unsigned k = n - done < CHUNK ? (unsigned)(n - done) : CHUNK;
        if (ub_io_send(io, tx, k) < 0) {
            fprintf(stderr, "iosend: %s\n", ub_io_error(io));
            return 1;
        }
        done += k;
    }
    ub_io_flush(io, 5000);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &c1);
    double s = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
    double cpu = (double)(c1.tv_sec - c0.tv_sec) + (double)(c1.tv_nsec - c0.tv_nsec) / 1e9;
    ub_io_stats st;
    ub_io_get_stats(io, &st);
    printf("%s %u %llu %.4f %.0f %.4f\n", ub_io_get_txmode(io) == UB_IO_TX_RING ? "ring" : "sendmmsg", size,
           (unsigned long long)st.tx_packets, s, (double)st.tx_packets / s, cpu);
    fprintf(stderr, "iosend: ");
    ub_io_stats_print(stderr, &st);
    ub_io_close(io);
    return st.tx_failed ? 1 : 0;
}

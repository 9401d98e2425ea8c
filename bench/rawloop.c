/* Baseline for bench/run.sh: the fastest a libpcap program can walk a capture file —
 * pcap_open_offline + pcap_next_ex, counting packets and bytes and touching every record's first
 * and last byte (ubdump reads the bytes too). Prints "PACKETS BYTES SECONDS". With COUNT, stops after
 * COUNT records (as `ubdump -c COUNT`).
 *   cc -O2 bench/rawloop.c $(pkg-config --cflags --libs libpcap) -o bench/out/rawloop */
#include <pcap/pcap.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

int main(int argc, char **argv)
{
    if (argc != 2 && argc != 3) {
        fprintf(stderr, "usage: rawloop FILE [COUNT]\n");
        return 2;
    }
    char errbuf[PCAP_ERRBUF_SIZE];
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    pcap_t *p = pcap_open_offline(argv[1], errbuf);
    if (!p) {
        fprintf(stderr, "rawloop: %s\n", errbuf);
        return 2;
    }
    struct pcap_pkthdr *h;
    const u_char *d;
    unsigned long long pkts = 0, bytes = 0, sum = 0;
    unsigned long long max = argc == 3 ? strtoull(argv[2], NULL, 10) : ~0ull;
    int rc = 0;
    while (pkts < max && (rc = pcap_next_ex(p, &h, &d)) == 1) {
        pkts++;
        bytes += h->caplen;
        if (h->caplen) sum += d[0] + d[h->caplen - 1];
    }
    if (rc == -1) fprintf(stderr, "rawloop: %s\n", pcap_geterr(p));
    pcap_close(p);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double s = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
    printf("%llu %llu %.6f\n", pkts, bytes, s);
    fprintf(stderr, "rawloop: %llu packets, %llu bytes (checksum %llu) in %.3f s\n", pkts, bytes, sum, s);
    return rc == -1 ? 1 : 0;
}

/* Seeds for the sequence and builder fuzzers (scripts/test.sh, scripts/fuzz.sh):
 *   mkseed state OUTDIR FILE...   one fuzz_state input per capture file (its records in order)
 *   mkseed build OUTDIR FILE...   one fuzz_build input per @packet of builder files (captures/NAME.ub)
 * Files are named by a hash of their content, so re-running adds nothing twice. */
#include "ubparse/capfile.h"
#include "ubparse/ubparse.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void put(const char *dir, const void *p, size_t n)
{
    const uint8_t *b = p;
    uint64_t h = 1469598103934665603ull; /* FNV-1a */
    for (size_t k = 0; k < n; k++) h = (h ^ b[k]) * 1099511628211ull;
    char path[1024];
    snprintf(path, sizeof path, "%s/%016llx", dir, (unsigned long long)h);
    FILE *f = fopen(path, "wb");
    if (!f) { perror(path); return; }
    if (n) fwrite(p, 1, n, f);
    fclose(f);
}

/* selector of tests/fuzz/fuzz_state.c: entry index, direction, interface */
static int selector(uint32_t lt, const ub_rec *r)
{
    ub_opts o;
    ub_opts_default(&o);
    static const ub_entry order[8] = { UB_ENTRY_FLIT, UB_ENTRY_PKT, UB_ENTRY_STREAM, UB_ENTRY_ETH,
                                       UB_ENTRY_RAWIP, UB_ENTRY_SLL, UB_ENTRY_CFGPH, UB_ENTRY_TPH };
    ub_entry e = ub_entry_for_linktype(&o, lt);
    for (int i = 0; i < 8; i++)
        if (order[i] == e) return i | (r->dir & 3) << 3 | (r->ifindex & 1) << 5;
    return -1;
}

static int state(const char *dir, const char *path, int profile)
{
    char err[512];
    ub_capfile *c = ub_cap_open(path, err, sizeof err);
    if (!c) { fprintf(stderr, "mkseed: %s\n", err); return 0; }
    size_t cap = 1 << 16, n = 0;
    uint8_t *buf = malloc(cap);
    if (!buf) { ub_cap_close(c); return 0; }
    buf[n++] = (uint8_t)(profile ? 1 : 0);
    ub_rec r;
    uint64_t last = 0;
    unsigned recs = 0;
    while (ub_cap_next(c, &r) == 1 && recs < 400) {
        int sel = selector(r.linktype, &r);
        uint32_t len = r.caplen > 2048 ? 2048 : r.caplen;
        if (sel < 0 || n + 4 + len > cap) continue;
        uint64_t dt = last && r.ts_ns > last ? (r.ts_ns - last) / 1000u : 0;
        last = r.ts_ns;
        buf[n++] = (uint8_t)(sel | (dt > 255 ? 0x80 : 0));
        buf[n++] = (uint8_t)len;
        buf[n++] = (uint8_t)(len >> 8);
        buf[n++] = (uint8_t)(dt > 255 ? (dt / 1000u > 255 ? 255 : dt / 1000u) : dt);
        memcpy(buf + n, r.data, len);
        n += len;
        recs++;
    }
    ub_cap_close(c);
    put(dir, buf, n);
    free(buf);
    return 1;
}

static int build(const char *dir, const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) { perror(path); return 0; }
    static char text[1 << 20];
    size_t n = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    text[n] = '\0';
    int count = 0;
    for (char *p = strstr(text, "\n@packet"); p; ) {
        char *body = strchr(p + 1, '\n');
        if (!body) break;
        body++;
        char *next = strstr(body, "\n@packet");
        size_t len = next ? (size_t)(next - body) + 1 : strlen(body);
        put(dir, body, len);
        count++;
        p = next;
    }
    return count;
}

int main(int argc, char **argv)
{
    if (argc < 4 || (strcmp(argv[1], "state") != 0 && strcmp(argv[1], "build") != 0)) {
        fprintf(stderr, "usage: mkseed state|build OUTDIR FILE...\n");
        return 2;
    }
    int total = 0;
    for (int i = 3; i < argc; i++) {
        if (argv[1][0] == 's') total += state(argv[2], argv[i], strstr(argv[i], "ns3ub") != NULL);
        else total += build(argv[2], argv[i]);
    }
    printf("mkseed %s: %d seeds from %d files\n", argv[1], total, argc - 3);
    return 0;
}

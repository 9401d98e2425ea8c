/* Capture-file reader/writer: round trips (pcap, pcapng with several interfaces, directions,
 * ns timestamps), hand-made files in both byte orders and every timestamp resolution, several
 * sections, SPB/OPB/unknown blocks, stdin streaming through a pipe, hostile files (every prefix,
 * byte corruption, bogus lengths), and — when editcap/tshark are installed — interoperability
 * with Wireshark's wiretap (optional: skipped without them). */
#include "ubtest.h"
#include "ubparse/capfile.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#define NS 1000000000ull

static char tmpdir[512];

static const char *tpath(const char *name)
{
    static char p[4][700];
    static int k;
    k = (k + 1) % 4;
    snprintf(p[k], sizeof p[k], "%s/tcap_%ld_%s", tmpdir, (long)getpid(), name);
    return p[k];
}

static void write_file(const char *path, const uint8_t *b, size_t n)
{
    FILE *f = fopen(path, "wb");
    if (!f) { perror(path); exit(2); }
    if (n && fwrite(b, 1, n, f) != n) { perror(path); exit(2); }
    fclose(f);
}

static uint8_t *read_file(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    if (!f) { *n = 0; return NULL; }
    fseek(f, 0, SEEK_END);
    long sz = ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *b = malloc((size_t)sz + 1);
    *n = fread(b, 1, (size_t)sz, f);
    fclose(f);
    return b;
}

/* ------------------------------------------------------------------ byte builder for crafted files */
typedef struct bb {
    uint8_t d[1 << 16];
    size_t n;
    bool be;
    size_t blk; /* start of the open pcapng block */
} bb;

static void b8(bb *b, uint32_t v) { b->d[b->n++] = (uint8_t)v; }
static void b16(bb *b, uint32_t v)
{
    if (b->be) { b8(b, v >> 8); b8(b, v); } else { b8(b, v); b8(b, v >> 8); }
}
static void b32(bb *b, uint32_t v)
{
    if (b->be) { b16(b, v >> 16); b16(b, v & 0xffff); } else { b16(b, v & 0xffff); b16(b, v >> 16); }
}
static void bput(bb *b, const void *p, size_t n) { memcpy(b->d + b->n, p, n); b->n += n; }
static void bpad(bb *b) { while (b->n % 4) b8(b, 0); }
static void set32(bb *b, size_t at, uint32_t v)
{
    size_t save = b->n;
    b->n = at;
    b32(b, v);
    b->n = save;
}
static void blk_begin(bb *b, uint32_t type) { b->blk = b->n; b32(b, type); b32(b, 0); }
static void blk_end(bb *b)
{
    bpad(b);
    uint32_t len = (uint32_t)(b->n - b->blk + 4);
    set32(b, b->blk + 4, len);
    b32(b, len);
}
static void shb(bb *b, bool be)
{
    b->be = be;
    blk_begin(b, 0x0A0D0D0A);
    b32(b, 0x1A2B3C4D);
    b16(b, 1); b16(b, 0);
    b32(b, 0xffffffff); b32(b, 0xffffffff);
    blk_end(b);
}
/* tsresol < 0: no option; tsoff != 0: if_tsoffset */
static void idb(bb *b, uint32_t lt, uint32_t snap, int tsresol, int64_t tsoff)
{
    blk_begin(b, 1);
    b16(b, lt); b16(b, 0); b32(b, snap);
    if (tsresol >= 0) { b16(b, 9); b16(b, 1); b8(b, (uint32_t)tsresol); bpad(b); }
    if (tsoff) {
        b16(b, 14); b16(b, 8);
        uint64_t u = (uint64_t)tsoff;
        if (b->be) { b32(b, (uint32_t)(u >> 32)); b32(b, (uint32_t)u); }
        else { b32(b, (uint32_t)u); b32(b, (uint32_t)(u >> 32)); }
    }
    b16(b, 0); b16(b, 0);
    blk_end(b);
}
/* flags < 0: no epb_flags option */
static void epb(bb *b, uint32_t ifid, uint64_t ts, const uint8_t *p, uint32_t len, uint32_t orig, long flags)
{
    blk_begin(b, 6);
    b32(b, ifid); b32(b, (uint32_t)(ts >> 32)); b32(b, (uint32_t)ts); b32(b, len); b32(b, orig);
    bput(b, p, len);
    bpad(b);
    if (flags >= 0) { b16(b, 2); b16(b, 4); b32(b, (uint32_t)flags); b16(b, 0); b16(b, 0); }
    blk_end(b);
}

static int read_all(const char *path, ub_rec *recs, int max, char *err, size_t errlen)
{
    ub_capfile *c = ub_cap_open(path, err, errlen);
    if (!c) return -100;
    int n = 0, rc;
    ub_rec r;
    while ((rc = ub_cap_next(c, &r)) == 1) if (n < max) recs[n++] = r; else n++;
    if (rc < 0) snprintf(err, errlen, "%s", ub_cap_error(c));
    ub_cap_close(c);
    return rc < 0 ? -1 - n : n; /* data pointers are dangling now: compare fields only */
}

static const uint8_t *pattern(uint32_t seed, uint32_t len)
{
    static uint8_t buf[300000];
    for (uint32_t i = 0; i < len && i < sizeof buf; i++) buf[i] = (uint8_t)(seed * 31u + i * 7u + (i >> 8));
    return buf;
}

/* ------------------------------------------------------------------ round trips */
static const uint32_t rt_len[] = { 100, 0, 1, 3, 4, 5, 1500, 65536, 17 };
#define RT_N (sizeof rt_len / sizeof rt_len[0])
static uint64_t rt_ts(unsigned i) { return 1700000000ull * NS + i * 1234567891ull + (i == 3 ? 999999999ull : 7); }

static void test_pcap_roundtrip(const char *path)
{
    char err[256];
    ub_capw *w = ub_capw_open(path, false, 147, err, sizeof err);
    CHECK(w != NULL);
    if (!w) return;
    CHECK_EQ(ub_capw_add_if(w, 148, "x"), -1); /* pcap: one link type per file */
    for (unsigned i = 0; i < RT_N; i++) CHECK_EQ(ub_capw_write(w, 0, rt_ts(i), pattern(i, rt_len[i]), rt_len[i], (uint8_t)(i % 3)), 0);
    CHECK_EQ(ub_capw_write(w, 1, 0, NULL, 0, 0), -1);          /* no interface 1 */
    CHECK_EQ(ub_capw_write(w, 0, 0, pattern(0, 10), 300000, 0), -1); /* too long */
    CHECK_EQ(ub_capw_close(w), 0);

    size_t n;
    uint8_t *f = read_file(path, &n);
    /* ns magic, version 2.4, snaplen 262144, link type 147, little-endian */
    static const uint8_t hdr[24] = { 0x4d, 0x3c, 0xb2, 0xa1, 2, 0, 4, 0, 0, 0, 0, 0, 0, 0, 0, 0,
                                     0, 0, 4, 0, 147, 0, 0, 0 };
    CHECK(n >= 24 && memcmp(f, hdr, 24) == 0);
    size_t want = 24;
    for (unsigned i = 0; i < RT_N; i++) want += 16 + rt_len[i];
    CHECK_EQ(n, want);
    free(f);

    ub_capfile *c = ub_cap_open(path, err, sizeof err);
    CHECK(c != NULL);
    if (!c) return;
    CHECK(!ub_cap_is_pcapng(c));
    CHECK_EQ(ub_cap_linktype(c), 147);
    ub_rec r;
    for (unsigned i = 0; i < RT_N; i++) {
        CHECK_EQ(ub_cap_next(c, &r), 1);
        CHECK_EQ(r.caplen, rt_len[i]);
        CHECK_EQ(r.origlen, rt_len[i]);
        CHECK_EQ(r.ts_ns, rt_ts(i));
        CHECK_EQ(r.linktype, 147);
        CHECK_EQ(r.ifindex, 0);
        CHECK_EQ(r.dir, UB_DIR_UNKNOWN);
        CHECK_EQ(r.frame, i + 1);
        CHECK(memcmp(r.data, pattern(i, rt_len[i]), rt_len[i]) == 0);
    }
    CHECK_EQ(ub_cap_next(c, &r), 0);
    CHECK_EQ(ub_cap_next(c, &r), 0);
    ub_cap_close(c);
}

static const uint32_t ng_lt[3] = { 147, 148, 1 };
static uint32_t ng_if(unsigned i) { return i % 3; }
static uint8_t ng_dir(unsigned i) { return (uint8_t)((i / 3) % 3); }

static void test_pcapng_roundtrip(const char *path)
{
    char err[256];
    ub_capw *w = ub_capw_open(path, true, ng_lt[0], err, sizeof err);
    CHECK(w != NULL);
    if (!w) return;
    CHECK_EQ(ub_capw_add_if(w, ng_lt[1], "ub0.pkt"), 1);
    CHECK_EQ(ub_capw_add_if(w, ng_lt[2], "eth-with-a-longer-name"), 2);
    for (unsigned i = 0; i < RT_N; i++)
        CHECK_EQ(ub_capw_write(w, ng_if(i), rt_ts(i), pattern(i, rt_len[i]), rt_len[i], ng_dir(i)), 0);
    CHECK_EQ(ub_capw_write(w, 3, 0, NULL, 0, 0), -1);
    CHECK_EQ(ub_capw_close(w), 0);

    size_t n;
    uint8_t *f = read_file(path, &n);
    CHECK(n > 28 && f[0] == 0x0a && f[1] == 0x0d && f[2] == 0x0d && f[3] == 0x0a);
    CHECK(n > 12 && f[8] == 0x4d && f[9] == 0x3c && f[10] == 0x2b && f[11] == 0x1a); /* LE BOM */
    /* walk the blocks: SHB, 3 IDBs (each with if_tsresol 9), EPBs; every length consistent */
    size_t off = 0;
    int nblk = 0, nidb = 0, nepb = 0, ntsres = 0, nflags = 0, nname = 0;
    while (off + 12 <= n) {
        uint32_t type = (uint32_t)f[off] | (uint32_t)f[off + 1] << 8 | (uint32_t)f[off + 2] << 16 | (uint32_t)f[off + 3] << 24;
        uint32_t len = (uint32_t)f[off + 4] | (uint32_t)f[off + 5] << 8 | (uint32_t)f[off + 6] << 16 | (uint32_t)f[off + 7] << 24;
        if (len < 12 || len % 4 || off + len > n) break;
        CHECK(memcmp(f + off + 4, f + off + len - 4, 4) == 0);
        if (type == 1) {
            nidb++;
            for (size_t o = off + 16; o + 4 <= off + len - 4;) {
                unsigned code = f[o] | f[o + 1] << 8, ol = f[o + 2] | f[o + 3] << 8;
                if (code == 0) break;
                if (code == 9 && ol == 1 && f[o + 4] == 9) ntsres++;
                if (code == 2) nname++;
                o += 4 + ((ol + 3u) & ~3u);
            }
        }
        if (type == 6) {
            nepb++;
            uint32_t cl = f[off + 20] | (uint32_t)f[off + 21] << 8 | (uint32_t)f[off + 22] << 16;
            if (len > 32 + ((cl + 3u) & ~3u)) nflags++;
        }
        nblk++;
        off += len;
    }
    CHECK_EQ(off, n);
    CHECK_EQ(nblk, 1 + 3 + RT_N);
    CHECK_EQ(nidb, 3);
    CHECK_EQ(ntsres, 3);
    CHECK_EQ(nname, 2);
    CHECK_EQ(nepb, RT_N);
    unsigned want_flags = 0;
    for (unsigned i = 0; i < RT_N; i++) want_flags += ng_dir(i) != 0;
    CHECK_EQ(nflags, want_flags);
    free(f);

    ub_capfile *c = ub_cap_open(path, err, sizeof err);
    CHECK(c != NULL);
    if (!c) return;
    CHECK(ub_cap_is_pcapng(c));
    CHECK_EQ(ub_cap_linktype(c), 147);
    ub_rec r;
    for (unsigned i = 0; i < RT_N; i++) {
        CHECK_EQ(ub_cap_next(c, &r), 1);
        CHECK_EQ(r.caplen, rt_len[i]);
        CHECK_EQ(r.origlen, rt_len[i]);
        CHECK_EQ(r.ts_ns, rt_ts(i));
        CHECK_EQ(r.ifindex, ng_if(i));
        CHECK_EQ(r.linktype, ng_lt[ng_if(i)]);
        CHECK_EQ(r.dir, ng_dir(i));
        CHECK_EQ(r.frame, i + 1);
        CHECK(memcmp(r.data, pattern(i, rt_len[i]), rt_len[i]) == 0);
    }
    CHECK_EQ(ub_cap_next(c, &r), 0);
    ub_cap_close(c);
}

/* ------------------------------------------------------------------ hand-made files */
static void test_pcap_crafted(void)
{
    char err[256];
    ub_rec r[4];
    static const uint8_t rec[5] = { 1, 2, 3, 4, 5 };
    for (int be = 0; be < 2; be++) {
        for (int ns = 0; ns < 2; ns++) {
            bb *b = calloc(1, sizeof *b);
            b->be = be;
            b32(b, ns ? 0xa1b23c4d : 0xa1b2c3d4);
            b16(b, 2); b16(b, 4); b32(b, 0); b32(b, 0); b32(b, 65535);
            b32(b, 0x0400FFFFu & (148u | 0x04000000u)); /* FCS-info bits above the link type */
            b32(b, 1); b32(b, 2); b32(b, 5); b32(b, 60); bput(b, rec, 5);
            b32(b, 0xFFFFFFFF); b32(b, 999999); b32(b, 0); b32(b, 0);
            const char *p = tpath("crafted.pcap");
            write_file(p, b->d, b->n);
            CHECK_EQ(read_all(p, r, 4, err, sizeof err), 2);
            CHECK_EQ(r[0].linktype, 148);
            CHECK_EQ(r[0].caplen, 5);
            CHECK_EQ(r[0].origlen, 60);
            CHECK_EQ(r[0].ts_ns, NS + (ns ? 2 : 2000));
            CHECK_EQ(r[1].caplen, 0);
            CHECK_EQ(r[1].ts_ns, 0xFFFFFFFFull * NS + (ns ? 999999ull : 999999000ull));
            free(b);
        }
    }
    /* modified (Kuznetzov) pcap, big-endian: 8 more bytes per record header */
    bb *b = calloc(1, sizeof *b);
    b->be = true;
    b32(b, 0xa1b2cd34); b16(b, 2); b16(b, 4); b32(b, 0); b32(b, 0); b32(b, 65535); b32(b, 147);
    b32(b, 3); b32(b, 4); b32(b, 5); b32(b, 5); b32(b, 0xdeadbeef); b32(b, 0x01020304); bput(b, rec, 5);
    const char *p = tpath("kuz.pcap");
    write_file(p, b->d, b->n);
    CHECK_EQ(read_all(p, r, 4, err, sizeof err), 1);
    CHECK_EQ(r[0].ts_ns, 3 * NS + 4000);
    CHECK_EQ(r[0].caplen, 5);
    free(b);
}

/* Two sections (big-endian, then little-endian), every timestamp resolution, SPB, OPB, unknown
 * blocks, a huge custom block that must be skipped without buffering. */
static size_t build_ng_crafted(bb *b, bool huge, uint8_t **out)
{
    static const uint8_t pk[7] = { 0xa0, 0xa1, 0xa2, 0xa3, 0xa4, 0xa5, 0xa6 };
    b->n = 0;
    shb(b, true);
    idb(b, 147, 0, -1, 0);          /* if 0: default µs */
    idb(b, 148, 4, 0x80 | 10, 0);   /* if 1: 2^-10 s, snaplen 4 */
    idb(b, 1, 0, 3, -5);            /* if 2: ms, offset -5 s */
    idb(b, 149, 0, 0x80 | 40, 0);   /* if 3: 2^-40 s */
    idb(b, 276, 0, 12, 100);        /* if 4: ps, offset +100 s */
    epb(b, 0, 1500000ull, pk, 7, 7, 1);             /* 1.5 s, inbound */
    epb(b, 1, 3ull * 1024 + 512, pk, 3, 9, 2);      /* 3.5 s, outbound */
    epb(b, 2, 2500ull, pk, 1, 1, 3);                /* flags 11 -> unknown */
    /* NRB (type 4) and ISB (type 5): skipped; a custom block: skipped, a frame number of its own (Wireshark's frame 4) */
    blk_begin(b, 4); b16(b, 1); b16(b, 4); b32(b, 0x0a000001); b16(b, 0); b16(b, 0); blk_end(b);
    blk_begin(b, 5); b32(b, 0); b32(b, 0); b32(b, 0); blk_end(b);
    blk_begin(b, 0x40000BAD); b32(b, 32473); b32(b, 0x12345678); blk_end(b);
    epb(b, 3, (7ull << 40) | (1ull << 39), pk, 2, 2, 0x1f0);    /* 7.5 s; flags: reception type only */
    epb(b, 4, 2000000000000ull + 250, pk, 4, 4, -1);  /* 2 s + 250 ps -> 2 s, + 100 s */
    /* SPB: interface 0 (snaplen 0 = unlimited) */
    blk_begin(b, 3); b32(b, 6); bput(b, pk, 6); blk_end(b);
    /* OPB (obsolete Packet Block): 16-bit interface id, drops count */
    blk_begin(b, 2); b16(b, 2); b16(b, 0); b32(b, 0); b32(b, 4000); b32(b, 5); b32(b, 5); bput(b, pk, 5); bpad(b);
    b16(b, 2); b16(b, 4); b32(b, 2); b16(b, 0); b16(b, 0); blk_end(b);
    /* second section, little-endian, its own interfaces */
    shb(b, false);
    idb(b, 148, 2, 9, 0);
    blk_begin(b, 3); b32(b, 6); bput(b, pk, 6); blk_end(b); /* SPB: snaplen 2 -> caplen 2 */
    epb(b, 0, 42, pk, 7, 7, 2);
    if (!huge) { *out = b->d; return b->n; }
    /* prepend the regular blocks, then a 2.5 MiB custom block, then one more EPB */
    size_t total = b->n + (5u << 19) + 12 + 64;
    uint8_t *d = malloc(total);
    memcpy(d, b->d, b->n);
    size_t n = b->n;
    uint32_t hl = (5u << 19) + 12;
    uint8_t hdr[8] = { 0xAD, 0x0B, 0x00, 0x40 };
    hdr[4] = (uint8_t)hl; hdr[5] = (uint8_t)(hl >> 8); hdr[6] = (uint8_t)(hl >> 16); hdr[7] = (uint8_t)(hl >> 24);
    memcpy(d + n, hdr, 8);
    memset(d + n + 8, 0x5a, hl - 12);
    memcpy(d + n + hl - 4, hdr + 4, 4);
    n += hl;
    b->n = 0;
    epb(b, 0, 43, pk, 7, 7, 1);
    memcpy(d + n, b->d, b->n);
    n += b->n;
    *out = d;
    return n;
}

static void check_ng_crafted(const ub_rec *r, int n, bool huge)
{
    CHECK_EQ(n, huge ? 10 : 9);
    if (n < 9) return;
    CHECK_EQ(r[0].ts_ns, 1500000000ull); CHECK_EQ(r[0].linktype, 147); CHECK_EQ(r[0].dir, UB_DIR_IN);
    CHECK_EQ(r[0].caplen, 7); CHECK_EQ(r[0].ifindex, 0);
    CHECK_EQ(r[1].ts_ns, 3500000000ull); CHECK_EQ(r[1].linktype, 148); CHECK_EQ(r[1].dir, UB_DIR_OUT);
    CHECK_EQ(r[1].caplen, 3); CHECK_EQ(r[1].origlen, 9); CHECK_EQ(r[1].ifindex, 1);
    CHECK_EQ(r[2].ts_ns, 2500000000ull - 5 * NS); CHECK_EQ(r[2].linktype, 1); CHECK_EQ(r[2].dir, UB_DIR_UNKNOWN);
    CHECK_EQ(r[3].ts_ns, 7500000000ull); CHECK_EQ(r[3].linktype, 149); CHECK_EQ(r[3].dir, UB_DIR_UNKNOWN);
    CHECK_EQ(r[4].ts_ns, 102000000000ull); CHECK_EQ(r[4].linktype, 276); CHECK_EQ(r[4].ifindex, 4);
    CHECK_EQ(r[5].caplen, 6); CHECK_EQ(r[5].origlen, 6); CHECK_EQ(r[5].ifindex, 0); CHECK_EQ(r[5].linktype, 147);
    CHECK_EQ(r[5].ts_ns, 0);
    CHECK_EQ(r[6].ifindex, 2); CHECK_EQ(r[6].linktype, 1); CHECK_EQ(r[6].caplen, 5); CHECK_EQ(r[6].dir, UB_DIR_OUT);
    CHECK_EQ(r[6].ts_ns, 4 * NS - 5 * NS);
    /* second section: interface 0 is now link type 148 with snaplen 2 */
    CHECK_EQ(r[7].linktype, 148); CHECK_EQ(r[7].caplen, 2); CHECK_EQ(r[7].origlen, 6);
    CHECK_EQ(r[8].linktype, 148); CHECK_EQ(r[8].ts_ns, 42); CHECK_EQ(r[8].dir, UB_DIR_OUT);
    CHECK_EQ(r[2].frame, 3); CHECK_EQ(r[3].frame, 5);
    CHECK_EQ(r[8].frame, 10);
    if (huge) { CHECK_EQ(r[9].ts_ns, 43); CHECK_EQ(r[9].dir, UB_DIR_IN); CHECK_EQ(r[9].frame, 12); }
}

static void test_pcapng_crafted(void)
{
    char err[256];
    ub_rec r[16];
    bb *b = calloc(1, sizeof *b);
    uint8_t *d;
    size_t n = build_ng_crafted(b, false, &d);
    const char *p = tpath("crafted.pcapng");
    write_file(p, d, n);
    int k = read_all(p, r, 16, err, sizeof err);
    CHECK_EQ(k, 9); /* 7 records in section 1, 2 in section 2 */
    check_ng_crafted(r, k, false);
    ub_capfile *c = ub_cap_open(p, err, sizeof err);
    CHECK(c && ub_cap_linktype(c) == 147);
    ub_cap_close(c);

    n = build_ng_crafted(b, true, &d);
    write_file(p, d, n);
    k = read_all(p, r, 16, err, sizeof err);
    CHECK_EQ(k, 10);
    check_ng_crafted(r, k, true);
    free(d);
    free(b);
}

/* Blocks Wireshark numbers as frames without a packet, at their size limits: only those of a size
 * Wireshark reads count (tshark 4.0.17: the journal entry, CB, Sysdig 0x204 / 0x216 frames below). */
static void test_pcapng_nonpacket_frames(void)
{
    static const uint8_t pk[4] = { 1, 2, 3, 4 };
    char err[256];
    ub_rec r[4];
    bb *b = calloc(1, sizeof *b);
    shb(b, false); idb(b, 147, 0, -1, 0);
    blk_begin(b, 0x00000BAD); b32(b, 32473); blk_end(b);          /* 16 bytes: frame 1 */
    epb(b, 0, 1, pk, 4, 4, -1);                                   /* frame 2 */
    blk_begin(b, 0x00000BAD); blk_end(b);                         /* 12 bytes, no PEN: not a frame */
    blk_begin(b, 9); bput(b, "__REALTIME_TIMESTAMP=1\nMESSAGE=hi\n", 34); blk_end(b); /* frame 3 */
    blk_begin(b, 9); bput(b, "xxxxxxxxxxxxxxxxxxxxxx\0\0", 24); blk_end(b); /* entry 22 < 23: none */
    blk_begin(b, 9); bput(b, "xxxxxxxxxxxxxxxxxxxxxxx\0", 24); blk_end(b);  /* entry 23: frame 4 */
    blk_begin(b, 0x204); bput(b, pk, 4); blk_end(b);              /* 16 < 36: none */
    blk_begin(b, 0x204); for (int i = 0; i < 6; i++) bput(b, pk, 4); blk_end(b); /* 36: frame 5 */
    blk_begin(b, 0x216); for (int i = 0; i < 6; i++) bput(b, pk, 4); blk_end(b); /* 36 < 40: none */
    blk_begin(b, 0x221); for (int i = 0; i < 7; i++) bput(b, pk, 4); blk_end(b); /* 40: frame 6 */
    blk_begin(b, 0x40000BAD); b32(b, 32473); bput(b, pk, 4); blk_end(b); /* frame 7 */
    blk_begin(b, 0x208); for (int i = 0; i < 7; i++) bput(b, pk, 4); blk_end(b); /* not one */
    epb(b, 0, 2, pk, 4, 4, -1);                                   /* frame 8 */
    const char *p = tpath("nonpacket.pcapng");
    write_file(p, b->d, b->n);
    CHECK_EQ(read_all(p, r, 4, err, sizeof err), 2);
    CHECK_EQ(r[0].frame, 2);
    CHECK_EQ(r[0].ts_ns, 1000);
    CHECK_EQ(r[1].frame, 8);
    CHECK_EQ(r[1].ts_ns, 2000);
    free(b);
}

/* ------------------------------------------------------------------ stdin / pipes */
/* Run `fn` with `data` arriving on stdin through a pipe in uneven chunks. */
static int via_stdin(const uint8_t *data, size_t n, int (*fn)(void *), void *ctx)
{
    int pfd[2];
    if (pipe(pfd) != 0) return -1000;
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        close(pfd[0]);
        size_t off = 0, step = 1;
        while (off < n) {
            size_t k = step < n - off ? step : n - off;
            ssize_t w = write(pfd[1], data + off, k);
            if (w <= 0) _exit(1);
            off += (size_t)w;
            step = step * 7 % 70001 + 1;
        }
        _exit(0);
    }
    close(pfd[1]);
    int saved = dup(0);
    dup2(pfd[0], 0);
    close(pfd[0]);
    int rc = fn(ctx);
    dup2(saved, 0);
    close(saved);
    int st;
    waitpid(pid, &st, 0);
    return rc;
}

typedef struct big_ctx { int nrec; int bad; bool pcapng; char err[256]; } big_ctx;
static uint32_t big_len(int i) { return i == 2000 ? 262144 : (uint32_t)(i * 37 % 1601); }

static int read_big(void *vctx)
{
    big_ctx *x = vctx;
    ub_capfile *c = ub_cap_open("-", x->err, sizeof x->err);
    if (!c) return -1;
    ub_rec r;
    int rc;
    x->pcapng = ub_cap_is_pcapng(c);
    while ((rc = ub_cap_next(c, &r)) == 1) {
        int i = x->nrec++;
        if (r.caplen != big_len(i) || r.ts_ns != (uint64_t)i * 1000003u || r.frame != (uint64_t)i + 1 ||
            memcmp(r.data, pattern((uint32_t)i, r.caplen), r.caplen) != 0)
            x->bad++;
    }
    if (rc < 0) snprintf(x->err, sizeof x->err, "%s", ub_cap_error(c));
    ub_cap_close(c);
    return rc;
}

static void test_stdin(void)
{
    char err[256];
    for (int ng = 0; ng < 2; ng++) {
        const char *p = tpath(ng ? "big.pcapng" : "big.pcap");
        ub_capw *w = ub_capw_open(p, ng, 147, err, sizeof err);
        CHECK(w != NULL);
        if (!w) return;
        for (int i = 0; i < 4000; i++)
            ub_capw_write(w, 0, (uint64_t)i * 1000003u, pattern((uint32_t)i, big_len(i)), big_len(i), 0);
        CHECK_EQ(ub_capw_close(w), 0);
        size_t n;
        uint8_t *d = read_file(p, &n);
        CHECK(n > 3u << 20); /* several read buffers */
        big_ctx x = { 0 };
        CHECK_EQ(via_stdin(d, n, read_big, &x), 0);
        CHECK_EQ(x.nrec, 4000);
        CHECK_EQ(x.bad, 0);
        CHECK_EQ(x.pcapng, ng);
        /* the same from the regular file */
        big_ctx y = { 0 };
        ub_capfile *c = ub_cap_open(p, err, sizeof err);
        ub_rec r;
        while (c && ub_cap_next(c, &r) == 1) {
            int i = y.nrec++;
            if (r.caplen != big_len(i) || memcmp(r.data, pattern((uint32_t)i, r.caplen), r.caplen)) y.bad++;
        }
        ub_cap_close(c);
        CHECK_EQ(y.nrec, 4000);
        CHECK_EQ(y.bad, 0);
        free(d);
    }
}

typedef struct crafted_ctx { ub_rec r[16]; int n; uint8_t first[16][8]; } crafted_ctx;
static int read_crafted(void *vctx)
{
    crafted_ctx *x = vctx;
    char err[256];
    ub_capfile *c = ub_cap_open("-", err, sizeof err);
    if (!c) return -1;
    int rc;
    while ((rc = ub_cap_next(c, &x->r[x->n])) == 1 && x->n < 15) x->n++;
    ub_cap_close(c);
    return rc;
}

static void test_stdin_crafted(void)
{
    bb *b = calloc(1, sizeof *b);
    uint8_t *d;
    size_t n = build_ng_crafted(b, true, &d); /* huge block is skipped while streaming */
    crafted_ctx *x = calloc(1, sizeof *x);
    CHECK_EQ(via_stdin(d, n, read_crafted, x), 0);
    check_ng_crafted(x->r, x->n, true);
    free(x);
    free(d);
    free(b);
}

/* writer to "-" = stdout */
static void test_stdout_writer(void)
{
    char err[256];
    const char *p = tpath("stdout.pcapng");
    fflush(stdout);
    int saved = dup(1);
    FILE *f = fopen(p, "wb");
    dup2(fileno(f), 1);
    fclose(f);
    ub_capw *w = ub_capw_open("-", true, 148, err, sizeof err);
    CHECK(w != NULL);
    if (w) {
        CHECK_EQ(ub_capw_write(w, 0, 5, pattern(1, 10), 10, UB_DIR_IN), 0);
        CHECK_EQ(ub_capw_close(w), 0);
    }
    fflush(stdout);
    dup2(saved, 1);
    close(saved);
    ub_rec r[2];
    CHECK_EQ(read_all(p, r, 2, err, sizeof err), 1);
    CHECK_EQ(r[0].linktype, 148);
    CHECK_EQ(r[0].dir, UB_DIR_IN);
    CHECK_EQ(r[0].ts_ns, 5);
}

/* ------------------------------------------------------------------ hostile files */
/* Block boundaries of a little-endian pcapng file we wrote (or record boundaries of a pcap). */
static size_t boundaries(const uint8_t *d, size_t n, bool ng, size_t *bnd, int *nrec_at, size_t max)
{
    size_t k = 0, off = ng ? 0 : 24;
    int recs = 0;
    if (!ng) { bnd[k] = 24; nrec_at[k++] = 0; }
    while (off + 12 <= n && k < max) {
        uint32_t len;
        if (ng) {
            len = d[off + 4] | (uint32_t)d[off + 5] << 8 | (uint32_t)d[off + 6] << 16 | (uint32_t)d[off + 7] << 24;
            if (d[off] == 6) recs++;
        } else {
            len = 16 + (d[off + 8] | (uint32_t)d[off + 9] << 8 | (uint32_t)d[off + 10] << 16);
            recs++;
        }
        off += len;
        bnd[k] = off;
        nrec_at[k++] = recs;
    }
    return k;
}

static const uint32_t sm_len[] = { 20, 0, 1, 3, 4, 5, 17, 100 };
#define SM_N (sizeof sm_len / sizeof sm_len[0])

static void test_prefixes(bool ng)
{
    char err0[256];
    const char *path = tpath(ng ? "small.pcapng" : "small.pcap");
    ub_capw *w = ub_capw_open(path, ng, 147, err0, sizeof err0);
    if (ng) { ub_capw_add_if(w, 148, "b"); ub_capw_add_if(w, 1, NULL); }
    for (unsigned i = 0; i < SM_N; i++)
        ub_capw_write(w, ng ? ng_if(i) : 0, rt_ts(i), pattern(i, sm_len[i]), sm_len[i], ng_dir(i));
    CHECK_EQ(ub_capw_close(w), 0);
    size_t n;
    uint8_t *d = read_file(path, &n);
    size_t bnd[64];
    int nrec_at[64];
    size_t nb = boundaries(d, n, ng, bnd, nrec_at, 64);
    CHECK(nb > 3);
    CHECK_EQ(bnd[nb - 1], n);
    const char *p = tpath(ng ? "prefix.pcapng" : "prefix.pcap");
    int bad = 0, opened = 0, clean_eof = 0;
    for (size_t len = 0; len <= n; len++) {
        write_file(p, d, len);
        char err[256] = "";
        ub_capfile *c = ub_cap_open(p, err, sizeof err);
        int expect_recs = -1; /* at a boundary: that many records, then EOF */
        for (size_t i = 0; i < nb; i++) if (bnd[i] == len) expect_recs = nrec_at[i];
        if (!c) {
            /* open may only fail before the first packet block */
            if (err[0] == 0 || len >= (ng ? bnd[3] : 24u)) bad++;
            continue;
        }
        opened++;
        ub_rec r;
        int rc, k = 0;
        size_t off_ok = 1;
        while ((rc = ub_cap_next(c, &r)) == 1) {
            if (!r.data || k >= (int)SM_N || r.caplen != sm_len[k] ||
                memcmp(r.data, pattern((uint32_t)k, r.caplen), r.caplen) != 0) off_ok = 0;
            k++;
        }
        if (!off_ok) bad++;
        if (expect_recs >= 0) {
            if (rc != 0 || k != expect_recs) bad++;
            clean_eof++;
        } else {
            if (rc != -1 || ub_cap_error(c)[0] == 0) bad++;
            if (ub_cap_next(c, &r) != -1) bad++; /* sticky */
        }
        ub_cap_close(c);
    }
    CHECK_EQ(bad, 0);
    CHECK(opened > 0);
    CHECK_EQ(clean_eof, (int)nb); /* every block/record boundary is a clean end of file */
    free(d);
}

/* Flip every byte to a few values and read everything: must never crash (ASan/UBSan run). */
static void test_corruption(const char *path)
{
    size_t n;
    uint8_t *d = read_file(path, &n);
    const char *p = tpath("corrupt");
    static const uint8_t vals[] = { 0x00, 0xff, 0x80, 0x7f, 0x01 };
    int outcomes[3] = { 0 };
    size_t lim = n < 700 ? n : 700;
    for (size_t i = 0; i < lim; i++) {
        for (size_t v = 0; v < sizeof vals + 1; v++) {
            uint8_t save = d[i];
            d[i] = v < sizeof vals ? vals[v] : (uint8_t)(save ^ 0x04);
            write_file(p, d, n);
            d[i] = save;
            char err[256];
            ub_capfile *c = ub_cap_open(p, err, sizeof err);
            if (!c) { outcomes[0]++; continue; }
            ub_rec r;
            int rc;
            uint64_t sum = 0;
            while ((rc = ub_cap_next(c, &r)) == 1) for (uint32_t j = 0; j < r.caplen; j++) sum += r.data[j];
            outcomes[rc < 0 ? 1 : 2]++;
            (void)sum;
            ub_cap_close(c);
        }
    }
    CHECK(outcomes[1] > 0 && outcomes[2] > 0);
    free(d);
}

/* One crafted file per bogus-length case; expect `want` records, then an error containing `msg`. */
static void expect_error(const bb *b, int want, const char *msg)
{
    const char *p = tpath("bogus");
    write_file(p, b->d, b->n);
    char err[256] = "";
    ub_capfile *c = ub_cap_open(p, err, sizeof err);
    int k = 0, rc = -1;
    if (c) {
        ub_rec r;
        while ((rc = ub_cap_next(c, &r)) == 1) k++;
        snprintf(err, sizeof err, "%s", ub_cap_error(c));
        ub_cap_close(c);
    }
    CHECK_EQ(k, want);
    CHECK_EQ(rc, -1);
    if (!strstr(err, msg)) {
        fprintf(stderr, "expected error containing \"%s\", got \"%s\"\n", msg, err);
        CHECK(0);
    } else CHECK(1);
}

static void pcap_hdr(bb *b, bool be)
{
    b->n = 0;
    b->be = be;
    b32(b, 0xa1b2c3d4); b16(b, 2); b16(b, 4); b32(b, 0); b32(b, 0); b32(b, 65535); b32(b, 147);
}

static void test_bogus(void)
{
    bb *b = calloc(1, sizeof *b);
    static const uint8_t pk[8] = { 0 };
    /* pcap */
    pcap_hdr(b, false); b32(b, 0); b32(b, 0); b32(b, 0x7fffffff); b32(b, 10); bput(b, pk, 8);
    expect_error(b, 0, "captured length 2147483647");
    pcap_hdr(b, true); b32(b, 0); b32(b, 0); b32(b, 262145); b32(b, 10); bput(b, pk, 8);
    expect_error(b, 0, "exceeds");
    pcap_hdr(b, true); b32(b, 0); b32(b, 0); b32(b, 8); b32(b, 8); bput(b, pk, 8);
    b32(b, 0); b32(b, 0); b32(b, 9); b32(b, 9); bput(b, pk, 8);
    expect_error(b, 1, "truncated record (8 of 9");
    pcap_hdr(b, false); b->d[4] = 1; /* version 1.4 */
    expect_error(b, 0, "unsupported pcap version");
    b->n = 0; bput(b, "\x1f\x8b\x08\x00", 4);
    expect_error(b, 0, "gzip");
    b->n = 0; bput(b, "hello world", 11);
    expect_error(b, 0, "not a pcap or pcapng file");
    b->n = 0; bput(b, "\xd4\xc3", 2);
    expect_error(b, 0, "too short");
    b->n = 0;
    expect_error(b, 0, "empty");
    pcap_hdr(b, false); b->n = 20;
    expect_error(b, 0, "truncated pcap file header");
    /* pcapng */
    b->n = 0; shb(b, false); idb(b, 147, 0, -1, 0); epb(b, 0, 0, pk, 8, 8, -1);
    set32(b, b->n - 20, 40);  /* EPB caplen beyond the block */
    expect_error(b, 0, "captured length 40 beyond the block");
    b->n = 0; shb(b, true); idb(b, 147, 0, -1, 0); epb(b, 1, 0, pk, 8, 8, -1);
    expect_error(b, 0, "unknown interface id 1");
    b->n = 0; shb(b, true); epb(b, 0, 0, pk, 8, 8, -1);
    expect_error(b, 0, "unknown interface id 0 (0 defined)");
    b->n = 0; shb(b, false); blk_begin(b, 3); b32(b, 4); bput(b, pk, 4); blk_end(b);
    expect_error(b, 0, "SPB at offset 28: no interface");
    b->n = 0; shb(b, false); idb(b, 147, 0, -1, 0); blk_begin(b, 3); b32(b, 400); bput(b, pk, 4); blk_end(b);
    expect_error(b, 0, "packet length 400 beyond the block");
    b->n = 0; shb(b, false); idb(b, 147, 0, -1, 0); epb(b, 0, 0, pk, 4, 4, -1); b32(b, 6); b32(b, 0); b32(b, 0);
    expect_error(b, 1, "bad block length 0");  /* zero-length block */
    b->n = 0; shb(b, false); idb(b, 147, 0, -1, 0); b32(b, 6); b32(b, 13); b32(b, 0); b32(b, 0);
    expect_error(b, 0, "bad block length 13");
    b->n = 0; shb(b, false); idb(b, 147, 0, -1, 0); epb(b, 0, 0, pk, 4, 4, -1); b->d[b->n - 4] ^= 4;
    expect_error(b, 0, "trailing length");
    b->n = 0; shb(b, false); idb(b, 147, 0, -1, 0); b32(b, 0x40000BAD); b32(b, 0x7ffffff0); b32(b, 0);
    expect_error(b, 0, "truncated");          /* huge unknown block, file ends */
    b->n = 0; shb(b, false); idb(b, 147, 0, -1, 0); b32(b, 6); b32(b, 0x7ffffff0); b32(b, 0);
    expect_error(b, 0, "too large");           /* huge packet block */
    b->n = 0; shb(b, false); set32(b, 8, 0x11223344);
    expect_error(b, 0, "bad byte-order magic");
    b->n = 0; shb(b, true); b->d[13] = 2;     /* version 2.0 */
    expect_error(b, 0, "unsupported pcapng version 2.0");
    b->n = 0; shb(b, true); idb(b, 147, 0, 20, 0);
    expect_error(b, 0, "unsupported if_tsresol 0x14");
    b->n = 0; shb(b, true); idb(b, 147, 0, 0x80 | 64, 0);
    expect_error(b, 0, "unsupported if_tsresol 0xc0");
    /* option length running past the block */
    b->n = 0; shb(b, false); blk_begin(b, 1); b16(b, 147); b16(b, 0); b32(b, 0); b16(b, 9); b16(b, 100); b32(b, 6);
    blk_end(b);
    expect_error(b, 0, "option 9 length 100 overflows");
    b->n = 0; shb(b, false); idb(b, 147, 0, -1, 0);
    blk_begin(b, 6); b32(b, 0); b32(b, 0); b32(b, 0); b32(b, 0); b32(b, 0); b16(b, 2); b16(b, 4); blk_end(b);
    expect_error(b, 0, "overflows");
    b->n = 0; shb(b, false); idb(b, 147, 0, -1, 0); blk_begin(b, 6); b32(b, 0); blk_end(b);
    expect_error(b, 0, "EPB at offset 52: length 16 < 32");
    b->n = 0; shb(b, false); blk_begin(b, 1); b32(b, 0); blk_end(b);
    expect_error(b, 0, "IDB at offset 28: length 16 < 20");
    b->n = 0; shb(b, false); b32(b, 6); b32(b, 32);
    expect_error(b, 0, "truncated block header at offset 28 (8 bytes)");
    free(b);
    /* open errors name the file */
    char err[256] = "";
    CHECK(ub_cap_open("/nonexistent-dir/x.pcap", err, sizeof err) == NULL);
    CHECK(strstr(err, "/nonexistent-dir/x.pcap: ") == err && strstr(err, "No such file") != NULL);
    CHECK(ub_cap_open(tmpdir, err, sizeof err) == NULL);
    CHECK(strstr(err, "is a directory") != NULL);
    CHECK(ub_cap_open(NULL, err, sizeof err) == NULL);
    CHECK(ub_capw_open("/nonexistent-dir/x.pcap", true, 147, err, sizeof err) == NULL);
    CHECK(strstr(err, "No such file") != NULL);
    CHECK_EQ(ub_cap_next(NULL, NULL), -1);
    CHECK_EQ(ub_capw_write(NULL, 0, 0, NULL, 0, 0), -1);
    ub_cap_close(NULL);
}

/* ------------------------------------------------------------------ Wireshark interoperability */
static bool have_tool(const char *t)
{
    char cmd[128];
    snprintf(cmd, sizeof cmd, "command -v %s >/dev/null 2>&1", t);
    return system(cmd) == 0;
}

static void test_wiretap(const char *pcap, const char *ng)
{
    if (!have_tool("editcap")) { printf("editcap not installed: interoperability checks skipped\n"); return; }
    char cmd[2200], err[256];
    ub_rec a[RT_N + 1], b[RT_N + 1];
    /* pcapng -> pcapng rewritten by wiretap: interfaces, link types, flags, ns timestamps kept */
    const char *out = tpath("editcap.pcapng");
    snprintf(cmd, sizeof cmd, "editcap -F pcapng '%s' '%s' 2>&1", ng, out);
    CHECK_EQ(system(cmd), 0);
    int na = read_all(ng, a, RT_N + 1, err, sizeof err), nb = read_all(out, b, RT_N + 1, err, sizeof err);
    CHECK_EQ(na, RT_N);
    CHECK_EQ(nb, RT_N);
    for (int i = 0; i < na && i < nb; i++) {
        CHECK_EQ(a[i].ts_ns, b[i].ts_ns);
        CHECK_EQ(a[i].caplen, b[i].caplen);
        CHECK_EQ(a[i].ifindex, b[i].ifindex);
        CHECK_EQ(a[i].linktype, b[i].linktype);
        CHECK_EQ(a[i].dir, b[i].dir);
    }
    /* our ns pcap -> wiretap pcapng and nanosecond pcap */
    const char *out2 = tpath("editcap2.pcapng"), *out3 = tpath("editcap3.pcap");
    snprintf(cmd, sizeof cmd, "editcap -F pcapng '%s' '%s' 2>&1 && editcap -F nsecpcap '%s' '%s' 2>&1", pcap, out2,
             pcap, out3);
    CHECK_EQ(system(cmd), 0);
    na = read_all(pcap, a, RT_N + 1, err, sizeof err);
    for (int k = 0; k < 2; k++) {
        nb = read_all(k ? out3 : out2, b, RT_N + 1, err, sizeof err);
        CHECK_EQ(nb, RT_N);
        for (int i = 0; i < na && i < nb; i++) {
            CHECK_EQ(a[i].ts_ns, b[i].ts_ns);
            CHECK_EQ(a[i].caplen, b[i].caplen);
            CHECK_EQ(b[i].linktype, 147);
        }
    }
    /* editcap's µs pcap (magic a1b2c3d4): timestamps truncated to µs */
    const char *out4 = tpath("editcap4.pcap");
    snprintf(cmd, sizeof cmd, "editcap -F pcap '%s' '%s' 2>&1", pcap, out4);
    CHECK_EQ(system(cmd), 0);
    nb = read_all(out4, b, RT_N + 1, err, sizeof err);
    CHECK_EQ(nb, RT_N);
    for (int i = 0; i < na && i < nb; i++) CHECK_EQ(b[i].ts_ns, a[i].ts_ns / 1000 * 1000);
    remove(out); remove(out2); remove(out3); remove(out4);

    if (!have_tool("tshark")) return;
    /* tshark reads our pcapng: interface ids, directions and ns timestamps as written */
    const char *txt = tpath("tshark.txt");
    snprintf(cmd, sizeof cmd,
             "tshark -n -r '%s' -T fields -E separator=, -e frame.interface_id -e frame.packet_flags_direction "
             "-e frame.len -e frame.time_epoch >'%s' 2>/dev/null", ng, txt);
    CHECK_EQ(system(cmd), 0);
    FILE *f = fopen(txt, "r");
    char line[256];
    unsigned i = 0;
    while (f && fgets(line, sizeof line, f)) {
        unsigned ifid, len;
        char dirs[32] = "", ts[64] = "";
        /* direction field is empty when there are no flags */
        char *s = line;
        ifid = (unsigned)strtoul(s, &s, 10);
        if (*s == ',') s++;
        size_t dn = strcspn(s, ",");
        if (dn < sizeof dirs) { memcpy(dirs, s, dn); dirs[dn] = 0; }
        s += dn;
        if (*s == ',') s++;
        len = (unsigned)strtoul(s, &s, 10);
        if (*s == ',') s++;
        snprintf(ts, sizeof ts, "%.*s", (int)strcspn(s, "\n"), s);
        if (i < RT_N) {
            CHECK_EQ(ifid, ng_if(i));
            CHECK_EQ(len, rt_len[i]);
            unsigned dv = ng_dir(i) == 0 ? 0 : (unsigned)strtoul(dirs, NULL, 0);
            CHECK_EQ(dv, ng_dir(i));
            char want[64];
            snprintf(want, sizeof want, "%llu.%09llu", (unsigned long long)(rt_ts(i) / NS),
                     (unsigned long long)(rt_ts(i) % NS));
            CHECK_STR(ts, want);
        }
        i++;
    }
    if (f) fclose(f);
    CHECK_EQ(i, RT_N);
    remove(txt);
}

int main(void)
{
    const char *t = getenv("TMPDIR");
    snprintf(tmpdir, sizeof tmpdir, "%s", t && *t ? t : "/tmp");
    char pcap[700], ng[700];
    snprintf(pcap, sizeof pcap, "%s", tpath("rt.pcap"));
    snprintf(ng, sizeof ng, "%s", tpath("rt.pcapng"));

    test_pcap_roundtrip(pcap);
    test_pcapng_roundtrip(ng);
    test_pcap_crafted();
    test_pcapng_crafted();
    test_pcapng_nonpacket_frames();
    test_stdin();
    test_stdin_crafted();
    test_stdout_writer();
    test_prefixes(false);
    test_prefixes(true);
    test_corruption(tpath("small.pcapng"));
    test_corruption(tpath("small.pcap"));
    test_bogus();
    test_wiretap(pcap, ng);

    static const char *names[] = { "rt.pcap", "rt.pcapng", "crafted.pcap", "kuz.pcap", "crafted.pcapng",
                                   "big.pcap", "big.pcapng", "stdout.pcapng", "prefix.pcap", "prefix.pcapng",
                                   "corrupt", "bogus", "small.pcap", "small.pcapng" };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) remove(tpath(names[i]));
    return ub_test_finish();
}

/* Hostile input: every record of every sample capture, every prefix truncation of it, and single-bit
 * corruptions of every byte, through every printer. Nothing may crash or trip ASan/UBSan; a
 * truncated flit-framed or packet record must carry a typed error; a clean sample must decode clean
 * except where its capture is meant to be malformed. */
#include "ubtest.h"
#include "ubparse/capfile.h"
#include "ubparse/ubparse.h"

#include <dirent.h>
#include <stdlib.h>

static ub_view V;
static FILE *devnull;

static void exercise(const ub_opts *o, ub_entry e, const uint8_t *p, uint32_t n)
{
    char buf[512];
    ub_decode(&V, o, e, p, n);
    ub_summary(&V, buf, sizeof buf);
    ub_error_names(&V, buf, sizeof buf);
    ub_print_tree(devnull, &V);
    ub_print_json(devnull, &V);
    /* every field of every layer through the generic accessor */
    for (unsigned i = 0; i < V.nlayers; i++) {
        const ub_layer *l = &V.layer[i];
        for (unsigned k = 0; k < l->hdr->nfields; k++) {
            ub_val v;
            if (ub_field_value(l, &l->hdr->fields[k], &v) == 0)
                ub_format_value(&l->hdr->fields[k], &v, true, buf, sizeof buf);
        }
    }
}

static void unit(void *ctx, const uint8_t *u, uint32_t n, uint32_t flags)
{
    (void)flags;
    exercise((const ub_opts *)ctx, UB_ENTRY_FLIT, u, n);
}

static void one_file(const char *path, bool noncrc, bool malformed)
{
    char err[256];
    ub_capfile *c = ub_cap_open(path, err, sizeof err);
    CHECK(c != NULL);
    if (!c) { fprintf(stderr, "%s: %s\n", path, err); return; }
    ub_opts o;
    ub_opts_default(&o);
    if (noncrc) o.crc_mode = false;
    static ub_stream st[2];
    ub_stream_init(&st[0], &o);
    ub_stream_init(&st[1], &o);
    ub_rec r;
    unsigned nrec = 0, clean = 0, ndirect = 0;
    static uint8_t copy[70000];
    while (ub_cap_next(c, &r) == 1) {
        nrec++;
        ub_entry e = ub_entry_for_linktype(&o, r.linktype);
        CHECK(e != UB_ENTRY_NONE);
        if (e == UB_ENTRY_STREAM) {
            ub_stream_feed(&st[r.dir == UB_DIR_IN], r.data, r.caplen, unit, &o);
            continue;
        }
        ndirect++;
        uint32_t n = r.caplen < sizeof copy ? r.caplen : (uint32_t)sizeof copy;
        memcpy(copy, r.data, n);
        ub_decode(&V, &o, e, copy, n);
        if (ub_view_worst(&V) < UB_SEV_WARN) clean++;
        else if (!malformed) {
            char names[256];
            ub_error_names(&V, names, sizeof names);
            fprintf(stderr, "%s record %u: %s\n", path, nrec, names);
        }
        /* prefixes: exact-size heap copies so ASan sees any over-read */
        for (uint32_t k = 0; k < n; k++) {
            uint8_t *p = malloc(k ? k : 1);
            memcpy(p, copy, k);
            exercise(&o, e, p, k);
            if ((e == UB_ENTRY_FLIT || e == UB_ENTRY_PKT) && V.nerrs == 0) {
                fprintf(stderr, "%s record %u: prefix %u decoded without an error\n", path, nrec, k);
                CHECK(V.nerrs > 0);
            }
            free(p);
        }
        /* one bit flipped in every byte (bit chosen by position) */
        for (uint32_t k = 0; k < n; k++) {
            copy[k] ^= (uint8_t)(1u << (k % 8));
            exercise(&o, e, copy, n);
            copy[k] ^= (uint8_t)(1u << (k % 8));
        }
    }
    ub_stream_flush(&st[0], unit, &o);
    ub_stream_flush(&st[1], unit, &o);
    CHECK(nrec > 0);
    if (!malformed) CHECK_EQ(clean, ndirect);
    ub_cap_close(c);
}

int main(void)
{
    devnull = fopen("/dev/null", "w");
    const char *dir = UB_SOURCE_DIR "/captures";
    DIR *d = opendir(dir);
    CHECK(d != NULL);
    if (!d) return ub_test_finish();
    struct dirent *de;
    unsigned files = 0;
    while ((de = readdir(d))) {
        size_t l = strlen(de->d_name);
        if (l < 7 || strcmp(de->d_name + l - 7, ".pcapng") != 0) continue;
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
        bool noncrc = strstr(de->d_name, "noncrc") != NULL;
        /* malformed samples and audit scenarios may carry decode errors on purpose */
        bool malformed = strstr(de->d_name, "malformed") != NULL || strncmp(de->d_name, "audit_", 6) == 0;
        one_file(path, noncrc, malformed);
        files++;
    }
    closedir(d);
    CHECK(files >= 10);
    /* pure noise through every entry point */
    ub_opts o;
    ub_opts_default(&o);
    uint32_t x = 12345;
    static uint8_t noise[4096];
    for (int round = 0; round < 2000; round++) {
        uint32_t n = (uint32_t)(round * 7 % 700);
        for (uint32_t i = 0; i < n; i++) { x = x * 1103515245u + 12345u; noise[i] = (uint8_t)(x >> 16); }
        for (int e = UB_ENTRY_FLIT; e <= UB_ENTRY_IP; e++) exercise(&o, (ub_entry)e, noise, n);
    }
    return ub_test_finish();
}

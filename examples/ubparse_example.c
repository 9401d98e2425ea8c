/* A minimal program built against the installed libubparse (docs/library.md):
 *
 *   cc ubparse_example.c $(pkg-config --cflags --libs libubparse) -o ubparse_example
 *   ./ubparse_example capture.pcapng [ub.rtph.psn]
 *
 * Opens a pcap/pcapng file, decodes every record and prints "frame<TAB>value" for each record that
 * carries the field (first occurrence), then "records N, ub M, errors E". SPDX-License-Identifier: GPL-2.0-or-later */
#include <ubparse/capfile.h>
#include <ubparse/ubparse.h>

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    if (argc < 2 || argc > 3) {
        fprintf(stderr, "usage: %s FILE [FIELD]\n", argv[0]);
        return 2;
    }
    const char *field = argc > 2 ? argv[2] : "ub.rtph.psn";
    char err[256];
    ub_capfile *cap = ub_cap_open(argv[1], err, sizeof err);
    if (!cap) {
        fprintf(stderr, "%s\n", err);
        return 1;
    }
    ub_opts opts;
    ub_opts_default(&opts);
    ub_view *v = malloc(sizeof *v); /* a view is large (reassembly buffer): one, reused per record */
    if (!v) {
        ub_cap_close(cap);
        return 1;
    }
    ub_view_init(v);
    uint64_t records = 0, ub = 0, errors = 0;
    ub_rec r;
    int rc;
    while ((rc = ub_cap_next(cap, &r)) == 1) {
        records++;
        ub_entry entry = ub_entry_for_linktype(&opts, r.linktype);
        if (entry == UB_ENTRY_NONE || entry == UB_ENTRY_STREAM) /* streams need ub_stream */
            continue;
        errors += (uint64_t)ub_decode_wire(v, &opts, entry, r.data, r.caplen, r.origlen);
        if (ub_view_ub(v))
            ub++;
        uint64_t val;
        if (ub_view_get(v, field, &val) == 0)
            printf("%" PRIu64 "\t%" PRIu64 "\n", r.frame, val);
    }
    if (rc < 0)
        fprintf(stderr, "%s\n", ub_cap_error(cap));
    printf("records %" PRIu64 ", ub %" PRIu64 ", errors %" PRIu64 "\n", records, ub, errors);
    free(v);
    ub_cap_close(cap);
    return rc < 0;
}

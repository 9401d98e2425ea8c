/* Seed extractor for the decoder fuzzer: writes the records of capture files as separate files
 * named by a hash of their content (duplicates collapse), at most MAX records per capture.
 *   extract OUTDIR MAX FILE...        (built and run by scripts/test.sh) */
#include "ubparse/capfile.h"

#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    if (argc < 4) {
        fprintf(stderr, "usage: extract OUTDIR MAX FILE...\n");
        return 2;
    }
    long max = strtol(argv[2], NULL, 10);
    unsigned long total = 0;
    for (int i = 3; i < argc; i++) {
        char err[512];
        ub_capfile *c = ub_cap_open(argv[i], err, sizeof err);
        if (!c) { fprintf(stderr, "extract: %s\n", err); continue; }
        ub_rec r;
        long n = 0;
        while (n < max && ub_cap_next(c, &r) == 1) {
            uint64_t h = 1469598103934665603ull; /* FNV-1a */
            for (uint32_t k = 0; k < r.caplen; k++) h = (h ^ r.data[k]) * 1099511628211ull;
            char path[1024];
            snprintf(path, sizeof path, "%s/%016llx", argv[1], (unsigned long long)h);
            FILE *f = fopen(path, "wb");
            if (!f) { perror(path); break; }
            if (r.caplen) fwrite(r.data, 1, r.caplen, f);
            fclose(f);
            n++;
        }
        ub_cap_close(c);
        total += (unsigned long)n;
    }
    printf("extract: %lu records from %d captures\n", total, argc - 3);
    return 0;
}

/* -z ub,srt: the service response time table tshark prints with the Wireshark plugin (issue #10 item 3),
 * byte for byte: the plugin registers three SRT tables of 256 rows (dissector/packet-ub-analysis.c
 * ub_srt_init) fed with the engine's request/response matches, and tshark's tap-srt.c draws them.
 *   Transactions    row = request TAOpcode,  label "0x%02x Name"
 *   Management      row = Code (8.. enumeration CMD 0..), label "%u Name" / "%u enumeration CMD %u Name"
 *   Transport acks  row = ack TPOpcode,      label "0x%02x Name"
 * Times: tshark's time_stat (exact ns min/max/sum), printed in µs rounded to nearest as tap-srt.c
 * does (the fraction of min/max rounds on its own: 0.9999996 s prints as "0.1000000", as tshark). */
#include "audit_int.h"

#include <inttypes.h>
#include <string.h>

#include "fh.h"

#define SCAN_CODE 8u /* enumeration matches: Code 8 + CMD (state.h, the plugin's AN_MATCH_SCAN_CODE) */

/* the plugin's row label, trailing blanks removed (g_strchomp) */
static void chomp(char *b)
{
    size_t n = strlen(b);
    while (n && (b[n - 1] == ' ' || b[n - 1] == '\t' || b[n - 1] == '\n')) b[--n] = 0;
}

static void row_label(char *b, size_t n, unsigned g, unsigned k, const fh *fv)
{
    const char *nm;
    if (g == 1 && k >= SCAN_CODE && k < SCAN_CODE + 8) {
        nm = ub_vname_lookup(fh_vals(&fv[3]), k - SCAN_CODE);
        snprintf(b, n, "%u enumeration CMD %u %s", k, k - SCAN_CODE, nm ? nm : "");
    } else if (g == 1) {
        nm = ub_vname_lookup(fh_vals(&fv[1]), k);
        snprintf(b, n, "%u %s", k, nm ? nm : "");
    } else {
        nm = ub_vname_lookup(fh_vals(&fv[g == 0 ? 0 : 2]), k);
        snprintf(b, n, "0x%02x %s", k, nm ? nm : "");
    }
    chomp(b);
}

void ub_srt_ws_print(const ub_latset *s, FILE *f)
{
    static const char *const filt[3] = { "ub.btah.taopcode", "ub.mgmtetah.code", "ub.rtph.tpopcode" };
    static const char *const col[3] = { "TAOpcode", "Code", "TPOpcode" };
    fh fv[4];
    fh_init(&fv[0], "ub.btah.taopcode");
    fh_init(&fv[1], "ub.mgmtetah.code");
    fh_init_tpop(&fv[2]);
    fh_init(&fv[3], "ub.scan.cmd");
    fputs("\n===================================================================\nUB SRT Statistics:\n", f);
    for (unsigned g = 0; g < 3; g++) {
        if (g) fputc('\n', f);
        fprintf(f, "Filter: %s\n", filt[g]);
        fprintf(f, "Index  %-22s Calls    Min SRT    Max SRT    Avg SRT    Sum SRT\n", col[g]);
        for (unsigned k = 0; k < 256; k++) {
            uint64_t num, mn, mx, sum;
            if (!ub_lat_row(s, g, k, &num, &mn, &mx, &sum)) continue;
            char lab[96];
            row_label(lab, sizeof lab, g, k, fv);
            uint64_t su = (sum + 500) / 1000, av = (sum / num + 500) / 1000; /* µs */
            fprintf(f, "%5u  %-22s %6u %3d.%06d %3d.%06d %3d.%06d %3d.%06d\n", k, lab, (unsigned)num,
                    (int)(mn / 1000000000u), (int)((mn % 1000000000u + 500) / 1000), (int)(mx / 1000000000u),
                    (int)((mx % 1000000000u + 500) / 1000), (int)(av / 1000000u), (int)(av % 1000000u),
                    (int)(su / 1000000u), (int)(su % 1000000u));
        }
    }
    fputs("==================================================================\n", f);
}

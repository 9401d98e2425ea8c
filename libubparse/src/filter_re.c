/* Display filters: `matches` through PCRE2, as Wireshark 4.0 (wsutil/regex.c): the pattern with its
 * length (a NUL byte may be in it), PCRE2_CASELESS (case-insensitive unless the pattern says (?-i)) and
 * PCRE2_NEVER_UTF (bytes, not UTF-8 characters; (*UTF) is refused); the subject is the value's bytes.
 * A match that fails with an error (a limit reached) counts as no match, as in Wireshark.
 * Bounded where Wireshark keeps PCRE2's defaults (10,000,000 steps, 20 GB): a match may take
 * UB_RE_MATCH_LIMIT steps of the matcher and UB_RE_HEAP_KIB of backtracking memory; patterns that
 * backtrack exponentially (^(a+)+$, (.*a){12}$ on 9-60 KB values) reach a limit in 12-21 ms here
 * (test_filter checks the limit). PCRE2 caps the compiled size of a pattern. */
#include "filter_int.h"

#include <stdlib.h>

#define UB_RE_MATCH_LIMIT 1000000u
#define UB_RE_HEAP_KIB (16u * 1024u)

ub_re *ub_re_compile(const uint8_t *pat, size_t n, char *err, size_t errlen, size_t *erroff)
{
    int code = 0;
    PCRE2_SIZE off = 0;
    ub_re *re = calloc(1, sizeof *re);
    if (!re) {
        snprintf(err, errlen, "out of memory");
        *erroff = 0;
        return NULL;
    }
    re->code = pcre2_compile(pat, n, PCRE2_CASELESS | PCRE2_NEVER_UTF, &code, &off, NULL);
    if (!re->code) {
        PCRE2_UCHAR m[160];
        if (pcre2_get_error_message(code, m, sizeof m) < 0) snprintf((char *)m, sizeof m, "error %d", code);
        snprintf(err, errlen, "%s", (const char *)m);
        *erroff = off;
        free(re);
        return NULL;
    }
    re->mctx = pcre2_match_context_create(NULL);
    re->md = pcre2_match_data_create(1, NULL);
    if (!re->mctx || !re->md) {
        ub_re_free(re);
        snprintf(err, errlen, "out of memory");
        *erroff = 0;
        return NULL;
    }
    pcre2_set_match_limit(re->mctx, UB_RE_MATCH_LIMIT);
    pcre2_set_heap_limit(re->mctx, UB_RE_HEAP_KIB);
    atomic_init(&re->busy, false);
    return re;
}

bool ub_re_match(const ub_re *cre, const uint8_t *s, size_t n)
{
    /* the compiled filter is shared (const) and may run in several threads at once: the match data it
     * keeps goes to one of them at a time (busy), the others make their own */
    ub_re *re = (ub_re *)cre; /* only busy and md's contents change */
    bool expect = false, mine = atomic_compare_exchange_strong_explicit(&re->busy, &expect, true, memory_order_acquire,
                                                                        memory_order_relaxed);
    pcre2_match_data *md = mine ? re->md : pcre2_match_data_create(1, NULL);
    if (!md) return false;
    static const uint8_t none[1];
    int rc = pcre2_match(re->code, n ? s : none, n, 0, 0, md, re->mctx);
    if (mine) atomic_store_explicit(&re->busy, false, memory_order_release);
    else pcre2_match_data_free(md);
    return rc >= 0;
}

void ub_re_free(ub_re *re)
{
    if (!re) return;
    pcre2_match_data_free(re->md);
    pcre2_match_context_free(re->mctx);
    pcre2_code_free(re->code);
    free(re);
}

/* Minimal assertion helpers for ctest executables. Each failed check prints file:line and the
 * values; main() returns ub_test_finish() which prints "N passed, N failed". */
#ifndef UBTEST_H
#define UBTEST_H
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

static int ub_t_pass, ub_t_fail;

#define CHECK(cond) do { if (cond) ub_t_pass++; else { ub_t_fail++; \
    fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond); } } while (0)
#define CHECK_EQ(a, b) do { unsigned long long ub_a = (unsigned long long)(a), ub_b = (unsigned long long)(b); \
    if (ub_a == ub_b) ub_t_pass++; else { ub_t_fail++; \
    fprintf(stderr, "%s:%d: %s == %s failed: 0x%llx (%llu) != 0x%llx (%llu)\n", __FILE__, __LINE__, \
            #a, #b, ub_a, ub_a, ub_b, ub_b); } } while (0)
#define CHECK_STR(a, b) do { const char *ub_a = (a), *ub_b = (b); \
    if (ub_a && ub_b && strcmp(ub_a, ub_b) == 0) ub_t_pass++; else { ub_t_fail++; \
    fprintf(stderr, "%s:%d: %s == %s failed: \"%s\" != \"%s\"\n", __FILE__, __LINE__, #a, #b, \
            ub_a ? ub_a : "(null)", ub_b ? ub_b : "(null)"); } } while (0)

static inline int ub_test_finish(void)
{
    printf("%d passed, %d failed\n", ub_t_pass, ub_t_fail);
    return ub_t_fail ? 1 : (ub_t_pass ? 0 : 1); /* a test that checked nothing fails */
}

/* parse "00 09 00 8b ..." hex text into buf; returns bytes */
static inline size_t ub_hex(const char *s, uint8_t *buf, size_t cap)
{
    size_t n = 0;
    int hi = -1;
    for (; *s; s++) {
        int c = *s, v;
        if (c >= '0' && c <= '9') v = c - '0';
        else if (c >= 'a' && c <= 'f') v = c - 'a' + 10;
        else if (c >= 'A' && c <= 'F') v = c - 'A' + 10;
        else continue;
        if (hi < 0) hi = v;
        else { if (n < cap) buf[n] = (uint8_t)(hi << 4 | v); n++; hi = -1; }
    }
    return n;
}
#endif

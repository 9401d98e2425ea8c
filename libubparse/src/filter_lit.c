/* Display filters: literals — numbers (decimal, 0x, 0b, octal), byte strings, addresses, seconds and
 * quoted strings with Wireshark 4.0's escapes and raw strings (lit, filter_int.h), for filter.c. */
#include "filter_int.h"

#include <arpa/inet.h>
#include <string.h>

static int hexval(char c)
{
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

static bool word_lit1(const char *w, size_t n, lit *L);

/* a word literal; an address may carry a /prefix (CIDR) */
bool ub_lit_word(const char *w, size_t n, lit *L)
{
    const char *sl = memchr(w, '/', n);
    if (!sl) return word_lit1(w, n, L);
    size_t an = (size_t)(sl - w), pn = n - an - 1;
    if (!word_lit1(w, an, L) || !L->bytes_ok || (L->nbytes != 4 && L->nbytes != 16) || !pn || pn > 3)
        return false;
    unsigned v = 0;
    for (size_t k = 0; k < pn; k++) {
        if (sl[1 + k] < '0' || sl[1 + k] > '9') return false;
        v = v * 10 + (unsigned)(sl[1 + k] - '0');
    }
    if (v > L->nbytes * 8) return false;
    L->prefix = (int)v;
    return true;
}

/* seconds with up to 9 decimals ("0.25", "-1", "3.") as nanoseconds */
bool ub_lit_secs(const char *w, size_t n, int64_t *ns)
{
    size_t k = 0;
    bool neg = false;
    if (k < n && w[k] == '-') { neg = true; k++; }
    uint64_t sec = 0, frac = 0;
    unsigned nd = 0, fd = 0;
    for (; k < n && w[k] >= '0' && w[k] <= '9'; k++, nd++) {
        if (sec > 1000000000000ull) return false;
        sec = sec * 10 + (uint64_t)(w[k] - '0');
    }
    if (k < n && w[k] == '.') {
        for (k++; k < n && w[k] >= '0' && w[k] <= '9'; k++, fd++)
            if (fd < 9) frac = frac * 10 + (uint64_t)(w[k] - '0');
    }
    if (k != n || (!nd && !fd)) return false;
    for (unsigned q = fd; q < 9; q++) frac *= 10;
    int64_t v = (int64_t)(sec * 1000000000u + frac);
    *ns = neg ? -v : v;
    return true;
}

static bool word_lit1(const char *w, size_t n, lit *L)
{
    memset(L, 0, sizeof *L);
    L->prefix = -1;
    /* a lone hex pair is also one byte (Wireshark: eth.src[0] == 02) */
    if (n == 2 && hexval(w[0]) >= 0 && hexval(w[1]) >= 0) {
        L->bytes[0] = (uint8_t)(hexval(w[0]) << 4 | hexval(w[1]));
        L->nbytes = 1;
        L->bytes_ok = true;
    }
    if (n == 4 && memcmp(w, "true", 4) == 0) { L->num_ok = true; L->num = 1; return true; }
    if (n == 5 && memcmp(w, "false", 5) == 0) { L->num_ok = true; return true; }
    /* decimal; octal with a leading 0 (0172 is 122, 08 no number), as Wireshark's */
    size_t i = 0;
    while (i < n && w[i] >= '0' && w[i] <= '9') i++;
    if (i == n && n > 0) {
        const unsigned base = n > 1 && w[0] == '0' ? 8 : 10;
        uint64_t v = 0;
        if (n != 2) L->bytes_ok = false, L->nbytes = 0;
        for (size_t k = 0; k < n; k++) {
            unsigned dg = (unsigned)(w[k] - '0');
            if (dg >= base) return L->bytes_ok; /* 08, 09: only the byte */
            if (v > (UINT64_MAX - dg) / base) return false;
            v = v * base + dg;
        }
        L->num_ok = true;
        L->num = v;
        /* dotted IPv4 handled below; a plain decimal is a number only */
        return true;
    }
    /* 0b binary (Wireshark 4.0): a number */
    size_t nbin = 2;
    while (nbin < n && (w[nbin] == '0' || w[nbin] == '1')) nbin++;
    if (n > 2 && nbin == n && w[0] == '0' && (w[1] == 'b' || w[1] == 'B')) {
        uint64_t v = 0;
        for (size_t k = 2; k < n; k++) {
            if (v >> 63) return false;
            v = v << 1 | (uint64_t)(w[k] - '0');
        }
        L->bytes_ok = false, L->nbytes = 0;
        L->num_ok = true;
        L->num = v;
        return true;
    }
    /* 0x hex: number and byte string */
    if (n > 2 && w[0] == '0' && (w[1] == 'x' || w[1] == 'X')) {
        size_t nd = n - 2;
        for (size_t k = 2; k < n; k++)
            if (hexval(w[k]) < 0) return false;
        uint64_t v = 0;
        size_t sig = 0;
        for (size_t k = 2; k < n; k++) {
            if (sig || w[k] != '0') sig++;
            v = v << 4 | (uint64_t)hexval(w[k]);
        }
        if (sig <= 16) { L->num_ok = true; L->num = v; }
        size_t nb = (nd + 1) / 2;
        if (nb <= LIT_MAX) {
            size_t k = 2;
            unsigned b = 0;
            if (nd % 2) { L->bytes[b++] = (uint8_t)hexval(w[k]); k++; }
            for (; k + 1 < n && b < nb; k += 2) L->bytes[b++] = (uint8_t)(hexval(w[k]) << 4 | hexval(w[k + 1]));
            L->nbytes = (uint32_t)nb;
            L->bytes_ok = true;
        }
        return L->num_ok || L->bytes_ok;
    }
    /* dotted IPv4 */
    {
        unsigned parts = 0, val = 0, digits = 0;
        bool ok = true;
        uint8_t b[4];
        for (size_t k = 0; k <= n && ok; k++) {
            if (k == n || w[k] == '.') {
                if (!digits || val > 255 || parts >= 4) ok = false;
                else b[parts++] = (uint8_t)val;
                val = 0;
                digits = 0;
            } else if (w[k] >= '0' && w[k] <= '9' && digits < 3) {
                val = val * 10 + (unsigned)(w[k] - '0');
                digits++;
            } else {
                ok = false;
            }
        }
        if (ok && parts == 4) {
            memcpy(L->bytes, b, 4);
            L->nbytes = 4;
            L->bytes_ok = true;
            L->num_ok = true;
            L->num = (uint64_t)b[0] << 24 | (uint64_t)b[1] << 16 | (uint64_t)b[2] << 8 | b[3];
            return true;
        }
    }
    /* byte string: hex pairs separated by ':', '.' or '-' (aa:bb:cc), at least one separator */
    {
        size_t k = 0;
        uint32_t nb = 0;
        bool ok = true, sep_seen = false;
        while (k < n && ok) {
            if (k + 1 < n && hexval(w[k]) >= 0 && hexval(w[k + 1]) >= 0 && nb < LIT_MAX) {
                L->bytes[nb++] = (uint8_t)(hexval(w[k]) << 4 | hexval(w[k + 1]));
                k += 2;
                if (k < n) {
                    if (w[k] == ':' || w[k] == '.' || w[k] == '-') { sep_seen = true; k++; if (k == n) ok = false; }
                    else ok = false;
                }
            } else {
                ok = false;
            }
        }
        if (ok && nb && (sep_seen || nb == 1)) {
            L->nbytes = nb;
            L->bytes_ok = true;
            if (nb <= 8 && sep_seen) {
                L->num_ok = true;
                for (uint32_t q = 0; q < nb; q++) L->num = L->num << 8 | L->bytes[q];
            }
            return true;
        }
        if (n != 2) memset(L->bytes, 0, sizeof L->bytes);
    }
    /* IPv6 */
    if (memchr(w, ':', n) && n < 64) {
        char buf[64];
        memcpy(buf, w, n);
        buf[n] = 0;
        uint8_t a6[16];
        if (inet_pton(AF_INET6, buf, a6) == 1) {
            memcpy(L->bytes, a6, 16);
            L->nbytes = 16;
            L->bytes_ok = true;
            return true;
        }
    }
    return false;
}

static void lit_put(lit *L, size_t *o, uint8_t c)
{
    if (*o + 1 < sizeof L->str) L->str[(*o)++] = (char)c;
    else L->str_long = true;
    if (L->nbytes < LIT_MAX) L->bytes[L->nbytes++] = c;
}

/* a string literal's escapes, as Wireshark 4.0's: \a \b \f \n \r \t \v \\ \" \', \x with 1-2 hex digits,
 * 1-3 octal digits (at most \377), \uXXXX and \UXXXXXXXX (UTF-8; not below U+00A0 but $ @ `, not a
 * surrogate, not above U+10FFFF); any other escape is an error (L->esc_err at its backslash) */
void ub_lit_str(const char *s, size_t n, lit *L)
{
    /* s[0] and s[n-1] are the quotes */
    memset(L, 0, sizeof *L);
    L->is_str = true;
    L->prefix = -1;
    L->esc_err = -1;
    size_t o = 0;
    if (s[0] == 'r' || s[0] == 'R') { /* a raw string: every character as written (\" does not end it) */
        for (size_t k = 2; k + 1 < n; k++) lit_put(L, &o, (uint8_t)s[k]);
        L->str[o] = 0;
        L->nstr = (uint32_t)o;
        L->bytes_ok = L->nbytes <= LIT_MAX && o == L->nbytes;
        return;
    }
    for (size_t k = 1; k + 1 < n; k++) {
        unsigned c = (uint8_t)s[k];
        if (c != '\\' || k + 2 >= n) {
            lit_put(L, &o, (uint8_t)c);
            continue;
        }
        const size_t at = k, end = n - 1; /* the escape's backslash; the closing quote */
        c = (uint8_t)s[++k];
        const char *simple = strchr("abfnrtv\\\"'", (int)c);
        if (c && simple) {
            static const uint8_t val[] = { 7, 8, 12, 10, 13, 9, 11, '\\', '"', '\'' };
            lit_put(L, &o, val[simple - "abfnrtv\\\"'"]);
        } else if (c == 'x' && k + 1 < end && hexval(s[k + 1]) >= 0) { /* \xh, \xhh */
            unsigned v = (unsigned)hexval(s[++k]);
            if (k + 1 < end && hexval(s[k + 1]) >= 0) v = v << 4 | (unsigned)hexval(s[++k]);
            lit_put(L, &o, (uint8_t)v);
        } else if (c >= '0' && c <= '7') { /* \o, \oo, \ooo */
            unsigned v = c - '0';
            for (int d = 0; d < 2 && k + 1 < end && s[k + 1] >= '0' && s[k + 1] <= '7'; d++) v = v * 8 + (unsigned)(s[++k] - '0');
            if (v > 255) { L->esc_err = (int)at, L->esc_len = (int)(k + 1 - at), L->esc_kind = 1; return; }
            lit_put(L, &o, (uint8_t)v);
        } else if (c == 'u' || c == 'U') { /* a universal character name: UTF-8 */
            const size_t nd = c == 'u' ? 4 : 8;
            uint32_t cp = 0;
            size_t d = 0;
            for (; d < nd && k + 1 + d < end && hexval(s[k + 1 + d]) >= 0; d++) cp = cp << 4 | (uint32_t)hexval(s[k + 1 + d]);
            if (d < nd || (cp < 0xA0 && cp != 0x24 && cp != 0x40 && cp != 0x60) || (cp >= 0xD800 && cp <= 0xDFFF) || cp > 0x10FFFF) {
                L->esc_err = (int)at, L->esc_len = (int)(2 + d), L->esc_kind = 2;
                return;
            }
            k += nd;
            if (cp < 0x80) lit_put(L, &o, (uint8_t)cp);
            else if (cp < 0x800) lit_put(L, &o, (uint8_t)(0xC0 | cp >> 6)), lit_put(L, &o, (uint8_t)(0x80 | (cp & 0x3F)));
            else if (cp < 0x10000)
                lit_put(L, &o, (uint8_t)(0xE0 | cp >> 12)), lit_put(L, &o, (uint8_t)(0x80 | (cp >> 6 & 0x3F))),
                    lit_put(L, &o, (uint8_t)(0x80 | (cp & 0x3F)));
            else
                lit_put(L, &o, (uint8_t)(0xF0 | cp >> 18)), lit_put(L, &o, (uint8_t)(0x80 | (cp >> 12 & 0x3F))),
                    lit_put(L, &o, (uint8_t)(0x80 | (cp >> 6 & 0x3F))), lit_put(L, &o, (uint8_t)(0x80 | (cp & 0x3F)));
        } else {
            L->esc_err = (int)at, L->esc_len = 2, L->esc_kind = 0;
            return;
        }
    }
    L->str[o] = 0;
    L->nstr = (uint32_t)o;
    L->bytes_ok = L->nbytes <= LIT_MAX && o == L->nbytes;
}


/* gzip input for the capture reader (capgz.h): RFC 1952 members, one after another as gzip(1) writes
 * them when files are concatenated; bytes after the last member that do not start another are ignored,
 * as gzip -d does. One allocation per file (state + input buffer), none per record. */
#include "capgz.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

enum { GZ_IN = 256u * 1024u }; /* input read at a time (more when the opening read brought more) */

struct cap_gz {
    z_stream zs;
    bool in_eof;     /* read() returned 0 */
    bool member_end; /* inflate finished a member: the next byte starts another, or the data ends */
    bool done;       /* no more data */
    uint64_t in_used; /* compressed bytes handed to inflate before the current buffer */
    size_t in_cap;    /* bytes of in[] */
    char msg[200];    /* an error met after some output: returned by the next call */
    uint8_t in[];
};

cap_gz *cap_gz_new(const uint8_t *pre, size_t n, bool eof)
{
    size_t cap = n > GZ_IN ? n : GZ_IN;
    if (cap > UINT32_MAX) return NULL; /* zlib's avail_in */
    cap_gz *z = calloc(1, sizeof *z + cap);
    if (!z) return NULL;
    z->in_cap = cap;
    memcpy(z->in, pre, n);
    z->zs.next_in = z->in;
    z->zs.avail_in = (uInt)n;
    z->in_eof = eof;
    if (inflateInit2(&z->zs, 16 + MAX_WBITS) != Z_OK) { free(z); return NULL; } /* gzip wrapper only */
    return z;
}

uint64_t cap_gz_in_off(const cap_gz *z) { return z->in_used + (uint64_t)(z->zs.next_in - z->in); }

static int refill(cap_gz *z, int fd, char *err, size_t errlen)
{
    while (z->zs.avail_in == 0 && !z->in_eof) {
        ssize_t r = read(fd, z->in, z->in_cap);
        if (r < 0) {
            if (errno == EINTR) continue;
            snprintf(err, errlen, "read error at compressed offset %llu: %s", (unsigned long long)cap_gz_in_off(z),
                     strerror(errno));
            return -1;
        }
        z->in_used += (uint64_t)(z->zs.next_in - z->in);
        z->zs.next_in = z->in;
        z->zs.avail_in = (uInt)r;
        if (r == 0) z->in_eof = true;
    }
    return 0;
}

static ssize_t gz_step(cap_gz *z, int fd, uint8_t *dst, size_t n, char *err, size_t errlen);

/* the bytes inflated before an error are returned first, the error by the next call */
ssize_t cap_gz_read(cap_gz *z, int fd, uint8_t *dst, size_t n, char *err, size_t errlen)
{
    if (z->msg[0]) { snprintf(err, errlen, "%s", z->msg); return -1; }
    if (n > UINT32_MAX) n = UINT32_MAX;
    ssize_t r = gz_step(z, fd, dst, n, z->msg, sizeof z->msg);
    if (r >= 0) return r;
    if (z->zs.avail_out != n) return (ssize_t)(n - z->zs.avail_out);
    snprintf(err, errlen, "%s", z->msg);
    return -1;
}

static ssize_t gz_step(cap_gz *z, int fd, uint8_t *dst, size_t n, char *err, size_t errlen)
{
    z->zs.next_out = dst;
    z->zs.avail_out = (uInt)n;
    while (!z->done && z->zs.avail_out == n) {
        if (refill(z, fd, err, errlen) < 0) return -1;
        if (z->member_end) { /* another member, or the end (trailing bytes that are not one: ignored) */
            if (z->zs.avail_in == 0 || z->zs.next_in[0] != 0x1f) { z->done = true; break; }
            if (z->zs.avail_in == 1 && !z->in_eof) { /* the second magic byte: keep this one, read on */
                z->in[0] = z->zs.next_in[0];
                z->in_used += (uint64_t)(z->zs.next_in - z->in);
                z->zs.next_in = z->in;
                ssize_t r;
                do r = read(fd, z->in + 1, z->in_cap - 1); while (r < 0 && errno == EINTR);
                if (r < 0) { snprintf(err, errlen, "read error: %s", strerror(errno)); return -1; }
                if (r == 0) z->in_eof = true;
                z->zs.avail_in = 1u + (uInt)r;
            }
            if (z->zs.avail_in < 2 || z->zs.next_in[1] != 0x8b) { z->done = true; break; }
            inflateReset(&z->zs);
            z->member_end = false;
        }
        if (z->zs.avail_in == 0) { /* the file ends inside a member */
            snprintf(err, errlen, "compressed data ends early (truncated gzip file, %llu bytes read)",
                     (unsigned long long)cap_gz_in_off(z));
            return -1;
        }
        int rc = inflate(&z->zs, Z_NO_FLUSH);
        if (rc == Z_STREAM_END) z->member_end = true;
        else if (rc != Z_OK && rc != Z_BUF_ERROR) {
            snprintf(err, errlen, "corrupt gzip data at compressed offset %llu: %s", (unsigned long long)cap_gz_in_off(z),
                     z->zs.msg ? z->zs.msg : "inflate failed");
            return -1;
        }
    }
    return (ssize_t)(n - z->zs.avail_out);
}

void cap_gz_free(cap_gz *z)
{
    if (!z) return;
    inflateEnd(&z->zs);
    free(z);
}

/* gzip-compressed capture files (as Wireshark's wiretap reads them): the reader's bytes come through
 * zlib's inflate instead of read(). Internal to capfile.c. */
#ifndef UB_CAPGZ_H
#define UB_CAPGZ_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

typedef struct cap_gz cap_gz;
/* a decompressor whose input starts with the n bytes at pre (already read from the file: the magic);
 * eof: the file had no more. NULL when out of memory. */
cap_gz *cap_gz_new(const uint8_t *pre, size_t n, bool eof);
/* up to n decompressed bytes into dst, reading fd as needed: the count (0 at the end of the data), or -1
 * with a message in err (a read error, corrupt or truncated compressed data) */
ssize_t cap_gz_read(cap_gz *z, int fd, uint8_t *dst, size_t n, char *err, size_t errlen);
/* compressed bytes consumed so far (for messages) */
uint64_t cap_gz_in_off(const cap_gz *z);
void cap_gz_free(cap_gz *z);
#endif

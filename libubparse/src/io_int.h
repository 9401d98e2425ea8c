/* Helpers shared by io.c (endpoints) and io_sys.c (addresses, interfaces, capabilities). */
#ifndef UB_IO_INT_H
#define UB_IO_INT_H
#include "ubparse/io.h"

#include <stdbool.h>
#include <stddef.h>
#include <sys/socket.h>

/* err <- fmt with a (and strerror(e) when e != 0) */
void uio_seterr(char *err, size_t n, const char *fmt, const char *a, int e);
/* an IPv4-mapped IPv6 address becomes IPv4 */
void uio_addr_norm(ub_io_addr *a);
/* in as a socket address of the given family (IPv4 mapped into IPv6 when needed) */
void uio_addr_to_family(const ub_io_addr *in, int family, struct sockaddr_storage *out, socklen_t *len);
/* the wildcard address (or none) */
bool uio_addr_is_any(const ub_io_addr *a);

#endif

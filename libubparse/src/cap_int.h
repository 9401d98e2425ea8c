/* A capture reader over a record source instead of a file (caplive.c: live capture). Internal. */
#ifndef UB_CAP_INT_H
#define UB_CAP_INT_H
#include "ubparse/capfile.h"

typedef struct ub_cap_src {
    /* 1 = a record in *r (the reader numbers it), 0 = the end, -1 = error (message in err) */
    int (*next)(void *ctx, ub_rec *r, char *err, size_t errlen);
    void (*stats)(void *ctx, uint64_t *received, uint64_t *dropped);
    void (*close)(void *ctx);
} ub_cap_src;
/* one interface (ifname, linktype, snaplen, ns timestamps), as a pcapng section shows it; the reader owns
 * ctx from here (closes it with the reader, also when this fails: NULL with a message) */
ub_capfile *ub_cap_open_src(const ub_cap_src *s, void *ctx, const char *ifname, uint32_t linktype, uint32_t snaplen,
                            char *err, size_t errlen);
/* the ctx of a reader over source s (NULL: c reads something else) */
void *ub_cap_src_ctx(const ub_capfile *c, const ub_cap_src *s);
#endif

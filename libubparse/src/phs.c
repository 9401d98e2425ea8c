/* -z io,phs[,FILTER] (iostat.h): tshark's protocol hierarchy statistics. A frame counts once on each
 * protocol of its path (Wireshark's frame.protocols, filter.h ub_ws_protocols, less the protocols that
 * put no item in the tree: "ethertype", and the plugin's SUE dissector where it handed the payload to
 * InfiniBand, IGMP's version item (igmp:igmp), IPv6's extension headers; MPLS once per label, not per
 * stack; and what follows ICMP / ICMPv6, an echo's data or an error's quoted IP and UDP/TCP headers,
 * which sit in ICMP's tree, not the frame's: the quoted payload's data is the frame's again); children
 * print in the order they were first seen, as tshark's tap does. */
#include "ubparse/iostat.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#define PHS_MAXNODE 65536u /* distinct paths kept (a path past it counts on its known part) */
#define PHS_DEPTH 32u      /* protocols of a path counted (Wireshark's own stack limit is far above any UB frame) */

typedef struct node {
    const char *name; /* static (ub_ws_protocols) */
    uint64_t frames, bytes;
    uint32_t child, next; /* indices + 1, 0: none */
} node;

struct ub_phs {
    char *text; /* the filter, NULL: every frame */
    ub_filter *f;
    ub_filter_acc *acc;
    node *n;
    uint32_t nn, cap;
    uint32_t roots; /* first top-level node + 1 */
    const char *tok[PHS_DEPTH];
    unsigned ntok; /* the frame's path (its first view's), while the frame is open */
    bool have;
    bool frame; /* every path starts with "frame" (ub_phs_show_frame) */
};

ub_phs *ub_phs_new(const char *spec, char *err, size_t errlen)
{
    if (err && errlen) err[0] = 0;
    if (!spec || strncmp(spec, "io,phs", 6) != 0 || (spec[6] && spec[6] != ',')) {
        snprintf(err, errlen, "expected io,phs[,FILTER]");
        return NULL;
    }
    ub_phs *p = calloc(1, sizeof *p);
    if (!p) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    const char *expr = spec[6] ? spec + 7 : ""; /* the rest, commas included, as tshark reads it */
    if (*expr) {
        char ferr[256];
        if (!(p->text = strdup(expr)) || !(p->f = ub_filter_compile(expr, ferr, sizeof ferr)) || !(p->acc = ub_filter_acc_new(p->f))) {
            snprintf(err, errlen, "io,phs: %s", p->text && !p->f ? ferr : "out of memory");
            ub_phs_free(p);
            return NULL;
        }
    }
    return p;
}

bool ub_phs_uses_analysis(const ub_phs *p) { return p && ub_filter_uses_analysis(p->f); }
bool ub_phs_uses_frame(const ub_phs *p) { return p && ub_filter_uses_frame(p->f); }
void ub_phs_show_frame(ub_phs *p, bool on) { p->frame = on; }

void ub_phs_view(ub_phs *p, const ub_view *v, const ub_filter_pkt *pk)
{
    if (p->acc) ub_filter_acc_add(p->acc, v, pk);
    if (p->have) return; /* a flit-stream record: its first unit's path */
    const char *all[UB_MAX_LAYERS];
    unsigned k = ub_ws_protocols(v, all, UB_MAX_LAYERS);
    p->ntok = 0;
    if (p->frame) p->tok[p->ntok++] = "frame";
    unsigned ml = 0; /* the view's layers looked at for MPLS label stacks */
    for (unsigned i = 0; i < k && p->ntok < PHS_DEPTH; i++) {
        if (strcmp(all[i], "mpls") == 0) { /* one "mpls" in frame.protocols, one tree item per label in Wireshark */
            while (ml < v->nlayers && ml < UB_MAX_LAYERS && !(v->layer[ml].hdr && v->layer[ml].hdr->id == UB_H_MPLS)) ml++;
            do p->tok[p->ntok++] = all[i];
            while (++ml < v->nlayers && ml < UB_MAX_LAYERS && v->layer[ml].hdr && v->layer[ml].hdr->id == UB_H_MPLS &&
                   p->ntok < PHS_DEPTH);
            continue;
        }
        if (strcmp(all[i], "ethertype") == 0) continue;
        if (strcmp(all[i], "sue") == 0 && i + 1 < k && strcmp(all[i + 1], "infiniband") == 0) continue;
        if (i && strcmp(all[i], "igmp") == 0 && strcmp(all[i - 1], "igmp") == 0) continue; /* the version's item: in IGMP's tree */
        if (strncmp(all[i], "ipv6.", 5) == 0 || (strcmp(all[i], "ah") == 0 && p->ntok && strcmp(p->tok[p->ntok - 1], "ipv6") == 0))
            continue; /* IPv6's extension headers (an AH after IPv6 too): in its tree */
        p->tok[p->ntok++] = all[i];
        if (strcmp(all[i], "icmp") == 0 || strcmp(all[i], "icmpv6") == 0) { /* the rest is in ICMP's tree, */
            if (v->neigh & UB_VN_QUOTED_UB) { /* but the UB plugin's item for a quoted UB datagram, */
                if (p->ntok < PHS_DEPTH) p->tok[p->ntok++] = "ub";
                break;
            }
            for (unsigned k = 0; k < v->nlayers && k < UB_MAX_LAYERS && p->ntok < PHS_DEPTH; k++) /* or a quote's payload */
                if (v->layer[k].hdr && v->layer[k].hdr->id == UB_H_DATA && (v->layer[k].flags & UB_LF_QUOTED)) {
                    p->tok[p->ntok++] = "data";
                    break;
                }
            break;
        }
    }
    p->have = true;
}

/* the child of parent (index + 1, 0: the top level) named name, added when new; 0 when full */
static uint32_t child_of(ub_phs *p, uint32_t parent, const char *name)
{
    uint32_t *link = parent ? &p->n[parent - 1].child : &p->roots;
    while (*link) {
        if (strcmp(p->n[*link - 1].name, name) == 0) return *link;
        link = &p->n[*link - 1].next;
    }
    if (p->nn == p->cap) {
        uint32_t nc = p->cap ? p->cap * 2 : 64;
        if (nc > PHS_MAXNODE) nc = PHS_MAXNODE;
        if (nc == p->cap) return 0;
        node *nn = realloc(p->n, nc * sizeof *nn);
        if (!nn) return 0;
        p->n = nn;
        p->cap = nc;
        link = parent ? &p->n[parent - 1].child : &p->roots; /* the array moved */
        while (*link) link = &p->n[*link - 1].next;
    }
    p->n[p->nn] = (node){ name, 0, 0, 0, 0 };
    *link = ++p->nn;
    return *link;
}

void ub_phs_frame(ub_phs *p, const ub_filter_pkt *pk)
{
    if (p->have && (!p->acc || ub_filter_acc_match(p->acc, pk))) {
        uint32_t at = 0;
        for (unsigned i = 0; i < p->ntok; i++) {
            if (!(at = child_of(p, at, p->tok[i]))) break;
            p->n[at - 1].frames++;
            p->n[at - 1].bytes += pk->len;
        }
    }
    if (p->acc) ub_filter_acc_reset(p->acc);
    p->have = false;
}

static void draw(const ub_phs *p, uint32_t at, unsigned depth, FILE *out)
{
    for (; at; at = p->n[at - 1].next) {
        const node *x = &p->n[at - 1];
        char s[80];
        size_t o = 0;
        for (unsigned i = 0; i < depth; i++) { /* tshark: two spaces a level, "..." past 16 */
            if (i > 15) {
                o += (size_t)snprintf(s + o, sizeof s - o, "...");
                break;
            }
            o += (size_t)snprintf(s + o, sizeof s - o, "  ");
        }
        snprintf(s + o, sizeof s - o, "%s", x->name);
        fprintf(out, "%-40s frames:%" PRIu64 " bytes:%" PRIu64 "\n", s, x->frames, x->bytes);
        draw(p, x->child, depth + 1, out);
    }
}

void ub_phs_print(const ub_phs *p, FILE *out)
{
    fprintf(out, "\n===================================================================\n");
    fprintf(out, "Protocol Hierarchy Statistics\nFilter: %s\n\n", p->text ? p->text : "");
    draw(p, p->roots, 0, out);
    fprintf(out, "===================================================================\n");
}

void ub_phs_free(ub_phs *p)
{
    if (!p) return;
    ub_filter_acc_free(p->acc);
    ub_filter_free(p->f);
    free(p->text);
    free(p->n);
    free(p);
}

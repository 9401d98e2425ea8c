/* Printers over the packet view: verbose tree, JSON (the one-line summary: summary.c).
 * Everything is driven by the schema tables. */
#include "internal.h"
#include "sumfmt.h"

#include <inttypes.h>

#define fv ub_fv

/* ---------------------------------------------------------------- verbose tree */
static void print_field(FILE *f, const ub_layer *l, const ub_field *fd, int indent)
{
    ub_val v;
    char buf[1024];
    if (ub_field_value(l, fd, &v) != 0) return;
    ub_format_value(fd, &v, true, buf, sizeof buf);
    fprintf(f, "%*s%s: %s\n", indent, "", fd->name, buf);
}

/* decoded hop list of a Scan Header Forward Path / Return Path (§10.4.3.2, R-32) */
static void print_path(FILE *f, const ub_view *v, unsigned li, int indent)
{
    const ub_layer *l = &v->layer[li];
    int hi = (int)li;
    while (hi >= 0 && v->layer[hi].hdr->id != UB_H_SCANHDR) hi--;
    if (hi < 0) return;
    const ub_layer *h = &v->layer[hi];
    unsigned hops = (unsigned)fv(h, "hops"), type = (unsigned)fv(h, "type");
    unsigned w = type == 0 ? 4 : type == 1 ? 8 : type == 2 ? 16 : 0;
    const ub_field *pf = &l->hdr->fields[l->hdr->id == UB_H_SCANHDR ? ub_field_index(l->hdr, "forward_path")
                                                                       : ub_field_index(l->hdr, "return_path")];
    ub_val pv;
    if (!w || hops == 0 || ub_field_value(l, pf, &pv) != 0) return;
    if ((uint64_t)4 * ((hops * w + 31) / 32) > pv.nbytes) return;
    fprintf(f, "%*s%s entries:", indent, "", l->hdr->id == UB_H_SCANHDR ? "Forward Path" : "Return Path");
    for (unsigned i = 0; i < hops; i++)
        fprintf(f, " %u", ub_scan_path_entry(pv.bytes, i, w, v->opts ? v->opts->scan_packing : 0));
    fputc('\n', f);
}

void ub_print_tree(FILE *f, const ub_view *v)
{
    for (unsigned i = 0; i < v->nlayers; i++) {
        const ub_layer *l = &v->layer[i];
        int ind = 4 * l->depth;
        char cut[64] = "";
        if (l->flags & UB_LF_TRUNC)
            snprintf(cut, sizeof cut, l->wlen > l->len ? " [%u on the wire, cut by the snapshot length]" : " [truncated]",
                     l->wlen);
        char hsum[256]; /* the Wireshark tree item's text: "Reliable Transport Header, RTP data, PSN 17, ..." */
        if (!ub_layer_summary(l, hsum, sizeof hsum)) snprintf(hsum, sizeof hsum, "%s", l->hdr->name);
        fprintf(f, "%*s%s (%s%s), %u byte%s%s%s\n", ind, "", hsum, ub_hdr_ns(l->hdr), l->hdr->abbrev, l->len,
                l->len == 1 ? "" : "s", (l->flags & UB_LF_NETBUF) ? " [reassembled]" : "", cut);
        for (unsigned k = 0; k < l->hdr->nfields; k++) print_field(f, l, &l->hdr->fields[k], ind + 4);
        if (l->hdr->id == UB_H_SCANHDR || l->hdr->id == UB_H_SCAN_RPATH) print_path(f, v, i, ind + 4);
    }
    for (unsigned i = 0; i < v->nerrs; i++) {
        const ub_err *e = &v->err[i];
        const ub_err_info *ei = ub_err_get(e->code);
        const ub_hdr *h = ub_hdr_get(e->hdr);
        static const char *sev[] = { "note", "warning", "error" };
        fprintf(f, "[%s] %s at byte %u in %s: %s", ei ? sev[ei->severity] : "?", ei ? ei->name : "?", e->off,
                h ? h->key : "-", e->what ? e->what : (ei ? ei->desc : ""));
        if (e->actual || e->expected)
            fprintf(f, " (found 0x%" PRIx64 ", expected 0x%" PRIx64 ")", e->actual, e->expected);
        fputc('\n', f);
    }
    if (v->errs_dropped) fprintf(f, "[note] %u more errors not shown\n", v->errs_dropped);
}

/* ---------------------------------------------------------------- JSON */
static void json_str(FILE *f, const char *s)
{
    fputc('"', f);
    for (; s && *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\') { fputc('\\', f); fputc(c, f); }
        else if (c < 0x20) fprintf(f, "\\u%04x", c);
        else fputc(c, f);
    }
    fputc('"', f);
}

void ub_print_json(FILE *f, const ub_view *v)
{
    fputs(ub_view_ub(v) ? "{" : "{\"ub\":false,", f);
    if (v->wire_len > v->rec_len) fprintf(f, "\"wire_length\":%u,", v->wire_len);
    fputs("\"layers\":[", f);
    for (unsigned i = 0; i < v->nlayers; i++) {
        const ub_layer *l = &v->layer[i];
        fprintf(f, "%s{\"header\":\"%s\",\"table\":\"%s\",\"offset\":%u,\"length\":%u,\"depth\":%u%s,\"fields\":{",
                i ? "," : "", l->hdr->abbrev, l->hdr->key, l->off, l->len, l->depth,
                (l->flags & UB_LF_TRUNC) ? ",\"truncated\":true" : "");
        bool first = true;
        for (unsigned k = 0; k < l->hdr->nfields; k++) {
            const ub_field *fd = &l->hdr->fields[k];
            ub_val val;
            if (ub_field_value(l, fd, &val) != 0) continue;
            fprintf(f, "%s\"%s\":", first ? "" : ",", fd->abbrev);
            first = false;
            if (fd->type == UB_FT_UINT || fd->type == UB_FT_BOOL) {
                const char *nm = ub_vname_lookup(fd->vals, val.u);
                if (nm) {
                    fprintf(f, "{\"value\":%" PRIu64 ",\"name\":", val.u);
                    json_str(f, nm);
                    fputc('}', f);
                } else {
                    fprintf(f, "%" PRIu64, val.u);
                }
            } else {
                char buf[2100];
                ub_format_value(fd, &val, false, buf, sizeof buf);
                json_str(f, buf);
            }
        }
        fputs("}}", f);
    }
    fputs("],\"errors\":[", f);
    for (unsigned i = 0; i < v->nerrs; i++) {
        const ub_err *e = &v->err[i];
        const ub_err_info *ei = ub_err_get(e->code);
        const ub_hdr *h = ub_hdr_get(e->hdr);
        static const char *sev[] = { "note", "warning", "error" };
        fprintf(f, "%s{\"name\":\"%s\",\"severity\":\"%s\",\"header\":\"%s\",\"offset\":%u,\"actual\":%" PRIu64
                   ",\"expected\":%" PRIu64 ",\"what\":",
                i ? "," : "", ei ? ei->name : "?", ei ? sev[ei->severity] : "?", h ? h->key : "", e->off, e->actual,
                e->expected);
        json_str(f, e->what ? e->what : (ei ? ei->desc : ""));
        fputc('}', f);
    }
    fputs("]}", f);
}

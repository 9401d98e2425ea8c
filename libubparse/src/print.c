/* Printers over the packet view: verbose tree, JSON (the one-line summary: summary.c).
 * Everything is driven by the schema tables. */
#include "internal.h"
#include "sumfmt.h"

#include <inttypes.h>
#include <stdarg.h>

/* ---------------------------------------------------------------- verbose tree */
/* The tree's text goes through a buffer written with one fwrite when full and at the end (no printf
 * per field): the bytes of the fprintf calls it stands for. */
typedef ub_obuf tout;
#define to_flush ub_obuf_flush
#define to_put ub_obuf_put

void ub_obuf_flush(ub_obuf *o)
{
    if (o->n) fwrite(o->p, 1, o->n, o->f);
    o->n = 0;
}

void ub_obuf_spill(ub_obuf *o, const char *s, size_t len)
{
    ub_obuf_flush(o);
    if (len > o->cap) {
        fwrite(s, 1, len, o->f);
        return;
    }
    memcpy(o->p, s, len);
    o->n = len;
}

static void to_str(tout *o, const char *a) { to_put(o, a ? a : "(null)", strlen(a ? a : "(null)")); } /* "%s" */
static void to_spaces(tout *o, int n)
{
    static const char sp[] = "                                                                ";
    for (; n > 0; n -= (int)(sizeof sp - 1)) to_put(o, sp, n < (int)(sizeof sp - 1) ? (size_t)n : sizeof sp - 1);
}

static void to_printf(tout *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void to_printf(tout *o, const char *fmt, ...)
{
    char t[1024];
    va_list ap;
    va_start(ap, fmt);
    int k = vsnprintf(t, sizeof t, fmt, ap);
    va_end(ap);
    if (k >= 0 && (size_t)k < sizeof t) {
        to_put(o, t, (size_t)k);
        return;
    }
    to_flush(o); /* longer than the buffer: as it was */
    va_start(ap, fmt);
    vfprintf(o->f, fmt, ap);
    va_end(ap);
}

/* room for len bytes at the buffer's end (flushed first if needed); NULL if it never fits */
static char *to_room(tout *o, size_t len)
{
    if (o->n + len > o->cap) {
        to_flush(o);
        if (len > o->cap) return NULL;
    }
    char *p = o->p + o->n;
    o->n += len;
    return p;
}

static void print_field(tout *o, const ub_layer *l, const ub_field *fd, int indent)
{
    ub_val v;
    char buf[1024];
    if (ub_field_value(l, fd, &v) != 0) return;
    /* ub_format_value(names = true) is the value's text, then for an integer with a value name " (<name>)"
     * as snprintf cuts it: the name is appended here, without snprintf */
    bool num = fd->type == UB_FT_UINT || fd->type == UB_FT_BOOL;
    size_t bl = ub_format_value(fd, &v, !num, buf, sizeof buf);
    const char *nm = num ? ub_vname_lookup(fd->vals, v.u) : NULL;
    if (bl >= sizeof buf || !num) bl = strlen(buf);
    if (nm) {
        size_t ml = strlen(nm);
        char *e = buf + bl, *end = buf + sizeof buf - 1;
        if (e < end) *e++ = ' ';
        if (e < end) *e++ = '(';
        size_t c = ml < (size_t)(end - e) ? ml : (size_t)(end - e);
        memcpy(e, nm, c);
        e += c;
        if (e < end) *e++ = ')';
        *e = '\0';
        bl = (size_t)(e - buf);
    }
    const char *name = fd->name ? fd->name : "(null)"; /* "%*s%s: %s\n" */
    size_t nl = strlen(name), in = indent > 0 ? (size_t)indent : 0;
    char *p = to_room(o, in + nl + 2 + bl + 1);
    if (!p) {
        to_spaces(o, indent);
        to_put(o, name, nl);
        to_put(o, ": ", 2);
        to_put(o, buf, bl);
        to_put(o, "\n", 1);
        return;
    }
    memset(p, ' ', in);
    p += in;
    memcpy(p, name, nl);
    p += nl;
    *p++ = ':';
    *p++ = ' ';
    memcpy(p, buf, bl);
    p[bl] = '\n';
}

/* decoded hop list of a Scan Header Forward Path / Return Path (§10.4.3.2, R-32) */
static void print_path(tout *o, const ub_view *v, unsigned li, int indent)
{
    const ub_layer *l = &v->layer[li];
    int hi = (int)li;
    while (hi >= 0 && v->layer[hi].hdr->id != UB_H_SCANHDR) hi--;
    if (hi < 0) return;
    const ub_layer *h = &v->layer[hi];
    unsigned hops = (unsigned)ub_lget(h, SH_HOPS), type = (unsigned)ub_lget(h, SH_TYPE);
    unsigned w = type == 0 ? 4 : type == 1 ? 8 : type == 2 ? 16 : 0;
    const ub_field *pf = &l->hdr->fields[l->hdr->id == UB_H_SCANHDR ? SH_FPATH : 0]; /* scan_rpath: one row */
    ub_val pv;
    if (!w || hops == 0 || ub_field_value(l, pf, &pv) != 0) return;
    if ((uint64_t)4 * ((hops * w + 31) / 32) > pv.nbytes) return;
    to_printf(o, "%*s%s entries:", indent, "", l->hdr->id == UB_H_SCANHDR ? "Forward Path" : "Return Path");
    for (unsigned i = 0; i < hops; i++)
        to_printf(o, " %u", ub_scan_path_entry(pv.bytes, i, w, v->opts ? v->opts->scan_packing : 0));
    to_put(o, "\n", 1);
}

static bool in_set(const uint64_t *set, unsigned id)
{
    return !set || (id < UB_H__COUNT && (set[id / 64] >> (id % 64) & 1u));
}

void ub_print_tree(FILE *f, const ub_view *v) { ub_print_tree_sel(f, v, NULL); }

void ub_print_tree_sel(FILE *f, const ub_view *v, const uint64_t *detail)
{
    char buf[8192];
    tout o = { f, buf, 0, sizeof buf };
    for (unsigned i = 0; i < v->nlayers; i++) {
        const ub_layer *l = &v->layer[i];
        int ind = 4 * l->depth;
        char cut[64] = "";
        if (l->flags & UB_LF_TRUNC)
            snprintf(cut, sizeof cut,
                     l->wlen <= l->len                ? " [truncated]"
                     : l->flags & UB_LF_QUOTED ? " [%u in the datagram, the rest not quoted]" /* an ICMP error's quote */
                                                        : " [%u on the wire, cut by the snapshot length]",
                     l->wlen);
        char hsum[256]; /* the Wireshark tree item's text: "Reliable Transport Header, RTP data, PSN 17, ..." */
        if (!ub_layer_summary(l, hsum, sizeof hsum)) snprintf(hsum, sizeof hsum, "%s", l->hdr->name);
        /* "%*s%s (%s%s), %u byte%s%s%s\n" */
        char num[20];
        to_spaces(&o, ind);
        to_str(&o, hsum);
        to_put(&o, " (", 2);
        to_str(&o, ub_hdr_ns(l->hdr));
        to_str(&o, l->hdr->abbrev);
        to_put(&o, "), ", 3);
        to_put(&o, num, ub_u64_dec(num, l->len));
        to_str(&o, l->len == 1 ? " byte" : " bytes");
        if (l->flags & UB_LF_NETBUF) to_str(&o, " [reassembled]");
        to_str(&o, cut);
        to_put(&o, "\n", 1);
        if (!in_set(detail, l->hdr->id)) continue;
        for (unsigned k = 0; k < l->hdr->nfields; k++) print_field(&o, l, &l->hdr->fields[k], ind + 4);
        if (l->hdr->id == UB_H_SCANHDR || l->hdr->id == UB_H_SCAN_RPATH) print_path(&o, v, i, ind + 4);
    }
    for (unsigned i = 0; i < v->nerrs; i++) {
        const ub_err *e = &v->err[i];
        if (e->hdr && !in_set(detail, e->hdr)) continue;
        const ub_err_info *ei = ub_err_get(e->code);
        const ub_hdr *h = ub_hdr_get(e->hdr);
        static const char *sev[] = { "note", "warning", "error" };
        to_printf(&o, "[%s] %s at byte %u in %s: %s", ei ? sev[ei->severity] : "?", ei ? ei->name : "?", e->off,
                  h ? h->key : "-", e->what ? e->what : (ei ? ei->desc : ""));
        if (e->actual || e->expected)
            to_printf(&o, " (found 0x%" PRIx64 ", expected 0x%" PRIx64 ")", e->actual, e->expected);
        to_put(&o, "\n", 1);
    }
    if (v->errs_dropped) to_printf(&o, "[note] %u more errors not shown\n", v->errs_dropped);
    to_flush(&o);
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

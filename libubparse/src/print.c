/* Printers over the packet view: one-line summary (Info column), verbose tree, JSON.
 * Everything is driven by the schema tables; no field is named here except to pick what the
 * one-line summary shows. */
#include "internal.h"
#include "neigh.h"
#include "sumfmt.h"

#include <inttypes.h>
#include <stdarg.h>

static const ub_layer *find(const ub_view *v, unsigned id)
{
    int i = ub_view_find(v, id, 0);
    return i < 0 ? NULL : &v->layer[i];
}

#define fv ub_fv
#define sb ub_sb
typedef ub_sbuf sbuf;

uint64_t ub_fv(const ub_layer *l, const char *short_name)
{
    if (!l) return 0;
    int i = ub_field_index(l->hdr, short_name);
    return i < 0 ? 0 : ub_lget(l, (unsigned)i);
}

static const char *vname(const ub_layer *l, const char *short_name, uint64_t v)
{
    if (!l) return NULL;
    int i = ub_field_index(l->hdr, short_name);
    return i < 0 ? NULL : ub_vname_lookup(l->hdr->fields[i].vals, v);
}

/* the directives of this file: %s %d %u %x with '0', a width or '*', and l / ll (PRIu64, PRIx64) */
static bool sb_simple(const char *fmt)
{
    for (const char *p = fmt; (p = strchr(p, '%')) != NULL;) {
        p++;
        if (*p == '0') p++;
        if (*p == '*') p++;
        else while (*p >= '0' && *p <= '9') p++;
        while (*p == 'l') p++;
        if (*p != 's' && *p != 'd' && *p != 'u' && *p != 'x') return false;
        p++;
    }
    return true;
}

static void sb_putc(sbuf *s, size_t start, char c)
{
    if (start < s->n && s->w + 1 < s->n) s->b[s->w] = c;
    s->w++;
}

static void sb_put(sbuf *s, size_t start, const char *a, size_t len)
{
    if (start < s->n && s->w + 1 < s->n) {
        size_t room = s->n - 1 - s->w;
        memcpy(s->b + s->w, a, len < room ? len : room);
    }
    s->w += len;
}

/* snprintf semantics (what fits is written and terminated, w counts the whole text) without the
 * cost of vsnprintf: every packet's summary line goes through here (Wireshark Info column, ubdump) */
void ub_sb(ub_sbuf *s, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    size_t start = s->w;
    if (!sb_simple(fmt)) {
        int k = vsnprintf(s->b + (s->w < s->n ? s->w : s->n), s->w < s->n ? s->n - s->w : 0, fmt, ap);
        va_end(ap);
        if (k > 0) s->w += (size_t)k;
        return;
    }
    for (const char *p = fmt; *p; p++) {
        if (*p != '%') {
            size_t run = strcspn(p, "%");
            sb_put(s, start, p, run);
            p += run - 1;
            continue;
        }
        p++;
        bool zero = *p == '0';
        if (zero) p++;
        int width = 0;
        if (*p == '*') { width = va_arg(ap, int); p++; }
        else while (*p >= '0' && *p <= '9') width = width * 10 + (*p++ - '0');
        unsigned nl = 0;
        while (*p == 'l') { nl++; p++; }
        if (*p == 's') {
            const char *a = va_arg(ap, const char *);
            if (!a) a = "(null)"; /* as glibc */
            size_t len = strlen(a);
            for (size_t k = len; (int)k < width; k++) sb_putc(s, start, ' ');
            sb_put(s, start, a, len);
            continue;
        }
        unsigned long long u;
        bool neg = false;
        if (*p == 'd') {
            long long d = nl >= 2 ? va_arg(ap, long long) : nl ? va_arg(ap, long) : va_arg(ap, int);
            neg = d < 0;
            u = neg ? 0ull - (unsigned long long)d : (unsigned long long)d;
        } else {
            u = nl >= 2 ? va_arg(ap, unsigned long long) : nl ? va_arg(ap, unsigned long) : va_arg(ap, unsigned);
        }
        char t[24];
        int k = 0;
        do {
            t[k++] = *p == 'x' ? "0123456789abcdef"[u & 15] : (char)('0' + u % 10);
            u = *p == 'x' ? u >> 4 : u / 10;
        } while (u);
        int len = k + (neg ? 1 : 0);
        if (!zero)
            for (; len < width; len++) sb_putc(s, start, ' ');
        if (neg) sb_putc(s, start, '-');
        if (zero)
            for (; len < width; len++) sb_putc(s, start, '0');
        while (k) sb_putc(s, start, t[--k]);
    }
    va_end(ap);
    if (start < s->n) s->b[s->w < s->n ? s->w : s->n - 1] = '\0';
}

static const ub_layer *first_of(const ub_view *v, const unsigned *ids, unsigned n)
{
    unsigned nl = v->nlayers;
    for (unsigned i = 0; i < nl; i++)
        for (unsigned k = 0; k < n; k++)
            if (v->layer[i].hdr->id == ids[k]) return &v->layer[i];
    return NULL;
}

/* IP and what it carries, for traffic that is not UB transport: "IPv4/TCP 10.0.0.1:1234→10.0.0.2:80",
 * "IPv6/UDP [fd00::1]:5000→[fd00::2]:4791 (RoCEv2)", "IPv4 proto 1 (ICMP) 10.0.0.1→10.0.0.2" */
static void sum_ip_plain(const ub_view *v, const ub_layer *ip, sbuf *s)
{
    bool v6 = ip->hdr->id == UB_H_IPV6;
    char sa[64] = "?", da[64] = "?";
    const ub_field *fs = &ip->hdr->fields[ub_field_index(ip->hdr, "src")];
    const ub_field *fd = &ip->hdr->fields[ub_field_index(ip->hdr, "dst")];
    ub_val a, b;
    if (ub_field_value(ip, fs, &a) == 0) ub_format_value(fs, &a, false, sa, sizeof sa);
    if (ub_field_value(ip, fd, &b) == 0) ub_format_value(fd, &b, false, da, sizeof da);
    uint64_t proto = fv(ip, v6 ? "next_header" : "protocol");
    const ub_layer *l4 = find(v, UB_H_UDP);
    if (!l4) l4 = find(v, UB_H_TCP);
    bool frag = !v6 && (fv(ip, "frag_offset") || fv(ip, "mf"));
    sb(s, "%s", v6 ? "IPv6" : "IPv4");
    if (l4 && !frag) {
        bool udp = l4->hdr->id == UB_H_UDP;
        uint64_t sp = fv(l4, "srcport"), dp = fv(l4, "dstport");
        const char *o = v6 ? "[" : "", *c = v6 ? "]" : "";
        sb(s, "/%s %s%s%s:%" PRIu64 "→%s%s%s:%" PRIu64, udp ? "UDP" : "TCP", o, sa, c, sp, o, da, c, dp);
        char nb[160];
        if (ub_neigh_summary(v, nb, sizeof nb)) sb(s, " %s", nb); /* RoCEv2, SUE: what it is (not UB) */
        else if (udp && (dp == 4791 || sp == 4791)) sb(s, " (RoCEv2)");
        return;
    }
    static const struct { unsigned p; const char *n; } pn[] = {
        { 1, "ICMP" }, { 2, "IGMP" }, { 6, "TCP" }, { 17, "UDP" }, { 47, "GRE" }, { 50, "ESP" }, { 58, "ICMPv6" }, { 132, "SCTP" },
    };
    const char *nm = NULL;
    for (unsigned i = 0; i < sizeof pn / sizeof pn[0]; i++)
        if (pn[i].p == proto) nm = pn[i].n;
    if (frag) sb(s, " fragment");
    if (nm) sb(s, "/%s %s→%s", nm, sa, da);
    else sb(s, " proto %" PRIu64 " %s→%s", proto, sa, da);
}

/* A record that is not UB (issue #9): what it is, e.g. "ETH/IPv4/TCP 10.0.0.1:1234→10.0.0.2:80", "ETH/ARP ..." */
static void sum_other(const ub_view *v, sbuf *s)
{
    const ub_layer *l;
    unsigned et = 0;
    if ((l = find(v, UB_H_ETH))) {
        sb(s, "ETH");
        et = (unsigned)fv(l, "type");
    } else if ((l = find(v, UB_H_SLL)) || (l = find(v, UB_H_SLL2))) {
        sb(s, "SLL");
        et = (unsigned)fv(l, "protocol");
    }
    for (int i = ub_view_find(v, UB_H_VLAN, 0); i >= 0; i = ub_view_find(v, UB_H_VLAN, i + 1)) {
        sb(s, "/VLAN %" PRIu64, fv(&v->layer[i], "vid"));
        et = (unsigned)fv(&v->layer[i], "type");
    }
    const ub_layer *ip = find(v, UB_H_IPV4);
    if (!ip) ip = find(v, UB_H_IPV6);
    char nb[160];
    if (!ip && ub_neigh_summary(v, nb, sizeof nb)) { /* SUE AFH frames, PCIe flits */
        sb(s, "%s%s", s->w ? "/" : "", nb);
        return;
    }
    if (ip) {
        if (s->w) sb(s, "/");
        sum_ip_plain(v, ip, s);
        return;
    }
    if ((l = find(v, UB_H_ARP))) {
        const ub_field *f = l->hdr->fields;
        char spa[32] = "?", tpa[32] = "?", sha[32] = "?";
        ub_val x;
        for (unsigned k = 0; k < l->hdr->nfields; k++) {
            const char *ab = f[k].abbrev;
            if (ub_field_value(l, &f[k], &x) != 0) continue;
            if (strcmp(ab, "ub.arp.src_ip") == 0) ub_format_value(&f[k], &x, false, spa, sizeof spa);
            else if (strcmp(ab, "ub.arp.dst_ip") == 0) ub_format_value(&f[k], &x, false, tpa, sizeof tpa);
            else if (strcmp(ab, "ub.arp.src_hw") == 0) ub_format_value(&f[k], &x, false, sha, sizeof sha);
        }
        if (fv(l, "opcode") == 2) sb(s, "/ARP %s is-at %s", spa, sha);
        else sb(s, "/ARP who-has %s tell %s", tpa, spa);
        return;
    }
    static const struct { unsigned t; const char *n; } etn[] = {
        { 0x0806, "ARP" }, { 0x8808, "MAC control (PAUSE/PFC)" }, { 0x88CC, "LLDP" }, { 0x8035, "RARP" },
        { 0x8915, "RoCE v1" }, { 0x8906, "FCoE" }, { 0x88E5, "MACsec" }, { 0x88F7, "PTP" },
    };
    const char *nm = NULL;
    for (unsigned i = 0; i < sizeof etn / sizeof etn[0]; i++)
        if (etn[i].t == et) nm = etn[i].n;
    if (s->w) sb(s, " ");
    if (nm) sb(s, "%s (0x%04x)", nm, et);
    else if (s->w) sb(s, "EtherType 0x%04x", et);
    else sb(s, "not UB (%u bytes)", v->rec_len);
}

static void sum_tah(const ub_view *v, sbuf *s)
{
    static const unsigned req_ids[] = { UB_H_BTAH, UB_H_BTAH_C, UB_H_BTAH_ALT };
    static const unsigned rsp_ids[] = { UB_H_ATAH, UB_H_ATAH_C };
    static const unsigned ma_ids[] = { UB_H_MAETAH, UB_H_MAETAH_C };
    const ub_layer *b = first_of(v, req_ids, 3), *a = first_of(v, rsp_ids, 2), *m = first_of(v, ma_ids, 2);
    uint64_t bop = b ? fv(b, "taopcode") : 0; /* looked up once: one scan of the table's rows */
    if (b && bop >= 0x11 && bop <= 0x13) { /* a response in a BTAH (ns-3-UB D12) */
        uint64_t op = bop;
        sb(s, " %s TASSN %" PRIu64, ub_vname_lookup(ub_vn_taopcode, op), fv(b, "ini_tassn"));
        const ub_layer *p = find(v, UB_H_PAYLOAD);
        if (p) sb(s, " len %u", p->wlen);
    } else if (b) {
        uint64_t op = bop;
        const char *nm = ub_vname_lookup(ub_vn_taopcode, op);
        if (op == 0x10) {
            const ub_layer *g = find(v, UB_H_MGMTETAH);
            const char *code = g ? vname(g, "code", fv(g, "code")) : NULL;
            sb(s, " Mgmt %s sub %" PRIu64 " %s MSN %" PRIu64, code ? code : "?", fv(g, "sub_code"),
               fv(g, "rsp") ? "rsp" : "req", fv(b, "ini_tassn"));
            if (g && fv(g, "rsp")) sb(s, " status 0x%02" PRIx64, fv(g, "status"));
            return;
        }
        if (nm) sb(s, " %s req", nm);
        else sb(s, " TAOpcode 0x%02" PRIx64 " req", op);
        sb(s, " TASSN %" PRIu64, fv(b, "ini_tassn"));
        if (m) {
            uint64_t len = fv(m, "length");
            if (m->hdr->id == UB_H_MAETAH_C) len = 64ull << len;
            sb(s, " addr 0x%" PRIx64 " len %" PRIu64, fv(m, "address"), len);
        }
        const ub_layer *p = find(v, UB_H_PAYLOAD);
        if (p && !m) sb(s, " payload %u", p->wlen);
    } else if (a) {
        uint64_t op = fv(a, "taopcode");
        const char *nm = ub_vname_lookup(ub_vn_taopcode, op);
        sb(s, " %s TASSN %" PRIu64, nm ? nm : "response", fv(a, "ini_tassn"));
        if (a->hdr->id == UB_H_ATAH) {
            uint64_t st = fv(a, "rspst");
            if (st || fv(a, "rspinfo")) sb(s, " RSPST %" PRIu64 " RSPINFO %" PRIu64, st, fv(a, "rspinfo"));
        } else if (fv(a, "status")) {
            sb(s, " Status %" PRIu64, fv(a, "status"));
        }
        const ub_layer *p = find(v, UB_H_PAYLOAD);
        if (p) sb(s, " len %u", p->wlen);
    }
}

size_t ub_summary(const ub_view *v, char *buf, size_t n)
{
    sbuf s = { buf, n, 0 };
    if (n) buf[0] = '\0';
    const ub_layer *l;
    if (v->kind == UB_KIND_DLLCB) {
        for (unsigned i = 0; i < v->nlayers; i++) {
            const ub_hdr *h = v->layer[i].hdr;
            if (h->id >= UB_H_DLLCB_NULL && h->id <= UB_H_DLLCB_RSVD) {
                sb(&s, "DLLCB %s", h->name);
                const ub_layer *c = &v->layer[i];
                if (h->id == UB_H_DLLCB_CRD_ACK) sb(&s, " T=%" PRIu64 " SD=%" PRIu64 " ACK_NUM=%" PRIu64, fv(c, "t"), fv(c, "sd"), fv(c, "ack_num"));
                if (h->id == UB_H_DLLCB_RETRY_REQ) sb(&s, " RcvPtr=%" PRIu64 " NUM_RETRY=%" PRIu64, fv(c, "rcvptr"), fv(c, "num_retry"));
                if (h->id == UB_H_DLLCB_RETRY_ACK) sb(&s, " RdPtr=%" PRIu64 " WrPtr=%" PRIu64, fv(c, "rdptr"), fv(c, "wrptr"));
                break;
            }
        }
        if (!s.w) sb(&s, "DLLCB");
    } else if (!ub_view_ub(v)) {
        sum_other(v, &s);
    } else {
        if (v->cfg >= 0) sb(&s, "CFG%d", v->cfg);
        else if (v->kind == UB_KIND_UBOE) sb(&s, "UBoE");
        else sb(&s, "UB");
        static const unsigned nth_ids[] = { UB_H_NTH16, UB_H_NTH24 };
        if ((l = first_of(v, nth_ids, 2))) {
            int w = l->hdr->id == UB_H_NTH24 ? 6 : 4;
            sb(&s, " 0x%0*" PRIx64 "→0x%0*" PRIx64, w, fv(l, "scna"), w, fv(l, "dcna"));
        }
        bool plain_ip = false;
        if (((l = find(v, UB_H_IPV4)) || (l = find(v, UB_H_IPV6))) && v->claim == UB_CLAIM_NONE &&
            (v->cfg == 3 || v->cfg == 4)) {
            sb(&s, " "); /* plain IP on a UB link (CFG 3/4): named, not decoded further */
            sum_ip_plain(v, l, &s);
            plain_ip = true;
        } else if (l) {
            const ub_field *fs = &l->hdr->fields[ub_field_index(l->hdr, "src")];
            const ub_field *fd = &l->hdr->fields[ub_field_index(l->hdr, "dst")];
            ub_val a, b;
            char sa[64], da[64];
            if (ub_field_value(l, fs, &a) == 0 && ub_field_value(l, fd, &b) == 0) {
                ub_format_value(fs, &a, false, sa, sizeof sa);
                ub_format_value(fd, &b, false, da, sizeof da);
                sb(&s, " %s→%s", sa, da);
            }
        }
        if ((l = find(v, UB_H_NCTL))) {
            uint64_t p = fv(l, "protocol");
            const char *nm = vname(l, "protocol", p);
            sb(&s, " NetCtl %s", nm ? nm : "protocol");
            sb(&s, " 0x%04" PRIx64, p);
        }
        uint64_t tpop = 0; /* the RTPH's TPOpcode (0 without one), its row looked up once */
        if ((l = find(v, UB_H_RTPH))) {
            int oi = ub_field_index(l->hdr, "tpopcode");
            uint64_t op = tpop = oi < 0 ? 0 : ub_lget(l, (unsigned)oi);
            /* the layer's table: a profile may name more opcodes */
            const char *nm = oi < 0 ? NULL : ub_vname_lookup(l->hdr->fields[oi].vals, op);
            if (op == 1) sb(&s, " RTP PSN %" PRIu64, fv(l, "psn"));
            else if (op == 2) sb(&s, " %s PSN %" PRIu64, fv(l, "rspst") == 3 ? "TPNAK" : "TPACK", fv(l, "psn"));
            else sb(&s, " %s PSN %" PRIu64, nm ? nm : "TPOpcode?", fv(l, "psn"));
            sb(&s, " TPN 0x%" PRIx64 "→0x%" PRIx64, fv(l, "srctpn"), fv(l, "dsttpn"));
            if (op <= 1 && fv(l, "last")) sb(&s, " last");
        } else if ((l = find(v, UB_H_UTPH))) {
            sb(&s, " UTP");
        } else if ((l = find(v, UB_H_CTPH))) {
            if (fv(l, "tpopcode") == 1) sb(&s, " CTP CNP");
        }
        if (find(v, UB_H_SCANHDR)) {
            static const unsigned sc_ids[] = { UB_H_SCANPDU_REQ, UB_H_SCANPDU_RSP };
            const ub_layer *p = first_of(v, sc_ids, 2);
            const ub_layer *h = find(v, UB_H_SCANHDR);
            sb(&s, " Scan hops %" PRIu64 " step %" PRIu64, fv(h, "hops"), fv(h, "step"));
            if (p) sb(&s, " CMD %" PRIu64 " Opcode %" PRIu64 " %s MSN %" PRIu64, fv(p, "cmd"), fv(p, "opcode"),
                      p->hdr->id == UB_H_SCANPDU_RSP ? "rsp" : "req", fv(p, "msn"));
        }
        if (find(v, UB_H_CIPH)) sb(&s, " CIP");
        if (!plain_ip && tpop < 2) sum_tah(v, &s); /* an ATAH after an ack is no response */
        static const unsigned urpc_ids[] = { UB_H_URPC_REQ, UB_H_URPC_ACK, UB_H_URPC_RSP };
        if ((l = first_of(v, urpc_ids, 3))) {
            static const char *kind[] = { "Request", "Ack", "Response" };
            unsigned k = l->hdr->id == UB_H_URPC_REQ ? 0 : l->hdr->id == UB_H_URPC_ACK ? 1 : 2;
            sb(&s, " URPC %s ID %" PRIu64, kind[k], fv(l, "request_id"));
            if (k == 2) sb(&s, " status %" PRIu64, fv(l, "status"));
        }
    }
    if (v->nerrs) {
        sb(&s, " [");
        for (unsigned i = 0; i < v->nerrs; i++) {
            const ub_err_info *ei = ub_err_get(v->err[i].code);
            sb(&s, "%s%s", i ? "," : "", ei ? ei->name : "?");
        }
        sb(&s, "]");
    }
    return s.w;
}

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

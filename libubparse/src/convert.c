/* Framing conversion for the rewrite pipeline (include/ubparse/rewrite.h):
 *
 *   NP form  = CFG + network packet (what follows the LPH): flit/packet records, SLL/SLL2, CFG pseudo-header
 *   IP form  = IPv4/IPv6 .. UDP 4792 .. TPH .. payload [ICRC]: UBoE (Ethernet, raw IP), CFG 3/4 after the
 *              UBL header (§5.2.3), and CFG 7 RTP/UTP packets whose NTH24 CNAs map to IP addresses
 *   TPH form = the UDP payload (no ICRC: the IP/UDP lengths stop before it, NW-03)
 *
 * The outputs are built from these forms; the fixup pass afterwards recomputes lengths and the ICRC
 * over the new header chain (the coverage of an NTH packet and of an IP packet differ, §5.3.7). */
#include "rw_internal.h"

#include "ubparse/io.h"

#include <arpa/inet.h>

static long nope(const char **why, const char *msg)
{
    *why = msg;
    return 0;
}

static int first_layer(const ub_view *v, unsigned id)
{
    for (unsigned i = 0; i < v->nlayers && i < UB_MAX_LAYERS; i++)
        if (v->layer[i].hdr->id == id && !(v->layer[i].flags & (UB_LF_OVERLAY | UB_LF_OUTER))) return (int)i; /* not a tunnel's */
    return -1;
}

static int first_ip(const ub_view *v)
{
    int a = first_layer(v, UB_H_IPV4), b = first_layer(v, UB_H_IPV6);
    return a < 0 ? b : b < 0 ? a : (a < b ? a : b);
}

static bool is_dll_entry(ub_entry e)
{
    return e == UB_ENTRY_PKT || e == UB_ENTRY_CFGPH || e == UB_ENTRY_SLL || e == UB_ENTRY_SLL2;
}

/* [start, end) of the IP form inside w: from the IP header to the end of the ICRC (or of the IP
 * packet when there is none); *has_icrc tells which */
static bool ip_span(const ub_view *v, const uint8_t *w, uint32_t wl, uint32_t *start, uint32_t *end, bool *has_icrc)
{
    int ip = first_ip(v);
    if (ip < 0) return false;
    long s = rw_off(&v->layer[ip], w, wl);
    if (s < 0) return false;
    *start = (uint32_t)s;
    *has_icrc = false;
    int ic = first_layer(v, UB_H_ICRC);
    if (ic > ip && rw_off(&v->layer[ic], w, wl) >= 0) {
        *end = (uint32_t)rw_off(&v->layer[ic], w, wl) + 4;
        *has_icrc = true;
        return *end <= wl;
    }
    const ub_layer *l = &v->layer[ip];
    uint64_t tl;
    if (l->hdr->id == UB_H_IPV4) tl = l->len >= 4 ? (uint64_t)(l->data[2] << 8 | l->data[3]) : 0;
    else tl = l->len >= 6 ? (uint64_t)(l->data[4] << 8 | l->data[5]) + 40 : 0;
    *end = tl && *start + tl <= wl ? *start + (uint32_t)tl : wl;
    return true;
}

static const rw_cnaip *cna_ip(const ub_rw *rw, uint64_t cna)
{
    for (unsigned i = 0; i < rw->ncnaip; i++)
        if (rw->cnaip[i].cna == cna) return &rw->cnaip[i];
    return NULL;
}

static void mk_addr(ub_io_addr *a, const rw_cnaip *e, uint16_t port)
{
    memset(a, 0, sizeof *a);
    if (e->family == 4) {
        struct sockaddr_in *s = (struct sockaddr_in *)&a->ss;
        s->sin_family = AF_INET;
        s->sin_port = htons(port);
        memcpy(&s->sin_addr, e->ip, 4);
        a->len = sizeof *s;
    } else {
        struct sockaddr_in6 *s = (struct sockaddr_in6 *)&a->ss;
        s->sin6_family = AF_INET6;
        s->sin6_port = htons(port);
        memcpy(&s->sin6_addr, e->ip, 16);
        a->len = sizeof *s;
    }
}

/* CFG 7 RTP/UTP (NTH24 -> RTPH/UTPH): IP/UDP in place of LPH + NTH24, the TPH .. payload unchanged,
 * an ICRC slot after it (recomputed by the fixup) */
static long nth_to_ip(ub_rw *rw, const ub_view *v, const uint8_t *w, uint32_t wl, uint8_t *out, size_t cap, const char **why)
{
    int nth = first_layer(v, UB_H_NTH24), nth16 = first_layer(v, UB_H_NTH16);
    int tp = first_layer(v, UB_H_RTPH);
    if (tp < 0) tp = first_layer(v, UB_H_UTPH);
    if (nth < 0 && nth16 >= 0)
        return nope(why, "CFG 6/9 packets (NTH16) have no UBoE form: UB over IP carries RTP/UTP only (App. B.2.2.1)");
    if (nth < 0) return nope(why, "no NTH or IP header to convert from");
    if (tp < 0)
        return nope(why, "CTP packets have no UBoE form: UB over IP carries RTP/UTP only (App. B.2.2.1)");
    if (!rw->ncnaip) return nope(why, "NTH -> UBoE needs a CNA -> IP map (--cna-ip CNA=IP)");
    ub_val s, d;
    if (rw_fh_get(&rw->h_scna, v, &s) < 0 || rw_fh_get(&rw->h_dcna, v, &d) < 0) return nope(why, "no CNAs");
    const rw_cnaip *si = cna_ip(rw, s.u), *di = cna_ip(rw, d.u);
    if (!si || !di) return nope(why, "a CNA of the packet has no IP address in the --cna-ip map");
    long tpo = rw_off(&v->layer[tp], w, wl);
    int ic = first_layer(v, UB_H_ICRC);
    long end = ic >= 0 ? rw_off(&v->layer[ic], w, wl) : (long)wl;
    if (tpo < 0 || end < tpo) return nope(why, "transport header not contiguous");
    /* UDP source port: entropy from the TP channel (App. E), in the dynamic range */
    ub_val st = { 0 }, dt = { 0 };
    rw_fh_get(&rw->h_srctpn, v, &st);
    rw_fh_get(&rw->h_dsttpn, v, &dt);
    uint64_t h = (s.u * 0x9E3779B97F4A7C15ull) ^ (d.u * 0xC2B2AE3D27D4EB4Full) ^ (st.u << 24) ^ dt.u;
    uint16_t sport = (uint16_t)(0xC000 | ((h ^ (h >> 17) ^ (h >> 34)) & 0x3FFF));
    ub_io_addr sa, da;
    mk_addr(&sa, si, sport);
    mk_addr(&da, di, UB_UDP_PORT);
    long n = ub_io_wrap_udp(&sa, &da, w + tpo, (uint32_t)(end - tpo), out, cap);
    if (n < 0 || (size_t)n + 4 > cap) return -1;
    memset(out + n, 0, 4); /* ICRC, recomputed over the new chain */
    return n + 4;
}

/* the IP form of w into out (no Ethernet header) */
static long to_ip(ub_rw *rw, const ub_view *v, ub_entry we, const uint8_t *w, uint32_t wl, uint8_t *out, size_t cap,
                  const char **why)
{
    if (we == UB_ENTRY_TPH) return nope(why, "a UDP payload carries no IP addresses to build UBoE from");
    if (we == UB_ENTRY_FLIT) return nope(why, "DLLCBs (link control blocks) exist only on a UB link");
    uint32_t s, e;
    bool icrc;
    if (first_ip(v) >= 0 && ip_span(v, w, wl, &s, &e, &icrc)) {
        if (v->cfg == 5) return nope(why, "CFG 5 network-control packets exist only on a UB link");
        uint32_t n = e - s;
        if (n + (icrc ? 0u : 4u) > cap) return -1;
        memcpy(out, w + s, n);
        if (!icrc && first_layer(v, UB_H_UDP) >= 0) { memset(out + n, 0, 4); n += 4; } /* UB over IP carries one */
        return n;
    }
    if (!is_dll_entry(we)) return nope(why, "no IP packet inside");
    return nth_to_ip(rw, v, w, wl, out, cap, why);
}

/* CFG + network packet (NP form) of w; returns the NP length and the CFG; synthesizes the UBL header
 * for IP packets */
static long to_np(ub_rw *rw, const ub_view *v, ub_entry we, const uint8_t *w, uint32_t wl, uint8_t *out, size_t cap,
                  unsigned *cfg, const char **why)
{
    if (we == UB_ENTRY_FLIT) return nope(why, "DLLCBs (link control blocks) have no packet form");
    if (is_dll_entry(we)) {
        if (!v->pkt || v->cfg < 0) return nope(why, "no network packet");
        long po = rw_off(&(ub_layer){ .data = v->pkt, .len = v->pkt_len }, w, wl);
        if (po < 0 || v->pkt_len > cap) return po < 0 ? nope(why, "network packet not contiguous") : -1;
        memcpy(out, w + po, v->pkt_len);
        *cfg = (unsigned)v->cfg;
        return v->pkt_len;
    }
    /* UBoE / raw IP -> CFG 3/4: UBL header (CCI, NPI; §5.2.3 Table 5-3) + IP packet + ICRC */
    if (cap < 6) return -1;
    long n = to_ip(rw, v, we, w, wl, out + 6, cap - 6, why);
    if (n <= 0) return n;
    const ub_hdr *h = ub_hdr_get(UB_H_NTHIP);
    memset(out, 0, 6);
    ub_layer l = { .hdr = h, .data = out, .len = 6 };
    for (unsigned k = 0; k < h->nfields; k++) {
        if (strcmp(h->fields[k].abbrev, "ub.nth.npi_id") == 0) {
            ub_val nv = { .u = rw->c.npi & 0xFFFFFF };
            ub_field_write(out, l.len, &h->fields[k], &nv);
        }
    }
    *cfg = (out[6] >> 4) == 6 ? 4 : 3;
    return n + 6;
}

static void put_lph(const ub_rw *rw, uint8_t *lph, unsigned cfg)
{
    const ub_hdr *h = ub_hdr_get(UB_H_LPH);
    memset(lph, 0, 4);
    for (unsigned k = 0; k < h->nfields; k++) {
        const ub_field *f = &h->fields[k];
        ub_val nv = { 0 };
        if (strcmp(f->abbrev, "ub.lph.cfg") == 0) nv.u = cfg;
        else if (strcmp(f->abbrev, "ub.lph.vl") == 0) nv.u = rw->c.vl & 0xF;
        else continue;
        ub_field_write(lph, 4, f, &nv);
    }
}

long rw_convert(ub_rw *rw, const ub_view *v, ub_entry we, const uint8_t *w, uint32_t wl, ub_entry target,
                uint8_t *out, size_t cap, const char **why)
{
    *why = NULL;
    switch (target) {
    case UB_ENTRY_TPH: {
        if (we == UB_ENTRY_FLIT) return nope(why, "DLLCBs (link control blocks) cannot travel over UDP");
        int udp = first_layer(v, UB_H_UDP);
        if (udp >= 0) { /* the UDP payload, as long as the UDP header says (without the ICRC) */
            const ub_layer *u = &v->layer[udp];
            long uo = rw_off(u, w, wl);
            uint32_t ulen = u->len >= 6 ? (uint32_t)(u->data[4] << 8 | u->data[5]) : 0;
            if (uo < 0 || ulen < 8 || (uint32_t)uo + ulen > wl) return nope(why, "UDP length inconsistent");
            if (ulen - 8 > cap) return -1;
            memcpy(out, w + uo + 8, ulen - 8);
            return ulen - 8;
        }
        int tp = first_layer(v, UB_H_RTPH);
        if (tp < 0) tp = first_layer(v, UB_H_UTPH);
        if (tp < 0) {
            if (first_layer(v, UB_H_CTPH) >= 0) return nope(why, "CTP packets cannot travel over UDP (RTP/UTP only, App. B.2.2.1)");
            return nope(why, "no RTPH/UTPH: only transport packets travel over UDP");
        }
        long to = rw_off(&v->layer[tp], w, wl);
        int ic = first_layer(v, UB_H_ICRC);
        long end = ic > tp ? rw_off(&v->layer[ic], w, wl) : (long)wl;
        if (to < 0 || end < to) return nope(why, "transport header not contiguous");
        if ((size_t)(end - to) > cap) return -1;
        memcpy(out, w + to, (size_t)(end - to));
        return end - to;
    }
    case UB_ENTRY_ETH: {
        if (cap < 14) return -1;
        long n = to_ip(rw, v, we, w, wl, out + 14, cap - 14, why);
        if (n <= 0) return n;
        memcpy(out, rw->c.dmac, 6);
        memcpy(out + 6, rw->c.smac, 6);
        bool v6 = (out[14] >> 4) == 6;
        out[12] = v6 ? 0x86 : 0x08;
        out[13] = v6 ? 0xDD : 0x00;
        return n + 14;
    }
    case UB_ENTRY_RAWIP: case UB_ENTRY_IP:
        return to_ip(rw, v, we, w, wl, out, cap, why);
    case UB_ENTRY_CFGPH: {
        unsigned cfg = 0;
        if (cap < 1) return -1;
        long n = to_np(rw, v, we, w, wl, out + 1, cap - 1, &cfg, why);
        if (n <= 0) return n;
        out[0] = (uint8_t)cfg;
        return n + 1;
    }
    case UB_ENTRY_PKT:
    case UB_ENTRY_FLIT: { /* flit output is framed by the caller from the packet form */
        unsigned cfg = 0;
        if (we == UB_ENTRY_FLIT) return nope(why, "DLLCBs cannot be sent as packet records");
        if (cap < 4) return -1;
        long n = to_np(rw, v, we, w, wl, out + 4, cap - 4, &cfg, why);
        if (n <= 0) return n;
        put_lph(rw, out, cfg);
        return n + 4;
    }
    default:
        return nope(why, "unsupported output framing");
    }
}

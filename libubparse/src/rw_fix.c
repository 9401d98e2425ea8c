/* Rewrite pipeline (ub_rw_packet) and fixups: lengths, checksums, ICRC, PLENGTH and re-framing,
 * applied only to packets an edit or a conversion changed (unless fix_all). */
#include "rw_internal.h"

#include <stdlib.h>

void rw_fix_handles(ub_rw *rw)
{
    rw_fh_init(&rw->h_iplen, "ub.ipv4.total_length");
    rw_fh_init(&rw->h_ipck, "ub.ipv4.checksum");
    rw_fh_init(&rw->h_ihl, "ub.ipv4.ihl");
    rw_fh_init(&rw->h_ip6len, "ub.ipv6.payload_length");
    rw_fh_init(&rw->h_udplen, "ub.udp.length");
    rw_fh_init(&rw->h_udpck, "ub.udp.checksum");
    rw_fh_init(&rw->h_plength, "ub.lph.plength");
}

/* write u into the field; true if a byte changed */
static bool wr(uint8_t *b, uint32_t len, const ub_layer *l, const rw_fh *h, uint64_t u)
{
    const ub_field *f = rw_fh_row(h, l);
    long off = rw_off(l, b, len);
    ub_val old, v = { .u = u };
    if (!f || off < 0 || ub_field_value(l, f, &old) < 0 || (!old.bytes && old.u == u)) return false;
    return ub_field_write(b + off, l->len, f, &v) == 0;
}

static uint64_t rd(const ub_layer *l, const rw_fh *h)
{
    const ub_field *f = rw_fh_row(h, l);
    ub_val v;
    return f && ub_field_value(l, f, &v) == 0 ? v.u : 0;
}

/* UDP checksum with the IPv4/IPv6 pseudo-header (only rewritten when it was not 0: UB sends 0) */
static uint16_t udp_csum(const uint8_t *ip, bool v6, const uint8_t *udp, uint32_t ulen)
{
    uint32_t s = 0;
    const uint8_t *a = ip + (v6 ? 8 : 12);
    unsigned alen = v6 ? 32 : 8;
    for (unsigned i = 0; i < alen; i += 2) s += (uint32_t)(a[i] << 8 | a[i + 1]);
    s += 17 + (ulen & 0xFFFF) + (ulen >> 16);
    for (uint32_t i = 0; i + 1 < ulen; i += 2) s += (i == 6) ? 0 : (uint32_t)(udp[i] << 8 | udp[i + 1]);
    if (ulen & 1) s += (uint32_t)udp[ulen - 1] << 8;
    while (s >> 16) s = (s & 0xFFFF) + (s >> 16);
    uint16_t c = (uint16_t)~s;
    return c ? c : 0xFFFF;
}

void rw_fix(ub_rw *rw, ub_view *v, ub_entry e, uint8_t *b, uint32_t len, bool icrc)
{
    const ub_opts *o = &rw->o;
    if (e == UB_ENTRY_PKT && len >= 4) { /* PLENGTH first (§2.4, R-02) */
        int pl = ub_plength_encode(len - 4, o->crc_mode);
        ub_decode(v, o, e, b, len);
        if (pl >= 0 && v->nlayers && v->layer[0].hdr->id == UB_H_LPH) wr(b, len, &v->layer[0], &rw->h_plength, (uint64_t)pl);
    }
    ub_decode(v, o, e, b, len);
    bool changed = false; /* the IP pass changed bytes: the ICRC computed by this decode is stale */
    unsigned nl = v->nlayers > UB_MAX_LAYERS ? UB_MAX_LAYERS : v->nlayers;
    for (unsigned i = 0; i < nl; i++) {
        const ub_layer *ip = &v->layer[i];
        unsigned id = ip->hdr->id;
        if ((id != UB_H_IPV4 && id != UB_H_IPV6) || (ip->flags & UB_LF_OVERLAY)) continue;
        long ipo = rw_off(ip, b, len);
        if (ipo < 0) continue;
        /* the IP packet ends where the ICRC begins (NW-03), else where its length says (or the record) */
        uint32_t end = 0;
        int udp = -1;
        for (unsigned k = i + 1; k < nl; k++) {
            if (v->layer[k].hdr->id == UB_H_UDP && udp < 0) udp = (int)k;
            if (v->layer[k].hdr->id == UB_H_ICRC && rw_off(&v->layer[k], b, len) >= 0) {
                end = (uint32_t)rw_off(&v->layer[k], b, len);
                break;
            }
        }
        if (!end) {
            uint64_t cur = id == UB_H_IPV4 ? rd(ip, &rw->h_iplen) : rd(ip, &rw->h_ip6len) + 40;
            end = (uint64_t)ipo + cur <= len && cur >= (id == UB_H_IPV4 ? 20u : 40u) ? (uint32_t)(ipo + (long)cur) : len;
        }
        if (end < (uint32_t)ipo) continue;
        if (id == UB_H_IPV4) changed |= wr(b, len, ip, &rw->h_iplen, end - (uint32_t)ipo);
        else if (end >= (uint32_t)ipo + 40) changed |= wr(b, len, ip, &rw->h_ip6len, end - (uint32_t)ipo - 40);
        if (udp >= 0) {
            const ub_layer *u = &v->layer[udp];
            long uo = rw_off(u, b, len);
            if (uo >= 0 && (uint32_t)uo < end) {
                changed |= wr(b, len, u, &rw->h_udplen, end - (uint32_t)uo);
                if (rd(u, &rw->h_udpck) != 0)
                    changed |= wr(b, len, u, &rw->h_udpck, udp_csum(b + ipo, id == UB_H_IPV6, b + uo, end - (uint32_t)uo));
            }
        }
        if (id == UB_H_IPV4) {
            uint32_t hl = (uint32_t)rd(ip, &rw->h_ihl) * 4;
            if (hl >= 20 && (uint32_t)ipo + hl <= len) { /* over the header with its checksum field as 0 */
                uint8_t hdr[60];
                const ub_field *ck = rw_fh_row(&rw->h_ipck, ip);
                ub_val zero = { .u = 0 };
                memcpy(hdr, b + ipo, hl);
                if (ck && ub_field_write(hdr, hl, ck, &zero) == 0)
                    changed |= wr(b, len, ip, &rw->h_ipck, rw_ip_csum(hdr, hl));
            }
        }
        break; /* the outer IP header only (a tunnelled one is payload) */
    }
    if (icrc) { /* ICRC from the decoder's own computation, in the byte order the packet used */
        if (changed) ub_decode(v, o, e, b, len);
        nl = v->nlayers > UB_MAX_LAYERS ? UB_MAX_LAYERS : v->nlayers;
        for (unsigned i = 0; i < nl; i++) {
            const ub_layer *l = &v->layer[i];
            long off = rw_off(l, b, len);
            if (l->hdr->id != UB_H_ICRC || off < 0 || l->len < 4 || (l->flags & UB_LF_TRUNC)) continue;
            uint32_t c = (uint32_t)l->aux;
            uint8_t *p = b + off;
            if (l->variant == 2) { p[0] = (uint8_t)(c >> 24); p[1] = (uint8_t)(c >> 16); p[2] = (uint8_t)(c >> 8); p[3] = (uint8_t)c; }
            else { p[0] = (uint8_t)c; p[1] = (uint8_t)(c >> 8); p[2] = (uint8_t)(c >> 16); p[3] = (uint8_t)(c >> 24); }
        }
    }
    if (e == UB_ENTRY_FLIT && len >= 20 && len % 20 == 0 && icrc) ub_frame_dllcb(o, b, len / 20); /* DLLCB */
}

long ub_fixup(const ub_opts *o, ub_view *scratch, ub_entry entry, uint8_t *buf, uint32_t len, uint8_t *out,
              size_t cap)
{
    ub_rw_cfg c;
    ub_rw_cfg_default(&c);
    c.opts = o;
    ub_rw *rw = ub_rw_new(&c, NULL, 0);
    if (!rw) return -1;
    long n = -1;
    ub_decode(scratch, o, entry, buf, len);
    if ((entry == UB_ENTRY_FLIT || entry == UB_ENTRY_STREAM) && scratch->kind == UB_KIND_DLLDP && scratch->pkt &&
        scratch->pkt_len + 4 <= RW_BUF) {
        bool ef = false;
        for (unsigned i = 0; i < scratch->nerrs && i < UB_MAX_ERRS; i++) ef |= scratch->err[i].code == UB_E_ERROR_FLAG;
        memcpy(rw->w, buf, 4);
        memcpy(rw->w + 4, scratch->pkt, scratch->pkt_len);
        uint32_t wl = scratch->pkt_len + 4;
        rw_fix(rw, scratch, UB_ENTRY_PKT, rw->w, wl, true);
        n = ub_frame_dlldp(o, rw->w, rw->w + 4, wl - 4, ef, out, cap);
    } else if (len <= cap) {
        memcpy(out, buf, len);
        rw_fix(rw, scratch, entry == UB_ENTRY_STREAM ? UB_ENTRY_FLIT : entry, out, len, true);
        n = len;
    }
    ub_rw_free(rw);
    return n;
}

/* ---------------------------------------------------------------- the pipeline */
ub_entry ub_rw_out_entry(const ub_rw *rw, ub_entry in)
{
    if (in == UB_ENTRY_STREAM) in = UB_ENTRY_FLIT; /* units of a raw flit stream are flit records */
    switch (rw->c.out) {
    case UB_RW_OUT_TPH: return UB_ENTRY_TPH;
    case UB_RW_OUT_ETH: return UB_ENTRY_ETH;
    case UB_RW_OUT_CFGPH: return UB_ENTRY_CFGPH;
    case UB_RW_OUT_RAW: return (ub_entry)rw->c.raw_entry;
    default: return in;
    }
}

bool ub_rw_passthrough(const ub_rw *rw, ub_entry in)
{
    if (in == UB_ENTRY_STREAM) in = UB_ENTRY_FLIT;
    return ub_rw_out_entry(rw, in) == in && !ub_rw_has_edits(rw) && !rw->c.fix_all && rw->c.crc != UB_RW_CRC_BREAK;
}

static void break_icrc(ub_rw *rw, ub_view *v, ub_entry e, uint8_t *b, uint32_t len, uint32_t *fl)
{
    ub_decode(v, &rw->o, e, b, len);
    for (unsigned i = 0; i < v->nlayers && i < UB_MAX_LAYERS; i++) {
        const ub_layer *l = &v->layer[i];
        long off = rw_off(l, b, len);
        if (l->hdr->id != UB_H_ICRC || off < 0 || l->len < 4) continue;
        b[off] ^= 0xDE; b[off + 1] ^= 0xAD; b[off + 2] ^= 0xBE; b[off + 3] ^= 0xEF;
        *fl |= UB_RWF_BROKEN;
    }
}

static void break_bcrc(ub_rw *rw, ub_view *v, uint8_t *b, uint32_t len, uint32_t *fl)
{
    ub_decode(v, &rw->o, UB_ENTRY_FLIT, b, len);
    for (unsigned i = 0; i < v->nlayers && i < UB_MAX_LAYERS; i++) {
        const ub_layer *l = &v->layer[i];
        long off = rw_off(l, b, len);
        if (l->hdr->id != UB_H_BCRC || off < 0 || l->len == 0) continue;
        b[off + l->len - 1] ^= 0x01;
        *fl |= UB_RWF_BROKEN;
    }
}

/* --keep-crc on a re-framed DLLDP: put the carried BCRC bytes of the original back */
static void keep_bcrc(const ub_view *orig, const uint8_t *rec, uint32_t rlen, uint8_t *out, uint32_t olen)
{
    if (rlen != olen) return;
    for (unsigned i = 0; i < orig->nlayers && i < UB_MAX_LAYERS; i++) {
        const ub_layer *l = &orig->layer[i];
        long off = rw_off(l, rec, rlen);
        if ((l->hdr->id == UB_H_BCRC || l->hdr->id == UB_H_END) && off >= 0) memcpy(out + off, rec + off, l->len);
    }
}

static long emit(const uint8_t *p, uint32_t n, uint8_t *out, size_t cap, ub_rw_result *res)
{
    if (n > cap) { res->status = UB_RW_ERROR; res->reason = "output buffer too small"; return 0; }
    memcpy(out, p, n);
    return n;
}

long ub_rw_packet(ub_rw *rw, ub_entry in, const uint8_t *rec, uint32_t len, uint8_t *out, size_t cap,
                  ub_rw_result *res)
{
    memset(res, 0, sizeof *res);
    if (in == UB_ENTRY_STREAM) in = UB_ENTRY_FLIT;
    ub_entry oe = ub_rw_out_entry(rw, in);
    res->out_entry = (uint8_t)oe;
    rw->st.packets++;
    if (ub_rw_passthrough(rw, in)) return emit(rec, len, out, cap, res);
    if (len > RW_BUF - 64) { res->status = UB_RW_SKIP; res->reason = "record too long"; rw->st.bad++; rw->st.bad_skipped++; return 0; }
    const ub_opts *o = &rw->o;
    ub_view *v0 = rw->v, *v = rw->v2;
    /* working form: a flit-framed DLLDP is edited as LPH + de-interleaved network packet; any other
     * record as a copy of itself (decoded once, in the copy) */
    bool flit = in == UB_ENTRY_FLIT;
    if (!flit) memcpy(rw->w, rec, len);
    ub_decode(flit ? v0 : v, o, in, flit ? rec : rw->w, len);
    if (rw_view_bad(flit ? v0 : v)) {
        rw->st.bad++;
        res->flags |= UB_RWF_BAD;
        switch (rw->c.on_bad) {
        case UB_RW_BAD_ABORT:
            rw->st.bad_aborted++;
            res->status = UB_RW_ABORT;
            res->reason = "a packet could not be parsed (--on-bad abort)";
            return 0;
        case UB_RW_BAD_SKIP:
            rw->st.bad_skipped++;
            res->status = UB_RW_SKIP;
            res->reason = "could not be parsed (--on-bad skip)";
            return 0;
        default:
            if (oe != in) {
                rw->st.bad_skipped++;
                res->status = UB_RW_SKIP;
                res->reason = "could not be parsed, so it cannot be converted to the output framing";
                return 0;
            }
            rw->st.bad_passed++;
            return emit(rec, len, out, cap, res);
        }
    }
    ub_entry we = in;
    uint32_t wl = len;
    bool errflag = false;
    if (flit && v0->kind == UB_KIND_DLLDP && v0->pkt) {
        for (unsigned i = 0; i < v0->nerrs && i < UB_MAX_ERRS; i++) errflag |= v0->err[i].code == UB_E_ERROR_FLAG;
        memcpy(rw->w, rec, 4);
        memcpy(rw->w + 4, v0->pkt, v0->pkt_len);
        wl = v0->pkt_len + 4;
        we = UB_ENTRY_PKT;
        ub_decode(v, o, we, rw->w, wl);
    } else if (flit) {
        memcpy(rw->w, rec, len);
        ub_decode(v, o, we, rw->w, wl);
    }
    uint32_t fl = res->flags | rw_edit(rw, v, rw->w, wl);
    /* conversion to the output framing (flit output: framed at the end from the packet form) */
    ub_entry target = oe == UB_ENTRY_FLIT && we != UB_ENTRY_FLIT ? UB_ENTRY_PKT : oe;
    uint8_t *c = rw->w;
    uint32_t cl = wl;
    if (target != we) {
        const char *why = NULL;
        if (fl & UB_RWF_MODIFIED) ub_decode(v, o, we, rw->w, wl); /* edits may change what follows (NLP...) */
        long n = rw_convert(rw, v, we, rw->w, wl, target, rw->cbuf, RW_BUF, &why);
        if (n <= 0) {
            rw->st.unconvertible++;
            res->status = n < 0 ? UB_RW_ERROR : UB_RW_SKIP;
            res->reason = why ? why : "cannot be converted to the output framing";
            return 0;
        }
        c = rw->cbuf;
        cl = (uint32_t)n;
        fl |= UB_RWF_CONVERTED;
    }
    bool need = (fl & (UB_RWF_MODIFIED | UB_RWF_CONVERTED)) || rw->c.fix_all;
    if (need) {
        rw_fix(rw, v, target, c, cl, rw->c.crc != UB_RW_CRC_KEEP);
        fl |= UB_RWF_FIXED;
    }
    uint8_t bm = rw->c.break_mask ? rw->c.break_mask : (UB_RW_BREAK_ICRC | UB_RW_BREAK_BCRC);
    if (rw->c.crc == UB_RW_CRC_BREAK && (bm & UB_RW_BREAK_ICRC)) break_icrc(rw, v, target, c, cl, &fl);
    long n;
    if (oe == UB_ENTRY_FLIT && target == UB_ENTRY_PKT) {
        bool same = !(fl & (UB_RWF_MODIFIED | UB_RWF_CONVERTED | UB_RWF_FIXED | UB_RWF_BROKEN)) && in == UB_ENTRY_FLIT;
        if (same) {
            n = emit(rec, len, out, cap, res);
        } else {
            n = ub_frame_dlldp(o, c, c + 4, cl - 4, errflag, out, cap);
            if (n < 0) { res->status = UB_RW_ERROR; res->reason = "cannot frame the DLLDP"; return 0; }
            if (rw->c.crc == UB_RW_CRC_KEEP && in == UB_ENTRY_FLIT) keep_bcrc(v0, rec, len, out, (uint32_t)n);
        }
    } else {
        n = emit(c, cl, out, cap, res);
    }
    if (n > 0 && oe == UB_ENTRY_FLIT && rw->c.crc == UB_RW_CRC_BREAK && (bm & UB_RW_BREAK_BCRC))
        break_bcrc(rw, v, out, (uint32_t)n, &fl);
    res->flags = fl;
    if (fl & UB_RWF_MODIFIED) rw->st.modified++;
    if ((fl & UB_RWF_CONVERTED) || oe != in) rw->st.converted++;
    if (fl & UB_RWF_FIXED) rw->st.fixed++;
    if (fl & UB_RWF_BROKEN) rw->st.crc_broken++;
    return n;
}

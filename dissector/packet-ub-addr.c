/* packet-ub-addr.c — the UB plugin's field handles (schema fields resolved once) and addresses: the
 * CNA / EID address types and the per-view scan the analysis, the taps and the statistics use
 * (packet-ub-an.h). Split from packet-ub-analysis.c. */
#include <stddef.h>
#include <string.h>

#include <wireshark.h>
#include <epan/packet.h>
#include <epan/address_types.h>

#include <ubparse/ubparse.h>

#include "packet-ub-an.h"

int at_ub_cna = -1, at_ub_eid = -1; /* packet-ub-an.h */

/* ------------------------------------------------------------------------------------------ */
/* Field handles: a schema field resolved once to every table that defines it                   */
/* ------------------------------------------------------------------------------------------ */


/* a row of whole bytes, big-endian, no encoding: ub_field_value's value is these bytes */
static gboolean fh_plain(const ub_field *f)
{
    return f->type == UB_FT_UINT && !(f->flags & (UB_FF_VIRTUAL | UB_FF_ENCODED)) && f->bit_off % 8 == 0 &&
           f->bits % 8 == 0 && f->bits && f->bits <= 64;
}

static void fh_add(an_fh *fh, const char *abbrev)
{
    const ub_hdr *h[AN_FH_MAX];
    const ub_field *f[AN_FH_MAX];
    size_t n = ub_field_find(abbrev, h, f, AN_FH_MAX);
    for (size_t i = 0; i < n && i < AN_FH_MAX && fh->n < AN_FH_MAX; i++) {
        if (!f[i]) continue;
        fh->h[fh->n] = h[i];
        fh->f[fh->n] = f[i];
        fh->pn[fh->n] = fh_plain(f[i]) && f[i]->bit_off / 8 <= G_MAXUINT16 ? (guint8)(f[i]->bits / 8) : 0;
        fh->po[fh->n] = fh->pn[fh->n] ? (guint16)(f[i]->bit_off / 8) : 0;
        fh->n++;
    }
}

gboolean ub_an_fh_get(const an_fh *fh, const ub_layer *l, ub_val *v)
{
    if (!l) return FALSE;
    for (guint i = 0; i < fh->n; i++) {
        if (fh->h[i] != l->hdr) continue;
        if (fh->pn[i] && (guint32)fh->po[i] + fh->pn[i] <= l->len) { /* most packets: no bit reader */
            guint64 u = 0;
            for (const guint8 *p = l->data + fh->po[i], *e = p + fh->pn[i]; p < e; p++) u = u << 8 | *p;
            memset(v, 0, sizeof *v);
            v->u = u;
            return TRUE;
        }
        return ub_field_value(l, fh->f[i], v) == 0;
    }
    return FALSE;
}

/* value names of the handle's row in layer l's table (CTPH and RTPH name TPOpcode 0 differently) */
static const ub_vname *fh_vals(const an_fh *fh)
{
    for (guint i = 0; i < fh->n; i++)
        if (fh->f[i]->vals) return fh->f[i]->vals;
    return NULL;
}

an_fh f_scna, f_dcna, f_seid, f_deid; /* packet-ub-an.h */
static an_fh f_ip_src, f_ip_dst, f_stpn, f_dtpn;
static an_fh f_taop_b, f_taop_a, f_tpop, f_mgcode, f_scancmd;

/* ub_match.opcode of management matches: 0x10 | Code << 8 (MGMTETAH), or, for enumeration Scan
 * PDUs, 0x80 | (8 + CMD) << 8 (st_ta.c MATCH_SCAN); row/Code index = opcode >> 8 */
#define AN_MATCH_SCAN 0x80u
#define AN_MATCH_SCAN_CODE 8u

void ub_an_fields_init(void)
{
    fh_add(&f_scna, "ub.nth.scna");
    fh_add(&f_dcna, "ub.nth.dcna");
    fh_add(&f_ip_src, "ub.ipv4.src");
    fh_add(&f_ip_src, "ub.ipv6.src");
    fh_add(&f_ip_dst, "ub.ipv4.dst");
    fh_add(&f_ip_dst, "ub.ipv6.dst");
    fh_add(&f_seid, "ub.eidh.seid");
    fh_add(&f_deid, "ub.eidh.deid");
    fh_add(&f_stpn, "ub.rtph.srctpn");
    fh_add(&f_dtpn, "ub.rtph.dsttpn");
    fh_add(&f_taop_b, "ub.btah.taopcode");
    fh_add(&f_taop_a, "ub.atah.taopcode");
    fh_add(&f_tpop, "ub.rtph.tpopcode");
    fh_add(&f_tpop, "ub.utph.tpopcode");
    fh_add(&f_tpop, "ub.ctph.tpopcode");
    fh_add(&f_mgcode, "ub.mgmtetah.code");
    fh_add(&f_scancmd, "ub.scan.cmd");
}

const ub_vname *ub_an_taop_vals(void)
{
    return fh_vals(&f_taop_b);
}

const ub_vname *ub_an_tpop_vals(void)
{
    return fh_vals(&f_tpop);
}

/* name of a management match code (opcode >> 8): MGMTETAH Code, or enumeration CMD (packet-ub-an.h) */
void ub_an_mgmt_code_name(guint code, char *buf, size_t n, gboolean with_number)
{
    const char *nm;
    if (code >= AN_MATCH_SCAN_CODE && code < AN_MATCH_SCAN_CODE + 8) {
        nm = ub_vname_lookup(fh_vals(&f_scancmd), code - AN_MATCH_SCAN_CODE);
        if (with_number) g_snprintf(buf, (gulong)n, "%u enumeration CMD %u %s", code, code - AN_MATCH_SCAN_CODE, nm ? nm : "");
        else g_snprintf(buf, (gulong)n, "enumeration %s", nm ? nm : "CMD");
    } else {
        nm = ub_vname_lookup(fh_vals(&f_mgcode), code);
        if (with_number) g_snprintf(buf, (gulong)n, "%u %s", code, nm ? nm : "");
        else if (nm) g_snprintf(buf, (gulong)n, "%s", nm);
        else g_snprintf(buf, (gulong)n, "Code %u", code);
    }
    g_strchomp(buf);
}

/* ------------------------------------------------------------------------------------------ */
/* Addresses                                                                                   */
/* ------------------------------------------------------------------------------------------ */

/* UB CNA (16- or 24-bit, NTH) and UB EID (20-bit compact or 128-bit) address types. */
/* g_snprintf(buf, buf_len, "0x%0*x", width, v) + 1 without printf (the Source / Destination columns
 * format every packet's CNAs) */
static int hex_addr_str(gchar *buf, int buf_len, guint32 v, int width)
{
    char t[2 + 32] = "0x";
    int n = 2 + (int)ub_u64_hex(t + 2, v, (unsigned)width);
    if (buf_len > 0) {
        int k = n < buf_len - 1 ? n : buf_len - 1;
        memcpy(buf, t, (size_t)k);
        buf[k] = '\0';
    }
    return n + 1;
}

static int cna_to_str(const address *a, gchar *buf, int buf_len)
{
    const guint8 *d = (const guint8 *)a->data;
    if (a->len >= 1 && a->len <= 4 && buf_len >= 3 + 2 * a->len) { /* the Source / Destination columns */
        buf[0] = '0';
        buf[1] = 'x';
        ub_hex_bytes(buf + 2, d, (size_t)a->len); /* "0x%0*x" of len bytes: 2 digits a byte */
        buf[2 + 2 * a->len] = '\0';
        return 3 + 2 * a->len;
    }
    guint32 v = 0;
    for (int i = 0; i < a->len && i < 4; i++) v = v << 8 | d[i];
    return hex_addr_str(buf, buf_len, v, a->len * 2);
}
static int cna_str_len(const address *a _U_) { return 11; }
static const char *cna_col_filter(const address *a _U_, gboolean src) { return src ? "ub.nth.scna" : "ub.nth.dcna"; }

static int eid_to_str(const address *a, gchar *buf, int buf_len)
{
    const guint8 *d = (const guint8 *)a->data;
    if (a->len == 3) /* 20-bit EID, right-aligned: "0x%05x" */
        return hex_addr_str(buf, buf_len, (guint32)d[0] << 16 | (guint32)d[1] << 8 | d[2], 5);
    if (a->len == 16) /* 128-bit EID: RFC 5952 text, as ubdump */
        return (int)ub_ipv6_format(d, buf, buf_len > 0 ? (size_t)buf_len : 0) + 1;
    if (buf_len > 0) buf[0] = '\0';
    return 1;
}
static int eid_str_len(const address *a _U_) { return 40; }
static const char *eid_col_filter(const address *a _U_, gboolean src) { return src ? "ub.eidh.seid" : "ub.eidh.deid"; }


/* the address of field fh in layer l into a, its bytes in b (16 bytes that outlive a's use) */
static gboolean addr_from(guint8 *b, address *a, const an_fh *fh, const ub_layer *l, int type)
{
    ub_val v;
    const ub_field *f = NULL;
    guint i = 0;
    for (; i < fh->n; i++)
        if (fh->h[i] == l->hdr) {
            f = fh->f[i];
            break;
        }
    if (!f) return FALSE;
    int n;
    if (fh->pn[i] && (guint32)fh->po[i] + fh->pn[i] <= l->len) {
        /* whole bytes, big-endian, inside the layer: ub_field_value's value is these bytes (most packets) */
        n = fh->pn[i];
        const guint8 *d = l->data + fh->po[i];
        for (int k = 0; k < n; k++) b[k] = d[k];
        set_address(a, type, n, b);
        return TRUE;
    }
    if (ub_field_value(l, f, &v) != 0) return FALSE;
    if (f->type == UB_FT_UINT) {
        n = (int)((f->bits + 7) / 8);
        if (n > 8) n = 8;
        for (int k = 0; k < n; k++) b[k] = (guint8)(v.u >> (8 * (n - 1 - k)));
    } else {
        if (!v.bytes || (v.nbytes != 4 && v.nbytes != 16)) return FALSE;
        n = (int)v.nbytes;
        memcpy(b, v.bytes, (size_t)n);
        if (type < 0) type = n == 4 ? AT_IPv4 : AT_IPv6;
    }
    set_address(a, type, n, b);
    return TRUE;
}

void ub_an_scan(packet_info *pinfo, const ub_view *v, an_pkt *p)
{
    memset(p, 0, offsetof(an_pkt, ab)); /* ab[]: written before it is read (addr_from) */
    unsigned nl = v->nlayers > UB_MAX_LAYERS ? UB_MAX_LAYERS : v->nlayers;
    for (unsigned i = 0; i < nl; i++) {
        const ub_layer *l = &v->layer[i];
        if (!l->hdr) continue;
        const unsigned id = l->hdr->id;
        if (id >= UB_H_BTAH && id <= UB_H_ATOMIC_OPS) break; /* the transaction layer: NTH, IP, TPH, EIDH come before it */
        switch (id) {
        case UB_H_NTH16: case UB_H_NTH24: if (!p->nth) p->nth = l; break;
        case UB_H_IPV4: case UB_H_IPV6: if (!p->ip) p->ip = l; break;
        case UB_H_EIDH40: case UB_H_EIDH256: if (!p->eidh) p->eidh = l; break;
        case UB_H_RTPH: if (!p->tpkind) { p->rtph = l; p->tpkind = 1; } break;
        case UB_H_UTPH: if (!p->tpkind) p->tpkind = 2; break;
        case UB_H_CTPH: if (!p->tpkind) p->tpkind = 3; break;
        default: break;
        }
    }
    if (p->nth) {
        if (!addr_from(p->ab[0], &p->src, &f_scna, p->nth, at_ub_cna) ||
            !addr_from(p->ab[1], &p->dst, &f_dcna, p->nth, at_ub_cna)) {
            clear_address(&p->src);
            clear_address(&p->dst);
        }
    } else if (p->ip) {
        if (!addr_from(p->ab[0], &p->src, &f_ip_src, p->ip, -1) ||
            !addr_from(p->ab[1], &p->dst, &f_ip_dst, p->ip, -1)) {
            clear_address(&p->src);
            clear_address(&p->dst);
        }
    } else if (v->entry == UB_ENTRY_TPH &&
               (pinfo->net_src.type == AT_IPv4 || pinfo->net_src.type == AT_IPv6) &&
               pinfo->net_dst.type == pinfo->net_src.type) {
        /* UBoE: the IP header is Wireshark's */
        copy_address_shallow(&p->src, &pinfo->net_src);
        copy_address_shallow(&p->dst, &pinfo->net_dst);
    }
    if (p->eidh) {
        if (!addr_from(p->ab[2], &p->seid, &f_seid, p->eidh, at_ub_eid) ||
            !addr_from(p->ab[3], &p->deid, &f_deid, p->eidh, at_ub_eid)) {
            clear_address(&p->seid);
            clear_address(&p->deid);
        }
    }
    if (p->rtph) {
        ub_val a, b;
        if (ub_an_fh_get(&f_stpn, p->rtph, &a) && ub_an_fh_get(&f_dtpn, p->rtph, &b)) {
            p->stpn = (guint32)a.u;
            p->dtpn = (guint32)b.u;
        } else {
            p->rtph = NULL;
            p->tpkind = 0;
        }
    }
}

void ub_an_register_addr(void)
{
    at_ub_cna = address_type_dissector_register("AT_UB_CNA", "UB CNA", cna_to_str, cna_str_len, NULL,
                                                cna_col_filter, NULL, NULL, NULL);
    at_ub_eid = address_type_dissector_register("AT_UB_EID", "UB EID", eid_to_str, eid_str_len, NULL,
                                                eid_col_filter, NULL, NULL, NULL);
}

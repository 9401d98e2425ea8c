/* Header one-liners and protocol names (Wireshark tree items and Protocol column; ubdump -V may
 * use the same text): "Reliable Transport Header, RTP data, PSN 17, TPN 0x101→0x202".
 *
 * The key fields of each header are listed once, here, by the row enums of the header's own table
 * (rows.h; profile tables and truncated layers are handled by ub_field_value). Each key:
 *   f          "<Name> <value>"                     (hex fields as 0x.., minimal digits)
 *   NM(f)      the value's name only, e.g. "Write"  (falls back to "<Name> <value>")
 *   PAIR(a, b) "<common name> va→vb" when the names are prefix + shared suffix (SrcTPN/DstTPN -> "TPN"),
 *              else "<NameA> va → <NameB> vb" (SCNA/DCNA)                                                    */
#include "internal.h"
#include "sumfmt.h"

#include <stdio.h>

/* the key rows of each header, in order (a profile's table has the same rows at the same indexes) */
enum { K_NAME = 0x80, K_PAIR = 0x40, K_ROW = 0x3f };
#define NM(r) (K_NAME | (r))
#define PAIR(a, b) (K_PAIR | (a)), (b)
typedef struct { uint8_t n, k[4]; } hdr_keys;
#define KEYS(...) { sizeof((const uint8_t[]){ __VA_ARGS__ }), { __VA_ARGS__ } }

static const hdr_keys key_table[UB_H__COUNT] = {
    /* data link (§4) */
    [UB_H_LPH] = KEYS(LPH_CFG, LPH_VL), [UB_H_LBH] = KEYS(LBH_CFG, LBH_VL), [UB_H_LCH] = KEYS(LCH_CTRL, LCH_SUB_CTRL),
    [UB_H_BCRC] = KEYS(BCRC_CRC30, NM(BCRC_STATUS)), [UB_H_END] = KEYS(END_ERROR_FLAG),
    [UB_H_DLLCB_CRD_ACK] = KEYS(CRD_T, CRD_SD, CRD_ACK_NUM), [UB_H_DLLCB_RETRY_REQ] = KEYS(RREQ_RCVPTR, RREQ_NUM_RETRY),
    [UB_H_DLLCB_RETRY_ACK] = KEYS(RACK_RDPTR, RACK_WRPTR),
    /* capture encapsulations */
    [UB_H_IPV4] = KEYS(PAIR(IP4_SRC, IP4_DST)), [UB_H_IPV6] = KEYS(PAIR(IP6_SRC, IP6_DST)),
    [UB_H_UDP] = KEYS(PAIR(UDP_SPORT, UDP_DPORT)),
    /* network (§5) */
    [UB_H_NTH16] = KEYS(PAIR(NTH16_SCNA, NTH16_DCNA)), [UB_H_NTH24] = KEYS(PAIR(NTH24_SCNA, NTH24_DCNA)),
    [UB_H_ICRC] = KEYS(ICRC_ICRC, NM(ICRC_STATUS)),
    /* transport (§6) */
    [UB_H_RTPH] = KEYS(NM(RTPH_OP), RTPH_PSN, PAIR(RTPH_SRC, RTPH_DST)), [UB_H_UTPH] = KEYS(NM(UTPH_OP)),
    [UB_H_CTPH] = KEYS(NM(CTPH_OP)), [UB_H_SAETPH] = KEYS(SAE_MAXRCV),
    [UB_H_UPIH16] = KEYS(UPIH_UPI), [UB_H_UPIH32] = KEYS(UPIH_UPI), [UB_H_EIDH40] = KEYS(PAIR(EIDH_SEID, EIDH_DEID)),
    [UB_H_CIPH] = KEYS(CIPH_ID, CIPH_SN),
    /* transaction (§7) */
    [UB_H_BTAH] = KEYS(NM(BT_OP), BT_TASSN), [UB_H_BTAH_C] = KEYS(NM(BT_OP), BT_TASSN),
    [UB_H_BTAH_ALT] = KEYS(NM(BT_OP), BT_TASSN), [UB_H_ATAH] = KEYS(NM(AT_OP), AT_TASSN),
    [UB_H_ATAH_C] = KEYS(NM(ATC_OP), ATC_TASSN), [UB_H_MAETAH] = KEYS(MA_ADDR, MA_LEN),
    [UB_H_MAETAH_C] = KEYS(MAC_ADDR, MAC_LEN), [UB_H_MGMTETAH] = KEYS(MG_CODE, MG_SUB),
    /* enumeration and management (§10.4) */
    [UB_H_SCANHDR] = KEYS(SH_HOPS, SH_STEP), [UB_H_SCANPDU_REQ] = KEYS(SQ_CMD, SQ_OPCODE, SQ_MSN),
    [UB_H_SCANPDU_RSP] = KEYS(SQ_CMD, SQ_OPCODE, SQ_MSN),
    /* network control, URPC (App. F, H) */
    [UB_H_NCTL] = KEYS(NM(NCTL_PROTOCOL)), [UB_H_URPC_REQ] = KEYS(RQ_ID), [UB_H_URPC_RSP] = KEYS(RS_ID),
};

typedef ub_sbuf sbuf;
#define put ub_sb_str

/* value text of row f of layer l ("0x301", "17", "10.0.0.1") into buf (n >= 64); false if not in the layer */
static bool val_text(const ub_layer *l, const ub_field *f, char *buf, size_t n)
{
    ub_val v;
    if (ub_field_value(l, f, &v) != 0) return false;
    if (f->type == UB_FT_UINT || f->type == UB_FT_BOOL) { /* "0x" hex / decimal digits, minimal */
        size_t k = 0;
        if (f->base == UB_BASE_HEX) {
            buf[k++] = '0';
            buf[k++] = 'x';
            k += ub_u64_hex(buf + k, v.u, 0);
        } else {
            k += ub_u64_dec(buf + k, v.u);
        }
        buf[k] = '\0';
    } else {
        ub_format_value(f, &v, false, buf, n);
    }
    return true;
}

static const char *fname(const ub_field *f)
{
    return f->name && *f->name ? f->name : f->abbrev;
}

/* one token of a key list (see the file comment): a, and b after '>' (else NULL), rows of the table */
static void key_text(sbuf *s, const ub_layer *l, bool name_only, const ub_field *a, const ub_field *b)
{
    char va[64], vb[64];
    if (b) {
        if (!val_text(l, a, va, sizeof va) || !val_text(l, b, vb, sizeof vb)) return;
        const char *na = fname(a), *nb = fname(b);
        size_t la = strlen(na), lb = strlen(nb), k = 0;
        while (k < la && k < lb && na[la - 1 - k] == nb[lb - 1 - k]) k++;
        const char *suf = na + la - k;
        while (*suf == ' ') suf++;
        bool common = k >= 3 && la - k >= 3 && lb - k >= 3;
        put(s, ", ");
        put(s, common ? suf : na); /* ", TPN 0x101→0x202" / ", SCNA 0x1 → DCNA 0x2" */
        put(s, " ");
        put(s, va);
        put(s, common ? "→" : " → ");
        if (!common) { put(s, nb); put(s, " "); }
        put(s, vb);
        return;
    }
    if (name_only) { /* the value's name, else "<Name> <value>" */
        ub_val v;
        if (ub_field_value(l, a, &v) != 0) return;
        const char *nm = ub_vname_lookup(a->vals, v.u);
        if (nm) { put(s, ", "); put(s, nm); return; }
    }
    if (!val_text(l, a, va, sizeof va)) return;
    put(s, ", ");
    put(s, fname(a));
    put(s, " ");
    put(s, va);
}

size_t ub_layer_summary(const ub_layer *l, char *buf, size_t n)
{
    sbuf s = { buf, n, 0 };
    if (!n) return 0;
    buf[0] = '\0';
    if (!l || !l->hdr) return 0;
    put(&s, l->hdr->name ? l->hdr->name : l->hdr->key);
    const hdr_keys *k = l->hdr->id < UB_H__COUNT ? &key_table[l->hdr->id] : NULL;
    const ub_field *f = l->hdr->fields;
    unsigned nf = l->hdr->nfields;
    for (unsigned r = 0; k && r < k->n; r++) { /* a row, or a pair of rows */
        unsigned key = k->k[r], ra = key & K_ROW;
        bool pair = key & K_PAIR;
        unsigned rb = pair ? k->k[++r] : 0;
        if (ra < nf && (!pair || rb < nf)) key_text(&s, l, key & K_NAME, &f[ra], pair ? &f[rb] : NULL);
    }
    ub_sb_end(&s);
    return s.w < n ? s.w : n - 1;
}

/* Layer names (spec chapters): data link §4, network §5, transport §6, transaction §7, management
 * and enumeration §10.4, network control App. F, URPC App. H. */
/* the protocol a header belongs to for the Protocol column: 0 none, 1 UB-NW, 2 UB-TP, 3 UB-TA, 4 UB-NCTL,
 * 5 UB-ENUM, 6 UB-MGMT, 7 UB-URPC (a table: one load per layer; summary.c folds it in its own pass) */
const uint8_t ub_proto_code[UB_H__COUNT] = { /* every header listed (ISO C has no range designators) */
    [UB_H_NTH16] = 1, [UB_H_NTH24] = 1, [UB_H_NTHIP] = 1, [UB_H_ICRC] = 1,
    [UB_H_RTPH] = 2, [UB_H_UTPH] = 2, [UB_H_CTPH] = 2, [UB_H_CETPH_LDCP] = 2, [UB_H_CETPH_CAQM] = 2,
    [UB_H_CETPH_CNP] = 2, [UB_H_SAETPH] = 2, [UB_H_TPPAD] = 2, [UB_H_UPIH16] = 2, [UB_H_UPIH32] = 2,
    [UB_H_EIDH40] = 2, [UB_H_EIDH256] = 2, [UB_H_CIPH] = 2, [UB_H_ICV] = 2,
    [UB_H_BTAH] = 3, [UB_H_BTAH_C] = 3, [UB_H_BTAH_ALT] = 3, [UB_H_ATAH] = 3, [UB_H_ATAH_C] = 3,
    [UB_H_MAETAH] = 3, [UB_H_MAETAH_C] = 3, [UB_H_MTETAH] = 3, [UB_H_TVETAH] = 3, [UB_H_TAIDETAH] = 3,
    [UB_H_OFSTETAH] = 3, [UB_H_IMMETAH] = 3, [UB_H_NTFETAH] = 3, [UB_H_BEETAH] = 3, [UB_H_UDETAH] = 3,
    [UB_H_PAYLOAD] = 3, [UB_H_ATOMIC_OPS] = 3, /* not the MGMTETAH */
    [UB_H_NCTL] = 4, [UB_H_IPNOTIFY4] = 4, [UB_H_IPNOTIFY6] = 4, [UB_H_NPIC] = 4, [UB_H_NPIC_ENTRY] = 4,
    [UB_H_NCTL_PDU] = 4,
    [UB_H_ENUMPAD] = 5, [UB_H_SCANHDR] = 5, [UB_H_SCAN_RPATH] = 5, [UB_H_SCANPDU_REQ] = 5,
    [UB_H_SCANPDU_RSP] = 5, [UB_H_SCAN_CFGCNA_REQ] = 5, [UB_H_SCAN_QRYCNA_REQ] = 5,
    [UB_H_SCAN_QRYCNA_RSP] = 5, [UB_H_TLV_SLICE] = 5, [UB_H_TLV_PORTNUM] = 5, [UB_H_TLV_PORTINFO] = 5,
    [UB_H_TLV_CAPINFO] = 5, [UB_H_TLV_OTHER] = 5,
    [UB_H_MGMTETAH] = 6, [UB_H_MG_ERROR] = 6, [UB_H_MG_LINK] = 6, [UB_H_MG_HOTPLUG] = 6,
    [UB_H_MG_CFG_REQ] = 6, [UB_H_MG_CFG_RSP] = 6, [UB_H_MG_VDM_VENDOR] = 6, [UB_H_MG_VDM_VENDOR_ALT] = 6,
    [UB_H_MG_RSI_REQ] = 6, [UB_H_MG_RSI_RSP] = 6, [UB_H_MG_ENTINFO_RSP] = 6, [UB_H_MG_ENTINFO_MUE] = 6,
    [UB_H_MG_LNQ_REQ] = 6, [UB_H_MG_TOKEN_REQ] = 6, [UB_H_MG_TOKEN_RSP] = 6, [UB_H_MG_ENT_REG] = 6,
    [UB_H_MG_ENT_DEREG] = 6, [UB_H_MG_BI_CREATE] = 6, [UB_H_MG_BI_DESTROY] = 6, [UB_H_MG_CFG_CPL] = 6,
    [UB_H_MG_PORT_RESET] = 6, [UB_H_MG_OPAQUE] = 6,
    [UB_H_URPC_REQ] = 7, [UB_H_URPC_DMA] = 7, [UB_H_URPC_ACK] = 7, [UB_H_URPC_RSP] = 7,
    [UB_H_URPC_RDOFF] = 7,
};
/* the runs of consecutive header ids above, each complete */
_Static_assert(UB_H_ICV - UB_H_RTPH == 13, "a header was added to or removed from UB_H_RTPH..UB_H_ICV: update ub_proto_code");
_Static_assert(UB_H_UDETAH - UB_H_BTAH == 14, "a header was added to or removed from UB_H_BTAH..UB_H_UDETAH: update ub_proto_code");
_Static_assert(UB_H_NCTL_PDU - UB_H_NCTL == 5, "a header was added to or removed from UB_H_NCTL..UB_H_NCTL_PDU: update ub_proto_code");
_Static_assert(UB_H_TLV_OTHER - UB_H_ENUMPAD == 12, "a header was added to or removed from UB_H_ENUMPAD..UB_H_TLV_OTHER: update ub_proto_code");
_Static_assert(UB_H_MG_OPAQUE - UB_H_MG_ERROR == 20, "a header was added to or removed from UB_H_MG_ERROR..UB_H_MG_OPAQUE: update ub_proto_code");
_Static_assert(UB_H_URPC_RDOFF - UB_H_URPC_REQ == 4, "a header was added to or removed from UB_H_URPC_REQ..UB_H_URPC_RDOFF: update ub_proto_code");

const char *ub_proto_name(const ub_view *v, unsigned best)
{
    static const char *const names[8] = { NULL, "UB-NW", "UB-TP", "UB-TA", "UB-NCTL", "UB-ENUM", "UB-MGMT", "UB-URPC" };
    if (v->kind == UB_KIND_DLLCB) return "UB-DLL";
    if (!ub_view_ub(v)) return "UB";
    return best && best < 8 ? names[best] : v->kind == UB_KIND_UBOE ? "UBoE" : "UB-DLL";
}

const char *ub_view_protocol(const ub_view *v)
{
    if (v->kind == UB_KIND_DLLCB || !ub_view_ub(v)) return ub_proto_name(v, 0);
    unsigned nl = v->nlayers > UB_MAX_LAYERS ? UB_MAX_LAYERS : v->nlayers;
    unsigned rank = 0, best = 0; /* the last layer of the highest rank names the packet */
    for (unsigned i = 0; i < nl; i++) {
        const ub_hdr *h = v->layer[i].hdr;
        if (h) ub_proto_fold(h->id, &rank, &best);
    }
    return ub_proto_name(v, best);
}

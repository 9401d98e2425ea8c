/* Header one-liners and protocol names (Wireshark tree items and Protocol column; ubdump -V may
 * use the same text): "Reliable Transport Header, RTP data, PSN 17, TPN 0x101→0x202".
 *
 * The key fields of each header are listed once, here, by their schema short names (the rows come
 * from the header's own table, so profile tables and truncated layers are handled by
 * ub_field_value). Token syntax:
 *   f       "<Name> <value>"                     (hex fields as 0x.., minimal digits)
 *   !f      the value's name only, e.g. "Write"  (falls back to "<Name> <value>")
 *   a>b     "<common name> va→vb" when the names are prefix + shared suffix (SrcTPN/DstTPN -> "TPN"),
 *           else "<NameA> va → <NameB> vb" (SCNA/DCNA)                                                        */
#include "internal.h"
#include "sumfmt.h"

#include <stdio.h>

/* the key list of a header and the row of each name in it, in order (constant: a profile's table has the
 * same rows at the same indexes; test_sumfmt checks them against ub_field_index) */
typedef struct { const char *keys; uint8_t rows[4]; } hdr_keys;

static const hdr_keys key_table[UB_H__COUNT] = {
    /* data link (§4) */
    [UB_H_LPH] = { "cfg vl", { 6, 4 } }, [UB_H_LBH] = { "cfg vl", { 6, 4 } }, [UB_H_LCH] = { "ctrl sub_ctrl", { 4, 5 } },
    [UB_H_BCRC] = { "crc30 !status", { 2, 4 } }, [UB_H_END] = { "error_flag", { 1 } },
    [UB_H_DLLCB_CRD_ACK] = { "t sd ack_num", { 2, 0, 3 } }, [UB_H_DLLCB_RETRY_REQ] = { "rcvptr num_retry", { 2, 4 } },
    [UB_H_DLLCB_RETRY_ACK] = { "rdptr wrptr", { 3, 4 } },
    /* capture encapsulations */
    [UB_H_IPV4] = { "src>dst", { 13, 14 } }, [UB_H_IPV6] = { "src>dst", { 6, 7 } }, [UB_H_UDP] = { "srcport>dstport", { 0, 1 } },
    /* network (§5) */
    [UB_H_NTH16] = { "scna>dcna", { 0, 1 } }, [UB_H_NTH24] = { "scna>dcna", { 0, 1 } }, [UB_H_ICRC] = { "icrc !status", { 0, 2 } },
    /* transport (§6) */
    [UB_H_RTPH] = { "!tpopcode psn srctpn>dsttpn", { 1, 10, 5, 6 } }, [UB_H_UTPH] = { "!tpopcode", { 1 } }, [UB_H_CTPH] = { "!tpopcode", { 0 } },
    [UB_H_SAETPH] = { "maxrcvpsn", { 2 } },
    [UB_H_UPIH16] = { "upi", { 1 } }, [UB_H_UPIH32] = { "upi", { 1 } }, [UB_H_EIDH40] = { "seid>deid", { 0, 1 } }, [UB_H_CIPH] = { "cip_id sn", { 0, 1 } },
    /* transaction (§7) */
    [UB_H_BTAH] = { "!taopcode ini_tassn", { 0, 7 } }, [UB_H_BTAH_C] = { "!taopcode ini_tassn", { 0, 7 } },
    [UB_H_BTAH_ALT] = { "!taopcode ini_tassn", { 0, 7 } }, [UB_H_ATAH] = { "!taopcode ini_tassn", { 0, 6 } },
    [UB_H_ATAH_C] = { "!taopcode ini_tassn", { 0, 6 } }, [UB_H_MAETAH] = { "address length", { 0, 4 } },
    [UB_H_MAETAH_C] = { "address length", { 0, 3 } }, [UB_H_MGMTETAH] = { "code sub_code", { 1, 0 } },
    /* enumeration and management (§10.4) */
    [UB_H_SCANHDR] = { "hops step", { 3, 4 } }, [UB_H_SCANPDU_REQ] = { "cmd opcode msn", { 1, 2, 6 } }, [UB_H_SCANPDU_RSP] = { "cmd opcode msn", { 1, 2, 6 } },
    /* network control, URPC (App. F, H) */
    [UB_H_NCTL] = { "!protocol", { 0 } }, [UB_H_URPC_REQ] = { "request_id", { 11 } }, [UB_H_URPC_RSP] = { "request_id", { 4 } },
};

typedef ub_sbuf sbuf;
#define put ub_sb_str

const char *ub_hdr_keys(unsigned id, const uint8_t **rows)
{
    if (id >= UB_H__COUNT || !key_table[id].keys) return NULL;
    if (rows) *rows = key_table[id].rows;
    return key_table[id].keys;
}

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
    const uint8_t *rows;
    const char *p = ub_hdr_keys(l->hdr->id, &rows);
    const ub_field *f = l->hdr->fields;
    unsigned nf = l->hdr->nfields, r = 0;
    for (; p && *p; p++) { /* tokens "f", "!f", "a>b" separated by blanks; rows[] in the order of the names */
        if (*p == ' ') continue;
        bool name_only = *p == '!';
        bool pair = false;
        while (*p && *p != ' ') pair |= *p++ == '>';
        unsigned ra = rows[r++], rb = pair ? rows[r++] : 0;
        if (ra < nf && (!pair || rb < nf)) key_text(&s, l, name_only, &f[ra], pair ? &f[rb] : NULL);
        if (!*p) break;
    }
    ub_sb_end(&s);
    return s.w < n ? s.w : n - 1;
}

/* Layer names (spec chapters): data link §4, network §5, transport §6, transaction §7, management
 * and enumeration §10.4, network control App. F, URPC App. H. */
const char *ub_view_protocol(const ub_view *v)
{
    if (v->kind == UB_KIND_DLLCB) return "UB-DLL";
    if (!ub_view_ub(v)) return "UB";
    unsigned nl = v->nlayers > UB_MAX_LAYERS ? UB_MAX_LAYERS : v->nlayers;
    int rank = 0;
    const char *name = v->kind == UB_KIND_UBOE ? "UBoE" : "UB-DLL";
    for (unsigned i = 0; i < nl; i++) {
        const ub_hdr *h = v->layer[i].hdr;
        if (!h) continue;
        unsigned id = h->id;
        int r = 0;
        const char *nm = NULL;
        if (id == UB_H_NTH16 || id == UB_H_NTH24 || id == UB_H_NTHIP || id == UB_H_ICRC) { r = 1; nm = "UB-NW"; }
        else if (id >= UB_H_RTPH && id <= UB_H_ICV) { r = 2; nm = "UB-TP"; }
        else if (id >= UB_H_BTAH && id <= UB_H_ATOMIC_OPS && id != UB_H_MGMTETAH) { r = 3; nm = "UB-TA"; }
        else if (id == UB_H_NCTL || (id >= UB_H_IPNOTIFY4 && id <= UB_H_NCTL_PDU)) { r = 4; nm = "UB-NCTL"; }
        else if (id >= UB_H_ENUMPAD && id <= UB_H_TLV_OTHER) { r = 4; nm = "UB-ENUM"; }
        else if (id == UB_H_MGMTETAH || (id >= UB_H_MG_ERROR && id <= UB_H_MG_OPAQUE)) { r = 4; nm = "UB-MGMT"; }
        else if (id >= UB_H_URPC_REQ && id <= UB_H_URPC_RDOFF) { r = 5; nm = "UB-URPC"; }
        if (nm && r >= rank) { rank = r; name = nm; }
    }
    return name;
}

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

#include <stdio.h>

typedef struct { uint16_t id; const char *keys; } hdr_keys;

static const hdr_keys key_table[] = {
    /* data link (§4) */
    { UB_H_LPH, "cfg vl" }, { UB_H_LBH, "cfg vl" }, { UB_H_LCH, "ctrl sub_ctrl" },
    { UB_H_BCRC, "crc30 !status" }, { UB_H_END, "error_flag" },
    { UB_H_DLLCB_CRD_ACK, "t sd ack_num" }, { UB_H_DLLCB_RETRY_REQ, "rcvptr num_retry" },
    { UB_H_DLLCB_RETRY_ACK, "rdptr wrptr" },
    /* capture encapsulations */
    { UB_H_IPV4, "src>dst" }, { UB_H_IPV6, "src>dst" }, { UB_H_UDP, "srcport>dstport" },
    /* network (§5) */
    { UB_H_NTH16, "scna>dcna" }, { UB_H_NTH24, "scna>dcna" }, { UB_H_ICRC, "icrc !status" },
    /* transport (§6) */
    { UB_H_RTPH, "!tpopcode psn srctpn>dsttpn" }, { UB_H_UTPH, "!tpopcode" }, { UB_H_CTPH, "!tpopcode" },
    { UB_H_SAETPH, "maxrcvpsn" },
    { UB_H_UPIH16, "upi" }, { UB_H_UPIH32, "upi" }, { UB_H_EIDH40, "seid>deid" }, { UB_H_CIPH, "cip_id sn" },
    /* transaction (§7) */
    { UB_H_BTAH, "!taopcode ini_tassn" }, { UB_H_BTAH_C, "!taopcode ini_tassn" },
    { UB_H_BTAH_ALT, "!taopcode ini_tassn" }, { UB_H_ATAH, "!taopcode ini_tassn" },
    { UB_H_ATAH_C, "!taopcode ini_tassn" }, { UB_H_MAETAH, "address length" },
    { UB_H_MAETAH_C, "address length" }, { UB_H_MGMTETAH, "code sub_code" },
    /* enumeration and management (§10.4) */
    { UB_H_SCANHDR, "hops step" }, { UB_H_SCANPDU_REQ, "cmd opcode msn" }, { UB_H_SCANPDU_RSP, "cmd opcode msn" },
    /* network control, URPC (App. F, H) */
    { UB_H_NCTL, "!protocol" }, { UB_H_URPC_REQ, "request_id" }, { UB_H_URPC_RSP, "request_id" },
};

typedef struct { char *b; size_t n, w; } sbuf;

/* append text (per-packet path of the Wireshark tree: no printf); truncates as snprintf would */
static void put(sbuf *s, const char *t)
{
    if (s->w >= s->n) return;
    size_t len = strlen(t), room = s->n - s->w - 1;
    memcpy(s->b + s->w, t, len < room ? len : room);
    s->w = s->w + len < s->n ? s->w + len : s->n - 1;
    s->b[s->w] = '\0';
}

/* "0x" hex / decimal digits of v into buf (at least 24 bytes) */
static void u64_text(uint64_t v, bool hex, char *buf)
{
    char t[24];
    size_t k = 0;
    do {
        t[k++] = hex ? "0123456789abcdef"[v & 15] : (char)('0' + v % 10);
        v = hex ? v >> 4 : v / 10;
    } while (v);
    size_t o = 0;
    if (hex) { buf[o++] = '0'; buf[o++] = 'x'; }
    while (k) buf[o++] = t[--k];
    buf[o] = '\0';
}

/* value text of row f of layer l ("0x301", "17", "10.0.0.1"); false if not in the layer */
static bool val_text(const ub_layer *l, const ub_field *f, char *buf, size_t n)
{
    ub_val v;
    if (ub_field_value(l, f, &v) != 0) return false;
    if ((f->type == UB_FT_UINT || f->type == UB_FT_BOOL) && n >= 24)
        u64_text(v.u, f->base == UB_BASE_HEX, buf);
    else
        ub_format_value(f, &v, false, buf, n);
    return true;
}

static const ub_field *row(const ub_hdr *h, const char *tok, size_t len)
{
    char nm[48];
    if (len == 0 || len >= sizeof nm) return NULL;
    memcpy(nm, tok, len);
    nm[len] = '\0';
    int i = ub_field_index(h, nm);
    return i < 0 ? NULL : &h->fields[i];
}

static const char *fname(const ub_field *f)
{
    return f->name && *f->name ? f->name : f->abbrev;
}

/* one token of a key list (see the file comment) */
static void key_text(sbuf *s, const ub_layer *l, const char *tok, size_t len)
{
    const ub_hdr *h = l->hdr;
    bool name_only = tok[0] == '!';
    if (name_only) { tok++; len--; }
    const char *gt = memchr(tok, '>', len);
    char va[64], vb[64];
    if (gt) {
        const ub_field *a = row(h, tok, (size_t)(gt - tok)), *b = row(h, gt + 1, len - (size_t)(gt - tok) - 1);
        if (!a || !b || !val_text(l, a, va, sizeof va) || !val_text(l, b, vb, sizeof vb)) return;
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
    const ub_field *f = row(h, tok, len);
    if (!f) return;
    if (name_only) { /* the value's name, else "<Name> <value>" */
        ub_val v;
        if (ub_field_value(l, f, &v) != 0) return;
        const char *nm = ub_vname_lookup(f->vals, v.u);
        if (nm) { put(s, ", "); put(s, nm); return; }
    }
    if (!val_text(l, f, va, sizeof va)) return;
    put(s, ", ");
    put(s, fname(f));
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
    for (size_t i = 0; i < sizeof key_table / sizeof key_table[0]; i++) {
        if (key_table[i].id != l->hdr->id) continue;
        const char *p = key_table[i].keys;
        while (*p) {
            size_t len = strcspn(p, " ");
            if (len) key_text(&s, l, p, len);
            p += len;
            while (*p == ' ') p++;
        }
        break;
    }
    return s.w;
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

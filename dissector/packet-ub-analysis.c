/* packet-ub-analysis.c — protocol-state analysis (ub.analysis.*), taps and statistics of the UB plugin
 * (its field handles and address types: packet-ub-addr.c).
 *
 * The analysis is libubparse's state engine (ubparse/state.h), the same code as `ubdump --audit`:
 * one ub_state per capture file, fed with every UB packet on the first, sequential pass
 * (pinfo->fd->visited == FALSE) with its frame number, time, interface and direction.  The engine's
 * callbacks (findings, request/response matches, per-packet TP flags) are stored in file-scope maps
 * keyed by frame number and shown on every pass as generated fields and expert infos, like TCP's
 * tcp.analysis.*.  Findings about outstanding state are emitted by ub_state_finish(), which runs in
 * the post-sequential-pass routine: tshark -2 and the GUI show them, single-pass tshark cannot.
 *
 * Statistics (docs/wireshark.md; tables and trees in packet-ub-stats.c):
 *   tap "ub"      per decoded packet: the conversation table -z conv,ub (CNA / IP pairs),
 *                 -z ub,srt (response times from the engine's matches), -z ub,tree (packet counts)
 *   tap "ub_tp"   RTP/UTP/CTP packets: -z conv,ub_tp (TP channels: address + TPN, as ubdump -z ub,tp)
 *   tap "ub_eid"  packets with an EIDH: -z conv,ub_eid (EID pairs)
 */
#include <string.h>

#include <wireshark.h>
#include <epan/packet.h>
#include <epan/column-info.h>
#include <epan/expert.h>
#include <epan/prefs.h>
#include <epan/proto_data.h>
#include <epan/tap.h>
#include <epan/address_types.h>
#include <epan/to_str.h>
#include <epan/wmem_scopes.h>
#include <wiretap/wtap.h>

#include <ubparse/ubparse.h>
#include <ubparse/capfile.h>
#include <ubparse/expert.h>
#include <ubparse/iostat.h>
#include <ubparse/state.h>

#include "packet-ub-an.h"

/* ------------------------------------------------------------------------------------------ */
/* Registration ids                                                                            */
/* ------------------------------------------------------------------------------------------ */

static int proto_ub_an = -1;   /* proto_ub (owner of the fields) */
static int proto_ub_tp = -1;   /* "ub_tp": conversation table of TP channels */
static int proto_ub_eid = -1;  /* "ub_eid": conversation table of EID pairs */

#define hf_an ub_af_hf[UB_AF_ANALYSIS] /* ubparse/anfields.h */
#define hf_an_tp_channel ub_af_hf[UB_AF_TP_CHANNEL]
#define hf_an_expected_psn ub_af_hf[UB_AF_EXPECTED_PSN]
#define hf_an_response_in ub_af_hf[UB_AF_RESPONSE_IN]
#define hf_an_request_in ub_af_hf[UB_AF_REQUEST_IN]
#define hf_an_acked_in ub_af_hf[UB_AF_ACKED_IN]
#define hf_an_acks_frame ub_af_hf[UB_AF_ACKS_FRAME]
#define hf_an_latency ub_af_hf[UB_AF_LATENCY]
#define hf_an_rule ub_af_hf[UB_AF_RULE]
#define hf_an_related ub_af_hf[UB_AF_RELATED]
static int hf_cna = -1;   /* hidden: both CNAs (conversation filters, like ip.addr) */
static int hf_eid = -1;   /* hidden: both 20-bit EIDs */
/* hidden: TP endpoints ("address:0xTPN") */
#define hf_tp_src ub_af_hf[UB_AF_TP_SRC]
#define hf_tp_dst ub_af_hf[UB_AF_TP_DST]
#define hf_tp_ep ub_af_hf[UB_AF_TP_ENDPOINT]

static gint ett_an = -1;
static gint ett_an_finding = -1;

/* TP flags: expert items whose names are the filter fields (as tcp.analysis.retransmission) */
static expert_field ei_retrans = EI_INIT, ei_ooo = EI_INIT, ei_lost = EI_INIT, ei_dupack = EI_INIT,
                    ei_dup = EI_INIT, ei_nak = EI_INIT, ei_sack = EI_INIT;
/* engine findings: "ub.analysis.finding", one registration per (group, severity) */
enum { FG_SEQUENCE, FG_PROTOCOL, FG_MALFORMED, FG_CHECKSUM, FG__N };
static expert_field ei_finding[FG__N][3]; /* rules registered at run time (Lua ub.rule) */
/* built-in rules: one expert item per (rule, group, severity) with the summary "UB-TP-002: <title>",
 * so Expert Info and tshark -z expert group the findings per rule; all named ub.analysis.finding */
static expert_field *ei_rule;   /* [rule][FG__N][3] */
static unsigned ei_nrules;

/* the TP-flag expert items as registered (severity, group, summary) */
static struct tp_ei_sev {
    expert_field *ei;
    const expert_field_info *in;
} tp_ei_sev[8];
static const ei_register_info *ei_rule_reg; /* ei_rule[k] as registered: ei_rule_reg[k].eiinfo */
static int expert_tap = -2;                 /* Wireshark's "expert" tap (-2: not looked up yet) */
static gboolean ei_tap_direct;              /* every summary above fits expert.c's label (an_expert_tap) */

static int tap_ub = -1, tap_ub_tp = -1, tap_ub_eid = -1;

/* preferences (names as ubdump's options) */
static gboolean pref_analyze = TRUE;
static gboolean pref_expect_taack = FALSE;
static gboolean pref_gaps_are_notes = FALSE;
static guint pref_response_timeout_ms = 100;

/* ------------------------------------------------------------------------------------------ */
/* Per-capture analysis state                                                                  */
/* ------------------------------------------------------------------------------------------ */


struct an_find {
    guint16 rule;
    guint8 sev;        /* ub_sev */
    guint8 group;      /* FG_* */
    guint8 nrel;
    guint8 nvalues;
    guint32 rel[UB_FINDING_FRAMES];
    gint64 values[4];
    const char *detail, *key; /* static (ub_finding) */
    const char *keytext;      /* file scope, NULL when empty */
}; /* the text is formatted only when shown (an_find_text) */
typedef struct an_find an_find;


static struct {
    ub_state *st;
    gboolean failed;       /* ub_state_new failed: no analysis for this file */
    gboolean finished;     /* ub_state_finish ran */
    wmem_map_t *frames;    /* set by an_init (file scope): the analysis of a file is on; the frames: fidx */
    wmem_map_t *chans;     /* an_chkey -> channel index + 1 */
    const struct an_chkey *ch_last[4]; /* the latest channels' keys (the map's, file scope) and indexes */
    guint32 ch_idx[4];
    guint ch_next;
    guint64 cw[4][2];      /* the latest CNA pairs (cna_word, lower first) and their channels (0: none) */
    guint32 cw_idx[4];
    guint cw_next;
    guint32 nchans;
    guint32 last_frame;
    guint64 last_ts;
    guint32 cur_frame;     /* frame being fed to the engine, 0 at the end of the capture */
    an_frame *fa_last;     /* the an_frame of frame fa_last_frame (the engine's callbacks of one packet
                            * and the dissection that follows ask for the same frame) */
    guint32 fa_last_frame;
    an_frame **fidx;       /* frame number -> its an_frame (NULL: none); g_malloc'ed, fcap entries */
    guint32 fcap;
    an_frame *fchunk;      /* an_frames handed out from file-scope chunks of AN_FCHUNK */
    guint fchunk_left;
    const char *kt_last[4]; /* the latest findings' key texts (file scope): the next one often repeats one */
    size_t kt_len[4];      /* their lengths */
    guint kt_next;
    guint8 *schunk;        /* file-scope room for the frames' first finding / matches (an_grow) */
    gsize schunk_left;
} an;

static void an_init(void)
{
    g_free(an.fidx);
    memset(&an, 0, sizeof an);
    an.frames = wmem_map_new(wmem_file_scope(), g_direct_hash, g_direct_equal);
}

static void an_cleanup(void)
{
    if (an.st) ub_state_free(an.st);
    g_free(an.fidx);
    memset(&an, 0, sizeof an); /* the maps and the an_frames were file scope */
}

/* The frames' analysis records: a dense index by frame number (frames are numbered 1, 2, ... in the first
 * pass; a map insert per frame cost more than the rest of the bookkeeping), the records from chunks. */
#define AN_FCHUNK 256u
static an_frame *fa_get(guint32 frame)
{
    if (frame == G_MAXUINT32) frame--; /* (no capture has 2^32 - 1 frames) */
    if (an.fa_last && an.fa_last_frame == frame) return an.fa_last;
    if (frame >= an.fcap) {
        guint64 cap = an.fcap ? an.fcap : 4096u; /* frame numbers are those of the capture: < its frame count + 1 */
        while (cap <= frame) cap *= 2;
        if (cap > G_MAXUINT32) cap = G_MAXUINT32; /* frame < G_MAXUINT32: the engine's frames are pinfo->num */
        an.fidx = (an_frame **)g_realloc_n(an.fidx, (gsize)cap, sizeof *an.fidx);
        memset(an.fidx + an.fcap, 0, (size_t)(cap - an.fcap) * sizeof *an.fidx);
        an.fcap = (guint32)cap;
    }
    an_frame *fa = an.fidx[frame];
    if (!fa) {
        if (!an.fchunk_left) {
            /* not zeroed here: one record at a time below (a 12 KB clear per chunk cost more) */
            an.fchunk = wmem_alloc_array(wmem_file_scope(), an_frame, AN_FCHUNK);
            an.fchunk_left = AN_FCHUNK;
        }
        fa = an.fchunk++;
        an.fchunk_left--;
        memset(fa, 0, sizeof *fa);
        an.fidx[frame] = fa;
    }
    an.fa_last = fa;
    an.fa_last_frame = frame;
    return fa;
}

static const an_frame *ub_an_frame_lookup(guint32 frame)
{
    if (frame == G_MAXUINT32) frame--; /* as fa_get */
    if (an.fa_last && an.fa_last_frame == frame) return an.fa_last;
    return frame < an.fcap ? an.fidx[frame] : NULL;
}

/* ---- engine callbacks (called inside ub_state_packet / ub_state_finish) */

/* decimal / hex digits of u into s (no printf: findings are formatted per shown packet) */
static void put_u64(wmem_strbuf_t *s, guint64 u, gboolean hex)
{
    char d[24], *o = d + sizeof d;
    *--o = '\0';
    do {
        *--o = hex ? "0123456789abcdef"[u & 15] : (char)('0' + u % 10);
        u = hex ? u >> 4 : u / 10;
    } while (u);
    wmem_strbuf_append(s, o);
}

static void put_i64(wmem_strbuf_t *s, gint64 v)
{
    if (v < 0) wmem_strbuf_append_c(s, '-');
    put_u64(s, v < 0 ? (guint64)0 - (guint64)v : (guint64)v, FALSE);
}

static void fmt_val(wmem_strbuf_t *s, gint64 v)
{
    put_i64(s, v);
    if (v >= 4096) { /* "%d (0x%x)" */
        wmem_strbuf_append(s, " (0x");
        put_u64(s, (guint64)v, TRUE);
        wmem_strbuf_append_c(s, ')');
    }
}

/* "UB-TP-002 <title>: <detail>; TP channel <key>; values a, b; frames x" (ubdump's finding line), in scope */
static const char *an_find_text(wmem_allocator_t *scope, const an_find *x)
{
    const ub_rule *r = ub_rule_get(x->rule);
    wmem_strbuf_t *s = wmem_strbuf_sized_new(scope, 160, 0);
    wmem_strbuf_append(s, r->id);
    wmem_strbuf_append_c(s, ' ');
    wmem_strbuf_append(s, r->title);
    if (x->detail && *x->detail && strcmp(x->detail, r->title) != 0) {
        wmem_strbuf_append(s, ": ");
        wmem_strbuf_append(s, x->detail);
    }
    if (x->keytext) {
        wmem_strbuf_append(s, "; ");
        wmem_strbuf_append(s, x->key ? x->key : "key");
        wmem_strbuf_append_c(s, ' ');
        const char *z = memchr(x->keytext, '\0', 64);
        wmem_strbuf_append_len(s, x->keytext, z ? (gsize)(z - x->keytext) : 64); /* "%.64s" */
    } else if (x->key && (!x->detail || strcmp(x->key, x->detail) != 0)) {
        wmem_strbuf_append(s, " (");
        wmem_strbuf_append(s, x->key);
        wmem_strbuf_append_c(s, ')');
    }
    if (x->nvalues) {
        wmem_strbuf_append(s, "; values ");
        for (unsigned i = 0; i < x->nvalues; i++) {
            if (i) wmem_strbuf_append(s, ", ");
            fmt_val(s, x->values[i]);
        }
    }
    if (x->nrel) {
        wmem_strbuf_append(s, "; frames ");
        for (unsigned i = 0; i < x->nrel; i++) {
            if (i) wmem_strbuf_append(s, ", ");
            put_u64(s, x->rel[i], FALSE);
        }
    }
    return wmem_strbuf_get_str(s);
}

/* Room for one more element in a frame's array (finds or matches, elem bytes each): the first from a
 * file-scope chunk (most frames get one), then arrays that double (the old one stays in file scope). */
#define AN_SCHUNK 4096u
static void *an_grow(void *arr, guint32 n, guint32 *cap, gsize elem, guint32 first)
{
    if (n < *cap) return arr;
    gsize bytes = (gsize)(*cap ? 2 * *cap : first) * elem;
    void *a;
    if (!*cap && bytes <= an.schunk_left) { /* elements of at most 8-byte alignment, sizes multiples of 8 */
        a = an.schunk;
        an.schunk += bytes;
        an.schunk_left -= bytes;
    } else if (!*cap && bytes <= AN_SCHUNK) {
        an.schunk = (guint8 *)wmem_alloc(wmem_file_scope(), AN_SCHUNK);
        an.schunk_left = AN_SCHUNK;
        return an_grow(arr, n, cap, elem, first);
    } else { /* a larger array (a first one of more than a chunk too: no endless recursion) */
        a = wmem_alloc(wmem_file_scope(), bytes);
        if (n) memcpy(a, arr, (gsize)n * elem);
    }
    *cap = *cap ? 2 * *cap : first;
    return a;
}

/* bytes (a multiple of 8, at most AN_SCHUNK) from the file-scope chunks of an_grow */
static void *an_bump(gsize bytes)
{
    if (bytes > an.schunk_left) {
        an.schunk = (guint8 *)wmem_alloc(wmem_file_scope(), AN_SCHUNK);
        an.schunk_left = AN_SCHUNK;
    }
    void *a = an.schunk;
    an.schunk += bytes;
    an.schunk_left -= bytes;
    return a;
}

/* Kept as it comes (a few copies, no formatting): most findings are never shown in a tree. */
static void an_finding_cb(void *ctx _U_, const ub_finding *f)
{
    if (!f->frame || f->frame > G_MAXUINT32) return;
    if (!ub_rule_get(f->rule)) return;
    const char *kt = NULL;
    if (f->keytext[0]) { /* shared with one of the latest findings when the same */
        const char *z = (const char *)memchr(f->keytext, '\0', sizeof f->keytext);
        size_t len = z ? (size_t)(z - f->keytext) : sizeof f->keytext;
        for (guint i = 0; i < G_N_ELEMENTS(an.kt_last) && !kt; i++)
            if (an.kt_len[i] == len && an.kt_last[i] && memcmp(an.kt_last[i], f->keytext, len) == 0) kt = an.kt_last[i];
        if (!kt) {
            char *t = (char *)an_bump((len + 8) & ~(size_t)7); /* file scope, as the frames' arrays */
            memcpy(t, f->keytext, len);
            t[len] = '\0';
            kt = t;
            guint k = an.kt_next++ % G_N_ELEMENTS(an.kt_last);
            an.kt_last[k] = kt;
            an.kt_len[k] = len;
        }
    }
    an_frame *fa = fa_get((guint32)f->frame);
    fa->finds = (an_find *)an_grow(fa->finds, fa->nfinds, &fa->capfinds, sizeof *fa->finds, 1);
    an_find *x = &fa->finds[fa->nfinds++];
    x->rule = f->rule;
    x->sev = f->severity <= UB_SEV_ERROR ? f->severity : UB_SEV_ERROR;
    static const guint8 fg_of[] = { [UB_EG_MALFORMED] = FG_MALFORMED, [UB_EG_PROTOCOL] = FG_PROTOCOL,
                                    [UB_EG_SEQUENCE] = FG_SEQUENCE, [UB_EG_CHECKSUM] = FG_CHECKSUM };
    unsigned eg = ub_finding_group(f); /* as ubdump -z expert */
    x->group = eg < G_N_ELEMENTS(fg_of) ? fg_of[eg] : FG_PROTOCOL;
    /* the engine keeps only non-zero frames; Wireshark's frame numbers are 32-bit */
    x->nrel = 0;
    for (unsigned i = 0; i < f->nframes && i < UB_FINDING_FRAMES; i++)
        if (f->frames[i] && f->frames[i] <= G_MAXUINT32) x->rel[x->nrel++] = (guint32)f->frames[i];
    x->nvalues = f->nvalues < 4 ? f->nvalues : 4;
    for (unsigned i = 0; i < x->nvalues; i++) x->values[i] = f->values[i];
    x->detail = f->detail;
    x->key = f->key;
    x->keytext = kt;
}

static void an_add_match(guint32 frame, const an_match *m)
{
    an_frame *fa = fa_get(frame);
    /* a request and its response */
    fa->matches = (an_match *)an_grow(fa->matches, fa->nmatches, &fa->capmatches, sizeof *fa->matches, 2);
    fa->matches[fa->nmatches++] = *m;
}

static void an_match_cb(void *ctx _U_, const ub_match *m)
{
    if (!m->req_frame || !m->rsp_frame || m->req_frame > G_MAXUINT32 || m->rsp_frame > G_MAXUINT32) return;
    guint32 rsp = (guint32)m->rsp_frame;
    gboolean here = an.cur_frame == 0 || an.cur_frame == rsp;
    an_match a = { rsp, m->kind, AN_M_SHOW, m->opcode, m->latency_ns };
    an_match b = { (guint32)m->req_frame, m->kind, AN_M_RSP | AN_M_SHOW | (here ? AN_M_SRT : 0), m->opcode,
                   m->latency_ns };
    an_add_match((guint32)m->req_frame, &a);
    an_add_match(rsp, &b);
    if (!here) { /* completed while a later frame was fed */
        an_match c = b;
        c.flags = AN_M_RSP | AN_M_SRT;
        an_add_match(an.cur_frame, &c);
    }
}

static void an_note_cb(void *ctx _U_, const ub_pkt_note *n)
{
    if (!n->frame || n->frame > G_MAXUINT32) return;
    an_frame *fa = fa_get((guint32)n->frame);
    fa->tp_flags |= n->tp_flags;
    fa->expected_psn = n->expected_psn;
}

/* The engine of the capture file, created on its first UB packet (with the preferences in force
 * then), so that captures without UB cost nothing; an_init() resets, an_cleanup() frees it. */
static ub_state *an_engine(void)
{
    if (an.st || an.failed || !an.frames) return an.st;
    ub_state_cfg c;
    ub_state_cfg_default(&c);
    c.expect_taack = pref_expect_taack ? true : false;
    c.gaps_are_notes = pref_gaps_are_notes ? true : false;
    c.response_timeout_ns = (uint64_t)pref_response_timeout_ms * 1000000u;
    an.st = ub_state_new(&c, an_finding_cb, NULL);
    if (!an.st) {
        an.failed = TRUE;
        return NULL;
    }
    ub_state_set_match_cb(an.st, an_match_cb, NULL);
    ub_state_set_note_cb(an.st, an_note_cb, NULL);
    return an.st;
}

/* ------------------------------------------------------------------------------------------ */
/* TP channel index (ub.analysis.tp_channel, like tcp.stream): both directions of a channel      */
/* ------------------------------------------------------------------------------------------ */

#define AN_EP_MAX (2 + 16 + 3)
typedef struct an_chkey {
    guint8 len;
    guint8 b[2 * AN_EP_MAX];
} an_chkey;

static guint chkey_hash(gconstpointer k)
{
    const an_chkey *c = (const an_chkey *)k;
    guint32 h = 2166136261u;
    for (guint i = 0; i < c->len; i++) h = (h ^ c->b[i]) * 16777619u;
    return h;
}
static gboolean chkey_equal(gconstpointer a, gconstpointer b)
{
    const an_chkey *x = (const an_chkey *)a, *y = (const an_chkey *)b;
    return x->len == y->len && memcmp(x->b, y->b, x->len) == 0;
}

static guint ep_put(guint8 *o, const address *a, guint32 tpn)
{
    guint n = 0;
    int len = a->len > 16 ? 16 : a->len;
    o[n++] = (guint8)a->type;
    o[n++] = (guint8)len;
    if (len > 0) memcpy(o + n, a->data, (size_t)len);
    n += (guint)len;
    o[n++] = (guint8)(tpn >> 16);
    o[n++] = (guint8)(tpn >> 8);
    o[n++] = (guint8)tpn;
    return n;
}

static guint32 an_channel_key(const an_pkt *p)
{
    guint8 e1[AN_EP_MAX], e2[AN_EP_MAX];
    guint n1 = ep_put(e1, &p->src, p->stpn), n2 = ep_put(e2, &p->dst, p->dtpn);
    int c = memcmp(e1, e2, n1 < n2 ? n1 : n2);
    if (c == 0) c = (int)n1 - (int)n2;
    an_chkey k;
    memset(&k, 0, sizeof k);
    if (c <= 0) { memcpy(k.b, e1, n1); memcpy(k.b + n1, e2, n2); }
    else { memcpy(k.b, e2, n2); memcpy(k.b + n2, e1, n1); }
    k.len = (guint8)(n1 + n2);
    /* the channels of the latest packets first (a channel's packets come in runs): no hash, no map */
    for (guint i = 0; i < G_N_ELEMENTS(an.ch_last); i++)
        if (an.ch_last[i] && chkey_equal(an.ch_last[i], &k)) return an.ch_idx[i];
    if (!an.chans) an.chans = wmem_map_new(wmem_file_scope(), chkey_hash, chkey_equal);
    const void *orig = NULL;
    void *hit = NULL;
    const an_chkey *nk;
    guint32 idx;
    if (wmem_map_lookup_extended(an.chans, &k, &orig, &hit)) { /* the map's key (file scope) */
        nk = (const an_chkey *)orig;
        idx = GPOINTER_TO_UINT(hit);
    } else {
        an_chkey *dup = (an_chkey *)wmem_memdup(wmem_file_scope(), &k, sizeof k);
        idx = ++an.nchans;
        wmem_map_insert(an.chans, dup, GUINT_TO_POINTER(idx));
        nk = dup;
    }
    guint slot = an.ch_next++ % G_N_ELEMENTS(an.ch_last);
    an.ch_last[slot] = nk;
    an.ch_idx[slot] = idx;
    return idx;
}

/* a CNA endpoint (most packets) in one word: length, CNA, TPN */
static gboolean cna_word(const address *a, guint32 tpn, guint64 *w)
{
    if (a->type != at_ub_cna || a->len < 1 || a->len > 4) return FALSE;
    const guint8 *d = (const guint8 *)a->data;
    guint64 v = 0;
    for (int i = 0; i < a->len; i++) v = v << 8 | d[i];
    *w = (guint64)a->len << 56 | v << 24 | (tpn & 0xFFFFFFu);
    return TRUE;
}

/* the channel of the packet: the latest CNA pairs first (no key, no map), else an_channel_key */
static guint32 an_channel(const an_pkt *p)
{
    guint64 a, b;
    gboolean cw = cna_word(&p->src, p->stpn, &a) && cna_word(&p->dst, p->dtpn, &b);
    if (cw) {
        if (a > b) {
            guint64 t = a;
            a = b;
            b = t;
        }
        for (guint i = 0; i < G_N_ELEMENTS(an.cw_idx); i++)
            if (an.cw_idx[i] && an.cw[i][0] == a && an.cw[i][1] == b) return an.cw_idx[i];
    }
    guint32 idx = an_channel_key(p);
    if (cw) {
        guint k = an.cw_next++ % G_N_ELEMENTS(an.cw_idx);
        an.cw[k][0] = a;
        an.cw[k][1] = b;
        an.cw_idx[k] = idx;
    }
    return idx;
}

/* ------------------------------------------------------------------------------------------ */
/* Feeding the engine (first pass)                                                             */
/* ------------------------------------------------------------------------------------------ */

static guint8 pktinfo_dir(const packet_info *pinfo)
{
    if (pinfo->p2p_dir == P2P_DIR_RECV) return UB_DIR_IN;
    if (pinfo->p2p_dir == P2P_DIR_SENT) return UB_DIR_OUT;
    return UB_DIR_UNKNOWN;
}

static void pktinfo_of(const packet_info *pinfo, ub_pktinfo *pi)
{
    memset(pi, 0, sizeof *pi);
    pi->frame = pinfo->num;
    gint64 ns = (gint64)pinfo->abs_ts.secs * 1000000000 + pinfo->abs_ts.nsecs;
    pi->ts_ns = ns > 0 ? (uint64_t)ns : 0;
    if (pinfo->rec && (pinfo->rec->presence_flags & WTAP_HAS_INTERFACE_ID))
        pi->ifindex = pinfo->rec->rec_header.packet_header.interface_id;
    pi->dir = pktinfo_dir(pinfo);
}

/* UBoE: ubdump (and so the audit) decodes the whole frame from its link type, so the engine sees the
 * IP/UDP headers too (their rules, the TP channel addresses).  Do the same when the frame is one
 * libubparse decodes and the TPH is found at this tvb's position; else use the TPH view. */
static const ub_view *full_frame_view(tvbuff_t *tvb, packet_info *pinfo, const ub_view *v)
{
    const guint32 lt = ub_ws_frame_linktype(pinfo);
    if (!lt) return v;
    tvbuff_t *ds = tvb_get_ds_tvb(tvb);
    if (!ds || ds == tvb) return v;
    guint32 flen = tvb_captured_length(ds), len = tvb_captured_length(tvb);
    gint roff = tvb_raw_offset(tvb);
    if (flen == 0 || len == 0 || roff < 0 || (guint32)roff + len > flen) return v;
    const guint8 *frame = tvb_get_ptr(ds, 0, (gint)flen);
    ub_view *fv = ub_ws_view_new(pinfo);
    guint32 wire = tvb_reported_length(ds);
    ub_decode_wire(fv, ub_ws_opts(), ub_entry_for_linktype(ub_ws_opts(), lt), frame, flen, wire > flen ? wire : flen);
    unsigned nl = fv->nlayers > UB_MAX_LAYERS ? UB_MAX_LAYERS : fv->nlayers;
    for (unsigned i = 0; i < nl; i++) {
        const ub_layer *l = &fv->layer[i];
        if (l->hdr && (l->hdr->id == UB_H_RTPH || l->hdr->id == UB_H_UTPH) && l->data == frame + roff) return fv;
    }
    return v;
}

static void an_feed_view(const ub_view *v, const ub_pktinfo *pi)
{
    ub_state *st = an_engine();
    if (!st) return;
    an.cur_frame = (guint32)pi->frame;
    ub_state_packet(st, v, pi);
    an.cur_frame = 0;
    if (pi->frame > an.last_frame) an.last_frame = (guint32)pi->frame;
    if (pi->ts_ns > an.last_ts) an.last_ts = pi->ts_ns;
}

/* Raw flit streams: units still incomplete at the end of the capture, as ubdump's flush. */
static void flush_unit_cb(void *ctx _U_, const uint8_t *unit, uint32_t len, uint32_t flags)
{
    ub_view *v = ub_ws_view_new(NULL);
    ub_decode(v, ub_ws_opts(), UB_ENTRY_FLIT, unit, len);
    ub_unit_errors(v, flags, len);
    ub_pktinfo pi;
    memset(&pi, 0, sizeof pi);
    pi.frame = an.last_frame;
    pi.ts_ns = an.last_ts;
    an_feed_view(v, &pi);
    g_free(v);
}

/* End of the sequential pass: outstanding state (unanswered requests, open gaps...). */
static void an_postseq(void)
{
    if (!pref_analyze || !an.frames || an.finished) return;
    ub_ws_stream_flush_all(flush_unit_cb, NULL); /* may start the engine (a stream with no complete unit) */
    if (!an.st) return;
    ub_state_finish(an.st);
    an.finished = TRUE;
}

/* ------------------------------------------------------------------------------------------ */
/* Taps                                                                                        */
/* ------------------------------------------------------------------------------------------ */


/* TP endpoint text, in pool: "address:0xTPN" (RTP, kind NULL) or "address (UTP)"; a CNA is written here
 * as cna_to_str does (most packets), other addresses through address_to_str */
static char *tp_ep_text(wmem_allocator_t *pool, const address *a, const char *kind, guint32 tpn)
{
    if (a->type != at_ub_cna || a->len < 1 || a->len > 4) {
        char *t = address_to_str(pool, a);
        return kind ? wmem_strdup_printf(pool, "%s (%s)", t, kind) : wmem_strdup_printf(pool, "%s:0x%x", t, tpn);
    }
    char *t = (char *)wmem_alloc(pool, 32), *o = t; /* "0x" 8 digits, " (UTP)" or ":0x" 8 digits, NUL */
    *o++ = '0';
    *o++ = 'x';
    ub_hex_bytes(o, (const guint8 *)a->data, (size_t)a->len); /* "%0*x": two digits a byte */
    o += 2 * a->len;
    if (kind) {
        *o++ = ' ';
        *o++ = '(';
        memcpy(o, kind, 3);
        o += 3;
        *o++ = ')';
    } else {
        *o++ = ':';
        *o++ = '0';
        *o++ = 'x';
        char h[32];
        size_t k = ub_u64_hex(h, tpn, 0); /* "%x": at most 8 digits */
        memcpy(o, h, k);
        o += k;
    }
    *o = '\0';
    return t;
}

/* the frame's matches go to the SRT once even when a flit-stream record completes several units */
static gboolean first_view_of_frame(packet_info *pinfo)
{
    if (p_get_proto_data(pinfo->pool, pinfo, proto_ub_an, 7)) return FALSE;
    p_add_proto_data(pinfo->pool, pinfo, proto_ub_an, 7, GUINT_TO_POINTER(1));
    return TRUE;
}

void ub_an_view(tvbuff_t *tvb, packet_info *pinfo, proto_tree *tree, const ub_view *v, guint32 bytes)
{
    /* the UB datagram an ICMP error quotes: not a packet of this link (no addresses, TP endpoints, state
     * or taps, as ubdump's dec_quoted layers) */
    if (pinfo->flags.in_error_pkt) return;
    an_pkt *p = wmem_new(pinfo->pool, an_pkt);
    ub_an_scan(pinfo, v, p);

    /* Source / Destination columns, conversations */
    if (p->src.type != AT_NONE && v->entry != UB_ENTRY_TPH) {
        copy_address_shallow(&pinfo->src, &p->src);
        copy_address_shallow(&pinfo->dst, &p->dst);
        copy_address_shallow(&pinfo->net_src, &p->src);
        copy_address_shallow(&pinfo->net_dst, &p->dst);
    }
    if (tree && proto_field_is_referenced(tree, hf_cna)) {
        if (p->src.type == at_ub_cna) {
            ub_val a, b;
            if (ub_an_fh_get(&f_scna, p->nth, &a) && ub_an_fh_get(&f_dcna, p->nth, &b)) {
                proto_item *it = proto_tree_add_uint(tree, hf_cna, tvb, 0, 0, (guint32)a.u);
                proto_item_set_hidden(it);
                it = proto_tree_add_uint(tree, hf_cna, tvb, 0, 0, (guint32)b.u);
                proto_item_set_hidden(it);
            }
        }
    }
    if (tree && proto_field_is_referenced(tree, hf_eid)) {
        if (p->seid.type == at_ub_eid && p->seid.len == 3) {
            ub_val a, b;
            if (ub_an_fh_get(&f_seid, p->eidh, &a) && ub_an_fh_get(&f_deid, p->eidh, &b)) {
                proto_item *it = proto_tree_add_uint(tree, hf_eid, tvb, 0, 0, (guint32)a.u);
                proto_item_set_hidden(it);
                it = proto_tree_add_uint(tree, hf_eid, tvb, 0, 0, (guint32)b.u);
                proto_item_set_hidden(it);
            }
        }
    }

    /* first pass: the state engine */
    if (pref_analyze && !pinfo->fd->visited && !pinfo->flags.in_error_pkt && an.frames) {
        ub_pktinfo pi;
        pktinfo_of(pinfo, &pi);
        const ub_view *fv = v->entry == UB_ENTRY_TPH ? full_frame_view(tvb, pinfo, v) : v;
        an_feed_view(fv, &pi);
        if (p->rtph && p->src.type != AT_NONE) {
            an_frame *fa = fa_get(pinfo->num);
            if (!fa->tp_channel) fa->tp_channel = an_channel(p);
        }
    }

    /* statistics */
    gboolean t0 = have_tap_listener(tap_ub), t1 = p->tpkind && p->src.type != AT_NONE && have_tap_listener(tap_ub_tp),
             t2 = p->seid.type != AT_NONE && have_tap_listener(tap_ub_eid);

    /* TP channel endpoints: the TP conversation table and its filter fields */
    gboolean tp_tree = tree && (proto_field_is_referenced(tree, hf_tp_src) || proto_field_is_referenced(tree, hf_tp_dst) ||
                                proto_field_is_referenced(tree, hf_tp_ep));
    if (p->tpkind && p->src.type != AT_NONE && (tp_tree || t1)) {
        const char *k = p->rtph ? NULL : p->tpkind == 2 ? "UTP" : "CTP";
        char *es = tp_ep_text(pinfo->pool, &p->src, k, p->stpn), *ed = tp_ep_text(pinfo->pool, &p->dst, k, p->dtpn);
        set_address(&p->tps, AT_STRINGZ, (int)strlen(es) + 1, es);
        set_address(&p->tpd, AT_STRINGZ, (int)strlen(ed) + 1, ed);
        if (tp_tree) {
            proto_item *it = proto_tree_add_string(tree, hf_tp_src, tvb, 0, 0, es);
            proto_item_set_hidden(it);
            it = proto_tree_add_string(tree, hf_tp_dst, tvb, 0, 0, ed);
            proto_item_set_hidden(it);
            it = proto_tree_add_string(tree, hf_tp_ep, tvb, 0, 0, es);
            proto_item_set_hidden(it);
            it = proto_tree_add_string(tree, hf_tp_ep, tvb, 0, 0, ed);
            proto_item_set_hidden(it);
        }
    }
    if (t0 || t1 || t2) {
        ub_tap_info *ti = wmem_new0(pinfo->pool, ub_tap_info);
        ti->v = v;
        ti->p = p;
        ti->bytes = bytes;
        if (first_view_of_frame(pinfo)) ti->fa = ub_an_frame_lookup(pinfo->num);
        if (t0) tap_queue_packet(tap_ub, pinfo, ti);
        if (t1) tap_queue_packet(tap_ub_tp, pinfo, ti);
        if (t2) tap_queue_packet(tap_ub_eid, pinfo, ti);
    }
}

/* ------------------------------------------------------------------------------------------ */
/* Showing the analysis (every pass)                                                           */
/* ------------------------------------------------------------------------------------------ */

static const char *match_kind_name(guint8 kind)
{
    return kind == 0 ? "transaction" : kind == 1 ? "management" : "transport";
}

static const char *match_op_name(const an_match *m, char *buf, size_t n)
{
    const char *nm = NULL;
    guint code = m->opcode & 0xFF;
    if (m->kind == 1) {
        ub_an_mgmt_code_name((m->opcode >> 8) & 0xFF, buf, n, FALSE);
        return buf;
    }
    if (m->kind == 0) nm = ub_vname_lookup(ub_an_taop_vals(), code);
    else nm = ub_vname_lookup(ub_an_tpop_vals(), code);
    if (nm && strlen(nm) < n) return nm; /* as g_snprintf(buf, n, "%s", nm) */
    if (nm) {
        memcpy(buf, nm, n - 1);
        buf[n - 1] = '\0';
    } else { /* "0x%02x" */
        buf[0] = '0';
        buf[1] = 'x';
        buf[2] = "0123456789abcdef"[code >> 4];
        buf[3] = "0123456789abcdef"[code & 15];
        buf[4] = '\0';
    }
    return buf;
}

/* An item label built without printf: what proto_item_append_text(it, fmt, ...) makes of the item's
 * own label "Name: value" (truncated to ITEM_LABEL_LENGTH - 1 bytes as there). */
typedef struct an_label {
    char b[ITEM_LABEL_LENGTH];
    size_t n;
} an_label;

static void lb_str(an_label *lb, const char *s)
{
    size_t k = strlen(s);
    if (k > sizeof lb->b - 1 - lb->n) k = sizeof lb->b - 1 - lb->n;
    memcpy(lb->b + lb->n, s, k);
    lb->n += k;
    lb->b[lb->n] = '\0';
}

static void lb_u64(an_label *lb, guint64 u, int min_digits) /* "%u", "%09d" */
{
    char d[24], *o = d + sizeof d;
    *--o = '\0';
    do {
        *--o = (char)('0' + u % 10);
        u /= 10;
        min_digits--;
    } while (u || min_digits > 0);
    lb_str(lb, o);
}

/* "Name: " of an item's label; FALSE when the item keeps no label (hidden, faked, invisible tree) */
static gboolean lb_start(an_label *lb, proto_item *it)
{
    if (!it || !PTREE_DATA(it)->visible || proto_item_is_hidden(it) || !PITEM_FINFO(it)) return FALSE;
    lb->n = 0;
    lb->b[0] = '\0';
    lb_str(lb, PITEM_FINFO(it)->hfinfo->name);
    lb_str(lb, ": ");
    return TRUE;
}

/* Who reads a frame's expert infos. AN_EX_ALL: a tree or an Expert column (each item through
 * Wireshark's expert API); AN_EX_TAP: only the expert tap (tshark -q -z expert, any listener of the
 * tap on a pass without a tree): each item straight to the tap (an_expert_tap); AN_EX_TOP: nothing but the capture's
 * highest severity (the GUI's status bar), which one item of the frame's highest severity sets. */
enum { AN_EX_TOP, AN_EX_TAP, AN_EX_ALL };
static int experts_mode(packet_info *pinfo, proto_tree *tree)
{
    if (expert_tap == -2) expert_tap = find_tap_id("expert"); /* registered before any dissection */
    if (tree || expert_tap < 0) return AN_EX_ALL;
    if (col_get_writable(pinfo->cinfo, COL_EXPERT) && pinfo->cinfo->col_first[COL_EXPERT] >= 0) return AN_EX_ALL;
    if (!have_tap_listener(expert_tap)) return AN_EX_TOP;
    return ei_tap_direct ? AN_EX_TAP : AN_EX_ALL;
}

/* expert_add_info(pinfo, NULL, f) when the expert tap is its only reader: the expert_info_t that
 * Wireshark 4.0's expert.c (expert_set_info_vformat) queues on the tap — frame, group, severity, the
 * item's filter hf, the current protocol, the summary (shorter than ITEM_LABEL_LENGTH: registration
 * checks it, so expert.c would copy it unchanged), no proto_item — without the label copy, the
 * value_string lookups and the tree calls that go nowhere without a tree (about 1.3 k instructions
 * an item). An item that raises the capture's highest severity, which only expert.c can record,
 * goes through expert_add_info() itself, in its place in the frame's order. */
static void an_expert_tap(packet_info *pinfo, expert_field *f, const expert_field_info *in)
{
    if (!pinfo->num || in->severity > expert_get_highest_severity()) {
        expert_add_info(pinfo, NULL, f);
        return;
    }
    expert_info_t *e = wmem_new(pinfo->pool, expert_info_t);
    e->packet_num = pinfo->num;
    e->group = in->group;
    e->severity = in->severity;
    e->hf_index = f->hf;
    e->protocol = pinfo->current_proto;
    e->summary = (gchar *)in->summary; /* listeners copy it (never written: expert_info_t's own type) */
    e->pitem = NULL;
    tap_queue_packet(expert_tap, pinfo, e);
}

static const expert_field_info *tp_ei_info(const expert_field *e)
{
    for (guint i = 0; i < G_N_ELEMENTS(tp_ei_sev); i++)
        if (tp_ei_sev[i].ei == e) return tp_ei_sev[i].in;
    return NULL; /* not reached: every TP flag has its row */
}

void ub_an_show(tvbuff_t *tvb, packet_info *pinfo, proto_tree *tree)
{
    if (!pref_analyze) return;
    if (!pinfo->fd->visited && !pinfo->flags.in_error_pkt) { /* every UB record, also one completing no unit */
        gint64 ns = (gint64)pinfo->abs_ts.secs * 1000000000 + pinfo->abs_ts.nsecs; /* as pktinfo_of */
        if (pinfo->num > an.last_frame) an.last_frame = pinfo->num;
        if (ns > 0 && (guint64)ns > an.last_ts) an.last_ts = (guint64)ns;
    }
    const an_frame *fa = ub_an_frame_lookup(pinfo->num);
    if (!fa) return;
    proto_item *ai = tree ? proto_tree_add_item(tree, hf_an, tvb, 0, 0, ENC_NA) : NULL;
    proto_item_set_generated(ai);
    proto_tree *at = proto_item_add_subtree(ai, ett_an);
    proto_item *it;
    an_label lb;
    const int exm = experts_mode(pinfo, tree);
    const gboolean all = exm != AN_EX_TOP;
    expert_field *top_ei = NULL; /* !all: the frame's expert info of the highest severity */
    int top_sev = 0;

    if (fa->tp_channel && at) {
        it = proto_tree_add_uint(at, hf_an_tp_channel, tvb, 0, 0, fa->tp_channel - 1);
        proto_item_set_generated(it);
    }

    /* TP sequence analysis */
    guint32 fl = fa->tp_flags;
    if (at && (fl & (UB_TPF_RETRANSMISSION | UB_TPF_OUT_OF_ORDER | UB_TPF_LOST_BEFORE | UB_TPF_DUPLICATE))) {
        it = proto_tree_add_uint(at, hf_an_expected_psn, tvb, 0, 0, fa->expected_psn);
        proto_item_set_generated(it);
    }
    static const struct { guint32 bit; expert_field *ei; } flags[] = {
        { UB_TPF_RETRANSMISSION, &ei_retrans }, { UB_TPF_OUT_OF_ORDER, &ei_ooo }, { UB_TPF_LOST_BEFORE, &ei_lost },
        { UB_TPF_DUPLICATE, &ei_dup }, { UB_TPF_DUP_ACK, &ei_dupack }, { UB_TPF_NAK, &ei_nak }, { UB_TPF_SACK, &ei_sack },
    };
    for (guint i = 0; fl && i < G_N_ELEMENTS(flags); i++) {
        if (!(fl & flags[i].bit)) continue;
        const expert_field_info *in = tp_ei_info(flags[i].ei);
        if (all && at) proto_tree_add_expert(at, pinfo, flags[i].ei, tvb, 0, 0);
        else if (exm == AN_EX_TAP && in) an_expert_tap(pinfo, flags[i].ei, in);
        else if (all) expert_add_info(pinfo, NULL, flags[i].ei); /* the same without a tree (-z expert) */
        else if (!in || in->severity > top_sev) top_sev = in ? in->severity : PI_ERROR, top_ei = flags[i].ei;
    }
    char tags[256]; /* Info-column tags shared with ubdump's summaries (ub_tp_flags_tags) */
    if (fl && col_get_writable(pinfo->cinfo, COL_INFO) && ub_tp_flags_tags(fl, tags, sizeof tags))
        ub_ws_col_prepend_fence(pinfo->cinfo, COL_INFO, tags);

    /* request <-> response, data <-> ack: items only */
    guint nm = tree ? fa->nmatches : 0;
    for (guint i = 0; i < nm; i++) {
        const an_match *m = &fa->matches[i];
        if (!(m->flags & AN_M_SHOW)) continue;
        char opb[64];
        const char *op = NULL; /* formatted only for a label */
        gboolean rsp = (m->flags & AN_M_RSP) != 0;
        int hf = m->kind == 2 ? (rsp ? hf_an_acks_frame : hf_an_acked_in) : (rsp ? hf_an_request_in : hf_an_response_in);
        it = proto_tree_add_uint(at, hf, tvb, 0, 0, m->other);
        if (lb_start(&lb, it)) { /* " (%s %s)" on "Name: %u" (FT_FRAMENUM) */
            op = match_op_name(m, opb, sizeof opb);
            lb_u64(&lb, m->other, 1);
            lb_str(&lb, " (");
            lb_str(&lb, match_kind_name(m->kind));
            lb_str(&lb, " ");
            lb_str(&lb, op);
            lb_str(&lb, ")");
            ub_ws_set_label(it, lb.b, lb.n);
        }
        proto_item_set_generated(it);
        if (rsp) {
            nstime_t ns;
            ns.secs = (time_t)(m->lat_ns / 1000000000u);
            ns.nsecs = (int)(m->lat_ns % 1000000000u);
            it = proto_tree_add_time(at, hf_an_latency, tvb, 0, 0, &ns);
            if (ns.secs <= G_MAXINT32 && lb_start(&lb, it)) { /* "Name: %d.%09d seconds" (FT_RELATIVE_TIME) */
                if (!op) op = match_op_name(m, opb, sizeof opb);
                lb_u64(&lb, (guint64)ns.secs, 1);
                lb_str(&lb, ".");
                lb_u64(&lb, (guint64)ns.nsecs, 9);
                lb_str(&lb, " seconds (");
                lb_str(&lb, match_kind_name(m->kind));
                lb_str(&lb, " ");
                lb_str(&lb, op);
                lb_str(&lb, ", since frame ");
                lb_u64(&lb, m->other, 1);
                lb_str(&lb, ")");
                ub_ws_set_label(it, lb.b, lb.n);
            } else if (it && !proto_item_is_hidden(it) && PTREE_DATA(it)->visible) {
                if (!op) op = match_op_name(m, opb, sizeof opb);
                proto_item_append_text(it, " (%s %s, since frame %u)", match_kind_name(m->kind), op, m->other);
            }
            proto_item_set_generated(it);
        }
    }

    /* engine findings */
    guint nf = fa->nfinds;
    for (guint i = 0; i < nf; i++) {
        const an_find *x = &fa->finds[i];
        const ub_rule *r = ub_rule_get(x->rule);
        unsigned g = x->group < FG__N ? x->group : FG_PROTOCOL;
        if (!all) { /* no tree: the rule item and the text would be thrown away */
            static const int sev_pi[3] = { PI_NOTE, PI_WARN, PI_ERROR };
            int sv = sev_pi[x->sev < 3 ? x->sev : 2];
            if (sv > top_sev)
                top_sev = sv, top_ei = r && x->rule < ei_nrules ? &ei_rule[(x->rule * FG__N + g) * 3 + x->sev]
                                                                : &ei_finding[g][x->sev];
            continue;
        }
        it = at ? proto_tree_add_string(at, hf_an_rule, tvb, 0, 0, r ? r->id : "?") : NULL;
        proto_item_set_generated(it);
        if (r && x->rule < ei_nrules) { /* the rule's own summary; the finding's details on the rule item */
            if (lb_start(&lb, it)) { /* else appending is a no-op: skip the formatting */
                size_t idl = strlen(r->id), tl = strlen(r->title);
                const char *rest = an_find_text(pinfo->pool, x); /* "<id> <title>[: detail][; key][; values][; frames]" */
                if (strncmp(rest, r->id, idl) == 0 && rest[idl] == ' ' && strncmp(rest + idl + 1, r->title, tl) == 0)
                    rest += idl + 1 + tl;
                while (*rest == ':' || *rest == ';' || *rest == ' ') rest++;
                if (*rest) { /* " (%s)" on "Name: <id>" (FT_STRING; rule ids are plain ASCII): the title is
                              * the expert summary below */
                    lb_str(&lb, r->id);
                    lb_str(&lb, " (");
                    lb_str(&lb, rest);
                    lb_str(&lb, ")");
                    ub_ws_set_label(it, lb.b, lb.n);
                }
            }
            const unsigned k = (x->rule * FG__N + g) * 3 + x->sev;
            if (exm == AN_EX_TAP) an_expert_tap(pinfo, &ei_rule[k], &ei_rule_reg[k].eiinfo);
            else expert_add_info(pinfo, it, &ei_rule[k]);
        } else {
            expert_add_info_format(pinfo, it, &ei_finding[g][x->sev], "%s", an_find_text(pinfo->pool, x));
        }
        if (x->nrel && tree) {
            proto_tree *ft = proto_item_add_subtree(it, ett_an_finding);
            for (guint k = 0; k < x->nrel; k++) {
                proto_item *ri = proto_tree_add_uint(ft, hf_an_related, tvb, 0, 0, x->rel[k]);
                proto_item_set_generated(ri);
            }
        }
    }
    /* nothing reads the expert info but the capture's highest severity: added when it raises that */
    if (top_ei && top_sev > expert_get_highest_severity()) expert_add_info(pinfo, NULL, top_ei);
}

/* ------------------------------------------------------------------------------------------ */
/* Registration                                                                                */
/* ------------------------------------------------------------------------------------------ */

#define EI_ROW(id, nm, grp, sev, sum) \
    { &(id), { (nm), (grp), (sev), (sum), EXPFILL } }

void ub_an_register_prefs(module_t *m)
{
    prefs_register_bool_preference(m, "analyze", "Analyze UB protocol state (ub.analysis.*)",
        "Run libubparse's state engine (the checks of ubdump --audit) on the first pass: request/response "
        "matching, latency, TP sequence analysis, protocol-state findings as expert infos. Findings about "
        "the end of the capture need a second pass (tshark -2; the GUI always has it).", &pref_analyze);
    prefs_register_uint_preference(m, "response_timeout", "Response timeout (ms, §10.6 e)",
        "An unanswered request is an error only if the capture continued this long after it (ubdump "
        "--response-timeout)", 10, &pref_response_timeout_ms);
    prefs_register_bool_preference(m, "expect_taack", "RTP Writes/Sends expect TAACKs (§10.6 a)",
        "The service mode returns TAACKs for RTP Writes and Sends (ubdump --expect-taack)", &pref_expect_taack);
    prefs_register_bool_preference(m, "gaps_are_notes", "PSN gaps are notes (§10.6 c)",
        "Per-packet load balancing with one path captured: PSN gaps are expected (ubdump --gaps-are-notes)",
        &pref_gaps_are_notes);
}

void ub_an_register(int proto)
{
    proto_ub_an = proto;
    ub_an_fields_init();

    ub_ws_register_anfields(proto, UB_AF_ANALYSIS, UB_AF_TP_ENDPOINT); /* ub.analysis.* */
    static hf_register_info hf[] = {
        { &hf_cna, { "CNA", "ub.cna", FT_UINT24, BASE_HEX, NULL, 0x0,
                     "Source or destination CNA (NTH), for conversation filters", HFILL } },
        { &hf_eid, { "EID", "ub.eid", FT_UINT24, BASE_HEX, NULL, 0x0,
                     "Source or destination 20-bit EID (EIDH), for conversation filters", HFILL } },
    };
    proto_register_field_array(proto, hf, array_length(hf));
    static gint *ett[] = { &ett_an, &ett_an_finding };
    proto_register_subtree_array(ett, array_length(ett));

    static ei_register_info ei[] = {
        EI_ROW(ei_retrans, "ub.analysis.retransmission", PI_SEQUENCE, PI_NOTE, NULL), /* summary: ub_tp_flag_info */
        EI_ROW(ei_ooo, "ub.analysis.out_of_order", PI_SEQUENCE, PI_WARN, NULL), /* summary: ub_tp_flag_info */
        EI_ROW(ei_lost, "ub.analysis.lost_segment", PI_SEQUENCE, PI_WARN, NULL), /* summary: ub_tp_flag_info */
        EI_ROW(ei_dupack, "ub.analysis.duplicate_ack", PI_SEQUENCE, PI_NOTE, NULL), /* summary: ub_tp_flag_info */
        EI_ROW(ei_dup, "ub.analysis.duplicate", PI_SEQUENCE, PI_NOTE, NULL), /* summary: ub_tp_flag_info */
        EI_ROW(ei_nak, "ub.analysis.nak", PI_SEQUENCE, PI_WARN, NULL), /* summary: ub_tp_flag_info */
        EI_ROW(ei_sack, "ub.analysis.sack", PI_SEQUENCE, PI_NOTE, NULL), /* summary: ub_tp_flag_info */
#define FROW(g, gi, s, si) EI_ROW(ei_finding[g][s], NULL, gi, si, NULL) /* name, summary: UB_AF_FINDING */
        FROW(FG_SEQUENCE, PI_SEQUENCE, UB_SEV_NOTE, PI_NOTE), FROW(FG_SEQUENCE, PI_SEQUENCE, UB_SEV_WARN, PI_WARN),
        FROW(FG_SEQUENCE, PI_SEQUENCE, UB_SEV_ERROR, PI_ERROR),
        FROW(FG_PROTOCOL, PI_PROTOCOL, UB_SEV_NOTE, PI_NOTE), FROW(FG_PROTOCOL, PI_PROTOCOL, UB_SEV_WARN, PI_WARN),
        FROW(FG_PROTOCOL, PI_PROTOCOL, UB_SEV_ERROR, PI_ERROR),
        FROW(FG_MALFORMED, PI_MALFORMED, UB_SEV_NOTE, PI_NOTE), FROW(FG_MALFORMED, PI_MALFORMED, UB_SEV_WARN, PI_WARN),
        FROW(FG_MALFORMED, PI_MALFORMED, UB_SEV_ERROR, PI_ERROR),
        FROW(FG_CHECKSUM, PI_CHECKSUM, UB_SEV_NOTE, PI_NOTE), FROW(FG_CHECKSUM, PI_CHECKSUM, UB_SEV_WARN, PI_WARN),
        FROW(FG_CHECKSUM, PI_CHECKSUM, UB_SEV_ERROR, PI_ERROR),
#undef FROW
    };
    const ub_anfield *af_find = ub_anfield_get(UB_AF_FINDING); /* ub.analysis.finding: anfields.h */
    for (unsigned i = 0; i < G_N_ELEMENTS(ei); i++)
        if (!ei[i].eiinfo.name) {
            ei[i].eiinfo.name = af_find->abbrev;
            ei[i].eiinfo.summary = af_find->name;
        }
    /* the TP-analysis summaries and severities: libubparse's table (ubdump -z expert counts them too) */
    for (unsigned k = 0; ub_tp_flag_info_get(k); k++) {
        const ub_tp_flag_info *t = ub_tp_flag_info_get(k);
        static const int sev_of[3] = { PI_NOTE, PI_WARN, PI_ERROR };
        for (unsigned i = 0; i < G_N_ELEMENTS(ei); i++)
            if (g_str_has_prefix(ei[i].eiinfo.name, "ub.analysis.") && strcmp(ei[i].eiinfo.name + 12, t->name) == 0) {
                ei[i].eiinfo.summary = t->summary;
                ei[i].eiinfo.severity = sev_of[t->sev < 3 ? t->sev : 2];
            }
    }
    for (unsigned i = 0; i < G_N_ELEMENTS(ei) && i < G_N_ELEMENTS(tp_ei_sev); i++)
        if (g_str_has_prefix(ei[i].eiinfo.name, "ub.analysis.") && ei[i].eiinfo.name != af_find->abbrev)
            tp_ei_sev[i] = (struct tp_ei_sev){ ei[i].ids, &ei[i].eiinfo };
    for (int g = 0; g < FG__N; g++)
        for (int s = 0; s < 3; s++) {
            ei_finding[g][s].ei = EI_INIT_EI;
            ei_finding[g][s].hf = EI_INIT_HF;
        }
    expert_module_t *em = expert_register_protocol(proto);
    expert_register_field_array(em, ei, array_length(ei));
    ei_nrules = ub_rule_count();
    ei_rule = g_new(expert_field, ei_nrules * FG__N * 3);
    ei_register_info *eir = g_new0(ei_register_info, ei_nrules * FG__N * 3);
    static const int fg_pi[FG__N] = { PI_SEQUENCE, PI_PROTOCOL, PI_MALFORMED, PI_CHECKSUM };
    static const int sev_pi[3] = { PI_NOTE, PI_WARN, PI_ERROR };
    for (unsigned k = 0; k < ei_nrules * FG__N * 3; k++) {
        const ub_rule *r = ub_rule_get(k / (FG__N * 3));
        ei_rule[k].ei = EI_INIT_EI;
        ei_rule[k].hf = EI_INIT_HF;
        eir[k] = (ei_register_info)EI_ROW(ei_rule[k], af_find->abbrev, fg_pi[k / 3 % FG__N], sev_pi[k % 3],
                                          r ? g_strdup_printf("%s: %s", r->id, r->title) : af_find->name);
    }
    expert_register_field_array(em, eir, (int)(ei_nrules * FG__N * 3));
    ei_rule_reg = eir;
    /* an_expert_tap hands the summaries to the tap as expert.c would: only where its label copy keeps
     * them whole, and only for the expert.c it mirrors (4.0) */
    ei_tap_direct = WIRESHARK_VERSION_MAJOR == 4 && WIRESHARK_VERSION_MINOR == 0;
    for (unsigned i = 0; i < G_N_ELEMENTS(tp_ei_sev); i++)
        if (tp_ei_sev[i].in && strlen(tp_ei_sev[i].in->summary) >= ITEM_LABEL_LENGTH) ei_tap_direct = FALSE;
    for (unsigned k = 0; k < ei_nrules * FG__N * 3; k++)
        if (strlen(eir[k].eiinfo.summary) >= ITEM_LABEL_LENGTH) ei_tap_direct = FALSE;

    ub_an_register_addr();

    proto_ub_tp = proto_register_protocol("UnifiedBus TP channels", "UB TP", "ub_tp");
    proto_ub_eid = proto_register_protocol("UnifiedBus EID pairs", "UB EID", "ub_eid");
    tap_ub = register_tap("ub");
    tap_ub_tp = register_tap("ub_tp");
    tap_ub_eid = register_tap("ub_eid");
    ub_an_register_stats(proto, proto_ub_tp, proto_ub_eid); /* packet-ub-stats.c */

    register_init_routine(an_init);
    register_cleanup_routine(an_cleanup);
    register_postseq_cleanup_routine(an_postseq);
}

/* ------------------------------------------------------------------------------------------ */
/* The neighbours (packet-neigh.c): the same engine, as ubdump's audit feeds it every record    */
/* ------------------------------------------------------------------------------------------ */

void ub_an_feed(packet_info *pinfo, const ub_view *v)
{
    if (!pref_analyze || pinfo->fd->visited || pinfo->flags.in_error_pkt || !an.frames) return;
    ub_pktinfo pi;
    pktinfo_of(pinfo, &pi);
    an_feed_view(v, &pi);
}

void ub_an_findings(packet_info *pinfo, ub_an_find_cb cb, void *ctx)
{
    static const int fg_pi[FG__N] = { PI_SEQUENCE, PI_PROTOCOL, PI_MALFORMED, PI_CHECKSUM };
    static const int sev_pi[3] = { PI_NOTE, PI_WARN, PI_ERROR };
    const an_frame *fa = pref_analyze ? ub_an_frame_lookup(pinfo->num) : NULL;
    guint nf = fa ? fa->nfinds : 0;
    for (guint i = 0; i < nf; i++) {
        const an_find *x = &fa->finds[i];
        cb(ctx, fg_pi[x->group < FG__N ? x->group : FG_PROTOCOL], sev_pi[x->sev < 3 ? x->sev : 2], an_find_text(pinfo->pool, x));
    }
}

/* packet-ub-stream.c — the UB plugin's raw flit streams (LINKTYPE_USER2): units delimited per interface
 * and direction across records (libubparse ub_stream), each unit decoded and shown in its record's tree
 * (docs/wireshark.md). Split from packet-ub.c along its seam; the glue it shares is in packet-ub.h. */
#include <string.h>

#include <wireshark.h>
#include <epan/packet.h>
#include <epan/column-info.h>
#include <epan/proto_data.h>
#include <epan/wmem_scopes.h>
#include <wiretap/wtap.h>

#include <ubparse/ubparse.h>

#include "packet-ub.h"

static int proto_ub = -1;
static gint ett_ub_stream = -1;
static gint ett_ub_unit = -1;
#define hf_ub_stream_started_in ub_af_hf[UB_AF_STREAM_STARTED_IN] /* ubparse/anfields.h */
#define hf_ub_stream_continued_in ub_af_hf[UB_AF_STREAM_CONTINUED_IN]
#define hf_ub_stream_open_bytes ub_af_hf[UB_AF_STREAM_OPEN_BYTES]
#define hf_ub_stream_unit ub_af_hf[UB_AF_STREAM_UNIT]

typedef struct s_unit {
    guint32 first_frame;   /* frame where the unit started */
    guint32 off;           /* offset in this record (in_rec), else unused */
    guint32 len;
    guint32 flags;         /* UB_UNIT_* */
    gboolean in_rec;       /* bytes are a contiguous part of this record */
    guint8 *copy;          /* file-scope copy when assembled from several records */
} s_unit;

typedef struct s_frame {
    wmem_array_t *units;   /* s_unit */
    guint32 started_in;    /* first bytes of this record continue a unit started in that frame, 0 none */
    guint32 continued_in;  /* the unit left open at the end of this record completes there, 0 unknown */
    guint32 open_bytes;    /* bytes of this record in a unit not complete at its end */
    gboolean tail_open;
} s_frame;

typedef struct s_state {
    ub_stream s;
    guint32 open_since;    /* frame where the currently collected unit started, 0 = at a boundary */
    wmem_list_t *open_frames; /* s_frame* holding bytes of the open unit */
} s_state;

static wmem_map_t *stream_states; /* (interface, direction) -> s_state, file scope */

static void stream_init(void)
{
    stream_states = wmem_map_new(wmem_file_scope(), g_direct_hash, g_direct_equal);
}

static void stream_cleanup(void)
{
    stream_states = NULL; /* file scope frees it */
}

typedef struct flush_ctx {
    ub_unit_cb cb;
    void *ctx;
} flush_ctx;

static void stream_flush_one(gpointer key _U_, gpointer value, gpointer user_data)
{
    const flush_ctx *fc = (const flush_ctx *)user_data;
    s_state *st = (s_state *)value;
    ub_stream_flush(&st->s, fc->cb, fc->ctx);
}

void ub_ws_stream_flush_all(ub_unit_cb cb, void *ctx)
{
    if (!stream_states) return;
    flush_ctx fc = { cb, ctx };
    wmem_map_foreach(stream_states, stream_flush_one, &fc);
}

typedef struct feed_ctx {
    s_state *st;
    s_frame *fr;
    const guint8 *rec;
    guint32 rec_len;
    guint32 num;
    gboolean first_cb;
} feed_ctx;

static void stream_unit_cb(void *ctx, const uint8_t *unit, uint32_t len, uint32_t flags)
{
    feed_ctx *c = (feed_ctx *)ctx;
    s_unit u;
    memset(&u, 0, sizeof u);
    u.len = len;
    u.flags = flags;
    u.first_frame = c->num;
    if (c->first_cb && c->st->open_since) {
        /* the unit collected across records completes here */
        u.first_frame = c->st->open_since;
        c->fr->started_in = c->st->open_since;
        for (wmem_list_frame_t *lf = wmem_list_head(c->st->open_frames); lf; lf = wmem_list_frame_next(lf)) {
            s_frame *of = (s_frame *)wmem_list_frame_data(lf);
            of->continued_in = c->num;
        }
        while (wmem_list_count(c->st->open_frames)) wmem_list_remove_frame(c->st->open_frames, wmem_list_head(c->st->open_frames));
        c->st->open_since = 0;
    }
    c->first_cb = FALSE;
    gint64 o = ub_ws_buf_off(unit, c->rec, c->rec_len);
    if (!(flags & UB_UNIT_SPANNED) && o >= 0 && len <= c->rec_len - (guint32)o) {
        u.in_rec = TRUE;
        u.off = (guint32)o;
    } else {
        u.copy = (guint8 *)wmem_memdup(wmem_file_scope(), unit, len);
    }
    wmem_array_append_one(c->fr->units, u);
}

static s_frame *stream_first_pass(packet_info *pinfo, const guint8 *p, guint32 len)
{
    s_frame *fr = wmem_new0(wmem_file_scope(), s_frame);
    fr->units = wmem_array_new(wmem_file_scope(), sizeof(s_unit));
    if (!stream_states) stream_init();
    guint32 iface = 0;
    if (pinfo->rec && (pinfo->rec->presence_flags & WTAP_HAS_INTERFACE_ID))
        iface = pinfo->rec->rec_header.packet_header.interface_id;
    guint key = iface * 4u + (guint)(pinfo->p2p_dir + 1) + 1u;
    s_state *st = (s_state *)wmem_map_lookup(stream_states, GUINT_TO_POINTER(key));
    if (!st) {
        st = wmem_new0(wmem_file_scope(), s_state);
        ub_stream_init(&st->s, ub_ws_opts());
        st->open_frames = wmem_list_new(wmem_file_scope());
        wmem_map_insert(stream_states, GUINT_TO_POINTER(key), st);
    }
    feed_ctx c = { st, fr, p, len, pinfo->num, TRUE };
    guint32 before = st->s.have;
    ub_stream_feed(&st->s, p, len, stream_unit_cb, &c);
    if (c.first_cb && st->open_since) {
        /* nothing completed: the whole record belongs to the open unit */
        fr->started_in = st->open_since;
    }
    if (st->s.have > 0) {
        fr->tail_open = TRUE;
        /* bytes of this record still pending: all of it when nothing completed, else the tail */
        guint32 pend = st->s.have;
        if (c.first_cb && before <= pend) pend -= before;
        fr->open_bytes = pend > len ? len : pend;
        if (!st->open_since) st->open_since = pinfo->num;
        wmem_list_append(st->open_frames, fr);
    }
    return fr;
}

int ub_ws_dissect_stream(tvbuff_t *tvb, packet_info *pinfo, proto_tree *tree)
{
    guint32 len;
    const guint8 *p = ub_ws_tvb_bytes(tvb, &len);
    s_frame *fr = (s_frame *)p_get_proto_data(wmem_file_scope(), pinfo, proto_ub, 0);
    if (!fr) {
        fr = stream_first_pass(pinfo, p, len);
        p_add_proto_data(wmem_file_scope(), pinfo, proto_ub, 0, fr);
    }
    col_set_str(pinfo->cinfo, COL_PROTOCOL, "UB-DLL"); /* flits of the data link */
    col_clear(pinfo->cinfo, COL_INFO);
    const char *proto = NULL; /* Protocol column: the first unit above the data link, else UB-DLL */

    guint n = wmem_array_get_count(fr->units);
    proto_item *sti = proto_tree_add_item(tree, proto_ub, tvb, 0, -1, ENC_NA);
    proto_item_append_text(sti, ", raw flit stream, %u bytes, %u complete unit%s", len, n, n == 1 ? "" : "s");
    proto_tree *stt = proto_item_add_subtree(sti, ett_ub_stream);
    if (fr->started_in && fr->started_in != pinfo->num) {
        proto_item *it = proto_tree_add_uint(stt, hf_ub_stream_started_in, tvb, 0, 0, fr->started_in);
        proto_item_set_generated(it);
    }

    char sum[512];
    for (guint i = 0; i < n; i++) {
        s_unit *u = (s_unit *)wmem_array_index(fr->units, i);
        tvbuff_t *ut;
        if (u->in_rec && u->off + u->len <= len) {
            ut = tvb_new_subset_length(tvb, (gint)u->off, (gint)u->len);
        } else if (u->copy) {
            ut = tvb_new_child_real_data(tvb, u->copy, u->len, u->len);
            char *nm = wmem_strdup_printf(pinfo->pool, "UB unit (frames %u-%u)", u->first_frame, pinfo->num);
            add_new_data_source(pinfo, ut, nm);
        } else {
            continue;
        }
        guint32 ul;
        const guint8 *up = ub_ws_tvb_bytes(ut, &ul);
        ub_view *v = ub_ws_view_new(pinfo);
        ub_decode(v, ub_ws_opts(), UB_ENTRY_FLIT, up, ul);
        ub_unit_errors(v, u->flags, ul); /* cut short by a resynchronisation, as ubdump */
        sum[0] = '\0';
        ub_summary(v, sum, sizeof sum);
        col_append_sep_str(pinfo->cinfo, COL_INFO, " | ", sum[0] ? sum : "UB unit");
        const char *up_name = ub_view_protocol(v);
        if (!proto || (strcmp(proto, "UB-DLL") == 0 && strcmp(up_name, "UB") != 0)) proto = up_name;
        proto_item *ui = proto_tree_add_uint(stt, hf_ub_stream_unit, ut, 0, (gint)ul, i + 1);
        proto_item_append_text(ui, ": %u bytes, %s", ul, sum[0] ? sum : "?");
        if (u->first_frame != pinfo->num) proto_item_append_text(ui, " [started in frame %u]", u->first_frame);
        proto_tree *utr = proto_item_add_subtree(ui, ett_ub_unit);
        proto_item *top = ub_ws_add_view(ut, pinfo, utr, v, NULL);
        ub_an_view(ut, pinfo, top ? proto_item_get_subtree(top) : NULL, v, ul);
    }
    if (proto) col_set_str(pinfo->cinfo, COL_PROTOCOL, proto);
    ub_an_show(tvb, pinfo, stt);
    if (fr->tail_open) {
        proto_item *it = proto_tree_add_uint(stt, hf_ub_stream_open_bytes, tvb,
                                             (gint)(len - (fr->open_bytes <= len ? fr->open_bytes : len)),
                                             (gint)(fr->open_bytes <= len ? fr->open_bytes : len), fr->open_bytes);
        if (fr->continued_in) {
            proto_item_append_text(it, " [continued in frame %u]", fr->continued_in);
            proto_item *ci = proto_tree_add_uint(stt, hf_ub_stream_continued_in, tvb, 0, 0, fr->continued_in);
            proto_item_set_generated(ci);
        } else {
            proto_item_append_text(it, " [continued in a later frame]");
        }
        if (fr->continued_in)
            col_append_sep_fstr(pinfo->cinfo, COL_INFO, " | ", "[%u bytes of an incomplete unit, continued in frame %u]",
                                fr->open_bytes, fr->continued_in);
        else
            col_append_sep_fstr(pinfo->cinfo, COL_INFO, " | ", "[%u bytes of an incomplete unit]", fr->open_bytes);
    }
    if (n == 0 && !fr->tail_open)
        col_add_fstr(pinfo->cinfo, COL_INFO, "UB flit stream, %u bytes", len);
    return (int)len;
}

void ub_ws_stream_register(int proto)
{
    proto_ub = proto;
    static gint *ett[] = { &ett_ub_stream, &ett_ub_unit };
    proto_register_subtree_array(ett, array_length(ett));
    register_init_routine(stream_init);
    register_cleanup_routine(stream_cleanup);
}

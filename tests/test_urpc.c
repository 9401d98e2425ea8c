#include "decoder_test.h"

/* ====================================================================== test_urpc.c
 * URPC messages (App. H, digest §9.5): heuristic recognition in Send payloads, heads, Argument
 * DMA entries and Return Data Offsets; end-to-end through a CFG 9 Send. */
static ub_view V;
static ub_opts O;

static bool run(const uint8_t *p, uint32_t len)
{
    ub_dec d;
    td_init(&d, &V, &O, p, len);
    return ub_dec_urpc(&d, 0, len);
}

/* end of the last layer pushed (what the transaction decoder uses as the payload start) */
static uint32_t last_end(void)
{
    if (!V.nlayers) return 0;
    const ub_layer *l = &V.layer[V.nlayers - 1];
    return l->off + l->len;
}

static void prefixes(const uint8_t *p, uint32_t len, uint32_t head)
{
    for (uint32_t n = 0; n < len; n++) {
        bool ok = run(p, n);
        CHECK_EQ(ok, n >= head);
        if (!ok) CHECK_EQ(V.nlayers, 0);
        else CHECK_EQ(last_end(), head);
        CHECK_EQ(V.nerrs, 0);
    }
}

static const char *REQ =
    "10 82 00 20 01 80 00 03 00 00 00 40 11 22 33 44 0a 0b 0c 00 "  /* head: Ack, 2 DMA entries */
    "00 00 10 00 00 00 10 00 00 00 00 00 de ad be ef "             /* DMA 0 */
    "00 00 00 80 00 00 00 00 00 00 20 00 00 00 00 07 "             /* DMA 1 */
    "aa bb cc dd ee ff 00 11";                                      /* inline data */

static void t_request(void)
{
    uint8_t b[128];
    uint32_t n = (uint32_t)ub_hex(REQ, b, sizeof b);
    CHECK_EQ(n, 60);
    CHECK(run(b, n));
    CHECK_NOERR(&V, "req");
    CHECK_EQ(V.nlayers, 3);
    CHECK_EQ(V.layer[0].hdr->id, UB_H_URPC_REQ);
    CHECK_EQ(V.layer[1].hdr->id, UB_H_URPC_DMA);
    CHECK_EQ(V.layer[2].hdr->id, UB_H_URPC_DMA);
    CHECK_EQ(V.layer[1].depth, 1);
    CHECK_EQ(last_end(), 52);
    CHECK_EQ(td_get(&V, "ub.urpc.version"), 1);
    CHECK_EQ(td_get(&V, "ub.urpc.type"), 0);
    CHECK_EQ(td_get(&V, "ub.urpc.ack"), 1);
    CHECK_EQ(td_get(&V, "ub.urpc.arg_dma_count"), 2);
    CHECK_EQ(td_get(&V, "ub.urpc.function"), 0x002001800003ull);
    CHECK_EQ(td_get(&V, "ub.urpc.ubpu_class"), 0x002);
    CHECK_EQ(td_get(&V, "ub.urpc.ubpu_subclass"), 0x001);
    CHECK_EQ(td_get(&V, "ub.urpc.p"), 1);
    CHECK_EQ(td_get(&V, "ub.urpc.method"), 3);
    CHECK_EQ(td_get(&V, "ub.urpc.request_total_size"), 0x40);
    CHECK_EQ(td_get(&V, "ub.urpc.request_id"), 0x11223344);
    CHECK_EQ(td_get(&V, "ub.urpc.client_urpc_channel"), 0x0a0b0c);
    CHECK_EQ(td_get(&V, "ub.urpc.function_defined"), 0);
    CHECK_EQ(td_lv(&V, 1, "size"), 4096);
    CHECK_EQ(td_lv(&V, 1, "ub_address"), 0x0000100000000000ull);
    CHECK_EQ(td_lv(&V, 1, "ub_token"), 0xdeadbeef);
    CHECK_EQ(td_lv(&V, 2, "size"), 0x80);
    CHECK_EQ(td_lv(&V, 2, "ub_address"), 0x2000);
    CHECK_EQ(td_lv(&V, 2, "ub_token"), 7);
    prefixes(b, n, 52);
    /* no DMA table */
    b[1] = 0x00;
    CHECK(run(b, n));
    CHECK_EQ(V.nlayers, 1);
    CHECK_EQ(last_end(), 20);
    /* reserved bit: still URPC, warning */
    b[1] = 0x40;
    CHECK(run(b, n));
    CHECK_EQ(td_nerr(&V, UB_E_RSVD_BITS), 1);
    /* DMA table does not fit */
    b[1] = 0x03;
    CHECK(!run(b, 60));
    CHECK_EQ(V.nlayers, 0);
    b[1] = 0x82;
    /* Request Total Size smaller than the head */
    b[11] = 0x10;
    CHECK(!run(b, n));
    b[11] = 0x40;
    /* wrong version / type */
    b[0] = 0x00;
    CHECK(!run(b, n));
    b[0] = 0x20;
    CHECK(!run(b, n));
    b[0] = 0x14;
    CHECK(!run(b, n));
    CHECK_EQ(V.nlayers, 0);
    CHECK_EQ(V.nerrs, 0);
}

static void t_ack_rsp(void)
{
    uint8_t b[128];
    uint32_t n = (uint32_t)ub_hex("11 00 00 01 00 00 00 05 00 00 07 00", b, sizeof b);
    CHECK(run(b, n));
    CHECK_NOERR(&V, "ack");
    CHECK_EQ(V.nlayers, 1);
    CHECK_EQ(V.layer[0].hdr->id, UB_H_URPC_ACK);
    CHECK_EQ(td_get(&V, "ub.urpc.type"), 1);
    CHECK_EQ(td_get(&V, "ub.urpc.request_id_range"), 1);
    CHECK_EQ(td_get(&V, "ub.urpc.request_id"), 5);
    CHECK_EQ(td_get(&V, "ub.urpc.client_urpc_channel"), 7);
    CHECK_EQ(last_end(), 12);
    prefixes(b, n, 12);
    b[3] = 0; /* Range 0 */
    CHECK(!run(b, n));

    /* Response, Range 3: two Return Data Offsets, then return data */
    n = (uint32_t)ub_hex("12 00 00 03 00 00 00 09 00 00 07 02 00 00 00 20 "
                         "00 00 00 10 00 00 00 18 "
                         "01 02 03 04 05 06 07 08 09 0a 0b 0c 0d 0e 0f 10", b, sizeof b);
    CHECK_EQ(n, 40);
    CHECK(run(b, n));
    CHECK_NOERR(&V, "rsp");
    CHECK_EQ(V.nlayers, 3);
    CHECK_EQ(V.layer[0].hdr->id, UB_H_URPC_RSP);
    CHECK_EQ(V.layer[1].hdr->id, UB_H_URPC_RDOFF);
    CHECK_EQ(V.layer[2].depth, 1);
    CHECK_EQ(td_get(&V, "ub.urpc.type"), 2);
    CHECK_EQ(td_get(&V, "ub.urpc.status"), 0);
    CHECK_EQ(td_get(&V, "ub.urpc.request_id_range"), 3);
    CHECK_EQ(td_get(&V, "ub.urpc.request_id"), 9);
    CHECK_EQ(td_get(&V, "ub.urpc.client_urpc_channel"), 7);
    CHECK_EQ(td_get(&V, "ub.urpc.function_defined"), 2);
    CHECK_EQ(td_get(&V, "ub.urpc.response_total_size"), 0x20);
    CHECK_EQ(td_lv(&V, 1, "return_data_offset"), 0x10);
    CHECK_EQ(td_lv(&V, 2, "return_data_offset"), 0x18);
    CHECK_EQ(last_end(), 24);
    prefixes(b, n, 24);
    /* no Return Data (Total Size = head): no offsets */
    b[15] = 0x10;
    CHECK(run(b, n));
    CHECK_EQ(V.nlayers, 1);
    CHECK_EQ(last_end(), 16);
    /* Ack+Response, Range 1, Status 4 */
    b[0] = 0x13;
    b[1] = 4;
    b[3] = 1;
    b[15] = 0x20;
    CHECK(run(b, n));
    CHECK_NOERR(&V, "ack+rsp");
    CHECK_EQ(V.nlayers, 1);
    CHECK_EQ(td_get(&V, "ub.urpc.type"), 3);
    CHECK_EQ(td_get(&V, "ub.urpc.status"), 4);
    /* offsets that do not fit: not URPC */
    b[3] = 200;
    CHECK(!run(b, n));
    /* short or random payloads */
    CHECK(!run(b, 11));
    uint8_t r[64];
    for (unsigned i = 0; i < sizeof r; i++) r[i] = (uint8_t)(i * 53 + 7);
    for (uint32_t k = 0; k <= sizeof r; k++) {
        bool ok = run(r, k);
        if (ok) CHECK(last_end() <= k);
        CHECK_EQ(V.nerrs > 0 && !ok, 0);
    }
}

/* a CFG 9 Send (full BTAH (MT_EN) + MTETAH + OFSTETAH) whose payload is an URPC request */
static void t_e2e(void)
{
    uint8_t b[160], rec[200];
    size_t h = ub_hex("01 02 03 04 00 00 00 00 00 10 00 01 08 00 00 00 00 00 00 00 00 00 00 00", b, sizeof b);
    uint32_t n = (uint32_t)(h + ub_hex(REQ, b + h, sizeof b - h));
    int pl = ub_plength_encode(n, O.crc_mode);
    CHECK(pl >= 0);
    rec[0] = 0x00;
    rec[1] = 0x09;
    rec[2] = (uint8_t)((pl >> 8) & 0x3F);
    rec[3] = (uint8_t)pl;
    memcpy(rec + 4, b, n);
    ub_decode(&V, &O, UB_ENTRY_PKT, rec, n + 4);
    CHECK_NOERR(&V, "e2e urpc");
    int ri = ub_view_find(&V, UB_H_URPC_REQ, 0);
    int pi = ub_view_find(&V, UB_H_PAYLOAD, 0);
    CHECK(ri > 0);
    CHECK(pi > ri);
    if (pi > 0) {
        CHECK_EQ(V.layer[pi].len, 8);
        CHECK_EQ(V.layer[pi].data[0], 0xaa);
    }
    CHECK_EQ(td_get(&V, "ub.urpc.request_id"), 0x11223344);
    /* heuristic off: plain payload */
    O.urpc_heuristic = false;
    ub_decode(&V, &O, UB_ENTRY_PKT, rec, n + 4);
    CHECK_EQ(ub_view_find(&V, UB_H_URPC_REQ, 0), -1);
    O.urpc_heuristic = true;
    for (uint32_t k = 1; k < n + 4; k++) ub_decode(&V, &O, UB_ENTRY_PKT, rec, k);
}

int main(void)
{
    ub_opts_default(&O);
    t_request();
    t_ack_rsp();
    t_e2e();
    return ub_test_finish();
}

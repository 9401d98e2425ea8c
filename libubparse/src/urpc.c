/* URPC messages (App. H, digest §9.5) in a Send / Send_with_immediate payload. Not UB protocol
 * headers: recognised heuristically (opts->urpc_heuristic, checked by the caller).
 *
 * ub_dec_urpc pushes the URPC head (plus Argument DMA entries / Return Data Offsets, one layer
 * each at depth + 1) and returns true; the last layer it pushes ends exactly where the head ends,
 * so the caller pushes the Inline / Return Data as the payload from there. */
#include "internal.h"
#include "rows.h"


/* ---------------------------------------------------------------- value names */
enum { URPC_VERSION = 1 };
enum { URPC_T_REQ = 0, URPC_T_ACK = 1, URPC_T_RSP = 2, URPC_T_ACK_RSP = 3 };
static const ub_vname vn_urpc_type[] = {
    { URPC_T_REQ, "Request" }, { URPC_T_ACK, "Ack" }, { URPC_T_RSP, "Response" },
    { URPC_T_ACK_RSP, "Ack+Response" }, { 0, NULL }
};
static const ub_vname vn_urpc_status[] = {
    { 0, "done" }, { 1, "server refused" }, { 2, "function unsupported" }, { 3, "argument buffer insufficient" },
    { 4, "timeout" }, { 5, "version mismatch" }, { 6, "header error" }, { 0, NULL }
};
static const ub_vname vn_urpc_fdef[] = {
    { 0, "none" }, { 1, "general compute" }, { 2, "storage PLOG (App. I)" }, { 0, NULL }
};
static const ub_vname vn_urpc_p[] = { { 0, "public method" }, { 1, "customized method" }, { 0, NULL } };

/* ---------------------------------------------------------------- tables */
#define SP_REQ "App. H.2, R-41"
static const ub_field f_urpc_req[] = {
    [RQ_VERSION] = UBU(urpc, version, "Version", 0, 4, UB_BASE_DEC, NULL, SP_REQ, "1"),
    [RQ_TYPE] = UBU(urpc, type, "Type", 4, 4, UB_BASE_DEC, vn_urpc_type, SP_REQ, "message type: 0 Request"),
    [RQ_ACK] = UBB(urpc, ack, "Ack", 8, SP_REQ, "an URPC Ack is requested"),
    [RQ_RSVD0] = UBR(urpc, rsvd0, 9, 1, SP_REQ " (unassigned bit, I-28)"),
    [RQ_COUNT] = UBU(urpc, arg_dma_count, "Argument DMA Count", 10, 6, UB_BASE_DEC, NULL, SP_REQ,
                     "Argument DMA entries after the head (0 = none)"),
    [RQ_FUNCTION] = UBU(urpc, function, "Function", 16, 48, UB_BASE_HEX, NULL, SP_REQ ", Fig H-1",
                        "UBPU Class | UBPU Subclass | P | Method"),
    [RQ_CLASS] = UBU(urpc, ubpu_class, "UBPU Class", 16, 12, UB_BASE_HEX, NULL, "App. H Table H-1",
                     "Function[47:36]"),
    [RQ_SUBCLASS] = UBU(urpc, ubpu_subclass, "UBPU Subclass", 28, 12, UB_BASE_HEX, NULL, "App. H Table H-1",
                        "Function[35:24]"),
    [RQ_P] = UBF(urpc, p, "P", 40, 1, UB_FT_BOOL, UB_BASE_DEC, 0, vn_urpc_p, "App. H Table H-1", "Function[23]"),
    [RQ_METHOD] = UBU(urpc, method, "Method", 41, 23, UB_BASE_HEX, NULL, "App. H Table H-1",
                      "Function[22:0]; {P,Method} 0x000000 query public, 0x800000 query customized, "
                      "0x800001 deploy, 0x800002 delete, 0x800003 query by name"),
    [RQ_TOTAL] = UBU(urpc, request_total_size, "Request Total Size", 64, 32, UB_BASE_DEC, NULL, SP_REQ,
                     "head + all argument fragments, excluding the Argument DMA table"),
    [RQ_ID] = UBU(urpc, request_id, "Request ID", 96, 32, UB_BASE_DEC_HEX, NULL, SP_REQ, "matches Ack/Response"),
    [RQ_CHANNEL] = UBU(urpc, client_urpc_channel, "Client's URPC Channel", 128, 24, UB_BASE_HEX, NULL, SP_REQ,
                       "client channel"),
    [RQ_FDEF] = UBU(urpc, function_defined, "Function Defined", 152, 8, UB_BASE_DEC, vn_urpc_fdef, SP_REQ,
                    "extension-header type of the inline data"),
};
UB_HDR_DEF(urpc_req, UB_H_URPC_REQ, "urpc_req", "urpc", "URPC Request", SP_REQ, 20, f_urpc_req);

#define SP_DMA "App. H.2 Table H-4"
static const ub_field f_urpc_dma[] = {
    UBU(urpc_dma, size, "Size", 0, 32, UB_BASE_DEC, NULL, SP_DMA, "argument fragment size in bytes"),
    UBU(urpc_dma, ub_address, "UB Address", 32, 64, UB_BASE_HEX, NULL, SP_DMA, "argument fragment address"),
    UBU(urpc_dma, ub_token, "UB Token", 96, 32, UB_BASE_HEX, NULL, SP_DMA, "token for the fragment"),
};
UB_HDR_DEF(urpc_dma, UB_H_URPC_DMA, "urpc_dma", "urpc_dma", "URPC Argument DMA entry", SP_DMA, 16, f_urpc_dma);

#define SP_ACK "App. H.3 Fig H-3"
static const ub_field f_urpc_ack[] = {
    [AK_VERSION] = UBU(urpc, version, "Version", 0, 4, UB_BASE_DEC, NULL, SP_ACK, "1"),
    [AK_TYPE] = UBU(urpc, type, "Type", 4, 4, UB_BASE_DEC, vn_urpc_type, SP_ACK, "message type: 1 Ack"),
    [AK_RSVD0] = UBR(urpc, rsvd0, 8, 8, SP_ACK),
    [AK_RANGE] = UBU(urpc, request_id_range, "Request ID Range", 16, 16, UB_BASE_DEC, NULL, SP_ACK,
                     "acknowledges Request IDs ID-Range+1 .. ID"),
    [AK_ID] = UBU(urpc, request_id, "Request ID", 32, 32, UB_BASE_DEC_HEX, NULL, SP_ACK, "last acknowledged request"),
    [AK_CHANNEL] = UBU(urpc, client_urpc_channel, "Client's URPC Channel", 64, 24, UB_BASE_HEX, NULL, SP_ACK,
                       "client channel"),
    [AK_RSVD1] = UBR(urpc, rsvd1, 88, 8, SP_ACK),
};
UB_HDR_DEF(urpc_ack, UB_H_URPC_ACK, "urpc_ack", "urpc", "URPC Ack", SP_ACK, 12, f_urpc_ack);

#define SP_RSP "App. H.4 Fig H-4, R-42"
static const ub_field f_urpc_rsp[] = {
    [RS_VERSION] = UBU(urpc, version, "Version", 0, 4, UB_BASE_DEC, NULL, SP_RSP, "1"),
    [RS_TYPE] = UBU(urpc, type, "Type", 4, 4, UB_BASE_DEC, vn_urpc_type, SP_RSP,
                    "message type: 2 Response, 3 Ack+Response"),
    [RS_STATUS] = UBU(urpc, status, "Status", 8, 8, UB_BASE_DEC, vn_urpc_status, SP_RSP, "completion status"),
    [RS_RANGE] = UBU(urpc, request_id_range, "Request ID Range", 16, 16, UB_BASE_DEC, NULL, SP_RSP,
                     "answers Request IDs ID-Range+1 .. ID"),
    [RS_ID] = UBU(urpc, request_id, "Request ID", 32, 32, UB_BASE_DEC_HEX, NULL, SP_RSP, "last answered request"),
    [RS_CHANNEL] = UBU(urpc, client_urpc_channel, "Client's URPC Channel", 64, 24, UB_BASE_HEX, NULL, SP_RSP,
                       "client channel"),
    [RS_FDEF] = UBU(urpc, function_defined, "Function Defined", 88, 8, UB_BASE_DEC, vn_urpc_fdef, SP_RSP,
                    "extension-header type of the return data"),
    [RS_TOTAL] = UBU(urpc, response_total_size, "Response Total Size", 96, 32, UB_BASE_DEC, NULL, SP_RSP,
                     "head + Return Data, excluding the Return Data Offset list"),
};
UB_HDR_DEF(urpc_rsp, UB_H_URPC_RSP, "urpc_rsp", "urpc", "URPC Response", SP_RSP, 16, f_urpc_rsp);

#define SP_RDO "App. H.4 Fig H-4"
static const ub_field f_urpc_rdoff[] = {
    UBU(urpc_rdoff, return_data_offset, "Return Data Offset", 0, 32, UB_BASE_DEC, NULL, SP_RDO,
        "offset of the return data of one of Request IDs ID-Range+2 .. ID"),
};
UB_HDR_DEF(urpc_rdoff, UB_H_URPC_RDOFF, "urpc_rdoff", "urpc_rdoff", "URPC Return Data Offset", SP_RDO, 4,
           f_urpc_rdoff);

/* ---------------------------------------------------------------- decoder */
/* Version and Type sit at the same place in all heads; read them through the request table. */

/* one layer per entry at depth + 1 */
static void push_entries(ub_dec *d, unsigned id, uint32_t off, uint32_t n)
{
    uint32_t sz = ub_hdr_get(id)->len;
    d->depth++;
    for (uint32_t i = 0; i < n; i++)
        if (!ub_push_in(d, id, off + i * sz, sz, off + (i + 1) * sz, false)) break;
    d->depth--;
}

bool ub_dec_urpc(ub_dec *d, uint32_t off, uint32_t end)
{
    end = ub_dec_clamp(d, end);
    if (off >= end) return false;
    uint32_t avail = end - off;
    if (avail < ub_hdr_urpc_ack.len) return false; /* the shortest head */
    if (ub_peek(d, &ub_hdr_urpc_req, RQ_VERSION, off, end) != URPC_VERSION) return false;
    unsigned type = (unsigned)ub_peek(d, &ub_hdr_urpc_req, RQ_TYPE, off, end);

    switch (type) {
    case URPC_T_REQ: {
        uint32_t head = ub_hdr_urpc_req.len;
        if (avail < head) return false;
        uint32_t cnt = (uint32_t)ub_peek(d, &ub_hdr_urpc_req, RQ_COUNT, off, end);
        uint32_t total = (uint32_t)ub_peek(d, &ub_hdr_urpc_req, RQ_TOTAL, off, end);
        uint32_t need = head + cnt * ub_hdr_urpc_dma.len;
        if (need > avail || total < head) return false;
        if (!ub_push_in(d, UB_H_URPC_REQ, off, head, end, false)) return true;
        push_entries(d, UB_H_URPC_DMA, off + head, cnt);
        return true;
    }
    case URPC_T_ACK: {
        if (ub_peek(d, &ub_hdr_urpc_ack, AK_RANGE, off, end) == 0) return false;
        ub_push_in(d, UB_H_URPC_ACK, off, ub_hdr_urpc_ack.len, end, false);
        return true;
    }
    case URPC_T_RSP:
    case URPC_T_ACK_RSP: {
        uint32_t head = ub_hdr_urpc_rsp.len;
        if (avail < head) return false;
        uint32_t range = (uint32_t)ub_peek(d, &ub_hdr_urpc_rsp, RS_RANGE, off, end);
        uint32_t total = (uint32_t)ub_peek(d, &ub_hdr_urpc_rsp, RS_TOTAL, off, end);
        if (range == 0 || total < head) return false;
        /* Return Data Offsets: Range - 1 of them, absent if Range = 1 or no Return Data */
        uint32_t nofs = (range > 1 && total > head) ? range - 1 : 0;
        if (head + nofs * ub_hdr_urpc_rdoff.len > avail) return false;
        if (!ub_push_in(d, UB_H_URPC_RSP, off, head, end, false)) return true;
        push_entries(d, UB_H_URPC_RDOFF, off + head, nofs);
        return true;
    }
    default:
        return false;
    }
}

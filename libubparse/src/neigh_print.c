/* SPDX-License-Identifier: GPL-2.0-or-later */
/* One-line summaries of neighbouring-interconnect layers (ub_summary, the plugin Info column). They say
 * what the traffic is — RoCEv2, SUE, PCIe flits — never UB. */
#include "neigh.h"
#include "sumfmt.h"

#include <inttypes.h>

/* the UB printer's text building (print.c) */
#define nb ub_sb
typedef ub_sbuf nbuf;

static void sum_ib(const ub_view *v, const ub_layer *b, nbuf *s)
{
    unsigned op = (unsigned)UB_RV(b, BTH_OP);
    static const char *const tr[8] = { "RC", "UC", "RD", "UD", "CNP", "XRC", "?", "?" };
    const char *nm = ub_vname_lookup(b->hdr->fields[0].vals, op);
    if (nm && (op >> 5) == 1) nm += 3; /* "UC SEND_ONLY": the transport is printed anyway */
    if (nm && (op >> 5) == 3) nm += 3;
    if (op == 0x81) nb(s, "RoCEv2 CNP QP 0x%" PRIx64, UB_RV(b, BTH_DQP));
    else if (nm) nb(s, "RoCEv2 %s %s QP 0x%" PRIx64 " PSN %" PRIu64, tr[op >> 5], nm, UB_RV(b, BTH_DQP), UB_RV(b, BTH_PSN));
    else nb(s, "RoCEv2 opcode 0x%02x QP 0x%" PRIx64 " PSN %" PRIu64, op, UB_RV(b, BTH_DQP), UB_RV(b, BTH_PSN));
    if (UB_RV(b, BTH_A)) nb(s, " AckReq");
    int i = ub_view_find(v, UB_H_IB_AETH, 0);
    if (i >= 0) {
        const ub_layer *a = &v->layer[i];
        unsigned sop = (unsigned)UB_RV(a, AETH_SYN_OP), val = (unsigned)UB_RV(a, AETH_SYN_VAL);
        static const char *const nak[4] = { "PSN sequence error", "invalid request", "remote access error", "remote operational error" };
        if (sop == 0) nb(s, " ACK MSN %" PRIu64, UB_RV(a, AETH_MSN));
        else if (sop == 1) nb(s, " RNR NAK timer %u", val);
        else if (sop == 3) nb(s, " NAK %s", val < 4 ? nak[val] : "reserved code");
    }
    if ((i = ub_view_find(v, UB_H_IB_RETH, 0)) >= 0)
        nb(s, " VA 0x%" PRIx64 " len %" PRIu64, UB_RV(&v->layer[i], RETH_VA), UB_RV(&v->layer[i], RETH_DMALEN));
}

static void sum_sue(const ub_view *v, const ub_layer *r, nbuf *s)
{
    unsigned op = (unsigned)UB_RV(r, RH_OP);
    int a = -1;
    for (unsigned id = UB_H_SUE_AFH0; id <= UB_H_SUE_AFH2 && a < 0; id++) a = ub_view_find(v, id, 0);
    nb(s, "SUE%s ", a >= 0 ? " AFH" : "");
    if (op == 0) nb(s, "SEND");
    else if (op == 1) {
        unsigned syn = (unsigned)UB_RV(r, RH_SYN);
        nb(s, "%s", (syn >> 5) == 3 ? "NAK" : (syn >> 5) == 1 ? "RNR NAK" : "ACK");
    } else nb(s, "%s", op == 2 ? "CNP" : "reserved opcode");
    nb(s, " QP 0x%" PRIx64 " PSN %" PRIu64, UB_RV(r, RH_DQP), UB_RV(r, RH_PSN));
    if (UB_RV(r, RH_FACK)) nb(s, " Fack");
    if (r->hdr->fields[0].flags & UB_FF_LEW) nb(s, " [RH Dest_QP byte first]");
}

static void sum_flits(const ub_view *v, nbuf *s)
{
    unsigned n = 0;
    for (int i = ub_view_find(v, UB_H_PCIEFLIT, 0); i >= 0; i = ub_view_find(v, UB_H_PCIEFLIT, i + 1)) {
        const ub_layer *f = &v->layer[i];
        unsigned usage = (unsigned)UB_RV(f, FL_USAGE), cmd = (unsigned)UB_RV(f, FL_REPLAY), seq = (unsigned)UB_RV(f, FL_SEQ);
        if (n++ == 0) nb(s, "PCIe flit");
        else nb(s, ",");
        if (n > 4) { nb(s, " ..."); break; }
        if (usage == 0 && cmd == 0 && seq == 0) nb(s, " IDLE");
        else nb(s, " %s", usage == 1 ? "Payload" : usage == 0 ? "NOP" : "reserved");
        static const char *const c[4] = { "seq", "Ack", "Nak", "SelNak" };
        if (!(usage == 0 && cmd == 0 && seq == 0)) nb(s, " %s %u", c[cmd], seq);
        if (i + 1 < v->nlayers && v->layer[i + 1].hdr->id == UB_H_PCIEFLIT_MARKER) {
            unsigned st = (unsigned)UB_RV(&v->layer[i + 1], FM_STATUS);
            if (st) nb(s, " %s", st == 1 ? "nullified" : st == 2 ? "poisoned" : "status?");
        }
    }
    unsigned total = 0;
    for (int i = ub_view_find(v, UB_H_PCIEFLIT, 0); i >= 0; i = ub_view_find(v, UB_H_PCIEFLIT, i + 1)) total++;
    if (total > 1) nb(s, " (%u flits)", total);
}

size_t ub_neigh_summary(const ub_view *v, char *buf, size_t n)
{
    nbuf s = { buf, n, 0 };
    if (n) buf[0] = '\0';
    int i;
    if ((i = ub_view_find(v, UB_H_IB_BTH, 0)) >= 0) sum_ib(v, &v->layer[i], &s);
    else if ((i = ub_view_find(v, UB_H_SUE_RH, 0)) >= 0) sum_sue(v, &v->layer[i], &s);
    else if (ub_view_find(v, UB_H_PCIEFLIT, 0) >= 0) sum_flits(v, &s);
    return s.w < n ? s.w : (n ? n - 1 : 0);
}

#!/usr/bin/env python3
"""Write ns-3-UB style traces, built the way the simulator serialises its headers
(../shared/interop/ns3-ub/ns3-ub.md §2; independent of libubparse's builder), for tests/t_ns3ub.sh.

    python3 tests/ns3ub_gen.py OUTDIR

Classic pcap, nanosecond timestamps, LINKTYPE 148 (packet records starting at the LPH or LCH), payload
zeros, optional snapshot length 96 with the full length in orig_len, and "tx-all" hop copies (every
packet once per port it crosses, switches rewriting the CCI). Scenarios (one file each):

  urma.pcap   nodes 3 -> 17, port index 2, TP channel 0x15 -> 0x2a: 6 writes (2 KiB), a read of 4 KiB
              answered by 2 read responses, TAACKs as TP data, TPACK + ATAH, Crd_Ack credits on VL2 and VL9
  sack.pcap   PSN 0..5, PSN 2 lost after the first hop, TPSACK (bits 0,1,3,4,5; LSB first), PSN 2
              retransmitted, then TPACK 5
  dcqcn.pcap  FECN-marked data (IP-NTH mode 100, FECN 01 from the second hop), CNP (ECN 01), an opcode-4
              NAK answered by a go-back-N resend
  ldst.pcap   CFG 9, CNA16 (little-endian) nodes 5 -> 9: a store (VA 0x1000) and a load (VA 0x2000, 64 B
              request payload), cATAH responses, LBF 1..2, RT 11
  caqm.pcap   CAQM: IP-NTH I=1 Hint=0x40, switches set C; TPACK-CC with the byte-reversed CETPH
"""
import os
import struct
import sys

SNAP = 96


class Trace:
    def __init__(self, snap=SNAP):
        self.recs = []
        self.t = 1000
        self.snap = snap

    def add(self, pkt, dt=50):
        self.t += dt
        self.recs.append((self.t, pkt))

    def hops(self, pkt_at_hop, n, dt=50, step=21):
        """the same packet at n ports (tx-all): pkt_at_hop(h) gives the bytes at hop h"""
        self.t += dt
        for h in range(n):
            self.recs.append((self.t + h * step, pkt_at_hop(h)))
        self.t += (n - 1) * step

    def write(self, path):
        self.recs.sort(key=lambda r: r[0])
        out = struct.pack("<IHHiIII", 0xA1B23C4D, 2, 4, 0, 0, self.snap or 65535, 148)
        for t, p in self.recs:
            cap = p[: self.snap] if self.snap else p
            out += struct.pack("<IIII", t // 1000000000, t % 1000000000, len(cap), len(p)) + cap
        with open(path, "wb") as f:
            f.write(out)


# ---------------------------------------------------------------- headers as hdr.cc writes them
def lph(cfg, vl, crd=0, ack=0, crd_vl=0, lb=0, rp=1):
    b0 = crd << 7 | ack << 6 | crd_vl << 2 | (vl >> 3) & 1
    b1 = (vl & 7) << 5 | cfg
    b2 = lb << 7 | rp << 6  # [LoadBalanceMode][RoutingPolicy], PLENGTH 0 (D1, D2)
    return bytes([b0, b1, b2, 0])


def ipnth(cci=0):
    return struct.pack(">H", cci) + b"\0\0\0\0"  # NPI never set (D8)


def node_ip(n):
    return bytes([10, 0, n & 0xFF, 0])


def ipv4(src, dst, l4len):
    # IHL 5, TOS 0, ID 0, flags 0, TTL 64, UDP, checksum 0 (D16)
    return struct.pack(">BBHHHBBH", 0x45, 0, 20 + l4len, 0, 0, 64, 17, 0) + node_ip(src) + node_ip(dst)


def udp(dport, plen, sport=0):
    return struct.pack(">HHHH", sport, dport, 8 + plen, 0)


def rtph(op, stpn, dtpn, psn, last=0, a=1, msn=0, rspst=0, info=0):
    return (bytes([last << 7 | op, 0]) + stpn.to_bytes(3, "big") + dtpn.to_bytes(3, "big") +
            bytes([a << 7]) + psn.to_bytes(3, "big") + bytes([rspst << 5 | info]) + msn.to_bytes(3, "big"))


def btah(op, tassn, rcid=0):
    return bytes([op, 0]) + struct.pack(">H", tassn) + bytes([0, 0x10 | (rcid >> 16) & 0xF]) + struct.pack(">H", rcid & 0xFFFF)


def maetah(length, va=0, token=0):
    return struct.pack(">Q", va) + struct.pack(">I", (token & 0xFFFFF) << 8) + struct.pack(">I", length)


def atah(op=0x11, tassn=0, rcid=0, rctype=0, rspst=0, info=0):  # D11: bytes 5-7 = 00, [r T id11:8], id7:0
    return bytes([op, 0]) + struct.pack(">H", tassn) + bytes([rspst << 5 | info, 0, rctype << 4 | (rcid >> 8) & 0xF, rcid & 0xFF])


def cetph_caqm(ack_bytes, hint, c, i, loc=0):  # D9, D10
    return struct.pack(">IHBB", ack_bytes, hint, c, i << 7 | loc << 6)


def cnp_cetph(ecn, loc=0):
    return bytes([ecn << 6 | loc << 5]) + b"\0" * 15


def saetph(psn0, bits, maxrcv):
    bm = bytearray(8)
    for i in bits:  # bit i = byte i/8, bit i%8 (LSB first)
        bm[i // 8] |= 1 << (i % 8)
    return bytes([0]) + maxrcv.to_bytes(3, "big") + bytes(bm)


def crd_ack(credits, sd=1, t=1, ack=0):  # D3/D4: VL0 first, S=1 T=1; 40 bytes, no BCRC
    v = 0
    for vl in range(16):
        v = v << 6 | (credits.get(vl, 0) & 63)
    return bytes([0x06, 0x00, 0x24, sd << 7 | t]) + struct.pack(">H", ack) + v.to_bytes(12, "big") + b"\0" * 22


def cna16(n, port=0):
    return ((n & 0xFFF) << 4) | (port + 1 if port is not None else 0)


def nth16(scna, dcna, lb, sl=7, nlp=0):  # D6: little-endian CNAs and CCI
    return struct.pack("<HHH", scna, dcna, 0) + bytes([lb, sl << 4 | nlp])


def cbtah(op, tassn):
    return bytes([op, 0]) + struct.pack(">H", tassn)


def cmaetah(va, length_code, so=0, token=0):  # D18: VA << 6
    return struct.pack(">Q", (va & ((1 << 58) - 1)) << 6 | so << 3 | length_code) + struct.pack(">I", (token & 0xFFFFF) << 8)


def catah(op, tassn):
    return bytes([op, 0]) + struct.pack(">H", tassn)


# ---------------------------------------------------------------- IP-NTH packets
def tp_packet(src, dst, port, tp_bytes, vl=7, cci=0, lph_kw=None):
    l4 = udp(port, len(tp_bytes)) + tp_bytes
    return lph(3, vl, **(lph_kw or {})) + ipnth(cci) + ipv4(src, dst, len(l4)) + l4


def data(src, dst, port, stpn, dtpn, psn, op, tassn, length, last=0, msn=0, cci=0, payload=None):
    body = btah(op, tassn) + maetah(length)
    pl = bytes(payload if payload is not None else length)
    return tp_packet(src, dst, port, rtph(1, stpn, dtpn, psn, last=last, msn=msn) + body + pl, cci=cci)


def tpack(src, dst, port, stpn, dtpn, psn, op=2, ext=b"", msn=0):
    # TPACKs copy the data packet's RTPH (last, TPMSN echoed) and set opcode, PSN and TPNs
    return tp_packet(src, dst, port, rtph(op, stpn, dtpn, psn, last=1, msn=msn) + ext + atah(), lph_kw={"ack": 1})


def urma(path):
    t = Trace()
    A, B, P, S, D = 3, 17, 2, 0x15, 0x2A
    psn = 0
    for i in range(6):  # writes of 512 B, TASSN 0 (3 packets) and 1 (3 packets); TPMSN = message number
        tassn, last = i // 3, int(i % 3 == 2)
        t.hops(lambda h, psn=psn, tassn=tassn, last=last: data(A, B, P, S, D, psn, 0x03, tassn, 512, last=last, msn=tassn), 3)
        t.hops(lambda h, psn=psn, tassn=tassn: tpack(B, A, P, D, S, psn, msn=tassn), 3)
        if last:  # the TAACK as TP data: BTAH 0x11 + MAETAH(1) + 1 dummy byte (D12)
            t.hops(lambda h, tassn=tassn: tp_packet(B, A, P, rtph(1, D, S, 100 + tassn, last=1, msn=tassn) + btah(0x11, tassn) +
                                                     maetah(1) + b"\0"), 3)
            t.hops(lambda h, tassn=tassn: tpack(A, B, P, S, D, 100 + tassn, msn=tassn), 3)
        psn += 1
    # a read of 4 KiB (request without payload), answered by two read responses of 2 KiB (D12)
    t.hops(lambda h: tp_packet(B, A, P, rtph(1, D, S, 102, last=1, msn=2) + btah(0x06, 2) + maetah(4096)), 3)
    t.hops(lambda h: tpack(A, B, P, S, D, 102, msn=2), 3)
    for k in range(2):
        t.hops(lambda h, k=k: data(A, B, P, S, D, psn + k, 0x12, 2, 2048, last=k, msn=2), 3)
        t.hops(lambda h, k=k: tpack(B, A, P, D, S, psn + k, msn=2), 3)
    t.add(crd_ack({2: 17}), dt=10)  # CBFC credit returns (D3: VL0 first)
    t.add(crd_ack({9: 40, 2: 5}), dt=10)
    t.write(path)


def sack(path):
    t = Trace()
    A, B, P, S, D = 1, 2, 0, 0x7, 0x9
    for psn in range(6):
        n = 1 if psn == 2 else 3  # PSN 2 is lost after the first hop
        t.hops(lambda h, psn=psn: data(A, B, P, S, D, psn, 0x03, 0, 1024, last=int(psn == 5)), n)
    t.hops(lambda h: tpack(B, A, P, D, S, 1, op=5, ext=saetph(1, [0, 2, 3, 4], 5)), 3)  # PSN 1 in order, 2 missing
    t.hops(lambda h: data(A, B, P, S, D, 2, 0x03, 0, 1024), 3)  # the retransmission
    t.hops(lambda h: tpack(B, A, P, D, S, 5), 3)
    t.write(path)


def dcqcn(path):
    t = Trace()
    A, B, P, S, D = 4, 6, 1, 0x31, 0x32
    for psn in range(4):  # the second switch marks FECN 01 (mode 100) on packets the sender left at CCI 0
        t.hops(lambda h, psn=psn: data(A, B, P, S, D, psn, 0x03, 0, 1024, cci=0x8001 if h >= 1 else 0), 3)
    t.hops(lambda h: tp_packet(B, A, P, rtph(8, D, S, 0, a=0) + cnp_cetph(1)), 3)  # CNP (DCQCN)
    t.hops(lambda h: tpack(B, A, P, D, S, 3), 3)
    t.hops(lambda h: data(A, B, P, S, D, 4, 0x03, 0, 1024), 1)  # lost after hop 1
    t.hops(lambda h: data(A, B, P, S, D, 5, 0x03, 0, 1024, last=1), 3)
    t.hops(lambda h: tpack(B, A, P, D, S, 4, op=4), 3)  # NAK: opcode 4, PSN = EPSN (D14)
    t.hops(lambda h: data(A, B, P, S, D, 4, 0x03, 0, 1024), 3)
    t.hops(lambda h: data(A, B, P, S, D, 5, 0x03, 0, 1024, last=1), 3)
    t.hops(lambda h: tpack(B, A, P, D, S, 5), 3)
    t.write(path)


def ldst(path):
    t = Trace()
    A, B = cna16(5), cna16(9)
    # store of 1 KiB at VA 0x1000: TASSN 7, two 512-byte packets, packet spray LBF 1/2, RT 11
    for k in range(2):
        t.hops(lambda h, k=k: lph(9, 1, lb=1, rp=1) + nth16(A, B, 1 + k) + cbtah(0x03, 7) + cmaetah(0x1000 + 512 * k, 3) +
               bytes(512), 2)
    for k in range(2):
        t.hops(lambda h, k=k: lph(9, 1, lb=1, rp=1, ack=1) + nth16(B, A, 1 + k) + catah(0x11, 7), 2)
    # load of 512 B at VA 0x2000: the request carries 64 B (D17)
    t.hops(lambda h: lph(9, 1, lb=1, rp=1) + nth16(A, B, 2) + cbtah(0x06, 8) + cmaetah(0x2000, 3) + bytes(64), 2)
    t.hops(lambda h: lph(9, 1, lb=1, rp=1, ack=1) + nth16(B, A, 2) + catah(0x12, 8) + bytes(512), 2)
    t.write(path)


def caqm(path):
    t = Trace()
    A, B, P, S, D = 0, 1, 0, 0, 0
    for psn in range(4):  # CAQM sender: I=1, Hint 0x40; the second switch sets C
        t.hops(lambda h, psn=psn: data(A, B, P, S, D, psn, 0x03, 0, 2048, cci=0x0140 | (0x0200 if h >= 1 else 0)), 3)
        t.hops(lambda h, psn=psn: tpack(B, A, P, D, S, psn, op=3, ext=cetph_caqm(2048 * (psn + 1), 0x40, 1 if psn else 0, 1)), 3)
    t.write(path)


if __name__ == "__main__":
    out = sys.argv[1] if len(sys.argv) > 1 else "."
    os.makedirs(out, exist_ok=True)
    for name, fn in (("urma", urma), ("sack", sack), ("dcqcn", dcqcn), ("ldst", ldst), ("caqm", caqm)):
        fn(os.path.join(out, name + ".pcap"))

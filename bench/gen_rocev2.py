#!/usr/bin/env python3
"""Write a classic pcap of N identical RoCEv2 packets: the InfiniBand counterpart of bench/write64.ub.

Each packet: Ethernet II / IPv4 (DF, checksum) / UDP dst 4791 (checksum 0, as RoCEv2 senders do) /
BTH (RC RDMA WRITE Only, opcode 0x0A) / RETH (VA, R_Key, DMA length 64) / 64-byte payload
(0x00, 0x01, ... like "payload inc=64") / ICRC (IBTA Annex A17: CRC-32 over 8 bytes of 1s, the IPv4
header with TOS/TTL/checksum set to 1s, the UDP header with the checksum set to 1s, the BTH with its
reserved byte 4 set to 1s, RETH and payload; stored little-endian as Linux rxe does).
138 bytes per frame (the UB packet of write64.ub is a 100-byte flit record).

usage: gen_rocev2.py [-n N] -w FILE
       gen_rocev2.py --like UB.pcap -w FILE

--like: the RoCEv2 counterpart of a UB capture (bench/tshark_cg.sh, the mixed capture of bench/mixed.sh):
one RoCEv2 frame per UB record, 38 bytes longer than the record (Ethernet/IPv4/UDP instead of the UB
link framing) or the smallest frame of its opcode, the opcode taken in turn from a mix of RC operations:
data-carrying ones (RDMA WRITE Only + RETH, SEND Only, SEND Only with Immediate, RDMA READ Response Only
+ AETH) when the frame has room for at least 8 payload bytes, else control ones (Acknowledge + AETH,
RDMA READ Request + RETH, Compare & Swap + AtomicETH, Atomic Acknowledge + AETH + AtomicAckETH).
Payloads are multiples of 4 bytes (PadCnt 0); QPN and PSN vary per packet.
"""
import argparse
import struct
import sys
import zlib


def ipv4_checksum(hdr: bytes) -> int:
    s = 0
    for i in range(0, len(hdr), 2):
        s += (hdr[i] << 8) | hdr[i + 1]
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return ~s & 0xFFFF


def rocev2_packet(opcode: int = 0x0A, ext: bytes = b"", payload: bytes = bytes(range(64)), qpn: int = 0x11,
                  psn: int = 1) -> bytes:
    # BTH: opcode, SE/M/PadCnt/TVer, P_Key, resv8a, DestQP(24), A/resv7, PSN(24)
    bth = struct.pack(">BBHB3sB3s", opcode, 0x00, 0xFFFF, 0x00, qpn.to_bytes(3, "big"), 0x80,
                      (psn & 0xFFFFFF).to_bytes(3, "big"))
    if opcode == 0x0A and not ext:
        ext = struct.pack(">QII", 0x0000100000000040, 0x00012345, len(payload))  # RETH
    reth = ext
    ib = bth + reth + payload
    udp_len = 8 + len(ib) + 4
    udp = struct.pack(">HHHH", 49152, 4791, udp_len, 0)
    ip_len = 20 + udp_len
    ip = bytearray(struct.pack(">BBHHHBBH4s4s", 0x45, 0x00, ip_len, 0, 0x4000, 64, 17, 0,
                               bytes([192, 168, 1, 1]), bytes([192, 168, 1, 2])))
    struct.pack_into(">H", ip, 10, ipv4_checksum(bytes(ip)))
    # ICRC over the invariant fields
    mip = bytearray(ip)
    mip[1] = 0xFF          # TOS (DSCP/ECN)
    mip[8] = 0xFF          # TTL
    mip[10:12] = b"\xff\xff"  # header checksum
    mudp = bytearray(udp)
    mudp[6:8] = b"\xff\xff"  # UDP checksum
    mbth = bytearray(bth)
    mbth[4] = 0xFF         # resv8a
    icrc = zlib.crc32(b"\xff" * 8 + bytes(mip) + bytes(mudp) + bytes(mbth) + reth + payload) & 0xFFFFFFFF
    eth = bytes.fromhex("020000000002" "020000000001" "0800")
    return eth + bytes(ip) + udp + ib + struct.pack("<I", icrc)


def record_lengths(path: str):
    """Captured length of every record of a classic pcap file (either byte order, usec or nsec)."""
    with open(path, "rb") as f:
        hdr = f.read(24)
        magic = struct.unpack("<I", hdr[:4])[0]
        if magic in (0xA1B2C3D4, 0xA1B23C4D):
            e = "<"
        elif magic in (0xD4C3B2A1, 0x4D3CB2A1):
            e = ">"
        else:
            raise SystemExit(f"{path}: not a classic pcap file")
        while True:
            rh = f.read(16)
            if len(rh) < 16:
                return
            caplen = struct.unpack(e + "IIII", rh)[2]
            f.seek(caplen, 1)
            yield caplen


ETH_IP_UDP_BTH_ICRC = 14 + 20 + 8 + 12 + 4
# (opcode, extension header bytes): data-carrying operations, then control ones
DATA_OPS = [(0x0A, 16), (0x04, 0), (0x05, 4), (0x10, 4)]
CTRL_OPS = [(0x11, 4), (0x0C, 16), (0x13, 28), (0x12, 12)]


def like_packet(i: int, ub_len: int) -> bytes:
    """The RoCEv2 frame standing for the i-th UB record of ub_len bytes."""
    target = ub_len + 38
    op, xl = DATA_OPS[i % len(DATA_OPS)]
    plen = (target - ETH_IP_UDP_BTH_ICRC - xl) // 4 * 4
    if plen < 8:
        op, xl = CTRL_OPS[i % len(CTRL_OPS)]
        plen = 0
    payload = bytes((i + k) & 0xFF for k in range(plen))
    if op in (0x0A, 0x0C):  # RETH: VA, R_Key, DMA length
        ext = struct.pack(">QII", 0x0000100000000000 + 64 * i, 0x00012345, plen if op == 0x0A else 64)
    elif op in (0x10, 0x11):  # AETH: syndrome (ACK, credits), MSN
        ext = struct.pack(">I", 0x1F000000 | (i & 0xFFFFFF))
    elif op == 0x05:  # ImmDt
        ext = struct.pack(">I", i & 0xFFFFFFFF)
    elif op == 0x13:  # AtomicETH: VA, R_Key, swap, compare
        ext = struct.pack(">QIQQ", 0x0000200000000000 + 8 * i, 0x00012345, i, i + 1)
    elif op == 0x12:  # AETH + AtomicAckETH
        ext = struct.pack(">IQ", 0x1F000000 | (i & 0xFFFFFF), i)
    else:
        ext = b""
    return rocev2_packet(op, ext, payload, qpn=0x11 + (i % 16), psn=i)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("-n", type=int, default=1000000, help="packets (default 1000000)")
    ap.add_argument("--like", help="one frame per record of this (UB) pcap file, of similar length")
    ap.add_argument("-w", required=True, help="output pcap file")
    a = ap.parse_args()
    pkt = rocev2_packet()
    lengths = record_lengths(a.like) if a.like else None
    with open(a.w, "wb") as f:
        f.write(struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 65535, 1))  # LINKTYPE_ETHERNET, usec
        recs = []
        for i in range(a.n) if lengths is None else range(1 << 62):
            if lengths is not None:
                n = next(lengths, None)
                if n is None:
                    break
                pkt = like_packet(i, n)
            ts = 100 + i  # µs, 1 µs apart (as ubgen --repeat spaces copies)
            recs.append(struct.pack("<IIII", ts // 1000000, ts % 1000000, len(pkt), len(pkt)))
            recs.append(pkt)
            if len(recs) >= 20000:
                f.write(b"".join(recs))
                recs.clear()
        f.write(b"".join(recs))
    return 0


if __name__ == "__main__":
    sys.exit(main())

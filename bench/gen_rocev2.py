#!/usr/bin/env python3
"""Write a classic pcap of N identical RoCEv2 packets: the InfiniBand counterpart of bench/write64.ub.

Each packet: Ethernet II / IPv4 (DF, checksum) / UDP dst 4791 (checksum 0, as RoCEv2 senders do) /
BTH (RC RDMA WRITE Only, opcode 0x0A) / RETH (VA, R_Key, DMA length 64) / 64-byte payload
(0x00, 0x01, ... like "payload inc=64") / ICRC (IBTA Annex A17: CRC-32 over 8 bytes of 1s, the IPv4
header with TOS/TTL/checksum set to 1s, the UDP header with the checksum set to 1s, the BTH with its
reserved byte 4 set to 1s, RETH and payload; stored little-endian as Linux rxe does).
138 bytes per frame (the UB packet of write64.ub is a 100-byte flit record).

usage: gen_rocev2.py [-n N] -w FILE
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


def rocev2_packet() -> bytes:
    payload = bytes(range(64))
    # BTH: opcode, SE/M/PadCnt/TVer, P_Key, resv8a, DestQP(24), A/resv7, PSN(24)
    bth = struct.pack(">BBHB3sB3s", 0x0A, 0x00, 0xFFFF, 0x00, (0x000011).to_bytes(3, "big"), 0x80,
                      (1).to_bytes(3, "big"))
    reth = struct.pack(">QII", 0x0000100000000040, 0x00012345, len(payload))
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


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("-n", type=int, default=1000000, help="packets (default 1000000)")
    ap.add_argument("-w", required=True, help="output pcap file")
    a = ap.parse_args()
    pkt = rocev2_packet()
    with open(a.w, "wb") as f:
        f.write(struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 65535, 1))  # LINKTYPE_ETHERNET, usec
        recs = []
        for i in range(a.n):
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

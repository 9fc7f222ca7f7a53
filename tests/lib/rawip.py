#!/usr/bin/env python3
"""tests/lib/rawip.py: hand-made IPv4 datagrams on a raw AF_PACKET socket, and
a sniffer for them, for fwd's RFC 1812 tests
(tests/integration/test_fwd_rfc1812.sh), run inside namespaces.

  rawip.py send IFACE DSTMAC SRC DST PORT TEXT [--opts HEX] [--ttl N]
      one UDP datagram SRC -> DST:PORT carrying TEXT, in an Ethernet frame to
      DSTMAC from IFACE's MAC; --opts: IP options (hex, padded with EOL to a
      multiple of 4 octets)
  rawip.py sniff IFACE PORT SECONDS READYFILE
      prints one line per UDP datagram to PORT seen on IFACE within SECONDS:
      "src=A dst=B ttl=N ihl=N sum=ok|bad opts=HEX text=TEXT"; READYFILE is
      created once the socket is open
  rawip.py icmp IFACE SECONDS READYFILE
      the same for ICMP errors: "from=A type=N code=N ptr=N mtu=N qsrc=B
      qdst=C"
      (ptr: octet 4 of the header, a Parameter Problem's pointer; mtu: a
      frag-needed's next-hop MTU; qsrc/qdst: the quoted datagram's)
"""
import socket
import struct
import sys
import time

ETH_P_IP = 0x0800


def csum(b):
    if len(b) % 2:
        b += b"\0"
    s = sum(struct.unpack("!%dH" % (len(b) // 2), b))
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return ~s & 0xFFFF


def mac_bytes(m):
    return bytes(int(x, 16) for x in m.split(":"))


def send(iface, dstmac, src, dst, port, text, opts=b"", ttl=64):
    opts += b"\0" * (-len(opts) % 4)
    payload = text.encode()
    udp = struct.pack("!HHHH", 40000, port, 8 + len(payload), 0) + payload
    hlen = 20 + len(opts)
    hdr = struct.pack("!BBHHHBBH4s4s", 0x40 | hlen // 4, 0, hlen + len(udp),
                      0x4242, 0, ttl, 17, 0, socket.inet_aton(src),
                      socket.inet_aton(dst)) + opts
    hdr = hdr[:10] + struct.pack("!H", csum(hdr)) + hdr[12:]
    s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
    s.bind((iface, 0))
    srcmac = s.getsockname()[4]
    s.send(mac_bytes(dstmac) + srcmac + struct.pack("!H", ETH_P_IP) + hdr +
           udp)
    s.close()


def frames(iface, secs, ready):
    s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW,
                      socket.htons(ETH_P_IP))
    s.bind((iface, 0))
    open(ready, "w").close()
    end = time.monotonic() + secs
    while True:
        left = end - time.monotonic()
        if left <= 0:
            return
        s.settimeout(left)
        try:
            f, addr = s.recvfrom(65536)
        except socket.timeout:
            return
        if addr[2] == socket.PACKET_OUTGOING or len(f) < 34:
            continue
        ip = f[14:]
        hlen = (ip[0] & 0xF) * 4
        if ip[0] >> 4 != 4 or hlen < 20 or len(ip) < hlen:
            continue
        yield ip, hlen


def sniff(iface, port, secs, ready):
    for ip, hlen in frames(iface, secs, ready):
        if ip[9] != 17 or len(ip) < hlen + 8:
            continue
        if struct.unpack("!H", ip[hlen + 2:hlen + 4])[0] != port:
            continue
        print("src=%s dst=%s ttl=%d ihl=%d sum=%s opts=%s text=%s" % (
            socket.inet_ntoa(ip[12:16]), socket.inet_ntoa(ip[16:20]), ip[8],
            hlen // 4, "ok" if csum(bytes(ip[:hlen])) == 0 else "bad",
            ip[20:hlen].hex() or "-",
            ip[hlen + 8:].decode(errors="replace")), flush=True)


def icmp(iface, secs, ready):
    for ip, hlen in frames(iface, secs, ready):
        if ip[9] != 1 or len(ip) < hlen + 8 + 20:
            continue
        m = ip[hlen:]
        if m[0] not in (3, 11, 12):
            continue
        q = m[8:]
        print("from=%s type=%d code=%d ptr=%d mtu=%d qsrc=%s qdst=%s" % (
            socket.inet_ntoa(ip[12:16]), m[0], m[1], m[4],
            struct.unpack("!H", m[6:8])[0],
            socket.inet_ntoa(q[12:16]), socket.inet_ntoa(q[16:20])),
            flush=True)


def main(a):
    if len(a) >= 7 and a[0] == "send":
        opts, ttl, rest = b"", 64, a[7:]
        while rest:
            if rest[0] == "--opts":
                opts = bytes.fromhex(rest[1])
            elif rest[0] == "--ttl":
                ttl = int(rest[1])
            else:
                raise SystemExit("unknown option " + rest[0])
            rest = rest[2:]
        send(a[1], a[2], a[3], a[4], int(a[5]), a[6], opts, ttl)
    elif len(a) == 5 and a[0] == "sniff":
        sniff(a[1], int(a[2]), float(a[3]), a[4])
    elif len(a) == 4 and a[0] == "icmp":
        icmp(a[1], float(a[2]), a[3])
    else:
        raise SystemExit(__doc__)


if __name__ == "__main__":
    main(sys.argv[1:])

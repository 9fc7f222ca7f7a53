#!/usr/bin/env python3
"""tests/lib/raw6.py: hand-made IPv6 frames on a raw AF_PACKET socket, and a
TCP sender and receiver that check what arrived, for fwd's IPv6 test
(tests/integration/test_fwd_ipv6.sh), run inside namespaces.

  raw6.py send IFACE DSTMAC SRC DST KIND
      one frame from IFACE's MAC to DSTMAC, a UDP datagram SRC -> DST with
      hop limit 64, spoilt as KIND says:
        good         nothing wrong
        version      version 5 in the header
        plen         a payload length 40 bytes past the frame
        short        the frame cut to 50 bytes (under Ethernet + 40)
        hbh_late     a Destination Options header, then Hop-by-Hop
        ext_past     a Routing header that runs past the payload
  raw6.py tcp-recv PORT READYFILE
      accepts one connection on [::]:PORT, prints "BYTES SHA256" of what it
      read until the peer closed; READYFILE is created once listening
  raw6.py tcp-send ADDR PORT BYTES
      connects, sends BYTES pseudo-random bytes, closes, prints
      "BYTES SHA256" of what it sent
"""
import hashlib
import random
import socket
import struct
import sys

ETH_P_IPV6 = 0x86DD


def mac_bytes(m):
    return bytes(int(x, 16) for x in m.split(":"))


def frame(src, dst, kind):
    payload = b"tern-ipv6-test"
    udp = struct.pack("!HHHH", 40000, 9, 8 + len(payload), 0) + payload
    nh, body = 17, udp
    if kind == "hbh_late":
        # Destination Options (8 bytes, next: Hop-by-Hop), Hop-by-Hop
        # (8 bytes, next: UDP): RFC 8200 4.1 puts Hop-by-Hop first only
        body = bytes([0, 0, 1, 4, 0, 0, 0, 0]) + \
            bytes([17, 0, 1, 4, 0, 0, 0, 0]) + udp
        nh = 60
    elif kind == "ext_past":
        # a Routing header of 16 bytes (length 1) with 8 bytes of payload
        body = bytes([17, 1, 0, 0, 0, 0, 0, 0])
        nh = 43
    plen = len(body) + (40 if kind == "plen" else 0)
    vtc = (5 if kind == "version" else 6) << 28
    hdr = struct.pack("!IHBB16s16s", vtc, plen, nh, 64,
                      socket.inet_pton(socket.AF_INET6, src),
                      socket.inet_pton(socket.AF_INET6, dst))
    f = hdr + body
    if kind == "short":
        f = f[:36]  # 14 + 36 = 50 bytes
    return f


def send(iface, dstmac, src, dst, kind):
    s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
    s.bind((iface, 0))
    srcmac = s.getsockname()[4]
    s.send(mac_bytes(dstmac) + srcmac + struct.pack("!H", ETH_P_IPV6) +
           frame(src, dst, kind))
    s.close()


def tcp_recv(port, ready):
    s = socket.socket(socket.AF_INET6, socket.SOCK_STREAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind(("::", port))
    s.listen(1)
    open(ready, "w").close()
    c, _ = s.accept()
    h, n = hashlib.sha256(), 0
    while True:
        b = c.recv(65536)
        if not b:
            break
        h.update(b)
        n += len(b)
    print(n, h.hexdigest())


def tcp_send(addr, port, nbytes):
    data = random.Random(22).randbytes(nbytes)
    c = socket.create_connection((addr, port), timeout=20)
    c.sendall(data)
    c.shutdown(socket.SHUT_WR)
    c.recv(1)
    c.close()
    print(len(data), hashlib.sha256(data).hexdigest())


def main(a):
    if len(a) == 6 and a[0] == "send":
        send(a[1], a[2], a[3], a[4], a[5])
    elif len(a) == 3 and a[0] == "tcp-recv":
        tcp_recv(int(a[1]), a[2])
    elif len(a) == 4 and a[0] == "tcp-send":
        tcp_send(a[1], int(a[2]), int(a[3]))
    else:
        sys.stderr.write(__doc__)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

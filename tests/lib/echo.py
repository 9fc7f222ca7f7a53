#!/usr/bin/env python3
"""tests/lib/echo.py: TCP and UDP echo server and clients for the host-path
tests (tests/integration/test_hostpath.sh), run inside namespaces.

  echo.py serve tcp|udp ADDR PORT READYFILE   echo until killed; READYFILE
                                              is created once listening
  echo.py send tcp|udp ADDR PORT TEXT [S]     send TEXT, print the answer;
                                              0 when it is TEXT, else 1
                                              (S: timeout, default 5 s)
  echo.py hold ADDR PORT GOFILE [S]           one TCP connection: an echo,
                                              then (once GOFILE exists) a
                                              second echo on the same
                                              connection; 0 when both came
                                              back (S: for all, default 60)
  echo.py bulk ADDR PORT BYTES [S]            BYTES of a pseudo-random
                                              stream to a TCP echo server,
                                              read back while sending; 0
                                              when every byte came back
                                              in order (S: default 30)
"""
import hashlib
import os
import random
import socket
import sys
import threading
import time


def serve(proto, addr, port, ready):
    if proto == "tcp":
        s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        s.bind((addr, port))
        s.listen(16)
        open(ready, "w").close()

        def conn(c):
            with c:
                while True:
                    b = c.recv(65536)
                    if not b:
                        return
                    c.sendall(b)

        while True:
            c, _ = s.accept()
            threading.Thread(target=conn, args=(c,), daemon=True).start()
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.bind((addr, port))
    open(ready, "w").close()
    while True:
        b, peer = s.recvfrom(65536)
        s.sendto(b, peer)


def send(proto, addr, port, text, tmo):
    data = text.encode()
    if proto == "tcp":
        s = socket.create_connection((addr, port), timeout=tmo)
        s.sendall(data)
        got = b""
        while len(got) < len(data):
            b = s.recv(65536)
            if not b:
                break
            got += b
    else:
        s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        s.settimeout(tmo)
        s.sendto(data, (addr, port))
        got, _ = s.recvfrom(65536)
    print(got.decode(errors="replace"))
    return 0 if got == data else 1


def hold(addr, port, go, tmo):
    end = time.monotonic() + tmo
    s = socket.create_connection((addr, port), timeout=tmo)
    for i, text in enumerate((b"first", b"second")):
        if i == 1:
            while not os.path.exists(go):
                if time.monotonic() > end:
                    print("no go file")
                    return 1
                time.sleep(0.05)
        s.settimeout(max(end - time.monotonic(), 0.1))
        s.sendall(text)
        got = b""
        while len(got) < len(text):
            b = s.recv(64)
            if not b:
                print("closed after %r" % got)
                return 1
            got += b
        if got != text:
            print("echo %r, not %r" % (got, text))
            return 1
    print("both echoed on one connection")
    return 0


def bulk(addr, port, nbytes, tmo):
    data = random.Random(20).randbytes(nbytes)
    s = socket.create_connection((addr, port), timeout=tmo)
    err = []

    def tx():
        try:
            s.sendall(data)
            s.shutdown(socket.SHUT_WR)
        except OSError as e:
            err.append(e)

    t = threading.Thread(target=tx, daemon=True)
    t.start()
    h = hashlib.sha256()
    got = 0
    while got < nbytes:
        b = s.recv(1 << 20)
        if not b:
            break
        h.update(b)
        got += len(b)
    t.join(tmo)
    if err or got != nbytes or h.digest() != hashlib.sha256(data).digest():
        print("bulk: %d of %d bytes back%s%s" % (
            got, nbytes, ", not the bytes sent" if got == nbytes else "",
            ", send: %s" % err[0] if err else ""))
        return 1
    print("bulk: %d bytes echoed intact" % nbytes)
    return 0


def main(a):
    try:
        if len(a) == 5 and a[0] == "serve":
            serve(a[1], a[2], int(a[3]), a[4])
        elif len(a) in (5, 6) and a[0] == "send":
            return send(a[1], a[2], int(a[3]), a[4],
                        float(a[5]) if len(a) == 6 else 5.0)
        elif len(a) in (4, 5) and a[0] == "hold":
            return hold(a[1], int(a[2]), a[3],
                        float(a[4]) if len(a) == 5 else 60.0)
        elif len(a) in (4, 5) and a[0] == "bulk":
            return bulk(a[1], int(a[2]), int(a[3]),
                        float(a[4]) if len(a) == 5 else 30.0)
    except OSError as e:
        print("echo.py: %s" % e)
        return 1
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

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
"""
import os
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
    except OSError as e:
        print("echo.py: %s" % e)
        return 1
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

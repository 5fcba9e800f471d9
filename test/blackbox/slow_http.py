#!/usr/bin/python3
"""test/blackbox/slow_http.py - slow HTTP clients and a latency probe, for
t_sec_slow_clients.sh.

  slow_http.py upload PORT COUNT MODE SECONDS
      COUNT connections to 127.0.0.1:PORT, each a POST /signup announcing a
      2000-byte JSON body. MODE "trickle" sends the body one byte every 0.5 s;
      MODE "stall" sends 100 bytes of it and then nothing. After SECONDS each
      connection is closed. Prints one JSON line per connection:
      {"mode", "status" (HTTP status received, or null), "after_s" (seconds
      from the start to the answer or to the server closing, or null)}.
  slow_http.py probe PORT TOKEN THREADS SECONDS
      THREADS threads each send guarded GET /records (Authorization: Bearer
      TOKEN), one after another, each on a new connection as a separate client
      would, for SECONDS. Prints one JSON line: {"requests", "ok" (200s),
      "errors", "statuses", "p50_ms", "p99_ms", "max_ms"}; a request that does
      not complete within 5 s counts as an error with 5000 ms.
"""
import json
import select
import socket
import sys
import threading
import time


def upload(port, count, mode, seconds):
    prefix = b'{"username":"slow","password":"'
    body = prefix + b"p" * (2000 - len(prefix) - 2) + b'"}'
    head = (b"POST /signup HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
            b"Content-Length: 2000\r\nConnection: close\r\n\r\n")
    start = time.monotonic()
    conns = []
    for _ in range(count):
        sock = socket.create_connection(("127.0.0.1", port))
        sock.sendall(head + (body[:100] if mode == "stall" else b""))
        sock.setblocking(False)
        conns.append({"sock": sock, "sent": 0, "data": b"", "done": False, "after_s": None})
    next_byte = time.monotonic()
    deadline = start + seconds
    while time.monotonic() < deadline:
        live = [c for c in conns if not c["done"]]
        if not live:
            break
        now = time.monotonic()
        if mode == "trickle" and now >= next_byte:
            for c in live:
                if c["sent"] < len(body):
                    try:
                        c["sock"].send(body[c["sent"]:c["sent"] + 1])
                        c["sent"] += 1
                    except (BlockingIOError, BrokenPipeError, ConnectionResetError):
                        pass
            next_byte = now + 0.5
        wait = max(0.0, min(next_byte, deadline) - time.monotonic()) if mode == "trickle" else deadline - now
        ready = select.select([c["sock"] for c in live], [], [], max(0.0, min(wait, 0.5)))[0]
        for c in live:
            if c["sock"] not in ready:
                continue
            try:
                chunk = c["sock"].recv(65536)
            except (BlockingIOError, ConnectionResetError):
                chunk = b""
            if c["after_s"] is None:
                c["after_s"] = round(time.monotonic() - start, 3)
            if chunk:
                c["data"] += chunk
            else:
                c["done"] = True
    for c in conns:
        status = None
        if c["data"].startswith(b"HTTP/"):
            status = int(c["data"].split(b" ", 2)[1])
        print(json.dumps({"mode": mode, "status": status, "after_s": c["after_s"]}))
        c["sock"].close()


def probe(port, token, threads, seconds):
    request = ("GET /records HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer %s\r\n"
               "Connection: close\r\n\r\n" % token).encode()
    lock = threading.Lock()
    latencies, statuses = [], {}
    stop_at = time.monotonic() + seconds

    def one():
        t0 = time.monotonic()
        status = "error"
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=5) as sock:
                sock.settimeout(max(0.1, 5 - (time.monotonic() - t0)))
                sock.sendall(request)
                data = b""
                while True:
                    chunk = sock.recv(65536)
                    if not chunk:
                        break
                    data += chunk
                if data.startswith(b"HTTP/"):
                    status = data.split(b" ", 2)[1].decode()
        except OSError:
            pass
        elapsed = (time.monotonic() - t0) * 1000
        return status, (5000.0 if status == "error" else elapsed)

    def worker():
        while time.monotonic() < stop_at:
            status, ms = one()
            with lock:
                latencies.append(ms)
                statuses[status] = statuses.get(status, 0) + 1

    pool = [threading.Thread(target=worker) for _ in range(threads)]
    for t in pool:
        t.start()
    for t in pool:
        t.join()
    latencies.sort()
    n = len(latencies)
    pick = lambda q: round(latencies[min(n - 1, int(q * n))], 1) if n else None
    print(json.dumps({"requests": n, "ok": statuses.get("200", 0), "errors": n - statuses.get("200", 0),
                      "statuses": statuses, "p50_ms": pick(0.50), "p99_ms": pick(0.99),
                      "max_ms": round(latencies[-1], 1) if n else None}))


def main(argv):
    if len(argv) == 6 and argv[1] == "upload":
        upload(int(argv[2]), int(argv[3]), argv[4], float(argv[5]))
    elif len(argv) == 6 and argv[1] == "probe":
        probe(int(argv[2]), argv[3], int(argv[4]), float(argv[5]))
    else:
        sys.stderr.write(__doc__)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

#!/usr/bin/python3
"""test/blackbox/fcgi_client.py - a small FastCGI client that talks to authd's
socket directly, for what no web server will do on request: many requests on
one kept connection, protocol corner cases, and stalled requests.

  fcgi_client.py keepalive SOCKET TOKEN N
      N guarded GET /records (Bearer TOKEN) one after another on ONE
      connection with FCGI_KEEP_CONN; prints one JSON line
      {"answers": N, "statuses": {...}, "bodies_equal": bool, "still_open": bool}.
  fcgi_client.py protocol SOCKET TOKEN
      GET_VALUES, a second BEGIN_REQUEST while one is open (multiplexing),
      the Filter role, an unknown management record, an aborted request and a
      connection without FCGI_KEEP_CONN; prints one JSON line with what came.
  fcgi_client.py stall SOCKET COUNT MODE SECONDS
      COUNT connections that start a request (every other one with
      FCGI_KEEP_CONN, as nginx and Apache with enablereuse send it; the
      others without, as lighttpd) and stop sending: MODE "head" sends
      BEGIN_REQUEST and half of the parameters, MODE "body" all the
      parameters (CONTENT_LENGTH 1000) and 10 bytes of the body. Waits up to
      SECONDS for authd's answer (END_REQUEST) or close and prints one JSON
      line per connection: {"mode", "status" (HTTP status of the answer or
      null), "ended" (END_REQUEST came), "closed" (authd closed the
      connection), "after_s" (seconds from the last byte sent to the first
      answer byte or the close; null if neither)}.
Exit status 0 unless the socket could not be used at all.
"""
import json
import select
import socket
import struct
import sys
import time

BEGIN, ABORT, END, PARAMS, STDIN, STDOUT, STDERR, DATA, GET_VALUES, GET_VALUES_RESULT, UNKNOWN_TYPE = range(1, 12)
RESPONDER, AUTHORIZER, FILTER = 1, 2, 3
KEEP_CONN = 1


def record(rtype, rid, content=b""):
    padding = (8 - len(content) % 8) % 8
    return struct.pack(">BBHHBB", 1, rtype, rid, len(content), padding, 0) + content + b"\0" * padding


def length(n):
    return bytes([n]) if n < 128 else struct.pack(">I", n | 0x80000000)


def pairs(items):
    out = b""
    for name, value in items:
        name, value = name.encode(), value.encode()
        out += length(len(name)) + length(len(value)) + name + value
    return out


def decode_pairs(data):
    out, i = {}, 0
    def read_len():
        nonlocal i
        if data[i] < 128:
            i += 1
            return data[i - 1]
        n = struct.unpack(">I", data[i:i + 4])[0] & 0x7FFFFFFF
        i += 4
        return n
    while i < len(data):
        nl, vl = read_len(), read_len()
        out[data[i:i + nl].decode()] = data[i + nl:i + nl + vl].decode()
        i += nl + vl
    return out


def stream(rtype, rid, content):
    out = b""
    for at in range(0, len(content), 65528):
        out += record(rtype, rid, content[at:at + 65528])
    return out + record(rtype, rid)


def begin(rid, role=RESPONDER, keep=True):
    return record(BEGIN, rid, struct.pack(">HB5x", role, KEEP_CONN if keep else 0))


def get_records_params(token, path="/records"):
    return [("REQUEST_METHOD", "GET"), ("SCRIPT_NAME", path), ("PATH_INFO", ""), ("QUERY_STRING", ""),
            ("REQUEST_URI", path), ("SERVER_PROTOCOL", "HTTP/1.1"), ("REMOTE_ADDR", "127.0.0.1"),
            ("HTTP_AUTHORIZATION", "Bearer " + token)]


def request_bytes(rid, params, body=b"", keep=True, role=RESPONDER):
    return begin(rid, role, keep) + stream(PARAMS, rid, pairs(params)) + stream(STDIN, rid, body)


class Reader:
    """Reads whole records from a socket, with a deadline."""

    def __init__(self, sock):
        self.sock, self.buf, self.eof = sock, b"", False

    def next(self, timeout=10.0):
        deadline = time.monotonic() + timeout
        while True:
            if len(self.buf) >= 8:
                _, rtype, rid, clen, plen, _ = struct.unpack(">BBHHBB", self.buf[:8])
                if len(self.buf) >= 8 + clen + plen:
                    content = self.buf[8:8 + clen]
                    self.buf = self.buf[8 + clen + plen:]
                    return rtype, rid, content
            if self.eof:
                return None
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([self.sock], [], [], left)[0]:
                raise TimeoutError("no record within %.1f s" % timeout)
            try:
                chunk = self.sock.recv(65536)
            except ConnectionResetError:
                chunk = b""
            if not chunk:
                self.eof = True
            self.buf += chunk

    def response(self, rid, timeout=10.0):
        """STDOUT bytes and END_REQUEST protocolStatus of request rid."""
        out = b""
        while True:
            rec = self.next(timeout)
            if rec is None:
                return out, None
            rtype, got, content = rec
            if got != rid:
                continue
            if rtype == STDOUT:
                out += content
            elif rtype == END:
                return out, content[4]


def http_status(stdout):
    head = stdout.split(b"\r\n\r\n", 1)[0].decode(errors="replace")
    for line in head.split("\r\n"):
        if line.lower().startswith("status:"):
            return int(line.split()[1])
    return 200 if stdout else None


def body_of(stdout):
    return stdout.split(b"\r\n\r\n", 1)[1] if b"\r\n\r\n" in stdout else b""


def connect(path):
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.connect(path)
    return sock


def is_closed(sock, wait=0.5):
    if not select.select([sock], [], [], wait)[0]:
        return False
    try:
        return sock.recv(1, socket.MSG_PEEK) == b""
    except ConnectionResetError:
        return True


def keepalive(path, token, n):
    sock = connect(path)
    reader = Reader(sock)
    statuses, bodies = {}, set()
    for i in range(n):
        sock.sendall(request_bytes(1, get_records_params(token)))
        out, proto = reader.response(1)
        status = http_status(out) if proto == 0 else "no END_REQUEST"
        statuses[str(status)] = statuses.get(str(status), 0) + 1
        bodies.add(body_of(out))
    result = {"answers": sum(statuses.values()), "statuses": statuses, "bodies_equal": len(bodies) == 1,
              "still_open": not is_closed(sock, 0.3)}
    print(json.dumps(result))


def protocol(path, token):
    result = {}
    # FCGI_GET_VALUES on a connection of its own.
    sock = connect(path)
    reader = Reader(sock)
    sock.sendall(record(GET_VALUES, 0, pairs([("FCGI_MAX_CONNS", ""), ("FCGI_MAX_REQS", ""), ("FCGI_MPXS_CONNS", "")])))
    rtype, rid, content = reader.next()
    result["get_values"] = {"type": rtype, "values": decode_pairs(content)}
    # An unknown management record type.
    sock.sendall(record(99, 0, b"x"))
    rtype, rid, content = reader.next()
    result["unknown_type"] = {"type": rtype, "names": content[0]}
    # Multiplexing: request 1 opened, request 2 begun before 1 is complete.
    req1 = request_bytes(1, get_records_params(token))
    cut = len(begin(1))
    sock.sendall(req1[:cut] + begin(2) + req1[cut:])
    rtype, rid, content = reader.next()
    result["mpx_refusal"] = {"type": rtype, "id": rid, "protocol_status": content[4] if rtype == END else None}
    out, proto = reader.response(1)
    result["mpx_first_answered"] = http_status(out)
    # The Filter role.
    sock.sendall(begin(3, FILTER) + stream(PARAMS, 3, pairs([("A", "b")])) + stream(STDIN, 3, b""))
    rtype, rid, content = reader.next()
    result["filter"] = {"type": rtype, "id": rid, "protocol_status": content[4] if rtype == END else None}
    # An aborted request (its body never sent), then a normal one on the same connection.
    sock.sendall(begin(4) + stream(PARAMS, 4, pairs(get_records_params(token) + [("CONTENT_LENGTH", "50")]))
                 + record(ABORT, 4))
    out, proto = reader.response(4)
    result["abort"] = {"protocol_status": proto}
    sock.sendall(request_bytes(5, get_records_params(token)))
    out, proto = reader.response(5)
    result["after_abort"] = http_status(out)
    result["kept_open"] = not is_closed(sock, 0.3)
    sock.close()
    # Without FCGI_KEEP_CONN authd closes once it has answered.
    sock = connect(path)
    reader = Reader(sock)
    sock.sendall(request_bytes(1, get_records_params(token), keep=False))
    out, proto = reader.response(1)
    result["no_keep"] = {"status": http_status(out), "closed_after": is_closed(sock, 2.0)}
    sock.close()
    print(json.dumps(result))


def stall(path, count, mode, seconds):
    conns = []
    params = pairs([("REQUEST_METHOD", "POST"), ("SCRIPT_NAME", "/signup"), ("PATH_INFO", ""),
                    ("CONTENT_TYPE", "application/json"), ("CONTENT_LENGTH", "1000"),
                    ("REMOTE_ADDR", "127.0.0.1"), ("REQUEST_URI", "/signup")])
    for i in range(count):
        sock = connect(path)
        keep = i % 2 == 0
        if mode == "head":
            data = begin(1, keep=keep) + record(PARAMS, 1, params[:len(params) // 2])
        else:
            data = begin(1, keep=keep) + stream(PARAMS, 1, params) + record(STDIN, 1, b'{"username"')
        sock.sendall(data)
        conns.append({"sock": sock, "reader": Reader(sock), "sent": time.monotonic(), "status": None,
                      "ended": False, "closed": False, "after_s": None, "done": False})
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline and not all(c["done"] for c in conns):
        live = [c for c in conns if not c["done"]]
        ready = select.select([c["sock"] for c in live], [], [], max(0.0, deadline - time.monotonic()))[0]
        for c in live:
            if c["sock"] not in ready:
                continue
            try:
                chunk = c["sock"].recv(65536)
            except ConnectionResetError:
                chunk = b""
            if chunk:
                c["reader"].buf += chunk
                if c["after_s"] is None:
                    c["after_s"] = round(time.monotonic() - c["sent"], 3)
                if struct.pack(">BBH", 1, END, 1) in c["reader"].buf:
                    c["done"] = True  # answered: a web server would go on with the connection
                continue
            c["closed"], c["done"] = True, True
            if c["after_s"] is None:
                c["after_s"] = round(time.monotonic() - c["sent"], 3)
    for c in conns:
        out = b""
        reader = c["reader"]
        reader.eof = True
        while True:
            rec = reader.next(0)
            if rec is None:
                break
            if rec[0] == STDOUT:
                out += rec[2]
            elif rec[0] == END:
                c["ended"] = True
        c["status"] = http_status(out)
        print(json.dumps({"mode": mode, "status": c["status"], "ended": c["ended"], "closed": c["closed"],
                          "after_s": c["after_s"]}))
        c["sock"].close()


def main(argv):
    command = argv[1] if len(argv) > 1 else ""
    if command == "keepalive" and len(argv) == 5:
        keepalive(argv[2], argv[3], int(argv[4]))
    elif command == "protocol" and len(argv) == 4:
        protocol(argv[2], argv[3])
    elif command == "stall" and len(argv) == 6:
        stall(argv[2], int(argv[3]), argv[4], float(argv[5]))
    else:
        sys.stderr.write(__doc__)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

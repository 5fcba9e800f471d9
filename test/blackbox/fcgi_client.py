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
  fcgi_client.py bounds SOCKET TOKEN MAX_CONNS IDLE_S
      What one connection may hold (issue 23, class 4); prints one JSON line:
      "flood_sent": bytes of FCGI_UNKNOWN_TYPE-provoking records authd took
      within 3 s from a connection that reads none of the answers;
      "limit": FCGI_MAX_CONNS; with MAX_CONNS connections open, whether one
      more is served ("extra_served_at_limit") and is once one closed
      ("extra_served_after_close"); "idle_closed_after_s": when a kept
      connection that only sends FCGI_GET_VALUES (every 0.3 s) after one
      request was closed (null: not within 3 x IDLE_S); "many_params_status"
      / "many_params_closed": a request of 5000 empty parameters;
      "big_get_values": the reply to 3855 names (record type, length) and
      whether the connection still frames records after it.
  fcgi_client.py early SOCKET TOKEN BODY_BYTES
      A kept connection, a POST /signup declaring BODY_BYTES (over
      max_body_bytes): when the 413 came, whether FCGI_END_REQUEST came before
      the body was all sent, whether it came after, and the status of a
      guarded read on the same connection afterwards; one JSON line.
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


def try_next(reader, timeout):
    try:
        return reader.next(timeout)
    except TimeoutError:
        return "timeout"


def get_values_ok(sock, reader, timeout=1.0):
    sock.sendall(record(GET_VALUES, 0, pairs([("FCGI_MAX_CONNS", "")])))
    rec = try_next(reader, timeout)
    return rec not in (None, "timeout") and rec[0] == GET_VALUES_RESULT


def bounds(path, token, max_conns, idle_s):
    result = {}
    # 1. A flood of unknown management records (each answered with a record
    # twice its size) on a connection that reads nothing.
    sock = connect(path)
    sock.setblocking(False)
    chunk = record(99, 0) * 8192  # 64 KiB
    sent, deadline = 0, time.monotonic() + 3.0
    while time.monotonic() < deadline and sent < 64 << 20:
        if not select.select([], [sock], [], max(0.0, deadline - time.monotonic()))[1]:
            break
        try:
            sent += sock.send(chunk)
        except (BlockingIOError, InterruptedError):
            continue
        except (BrokenPipeError, ConnectionResetError):
            break
    result["flood_sent"] = sent
    sock.close()
    # 2. The connection limit.
    conns = []
    for i in range(max_conns):
        c = connect(path)
        r = Reader(c)
        if not get_values_ok(c, r, 3.0):
            result["setup_failed"] = "connection %d not served" % i
        conns.append((c, r))
    c, r = conns[0]
    c.sendall(record(GET_VALUES, 0, pairs([("FCGI_MAX_CONNS", "")])))
    result["limit"] = decode_pairs(r.next()[2]).get("FCGI_MAX_CONNS")
    extra = connect(path)
    extra_reader = Reader(extra)
    result["extra_served_at_limit"] = get_values_ok(extra, extra_reader, 1.0)
    conns[1][0].close()
    if result["extra_served_at_limit"]:
        result["extra_served_after_close"] = True
    else:
        rec = try_next(extra_reader, 3.0)
        result["extra_served_after_close"] = rec not in (None, "timeout") and rec[0] == GET_VALUES_RESULT
    for c, _ in conns:
        c.close()
    extra.close()
    time.sleep(0.3)
    # 3. Management records do not keep a connection alive.
    sock = connect(path)
    reader = Reader(sock)
    sock.sendall(request_bytes(1, get_records_params(token)))
    reader.response(1)
    start = time.monotonic()
    result["idle_closed_after_s"] = None
    while time.monotonic() - start < 3 * idle_s:
        try:
            sock.sendall(record(GET_VALUES, 0, pairs([("FCGI_MPXS_CONNS", "")])))
        except (BrokenPipeError, ConnectionResetError):
            result["idle_closed_after_s"] = round(time.monotonic() - start, 2)
            break
        rec = try_next(reader, 0.3)
        if rec is None:
            result["idle_closed_after_s"] = round(time.monotonic() - start, 2)
            break
        time.sleep(0.3)
    sock.close()
    # 4. Thousands of empty parameters.
    sock = connect(path)
    reader = Reader(sock)
    sock.sendall(request_bytes(1, get_records_params(token) + [("", "")] * 5000))
    out, proto = reader.response(1)
    result["many_params_status"] = http_status(out)
    # Not kept: the connection only lingers (input dropped) until closed.
    sock.sendall(request_bytes(1, get_records_params(token)))
    rec = try_next(reader, 1.0)
    result["many_params_next_served"] = rec not in (None, "timeout")
    sock.close()
    # 5. FCGI_GET_VALUES naming one variable 3855 times (a full record).
    sock = connect(path)
    reader = Reader(sock)
    names = pairs([("FCGI_MPXS_CONNS", "")] * 3855)
    sock.sendall(record(GET_VALUES, 0, names))
    rec = try_next(reader, 3.0)
    result["big_get_values"] = None if rec in (None, "timeout") else {"type": rec[0], "length": len(rec[2])}
    result["framing_after"] = get_values_ok(sock, reader, 2.0)
    sock.close()
    print(json.dumps(result))


def early(path, token, body_bytes):
    result = {}
    sock = connect(path)
    reader = Reader(sock)
    params = [("REQUEST_METHOD", "POST"), ("SCRIPT_NAME", "/signup"), ("PATH_INFO", ""),
              ("CONTENT_TYPE", "application/json"), ("CONTENT_LENGTH", str(body_bytes)),
              ("REMOTE_ADDR", "127.0.0.1"), ("REQUEST_URI", "/signup"), ("SERVER_PROTOCOL", "HTTP/1.1")]
    sock.sendall(begin(1) + stream(PARAMS, 1, pairs(params)))
    body = b"x" * body_bytes
    half = body_bytes // 2
    # Half of the body, then look at what came.
    for at in range(0, half, 65528):
        sock.sendall(record(STDIN, 1, body[at:min(at + 65528, half)]))
    time.sleep(0.5)
    out, ended = b"", False
    while True:
        rec = try_next(reader, 0.2)
        if rec in (None, "timeout"):
            break
        if rec[0] == STDOUT:
            out += rec[2]
        elif rec[0] == END:
            ended = True
    result["status"] = http_status(out)
    result["ended_before_body_sent"] = ended
    for at in range(half, body_bytes, 65528):
        sock.sendall(record(STDIN, 1, body[at:min(at + 65528, body_bytes)]))
    sock.sendall(record(STDIN, 1))
    if not ended:
        rest, proto = reader.response(1, 5.0)
        out += rest
        result["ended_after_body_sent"] = proto == 0
    sock.sendall(request_bytes(1, get_records_params(token)))
    out, proto = reader.response(1, 5.0)
    result["next_status"] = http_status(out) if proto == 0 else None
    sock.close()
    print(json.dumps(result))


def main(argv):
    command = argv[1] if len(argv) > 1 else ""
    if command == "keepalive" and len(argv) == 5:
        keepalive(argv[2], argv[3], int(argv[4]))
    elif command == "protocol" and len(argv) == 4:
        protocol(argv[2], argv[3])
    elif command == "bounds" and len(argv) == 6:
        bounds(argv[2], argv[3], int(argv[4]), float(argv[5]))
    elif command == "early" and len(argv) == 5:
        early(argv[2], argv[3], int(argv[4]))
    elif command == "stall" and len(argv) == 6:
        stall(argv[2], int(argv[3]), argv[4], float(argv[5]))
    else:
        sys.stderr.write(__doc__)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

#!/usr/bin/env bash
# shellcheck source-path=SCRIPTDIR
# Attack: mod_authnz_fcgi reaches authd over TCP only, so the Apache
# authorizer leaves a loopback FastCGI port open to every local user. One of
# them connects and sends FastCGI of their own with a forged REMOTE_ADDR:
# GET /metrics as an address of metrics_allow, sign-in attempts from a new
# address each (past the per-address throttle), an authorizer request of
# their own making. authd refuses to listen on TCP without front_secret, and
# on TCP serves only requests whose FastCGI parameter AUTHD_FRONT_SECRET
# matches it (conf/apache/authorizer.conf sends it); everything else gets 403
# and reaches no route.
export TEST_FRONTEND=apache
# shellcheck source=harness.sh
source "$(dirname "${BASH_SOURCE[0]}")/harness.sh"

SECRET=$(openssl rand -hex 32)
WRONG=${SECRET%?}$([[ ${SECRET: -1} == 0 ]] && echo 1 || echo 0)  # differs in the last character
apache_authorizer_app "$SECRET"
cat >"$APP_DIR/cgi-bin/env" <<'CGI'
#!/usr/bin/env bash
printf 'Content-Type: text/plain\r\n\r\n'
env
CGI
chmod 0755 "$APP_DIR/cgi-bin/env"
export AUTHD_METRICS_ALLOW=192.0.2.1 AUTHD_AUTHORIZE_RULE='/ * method'

stack_start

# A FastCGI request of the attacker's own making: fcgi_once PORT PARAM=VALUE...
# prints "Status: CODE" of the answer (or "closed").
fcgi_once() {
  python3 - "$@" <<'PY'
import socket, struct, sys
port, pairs = int(sys.argv[1]), [a.split("=", 1) for a in sys.argv[2:]]
def rec(t, c=b""):
    return struct.pack(">BBHHBB", 1, t, 1, len(c), 0, 0) + c
def nv(k, v):
    k, v = k.encode(), v.encode()
    return bytes([len(k)]) + (bytes([len(v)]) if len(v) < 128 else struct.pack(">I", len(v) | 0x80000000)) + k + v
role = 2 if ("FCGI_ROLE", "AUTHORIZER") in [tuple(p) for p in pairs] else 1
s = socket.create_connection(("127.0.0.1", port), timeout=5)
s.sendall(rec(1, struct.pack(">HB5x", role, 0)) + rec(4, b"".join(nv(k, v) for k, v in pairs)) + rec(4) + rec(5))
out = b""
try:
    while True:
        d = s.recv(65536)
        if not d: break
        out += d
except socket.timeout:
    pass
stdout, i = b"", 0
while i + 8 <= len(out):
    _, t, _, n, p, _ = struct.unpack(">BBHHBB", out[i:i + 8])
    if t == 6: stdout += out[i + 8:i + 8 + n]
    i += 8 + n + p
head = stdout.split(b"\r\n\r\n", 1)[0].decode(errors="replace")
status = next((l for l in head.split("\r\n") if l.lower().startswith("status:")), "Status: 200" if stdout else "closed")
print(" ".join(status.split()[:2]))
PY
}

step "no front_secret: authd will not listen on TCP"
make_temp_dir NOSECRET nosecret
LPORT=$(pick_port) || _harness_die "found no free port"
out=$(env -u AUTHD_FRONT_SECRET timeout 10 "$AUTHD_BIN" --listen "127.0.0.1:$LPORT" 2>&1)
expect_eq "authd --listen 127.0.0.1:PORT without front_secret exits 1" 1 "$?"
expect_match "it names the setting" 'front_secret' "$out"
AUTHD_FRONT_SECRET=short timeout 10 "$AUTHD_BIN" --check >/dev/null 2>&1
expect_eq "a front_secret shorter than 16 characters is refused" 1 "$?"

step "the TCP listener of the Apache authorizer, with front_secret"
authd_tcp_start "$AUTHZ_PORT" "$SECRET"

signup alice alice-pass-1
expect_status 201 "alice signs up"
signin alice alice-pass-1; ALICE=$TOKEN

step "a local caller's own FastCGI over TCP: refused"
COMMON=(GATEWAY_INTERFACE=CGI/1.1 SERVER_PROTOCOL=HTTP/1.1)
expect_eq "GET /metrics claiming an address of metrics_allow, no secret" "Status: 403" \
  "$(fcgi_once "$AUTHZ_PORT" "${COMMON[@]}" REQUEST_METHOD=GET SCRIPT_NAME=/metrics REQUEST_URI=/metrics REMOTE_ADDR=192.0.2.1)"
expect_eq "the same with a wrong secret" "Status: 403" \
  "$(fcgi_once "$AUTHZ_PORT" "${COMMON[@]}" REQUEST_METHOD=GET SCRIPT_NAME=/metrics REQUEST_URI=/metrics REMOTE_ADDR=192.0.2.1 "AUTHD_FRONT_SECRET=$WRONG")"
expect_eq "the same with the secret's first half" "Status: 403" \
  "$(fcgi_once "$AUTHZ_PORT" "${COMMON[@]}" REQUEST_METHOD=GET SCRIPT_NAME=/metrics REQUEST_URI=/metrics REMOTE_ADDR=192.0.2.1 "AUTHD_FRONT_SECRET=${SECRET:0:32}")"
expect_eq "an authorizer request of its own making (public path claimed), no secret" "Status: 403" \
  "$(fcgi_once "$AUTHZ_PORT" "${COMMON[@]}" FCGI_ROLE=AUTHORIZER REQUEST_METHOD=GET REQUEST_URI=/app/static/report.txt \
       SCRIPT_NAME=/app/static/report.txt REMOTE_ADDR=192.0.2.1 "HTTP_AUTHORIZATION=Bearer $ALICE")"
for i in 1 2 3; do
  got=$(fcgi_once "$AUTHZ_PORT" "${COMMON[@]}" REQUEST_METHOD=POST SCRIPT_NAME=/signin REQUEST_URI=/signin \
          "REMOTE_ADDR=198.51.100.$i" HTTP_AUTHORIZATION="Basic $(printf 'alice:guess-%s' "$i" | base64 -w0)")
  expect_eq "sign-in guess $i from a made-up address: refused before the route" "Status: 403" "$got"
done
# The comparison itself: the right secret is served (a local user who has it
# is the web server, see SECURITY.md).
expect_eq "with the right secret, GET /metrics as 192.0.2.1 is served" "Status: 200" \
  "$(fcgi_once "$AUTHZ_PORT" "${COMMON[@]}" REQUEST_METHOD=GET SCRIPT_NAME=/metrics REQUEST_URI=/metrics REMOTE_ADDR=192.0.2.1 "AUTHD_FRONT_SECRET=$SECRET")"
expect_match "the refusals are logged" 'without the right AUTHD_FRONT_SECRET' "$(cat "$STATE_DIR/authd.log")"
expect_eq "the log never holds the secret" no "$(grep -qF "${SECRET:0:16}" "$STATE_DIR/authd.log" && echo yes || echo no)"

step "Apache proves itself"
http GET /app/static/report.txt
expect_status 401 "no token: authd's refusal (Apache's request was served)"
http GET /app/static/report.txt -H "Authorization: Bearer $ALICE"
expect_eq "alice reads the file through Apache" "200 the secret report" "$STATUS $BODY"
http GET /app/cgi-bin/env -H "Authorization: Bearer $ALICE"
expect_status 200 "alice runs the CGI"
expect_match "the CGI sees AUTH_USER" $'(^|\n)AUTH_USER=alice(\n|$)' "$BODY"

finish

#!/usr/bin/env bash
# FastCGI keep-alive (FCGI_KEEP_CONN): a connection the web server keeps open
# is served again and again, and idle kept connections hold no authd thread.
# A real nginx (fastcgi_keep_conn on, upstream keepalive) sits in front of
# authd, which runs with 2 request threads (5 threads in all, with the hashing
# and identity-provider lanes and the event loop); nginx keeps up to 32 idle
# connections and opens up to 64: more than 4 x authd's threads. A server that
# parked a thread on every kept connection would stall here.
#  1. The harness's front server: lighttpd does not keep connections (authd
#     closes each after its answer), Apache (enablereuse=on) does.
#  2. Through nginx, one request after another: sign-up, sign-in, records,
#     404, 405, an over-size body (413, on a kept connection, which then
#     serves the next request), 200 guarded reads: right answers, over one or
#     two connections that stay open.
#  3. Straight on the socket: 300 requests on one kept connection; the
#     FastCGI management and refusal records (GET_VALUES, multiplexing,
#     Filter role, unknown type, abort, no FCGI_KEEP_CONN).
#  4. Bursts through nginx (wrk, 64 connections): every answer 200, no
#     error, no timeout; nginx held >= 4 x authd's threads connections open,
#     and keeps them idle afterwards while single requests still answer at
#     once; a second burst on those parked connections, also clean.
#  5. SIGTERM with idle kept connections: authd exits 0 at once.
# Figures: requests and connections of each part.
source "$(dirname "${BASH_SOURCE[0]}")/fault_lib.sh"
for tool in nginx wrk ss; do
  command -v "$tool" >/dev/null 2>&1 || fault_die "'$tool' is not installed (scripts/deps.sh test installs it)"
done
PY=/usr/bin/python3
[[ -x $PY ]] || fault_die "python3 is not installed (scripts/deps.sh test installs it)"
FCGI=$(dirname "${BASH_SOURCE[0]}")/fcgi_client.py

export AUTHD_WORKERS=2 AUTHD_HASH_WORKERS=1 AUTHD_UPSTREAM_WORKERS=1
AUTHD_THREADS=5
KEEP=32
BURST=64
stack_start
OUT=$STATE_DIR/keepalive
mkdir -p "$OUT"
# Connections to authd's socket open right now.
authd_connections() { ss -xH state established src "$FCGI_SOCKET" 2>/dev/null | grep -c .; }

expect_eq "setup: signup alice" 201 "$(signup_status alice 'alice password')"
TOKEN=$(signin_token alice 'alice password')
expect_ne "setup: alice's token" '' "$TOKEN"

step "1. $TEST_FRONTEND in front: 30 guarded reads"
ok=0
for ((i = 0; i < 30; i++)); do
  [[ $(status_of GET /records -H "Authorization: Bearer $TOKEN") == 200 ]] && ok=$((ok + 1))
done
expect_eq "$TEST_FRONTEND: 30 reads answered 200" 30 "$ok"
sleep 0.3
front_kept=$(authd_connections)
if [[ $TEST_FRONTEND == apache ]]; then
  ((front_kept >= 1)) && pass "apache keeps its connections to authd open ($front_kept, enablereuse=on)" ||
    fail "apache kept no connection to authd open: enablereuse is not in effect"
else
  expect_eq "lighttpd sends no FCGI_KEEP_CONN: authd closed every connection after its answer" 0 "$front_kept"
fi

step "nginx with fastcgi_keep_conn on and keepalive $KEEP in front of authd"
NGX=$(mktemp -d "${TMPDIR:-/tmp}/authd-nginx.XXXXXX") || exit 1
NGINX_PID=
nginx_cleanup() {
  [[ -n $NGINX_PID ]] && stop_group "$NGINX_PID" nginx
  if ((FAILED > 0 || _EXIT_RC != 0)) && [[ -s $NGX/error.log ]]; then
    echo '----- nginx error.log (last 40 lines) -----'
    tail -n 40 "$NGX/error.log"
  fi
  rm -rf "$NGX"
}
at_exit nginx_cleanup
NPORT=$(pick_port) || fault_die "no free port"
{
nginx_conf_head "$NGX" "$NGX/nginx.pid" "$NGX/error.log" warn 1024 off
cat <<EOF
    upstream authd {
        server unix:$FCGI_SOCKET;
        keepalive $KEEP;            # idle connections kept per nginx worker
        keepalive_timeout 60s;
    }
    server {
        listen 127.0.0.1:$NPORT;
        client_max_body_size 1m;    # larger than authd's limit: authd's own 413 is tested
        location ~ ^/(signup|signin|oauth|records|auth)(/|\$) {
            fastcgi_pass authd;
            fastcgi_keep_conn on;       # FCGI_KEEP_CONN: authd keeps the connection
            # A client gone mid-request (wrk stops abruptly) does not cost the
            # kept connection: nginx reads authd's answer and keeps it.
            fastcgi_ignore_client_abort on;
            fastcgi_param REQUEST_METHOD  \$request_method;
            fastcgi_param SCRIPT_NAME     \$uri;
            fastcgi_param QUERY_STRING    \$query_string;
            fastcgi_param REQUEST_URI     \$request_uri;
            fastcgi_param CONTENT_TYPE    \$content_type;
            fastcgi_param CONTENT_LENGTH  \$content_length;
            fastcgi_param SERVER_PROTOCOL \$server_protocol;
            fastcgi_param REMOTE_ADDR     \$remote_addr;
            fastcgi_param HTTPS           \$https if_not_empty;
        }
    }
}
EOF
} >"$NGX/nginx.conf"
nginx -t -q -p "$NGX/" -c "$NGX/nginx.conf" -e "$NGX/error.log" 2>"$NGX/test.out" ||
  { cat "$NGX/test.out" >&2; fault_die "nginx -t rejected the configuration"; }
setsid nginx -p "$NGX/" -c "$NGX/nginx.conf" -e "$NGX/error.log" -g 'daemon off;' </dev/null >>"$NGX/nginx.out" 2>&1 &
NGINX_PID=$!
NGINX=http://127.0.0.1:$NPORT
for ((i = 0; i < 100; i++)); do
  [[ $(curl -s --noproxy '*' -o /dev/null -w '%{http_code}' "$NGINX/records") == 401 ]] && break
  sleep 0.05
done
expect_eq "nginx routes to authd (GET /records without a token: 401)" 401 \
  "$(curl -s --noproxy '*' -o /dev/null -w '%{http_code}' "$NGINX/records")"

step "2. one request after another through nginx"
http POST "$NGINX/signup" -H 'Content-Type: application/json' \
  --data-binary '{"username":"bob","password":"bob password","fullname":"Bob","email":"bob@example.com"}'
expect_status 201 "nginx: sign-up"
http POST "$NGINX/signin" -u 'bob:bob password'
expect_status 200 "nginx: sign-in"
BOB=$(json .token)
printf '%s' 'root password' | authctl add root admin >/dev/null 2>&1
http POST "$NGINX/signin" -u 'root:root password'
ROOT=$(json .token)
http POST "$NGINX/records" -H "Authorization: Bearer $ROOT" -H 'Content-Type: application/json' --data-binary '{"title":"kept"}'
expect_status 201 "nginx: create a record"
ID=$(json ._id)
http GET "$NGINX/records/$ID" -H "Authorization: Bearer $ROOT"
expect_status 200 "nginx: read it back"
expect_json "nginx: the record's title" .title kept
http GET "$NGINX/records/nowhere/else" -H "Authorization: Bearer $BOB"
expect_status 404 "nginx: unknown path"
expect_json "nginx: 404 is authd's JSON" .error "Not Found"
http DELETE "$NGINX/signup"
expect_status 405 "nginx: wrong method"
expect_match "nginx: 405 names the allowed methods" 'POST' "$(header Allow)"
head -c 100000 /dev/zero | tr '\0' 'x' >"$OUT/big"
http POST "$NGINX/signup" -H 'Content-Type: application/json' --data-binary "@$OUT/big"
expect_status 413 "nginx: body over max_body_bytes: authd's 413"
http GET "$NGINX/records" -H "Authorization: Bearer $ROOT"
expect_status 200 "nginx: the next request after the 413"
expect_eq "nginx: the record list" 1 "$(json length)"
list=$BODY
ok=0 same=0
for ((i = 0; i < 200; i++)); do
  http GET "$NGINX/records" -H "Authorization: Bearer $ROOT" >/dev/null
  [[ $STATUS == 200 ]] && ok=$((ok + 1))
  [[ $BODY == "$list" ]] && same=$((same + 1))
done
expect_eq "nginx: 200 guarded reads in a row answered 200" 200 "$ok"
expect_eq "nginx: ... each with the same list" 200 "$same"
seq_kept=$(($(authd_connections) - front_kept))  # those of $TEST_FRONTEND stay as they were
((seq_kept >= 1 && seq_kept <= 2)) &&
  pass "nginx: 209 requests went over $seq_kept kept connection(s), still open" ||
  fail "nginx: expected 1 or 2 kept connections after 209 requests one after another, found $seq_kept"

step "3. straight on authd's socket: one kept connection, and the protocol's corners"
"$PY" "$FCGI" keepalive "$FCGI_SOCKET" "$TOKEN" 300 >"$OUT/keepalive" 2>&1
cat "$OUT/keepalive"
expect_eq "300 requests on one connection: all 200" 300 "$(jq -r '.statuses["200"]' "$OUT/keepalive" 2>/dev/null)"
expect_eq "... the same answer each time" true "$(jq -r .bodies_equal "$OUT/keepalive" 2>/dev/null)"
expect_eq "... and the connection is still open" true "$(jq -r .still_open "$OUT/keepalive" 2>/dev/null)"
"$PY" "$FCGI" protocol "$FCGI_SOCKET" "$TOKEN" >"$OUT/protocol" 2>&1
cat "$OUT/protocol"
pj() { jq -r "$1" "$OUT/protocol" 2>/dev/null; }
expect_eq "GET_VALUES answered with GET_VALUES_RESULT" 10 "$(pj .get_values.type)"
expect_eq "GET_VALUES: FCGI_MPXS_CONNS=0 (no multiplexing)" 0 "$(pj '.get_values.values.FCGI_MPXS_CONNS')"
expect_match "GET_VALUES: FCGI_MAX_CONNS is a number" '^[0-9]+$' "$(pj '.get_values.values.FCGI_MAX_CONNS')"
expect_eq "unknown management record: UNKNOWN_TYPE naming it" "11 99" "$(pj '"\(.unknown_type.type) \(.unknown_type.names)"')"
expect_eq "second BEGIN_REQUEST while one is open: END_REQUEST CANT_MPX_CONN for it" "3 2 1" \
  "$(pj '"\(.mpx_refusal.type) \(.mpx_refusal.id) \(.mpx_refusal.protocol_status)"')"
expect_eq "... and the open request is answered" 200 "$(pj .mpx_first_answered)"
expect_eq "Filter role: END_REQUEST UNKNOWN_ROLE" "3 3 3" "$(pj '"\(.filter.type) \(.filter.id) \(.filter.protocol_status)"')"
expect_eq "ABORT_REQUEST: END_REQUEST REQUEST_COMPLETE" 0 "$(pj .abort.protocol_status)"
expect_eq "the kept connection serves the next request after all that" 200 "$(pj .after_abort)"
expect_eq "... and stays open" true "$(pj .kept_open)"
expect_eq "without FCGI_KEEP_CONN: answered" 200 "$(pj .no_keep.status)"
expect_eq "without FCGI_KEEP_CONN: authd closes the connection after the answer" true "$(pj .no_keep.closed_after)"

# wrk_burst NAME: BURST connections of guarded reads through nginx for 3 s;
# sets BURST_REQUESTS, BURST_200, BURST_OTHER, BURST_ERRORS, BURST_MAX_CONNS.
wrk_status_lua "$OUT/get.lua"
wrk_burst() {
  local name=$1 max=0 n
  wrk -t 2 -c "$BURST" -d 3s --timeout 5s -s "$OUT/get.lua" "$NGINX/records" >"$OUT/wrk-$name" 2>&1 &
  local wrk_pid=$!
  while proc_alive "$wrk_pid"; do
    n=$(authd_connections)
    ((n > max)) && max=$n
    sleep 0.1
  done
  wait "$wrk_pid"
  grep '^wrk:' "$OUT/wrk-$name" | sed 's/^wrk: /    /'
  BURST_REQUESTS=$(awk '$1 == "wrk:" && $2 == "requests" { print $3 }' "$OUT/wrk-$name")
  BURST_200=$(awk '$1 == "wrk:" && $2 == "status" && $3 == 200 { print $4 }' "$OUT/wrk-$name")
  BURST_OTHER=$(awk '$1 == "wrk:" && $2 == "status" && $3 != 200 { s += $4 } END { print s + 0 }' "$OUT/wrk-$name")
  BURST_ERRORS=$(awk '$1 == "wrk:" && $2 == "errors" { print $3 }' "$OUT/wrk-$name")
  BURST_MAX_CONNS=$max
}

step "4. a burst through nginx: $BURST connections, authd with $AUTHD_THREADS threads"
wrk_burst first
((${BURST_REQUESTS:-0} >= 100)) && pass "burst: $BURST_REQUESTS requests in 3 s (no stall)" ||
  fail "burst: only ${BURST_REQUESTS:-0} requests in 3 s"
expect_eq "burst: every answer 200" "${BURST_REQUESTS:-0}" "${BURST_200:-0}"
expect_eq "burst: no other status" 0 "$BURST_OTHER"
expect_eq "burst: no connect/read/write error or timeout" 0 "${BURST_ERRORS:-missing}"
((BURST_MAX_CONNS >= 4 * AUTHD_THREADS)) &&
  pass "burst: nginx held $BURST_MAX_CONNS connections to authd at once (>= 4 x $AUTHD_THREADS threads)" ||
  fail "burst: nginx held only $BURST_MAX_CONNS connections to authd (want >= $((4 * AUTHD_THREADS)))"
sleep 0.5
parked=$(authd_connections)
((parked >= 4 * AUTHD_THREADS)) && pass "after the burst nginx keeps $parked idle connections to authd open" ||
  fail "after the burst only $parked connections stay open (want >= $((4 * AUTHD_THREADS)))"
ok=0
for ((i = 0; i < 20; i++)); do
  [[ $(curl -s --noproxy '*' --max-time 5 -o /dev/null -w '%{http_code}' -H "Authorization: Bearer $TOKEN" "$NGINX/records") == 200 ]] &&
    ok=$((ok + 1))
done
expect_eq "with $parked idle kept connections parked, single requests answer at once (20 x 200, 5 s limit each)" 20 "$ok"
first_requests=$BURST_REQUESTS first_max=$BURST_MAX_CONNS
wrk_burst second
expect_eq "second burst: every answer 200" "${BURST_REQUESTS:-0}" "${BURST_200:-0}"
expect_eq "second burst: no error or timeout" 0 "${BURST_ERRORS:-missing}"
((${BURST_REQUESTS:-0} >= 100)) && pass "second burst: $BURST_REQUESTS requests in 3 s" ||
  fail "second burst: only ${BURST_REQUESTS:-0} requests"

step "5. SIGTERM while nginx keeps idle connections open"
idle=$(authd_connections)
t0=$(now_ms)
kill -TERM "$AUTHD_PID"
wait "$AUTHD_PID"
rc=$?
dt=$(($(now_ms) - t0))
AUTHD_PID=
expect_eq "authd exits 0" 0 "$rc"
((dt < 5000)) && pass "it closed $idle idle kept connections and stopped in ${dt} ms" ||
  fail "it took ${dt} ms to stop with $idle idle kept connections"

print_figure front_kept_connections "$front_kept"
print_figure sequential_kept_connections "$seq_kept"
print_figure burst1_requests "$first_requests"
print_figure burst1_max_connections "$first_max"
print_figure parked_connections "$parked"
print_figure burst2_requests "$BURST_REQUESTS"
print_figure stop_ms "$dt"
finish

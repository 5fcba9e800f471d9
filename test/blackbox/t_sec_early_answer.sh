#!/usr/bin/env bash
# An early answer leaves the front server consistent (issue 23, class 5).
# The attack: one oversized sign-up body. authd answers 413 as soon as the
# declared length passes max_body_bytes, before the body has arrived; on a
# kept FastCGI connection it sent FCGI_END_REQUEST at once while the web
# server was still writing the body, and H2O 2.2 (fastcgi.timeout.keepalive)
# then aborted: one request took the site's web server down. authd now reads
# and drops the rest of that request's FCGI_STDIN (bounded by
# early_answer_discard_bytes and the read timeout) before FCGI_END_REQUEST.
#  1. Straight on the socket: the 413 comes while the body is being sent,
#     FCGI_END_REQUEST only after its last byte, and the kept connection then
#     serves a guarded read.
#  2. Through the front server with kept connections: a 1 MiB body (over
#     H2O's, nginx's, Apache's and lighttpd's own limits but H2O's) and a
#     60 KiB one (under the front's limit, over authd's max_body_bytes, so
#     authd answers early on every server), each followed by guarded reads on
#     the same client connection, three rounds; then every later request
#     still answers and the front server process is alive.
source "$(dirname "$0")/fault_lib.sh"
FCGI=$(dirname "$0")/fcgi_client.py
PY=/usr/bin/python3
[[ -x $PY ]] || fault_die "python3 is not installed (scripts/deps.sh test installs it)"

export AUTHD_MAX_BODY_BYTES=16384
stack_start
expect_eq "setup: signup alice" 201 "$(signup_status alice 'alice password')"
TOKEN=$(signin_token alice 'alice password')
expect_ne "setup: alice's token" '' "$TOKEN"
make_temp_dir BODIES early
head -c $((1024 * 1024)) /dev/zero | tr '\0' 'a' >"$BODIES/1m"
head -c $((60 * 1024)) /dev/zero | tr '\0' 'a' >"$BODIES/60k"

step "1. on the socket: FCGI_END_REQUEST after the rest of the body"
out=$("$PY" "$FCGI" early "$FCGI_SOCKET" "$TOKEN" $((1024 * 1024))) || fail "fcgi_client.py early failed"
echo "$out"
expect_eq "413 while the body is still coming" 413 "$(jq -r .status <<<"$out")"
expect_eq "no FCGI_END_REQUEST before the body's end" false "$(jq -r .ended_before_body_sent <<<"$out")"
expect_eq "FCGI_END_REQUEST after it" true "$(jq -r .ended_after_body_sent <<<"$out")"
expect_eq "the kept connection serves the next request" 200 "$(jq -r .next_status <<<"$out")"

step "2. through $TEST_FRONTEND: oversized bodies on kept client connections"
front_pid=$FRONTEND_PID
for size in 1m 60k; do
  for round in 1 2 3; do
    # One curl, one client connection: the body, then two guarded reads.
    codes=$(curl --silent --noproxy '*' --max-time 20 \
              -o /dev/null -w '%{http_code}\n' -H 'Content-Type: application/json' \
              --data-binary "@$BODIES/$size" "$BASE_URL/signup" \
              --next -o /dev/null -w '%{http_code}\n' -H "Authorization: Bearer $TOKEN" "$BASE_URL/records" \
              --next -o /dev/null -w '%{http_code}\n' -H "Authorization: Bearer $TOKEN" "$BASE_URL/records" |
              tr '\n' ' ')
    expect_eq "$size body, round $round: 413, then two reads 200" "413 200 200 " "$codes"
  done
done
ok=0
for ((i = 0; i < 20; i++)); do
  [[ $(status_of GET /records -H "Authorization: Bearer $TOKEN") == 200 ]] && ok=$((ok + 1))
done
expect_eq "20 more guarded reads answer 200" 20 "$ok"
expect_eq "a sign-up still works" 201 "$(signup_status bob 'bob password')"
proc_alive "$front_pid" && pass "$TEST_FRONTEND (pid $front_pid) is alive" || fail "$TEST_FRONTEND (pid $front_pid) died"
authd_alive && pass "authd is alive" || fail "authd died"
finish

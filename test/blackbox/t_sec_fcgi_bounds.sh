#!/usr/bin/env bash
# Stops a FastCGI peer from making authd hold unbounded memory or descriptors
# (issue 23, class 4). Anyone who can reach authd's socket (a local user on
# TCP, a compromised or buggy web server) tried:
#  1. a flood of management records (each answered with a record twice its
#     size) on a connection that never reads the answers: authd buffered
#     every answer; now it stops reading once output_pause_bytes are unsent;
#  2. more connections than the FCGI_MAX_CONNS authd advertises: all were
#     accepted; now the one past max_connections waits until one closes;
#  3. keeping a connection forever with FCGI_GET_VALUES every 0.3 s: each
#     reset the idle clock; now idle_connection_timeout_ms closes it anyway;
#  4. a request of 5000 empty parameters (two strings each): now 413 and
#     closed past max_request_params;
#  5. FCGI_GET_VALUES naming one variable 3855 times: the reply outgrew
#     65535 bytes and its length field wrapped, breaking the framing; now
#     each variable is answered once, in one well-formed record.
# Straight on authd's socket (no web server does these): runs once.
# Figures: the flood's bytes taken, when the idle connection closed.
source "$(dirname "$0")/fault_lib.sh"
FCGI=$(dirname "$0")/fcgi_client.py
PY=/usr/bin/python3
[[ -x $PY ]] || fault_die "python3 is not installed (scripts/deps.sh test installs it)"

MAX_CONNS=8
export AUTHD_MAX_CONNECTIONS=$MAX_CONNS AUTHD_IDLE_CONNECTION_TIMEOUT_MS=1500
export AUTHD_OUTPUT_PAUSE_BYTES=65536 AUTHD_OUTPUT_LIMIT_BYTES=262144
stack_start
expect_eq "setup: signup alice" 201 "$(signup_status alice 'alice password')"
TOKEN=$(signin_token alice 'alice password')
expect_ne "setup: alice's token" '' "$TOKEN"
# The front server holds no connection now (lighttpd closes each).
sleep 0.5

step "the attacks, straight on authd's socket"
out=$("$PY" "$FCGI" bounds "$FCGI_SOCKET" "$TOKEN" "$MAX_CONNS" 1.5) || fail "fcgi_client.py bounds failed"
echo "$out"
j() { jq -r "$1" <<<"$out"; }
flood=$(j .flood_sent)
echo "figure: the flood got $flood bytes into authd in 3 s"
((flood < 4 * 1024 * 1024)) && pass "a connection that reads nothing gets at most $flood bytes in" ||
  fail "authd took $flood bytes from a connection that reads none of its answers"
expect_eq "FCGI_MAX_CONNS advertises max_connections" "$MAX_CONNS" "$(j .limit)"
expect_eq "one connection past the limit is not served" false "$(j .extra_served_at_limit)"
expect_eq "it is served once another closed" true "$(j .extra_served_after_close)"
idle=$(j .idle_closed_after_s)
echo "figure: a connection sending only FCGI_GET_VALUES closed after ${idle}s (idle timeout 1.5 s)"
[[ $idle != null ]] && pass "management records do not keep a connection open (closed after ${idle}s)" ||
  fail "a connection sending FCGI_GET_VALUES every 0.3 s stayed open 4.5 s"
expect_eq "5000 empty parameters: 413" 413 "$(j .many_params_status)"
expect_eq "5000 empty parameters: the connection serves nothing more" false "$(j .many_params_next_served)"
expect_eq "FCGI_GET_VALUES x 3855: one FCGI_GET_VALUES_RESULT" 10 "$(j '.big_get_values.type')"
expect_eq "FCGI_GET_VALUES x 3855: one short pair" 18 "$(j '.big_get_values.length')"
expect_eq "the connection still frames records after it" true "$(j .framing_after)"

step "authd still serves"
expect_eq "GET /records" 200 "$(status_of GET /records -H "Authorization: Bearer $TOKEN")"
authd_alive && pass "authd is alive" || fail "authd died"
finish

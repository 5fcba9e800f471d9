#!/usr/bin/env bash
# SIGHUP (systemctl reload authd) re-reads the configuration between requests:
# ten reloads during wrk load answer every request (no non-2xx, no socket
# error) from the same process; a configuration that does not validate is
# refused with its reason in the log and the running one keeps serving; a
# valid change (token_ttl) is applied to the next token.
source "$(dirname "$0")/harness.sh"
need_tools wrk
CONF=$(mktemp /tmp/authd-reload.XXXXXX.conf)
cp "$SOURCE_DIR/conf/authd.conf" "$CONF"
export AUTHD_CONFIG=$CONF
stack_start
trap 'rm -f "$CONF"; stack_stop' EXIT

signup alice 'alice password' >/dev/null
signin alice 'alice password'
expect_status 200 "alice signs in"
PID=$(authd_child_pid 2>/dev/null || echo "$AUTHD_PID")

step "ten SIGHUPs under wrk load"
wrk -t2 -c8 -d6s -H "$(bearer)" "$BASE_URL/records" >"$STATE_DIR/wrk.log" 2>&1 &
WRK=$!
sleep 0.5
for ((i = 0; i < 10; i++)); do kill -HUP "$PID"; sleep 0.4; done
wait "$WRK"
expect_match "wrk ran" '[0-9]+ requests in' "$(cat "$STATE_DIR/wrk.log")"
expect_eq "no failed request ($(grep -E 'requests in|Non-2xx|Socket errors' "$STATE_DIR/wrk.log" | tr '\n' ' '))" "" \
  "$(grep -E 'Non-2xx|Socket errors' "$STATE_DIR/wrk.log")"
expect_eq "ten reloads logged" 10 "$(grep -c 'reloaded the configuration' "$STATE_DIR/authd.log")"
expect_eq "the same process" yes "$(proc_alive "$PID" && echo yes || echo no)"

step "an invalid configuration is refused, a valid one applied"
echo 'token_ttl = banana' >>"$CONF"
kill -HUP "$PID"
sleep 1
expect_match "refusal logged with the reason" 'reload refused.*token_ttl' "$(cat "$STATE_DIR/authd.log")"
signin alice 'alice password'
expect_status 200 "still serving"
sed -i '$d' "$CONF"
echo 'token_ttl = 120' >>"$CONF"
kill -HUP "$PID"
sleep 1
signin alice 'alice password'
expect_status 200 "signin after the valid reload"
expect_eq "token_ttl 120 applied (exp - iat)" 120 "$(jwt_payload "$TOKEN" | jq '.exp - .iat')"
finish

#!/usr/bin/env bash
# SIGHUP (systemctl reload authd) re-reads the configuration between requests:
# ten reloads during wrk load answer every request (no non-2xx, no socket
# error) from the same process; a configuration that does not validate is
# refused with its reason in the log and the running one keeps serving; a
# valid change (token_ttl) is applied to the next token.
# Attack (issue 41, class 15): a configuration that validates but cannot be
# brought up (here: the signing key it names turned unusable: readable by
# others, too short, a directory) retired the running App before building the
# new one, so one SIGHUP turned every answer into 503 while the log said "the
# running configuration stays". Now the new App is built whole first: the
# running one keeps answering 200 with its key, the log says the reload was
# refused and why, and a later reload with a good key is applied.
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

step "a configuration that loads but cannot be brought up keeps the running App"
KEY=$STATE_DIR/signing.key
[[ -f $KEY ]] || fail "no signing key at $KEY"
cp -p "$KEY" "$STATE_DIR/signing.key.good"
OLD_TOKEN=$TOKEN
sed -i '$d' "$CONF"
echo 'token_ttl = 300' >>"$CONF"  # a valid change that must not be applied
break_key() { # DESCRIPTION: with the key broken by the caller, a SIGHUP changes nothing
  local refusals
  refusals=$(grep -c 'reload refused' "$STATE_DIR/authd.log")
  kill -HUP "$PID"
  for ((i = 0; i < 50; i++)); do
    (($(grep -c 'reload refused' "$STATE_DIR/authd.log") > refusals)) && break
    sleep 0.1
  done
  expect_match "$1: the reload is refused, with the reason" 'reload refused, the running configuration stays: .*signing key' \
    "$(grep 'reload refused' "$STATE_DIR/authd.log" | tail -n 1)"
  http GET /records -H "$(bearer "$OLD_TOKEN")"
  expect_status 200 "$1: a token of the running key still passes (not 503)"
  signin alice 'alice password'
  expect_status 200 "$1: sign-in still served by the running App"
  expect_eq "$1: with the running token_ttl (120)" 120 "$(jwt_payload "$TOKEN" | jq '.exp - .iat')"
  expect_eq "$1: the same process" yes "$(proc_alive "$PID" && echo yes || echo no)"
}
chmod 0644 "$KEY"
break_key "key readable by others"
head -c 8 "$STATE_DIR/signing.key.good" >"$KEY.short" && chmod 0600 "$KEY.short" && mv -f "$KEY.short" "$KEY"
break_key "key of 8 bytes"
rm -f "$KEY" && mkdir -m 0700 "$KEY"
break_key "key path a directory"
rmdir "$KEY" && cp -p "$STATE_DIR/signing.key.good" "$KEY"
kill -HUP "$PID"
sleep 1
signin alice 'alice password'
expect_status 200 "key repaired: signin after the reload"
expect_eq "key repaired: the new token_ttl (300) applied" 300 "$(jwt_payload "$TOKEN" | jq '.exp - .iat')"
http GET /records -H "$(bearer "$OLD_TOKEN")"
expect_status 200 "key repaired: the old token still passes (the same key)"
finish

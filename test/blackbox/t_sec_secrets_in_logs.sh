#!/usr/bin/env bash
# Stops credentials from leaking through log files (OWASP ASVS 7.1.1, CWE-532): with
# AUTHD_LOG_LEVEL=debug, after sign-ups, sign-ins (right, wrong, malformed, over-long), guarded
# calls with good and bad tokens and an authctl add, neither authd's log nor lighttpd's error and
# access logs contain any password, its Basic encoding, any issued token (nor its signature), the
# stored hash or the signing key.
source "$(dirname "$0")/harness.sh"
export AUTHD_LOG_LEVEL=debug
KEY_HEX=$(head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n')
export AUTHD_SIGNING_KEY=$KEY_HEX
stack_start

PW1="Pw1-$RANDOM$RANDOM-correct" PW2="Pw2-$RANDOM$RANDOM-wrong" PW3="Pw3-$RANDOM$RANDOM-ctl"
PWLONG="Pw4-$RANDOM$RANDOM-$(head -c 2000 /dev/zero | tr '\0' x)"
SECRETS=()

signup alice "$PW1"; expect_eq "signup alice" 201 "$STATUS"
SECRETS+=("$(json .token)" "$(json .user.password)")
signup bob "$PWLONG"; expect_eq "signup with an over-long password: 400" 400 "$STATUS"
signup alice "$PW2"; expect_eq "signup of a taken name: 409" 409 "$STATUS"
http POST /signin -u "alice:$PW1"; expect_eq "signin" 200 "$STATUS"
TOK=$(json .token); SECRETS+=("$TOK")
http POST /signin -u "alice:$PW2"; expect_eq "signin, wrong password" 500 "$STATUS"
http POST /signin -u "nobody:$PW2"; expect_eq "signin, unknown user" 500 "$STATUS"
http POST /signin -u "alice:$PWLONG"; expect_eq "signin, over-long password" 500 "$STATUS"
http POST /signin -H "Authorization: Basic $(printf '%s' "alice$PW2" | base64 -w0)"; expect_eq "signin, no colon" 500 "$STATUS"
http GET /records -H "Authorization: Bearer $TOK"; expect_eq "guarded call" 200 "$STATUS"
http GET /records -H "Authorization: Bearer ${TOK%.*}.AAAA"; expect_eq "guarded call, bad signature" 401 "$STATUS"
http GET /records -H "Authorization: Bearer $TOK $TOK"; expect_eq "guarded call, two tokens" 400 "$STATUS"
http DELETE /records/0123456789abcdef01234567 -H "Authorization: Bearer $TOK"; expect_eq "guarded call, forbidden" 403 "$STATUS"
printf '%s' "$PW3" | authctl add carol admin >>"$STATE_DIR/authd.log" 2>&1
expect_eq "authctl add (its output appended to authd.log)" 0 "$?"
http POST /signin -u "carol:$PW3"; expect_eq "signin carol" 200 "$STATUS"
SECRETS+=("$(json .token)")

authd_stop   # flush everything: lighttpd's access log is written in batches
kill -TERM "$FRONTEND_PID" 2>/dev/null; sleep 0.5
LOGS=$(stack_logs)
expect_match "setup: debug logging is on (authd logged refusals)" 'debug' "$LOGS"
expect_match "setup: the access log was written" 'POST /signin' "$LOGS"

for pw in "$PW1" "$PW2" "$PW3" "${PWLONG:0:40}"; do
  expect_eq "password ${pw:0:8}... not in any log" 0 "$(grep -cF -- "$pw" <<<"$LOGS")"
done
for cred in "alice:$PW1" "alice:$PW2" "nobody:$PW2" "carol:$PW3" "alice$PW2"; do
  enc=$(printf '%s' "$cred" | base64 -w0)
  expect_eq "Basic credentials ${cred:0:6}... (base64) not in any log" 0 "$(grep -cF -- "${enc:0:24}" <<<"$LOGS")"
done
for s in "${SECRETS[@]}"; do
  expect_eq "secret ${s:0:12}... not in any log" 0 "$(grep -cF -- "$s" <<<"$LOGS")"
  if [[ $s == *.*.* ]]; then
    expect_eq "token signature ${s##*.} not in any log" 0 "$(grep -cF -- "${s##*.}" <<<"$LOGS")"
    expect_eq "token payload of ${s:0:12}... not in any log" 0 "$(grep -cF -- "$(cut -d. -f2 <<<"$s")" <<<"$LOGS")"
  fi
done
expect_eq "the signing key (hex) not in any log" 0 "$(grep -ciF -- "$KEY_HEX" <<<"$LOGS")"
finish

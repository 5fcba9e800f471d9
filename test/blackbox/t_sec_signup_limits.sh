#!/usr/bin/env bash
# Stops resource exhaustion and junk accounts through POST /signup (OWASP ASVS 2.1, 5.1): every
# field limit is checked before any hashing — username length and characters, password length
# (a 1 MB or 60 KB password costs no argon2 work: timed against a real sign-up with a deliberately
# slow hash), email format, fullname length and control characters, body size (413) and JSON
# depth (400) — with a 400 that names the field, and no account is created.
source "$(dirname "$0")/harness.sh"
export AUTHD_ARGON2_ITERATIONS=30   # makes one hash take a few hundred ms: a hash is easy to see
stack_start

body() { jq -nc --arg u "$1" --arg p "$2" --arg f "$3" --arg e "$4" '{username:$u,password:$p,fullname:$f,email:$e}'; }
# signup_file FILE: POST /signup with FILE as body; sets ELAPSED (ms).
signup_file() {
  local t0; t0=$(now_ms)
  http POST /signup -H 'Content-Type: application/json' --data-binary "@$1"
  ELAPSED=$(( $(now_ms) - t0 ))
}
make_temp_dir TMPB limits
signup() { body "$@" >"$TMPB/body"; signup_file "$TMPB/body"; }

# refused DESC FIELD-REGEX: the last answer was 400 naming the field, quickly.
refused() {
  expect_eq "$1: 400" 400 "$STATUS"
  expect_match "$1: the error names the field" "$2" "$(json .error 2>/dev/null)"
  expect_eq "$1: no token" '' "$(header token)"
  if ((ELAPSED * 2 < CONTROL_MS)); then pass "$1: answered in ${ELAPSED} ms, no hash (a sign-up takes ${CONTROL_MS} ms)"
  else fail "$1: took ${ELAPSED} ms, a real sign-up (one hash) takes ${CONTROL_MS} ms: was a hash computed?"; fi
}

step "control: valid sign-ups (their time is one hash)"
times=()
for u in control1 control2 control3; do
  signup "$u" 'a fine password' 'Control Person' 'control@example.com'
  expect_eq "control sign-up $u: 201" 201 "$STATUS"
  times+=("$ELAPSED")
done
CONTROL_MS=$(printf '%s\n' "${times[@]}" | sort -n | sed -n 2p)
echo "   a sign-up with one hash takes ${CONTROL_MS} ms (median of ${times[*]})"
signup "$(printf 'u%.0s' {1..64})" 'pw' 'F' 'f@x'
expect_eq "a 64-character username is accepted" 201 "$STATUS"
signup "a.b_c@d+e-F9" 'pw' "$(printf 'n%.0s' {1..256})" 'x@y'
expect_eq "every allowed username character, a 256-byte fullname" 201 "$STATUS"

step "username: length and characters"
signup "$(printf 'u%.0s' {1..65})" 'pw' 'F' 'f@x'; refused "65-character username" '^username'
signup '' 'pw' 'F' 'f@x'; refused "empty username" '^username'
for bad in 'a b' 'a/b' '../etc' 'al:ice' '<script>' 'é' "a'b" 'a"b' 'a;b' $'a\tb'; do
  signup "$bad" 'pw' 'F' 'f@x'; refused "username ${bad@Q}" '^username'
done

step "password: maximum length without hashing"
signup pwlong "$(head -c 1025 /dev/zero | tr '\0' p)" 'F' 'f@x'; refused "1025-byte password" '^password'
signup pwlong "$(head -c 60000 /dev/zero | tr '\0' p)" 'F' 'f@x'; refused "60 KB password" '^password'
signup pwempty '' 'F' 'f@x'; refused "empty password" '^password'
{ printf '{"username":"pwhuge","password":"'; head -c 1048576 /dev/zero | tr '\0' p; printf '","fullname":"F","email":"f@x"}'; } >"$TMPB/huge"
signup_file "$TMPB/huge"
expect_match "1 MB password: refused (413 or 400)" '^(413|400)$' "$STATUS"
# Uploading 1 MB itself takes time on a loaded (or sanitized) machine: judged
# against one whole hash, not half of one.
if ((ELAPSED < CONTROL_MS)); then pass "1 MB password: answered in ${ELAPSED} ms, no hash"
else fail "1 MB password took ${ELAPSED} ms (one hash: ${CONTROL_MS} ms)"; fi

step "password at sign-in: an over-long one is refused without hashing"
t0=$(now_ms); http POST /signin -u "control1:$(head -c 4000 /dev/zero | tr '\0' p)"; ELAPSED=$(( $(now_ms) - t0 ))
expect_eq "4000-byte password at sign-in: 500 Invalid Login" '500 {"error":"Invalid Login"}' "$STATUS $BODY"
if ((ELAPSED * 2 < CONTROL_MS)); then pass "4000-byte sign-in password: ${ELAPSED} ms, no hash"
else fail "4000-byte sign-in password took ${ELAPSED} ms (one hash: ${CONTROL_MS} ms)"; fi

step "email format"
for bad in 'no-at-sign' '@example.com' 'alice@' 'a@b@c' 'a b@c.d' $'a@b\n.c' ''; do
  signup emailcase 'pw' 'F' "$bad"; refused "email ${bad@Q}" '^email'
done
signup emaillong 'pw' 'F' "$(printf 'e%.0s' {1..250})@x.io"; refused "255-byte email" '^email'

step "fullname length and control characters"
signup fnlong 'pw' "$(printf 'n%.0s' {1..257})" 'f@x'; refused "257-byte fullname" '^fullname'
signup fnctrl 'pw' $'Eve\r\nSet-Cookie: x=1' 'f@x'; refused "fullname with CR LF" '^fullname'
signup fnnul 'pw' $'Eve\x01' 'f@x'; refused "fullname with a control character" '^fullname'

step "fields: required, strings"
for f in username password fullname email; do
  jq -c "del(.$f)" <<<"$(body missing pw F f@x)" >"$TMPB/b"; signup_file "$TMPB/b"; refused "missing $f" "^$f is required"
  jq -c ".$f = 12" <<<"$(body typed pw F f@x)" >"$TMPB/b"; signup_file "$TMPB/b"; refused "$f as a number" "^$f must be a string"
done
printf '%s' '{"username":"dup","username":"admin","password":"pw","fullname":"F","email":"f@x"}' >"$TMPB/b"
signup_file "$TMPB/b"; expect_eq "duplicate member: 400" 400 "$STATUS"

step "body size: 413"
head -c 70000 /dev/zero | tr '\0' ' ' | sed 's/^/{"username":"big","password":"pw","fullname":"F","email":"f@x","pad":"/; s/$/"}/' >"$TMPB/b"
signup_file "$TMPB/b"
expect_eq "70 KB body: 413" 413 "$STATUS"
authd_stop
export AUTHD_MAX_BODY_BYTES=2048
authd_start || fail "authd restarts with max_body_bytes=2048"
jq -c --arg pad "$(head -c 3000 /dev/zero | tr '\0' x)" '.pad = $pad' <<<"$(body big pw F f@x)" >"$TMPB/b"
signup_file "$TMPB/b"
expect_eq "3 KB body over max_body_bytes=2048: 413 from authd" '413 {"error":"Payload Too Large"}' "$STATUS $BODY"
signup smallok 'pw' 'F' 'f@x'
expect_eq "a small body still passes" 201 "$STATUS"

step "JSON depth: 400"
nest() { local n=$1 o c; o=$(printf '[%.0s' $(seq "$n")); c=$(printf ']%.0s' $(seq "$n")); printf '{"username":"deep","password":"pw","fullname":"F","email":"f@x","x":%s1%s}' "$o" "$c"; }
nest 15 >"$TMPB/b"; signup_file "$TMPB/b"
expect_eq "depth 16 (the default limit) is accepted" 201 "$STATUS"
nest 16 >"$TMPB/b"; signup_file "$TMPB/b"
expect_eq "depth 17: 400" 400 "$STATUS"
expect_match "depth 17: the error says nesting" 'nested|depth' "$(json .error)"
head -c 1500 /dev/zero | tr '\0' '[' >"$TMPB/b"; signup_file "$TMPB/b"
expect_eq "1500 open brackets: 400" 400 "$STATUS"

step "no account was created by any refused request"
expected=$(printf '%s\n' a.b_c@d+e-F9 control1 control2 control3 deep smallok "$(printf 'u%.0s' {1..64})" | sort)
expect_eq "authctl list shows only the accepted sign-ups" "$expected" "$(account_names)"
http GET /records
expect_eq "authd still serves" 401 "$STATUS"
finish

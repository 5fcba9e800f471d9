#!/usr/bin/env bash
# Stops forged and confused tokens at the HTTP boundary (RFC 8725): knowing the signing key (set
# inline here, so the test can MAC anything), we hand-craft tokens that differ from a valid one in
# exactly one respect and send them to a guarded route — alg none/HS512, an OAuth state token
# (typ authd-state+jwt) carrying a real user's sub, expired/missing exp, future nbf, foreign iss or
# aud, duplicate members, crit, padding, and keys smuggled in jku/x5u/jwk/kid headers. Only the
# control passes, and authd never connects to the URLs the headers name (a local listener
# records every connection).
source "$(dirname "$0")/harness.sh"
KEY_HEX=$(head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n')
export AUTHD_SIGNING_KEY=$KEY_HEX
stack_start
need_tools node

make_temp_dir WORK forgery
# A listener that records every connection (one line each) in $WORK/connections.
node -e '
  const fs = require("fs"), net = require("net");
  const server = net.createServer(s => { fs.appendFileSync(process.argv[1] + "/connections", "connection\n"); s.destroy(); });
  server.listen(0, "127.0.0.1", () => fs.writeFileSync(process.argv[1] + "/port", String(server.address().port)));
' "$WORK" &
LISTENER=$!
at_exit stop_pid "$LISTENER" "the listener"
for _ in $(seq 50); do [[ -s $WORK/port ]] && break; sleep 0.1; done
LPORT=$(cat "$WORK/port" 2>/dev/null)
expect_match "setup: the listener runs" '^[0-9]+$' "$LPORT"
: >"$WORK/connections"

# forge HEADER-JSON PAYLOAD-JSON [KEY-HEX] [PAD]: a compact JWS MACed with KEY (ours by default).
forge() {
  node -e '
    const [h, p, k, pad] = process.argv.slice(1);
    const b = s => Buffer.from(s).toString("base64url") + (pad ? "=".repeat((4 - Buffer.from(s).toString("base64url").length % 4) % 4) : "");
    const input = b(h) + "." + b(p);
    const mac = require("crypto").createHmac("sha256", Buffer.from(k, "hex")).update(input).digest("base64url");
    process.stdout.write(input + "." + mac);
  ' "$1" "$2" "${3-$KEY_HEX}" "${4:-}"
}

signup alice 'alice password'
expect_eq "setup: signup alice" 201 "$STATUS"
SUB=$(json .user._id)
NOW=$(date +%s)
H='{"alg":"HS256","typ":"at+jwt"}'
P=$(jq -nc --arg sub "$SUB" --argjson now "$NOW" '{iss:"authd",aud:"authd",sub:$sub,name:"alice",iat:$now,exp:($now+600),jti:"j"}')
ATTACKER_HEX=$(printf 'attacker-key-attacker-key-attacker' | od -An -tx1 | tr -d ' \n')

accepted() { http GET /records -H "Authorization: Bearer $2"; expect_eq "$1: 200" 200 "$STATUS"; }
refused() {
  http GET /records -H "Authorization: Bearer $2"
  expect_eq "$1: 401 invalid_token" '401 Bearer realm="authd", error="invalid_token"' "$STATUS $(header WWW-Authenticate)"
}
with() { jq -c "$1" <<<"$2"; }   # with JQ-EXPR JSON

step "control: a hand-made token with our key passes"
accepted "forged with our key, standard header" "$(forge "$H" "$P")"

step "algorithm"
refused "alg none, empty signature" "$(forge '{"alg":"none","typ":"at+jwt"}' "$P" | cut -d. -f1-2)."
refused "alg none, our MAC" "$(forge '{"alg":"none","typ":"at+jwt"}' "$P")"
refused "alg HS512, our HS256 MAC" "$(forge '{"alg":"HS512","typ":"at+jwt"}' "$P")"
refused "alg hs256 (case)" "$(forge '{"alg":"hs256","typ":"at+jwt"}' "$P")"
refused "alg RS256" "$(forge '{"alg":"RS256","typ":"at+jwt"}' "$P")"

step "token type"
refused "typ authd-state+jwt (an OAuth state token) with alice's sub" "$(forge '{"alg":"HS256","typ":"authd-state+jwt"}' "$P")"
refused "typ JWT (e.g. an ID token)" "$(forge '{"alg":"HS256","typ":"JWT"}' "$P")"
refused "no typ" "$(forge '{"alg":"HS256"}' "$P")"

step "claims"
refused "expired" "$(forge "$H" "$(with ".exp = $NOW - 1" "$P")")"
refused "exp in 1970" "$(forge "$H" "$(with '.exp = 1' "$P")")"
refused "no exp" "$(forge "$H" "$(with 'del(.exp)' "$P")")"
refused "exp as a string" "$(forge "$H" "$(with '.exp |= tostring' "$P")")"
refused "nbf in the future" "$(forge "$H" "$(with ".nbf = $NOW + 300" "$P")")"
refused "foreign iss" "$(forge "$H" "$(with '.iss = "evil"' "$P")")"
refused "no iss" "$(forge "$H" "$(with 'del(.iss)' "$P")")"
refused "foreign aud" "$(forge "$H" "$(with '.aud = "other-api"' "$P")")"
refused "no aud" "$(forge "$H" "$(with 'del(.aud)' "$P")")"
refused "no sub" "$(forge "$H" "$(with 'del(.sub)' "$P")")"

step "format"
refused "duplicate alg in the header" "$(forge '{"alg":"none","alg":"HS256","typ":"at+jwt"}' "$P")"
refused "duplicate sub in the payload" "$(forge "$H" "${P%\}},\"sub\":\"ffffffffffffffffffffffff\"}")"
refused "crit header" "$(forge '{"alg":"HS256","typ":"at+jwt","crit":["exp"]}' "$P")"
TOK=$(forge "$H " "$P" "$KEY_HEX" pad)
http GET /records -H "Authorization: Bearer $TOK"
expect_match "padded header and payload (and MAC over them): refused (400 or 401)" '^40[01]$' "$STATUS"
TOK=$(forge "$H" "$P")
refused "padding after the signature" "$TOK="
refused "header is an array" "$(forge '["HS256"]' "$P")"
TOK=$(forge "$H" "$P")
refused "four parts" "$TOK.$(cut -d. -f3 <<<"$TOK")"

step "keys named or embedded in the header are never used or fetched"
JKU=http://127.0.0.1:$LPORT/jwks.json
accepted "jku + x5u to the listener, our key (the header is inert)" \
  "$(forge "{\"alg\":\"HS256\",\"typ\":\"at+jwt\",\"jku\":\"$JKU\",\"x5u\":\"http://127.0.0.1:$LPORT/cert.pem\"}" "$P")"
refused "jku to the listener, attacker's key" \
  "$(forge "{\"alg\":\"HS256\",\"typ\":\"at+jwt\",\"jku\":\"$JKU\",\"kid\":\"k1\"}" "$P" "$ATTACKER_HEX")"
refused "x5u to the listener, attacker's key" \
  "$(forge "{\"alg\":\"HS256\",\"typ\":\"at+jwt\",\"x5u\":\"http://127.0.0.1:$LPORT/c.pem\"}" "$P" "$ATTACKER_HEX")"
JWK_K=$(printf 'attacker-key-attacker-key-attacker' | base64 -w0 | tr '+/' '-_' | tr -d '=')
refused "jwk with the attacker's key embedded" \
  "$(forge "{\"alg\":\"HS256\",\"typ\":\"at+jwt\",\"jwk\":{\"kty\":\"oct\",\"k\":\"$JWK_K\"}}" "$P" "$ATTACKER_HEX")"
refused "kid /dev/null, MACed with an empty key" "$(forge '{"alg":"HS256","typ":"at+jwt","kid":"../../../../dev/null"}' "$P" '')"
accepted "kid with a path, our key (kid selects nothing)" "$(forge '{"alg":"HS256","typ":"at+jwt","kid":"../../etc/passwd"}' "$P")"
sleep 0.5
expect_eq "authd never connected to the URLs in jku/x5u" 0 "$(grep -c connection "$WORK/connections")"
# Control for the listener itself.
curl -s --max-time 2 -o /dev/null "http://127.0.0.1:$LPORT/" || true
sleep 0.3
expect_eq "control: the listener does record a connection" 1 "$(grep -c connection "$WORK/connections")"
finish

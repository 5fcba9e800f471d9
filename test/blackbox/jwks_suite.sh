# test/blackbox/jwks_suite.sh - the public-key token checks, shared by
# t_token_jwks_eddsa.sh and t_token_jwks_es256.sh (set JWKS_ALG, then source).
# authd's tokens are verified against its published JWKS by two verifiers we
# did not write: PyJWT (Debian python3-jwt, run by /usr/bin/python3) and npm
# jose (test/jwks, installed with `npm ci` when missing). Tampered tokens, an
# unknown kid, alg switching (HS256 keyed with the public key, none) and the
# tokens of a retired key fail; a rotation takes effect at once.
export AUTHD_TOKEN_ALGORITHM=$JWKS_ALG
source "$(dirname "${BASH_SOURCE[0]}")/harness.sh"

need_jwks_verifiers
stack_start

b64url() { base64 -w0 | tr '+/' '-_' | tr -d '='; }
b64url_decode() { local s; s=$(printf '%s' "$1" | tr '_-' '/+'); case $(( ${#s} % 4 )) in 2) s+='==' ;; 3) s+='=' ;; esac; printf '%s' "$s" | base64 -d 2>/dev/null; }
basic() { printf 'Authorization: Basic %s' "$(printf '%s' "$1" | base64 -w0)"; }
signin() { http POST /signin -H "$(basic "$1:$2")"; }
records_status() { http GET /records -H "Authorization: Bearer $1"; printf '%s' "$STATUS"; }
JWKS_URL=$BASE_URL/.well-known/jwks.json
by_jose() { (cd "$JWKS_DIR" && NO_PROXY='*' node verify.mjs "$JWKS_URL" "$1" authd authd "$JWKS_ALG") 2>&1; }
by_pyjwt() { no_proxy='*' NO_PROXY='*' $PY "$JWKS_DIR/verify.py" "$JWKS_URL" "$1" authd authd "$JWKS_ALG" 2>&1; }
kid_of() { b64url_decode "${1%%.*}" | jq -r .kid; }
all_refuse() { # DESC TOKEN: authd, jose and PyJWT all refuse it
  expect_eq "$1: authd -> 401" 401 "$(records_status "$2")"
  expect_match "$1: jose refuses" '^fail' "$(by_jose "$2")"
  expect_match "$1: PyJWT refuses" '^fail' "$(by_pyjwt "$2")"
}

http POST /signup -H 'Content-Type: application/json' --data-binary '{"username":"alice","password":"alice password","fullname":"A","email":"a@example.com"}'
expect_eq "setup: signup" 201 "$STATUS"
signin alice 'alice password'; T1=$(json .token)
ALICE_ID=$(b64url_decode "$(cut -d. -f2 <<<"$T1")" | jq -r .sub)

step "the published keys"
http GET /.well-known/jwks.json
expect_eq "jwks -> 200" 200 "$STATUS"
expect_match "jwks: Cache-Control" 'max-age=[0-9]+' "$(header Cache-Control)"
expect_eq "jwks: one key" 1 "$(json '.keys | length')"
K1=$(kid_of "$T1")
expect_eq "the token's kid is the published key" "$K1" "$(json '.keys[0].kid')"
expect_eq "the key is pinned to $JWKS_ALG" "$JWKS_ALG" "$(json '.keys[0].alg')"
expect_eq "no private member d" null "$(json '.keys[0].d')"
expect_eq "the token header" "{\"alg\":\"$JWKS_ALG\",\"typ\":\"at+jwt\",\"kid\":\"$K1\"}" "$(b64url_decode "${T1%%.*}" | command jq -c .)"  # jq 1.6: keeps the key order (assert.sh)
http GET /.well-known/openid-configuration
expect_eq "openid-configuration -> 200" 200 "$STATUS"
expect_eq "openid-configuration: issuer" authd "$(json .issuer)"
expect_eq "openid-configuration: jwks_uri" "$JWKS_URL" "$(json .jwks_uri)"

step "independent verifiers accept authd's token"
expect_eq "jose verifies it" "ok $ALICE_ID $K1" "$(by_jose "$T1")"
expect_eq "PyJWT verifies it" "ok $ALICE_ID $K1" "$(by_pyjwt "$T1")"
expect_eq "authd accepts it" 200 "$(records_status "$T1")"

step "tampering, wrong kid, alg switching"
IFS=. read -r H P S <<<"$T1"
OTHER_PAYLOAD=$(b64url_decode "$P" | jq -c '.exp += 3600' | b64url)
all_refuse "payload changed, signature kept" "$H.$OTHER_PAYLOAD.$S"
c=${S:10:1}; if [[ $c == A ]]; then r=B; else r=A; fi
all_refuse "signature changed" "$H.$P.${S:0:10}${r}${S:11}"
WRONG_KID=$(jq -nc --arg a "$JWKS_ALG" '{alg:$a,typ:"at+jwt",kid:"no-such-key"}' | b64url)
all_refuse "unknown kid" "$WRONG_KID.$P.$S"
# The classic confusion: HS256 keyed with the public key's bytes.
PUB=$(json '.keys[0].x')
HS_HEADER=$(jq -nc --arg k "$K1" '{alg:"HS256",typ:"at+jwt",kid:$k}' | b64url)
HS_SIG=$(printf '%s' "$HS_HEADER.$P" | openssl dgst -sha256 -mac HMAC -macopt "key:$PUB" -binary | b64url)
all_refuse "alg switched to HS256 with the public key as secret" "$HS_HEADER.$P.$HS_SIG"
NONE_HEADER=$(jq -nc --arg k "$K1" '{alg:"none",typ:"at+jwt",kid:$k}' | b64url)
all_refuse "alg none" "$NONE_HEADER.$P."
OTHER_ALG=$([[ $JWKS_ALG == EdDSA ]] && echo ES256 || echo EdDSA)
SW_HEADER=$(jq -nc --arg a "$OTHER_ALG" --arg k "$K1" '{alg:$a,typ:"at+jwt",kid:$k}' | b64url)
all_refuse "alg switched to $OTHER_ALG" "$SW_HEADER.$P.$S"

step "rotation: new tokens use the new key at once, the old key keeps verifying"
K2=$(authctl key rotate); expect_match "authctl key rotate prints the kid" '^[0-9a-f]+-[0-9a-f]+$' "$K2"
signin alice 'alice password'; T2=$(json .token)
expect_eq "a new token names the new key" "$K2" "$(kid_of "$T2")"
http GET /.well-known/jwks.json
expect_eq "jwks: both keys" 2 "$(json '.keys | length')"
expect_eq "the new token: jose" "ok $ALICE_ID $K2" "$(by_jose "$T2")"
expect_eq "the new token: PyJWT" "ok $ALICE_ID $K2" "$(by_pyjwt "$T2")"
expect_eq "the new token: authd" 200 "$(records_status "$T2")"
expect_eq "the old token still: authd" 200 "$(records_status "$T1")"
expect_eq "the old token still: jose" "ok $ALICE_ID $K1" "$(by_jose "$T1")"
expect_match "key list marks the current key" "^$K2 \\*\$" "$(authctl key list | grep "^$K2")"
http GET /records -H "Authorization: Bearer $T1"
expect_eq "the old token (now cached) still passes" 200 "$STATUS"

step "retirement: the old key's tokens fail everywhere"
expect_eq "authctl key retire" "retired $K1" "$(authctl key retire)"
expect_ne "the current key cannot be retired" 0 "$(authctl key retire "$K2" >/dev/null 2>&1; echo $?)"
refused=no
for _ in 1 2 3 4 5 6; do  # processes look at the keys at most once a second
  [[ $(records_status "$T1") == 401 ]] && { refused=yes; break; }
  sleep 0.5
done
expect_eq "a token of the retired key: authd -> 401 (even from the cache)" yes "$refused"
expect_match "a token of the retired key: jose refuses" '^fail' "$(by_jose "$T1")"
expect_match "a token of the retired key: PyJWT refuses" '^fail' "$(by_pyjwt "$T1")"
http GET /.well-known/jwks.json
expect_eq "jwks: only the new key" "$K2" "$(json '[.keys[].kid] | join(",")')"
expect_eq "the new key's token still works" 200 "$(records_status "$T2")"
if [[ ${AUTHD_STORE:-lmdb} == postgresql ]]; then
  # The keys live in the database (shared by every node), not in files.
  expect_eq "no key directory with PostgreSQL" no "$(yesno test -e "$AUTHD_STATE_DIR/keys")"
  expect_eq "the key is in the database" "$K2" \
    "$(pg_psql "$PG_BB_CLUSTER" "$PG_BB_DB" -At -c "SELECT convert_from(key, 'UTF8') FROM entries WHERE ns = 'signing_keys'")"
else
  expect_eq "key files are private" 600 "$(stat -c %a "$AUTHD_STATE_DIR/keys/$K2.pem")"
  expect_eq "the key directory is private" 700 "$(stat -c %a "$AUTHD_STATE_DIR/keys")"
fi
if grep -q -- '-----BEGIN' "$STATE_DIR"/*.log 2>/dev/null; then fail "a key appeared in a log"; else pass "no key in the logs"; fi

finish

#!/usr/bin/env bash
# Public-key tokens (token_algorithm = EdDSA) on two front nodes that share
# only a PostgreSQL database (each node has a state directory of its own):
# the signing keys live in the database, so
#   - a token signed on A verifies on B, and both publish the same JWKS;
#   - after `authctl key rotate` (pointed at the database), the next token
#     from either node carries the new kid and works on the other, and the
#     old token keeps working on both; both JWKS list both kids;
#   - after `authctl key retire`, the old token fails on both within 2 s
#     (although both had it in their verified-token cache);
#   - a restarted node makes no key of its own; no key byte reaches a node's
#     state directory or logs.
source "$(dirname "$0")/harness.sh"
source "$_HARNESS_DIR/pg_nodes.sh"

pg_nodes_database

export AUTHD_TOKEN_ALGORITHM=EdDSA

pg_nodes_two
pg_ctl_dir

kid_of() { jwt_header "$1" | jq -r .kid; }
records_on() { curl --silent --noproxy '*' --max-time 10 -o /dev/null -w '%{http_code}' -H "Authorization: Bearer $2" "$1/records"; }
signin_on() { # NODE_URL: sets TOKEN
  http POST "$1/signin" -H "$(basic alice:alice-password-1)"
  expect_status 200 "sign-in on $1"
  TOKEN=$(json .token)
}
jwks_kids() { curl --silent --noproxy '*' --max-time 10 "$1/.well-known/jwks.json" | jq -c '[.keys[].kid] | sort'; }
key_rows() { pg_psql "$PG" authd -At -c "SELECT count(*) FROM entries WHERE ns = 'signing_keys'"; }

step "one key, made once, in the database"
expect_eq "one signing key in the database" 1 "$(key_rows)"
expect_eq "it is a PKCS#8 PEM" 1 "$(pg_psql "$PG" authd -At -c \
  "SELECT count(*) FROM entries WHERE ns = 'signing_keys' AND convert_from(value, 'UTF8') LIKE '-----BEGIN PRIVATE KEY-----%'")"
expect_eq "no key directory on node A" no "$(yesno test -e "${NODE_DIR[a]}/keys")"
expect_eq "no key directory on node B" no "$(yesno test -e "${NODE_DIR[b]}/keys")"

step "a token from A works on B, one JWKS"
http POST "$A/signup" -H 'Content-Type: application/json' --data-binary "$(signup_body alice alice-password-1)"
expect_status 201 "sign-up on A"
signin_on "$A"; T1=$TOKEN
K1=$(kid_of "$T1")
expect_match "the token names a kid" '^[0-9a-z-]+$' "$K1"
expect_eq "alg EdDSA" EdDSA "$(jwt_header "$T1" | jq -r .alg)"
expect_eq "A's token on B" 200 "$(records_on "$B" "$T1")"
expect_eq "A's token on A" 200 "$(records_on "$A" "$T1")"
expect_eq "A publishes the key" "[\"$K1\"]" "$(jwks_kids "$A")"
expect_eq "B publishes the same key" "[\"$K1\"]" "$(jwks_kids "$B")"
signin_on "$B"
expect_eq "B signs with it too" "$K1" "$(kid_of "$TOKEN")"

step "authctl key rotate (on the database): new tokens use the new key at once on every node"
K2=$(ctl key rotate 2>&1)
expect_eq "authctl key rotate" 0 "$?"
expect_match "it prints the new kid" '^[0-9a-z-]+$' "$K2"
expect_ne "a new kid" "$K1" "$K2"
expect_eq "two keys in the database" 2 "$(key_rows)"
expect_eq "authctl key list" "$(printf '%s\n%s *' "$K1" "$K2" | sort)" "$(ctl key list 2>&1 | sort)"
signin_on "$B"; T2=$TOKEN
expect_eq "the next token from B carries the new kid" "$K2" "$(kid_of "$T2")"
expect_eq "B's new token works on A" 200 "$(records_on "$A" "$T2")"
expect_eq "B's new token works on B" 200 "$(records_on "$B" "$T2")"
signin_on "$A"; T3=$TOKEN
expect_eq "the next token from A carries the new kid" "$K2" "$(kid_of "$T3")"
expect_eq "A's new token works on B" 200 "$(records_on "$B" "$T3")"
expect_eq "the old token still works on A" 200 "$(records_on "$A" "$T1")"
expect_eq "the old token still works on B" 200 "$(records_on "$B" "$T1")"
expect_eq "A's JWKS lists both kids" "$(jq -nc --arg a "$K1" --arg b "$K2" '[$a, $b] | sort')" "$(jwks_kids "$A")"
expect_eq "B's JWKS lists both kids" "$(jq -nc --arg a "$K1" --arg b "$K2" '[$a, $b] | sort')" "$(jwks_kids "$B")"

step "a restarted node keeps signing with the database's current key"
pg_node_authd_restart a || fail "authd of node A restarted"
signin_on "$A"
expect_eq "after the restart A signs with the current key" "$K2" "$(kid_of "$TOKEN")"
expect_eq "still two keys in the database" 2 "$(key_rows)"
expect_eq "the old token works on the restarted A" 200 "$(records_on "$A" "$T1")"

step "authctl key retire: the old token fails on both nodes within 2 s"
records_on "$B" "$T1" >/dev/null   # both nodes have it in their verified-token cache
records_on "$A" "$T1" >/dev/null
expect_match "authctl key retire the current key is refused" 'current key' "$(ctl key retire "$K2" 2>&1)"
expect_eq "authctl key retire" "retired $K1" "$(ctl key retire 2>&1)"
start=$EPOCHREALTIME
for node in "$A" "$B"; do
  while got=$(records_on "$node" "$T1"); [[ $got != 401 ]]; do
    ms=$(( (${EPOCHREALTIME/./} - ${start/./}) / 1000 ))
    ((ms > 2000)) && break
    sleep 0.05
  done
  ms=$(( (${EPOCHREALTIME/./} - ${start/./}) / 1000 ))
  expect_eq "the retired key's token is refused on $node (after $ms ms)" 401 "$got"
done
((ms <= 2000)) && pass "refused everywhere within 2 s ($ms ms)" || fail "refused everywhere within 2 s ($ms ms)"
expect_eq "the new token still works on A" 200 "$(records_on "$A" "$T2")"
expect_eq "the new token still works on B" 200 "$(records_on "$B" "$T2")"
expect_eq "A's JWKS lists only the current kid" "[\"$K2\"]" "$(jwks_kids "$A")"
expect_eq "B's JWKS lists only the current kid" "[\"$K2\"]" "$(jwks_kids "$B")"
expect_eq "one key left in the database" 1 "$(key_rows)"

step "no key bytes in the nodes' state directories or logs"
for name in a b; do
  expect_eq "node $name: no private key in its directory or logs" "" \
    "$(grep -rl 'PRIVATE KEY' "${NODE_DIR[$name]}" 2>/dev/null)"
done
expect_eq "authctl's directory holds no key either" no "$(yesno test -e "$CTL_DIR/keys")"

finish

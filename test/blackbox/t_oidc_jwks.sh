#!/usr/bin/env bash
# The OpenID provider's ID-token keys (oidc_provider = true): an RS256 key
# (id_token_algorithm's default, the algorithm OpenID Connect requires of
# providers) is made once, kept 0600 in <state_dir>/id-token-keys, published in
# /.well-known/jwks.json beside the token keys, and PyJWT (a JOSE library
# nobody here wrote) reads it as an RSA key of at least 2048 bits. Without
# oidc_provider (and HS256 tokens) there is no JWKS at all; id_token_algorithm
# ES256 publishes an EC key instead. With refresh_token_ttl 0 (the default)
# discovery offers neither offline_access nor the refresh_token grant.
source "$(dirname "$0")/harness.sh"
export AUTHD_OIDC_PROVIDER=true
stack_start

step "discovery without refresh tokens"
http GET /.well-known/openid-configuration
expect_status 200 "discovery"
expect_json "no offline_access while refresh_token_ttl is 0" '.scopes_supported | join(" ")' "openid profile email roles"
expect_json "no refresh_token grant" '.grant_types_supported | index("refresh_token") == null' true

step "RS256 beside the HS256 tokens"
http GET /.well-known/jwks.json
expect_status 200 "a JWKS with oidc_provider on"
expect_json "one key" '.keys | length' 1
expect_json "RSA" '.keys[0].kty' RSA
expect_json "RS256" '.keys[0].alg' RS256
expect_json "use sig" '.keys[0].use' sig
expect_json "e" '.keys[0].e' AQAB
KID=$(json '.keys[0].kid')
PYJWT=$(/usr/bin/python3 - "$BODY" <<'PY'
import json, sys, jwt
key = jwt.PyJWK(json.loads(sys.argv[1])["keys"][0])
print(type(key.Algorithm).__name__, key.key.key_size)
PY
)
expect_match "PyJWT reads an RS256 key of 2048+ bits" '^RSAAlgorithm (2048|3072|4096)$' "$PYJWT"
KEYDIR=$STATE_DIR/id-token-keys
if [[ -d $KEYDIR ]]; then   # LMDB; PostgreSQL keeps the keys in the database
  expect_eq "key directory 0700" 700 "$(stat -c %a "$KEYDIR")"
  expect_eq "key file 0600" 600 "$(stat -c %a "$KEYDIR/$KID.pem")"
fi

step "the same key after a restart"
authd_stop
authd_start
http GET /.well-known/jwks.json
expect_json "same kid" '.keys[0].kid' "$KID"

step "without oidc_provider, HS256 tokens publish nothing"
authd_stop
export AUTHD_OIDC_PROVIDER=false
authd_start
http GET /.well-known/jwks.json
expect_status 404 "no JWKS"

step "id_token_algorithm ES256"
authd_stop
export AUTHD_OIDC_PROVIDER=true AUTHD_ID_TOKEN_ALGORITHM=ES256
authd_start
http GET /.well-known/jwks.json
expect_json "an EC key now" '.keys[0].kty + " " + .keys[0].alg + " " + .keys[0].crv' "EC ES256 P-256"
finish

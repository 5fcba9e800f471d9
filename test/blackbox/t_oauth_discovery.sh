#!/usr/bin/env bash
# Proves OpenID Connect discovery against a real provider on loopback whose issuer identifier
# ends in a slash (http://127.0.0.1:P/, as Auth0's do; docs/oauth.md names Auth0 as a generic OIDC
# provider):
#   slash     AUTHD_OAUTH_<NAME>_ISSUER set to the issuer exactly as the provider publishes it
#             (with the slash) -> the whole flow works (discovery document's issuer and the ID
#             token's iss are compared with the configured issuer);
#   other     an issuer URL that reaches the provider but is not its issuer identifier
#             (http://localhost:P instead of http://127.0.0.1:P/) -> 502 at the start, no
#             cookie (OpenID Connect Discovery §4.3: the document must name the issuer asked);
#   explicit  explicit authorization/token/jwks URLs plus the issuer (with its slash) -> works
#             without discovery, the ID token's iss compared with the issuer as configured;
#   jwksdown  discovery fine, but jwks_url on a closed port -> 502 at completion, no account.
source "$(dirname "$0")/harness.sh"
source "$(dirname "$0")/oauth_provider.sh"

provider_start --issuer-trailing-slash
CLOSED_PORT=$(pick_port)
export AUTHD_OAUTH_PROVIDERS=slash,other,explicit,jwksdown
for p in SLASH OTHER EXPLICIT JWKSDOWN; do
  export "AUTHD_OAUTH_${p}_CLIENT_ID=client-${p,,}"
  export "AUTHD_OAUTH_${p}_CLIENT_SECRET=secret-${p,,}"
  export "AUTHD_OAUTH_${p}_REDIRECT_URI=http://127.0.0.1:@PORT@/oauth"
done
export AUTHD_OAUTH_SLASH_ISSUER=$PROVIDER_ISSUER
export AUTHD_OAUTH_OTHER_ISSUER=http://localhost:$PROVIDER_PORT
export AUTHD_OAUTH_EXPLICIT_ISSUER=$PROVIDER_ISSUER
export AUTHD_OAUTH_EXPLICIT_AUTHORIZATION_URL=$PROVIDER_URL/authorize
export AUTHD_OAUTH_EXPLICIT_TOKEN_URL=$PROVIDER_URL/token
export AUTHD_OAUTH_EXPLICIT_JWKS_URL=$PROVIDER_URL/jwks
export AUTHD_OAUTH_JWKSDOWN_ISSUER=$PROVIDER_ISSUER
export AUTHD_OAUTH_JWKSDOWN_JWKS_URL=http://127.0.0.1:$CLOSED_PORT/jwks
export AUTHD_OAUTH_CONNECT_TIMEOUT_MS=1000
export AUTHD_OAUTH_TIMEOUT_MS=3000
stack_start

expect_eq "setup: the provider's discovery document names the issuer with its slash" "$PROVIDER_ISSUER" \
  "$(curl -s --noproxy '*' "$PROVIDER_URL/.well-known/openid-configuration" | jq -r .issuer)"

for p in slash explicit; do
  step "$p"
  provider_set_identity sub="sub-$p" preferred_username="user-$p"
  oauth_new_browser
  oauth_start "?provider=$p"
  expect_status 302 "$p: start"
  expect_match "$p: to the provider's authorization endpoint" "^$PROVIDER_URL/authorize\\?" "$AUTHORIZE_URL"
  if [[ $STATUS == 302 ]]; then
    oauth_authorize
    oauth_callback
  fi
  expect_status 200 "$p: sign-in completes"
  expect_eq "$p: account" "user-$p" "$(json .user.username 2>/dev/null)"
done

step "other: an issuer URL that is not the provider's issuer identifier"
BEFORE=$(accounts)
oauth_new_browser
oauth_start "?provider=other"
expect_status 502 "other: start refused"
expect_eq "other: Bad Gateway" "Bad Gateway" "$(json .error)"
expect_match "other: detail names discovery" '[Dd]iscovery' "$(json .detail)"
expect_eq "other: no Location" "" "$AUTHORIZE_URL"
expect_eq "other: no state cookie" "" "$(set_cookie authd_oauth)"

step "jwksdown: the JWKS endpoint is not reachable"
provider_set_identity sub=sub-jwks preferred_username=user-jwks
oauth_new_browser
oauth_signin "?provider=jwksdown"
expect_status 502 "jwksdown: completion"
expect_eq "jwksdown: Bad Gateway" "Bad Gateway" "$(json .error)"
if set_cookie auth >/dev/null; then fail "jwksdown: no token issued"; else pass "jwksdown: no token issued"; fi
expect_eq "jwksdown: no account created" "$BEFORE" "$(accounts)"

finish

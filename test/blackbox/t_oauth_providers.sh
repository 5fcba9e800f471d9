#!/usr/bin/env bash
# Proves several identity providers at once (docs/oauth.md "Several providers at once"), all configured
# through the environment (AUTHD_OAUTH_PROVIDERS + AUTHD_OAUTH_<NAME>_*), against one real
# provider on loopback:
#   one   OpenID Connect by issuer (discovery), client_secret_post;
#   two   the same issuer with another client id, client_secret_basic, own scopes;
#   gh    plain OAuth 2.0 (GitHub style): explicit authorization/token/userinfo URLs, identity
#         from the userinfo endpoint's numeric `id` and `login`;
#   down  token endpoint on a port where nothing listens -> 502;
#   hang  token endpoint that accepts and never answers -> 504 after AUTHD_OAUTH_TIMEOUT_MS.
# GET /oauth without ?provider= -> 400, an unknown provider -> 400; each provider's start names
# its own client_id/scope (nonce only for OpenID Connect); the same subject at two providers is
# two accounts (sam, sam.two); the state cookie decides which provider completes a sign-in (a
# ?provider= added to the callback is ignored); the GitHub-style account is named after `login`
# and stays linked by `id` when the login changes.
source "$(dirname "$0")/harness.sh"
source "$(dirname "$0")/oauth_provider.sh"

provider_start
CLOSED_PORT=$(pick_port)   # free now, and nothing will listen on it
export AUTHD_OAUTH_PROVIDERS=one,two,gh,down,hang
export AUTHD_OAUTH_ONE_ISSUER=$PROVIDER_URL
export AUTHD_OAUTH_ONE_CLIENT_ID=client-one
export AUTHD_OAUTH_ONE_CLIENT_SECRET=secret-one
export AUTHD_OAUTH_ONE_REDIRECT_URI='http://127.0.0.1:@PORT@/oauth'
export AUTHD_OAUTH_TWO_ISSUER=$PROVIDER_URL/   # a trailing slash is tolerated
export AUTHD_OAUTH_TWO_CLIENT_ID=client-two
export AUTHD_OAUTH_TWO_CLIENT_SECRET=secret-two
export AUTHD_OAUTH_TWO_REDIRECT_URI='http://127.0.0.1:@PORT@/oauth'
export AUTHD_OAUTH_TWO_TOKEN_AUTH=basic
export AUTHD_OAUTH_TWO_SCOPES='openid email'
export AUTHD_OAUTH_GH_AUTHORIZATION_URL=$PROVIDER_URL/authorize
export AUTHD_OAUTH_GH_TOKEN_URL=$PROVIDER_URL/token
export AUTHD_OAUTH_GH_USERINFO_URL=$PROVIDER_URL/userinfo
export AUTHD_OAUTH_GH_CLIENT_ID=gh-client
export AUTHD_OAUTH_GH_CLIENT_SECRET=gh-secret
export AUTHD_OAUTH_GH_REDIRECT_URI='http://127.0.0.1:@PORT@/oauth'
export AUTHD_OAUTH_GH_SCOPES='read:user user:email'
for p in DOWN HANG; do
  export "AUTHD_OAUTH_${p}_AUTHORIZATION_URL=$PROVIDER_URL/authorize"
  export "AUTHD_OAUTH_${p}_CLIENT_ID=client-${p,,}"
  export "AUTHD_OAUTH_${p}_REDIRECT_URI=http://127.0.0.1:@PORT@/oauth"
done
export AUTHD_OAUTH_DOWN_TOKEN_URL=http://127.0.0.1:$CLOSED_PORT/token
export AUTHD_OAUTH_DOWN_USERINFO_URL=http://127.0.0.1:$CLOSED_PORT/user
export AUTHD_OAUTH_HANG_TOKEN_URL=http://127.0.0.1:$PROVIDER_BLACKHOLE_PORT/token
export AUTHD_OAUTH_HANG_USERINFO_URL=http://127.0.0.1:$PROVIDER_BLACKHOLE_PORT/user
export AUTHD_OAUTH_TIMEOUT_MS=1500
export AUTHD_OAUTH_CONNECT_TIMEOUT_MS=1000
stack_start

no_token() { # DESC
  if set_cookie auth >/dev/null || header token >/dev/null; then fail "$1: no token issued"; else pass "$1: no token issued"; fi
}

# --- choosing a provider -----------------------------------------------------------------------
step "choosing a provider"
oauth_new_browser
oauth_start
expect_status 400 "GET /oauth without ?provider= when several are configured"
expect_match "the error names the providers" 'one' "$(json .error)"
expect_eq "no state cookie" "" "$(set_cookie authd_oauth)"
for bad in unknown '' ONE 'one%20' '../one'; do
  oauth_start "?provider=$bad"
  expect_status 400 "?provider=$bad"
  expect_eq "?provider=$bad: JSON error" string "$(json '.error|type' 2>&1)"
done

oauth_start "?provider=one"
expect_status 302 "?provider=one starts"
expect_match "one: its authorization endpoint" "^$PROVIDER_URL/authorize\\?" "$AUTHORIZE_URL"
expect_eq "one: client_id" client-one "$(query_param "$AUTHORIZE_URL" client_id)"
expect_eq "one: default OIDC scope" "openid profile email" "$(query_param "$AUTHORIZE_URL" scope)"
expect_match "one: nonce" '^[A-Za-z0-9_-]{16,}$' "$(query_param "$AUTHORIZE_URL" nonce)"
expect_match "one: state cookie" '^authd_oauth=' "$(set_cookie authd_oauth)"

oauth_start "?provider=two"
expect_status 302 "?provider=two starts"
expect_eq "two: client_id" client-two "$(query_param "$AUTHORIZE_URL" client_id)"
expect_eq "two: its own scopes" "openid email" "$(query_param "$AUTHORIZE_URL" scope)"

oauth_start "?provider=gh"
expect_status 302 "?provider=gh starts"
expect_match "gh: the configured authorization_url" "^$PROVIDER_URL/authorize\\?" "$AUTHORIZE_URL"
expect_eq "gh: client_id" gh-client "$(query_param "$AUTHORIZE_URL" client_id)"
expect_eq "gh: scopes" "read:user user:email" "$(query_param "$AUTHORIZE_URL" scope)"
expect_eq "gh: response_type=code" code "$(query_param "$AUTHORIZE_URL" response_type)"
expect_match "gh: PKCE challenge" '^[A-Za-z0-9_-]{43}$' "$(query_param "$AUTHORIZE_URL" code_challenge)"
expect_eq "gh: code_challenge_method" S256 "$(query_param "$AUTHORIZE_URL" code_challenge_method)"
expect_eq "gh (plain OAuth 2.0): no nonce" absent "$(query_param "$AUTHORIZE_URL" nonce || echo absent)"

# --- one and two: the same subject, two accounts -------------------------------------------------
step "OpenID Connect providers one and two"
provider_set_identity sub=shared-subject preferred_username=sam name='Sam' email=sam@example.test
provider_clear_log
oauth_new_browser
oauth_signin "?provider=one"
expect_status 200 "sign-in through one"
expect_eq "one: account sam" sam "$(json .user.username)"
ONE_TOKEN=$(json .token)
expect_eq "one: token request client_id" client-one "$(provider_log '.token[-1].client_id')"
expect_eq "one: token request client_secret (post)" secret-one "$(provider_log '.token[-1].client_secret')"
expect_eq "one: no Basic authorization" null "$(provider_log '.token[-1].authorization')"

oauth_new_browser
oauth_signin "?provider=two"
expect_status 200 "sign-in through two"
expect_eq "two: the same subject at another provider is another account" sam.two "$(json .user.username)"
expect_eq "two: client_secret_basic header" "Basic $(printf '%s' 'client-two:secret-two' | base64 -w0)" \
  "$(provider_log '.token[-1].authorization')"
expect_eq "two: no client_secret in the form" null "$(provider_log '.token[-1].client_secret')"
expect_eq "sam untouched by two's sign-in" 0 "$(account_field sam v)"

oauth_new_browser
oauth_signin "?provider=one"
expect_status 200 "sign-in through one again"
expect_eq "one again: sam" sam "$(json .user.username)"
expect_eq "sam __v 1" 1 "$(account_field sam v)"
expect_eq "sam.two __v 0" 0 "$(account_field sam.two v)"
http GET /records -H "Authorization: Bearer $ONE_TOKEN"
expect_status 200 "one's token works on GET /records"

step "the state cookie carries the provider"
oauth_new_browser
oauth_start "?provider=one"
oauth_authorize
provider_clear_log
oauth_callback "$CALLBACK_URL&provider=two"
expect_status 200 "a callback with ?provider=two and provider one's state cookie"
expect_eq "completed by provider one: account sam" sam "$(json .user.username)"
expect_eq "completed by provider one: its client_id at the token endpoint" client-one \
  "$(provider_log '.token[-1].client_id')"
expect_eq "sam __v 2" 2 "$(account_field sam v)"
expect_eq "sam.two still __v 0" 0 "$(account_field sam.two v)"

# Provider two's cookie with a callback of provider one's sign-in: state mismatch.
ONE_JAR=$PROVIDER_DIR/one-jar
TWO_JAR=$PROVIDER_DIR/two-jar
http GET "/oauth?provider=one" -c "$ONE_JAR"
AUTHORIZE_URL=$(header Location)
http GET "/oauth?provider=two" -c "$TWO_JAR"
oauth_authorize
BEFORE=$(accounts)
http GET "$CALLBACK_URL" -b "$TWO_JAR"
expect_status 403 "provider one's callback with provider two's state cookie"
no_token "cross-provider cookie"
expect_eq "cross-provider cookie: no account changed" "$BEFORE" "$(accounts)"

# --- GitHub style ----------------------------------------------------------------------------
step "plain OAuth 2.0 (GitHub style)"
provider_set_identity id:=4242 login=octocat name='The Octocat' email=octocat@github.test
provider_clear_log
oauth_new_browser
oauth_signin "?provider=gh"
expect_status 200 "sign-in through gh"
expect_eq "body has exactly token,user" '["token","user"]' "$(json 'keys|tojson')"
expect_eq "gh: account named after login" octocat "$(json .user.username)"
GH_TOKEN=$(json .token)
expect_eq "gh: token header equals body" "$GH_TOKEN" "$(header token)"
expect_eq "gh: one userinfo request" 1 "$(provider_log '.userinfo|length')"
expect_match "gh: userinfo called with the access token" '^Bearer [A-Za-z0-9_.-]+$' "$(provider_log '.userinfo[-1].authorization')"
expect_eq "gh: token request client_id" gh-client "$(provider_log '.token[-1].client_id')"
expect_eq "gh: token request client_secret" gh-secret "$(provider_log '.token[-1].client_secret')"
expect_match "gh: token request code_verifier" '^[A-Za-z0-9_-]{43}$' "$(provider_log '.token[-1].code_verifier')"
expect_eq "gh: role user" user "$(account_field octocat role)"
http GET /records -H "Authorization: Bearer $GH_TOKEN"
expect_status 200 "gh token works on GET /records"

provider_set_identity id:=4242 login=octocat-renamed name='The Octocat'
oauth_new_browser
oauth_signin "?provider=gh"
expect_status 200 "gh sign-in after the login changed"
expect_eq "gh: linked by numeric id, not login" octocat "$(json .user.username)"
expect_eq "octocat __v 1" 1 "$(account_field octocat v)"

provider_set_identity id:=4243 login=octocat
oauth_new_browser
oauth_signin "?provider=gh"
expect_status 200 "another gh user with the login octocat"
expect_eq "another gh id gets octocat.gh" octocat.gh "$(json .user.username)"

BEFORE=$(accounts)
provider_set_identity login=no-id-here
oauth_new_browser
oauth_signin "?provider=gh"
expect_status 502 "gh userinfo without id (no subject)"
expect_eq "no subject: Bad Gateway" "Bad Gateway" "$(json .error)"
no_token "no subject"
expect_eq "no subject: nothing created" "$BEFORE" "$(accounts)"

provider_set_identity id:=4242 login=octocat
provider_mode userinfo_error_500
oauth_new_browser
oauth_signin "?provider=gh"
expect_status 502 "gh userinfo answering 500"
no_token "userinfo 500"
expect_eq "userinfo 500: nothing changed" "$BEFORE" "$(accounts)"
provider_mode normal

# --- providers that are down or hang -----------------------------------------------------------
step "a provider that is not listening"
oauth_new_browser
oauth_signin "?provider=down"
expect_status 502 "down: token endpoint on a closed port"
expect_eq "down: Bad Gateway" "Bad Gateway" "$(json .error)"
expect_eq "down: detail" string "$(json '.detail|type')"
no_token "down"
expect_eq "down: nothing changed" "$BEFORE" "$(accounts)"

step "a provider that never answers"
T0=$(date +%s%N)
oauth_new_browser
oauth_signin "?provider=hang"
ELAPSED=$((($(date +%s%N) - T0) / 1000000))
expect_status 504 "hang: token endpoint accepts and never answers"
expect_eq "hang: Gateway Timeout" "Gateway Timeout" "$(json .error)"
expect_match "hang: answered after ~1500 ms (${ELAPSED} ms)" '^(1[5-9][0-9][0-9]|[2-4][0-9][0-9][0-9])$' "$ELAPSED"
no_token "hang"
expect_eq "hang: nothing changed" "$BEFORE" "$(accounts)"

# The others still work after those failures.
provider_set_identity sub=shared-subject preferred_username=sam
oauth_new_browser
oauth_signin "?provider=two"
expect_status 200 "two still works after the failures"
expect_eq "two: sam.two" sam.two "$(json .user.username)"

finish

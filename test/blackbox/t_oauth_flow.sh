#!/usr/bin/env bash
# Proves third-party sign-in at GET /oauth end to end against a real OpenID Connect provider on
# loopback (test/oauth/mock-provider.js, oauth2-mock-server), one browser hop at a time:
#   start:    GET /oauth -> 302 to the provider's authorization endpoint with response_type=code,
#             client_id, redirect_uri, scope, state, code_challenge (S256), nonce, and a state
#             cookie authd_oauth (Path=/oauth, HttpOnly, SameSite=Lax, Max-Age 600);
#   provider: 302 back to /oauth?code=...&state=<the same state>;
#   complete: the code exchanged with client secret + the PKCE verifier whose S256 is the
#             challenge sent; 200 with exactly {token, user:{acl:[],username}}, the token in the
#             auth cookie (Path=/, HttpOnly, SameSite=Lax, Max-Age), the token header and the
#             body, Cache-Control: no-store; the state cookie cleared;
#   the token works on GET /records (200) and is refused for DELETE (403: role user);
#   a second sign-in of the same subject -> the same account, __v + 1; another subject -> another
#   account; the provider's userinfo is not needed for an OpenID Connect provider.
source "$(dirname "$0")/harness.sh"
source "$(dirname "$0")/oauth_provider.sh"

provider_start
provider_configure_authd authd-test 's3cret/with+odd=chars'
export AUTHD_TOKEN_TTL=3600
stack_start

provider_set_identity sub=subject-alice preferred_username=alice.smith name='Alice Smith' email=alice@example.test

# --- hop 1: start ----------------------------------------------------------------------------
step "start"
oauth_new_browser
oauth_start
expect_status 302 "GET /oauth starts the flow"
expect_match "Location is the provider's authorization endpoint" "^$PROVIDER_URL/authorize\\?" "$AUTHORIZE_URL"
expect_eq "response_type=code" code "$(query_param "$AUTHORIZE_URL" response_type)"
expect_eq "client_id" authd-test "$(query_param "$AUTHORIZE_URL" client_id)"
expect_eq "redirect_uri" "$BASE_URL/oauth" "$(query_param "$AUTHORIZE_URL" redirect_uri)"
expect_eq "scope (default with an issuer)" "openid profile email" "$(query_param "$AUTHORIZE_URL" scope)"
STATE=$(query_param "$AUTHORIZE_URL" state)
expect_match "state is random base64url (>= 16 chars)" '^[A-Za-z0-9_-]{16,}$' "$STATE"
CHALLENGE=$(query_param "$AUTHORIZE_URL" code_challenge)
expect_match "code_challenge is 43 base64url chars" '^[A-Za-z0-9_-]{43}$' "$CHALLENGE"
expect_eq "code_challenge_method=S256" S256 "$(query_param "$AUTHORIZE_URL" code_challenge_method)"
NONCE=$(query_param "$AUTHORIZE_URL" nonce)
expect_match "nonce is random base64url (>= 16 chars)" '^[A-Za-z0-9_-]{16,}$' "$NONCE"
expect_eq "Cache-Control: no-store" no-store "$(header Cache-Control)"
SC=$(set_cookie authd_oauth)
expect_match "Set-Cookie authd_oauth=<signed value>" '^authd_oauth=[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+;' "$SC"
for attr in 'Path=/oauth' HttpOnly 'SameSite=Lax' 'Max-Age=600'; do
  if cookie_attr "$SC" "$attr"; then pass "state cookie has $attr"; else fail "state cookie has $attr" "cookie: $SC"; fi
done
if cookie_attr "$SC" Secure; then fail "state cookie over plain HTTP has no Secure" "cookie: $SC"; else pass "state cookie over plain HTTP has no Secure"; fi
expect_eq "the state cookie does not carry the state in clear" no \
  "$(if [[ $SC == *"$STATE"* || $SC == *"$NONCE"* ]]; then echo yes; else echo no; fi)"
expect_eq "start creates no account" "" "$(accounts)"

# A second start gets a fresh state, challenge and nonce.
oauth_start
expect_status 302 "a second start"
STATE2=$(query_param "$AUTHORIZE_URL" state)
expect_ne "a second start has a new state" "$STATE" "$STATE2"
expect_ne "a second start has a new code_challenge" "$CHALLENGE" "$(query_param "$AUTHORIZE_URL" code_challenge)"
expect_ne "a second start has a new nonce" "$NONCE" "$(query_param "$AUTHORIZE_URL" nonce)"
STATE=$STATE2
CHALLENGE=$(query_param "$AUTHORIZE_URL" code_challenge)
NONCE=$(query_param "$AUTHORIZE_URL" nonce)

# --- hop 2: the provider ---------------------------------------------------------------------
step "provider"
provider_clear_log
oauth_authorize
expect_status 302 "the provider approves"
expect_match "the provider sends the browser back to /oauth" "^$BASE_URL/oauth\\?" "$CALLBACK_URL"
CODE=$(query_param "$CALLBACK_URL" code)
expect_ne "the callback carries a code" "" "$CODE"
expect_eq "the callback carries our state back" "$STATE" "$(query_param "$CALLBACK_URL" state)"

# --- hop 3: completion -----------------------------------------------------------------------
step "complete"
oauth_callback
expect_status 200 "GET /oauth?code&state completes the sign-in"
expect_match "Content-Type JSON" '^application/json' "$(header Content-Type)"
expect_eq "body has exactly token,user" '["token","user"]' "$(json 'keys|tojson')"
expect_eq "user has exactly acl,username" '["acl","username"]' "$(json '.user|keys|tojson')"
expect_eq "acl is an empty array" '[]' "$(json '.user.acl|tojson')"
expect_eq "username from preferred_username" alice.smith "$(json .user.username)"
TOKEN=$(json .token)
expect_match "token is a JWS" '^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$' "$TOKEN"
expect_eq "token header equals body token" "$TOKEN" "$(header token)"
expect_eq "Cache-Control: no-store" no-store "$(header Cache-Control)"
AUTH=$(set_cookie auth)
expect_match "Set-Cookie auth=<token>; Path=/" "^auth=$TOKEN; Path=/;" "$AUTH"
for attr in HttpOnly 'SameSite=Lax' 'Max-Age=3600'; do
  if cookie_attr "$AUTH" "$attr"; then pass "auth cookie has $attr"; else fail "auth cookie has $attr" "cookie: $AUTH"; fi
done
CLEARED=$(set_cookie authd_oauth)
expect_match "the spent state cookie is cleared" '^authd_oauth=;' "$CLEARED"
if cookie_attr "$CLEARED" 'Max-Age=0' && cookie_attr "$CLEARED" 'Path=/oauth'; then
  pass "cleared state cookie: Max-Age=0, Path=/oauth"
else
  fail "cleared state cookie: Max-Age=0, Path=/oauth" "cookie: $CLEARED"
fi

# What authd sent to the token endpoint.
expect_eq "one token request" 1 "$(provider_log '.token|length')"
expect_eq "token request: grant_type" authorization_code "$(provider_log '.token[0].grant_type')"
expect_eq "token request: the code" "$CODE" "$(provider_log '.token[0].code')"
expect_eq "token request: redirect_uri" "$BASE_URL/oauth" "$(provider_log '.token[0].redirect_uri')"
expect_eq "token request: client_id (client_secret_post)" authd-test "$(provider_log '.token[0].client_id')"
expect_eq "token request: client_secret" 's3cret/with+odd=chars' "$(provider_log '.token[0].client_secret')"
VERIFIER=$(provider_log '.token[0].code_verifier')
expect_match "token request: 43-char code_verifier" '^[A-Za-z0-9_-]{43}$' "$VERIFIER"
expect_eq "S256(code_verifier) is the code_challenge sent at the start" "$CHALLENGE" "$(pkce_challenge "$VERIFIER")"

# The account.
expect_eq "one account exists" 1 "$(accounts | wc -l)"
expect_eq "account role user" user "$(account_field alice.smith role)"
expect_eq "account __v 0" 0 "$(account_field alice.smith v)"
ALICE_ID=$(account_field alice.smith id)
expect_match "account _id" '^[0-9a-f]{24}$' "$ALICE_ID"

# --- the token on guarded routes -------------------------------------------------------------
step "token on guarded routes"
http GET /records -H "Authorization: Bearer $TOKEN"
expect_status 200 "GET /records with the OAuth token"
expect_eq "GET /records: an array" array "$(json type)"
http DELETE /records/0123456789abcdef01234567 -H "Authorization: Bearer $TOKEN"
expect_status 403 "DELETE /records/{id} with the OAuth token (role user)"
expect_eq "DELETE: Access Denied" '{"error":"Access Denied"}' "$(jq -c . <<<"$BODY" 2>/dev/null)"
http POST /records -H "Authorization: Bearer $TOKEN" -H 'Content-Type: application/json' -d '{"a":1}'
expect_status 403 "POST /records with the OAuth token (role user)"
# The browser now holds the auth cookie and no longer the spent state cookie.
expect_eq "the browser's jar holds auth=<token>" "$TOKEN" \
  "$(awk -F'\t' '$6 == "auth" { print $7 }' "$OAUTH_JAR")"
expect_eq "the browser's jar no longer holds authd_oauth" "" \
  "$(awk -F'\t' '$6 == "authd_oauth" && $7 != "" { print $7 }' "$OAUTH_JAR")"

# The account has no password: /signin cannot be used for it.
http POST /signin -u 'alice.smith:'
expect_ne "POST /signin for the OAuth account with an empty password is refused" 200 "$STATUS"
http POST /signin -u 'alice.smith:anything-at-all'
expect_ne "POST /signin for the OAuth account with some password is refused" 200 "$STATUS"

# --- the same subject again ------------------------------------------------------------------
step "second sign-in of the same subject"
oauth_new_browser
oauth_signin
expect_status 200 "second sign-in"
expect_eq "second sign-in: the same username" alice.smith "$(json .user.username)"
TOKEN2=$(json .token)
expect_ne "second sign-in: a fresh token" "$TOKEN" "$TOKEN2"
expect_eq "second sign-in: still one account" 1 "$(accounts | wc -l)"
expect_eq "second sign-in: __v went up to 1" 1 "$(account_field alice.smith v)"
expect_eq "second sign-in: same _id" "$ALICE_ID" "$(account_field alice.smith id)"
http GET /records -H "Authorization: Bearer $TOKEN2"
expect_status 200 "second token works"
http GET /records -H "Authorization: Bearer $TOKEN"
expect_status 200 "first token still works"

# The provider may change the username hint: the account stays linked by subject.
provider_set_identity sub=subject-alice preferred_username=alice.renamed
oauth_new_browser
oauth_signin
expect_status 200 "third sign-in with a changed preferred_username"
expect_eq "linked by subject, not by name: the same username" alice.smith "$(json .user.username)"
expect_eq "third sign-in: __v 2" 2 "$(account_field alice.smith v)"
expect_eq "no account named after the new hint" "" "$(account_field alice.renamed v 2>/dev/null)"

# --- another subject -------------------------------------------------------------------------
step "another subject"
provider_set_identity sub=subject-bob preferred_username=bob name='Bob' email=bob@example.test
oauth_new_browser
oauth_signin
expect_status 200 "another subject signs in"
expect_eq "another subject: its own account" bob "$(json .user.username)"
expect_eq "two accounts now" 2 "$(accounts | wc -l)"
expect_eq "bob: __v 0" 0 "$(account_field bob v)"
expect_eq "alice.smith unchanged by bob's sign-in" 2 "$(account_field alice.smith v)"

# Without preferred_username a verified email is the hint; an unverified one
# is nobody's (security_oidc_identity_test.cpp): the name is used instead.
provider_set_identity sub=subject-dave email=ceo@example.test name='Dave'
oauth_new_browser
oauth_signin
expect_status 200 "a subject with an unverified email"
expect_eq "username not from an unverified email" Dave "$(json .user.username)"
provider_set_identity sub=subject-carol email=carol@example.test email_verified:=true name='Carol'
oauth_new_browser
oauth_signin
expect_status 200 "a subject without preferred_username"
expect_eq "username from the verified email" carol@example.test "$(json .user.username)"

# authd never needed the userinfo endpoint: the identity came from the verified ID token.
expect_eq "no userinfo request for an OpenID Connect provider" 0 "$(provider_log '.userinfo|length')"

finish

#!/usr/bin/env bash
# Proves every error of GET /oauth against a real provider on loopback (docs/oauth.md "Errors"): each
# answers its exact status with a JSON body carrying `error`, issues no token, and creates or
# changes no account (`authctl list` before == after), both for a subject that already has an
# account and for a new one:
#   403 Access Denied: state param tampered or missing, no state cookie, a forged/tampered state
#       cookie, an access token in the state cookie, another sign-in's state cookie, the provider
#       answering error=access_denied;
#   400: another provider error (error=invalid_scope), invalid_grant from the token endpoint (an
#       expired code), a code used twice, ?provider= naming no provider;
#   502 Bad Gateway: bad ID-token signature, wrong nonce, wrong aud, wrong iss, expired ID token,
#       no ID token, token endpoint 500, token endpoint refusing our client, provider not
#       listening (at the code exchange, and at discovery after a restart);
#   504 Gateway Timeout: token endpoint slower than AUTHD_OAUTH_TIMEOUT_MS (1500 ms here).
# A state mismatch does not spend the code: the genuine callback still completes afterwards.
source "$(dirname "$0")/harness.sh"
source "$(dirname "$0")/oauth_provider.sh"

provider_start
provider_configure_authd authd-errors errors-secret
export AUTHD_OAUTH_TIMEOUT_MS=1500
export AUTHD_OAUTH_CONNECT_TIMEOUT_MS=1000
stack_start

KNOWN=(sub=sub-known preferred_username=known name='Known User' email=known@example.test)
NEW=(sub=sub-new preferred_username=newbie)

# An existing account for the known subject (so "nothing changed" is checkable through __v).
provider_set_identity "${KNOWN[@]}"
oauth_new_browser
oauth_signin
expect_status 200 "setup: the known subject signs in"
ACCESS_TOKEN=$(json .token)
SNAPSHOT=$(accounts)
expect_eq "setup: one account" 1 "$(wc -l <<<"$SNAPSHOT")"

# expect_error STATUS TITLE DESC: the last response is STATUS with {"error": TITLE, ...}
# (TITLE "*" = any non-empty string), no token, and the accounts are as in $SNAPSHOT.
expect_error() {
  local status=$1 title=$2 desc=$3
  expect_eq "$desc: status" "$status" "$STATUS"
  expect_match "$desc: JSON content type" '^application/json' "$(header Content-Type)"
  if [[ $title == '*' ]]; then
    expect_match "$desc: body has an error string" '^string$' "$(json '.error|type' 2>&1)"
  else
    expect_eq "$desc: error" "$title" "$(json .error 2>&1)"
  fi
  if [[ $status != 400 && $status != 501 ]]; then
    expect_match "$desc: detail says why" '^string$' "$(json '.detail|type' 2>&1)"
  fi
  if set_cookie auth >/dev/null || header token >/dev/null; then
    fail "$desc: no token issued" "headers: $(tr '\n' '|' <<<"$HEADERS")"
  else
    pass "$desc: no token issued"
  fi
  expect_eq "$desc: no account created or changed" "$SNAPSHOT" "$(accounts)"
}

# One full attempt in a fresh browser, the provider in MODE, for the identity in $@.
attempt() { # MODE IDENTITY...
  local mode=$1
  shift
  provider_mode normal
  provider_set_identity "$@"
  oauth_new_browser
  oauth_start
  [[ $STATUS == 302 ]] || { fail "attempt: start answered $STATUS"; return 1; }
  provider_mode "$mode"
  oauth_authorize
  [[ $STATUS == 302 ]] || { fail "attempt: the provider answered $STATUS"; return 1; }
  oauth_callback
}

# --- the user's side: state --------------------------------------------------------------------
step "state"
provider_set_identity "${KNOWN[@]}"
oauth_new_browser
oauth_start
oauth_authorize
GOOD_CALLBACK=$CALLBACK_URL
provider_clear_log
oauth_callback "$(with_query "$GOOD_CALLBACK" state tampered-state-value)"
expect_error 403 "Access Denied" "state param tampered"
oauth_callback "$(with_query "$GOOD_CALLBACK" state "$(query_param "$GOOD_CALLBACK" state)x")"
expect_error 403 "Access Denied" "state param with one extra character"
NO_STATE=${GOOD_CALLBACK/state=/ignored=}
oauth_callback "$NO_STATE"
expect_error 403 "Access Denied" "state param missing"
http GET "${GOOD_CALLBACK}"
expect_error 403 "Access Denied" "no state cookie"
COOKIE=$(awk -F'\t' '$6 == "authd_oauth" { print $7 }' "$OAUTH_JAR")
expect_match "setup: the jar holds the state cookie" '^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$' "$COOKIE"
SIG=${COOKIE##*.}
FLIPPED=${SIG:0:5}$([[ ${SIG:5:1} == A ]] && echo B || echo A)${SIG:6}
http GET "$GOOD_CALLBACK" -H "Cookie: authd_oauth=${COOKIE%.*}.$FLIPPED"
expect_error 403 "Access Denied" "state cookie with a tampered signature"
http GET "$GOOD_CALLBACK" -H "Cookie: authd_oauth=garbage"
expect_error 403 "Access Denied" "state cookie that is not a token"
http GET "$GOOD_CALLBACK" -H "Cookie: authd_oauth=$ACCESS_TOKEN"
expect_error 403 "Access Denied" "an access token as the state cookie"
http GET "$GOOD_CALLBACK" -H "Cookie: auth=$ACCESS_TOKEN"
expect_error 403 "Access Denied" "only the auth cookie, no state cookie"
# Another sign-in's (valid) state cookie.
OTHER_JAR=$PROVIDER_DIR/other-jar
http GET /oauth -c "$OTHER_JAR"
expect_status 302 "setup: another browser starts a sign-in"
http GET "$GOOD_CALLBACK" -b "$OTHER_JAR"
expect_error 403 "Access Denied" "another sign-in's state cookie"
expect_eq "no state failure reached the token endpoint" 0 "$(provider_log '.token|length')"

# The code was never spent: the genuine callback still works (and changes the account).
oauth_callback "$GOOD_CALLBACK"
expect_status 200 "after the failed attempts the genuine callback completes"
expect_eq "the genuine callback signs in the known subject" known "$(json .user.username)"
REUSE_JAR=$PROVIDER_DIR/reuse-jar
SNAPSHOT=$(accounts)

# --- the user's side: the provider says no / the code is no good ---------------------------------
step "provider refusals"
for who in KNOWN NEW; do
  declare -n ident=$who
  attempt deny "${ident[@]}"
  expect_eq "deny ($who): the provider sent error=access_denied" access_denied "$(query_param "$CALLBACK_URL" error)"
  expect_error 403 "Access Denied" "provider error=access_denied ($who)"
  expect_match "deny ($who): detail names the provider's error" 'access_denied' "$(json .detail)"

  attempt invalid_grant "${ident[@]}"
  expect_error 400 '*' "token endpoint invalid_grant, an expired code ($who)"
  unset -n ident
done
provider_mode normal
http GET "/oauth?error=invalid_scope&error_description=no+such+scope&state=x"
expect_error 400 '*' "provider error=invalid_scope"
http GET "/oauth?provider=nope"
expect_error 400 '*' "?provider= naming no provider"

step "a code used twice"
provider_set_identity "${KNOWN[@]}"
oauth_new_browser
oauth_start
oauth_authorize
cp "$OAUTH_JAR" "$REUSE_JAR"
oauth_callback
expect_status 200 "the code's first use signs in"
SNAPSHOT=$(accounts)
http GET "$CALLBACK_URL" -b "$REUSE_JAR"
expect_error 400 '*' "the same code (and its state cookie) a second time"
oauth_callback
expect_error 403 "Access Denied" "the same callback after the sign-in cleared the state cookie"

# --- the provider's side -----------------------------------------------------------------------
step "bad answers from the provider"
for who in KNOWN NEW; do
  declare -n ident=$who
  for mode in bad_signature wrong_nonce wrong_aud wrong_iss expired_id_token no_id_token \
              token_error_500 invalid_client; do
    attempt "$mode" "${ident[@]}"
    expect_error 502 "Bad Gateway" "$mode ($who)"
  done
  unset -n ident
done

step "a provider slower than oauth_timeout_ms"
T0=$(date +%s%N)
attempt slow "${NEW[@]}"
ELAPSED=$((($(date +%s%N) - T0) / 1000000))
expect_error 504 "Gateway Timeout" "token endpoint slower than 1500 ms"
expect_match "504 came after the timeout, not the provider's 5 s (${ELAPSED} ms)" '^(1[5-9][0-9][0-9]|[2-4][0-9][0-9][0-9])$' "$ELAPSED"
provider_mode normal

# Everything works again once the provider behaves.
provider_set_identity "${NEW[@]}"
oauth_new_browser
oauth_signin
expect_status 200 "the new subject signs in once the provider behaves"
expect_eq "the new subject's account is created only now" newbie "$(json .user.username)"
SNAPSHOT=$(accounts)

step "a provider that is not listening"
provider_set_identity "${KNOWN[@]}"
oauth_new_browser
oauth_start
oauth_authorize
expect_status 302 "setup: the provider approves"
provider_stop
oauth_callback
expect_error 502 "Bad Gateway" "provider down at the code exchange"
# A fresh authd has no cached discovery document: the start fails too.
authd_stop
authd_start || fail "authd restarts"
oauth_new_browser
oauth_start
expect_error 502 "Bad Gateway" "provider down at discovery (start)"
expect_eq "no Location when the start fails" "" "$AUTHORIZE_URL"
expect_eq "no state cookie when the start fails" "" "$(set_cookie authd_oauth)"

finish

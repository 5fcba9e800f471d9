#!/usr/bin/env bash
# The OpenID Foundation's conformance suite (openid-certification/conformance-suite)
# as a test plan: every module of its Basic OP plan (oidcc-basic-certification-test-plan,
# client_secret_basic, and client_secret_post for oidcc-server-client-secret-post;
# response_type=code, static clients, discovery) and Config OP plan
# (oidcc-config-certification-test-plan) that applies to authd, each a step named
# after the module, making the checks of the condition classes the module calls
# (test/oidc/conformance.mjs names each condition it follows). The suite needs
# Java, MongoDB and an internet-facing issuer; here curl is its HTTP client and
# the tester's browser (the `auth` cookie; signing in where the suite asks the
# tester to), and the issuer is https (public_url, as the suite requires) while
# the requests reach authd through the harness's front server. docs/openid-provider.md
# ("Conformance") lists every module: implemented here, not applicable (why), or a
# known gap.
# Attacks it stops (as the suite's negative modules do): a code redeemed twice
# (invalid_grant, and what its first use issued revoked), an unregistered or
# missing redirect_uri (an error page, never a redirect to it), a silent sign-in
# (prompt=none) for a browser that is signed out, an old sign-in passing a
# max_age or prompt=login, another client's refresh token, a request object
# smuggling a different redirect_uri.
source "$(dirname "$0")/harness.sh"
PUBLIC=https://sso.example.test
export AUTHD_OIDC_PROVIDER=true AUTHD_REFRESH_TOKEN_TTL=3600 AUTHD_PUBLIC_URL=$PUBLIC
make_temp_dir AUDIT_DIR audit
export AUTHD_AUDIT_LOG=$AUDIT_DIR/audit.log
stack_start

# shellcheck source=oidc_rp.sh
source "$_HARNESS_DIR/oidc_rp.sh"
# The conditions test/oidc/conformance.mjs checks are queued and run by one
# node process at the end (a node start per check cost most of the script's
# time): check NAME COMMAND EXPECTED-WARNINGS|- ARGS... queues one whose
# failures must be none (and warnings EXPECTED-WARNINGS, a JSON array;
# - for none); check_failing NAME CONDITION COMMAND ARGS... one that must fail
# CONDITION (the checks can fail).
CHECKS=$(mktemp)
at_exit rm -f "$CHECKS"
check() {
  local warnings=$3; [[ $warnings == - ]] && warnings='[]'
  jq -cn --arg n "$1" --arg c "$2" --argjson w "$warnings" '{name: $n, command: $c, warnings: $w, args: $ARGS.positional}' \
    --args "${@:4}" >>"$CHECKS"
}
check_failing() {
  jq -cn --arg n "$1" --arg f "$2" --arg c "$3" '{name: $n, command: $c, failing: $f, args: $ARGS.positional}' \
    --args "${@:4}" >>"$CHECKS"
}
run_checks() {
  local line name
  while IFS= read -r line; do
    name=$(jq -r .name <<<"$line")
    if [[ $(jq -r '.failing // ""' <<<"$line") != "" ]]; then
      expect_eq "$name" yes "$(jq -r '.failing as $f | (.failures | map(startswith($f + ":")) | any) | if . then "yes" else "no" end' <<<"$line")"
      continue
    fi
    expect_eq "$name: every condition passes" "[]" "$(jq -c .failures <<<"$line")"
    expect_eq "$name: the suite's warnings" "$(jq -c .expected <<<"$line")" "$(jq -c .warnings <<<"$line")"
  done < <(cd "$RP_DIR" && node conformance.mjs batch <"$CHECKS" 2>&1)
  (( $(wc -l <"$CHECKS") > 0 )) || fail "no check ran"
}
# query_param URL NAME: a parameter of URL's query, decoded (no process started).
query_param() {
  local query=${1#*\?} pair value IFS='&'
  [[ $1 == *\?* ]] || { echo; return 0; }
  for pair in ${query%%#*}; do
    [[ ${pair%%=*} == "$2" ]] || continue
    value=${pair#*=}; value=${value//+/ }
    printf '%b\n' "${value//%/\\x}"
    return 0
  done
  echo
}
query_keys() {  # URL -> its parameters' names, sorted
  local query=${1#*\?} pair IFS='&'
  for pair in ${query%%#*}; do echo "${pair%%=*}"; done | sort | paste -sd' '
}
enc() { jq -rn --arg v "$1" '$v | @uri'; }
random() { openssl rand -hex "${1:-16}"; }
# AbstractEnsureMinimumEntropy: Shannon entropy per character times the length, in bits
entropy() {
  awk -v s="$1" 'BEGIN { n = length(s); for (i = 1; i <= n; i++) c[substr(s, i, 1)]++
                         for (k in c) { p = c[k] / n; e -= p * log(p) / log(2) } printf "%d\n", e * n }'
}
# RFC 6749 §5.2's error_description characters (AbstractValidateErrorDescriptionFromResponseError)
# expect_arith DESC EXPR: the bash arithmetic expression EXPR holds.
expect_arith() { if (( $2 )); then pass "$1"; else fail "$1" "false: $2"; fi; }
description_ok() { LC_ALL=C grep -qP '^[\t\r\x20\x21\x23-\x5B\x5D-\x7E]*$' <<<"$1" && echo yes || echo no; }

PASSWORD='alice password'
signup alice "$PASSWORD"
COOKIE=$TOKEN

# The suite's configuration: a client_secret_basic client and its second
# client (oidcc-refresh-token), and a client_secret_post one
# (oidcc-server-client-secret-post). Registered, not first-party: what a
# tester clicks through the consent page the first time is allowed after.
CB=https://rp.example.test/test/a/authd/callback
new_client() {  # NAME -> "client_id secret"
  authctl client add "$1" --redirect-uri "$CB" --scope openid profile email offline_access --json 2>/dev/null |
    jq -r '"\(.client_id) \(.client_secret)"'
}
read -r C1 S1 <<<"$(new_client 'Conformance client')"
read -r C2 S2 <<<"$(new_client 'Conformance client2')"
read -r CP SP <<<"$(new_client 'Conformance client_secret_post')"
[[ $C1 == client_* && -n $S1 && $C2 == client_* && $CP == client_* ]] || fail "three clients registered"

step "discovery and keys, as every module's setup reads them"
http GET /.well-known/openid-configuration
DISCOVERY=$BODY
http GET /.well-known/jwks.json
JWKS=$BODY

step "oidcc-discovery-endpoint-verification (Config OP)"
http GET /.well-known/openid-configuration
expect_status 200 "oidcc-discovery-endpoint-verification: EnsureDiscoveryEndpointResponseStatusCodeIs200"
expect_match "oidcc-discovery-endpoint-verification: CheckDiscoveryEndpointReturnedJsonContentType" \
  '^application/json' "$(header Content-Type)"
check oidcc-discovery-endpoint-verification discovery - "$PUBLIC" "$DISCOVERY" "$JWKS"
expect_eq "oidcc-discovery-endpoint-verification: CheckServerConfiguration (issuer, authorization and token endpoints)" \
  "$PUBLIC $PUBLIC/authorize $PUBLIC/token" "$(jq -r '"\(.issuer) \(.authorization_endpoint) \(.token_endpoint)"' <<<"$DISCOVERY")"
expect_eq "EnsureServerConfigurationSupportsClientSecretBasic and ...Post" "true true" \
  "$(jq -r '.token_endpoint_auth_methods_supported | "\(index("client_secret_basic") != null) \(index("client_secret_post") != null)"' <<<"$DISCOVERY")"
# A failing check must be able to fail: the same document with an http issuer.
check_failing "the checks catch an http issuer" CheckDiscEndpointIssuerIsValidUrl discovery "$PUBLIC" \
  "$(jq -c '.issuer = "http://sso.example.test"' <<<"$DISCOVERY")" "$JWKS"

# --- one authorization as the suite makes it ----------------------------------------
# authorize QUERY: the browser at /authorize?QUERY with $COOKIE as the tester's
# browser: a sign-in page -> signs in as alice (SIGNED_IN=yes), the consent
# page -> allows (CONSENTED=yes); stops at the redirect to the client
# (CALLBACK) or at anything else (STATUS, BODY of that answer).
authorize() {
  local url="/authorize?$1" hops=0 location request
  CALLBACK='' SIGNED_IN=no CONSENTED=no
  while ((hops++ < 6)); do
    http GET "$url" -H "Cookie: auth=$COOKIE"
    location=$(header Location)
    if [[ $STATUS == 302 && $location == "$CB"* ]]; then CALLBACK=$location; return 0; fi
    if [[ $STATUS == 302 && $location == /login\?* ]]; then
      url=$(query_param "$location" rd)
      signin alice "$PASSWORD"; COOKIE=$TOKEN; SIGNED_IN=yes
      continue
    fi
    if [[ $STATUS == 200 && $BODY == *'name="request"'* ]]; then
      request=$(sed -n 's/.*name="request" value="\([^"]*\)".*/\1/p' <<<"$BODY" | sed 's/&amp;/\&/g')
      http POST /authorize/consent -H "Cookie: auth=$COOKIE" -H "Origin: $BASE_URL" \
        --data-urlencode "request=$request" --data-urlencode decision=allow
      url=$(sed -n 's/.*id="continue" href="\([^"]*\)".*/\1/p' <<<"$BODY" | sed 's/&amp;/\&/g')
      CONSENTED=yes
      continue
    fi
    return 0
  done
}
# request CLIENT SCOPE [PARAM=VALUE...]: the suite's authorization request
# (CreateAuthorizationRequestSteps: response_type, client_id, redirect_uri,
# scope, a random state and nonce, then the module's parameters; nonce=- leaves
# the nonce out) -> QUERY, STATE, NONCE.
request() {
  local client=$1 scope=$2 pair
  STATE=$(random) NONCE=$(random)
  local -a params=("response_type=code" "client_id=$client" "redirect_uri=$CB" "scope=$scope")
  for pair in "${@:3}"; do
    case $pair in
      nonce=-) NONCE=- ;;
      state=*) STATE=${pair#state=} ;;
      *) params+=("$pair") ;;
    esac
  done
  params+=("state=$STATE")
  [[ $NONCE == - ]] || params+=("nonce=$NONCE")
  QUERY=
  for pair in "${params[@]}"; do QUERY+="${QUERY:+&}${pair%%=*}=$(enc "${pair#*=}")"; done
}
# callback_checks MODULE: onAuthorizationCallbackResponse for a success.
callback_checks() {
  expect_match "$1: the browser comes back to the client" "^$CB\?" "$CALLBACK"
  expect_eq "$1: ValidateIssIfPresentInAuthorizationResponse" "$PUBLIC" "$(query_param "$CALLBACK" iss)"
  expect_eq "$1: CheckIfAuthorizationEndpointError" "" "$(query_param "$CALLBACK" error)"
  expect_eq "$1: CheckStateInAuthorizationResponse" "$STATE" "$(query_param "$CALLBACK" state)"
  CODE=$(query_param "$CALLBACK" code)
  expect_ne "$1: ExtractAuthorizationCodeFromAuthorizationResponse" "" "$CODE"
}
# error_checks MODULE: performGenericAuthorizationEndpointErrorResponseValidation.
error_checks() {
  expect_eq "$1: CheckStateInAuthorizationResponse" "$STATE" "$(query_param "$CALLBACK" state)"
  expect_eq "$1: ValidateIssIfPresentInAuthorizationResponse" "$PUBLIC" "$(query_param "$CALLBACK" iss)"
  expect_ne "$1: EnsureErrorFromAuthorizationEndpointResponse" "" "$(query_param "$CALLBACK" error)"
  expect_eq "$1: RejectAuthCodeInAuthorizationEndpointResponse" "" "$(query_param "$CALLBACK" code)"
  expect_eq "$1: CheckForUnexpectedParametersInErrorResponseFromAuthorizationEndpoint" \
    "error error_description iss state" "$(query_keys "$CALLBACK")"
  expect_eq "$1: ValidateErrorDescriptionFromAuthorizationEndpointResponseError" yes \
    "$(description_ok "$(query_param "$CALLBACK" error_description)")"
}
# redeem MODULE basic|post CLIENT SECRET [CURL ARGS]: requestAuthorizationCode
# for $CODE -> TOKENS, ACCESS, ID_TOKEN, REFRESH.
redeem() {
  local -a auth=(-u "$3:$4")
  [[ $2 == post ]] && auth=(--data-urlencode "client_id=$3" --data-urlencode "client_secret=$4")
  http POST /token "${auth[@]}" --data-urlencode grant_type=authorization_code --data-urlencode "code=$CODE" \
    --data-urlencode "redirect_uri=$CB" "${@:5}"
  TOKENS=$BODY
  expect_status 200 "$1: CheckTokenEndpointHttpStatus200 ($2)"
  ACCESS=$(jq -r '.access_token // empty' <<<"$TOKENS")
  ID_TOKEN=$(jq -r '.id_token // empty' <<<"$TOKENS")
  REFRESH=$(jq -r '.refresh_token // empty' <<<"$TOKENS")
  expect_ne "$1: CheckForAccessTokenValue" "" "$ACCESS"
  expect_eq "$1: ValidateExpiresIn (a number, positive, under a year)" true \
    "$(jq '.expires_in | type == "number" and . > 0 and . <= 31536000' <<<"$TOKENS")"
  expect_ne "$1: ExtractIdTokenFromTokenResponse" "" "$ID_TOKEN"
}
# id_token_checks MODULE SCOPE [EXPECTED WARNINGS]: PerformStandardIdTokenChecks
# and the module's ID-token conditions -> CLAIMS.
id_token_checks() {
  check "$1: the ID token (PerformStandardIdTokenChecks, EnsureIdTokenContainsKid, RS256, ValidateAtHash, ...)" \
    idtoken "${3:--}" "$PUBLIC" "$CLIENT" "$NONCE" "$JWKS" "$ID_TOKEN" "$2" "$ACCESS"
  CLAIMS=$(jwt_payload "$ID_TOKEN")
}
# userinfo_checks MODULE SCOPE GET|POST [EXPECTED WARNINGS]: the UserInfo call and
# its conditions (AbstractOIDCCUserInfoTest, AbstractOIDCCReturnedClaimsServerTest).
userinfo_checks() {
  http "$3" /userinfo -H "Authorization: Bearer $ACCESS"
  expect_status 200 "$1: CallUserInfoEndpoint ($3), EnsureHttpStatusCodeIs200"
  expect_match "$1: EnsureContentTypeJson" '^application/json' "$(header Content-Type)"
  USERINFO=$BODY
  check "$1: UserInfo (ValidateUserInfoStandardClaims, EnsureUserInfoContainsSub, the ID token's sub, ...)" \
    userinfo "${4:--}" "$USERINFO" "$2" "$(jq -r .sub <<<"$CLAIMS")"
}
# flow MODULE basic|post CLIENT SECRET SCOPE [PARAM=VALUE...]: AbstractOIDCCServerTest's
# whole happy flow: request, callback, token, ID token, the protected resource (UserInfo).
flow() {
  local module=$1 scope=$5
  CLIENT=$3
  request "$3" "$scope" "${@:6}"
  authorize "$QUERY"
  callback_checks "$module"
  redeem "$module" "$2" "$3" "$4"
  id_token_checks "$module" "$scope"
  http GET /userinfo -H "Authorization: Bearer $ACCESS"
  expect_status 200 "$module: CallProtectedResource (UserInfo)"
}

step "oidcc-server"
flow oidcc-server basic "$C1" "$S1" openid
expect_eq "oidcc-server: the tester allowed the client once" yes "$CONSENTED"
expect_arith "oidcc-server: EnsureMinimumAuthorizationCodeLength (${#CODE} bytes)" "${#CODE} * 8 >= 128"
BITS=$(entropy "$CODE")
expect_arith "oidcc-server: EnsureMinimumAuthorizationCodeEntropy ($BITS bits)" "$BITS > 96"
FIRST_SUB=$(jq -r .sub <<<"$CLAIMS")
# The ID-token checks can fail: a nonce that was not sent, a payload changed under the signature.
check_failing "the checks catch a wrong nonce" ValidateIdTokenNonce idtoken "$PUBLIC" "$C1" other-nonce "$JWKS" "$ID_TOKEN" openid "$ACCESS"
FORGED="${ID_TOKEN%%.*}.$(jq -cj '.sub = "mallory"' <<<"$CLAIMS" | b64url).${ID_TOKEN##*.}"
check_failing "the checks catch a forged payload" ValidateIdTokenSignature idtoken "$PUBLIC" "$C1" "$NONCE" "$JWKS" "$FORGED" openid "$ACCESS"

step "oidcc-server-client-secret-post"
flow oidcc-server-client-secret-post post "$CP" "$SP" openid

step "oidcc-ensure-post-request-succeeds"
# The suite's browser posts the authorization request as a form from the
# relying party's page (another site): authd answers it as the GET.
request "$C1" openid
http POST /authorize -H "Cookie: auth=$COOKIE" -H "Origin: https://rp.example.test" -H "Sec-Fetch-Site: cross-site" \
  -H "Content-Type: application/x-www-form-urlencoded" --data-binary "$QUERY"
CALLBACK=$(header Location)
callback_checks oidcc-ensure-post-request-succeeds
redeem oidcc-ensure-post-request-succeeds basic "$C1" "$S1"
expect_status 200 "oidcc-ensure-post-request-succeeds: the code redeemed"

step "oidcc-response-type-missing"
CLIENT=$C1
request "$C1" openid
authorize "${QUERY/response_type=code&/}"
error_checks oidcc-response-type-missing
expect_match "oidcc-response-type-missing: CheckErrorFromAuthorizationEndpointErrorInvalidRequestOrUnsupportedResponseType" \
  '^(invalid_request|unsupported_response_type)$' "$(query_param "$CALLBACK" error)"

step "oidcc-idtoken-unsigned: skipped by the suite, 'none' is no ID-token algorithm here"
expect_eq "oidcc-idtoken-unsigned: OIDCCCheckIdTokenSigningAlgValuesSupportedAlgNone (the skip)" false \
  "$(jq '.id_token_signing_alg_values_supported | index("none") != null' <<<"$DISCOVERY")"

for module in oidcc-userinfo-get oidcc-userinfo-post-header; do
  step "$module"
  flow "$module" basic "$C1" "$S1" openid
  method=GET; [[ $module == *post* ]] && method=POST
  userinfo_checks "$module" openid "$method"
done

step "oidcc-userinfo-post-body: a token in the body is refused (RFC 6750 §2.2 is optional; the suite warns)"
flow oidcc-userinfo-post-body basic "$C1" "$S1" openid
http POST /userinfo --data-urlencode "access_token=$ACCESS"
expect_match "oidcc-userinfo-post-body: not 2xx -> UserInfoEndpointWithAccessTokenInBodyNotSupported (the warning)" '^4' "$STATUS"

step "oidcc-ensure-request-without-nonce-succeeds-for-code-flow"
flow oidcc-ensure-request-without-nonce-succeeds-for-code-flow basic "$C1" "$S1" openid nonce=-
expect_eq "oidcc-ensure-request-without-nonce-succeeds-for-code-flow: no nonce in the ID token" null "$(jq -c .nonce <<<"$CLAIMS")"

step "oidcc-scope-profile"
expect_eq "oidcc-scope-profile: OIDCCCheckScopesSupportedContainScopeTest" true "$(jq '.scopes_supported | index("profile") != null' <<<"$DISCOVERY")"
flow oidcc-scope-profile basic "$C1" "$S1" "openid profile"
userinfo_checks oidcc-scope-profile "openid profile" GET \
  '["VerifyScopesReturnedInUserInfoClaims: missing given_name family_name middle_name nickname profile picture website gender birthdate zoneinfo locale updated_at"]'
expect_eq "oidcc-scope-profile: what authd holds: name, preferred_username" "Test Person alice" \
  "$(jq -r '"\(.name) \(.preferred_username)"' <<<"$USERINFO")"

for module in oidcc-scope-email oidcc-alternate-happy-flow; do
  step "$module"
  expect_eq "$module: OIDCCCheckScopesSupportedContainScopeTest" true "$(jq '.scopes_supported | index("email") != null' <<<"$DISCOVERY")"
  if [[ $module == oidcc-scope-email ]]; then
    flow "$module" basic "$C1" "$S1" "openid email"
  else
    # ReverseScopeOrderInAuthorizationEndpointRequest, BuildPlainRedirectToAuthorizationEndpointReorderedParams
    CLIENT=$C1
    request "$C1" "email openid"
    QUERY=$(tr '&' '\n' <<<"$QUERY" | sort -r | paste -sd'&')
    authorize "$QUERY"
    callback_checks "$module"
    redeem "$module" basic "$C1" "$S1"
    id_token_checks "$module" "email openid"
  fi
  userinfo_checks "$module" "openid email" GET
  expect_eq "$module: email and email_verified in UserInfo, not in the ID token" "test@example.com false null" \
    "$(jq -r '"\(.email) \(.email_verified)"' <<<"$USERINFO") $(jq -r .email <<<"$CLAIMS")"
done

for scope in address phone "email phone address profile"; do
  module=oidcc-scope-${scope// */}; [[ $scope == *' '* ]] && module=oidcc-scope-all
  step "$module: skipped by the suite, as scopes_supported does not list it"
  expect_eq "$module: OIDCCCheckScopesSupportedContainScopeTest fails -> fireTestSkipped" false \
    "$(jq --arg s "$scope" '[($s | split(" "))[] as $w | .scopes_supported | index($w) != null] | all' <<<"$DISCOVERY")"
done

for extra in display=page display=popup extra=foobar ui_locales=se claims_locales=se; do
  case $extra in
    display=*) module=oidcc-display-${extra#display=} ;;
    extra=*) module=oidcc-ensure-request-with-unknown-parameter-succeeds ;;
    ui_locales=*) module=oidcc-ui-locales ;;
    claims_locales=*) module=oidcc-claims-locales ;;
  esac
  step "$module"
  flow "$module" basic "$C1" "$S1" openid "$extra"
done

step "oidcc-ensure-request-with-acr-values-succeeds"
ACR_VALUES=$(jq -r '.acr_values_supported | join(" ")' <<<"$DISCOVERY")
flow oidcc-ensure-request-with-acr-values-succeeds basic "$C1" "$S1" openid "acr_values=$ACR_VALUES"
expect_eq "oidcc-ensure-request-with-acr-values-succeeds: ValidateIdTokenACRClaimAgainstAcrValuesRequest" yes \
  "$(yesno grep -qw -- "$(jq -r .acr <<<"$CLAIMS")" <<<"$ACR_VALUES")"

step "oidcc-prompt-none-not-logged-in"
CLIENT=$C1
request "$C1" openid prompt=none "state=$(random 64)"
COOKIE='' authorize "$QUERY"
expect_eq "oidcc-prompt-none-not-logged-in: the state is 128 characters" 128 "${#STATE}"
error_checks oidcc-prompt-none-not-logged-in
expect_match "oidcc-prompt-none-not-logged-in: CheckErrorFromAuthorizationEndpointIsOneThatRequiredAUserInterface" \
  '^(interaction_required|login_required|account_selection_required|consent_required)$' "$(query_param "$CALLBACK" error)"
expect_eq "oidcc-prompt-none-not-logged-in: no sign-in page shown" no "$SIGNED_IN"

# AbstractOIDCCSameAuthTwiceServerTest: two authorizations, the second with
# the module's parameters; the same auth_time and sub, no sign-in.
same_auth_twice() {  # MODULE FIRST-PARAMS SECOND-PARAMS...
  local module=$1 first=$2 first_auth
  flow "$module" basic "$C1" "$S1" openid ${first:+"$first"}
  FIRST_ID_TOKEN=$ID_TOKEN
  first_auth=$(jq -r .auth_time <<<"$CLAIMS")
  [[ -z $first ]] || expect_match "$module: CheckIdTokenAuthTimeClaimPresentDueToMaxAge (first)" '^[0-9]+$' "$first_auth"
  local -a second=("${@:3}")
  second=("${second[@]//@FIRST_ID_TOKEN@/$FIRST_ID_TOKEN}")
  flow "$module" basic "$C1" "$S1" openid "${second[@]}"
  expect_eq "$module: the second authorization asked nothing" no "$SIGNED_IN"
  expect_eq "$module: CheckIdTokenAuthTimeClaimsSameIfPresent" "$first_auth" "$(jq -r .auth_time <<<"$CLAIMS")"
  expect_eq "$module: CheckIdTokenSubConsistentForSecondAuthorization" "$FIRST_SUB" "$(jq -r .sub <<<"$CLAIMS")"
}
step "oidcc-prompt-none-logged-in"
same_auth_twice oidcc-prompt-none-logged-in "" prompt=none
step "oidcc-max-age-10000"
same_auth_twice oidcc-max-age-10000 max_age=15000 max_age=10000
expect_match "oidcc-max-age-10000: CheckIdTokenAuthTimeClaimPresentDueToMaxAge (second)" '^[0-9]+$' "$(jq -r .auth_time <<<"$CLAIMS")"
step "oidcc-id-token-hint"
same_auth_twice oidcc-id-token-hint "" prompt=none "id_token_hint=@FIRST_ID_TOKEN@"

# oidcc-prompt-login and oidcc-max-age-1: a first authorization, a wait (the
# suite's WaitForOneSecond, WaitFor2Seconds: one 2-second wait serves both),
# then the second must show the sign-in page and carry a later auth_time.
step "oidcc-prompt-login, oidcc-max-age-1: the first authorizations"
flow oidcc-prompt-login basic "$C1" "$S1" openid
LOGIN_FIRST_AUTH=$(jq -r .auth_time <<<"$CLAIMS")
flow oidcc-max-age-1 basic "$C1" "$S1" openid
MAXAGE_FIRST_AUTH=$(jq -r .auth_time <<<"$CLAIMS")
sleep 2
step "oidcc-max-age-1"
flow oidcc-max-age-1 basic "$C1" "$S1" openid max_age=1
expect_eq "oidcc-max-age-1: ExpectSecondLoginPage (the sign-in page, then the code)" yes "$SIGNED_IN"
AUTH_TIME=$(jq -r .auth_time <<<"$CLAIMS")
expect_match "oidcc-max-age-1: CheckIdTokenAuthTimeClaimPresentDueToMaxAge" '^[0-9]+$' "$AUTH_TIME"
expect_arith "oidcc-max-age-1: CheckSecondIdTokenAuthTimeIsLaterIfPresent" "$AUTH_TIME > $MAXAGE_FIRST_AUTH"
expect_arith "oidcc-max-age-1: CheckIdTokenAuthTimeIsRecentIfPresent" "$AUTH_TIME >= $(date +%s) - 301"

step "oidcc-prompt-login"
flow oidcc-prompt-login basic "$C1" "$S1" openid prompt=login
expect_eq "oidcc-prompt-login: ExpectSecondLoginPage (the sign-in page, then the code)" yes "$SIGNED_IN"
expect_arith "oidcc-prompt-login: CheckSecondIdTokenAuthTimeIsLaterIfPresent" "$(jq -r .auth_time <<<"$CLAIMS") > $LOGIN_FIRST_AUTH"

step "oidcc-login-hint: a signed-out browser, login_hint=buffy@<issuer host>"
COOKIE=""
flow oidcc-login-hint basic "$C1" "$S1" openid "login_hint=buffy@sso.example.test"
expect_eq "oidcc-login-hint: the sign-in page, then the code" yes "$SIGNED_IN"

# AbstractOIDCCAuthCodeReuse.checkResponse, on the second use of $CODE.
code_reuse_checks() {
  http POST /token -u "$C1:$S1" --data-urlencode grant_type=authorization_code --data-urlencode "code=$CODE" \
    --data-urlencode "redirect_uri=$CB"
  expect_status 400 "$1: CheckTokenEndpointHttpStatus400"
  expect_match "$1: CheckTokenEndpointReturnedJsonContentType" '^application/json' "$(header Content-Type)"
  expect_json "$1: CheckErrorFromTokenEndpointResponseErrorInvalidGrant" .error invalid_grant
  expect_eq "$1: ValidateErrorDescriptionFromTokenEndpointResponseError" yes "$(description_ok "$(json '.error_description // ""')")"
  expect_eq "$1: ValidateErrorUriFromTokenEndpointResponseError (none)" "" "$(json '.error_uri // ""')"
}
step "oidcc-codereuse"
flow oidcc-codereuse basic "$C1" "$S1" openid
code_reuse_checks oidcc-codereuse
# oidcc-codereuse-30seconds waits 30 s before the second use. authd keeps a
# used code's record kRememberUsed (600 s) from its first use
# (lib/oidc/authorization_codes.cpp), and redeem() looks at "used" before the
# code's 60 s expiry, so a second use at 30 s takes the same path as one at
# once (the expiry never turns a replay into a mere "unknown code"): checked at once.
step "oidcc-codereuse-30seconds (at once: the same path as at 30 s, see above)"
flow oidcc-codereuse-30seconds basic "$C1" "$S1" openid
code_reuse_checks oidcc-codereuse-30seconds
http GET /userinfo -H "Authorization: Bearer $ACCESS"
expect_match "oidcc-codereuse-30seconds: the first use's access token is revoked (EnsureHttpStatusCodeIs4xx)" '^4' "$STATUS"

step "oidcc-ensure-registered-redirect-uri"
request "$C1" openid
authorize "${QUERY/$(enc "$CB")/$(enc "$CB$(random 4)")}"
expect_status 400 "oidcc-ensure-registered-redirect-uri: ExpectRedirectUriErrorPage (an error page)"
expect_eq "oidcc-ensure-registered-redirect-uri: never redirected, to either URI" "" "$(header Location)"

step "oidcc-ensure-redirect-uri-in-authorization-request (oidcc-test-plan): no redirect_uri"
request "$C1" openid
authorize "${QUERY/redirect_uri=$(enc "$CB")&/}"
expect_status 400 "oidcc-ensure-redirect-uri-in-authorization-request: ExpectRedirectUriMissingErrorPage"
expect_eq "oidcc-ensure-redirect-uri-in-authorization-request: AuthorizationEndpointRedirectedBackUnexpectedly (no)" "" "$(header Location)"

# Request objects (OIDC Core §6): an unsigned one (alg none) with the
# parameters the suite also sends outside it (response_type, client_id, scope,
# redirect_uri); authd supports none (request_parameter_supported false).
request_object() {  # JSON -> an unsigned JWT
  printf '%s.%s.' "$(printf '{"alg":"none"}' | basenc --base64url -w0 | tr -d =)" \
    "$(printf '%s' "$1" | basenc --base64url -w0 | tr -d =)"
}
step "oidcc-unsigned-request-object-supported-correctly-or-rejected-as-unsupported"
STATE=$(random)
OBJECT=$(request_object "$(jq -cn --arg c "$C1" --arg r "$CB" --arg s "$STATE" \
  '{response_type: "code", client_id: $c, redirect_uri: $r, scope: "openid", state: $s, nonce: "n"}')")
authorize "response_type=code&client_id=$C1&scope=openid&redirect_uri=$(enc "$CB")&request=$OBJECT"
expect_eq "oidcc-unsigned-request-object-...: request_not_supported (the suite then skips)" request_not_supported \
  "$(query_param "$CALLBACK" error)"
expect_eq "oidcc-unsigned-request-object-...: no code" "" "$(query_param "$CALLBACK" code)"
expect_eq "oidcc-unsigned-request-object-...: request_parameter_supported false" false "$(jq .request_parameter_supported <<<"$DISCOVERY")"

step "oidcc-ensure-request-object-with-redirect-uri: a good redirect_uri inside, a bad one outside"
OBJECT=$(request_object "$(jq -cn --arg c "$C1" --arg r "$CB" '{response_type: "code", client_id: $c, redirect_uri: $r, scope: "openid"}')")
authorize "response_type=code&client_id=$C1&scope=openid&redirect_uri=$(enc "$CB/evil")&request=$OBJECT"
expect_status 400 "oidcc-ensure-request-object-with-redirect-uri: ExpectRedirectUriErrorPage (the outer redirect_uri is checked)"
expect_eq "oidcc-ensure-request-object-with-redirect-uri: EnsureOPDoesNotUseDefaultRedirectUriInCaseOfInvalidRedirectUri" "" "$(header Location)"

step "oidcc-claims-essential: name asked for as an essential UserInfo claim"
flow oidcc-claims-essential basic "$C1" "$S1" openid 'claims={"userinfo":{"name":{"essential":true}}}'
userinfo_checks oidcc-claims-essential openid GET
expect_eq "oidcc-claims-essential: EnsureUserInfoContainsName is the suite's warning: the claims parameter is not supported" \
  "null false" "$(jq -r .name <<<"$USERINFO") $(jq .claims_parameter_supported <<<"$DISCOVERY")"

step "oidcc-ensure-request-with-valid-pkce-succeeds"
VERIFIER=$(random 32)
CHALLENGE=$(printf %s "$VERIFIER" | openssl dgst -sha256 -binary | basenc --base64url -w0 | tr -d =)
CLIENT=$C1
request "$C1" openid "code_challenge=$CHALLENGE" code_challenge_method=S256
authorize "$QUERY"
callback_checks oidcc-ensure-request-with-valid-pkce-succeeds
redeem oidcc-ensure-request-with-valid-pkce-succeeds basic "$C1" "$S1" --data-urlencode "code_verifier=$VERIFIER"
id_token_checks oidcc-ensure-request-with-valid-pkce-succeeds openid

# oidcc-refresh-token: openid offline_access with prompt=consent, for client
# and client2; RefreshTokenRequestSteps, then client2's refresh token at client.
step "oidcc-refresh-token"
expect_eq "oidcc-refresh-token: EnsureServerConfigurationSupportsRefreshToken" true \
  "$(jq '.grant_types_supported | index("refresh_token") != null' <<<"$DISCOVERY")"
CLIENT=$C1
request "$C1" "openid offline_access" prompt=consent
authorize "$QUERY"
expect_eq "oidcc-refresh-token: prompt=consent shows the consent page" yes "$CONSENTED"
callback_checks oidcc-refresh-token
redeem oidcc-refresh-token basic "$C1" "$S1"
id_token_checks oidcc-refresh-token "openid offline_access"
FIRST_CLAIMS=$CLAIMS FIRST_ACCESS=$ACCESS
expect_match "oidcc-refresh-token: EnsureRefreshTokenContainsAllowedCharactersOnly" '^[ -~]+$' "$REFRESH"
sleep 1
http POST /token -u "$C1:$S1" --data-urlencode grant_type=refresh_token --data-urlencode "refresh_token=$REFRESH" \
  --data-urlencode "scope=openid offline_access"
TOKENS=$BODY
expect_status 200 "oidcc-refresh-token: CheckTokenEndpointHttpStatus200"
expect_match "oidcc-refresh-token: CheckTokenEndpointReturnedJsonContentType" '^application/json' "$(header Content-Type)"
expect_match "oidcc-refresh-token: CheckTokenEndpointCacheHeaders" '(^|, *)no-store(,|$)' "$(header Cache-Control)"
ACCESS=$(jq -r '.access_token // empty' <<<"$TOKENS")
expect_json "oidcc-refresh-token: CheckTokenTypeIsBearer" '.token_type | ascii_downcase' bearer
BITS=$(entropy "$ACCESS")
expect_arith "oidcc-refresh-token: EnsureMinimumAccessTokenEntropy ($BITS bits)" "$BITS > 96"
expect_match "oidcc-refresh-token: EnsureAccessTokenContainsAllowedCharactersOnly" '^[ -~]+$' "$ACCESS"
expect_eq "oidcc-refresh-token: ValidateExpiresIn" true "$(jq '.expires_in | type == "number" and . > 0 and . <= 31536000' <<<"$TOKENS")"
expect_ne "oidcc-refresh-token: EnsureAccessTokenValuesAreDifferent" "$FIRST_ACCESS" "$ACCESS"
NEW_REFRESH=$(jq -r '.refresh_token // empty' <<<"$TOKENS")
if [[ -n $NEW_REFRESH ]]; then
  expect_arith "oidcc-refresh-token: EnsureMinimumRefreshTokenLength" "${#NEW_REFRESH} * 8 >= 128"
  BITS=$(entropy "$NEW_REFRESH")
  expect_arith "oidcc-refresh-token: EnsureMinimumRefreshTokenEntropy ($BITS bits)" "$BITS > 96"
fi
# An ID token in the refresh answer is optional (OIDC Core §12.2); without
# one the suite skips CompareIdTokenClaims, as here.
ID_TOKEN=$(jq -r '.id_token // empty' <<<"$TOKENS")
if [[ -n $ID_TOKEN ]]; then
  # CompareIdTokenClaims (OIDC Core §12.2): same iss, sub, aud, auth_time, azp; a new iat
  SECOND=$(jwt_payload "$ID_TOKEN")
  expect_eq "oidcc-refresh-token: CompareIdTokenClaims (iss sub aud auth_time azp equal)" \
    "$(jq -c '[.iss, .sub, .aud, .auth_time, .azp]' <<<"$FIRST_CLAIMS")" "$(jq -c '[.iss, .sub, .aud, .auth_time, .azp]' <<<"$SECOND")"
  expect_ne "oidcc-refresh-token: CompareIdTokenClaims (a new iat)" "$(jq .iat <<<"$FIRST_CLAIMS")" "$(jq .iat <<<"$SECOND")"
fi
http GET /userinfo -H "Authorization: Bearer $ACCESS"
expect_status 200 "oidcc-refresh-token: the refreshed access token reaches UserInfo"
# Second client
CLIENT=$C2
request "$C2" "openid offline_access" prompt=consent
authorize "$QUERY"
callback_checks "oidcc-refresh-token (client2)"
redeem "oidcc-refresh-token (client2)" basic "$C2" "$S2"
expect_ne "oidcc-refresh-token (client2): a refresh token" "" "$REFRESH"
http POST /token -u "$C1:$S1" --data-urlencode grant_type=refresh_token --data-urlencode "refresh_token=$REFRESH"
expect_status 400 "oidcc-refresh-token: client2's refresh token at client: CheckTokenEndpointHttpStatus400"
expect_match "oidcc-refresh-token: ... CheckTokenEndpointReturnedJsonContentType" '^application/json' "$(header Content-Type)"
expect_json "oidcc-refresh-token: ... CheckErrorFromTokenEndpointResponseErrorInvalidGrant" .error invalid_grant

# oidcc-server-rotate-keys: the module fetches the JWKS, the tester rotates
# the OP's keys (here: authctl key rotate --id-token, another process than
# authd), the module fetches the JWKS again and wants a new signing key and
# (a warning) the old one still there. It does not look at the ID tokens
# signed after; this step does too: the next ID token names the new kid and
# verifies against the new JWKS, one from before still verifies until the old
# key is retired (authctl key retire --id-token), then no longer.
step "oidcc-server-rotate-keys"
flow "oidcc-server-rotate-keys (before)" basic "$C1" "$S1" openid
BEFORE_ID_TOKEN=$ID_TOKEN BEFORE_NONCE=$NONCE BEFORE_ACCESS=$ACCESS
OLD_KID=$(authctl key list --id-token --json 2>/dev/null | jq -r '.[] | select(.current) | .kid')
expect_eq "oidcc-server-rotate-keys: the ID token names the current key (authctl key list --id-token)" \
  "$OLD_KID" "$(jwt_header "$BEFORE_ID_TOKEN" | jq -r .kid)"
http GET /.well-known/jwks.json
ORIGINAL_JWKS=$BODY
NEW_KID=$(authctl key rotate --id-token 2>&1)
expect_match "oidcc-server-rotate-keys: TellUserToRotateOpKeys (authctl key rotate --id-token prints the new kid)" \
  '^[A-Za-z0-9_-]{8,}$' "$NEW_KID"
expect_eq "authctl key list --id-token: both keys, the new one current" \
  "$(printf '%s\n%s *' "$OLD_KID" "$NEW_KID" | sort)" "$(authctl key list --id-token 2>&1 | sort)"
expect_match "the rotation is audited" "\"key_rotated\".*new ID-token signing key $NEW_KID" "$(cat "$AUTHD_AUDIT_LOG")"
http GET /.well-known/jwks.json
expect_status 200 "oidcc-server-rotate-keys: FetchServerKeys"
JWKS=$BODY
check "oidcc-server-rotate-keys: the new JWKS (ValidateServerJWKs, VerifyNewJwksHasNewSigningKey, VerifyNewJwksStillHasOldSigningKey)" \
  rotatedkeys - "$ORIGINAL_JWKS" "$JWKS"
check_failing "the checks catch a JWKS that did not change" VerifyNewJwksHasNewSigningKey rotatedkeys "$ORIGINAL_JWKS" "$ORIGINAL_JWKS"
flow "oidcc-server-rotate-keys (after)" basic "$C1" "$S1" openid
expect_eq "oidcc-server-rotate-keys: authd signs the next ID token with the new key at once" \
  "$NEW_KID" "$(jwt_header "$ID_TOKEN" | jq -r .kid)"
check "oidcc-server-rotate-keys: an ID token from before the rotation still verifies against the JWKS" \
  idtoken - "$PUBLIC" "$C1" "$BEFORE_NONCE" "$JWKS" "$BEFORE_ID_TOKEN" openid "$BEFORE_ACCESS"
expect_eq "authctl key retire --id-token: the old key" "retired $OLD_KID" "$(authctl key retire --id-token 2>&1)"
http GET /.well-known/jwks.json
expect_eq "the JWKS publishes the new key alone" "$NEW_KID" "$(jq -r '[.keys[].kid] | join(" ")' <<<"$BODY")"
check_failing "once retired, an ID token from before no longer verifies" ValidateIdTokenSignature \
  idtoken "$PUBLIC" "$C1" "$BEFORE_NONCE" "$BODY" "$BEFORE_ID_TOKEN" openid "$BEFORE_ACCESS"
check "and one from after still does" idtoken - "$PUBLIC" "$C1" "$NONCE" "$BODY" "$ID_TOKEN" openid "$ACCESS"

step "the queued conditions (test/oidc/conformance.mjs)"
run_checks
finish

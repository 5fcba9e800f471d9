#!/usr/bin/env bash
# Attack it stops (issue 41 class 1): a token authd signs for something other
# than the user's session passed for the user at every resource server that
# verifies authd's tokens the documented way (PyJWT or jose, issuer and
# audience "authd", algorithm pinned, against the JWKS or the HS256 key): a
# third-party OpenID client the user allowed `openid profile` to took its
# access token to the user's other apps and was the user there, role and
# all; the 180-day authd_device cookie, a WebAuthn challenge or an OAuth
# state cookie could do the same.
# On HS256, EdDSA and ES256 (three stacks, one after the other): a session
# token, a first-party and a third-party client's access tokens, the refresh
# token, the ID token, the device cookie, the OAuth state cookie and a
# WebAuthn challenge are each verified by PyJWT (test/jwks/verify.py) and jose
# (test/jwks/verify.mjs) exactly as docs/tokens-and-keys.md says: only the
# session passes, and every other kind fails even without the typ check (its
# audience, issuer or key is not the session's). The client's token still
# works at /userinfo and nowhere else; authd's session is refused at
# /userinfo; a client token of the shape issued before (aud [authd, client])
# stays refused on guarded routes and at /userinfo.
source "$(dirname "$0")/harness.sh"
need_jwks_verifiers

export AUTHD_OIDC_PROVIDER=true AUTHD_REFRESH_TOKEN_TTL=3600
export AUTHD_WEBAUTHN_RP_ID=localhost AUTHD_WEBAUTHN_ORIGINS=http://localhost AUTHD_PASSKEY_SIGNIN=true
# A plain OAuth 2.0 provider nobody answers at: enough for GET /oauth to start
# (302 and the signed state cookie).
export AUTHD_OAUTH_AUTHORIZATION_URL=http://127.0.0.1:9/authorize AUTHD_OAUTH_TOKEN_URL=http://127.0.0.1:9/token \
  AUTHD_OAUTH_USERINFO_URL=http://127.0.0.1:9/userinfo AUTHD_OAUTH_CLIENT_ID=authd-test \
  AUTHD_OAUTH_CLIENT_SECRET=not-used AUTHD_OAUTH_REDIRECT_URI=http://127.0.0.1/oauth

b64url() { base64 -w0 | tr '+/' '-_' | tr -d '='; }
query_param() { $PY -c 'import sys, urllib.parse as u; print(u.parse_qs(u.urlsplit(sys.argv[1]).query).get(sys.argv[2], [""])[0])' "$1" "$2"; }
cookie_named() { header Set-Cookie | sed -n "s/^$1=\([^;]*\);.*/\1/p" | head -1; }
CB=http://127.0.0.1:9/cb

# The documented recipe, in both libraries: TOKEN|- [no-typ] (-: the tokens
# on stdin, one a line; one answer a line).
by_pyjwt() { NO_PROXY='*' no_proxy='*' $PY "$JWKS_DIR/verify.py" "$KEYS" "$1" authd authd "$ALG" ${2:+"$2"} 2>&1; }
by_jose() { (cd "$JWKS_DIR" && NO_PROXY='*' node verify.mjs "$KEYS" "$1" authd authd "$ALG" ${2:+"$2"}) 2>&1; }

# The code flow for CLIENT (SECRET) with alice's cookie, by curl: PKCE S256,
# consent when the client is not first-party. Sets ACCESS, ID_TOKEN, REFRESH.
code_flow() {  # CLIENT SECRET SCOPE
  local verifier challenge authz request next code
  verifier=$(head -c 32 /dev/urandom | b64url)
  challenge=$(printf '%s' "$verifier" | openssl dgst -sha256 -binary | b64url)
  authz="$BASE_URL/authorize?response_type=code&client_id=$1&redirect_uri=$CB&scope=${3// /%20}&state=s1"
  authz+="&code_challenge=$challenge&code_challenge_method=S256"
  http GET "$authz" -H "Cookie: auth=$SESSION"
  if [[ $STATUS == 200 ]]; then  # the consent page
    request=$(sed -n 's/.*name="request" value="\([^"]*\)".*/\1/p' <<<"$BODY" | sed 's/&amp;/\&/g')
    http POST /authorize/consent -H "Cookie: auth=$SESSION" -H "Origin: $BASE_URL" \
      --data-urlencode "request=$request" --data-urlencode decision=allow
    next=$(sed -n 's/.*id="continue" href="\([^"]*\)".*/\1/p' <<<"$BODY" | sed 's/&amp;/\&/g')
    http GET "$BASE_URL$next" -H "Cookie: auth=$SESSION"
  fi
  code=$(query_param "$(header Location)" code)
  [[ -n $code ]] || fail "$ALG: a code for $1" "status $STATUS, Location $(header Location)"
  http POST /token -u "$1:$2" --data-urlencode grant_type=authorization_code --data-urlencode "code=$code" \
    --data-urlencode "redirect_uri=$CB" --data-urlencode "code_verifier=$verifier"
  expect_status 200 "$ALG: POST /token for $1"
  ACCESS=$(json .access_token) ID_TOKEN=$(json .id_token) REFRESH=$(json '.refresh_token // empty')
}

for ALG in HS256 EdDSA ES256; do
  export AUTHD_TOKEN_ALGORITHM=$ALG
  stack_start
  if [[ $ALG == HS256 ]]; then KEYS=secret:$STATE_DIR/signing.key; else KEYS=$BASE_URL/.well-known/jwks.json; fi
  USER_NAME=alice.${ALG,,}

  step "$ALG: every kind of token authd signs"
  signup "$USER_NAME" 'alice password'
  signin "$USER_NAME" 'alice password'
  SESSION=$TOKEN
  USER_ID=$(jwt_payload "$SESSION" | jq -r .sub)
  declare -A KIND=()
  KIND[device cookie]=$(cookie_named authd_device)
  KIND[refresh token]=$(cookie_named refresh)
  OUT=$(authctl client add "Wiki $ALG" --first-party --redirect-uri "$CB" --scope openid profile offline_access 2>/dev/null)
  WIKI=$(sed -n 's/^client_id: //p' <<<"$OUT") WIKI_SECRET=$(sed -n 's/^client_secret: //p' <<<"$OUT")
  OUT=$(authctl client add "Forum $ALG" --redirect-uri "$CB" --scope openid profile 2>/dev/null)
  FORUM=$(sed -n 's/^client_id: //p' <<<"$OUT") FORUM_SECRET=$(sed -n 's/^client_secret: //p' <<<"$OUT")
  code_flow "$WIKI" "$WIKI_SECRET" "openid profile offline_access"
  KIND[first-party client token]=$ACCESS
  KIND[ID token]=$ID_TOKEN
  KIND[client refresh token]=$REFRESH
  code_flow "$FORUM" "$FORUM_SECRET" "openid profile"
  KIND[third-party client token]=$ACCESS
  FORUM_ACCESS=$ACCESS
  http GET /oauth
  expect_status 302 "$ALG: GET /oauth starts a third-party sign-in"
  KIND[OAuth state cookie]=$(cookie_named authd_oauth)
  TOKEN=$SESSION auth_post /me/mfa/webauthn/register/begin '{}'
  expect_status 200 "$ALG: a WebAuthn registration challenge"
  KIND[WebAuthn registration challenge]=$(b64url_decode "$(json .publicKey.challenge)")
  http POST /signin/passkey/begin
  expect_status 200 "$ALG: a WebAuthn sign-in challenge"
  KIND[WebAuthn sign-in challenge]=$(b64url_decode "$(json .publicKey.challenge)")
  for kind in "${!KIND[@]}"; do
    [[ -n ${KIND[$kind]} ]] || fail "$ALG: got the $kind"
  done
  expect_eq "$ALG: a client's token is at+jwt for the client alone" "at+jwt \"$FORUM\" $FORUM" \
    "$(jwt_header "$FORUM_ACCESS" | jq -r .typ) $(jwt_payload "$FORUM_ACCESS" | jq -c .aud) $(jwt_payload "$FORUM_ACCESS" | jq -r .client_id)"
  expect_eq "$ALG: the device cookie: its own typ, audience, HS256" "authd-device+jwt authd:device HS256" \
    "$(jwt_header "${KIND[device cookie]}" | jq -r .typ) $(jwt_payload "${KIND[device cookie]}" | jq -r .aud) $(jwt_header "${KIND[device cookie]}" | jq -r .alg)"

  step "$ALG: the documented recipe accepts the session only"
  expect_eq "$ALG: PyJWT accepts the session" "ok $USER_ID" "$(by_pyjwt "$SESSION" | cut -d' ' -f1-2)"
  expect_eq "$ALG: jose accepts the session" "ok $USER_ID" "$(by_jose "$SESSION" | cut -d' ' -f1-2)"
  # Every other kind in one run of each verifier (a process per token is too slow).
  mapfile -t KINDS < <(printf '%s\n' "${!KIND[@]}")
  LINES=$(for kind in "${KINDS[@]}"; do printf '%s\n' "${KIND[$kind]:-missing}"; done)
  for mode in typ no-typ; do
    [[ $mode == typ ]] && how="" || how=" without the typ check"
    mapfile -t PY_ANSWERS < <(by_pyjwt - "${mode/#typ/}" <<<"$LINES")
    mapfile -t JOSE_ANSWERS < <(by_jose - "${mode/#typ/}" <<<"$LINES")
    for i in "${!KINDS[@]}"; do
      # Without the typ check too: its audience, issuer or key is not the session's.
      expect_match "$ALG: PyJWT refuses the ${KINDS[$i]}$how" '^fail' "${PY_ANSWERS[$i]:-no answer}"
      expect_match "$ALG: jose refuses the ${KINDS[$i]}$how" '^fail' "${JOSE_ANSWERS[$i]:-no answer}"
    done
  done

  step "$ALG: each token where it belongs"
  TOKEN=$SESSION auth_get /me
  expect_status 200 "$ALG: the session at GET /me"
  for client in first-party third-party; do
    CLIENT_TOKEN=${KIND["$client client token"]}
    TOKEN=$CLIENT_TOKEN auth_get /me
    expect_status 401 "$ALG: the $client client's token at GET /me"
    TOKEN=$CLIENT_TOKEN auth_get /records
    expect_status 401 "$ALG: the $client client's token at GET /records"
    http GET /userinfo -H "Authorization: Bearer $CLIENT_TOKEN"
    expect_status 200 "$ALG: the $client client's token at /userinfo"
    expect_json "$ALG: /userinfo names the user" .sub "$USER_ID"
  done
  http GET /userinfo -H "Authorization: Bearer $SESSION"
  expect_status 401 "$ALG: /userinfo refuses the session"
  for kind in "device cookie" "OAuth state cookie" "WebAuthn sign-in challenge"; do
    TOKEN=${KIND[$kind]} auth_get /me
    expect_status 401 "$ALG: the $kind at GET /me"
  done
  if [[ $ALG == HS256 ]]; then
    # A client token of before the upgrade: the session's claims with aud
    # [authd, client] and client_id, made with the signing key as authd made them.
    resign() { $PY -c 'import sys, json, jwt; print(jwt.encode(json.loads(sys.argv[2]), open(sys.argv[1], "rb").read(), algorithm="HS256", headers={"typ": "at+jwt"}))' "$STATE_DIR/signing.key" "$1"; }
    CLAIMS=$(jwt_payload "$SESSION")
    TOKEN=$(resign "$CLAIMS") auth_get /me
    expect_status 200 "$ALG: control: the session's claims signed again pass"
    OLD=$(resign "$(jq -c --arg c "$FORUM" '.aud = ["authd", $c] | .client_id = $c | .scope = "openid profile"' <<<"$CLAIMS")")
    TOKEN=$OLD auth_get /me
    expect_status 401 "$ALG: an old-shape client token at GET /me"
    http GET /userinfo -H "Authorization: Bearer $OLD"
    expect_status 401 "$ALG: an old-shape client token at /userinfo (its aud holds authd)"
  fi
  stack_stop
  unset KIND
done

finish

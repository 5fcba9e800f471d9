#!/usr/bin/env bash
# Attack: sign-out by a cross-site link. A top-level GET of
# /authorize?...&prompt=login (or max_age=0) with any registered client, from
# any page, expired the victim's `auth` cookie; and GET /end_session with any
# valid ID token (the attacker's own, from any client) cleared it too. Now a
# request for a fresh sign-in changes no cookie: the browser is sent to
# /login?...&prompt=login (the portal shows the sign-in form even over the
# session) and the way back admits only a sign-in made from then on, so the
# old session can neither be lost by the link nor pass for a fresh sign-in;
# /end_session leaves a live session of anyone but the hint's user alone. Requests carry
# Sec-Fetch-Site: cross-site as a browser's would.
source "$(dirname "$0")/harness.sh"
export AUTHD_OIDC_PROVIDER=true
export AUTHD_ARGON2_ITERATIONS=1 AUTHD_ARGON2_MEMORY_KIB=1024
stack_start

CB=http://127.0.0.1:9/cb
OUT=$(authctl client add Wiki --first-party --redirect-uri "$CB" 2>/dev/null)
WIKI=$(sed -n 's/^client_id: //p' <<<"$OUT"); WIKI_SECRET=$(sed -n 's/^client_secret: //p' <<<"$OUT")
[[ -n $WIKI && -n $WIKI_SECRET ]] || fail "Wiki registered"
signup victim 'victim password'; VICTIM=$TOKEN
signup mallory 'mallory password'; MALLORY=$TOKEN
CROSS=(-H 'Sec-Fetch-Site: cross-site' -H 'Sec-Fetch-Mode: navigate')
AUTHZ="/authorize?response_type=code&scope=openid&client_id=$WIKI&redirect_uri=$CB&state=s"
query_param() { /usr/bin/python3 -c 'import sys, urllib.parse as u; print(u.parse_qs(u.urlsplit(sys.argv[1]).query).get(sys.argv[2], [""])[0])' "$1" "$2"; }
code_of() { header Location | sed -n 's/.*[?&]code=\([^&]*\).*/\1/p'; }

step "a cross-site /authorize?prompt=login keeps the victim signed in"
for extra in "&prompt=login" "&max_age=0" "&prompt=login%20consent"; do
  sleep 1   # max_age=0: a sign-in at least a second old
  http GET "$AUTHZ$extra" -H "Cookie: auth=$VICTIM" "${CROSS[@]}"
  expect_status 302 "$extra: to the sign-in page"
  expect_match "$extra: /login, asking for the password over the session" '^/login\?rd=.*&prompt=login' "$(header Location)"
  expect_eq "$extra: no Set-Cookie at all" "" "$(header Set-Cookie)"
  TOKEN=$VICTIM auth_get /me
  expect_status 200 "$extra: the victim's session still works"
done

step "the old session does not pass for the fresh sign-in"
http GET "$AUTHZ&prompt=login" -H "Cookie: auth=$VICTIM"
LOGIN=$(header Location)
RD=$(query_param "$LOGIN" rd)
expect_match "the way back is /authorize with signed_in_after, without prompt" '^/authorize\?.*signed_in_after=[0-9]+' "$RD"
expect_eq "prompt=login is not carried back (no loop)" no "$(yesno grep -q prompt <<<"$RD")"
http GET "$RD" -H "Cookie: auth=$VICTIM"
expect_match "back with the old session: to the sign-in page again, no code" '^/login\?' "$(header Location)"
expect_eq "and no cookie changed" "" "$(header Set-Cookie)"
sleep 1
signin victim 'victim password'
FRESH=$TOKEN
http GET "$RD" -H "Cookie: auth=$FRESH"
expect_match "after a new sign-in: the code" "^$CB\?code=" "$(header Location)"
http GET "${RD/signed_in_after=/signed_in_after=x}" -H "Cookie: auth=$FRESH"
expect_match "a malformed signed_in_after is refused to the client" "^$CB\?error=invalid_request" "$(header Location)"

step "/end_session with someone else's ID token changes no cookie"
VERIFIER=$(head -c 32 /dev/urandom | base64 -w0 | tr '+/' '-_' | tr -d '=')
CHALLENGE=$(printf '%s' "$VERIFIER" | openssl dgst -sha256 -binary | base64 -w0 | tr '+/' '-_' | tr -d '=')
http GET "$AUTHZ&code_challenge=$CHALLENGE&code_challenge_method=S256" -H "Cookie: auth=$MALLORY"
http POST /token -u "$WIKI:$WIKI_SECRET" --data-urlencode grant_type=authorization_code --data-urlencode "code=$(code_of)" \
  --data-urlencode "redirect_uri=$CB" --data-urlencode "code_verifier=$VERIFIER"
expect_status 200 "mallory's own ID token"
MALLORY_ID_TOKEN=$(json .id_token)
http GET "/end_session?id_token_hint=$MALLORY_ID_TOKEN" -H "Cookie: auth=$FRESH" "${CROSS[@]}"
expect_status 200 "the logout answers"
expect_eq "but clears none of the victim's cookies" "" "$(header Set-Cookie)"
TOKEN=$FRESH auth_get /me
expect_status 200 "the victim is still signed in"
http GET "/end_session?id_token_hint=$MALLORY_ID_TOKEN" -H "Cookie: auth=$MALLORY" "${CROSS[@]}"
expect_match "control: mallory's own logout clears her cookie" '^auth=;' "$(header Set-Cookie)"
TOKEN=$MALLORY auth_get /me
expect_status 401 "control: mallory's session has ended"

step "/end_session without a live session still clears the cookies"
# A lapsed (here: ended) auth cookie says nothing about whose refresh cookie
# the browser holds: signing out must not leave it to bring the session back.
http GET "/end_session?id_token_hint=$MALLORY_ID_TOKEN" -H "Cookie: auth=$MALLORY"
expect_status 200 "the logout answers"
expect_match "an ended session's auth cookie is cleared" '^auth=;' "$(header Set-Cookie)"
http GET "/end_session?id_token_hint=$MALLORY_ID_TOKEN"
expect_match "no auth cookie at all: cleared too" '^auth=;' "$(header Set-Cookie)"
finish

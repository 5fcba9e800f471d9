#!/usr/bin/env bash
# Attack: a stolen refresh token outlives the session it came from. POST
# /signout used to revoke the access token only: the `refresh` cookie
# (Path=/token/refresh) never reaches /signout, so the family went on minting
# tokens for whoever held a copy. And a family rotated within its ttl lived
# for ever. Now the access token names its family (`sid`) and sign-out ends
# it, by bearer token and by the pages' cookie, from the sign-in and from a
# refreshed token; a family never outlives refresh_token_max_age, however
# often it rotates; the refresh cookie is still sent nowhere but
# /token/refresh.
export AUTHD_REFRESH_TOKEN_TTL=600
export AUTHD_REFRESH_TOKEN_MAX_AGE=12
source "$(dirname "$0")/harness.sh"
stack_start

refresh_with() { http POST /token/refresh -H 'Content-Type: application/json' --data-binary "{\"refresh_token\":\"$1\"}"; }
sid_of() { cut -d. -f2 <<<"$1" | tr '_-' '/+' | base64 -d 2>/dev/null | jq -r '.sid // empty' 2>/dev/null; }

signup alice 'alice password'; expect_status 201 "setup: signup alice"

step "sign-out by bearer token ends the sign-in's refresh family"
signin alice 'alice password'
T=$(json .token); R=$(cookie_of refresh)
expect_ne "a refresh token was issued" "" "$R"
expect_match "the refresh cookie stays on its own path" '^refresh=[^;]+; Path=/token/refresh; Max-Age=12; HttpOnly; SameSite=Strict' \
  "$(header Set-Cookie | grep '^refresh=')"
expect_eq "the access token names its family (sid)" "$(cut -d. -f2 <<<"$R")" "$(sid_of "$T")"
http POST /signout -H "Authorization: Bearer $T"
expect_status 204 "signout"
refresh_with "$R"
expect_status 401 "the signed-out session's refresh token is dead"

step "sign-out with a refreshed token ends the family too"
signin alice 'alice password'; R=$(cookie_of refresh)
refresh_with "$R"; expect_status 200 "refresh"
T=$(json .token); R=$(json .refresh_token)
expect_eq "the refreshed token keeps naming the family" "$(cut -d. -f2 <<<"$R")" "$(sid_of "$T")"
http POST /signout -H "Authorization: Bearer $T"
expect_status 204 "signout with the refreshed token"
refresh_with "$R"
expect_status 401 "the newest refresh token of the family is dead"

step "sign-out through the pages' auth cookie"
signin alice 'alice password'; T=$(json .token); R=$(cookie_of refresh)
signin alice 'alice password'; OTHER_R=$(cookie_of refresh)
http POST /signout -H "Cookie: auth=$T" -H "Origin: $BASE_URL"
expect_status 204 "signout by cookie"
http POST /token/refresh -H "Cookie: refresh=$R"
expect_status 401 "its refresh cookie is dead"
refresh_with "$OTHER_R"
expect_status 200 "another session's family lives on"

step "refresh_token_max_age bounds a family, whatever the rotations"
signin alice 'alice password'; R=$(cookie_of refresh)
STARTED=$(date +%s)
refresh_with "$R"; expect_status 200 "first rotation"
R=$(json .refresh_token)
expect_match "the refresh cookie lives no longer than the family" 'Max-Age=(1[0-2]|[1-9]);' "$(header Set-Cookie | grep '^refresh=')"
# Rotate well within the ttl (600 s) until the family's 12 s are over.
ended=""
while (( $(date +%s) - STARTED < 20 )); do
  sleep 2
  refresh_with "$R"
  if [[ $STATUS != 200 ]]; then ended=$(( $(date +%s) - STARTED )); break; fi
  R=$(json .refresh_token)
done
if [[ -n $ended ]] && (( ended >= 11 )); then pass "the family ended at its max age (after ${ended} s of rotations)"
else fail "the family rotated past refresh_token_max_age (ended: '${ended}', status $STATUS)"; fi
finish

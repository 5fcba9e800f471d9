#!/usr/bin/env bash
# The token lifecycle through the web server: POST /signout revokes exactly the
# presented token (by jti, on every route, also through the auth cookie) and clears
# the cookie; POST /signout/all ends every token of the user; GET /me; PUT
# /me/password (wrong current password refused, new token works, every older one
# ends); cookie-authenticated state changes from another site are refused (403);
# rotating refresh tokens (cookie and JSON body, single use, reuse ends the family).
export AUTHD_REFRESH_TOKEN_TTL=600
source "$(dirname "$0")/harness.sh"
stack_start

basic() { printf 'Authorization: Basic %s' "$(printf '%s' "$1" | base64 -w0)"; }
signup() { http POST /signup -H 'Content-Type: application/json' --data-binary "$(jq -nc --arg u "$1" --arg p "$2" '{username:$u,password:$p,fullname:"Test Person",email:"test@example.com"}')"; }
signin() { http POST /signin -H "$(basic "$1:$2")"; }
records_status() { http GET /records -H "Authorization: Bearer $1"; printf '%s' "$STATUS"; }

signup alice 'alice password'; expect_eq "setup: signup alice" 201 "$STATUS"
expect_match "signup sets a refresh cookie on its path" '^refresh=[^;]+; Path=/token/refresh; Max-Age=600; HttpOnly' "$(header Set-Cookie | grep '^refresh=')"
expect_eq "signup body keeps the spec's shape" '["token","user"]' "$(jq -c keys <<<"$BODY")"
signin alice 'alice password'; T1=$(json .token)
signin alice 'alice password'; T2=$(json .token); R2=$(cookie_of refresh)
expect_eq "signin body keeps the spec's shape" '["token","user"]' "$(jq -c keys <<<"$BODY")"
expect_ne "setup: a refresh token was issued" "" "$R2"

step "GET /me"
http GET /me -H "Authorization: Bearer $T1"
expect_eq "GET /me with a bearer token" 200 "$STATUS"
expect_eq "GET /me body" '{"username":"alice","role":"user","capabilities":["read"],"providers":[],"email":"test@example.com","email_verified":false}' "$(command jq -c . <<<"$BODY")"  # jq 1.6 keeps the key order
http GET /me -H "Cookie: auth=$T1"
expect_eq "GET /me with the auth cookie" 200 "$STATUS"
http GET /me
expect_eq "GET /me without credentials" 401 "$STATUS"

step "POST /signout revokes only that token"
http POST /signout -H "Authorization: Bearer $T1"
expect_eq "signout -> 204" 204 "$STATUS"
expect_match "signout clears the auth cookie" '^auth=; Path=/; Max-Age=0' "$(header Set-Cookie | grep '^auth=')"
expect_eq "the signed-out token is refused on /records" 401 "$(records_status "$T1")"
http GET /me -H "Cookie: auth=$T1"
expect_eq "the signed-out token is refused as a cookie" 401 "$STATUS"
http GET /auth/check -H "X-Original-URI: /anything" -H "Authorization: Bearer $T1"
expect_ne "the signed-out token grants nothing through /auth/check" 204 "$STATUS"
expect_eq "another token of the same user still works" 200 "$(records_status "$T2")"
http POST /signout -H "Authorization: Bearer $T1"
expect_eq "signing out twice -> 401" 401 "$STATUS"

step "cookie-authenticated state changes must come from this site"
http POST /signout -H "Cookie: auth=$T2" -H "Origin: http://evil.example"
expect_eq "foreign Origin -> 403" 403 "$STATUS"
expect_eq "foreign Origin: JSON error" Forbidden "$(json .error)"
http POST /signout -H "Cookie: auth=$T2" -H "Sec-Fetch-Site: cross-site"
expect_eq "Sec-Fetch-Site: cross-site -> 403" 403 "$STATUS"
expect_eq "the token survived the refused attempts" 200 "$(records_status "$T2")"
http POST /signout -H "Authorization: Bearer $T2" -H "Origin: http://evil.example"
expect_eq "a bearer token is no ambient credential: foreign Origin allowed" 204 "$STATUS"

step "refresh tokens"
# T2 was signed out above, which ended its refresh family (R2): a new sign-in.
signin alice 'alice password'; R2=$(cookie_of refresh)
http POST /token/refresh -H "Cookie: refresh=$R2"
expect_eq "refresh with the cookie -> 200" 200 "$STATUS"
expect_eq "refresh body" '["refresh_token","token"]' "$(jq -c keys <<<"$BODY")"
T3=$(json .token); R3=$(json .refresh_token)
expect_eq "the token header is the body's token" "$T3" "$(header token)"
expect_eq "the auth cookie is the body's token" "$T3" "$(cookie_of auth)"
expect_eq "the refresh cookie is the body's refresh_token" "$R3" "$(cookie_of refresh)"
expect_eq "the refreshed access token works" 200 "$(records_status "$T3")"
http POST /token/refresh -H 'Content-Type: application/json' --data-binary "{\"refresh_token\":\"$R3\"}"
expect_eq "refresh with the JSON body -> 200" 200 "$STATUS"
R4=$(json .refresh_token)
http POST /token/refresh -H 'Content-Type: application/json' --data-binary "{\"refresh_token\":\"$R3\"}"
expect_eq "a used refresh token -> 401" 401 "$STATUS"
http POST /token/refresh -H 'Content-Type: application/json' --data-binary "{\"refresh_token\":\"$R4\"}"
expect_eq "reuse ended the family: the newest refresh token -> 401" 401 "$STATUS"
http POST /token/refresh -H 'Content-Type: application/json' --data-binary '{"refresh_token":"garbage"}'
expect_eq "garbage refresh token -> 401" 401 "$STATUS"
http POST /token/refresh
expect_eq "no refresh token -> 401" 401 "$STATUS"
signin alice 'alice password'; R5=$(cookie_of refresh)
http POST /token/refresh -H "Cookie: refresh=$R5" -H "Origin: http://evil.example"
expect_eq "refresh cookie from another site -> 403" 403 "$STATUS"

step "PUT /me/password"
signin alice 'alice password'; T6=$(json .token); R6=$(cookie_of refresh)
signin alice 'alice password'; T7=$(json .token)
http PUT /me/password -H "Cookie: auth=$T7" -H 'Content-Type: application/json' --data-binary '{"current_password":"wrong","new_password":"next password"}'
expect_eq "wrong current password -> 500 Invalid Login" 500 "$STATUS"
expect_eq "wrong current password: body" '{"error":"Invalid Login"}' "$(jq -c . <<<"$BODY")"
http PUT /me/password -H "Cookie: auth=$T7" -H 'Content-Type: application/json' --data-binary '{"current_password":"alice password"}'
expect_eq "new_password missing -> 400" 400 "$STATUS"
http PUT /me/password -H "Cookie: auth=$T7" -H 'Content-Type: application/json' --data-binary '{"current_password":"alice password","new_password":"next password"}'
expect_eq "password change -> 200" 200 "$STATUS"
expect_eq "password change answers like sign-in" '["token","user"]' "$(jq -c keys <<<"$BODY")"
T8=$(json .token)
expect_eq "the token header is the body's token" "$T8" "$(header token)"
expect_eq "the new token works" 200 "$(records_status "$T8")"
expect_eq "an older token of the user ends" 401 "$(records_status "$T6")"
expect_eq "the token that changed the password ends too" 401 "$(records_status "$T7")"
http POST /token/refresh -H "Cookie: refresh=$R6"
expect_eq "refresh tokens from before the change end" 401 "$STATUS"
signin alice 'alice password'; expect_eq "the old password is refused" 500 "$STATUS"
signin alice 'next password'; expect_eq "the new password signs in" 200 "$STATUS"

step "POST /signout/all"
T9=$(json .token)
signin alice 'next password'; T10=$(json .token)
http POST /signout/all -H "Cookie: auth=$T9" -H 'Content-Type: application/json'
expect_eq "signout/all -> 204" 204 "$STATUS"
expect_eq "every token of the user ends (the one used)" 401 "$(records_status "$T9")"
expect_eq "every token of the user ends (another one)" 401 "$(records_status "$T10")"
expect_eq "the password-change token ends too" 401 "$(records_status "$T8")"
signin alice 'next password'
expect_eq "a new sign-in works afterwards" 200 "$(records_status "$(json .token)")"

finish

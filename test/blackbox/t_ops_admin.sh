#!/usr/bin/env bash
# Admin API: 401 without a token, 403 for every role but admin (bearer and
# cookie), list with total/role/q/paging, GET one user (no hash), PUT role
# (bad role 400, unknown user 404), POST .../signout (every token of the user
# ends), DELETE (then 404); the `auth` cookie works
# for the browser admin page, but a cookie-authenticated change from another
# site (Origin not the Host, Sec-Fetch-Site: cross-site) is refused with 403.
source "$(dirname "$0")/harness.sh"
stack_start

basic() { printf 'Authorization: Basic %s' "$(printf '%s' "$1" | base64 -w0)"; }
token_of() { http POST /signin -H "$(basic "$1:$1 password")"; json .token; }
for name in root wanda eddie ursula; do printf '%s' "$name password" | authctl add "$name" user >/dev/null; done
authctl role root admin >/dev/null
authctl role wanda writer >/dev/null
authctl role eddie editor >/dev/null
for i in $(seq -w 1 12); do printf '%s' "bulk password" | authctl add "bulk$i" user >/dev/null; done
ROOT=$(token_of root)
JSON=(-H 'Content-Type: application/json')

step "refusals"
http GET /admin/users
expect_status 401 "no token: 401"
expect_json "no token: Access Denied" .error "Access Denied"
for name in wanda eddie ursula; do
  T=$(token_of "$name")
  http GET /admin/users -H "Authorization: Bearer $T"
  expect_status 403 "$name on GET /admin/users"
  expect_json "$name: Access Denied" .error "Access Denied"
  http PUT /admin/users/ursula -H "Authorization: Bearer $T" "${JSON[@]}" --data-binary '{"role":"admin"}'
  expect_status 403 "$name on PUT /admin/users/ursula"
  http DELETE /admin/users/ursula -H "Authorization: Bearer $T"
  expect_status 403 "$name on DELETE /admin/users/ursula"
  http GET /admin/users/ursula --cookie "auth=$T"
  expect_status 403 "$name by cookie on GET /admin/users/ursula"
done
http GET /admin/users -H "Authorization: Bearer not.a.token"
expect_status 401 "bad token: 401"

step "list"
http GET /admin/users -H "Authorization: Bearer $ROOT"
expect_status 200 "admin lists users"
expect_json "total" .total 16
expect_json "first page holds 16 (per_page 20)" '.users | length' 16
expect_json "entries have username, role, _id and source only" '.users[0] | keys | join(",")' "_id,role,source,username"
expect_json "a local account's source" .users[0].source local
http GET '/admin/users?role=editor' -H "Authorization: Bearer $ROOT"
expect_json "role=editor" '[.users[].username] | join(",")' eddie
http GET '/admin/users?q=bulk&per_page=5&page=3' -H "Authorization: Bearer $ROOT"
expect_json "q=bulk total" .total 12
expect_json "page 3 of 5 each" '[.users[].username] | join(",")' "bulk11,bulk12"
http GET '/admin/users?role=king' -H "Authorization: Bearer $ROOT"
expect_status 400 "unknown role filter: 400"
http GET '/admin/users?per_page=0' -H "Authorization: Bearer $ROOT"
expect_status 400 "per_page=0: 400"

step "one user"
http GET /admin/users/ursula -H "Authorization: Bearer $ROOT"
expect_status 200 "GET ursula"
expect_json "ursula role" .role user
expect_json "no password hash shown" 'has("password")' false
http GET /admin/users/nobody -H "Authorization: Bearer $ROOT"
expect_status 404 "unknown user: 404"
http PUT /admin/users/ursula -H "Authorization: Bearer $ROOT" "${JSON[@]}" --data-binary '{"role":"overlord"}'
expect_status 400 "bad role: 400"
http PUT /admin/users/ursula -H "Authorization: Bearer $ROOT" "${JSON[@]}" --data-binary '{"rank":"admin"}'
expect_status 400 "no role: 400"
http PUT /admin/users/nobody -H "Authorization: Bearer $ROOT" "${JSON[@]}" --data-binary '{"role":"writer"}'
expect_status 404 "PUT unknown user: 404"
http PUT /admin/users/ursula -H "Authorization: Bearer $ROOT" "${JSON[@]}" --data-binary '{"role":"writer"}'
expect_status 200 "PUT ursula writer"
expect_json "ursula now writer" .role writer
expect_eq "authctl sees the change" 1 "$(authctl list | grep -Ewc 'ursula +writer')"

step "cookie (the admin page) and cross-site changes"
HOST="127.0.0.1:$PORT"
http GET /admin/users --cookie "auth=$ROOT"
expect_status 200 "GET by cookie"
http PUT /admin/users/ursula --cookie "auth=$ROOT" "${JSON[@]}" -H "Origin: http://evil.example" --data-binary '{"role":"admin"}'
expect_status 403 "cookie PUT from another origin: 403"
expect_json "403 is JSON, naming the reason" .error "Forbidden"
http PUT /admin/users/ursula --cookie "auth=$ROOT" "${JSON[@]}" -H 'Sec-Fetch-Site: cross-site' --data-binary '{"role":"admin"}'
expect_status 403 "cookie PUT with Sec-Fetch-Site: cross-site: 403"
http DELETE /admin/users/ursula --cookie "auth=$ROOT" -H "Origin: http://evil.example"
expect_status 403 "cookie DELETE from another origin: 403"
http GET /admin/users/ursula -H "Authorization: Bearer $ROOT"
expect_json "ursula unchanged" .role writer
http PUT /admin/users/ursula --cookie "auth=$ROOT" "${JSON[@]}" -H "Origin: http://$HOST" -H 'Sec-Fetch-Site: same-origin' --data-binary '{"role":"editor"}'
expect_status 200 "cookie PUT from the same origin"
http PUT /admin/users/ursula -H "Authorization: Bearer $ROOT" "${JSON[@]}" -H "Origin: http://evil.example" --data-binary '{"role":"user"}'
expect_status 200 "bearer token: no CSRF concern, Origin ignored"

step "sign a user out everywhere"
W1=$(token_of wanda)
W2=$(token_of wanda)
http POST /admin/users/wanda/signout -H "Authorization: Bearer $(token_of eddie)"
expect_status 403 "an editor cannot sign others out"
http POST /admin/users/nobody/signout -H "Authorization: Bearer $ROOT"
expect_status 404 "unknown user: 404"
http GET /records -H "Authorization: Bearer $W1"
expect_status 200 "wanda's token works before"
http POST /admin/users/wanda/signout -H "Authorization: Bearer $ROOT"
expect_status 204 "admin signs wanda out: 204"
for t in "$W1" "$W2"; do
  http GET /records -H "Authorization: Bearer $t"
  expect_status 401 "every older token of wanda ends"
done
http GET /records -H "Authorization: Bearer $(token_of wanda)"
expect_status 200 "wanda signs in again"
authctl signout wanda >/dev/null
expect_eq "authctl signout: exit 0" 0 "$?"

step "delete"
http DELETE /admin/users/ursula -H "Authorization: Bearer $ROOT"
expect_status 200 "DELETE ursula"
expect_json "deleted" .deleted true
http DELETE /admin/users/ursula -H "Authorization: Bearer $ROOT"
expect_status 404 "DELETE again: 404"
http POST /signin -H "$(basic 'ursula:ursula password')"
expect_status 500 "deleted user cannot sign in"
finish

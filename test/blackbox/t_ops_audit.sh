#!/usr/bin/env bash
# Audit log and X-Request-Id: a scripted session (sign-up, sign-in, failed
# sign-in, a refused request, admin role change and delete through the API,
# an authctl role change) leaves exactly the expected audit lines, compared
# field by field; every response carries X-Request-Id and the audit line
# names the same id; a sane incoming X-Request-Id is kept, a hostile one
# replaced; no password or token ever reaches the log. /healthz and /readyz.
source "$(dirname "$0")/harness.sh"
AUDIT_DIR=$(mktemp -d)
at_exit rm -rf "$AUDIT_DIR"
export AUTHD_AUDIT_LOG=$AUDIT_DIR/audit.log
stack_start
# The harness's readiness probe left a "denied" line: truncate as logrotate's
# copytruncate would (authd writes with O_APPEND, so it goes on at offset 0).
: >"$AUTHD_AUDIT_LOG"

basic() { printf 'Authorization: Basic %s' "$(printf '%s' "$1" | base64 -w0)"; }
signup() { http POST /signup -H 'Content-Type: application/json' --data-binary "$(jq -nc --arg u "$1" --arg p "$2" '{username:$u,password:$p,fullname:"A Person",email:"a@example.com"}')"; }
# line N of the audit log as one compact object
line() { sed -n "${1}p" "$AUTHD_AUDIT_LOG"; }
field() { line "$1" | jq -r ".$2"; }

step "health"
http GET /healthz
expect_status 200 "GET /healthz"
expect_json "healthz status" .status ok
expect_match "X-Request-Id on /healthz" '^[0-9a-f]{16}$' "$(header X-Request-Id)"
http GET /records/a/b
expect_status 404 "an API path no route takes"
expect_match "X-Request-Id on a 404" '^[0-9a-f]{16}$' "$(header X-Request-Id)"
http GET /readyz
expect_status 200 "GET /readyz"
expect_json "readyz status" .status ready
expect_json "readyz store" .store ok

step "scripted session"
signup alice 'alice secret pw'
expect_status 201 "signup alice"
RID_SIGNUP=$(header X-Request-Id)
http POST /signin -H "$(basic 'alice:alice secret pw')" -H 'X-Request-Id: proxy-req.42:a_b-c'
expect_status 200 "signin alice"
expect_eq "a sane incoming X-Request-Id is kept" 'proxy-req.42:a_b-c' "$(header X-Request-Id)"
ALICE_TOKEN=$(json .token)
http POST /signin -H "$(basic 'alice:wrong guess pw')" -H 'X-Request-Id: bad id with spaces"{}'
expect_status 500 "failed signin"
RID_FAILED=$(header X-Request-Id)
expect_match "a hostile X-Request-Id is replaced" '^[0-9a-f]{16}$' "$RID_FAILED"
http GET /records
expect_status 401 "no token"
RID_DENIED=$(header X-Request-Id)
printf '%s' 'root secret pw' | authctl add root admin >/dev/null
http POST /signin -H "$(basic 'root:root secret pw')"
ROOT_TOKEN=$(json .token)
http PUT /admin/users/alice -H "Authorization: Bearer $ROOT_TOKEN" -H 'Content-Type: application/json' --data-binary '{"role":"editor"}'
expect_status 200 "admin sets alice editor"
RID_ROLE=$(header X-Request-Id)
http GET /admin/users -H "Authorization: Bearer $ALICE_TOKEN"
expect_status 403 "editor alice on /admin/users"
authctl role alice writer >/dev/null
http DELETE /admin/users/alice -H "Authorization: Bearer $ROOT_TOKEN"
expect_status 200 "admin deletes alice"

step "the audit lines, field by field"
mapfile -t EVENTS < <(jq -r .event "$AUTHD_AUDIT_LOG")
expect_eq "events in order" "signup signin signin_failed denied user_created signin role_changed denied role_changed user_deleted" "${EVENTS[*]}"
expect_eq "first line starts at offset 0 after the truncation" "{" "$(head -c1 "$AUTHD_AUDIT_LOG")"
expect_eq "every line is one JSON object" "$(wc -l <"$AUTHD_AUDIT_LOG")" "$(jq -c . "$AUTHD_AUDIT_LOG" | wc -l)"
expect_match "time is RFC 3339 UTC" '^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}Z$' "$(field 1 time)"
expect_eq "1 signup: username" alice "$(field 1 username)"
expect_eq "1 signup: client" 127.0.0.1 "$(field 1 client)"
expect_eq "1 signup: request_id = the response header" "$RID_SIGNUP" "$(field 1 request_id)"
expect_eq "1 signup: outcome" ok "$(field 1 outcome)"
expect_eq "2 signin: request_id from the proxy" 'proxy-req.42:a_b-c' "$(field 2 request_id)"
expect_eq "2 signin: outcome" ok "$(field 2 outcome)"
expect_eq "3 signin_failed: username" alice "$(field 3 username)"
expect_eq "3 signin_failed: outcome" refused "$(field 3 outcome)"
expect_eq "3 signin_failed: request_id" "$RID_FAILED" "$(field 3 request_id)"
expect_eq "3 signin_failed: reason" "wrong password or unknown user" "$(field 3 reason)"
expect_eq "4 denied: request_id" "$RID_DENIED" "$(field 4 request_id)"
expect_eq "4 denied: reason" "no_credentials on /records" "$(field 4 reason)"
expect_eq "5 user_created by authctl: client" local "$(field 5 client)"
expect_match "5 user_created: actor" '^authctl:' "$(field 5 actor)"
expect_eq "7 role_changed: username" alice "$(field 7 username)"
expect_eq "7 role_changed: actor" root "$(field 7 actor)"
expect_eq "7 role_changed: reason" "role user -> editor" "$(field 7 reason)"
expect_eq "7 role_changed: request_id" "$RID_ROLE" "$(field 7 request_id)"
expect_eq "8 denied: alice, admin role" alice "$(field 8 username)"
expect_eq "9 role_changed by authctl: reason" "role editor -> writer" "$(field 9 reason)"
expect_eq "10 user_deleted: username" alice "$(field 10 username)"
expect_eq "10 user_deleted: actor (the API admin)" root "$(field 10 actor)"
if grep -qE 'secret pw|wrong guess|Bearer|eyJ' "$AUTHD_AUDIT_LOG"; then fail "a password or token is in the audit log"; else pass "no password or token in the audit log"; fi
expect_eq "audit log mode 0600" 600 "$(stat -c %a "$AUTHD_AUDIT_LOG")"

step "whole lines under concurrency (threads and processes)"
before=$(wc -l <"$AUTHD_AUDIT_LOG")
pids=()
for i in $(seq 1 40); do curl -s -o /dev/null "$BASE_URL/records" & pids+=($!); done
for i in 1 2 3 4; do authctl role root admin >/dev/null & pids+=($!); done
wait "${pids[@]}"
after=$(wc -l <"$AUTHD_AUDIT_LOG")
expect_eq "44 more lines" 44 "$((after - before))"
expect_eq "every line parses" "$after" "$(jq -c . "$AUTHD_AUDIT_LOG" | wc -l)"
finish

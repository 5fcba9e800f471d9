#!/usr/bin/env bash
# Proves the issue's "Done when" curl session: signup -> signin -> guarded GET -> DELETE denied
# for role user (403 Access Denied) -> `authctl role NAME admin` -> the same token's DELETE is
# allowed (200) and the record is gone.
source "$(dirname "$0")/harness.sh"
stack_start

CT='Content-Type: application/json'

# an operator makes an admin, who creates a record to delete later
add_user root 'root password' admin
expect_eq "operator: authctl add root admin" 0 "$?"
http POST /signin -u 'root:root password'
expect_eq "operator: root signs in" 200 "$STATUS"
ROOT="Authorization: Bearer $(json .token)"
http POST /records -H "$ROOT" -H "$CT" --data-binary '{"title":"hello"}'
expect_eq "operator: root creates a record" 201 "$STATUS"
RID=$(json ._id)

# 1. signup
http POST /signup -H "$CT" --data-binary '{"username":"alice","password":"s3cret-pass","fullname":"Alice Liddell","email":"alice@example.com"}'
expect_eq "1 signup: 201" 201 "$STATUS"
expect_eq "1 signup: role user" user "$(json .user.role)"
# 2. signin
http POST /signin -u 'alice:s3cret-pass'
expect_eq "2 signin: 200" 200 "$STATUS"
TOKEN=$(json .token)
expect_eq "2 signin: token header = body token" "$TOKEN" "$(header token)"
# 3. guarded GET
http GET /records -H "Authorization: Bearer $TOKEN"
expect_eq "3 guarded GET: 200" 200 "$STATUS"
expect_eq "3 guarded GET: lists the record" "$RID" "$(json '.[0]._id' 2>/dev/null)"
# 4. DELETE denied for user
http DELETE "/records/$RID" -H "Authorization: Bearer $TOKEN"
expect_eq "4 DELETE as user: 403" 403 "$STATUS"
expect_eq "4 DELETE as user: Access Denied" '{"error":"Access Denied"}' "$(jq -c . <<<"$BODY" 2>/dev/null)"
# 5. the operator makes alice an admin
authctl role alice admin >/dev/null 2>&1
expect_eq "5 authctl role alice admin: exit 0" 0 "$?"
# 6. DELETE allowed with the same token
http DELETE "/records/$RID" -H "Authorization: Bearer $TOKEN"
expect_eq "6 DELETE as admin: 200" 200 "$STATUS"
http GET "/records/$RID" -H "Authorization: Bearer $TOKEN"
expect_eq "6 record is gone: 404" 404 "$STATUS"

finish

#!/usr/bin/env bash
# Proves the demo resource /records stored in LMDB, as an admin (made with authctl):
# list (JSON array), create (201, _id 24 hex, __v 0, the sent fields), read, replace with PUT
# (200, __v incremented, fields replaced), delete (200, then 404), 404 JSON for unknown ids on
# GET/PUT/DELETE, a non-object body refused with 4xx, and records + tokens surviving a restart
# of the FastCGI program.
source "$(dirname "$0")/harness.sh"
stack_start


add_user root 'root password' admin
expect_eq "setup: authctl add root admin" 0 "$?"
signin root 'root password'; expect_eq "setup: signin root" 200 "$STATUS"
# Every request below carries root's token ($TOKEN, see auth_get in api.sh).

# --- empty list ----------------------------------------------------------------------------
auth_get /records
expect_eq "GET /records (empty): 200" 200 "$STATUS"
expect_match "GET /records: Content-Type" '^application/json' "$(header Content-Type)"
expect_eq "GET /records (empty): []" '[]' "$(jq -c . <<<"$BODY" 2>/dev/null)"

# --- create ----------------------------------------------------------------------------------
auth_post /records '{"title":"first","n":1,"tags":["a","b"],"nested":{"k":true}}'
expect_eq "POST /records: 201" 201 "$STATUS"
expect_match "POST /records: Content-Type" '^application/json' "$(header Content-Type)"
ID=$(json ._id 2>/dev/null)
expect_match "POST /records: _id is 24 hex" '^[0-9a-f]{24}$' "$ID"
expect_eq "POST /records: __v is the number 0" 'number:0' "$(json '.__v|"\(type):\(.)"' 2>/dev/null)"
expect_eq "POST /records: title" first "$(json .title 2>/dev/null)"
expect_eq "POST /records: n" 'number:1' "$(json '.n|"\(type):\(.)"' 2>/dev/null)"
expect_eq "POST /records: tags" '["a","b"]' "$(json '.tags|tojson' 2>/dev/null)"
expect_eq "POST /records: nested" '{"k":true}' "$(json '.nested|tojson' 2>/dev/null)"

auth_post /records '{"title":"second"}'
expect_eq "POST /records (2nd): 201" 201 "$STATUS"
ID2=$(json ._id 2>/dev/null)
expect_eq "two records have different ids" yes "$(yesno test -n "$ID2" -a "$ID" != "$ID2")"

# --- list and read -------------------------------------------------------------------------
auth_get /records
expect_eq "GET /records: 200" 200 "$STATUS"
expect_eq "GET /records: 2 records" 2 "$(json length 2>/dev/null)"
expect_eq "GET /records: contains both ids" "$(printf '%s\n' "$ID" "$ID2" | sort | paste -sd,)" \
  "$(json '[.[]._id]|sort|join(",")' 2>/dev/null)"

auth_get "/records/$ID"
expect_eq "GET /records/{id}: 200" 200 "$STATUS"
expect_match "GET /records/{id}: Content-Type" '^application/json' "$(header Content-Type)"
expect_eq "GET /records/{id}: _id" "$ID" "$(json ._id 2>/dev/null)"
expect_eq "GET /records/{id}: __v" 0 "$(json .__v 2>/dev/null)"
expect_eq "GET /records/{id}: title" first "$(json .title 2>/dev/null)"
expect_eq "GET /records/{id}: nested" '{"k":true}' "$(json '.nested|tojson' 2>/dev/null)"

# --- replace ---------------------------------------------------------------------------------
auth_put "/records/$ID" '{"title":"changed","extra":"x"}'
expect_eq "PUT /records/{id}: 200" 200 "$STATUS"
expect_eq "PUT /records/{id}: same _id" "$ID" "$(json ._id 2>/dev/null)"
expect_eq "PUT /records/{id}: __v incremented to 1" 1 "$(json .__v 2>/dev/null)"
expect_eq "PUT /records/{id}: title replaced" changed "$(json .title 2>/dev/null)"
expect_eq "PUT /records/{id}: new field" x "$(json .extra 2>/dev/null)"
expect_eq "PUT /records/{id}: fields not sent are gone" 'false:false' "$(json '"\(has("n")):\(has("tags"))"' 2>/dev/null)"
auth_get "/records/$ID"
expect_eq "GET after PUT: __v 1" 1 "$(json .__v 2>/dev/null)"
expect_eq "GET after PUT: title" changed "$(json .title 2>/dev/null)"
auth_put "/records/$ID" '{"title":"again"}'
expect_eq "second PUT: 200" 200 "$STATUS"
expect_eq "second PUT: __v 2" 2 "$(json .__v 2>/dev/null)"
auth_get "/records/$ID2"
expect_eq "other record untouched by the PUTs" 'second:0' "$(json '"\(.title):\(.__v)"' 2>/dev/null)"

# --- bad bodies ------------------------------------------------------------------------------
for body in '[1,2]' '"x"' '{"title":' ''; do
  auth_post /records "$body"
  expect_match "POST /records body <$body>: 4xx" '^4[0-9][0-9]$' "$STATUS"
  expect_eq "POST /records body <$body>: JSON error" string "$(json '.error|type' 2>/dev/null)"
  auth_put "/records/$ID2" "$body"
  expect_match "PUT /records/{id} body <$body>: 4xx" '^4[0-9][0-9]$' "$STATUS"
done
auth_get /records
expect_eq "bad bodies created nothing" 2 "$(json length 2>/dev/null)"
auth_get "/records/$ID2"
expect_eq "bad bodies changed nothing" 'second:0' "$(json '"\(.title):\(.__v)"' 2>/dev/null)"

# --- survives a restart of the FastCGI program (LMDB + persistent signing key) ----------------
authd_stop
authd_start
auth_get "/records/$ID"
expect_eq "after restart: token still valid and record still there" 200 "$STATUS"
expect_eq "after restart: record content" 'again:2' "$(json '"\(.title):\(.__v)"' 2>/dev/null)"

# --- delete ----------------------------------------------------------------------------------
auth_delete "/records/$ID"
expect_eq "DELETE /records/{id}: 200" 200 "$STATUS"
auth_get "/records/$ID"
expect_eq "GET deleted record: 404" 404 "$STATUS"
expect_eq "GET deleted record: JSON error" string "$(json '.error|type' 2>/dev/null)"
auth_delete "/records/$ID"
expect_eq "DELETE again: 404" 404 "$STATUS"
expect_eq "DELETE again: JSON error" string "$(json '.error|type' 2>/dev/null)"
auth_put "/records/$ID" '{"title":"zombie"}'
expect_eq "PUT deleted record: 404" 404 "$STATUS"
auth_get /records
expect_eq "list after delete: only the other record" "$ID2" "$(json '[.[]._id]|join(",")' 2>/dev/null)"

# --- unknown ids (a well-formed unknown id -> 404; a malformed one -> 404, or 400) ----------------
for id in 0123456789abcdef01234567 nope ffffffffffffffffffffffffff; do
  if [[ $id =~ ^[0-9a-f]{24}$ ]]; then want='^404$'; else want='^(404|400)$'; fi
  auth_get "/records/$id"
  expect_match "GET /records/$id: 404" "$want" "$STATUS"
  expect_eq "GET /records/$id: JSON error" string "$(json '.error|type' 2>/dev/null)"
  auth_put "/records/$id" '{"title":"t"}'
  expect_match "PUT /records/$id: 404" "$want" "$STATUS"
  expect_eq "PUT /records/$id: JSON error" string "$(json '.error|type' 2>/dev/null)"
  auth_delete "/records/$id"
  expect_match "DELETE /records/$id: 404" "$want" "$STATUS"
  expect_eq "DELETE /records/$id: JSON error" string "$(json '.error|type' 2>/dev/null)"
done
auth_get /records
expect_eq "unknown-id requests created nothing" 1 "$(json length 2>/dev/null)"

finish

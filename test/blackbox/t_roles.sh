#!/usr/bin/env bash
# Proves the capability matrix of the role table on the records routes, with one user of each
# role made by `authctl add NAME ROLE`:
#   POST /records (create), GET /records/{id} (read), PUT /records/{id} (update),
#   DELETE /records/{id} (delete), GET /records (token only);
#   admin: read create update delete; editor: read create update; writer: read create; user: read.
# Allowed -> 2xx; refused -> 403, body exactly {"error":"Access Denied"}, WWW-Authenticate:
# Bearer..., and the refused request changed nothing.
source "$(dirname "$0")/harness.sh"
stack_start


declare -A TOK
for role in admin editor writer user; do
  add_user "the$role" "pw-$role-123" "$role"
  expect_eq "authctl add the$role $role exits 0" 0 "$?"
  signin "the$role" "pw-$role-123"
  expect_eq "the$role signs in" 200 "$STATUS"
  TOK[$role]=$TOKEN
done

as() { # ROLE METHOD PATH [ARGS...]
  local role=$1
  shift
  TOKEN=${TOK[$role]} auth_http "$@"
}
refused() { expect_denied "$1" 403; }   # DESC

# --- create ----------------------------------------------------------------------------------
for role in admin editor writer; do
  as "$role" POST /records -H 'Content-Type: application/json' --data-binary "{\"title\":\"by $role\"}"
  expect_eq "$role POST /records: 201" 201 "$STATUS"
  expect_eq "$role POST /records: title stored" "by $role" "$(json .title 2>/dev/null)"
done
as user POST /records -H 'Content-Type: application/json' --data-binary '{"title":"by user"}'
refused "user POST /records"
as admin GET /records
expect_eq "after refused create: still exactly 3 records" 3 "$(json 'length' 2>/dev/null)"
expect_eq "after refused create: no record by user" 0 "$(json '[.[]|select(.title=="by user")]|length' 2>/dev/null)"

# --- read ------------------------------------------------------------------------------------
RID=$(TOKEN=${TOK[admin]} new_record shared)
expect_match "setup: record id" '^[0-9a-f]{24}$' "$RID"
for role in admin editor writer user; do
  as "$role" GET "/records/$RID"
  expect_eq "$role GET /records/{id}: 200" 200 "$STATUS"
  expect_eq "$role GET /records/{id}: the record" "$RID" "$(json ._id 2>/dev/null)"
  as "$role" GET /records
  expect_eq "$role GET /records: 200" 200 "$STATUS"
  expect_eq "$role GET /records: array" array "$(json type 2>/dev/null)"
done

# --- update ----------------------------------------------------------------------------------
for role in admin editor; do
  as "$role" PUT "/records/$RID" -H 'Content-Type: application/json' --data-binary "{\"title\":\"upd $role\"}"
  expect_eq "$role PUT /records/{id}: 200" 200 "$STATUS"
  expect_eq "$role PUT /records/{id}: updated" "upd $role" "$(json .title 2>/dev/null)"
done
for role in writer user; do
  as "$role" PUT "/records/$RID" -H 'Content-Type: application/json' --data-binary "{\"title\":\"upd $role\"}"
  refused "$role PUT /records/{id}"
done
as admin GET "/records/$RID"
expect_eq "after refused updates: title unchanged" "upd editor" "$(json .title 2>/dev/null)"
expect_eq "after refused updates: __v counts only the two allowed updates" 2 "$(json .__v 2>/dev/null)"

# --- delete ----------------------------------------------------------------------------------
for role in editor writer user; do
  as "$role" DELETE "/records/$RID"
  refused "$role DELETE /records/{id}"
  as admin GET "/records/$RID"
  expect_eq "after refused delete by $role: record still there" 200 "$STATUS"
done
as admin DELETE "/records/$RID"
expect_match "admin DELETE /records/{id}: 2xx" '^2[0-9][0-9]$' "$STATUS"
expect_eq "admin DELETE /records/{id}: 200" 200 "$STATUS"
as admin GET "/records/$RID"
expect_eq "after admin delete: 404" 404 "$STATUS"

# capability check is independent of whether the record exists (guard before handler)
for role in editor writer user; do
  as "$role" DELETE /records/0123456789abcdef01234567
  refused "$role DELETE of an unknown id"
done

finish

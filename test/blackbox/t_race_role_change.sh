#!/usr/bin/env bash
# Role changes during guarded traffic: while `authctl role` switches alice
# between user, writer, editor and admin as fast as it can (a separate
# process writing the same LMDB environment), CLIENTS clients send guarded
# requests with alice's one token for ROLE_SECONDS seconds. Every answer must
# be what one of the roles gives, never an error:
#   GET /records, GET /records/{id}  200 (every role reads)
#   POST /records                    201 (writer, editor, admin) or 403 (user)
#   PUT /records/{id}                200 (editor, admin) or 403 (user, writer)
# Both outcomes of POST and PUT must be seen (the changes took effect), every
# authctl call must succeed, and at the end the role set last applies.
# Figures: requests, answers per kind, errors, role changes.
source "$(dirname "$0")/fault_lib.sh"
stack_start

CLIENTS=${ROLE_CLIENTS:-3}
SECONDS_TO_RUN=${ROLE_SECONDS:-8}
fault_out roles

setup_user alice 'alice password'
# A standing admin: alice may then leave the admin role (the last admin may not).
add_user keeper 'keeper password' admin || fail "setup: authctl add keeper admin"
expect_ne "setup: alice's token" "" "$TOKEN"
authctl role alice writer >/dev/null
http POST /records -H "Authorization: Bearer $TOKEN" -H 'Content-Type: application/json' -d '{"title":"shared"}'
expect_status 201 "setup: alice (writer) creates the shared record"
RID=$(json ._id)
authctl role alice user >/dev/null

auth=(-H "Authorization: Bearer $TOKEN")
jsonh=(-H 'Content-Type: application/json')
end_ms=$(($(now_ms) + SECONDS_TO_RUN * 1000))

step "$CLIENTS clients for ${SECONDS_TO_RUN}s while authctl switches roles"
(
  roles=(user writer editor admin)
  n=0 failed=0
  while (($(now_ms) < end_ms)); do
    role=${roles[RANDOM % 4]}
    if authctl role alice "$role" >/dev/null 2>"$OUT/authctl.err"; then
      n=$((n + 1))
    else
      failed=$((failed + 1))
      cat "$OUT/authctl.err" >>"$OUT/authctl.errors"
    fi
  done
  echo "$n $failed" >"$OUT/changes"
) &
changer=$!

# request_client C: guarded requests with alice's token until end_ms
request_client() {
  local c=$1 i=0
  while (($(now_ms) < end_ms)); do
    i=$((i + 1))
    case $((i % 4)) in
      0) echo "LIST $(status_of GET /records "${auth[@]}")" ;;
      1) echo "GET $(status_of GET "/records/$RID" "${auth[@]}")" ;;
      2) echo "POST $(status_of POST /records "${auth[@]}" "${jsonh[@]}" -d "{\"c\":$c,\"i\":$i}")" ;;
      3) echo "PUT $(status_of PUT "/records/$RID" "${auth[@]}" "${jsonh[@]}" -d "{\"title\":\"c$c-$i\"}")" ;;
    esac
  done >"$OUT/client.$c"
}
clients_start "$CLIENTS" request_client
clients_go 0
clients_wait
wait "$changer"

cat "$OUT"/client.* >"$OUT/all"
requests=$(wc -l <"$OUT/all")
read -r changes change_failures <"$OUT/changes"
echo "answers (kind status count):"
sort "$OUT/all" | uniq -c | awk '{ printf "  %-5s %s %6d\n", $2, $3, $1 }'

bad=$(grep -cvE '^(LIST 200|GET 200|POST (201|403)|PUT (200|403))$' "$OUT/all" || true)
expect_eq "no answer outside what the roles allow (no 5xx, no 401, no lost answer)" 0 "$bad"
((bad == 0)) || fail "unexpected answers" "$(grep -vE '^(LIST 200|GET 200|POST (201|403)|PUT (200|403))$' "$OUT/all" | sort | uniq -c | head)"
expect_eq "authctl role never failed" 0 "$change_failures"
[[ -s $OUT/authctl.errors ]] && fail "authctl errors" "$(head -n 5 "$OUT/authctl.errors")"
((changes >= 10)) && pass "roles changed $changes times (at least 10)" ||
  fail "roles changed only $changes times"
for seen in 'POST 201' 'POST 403' 'PUT 200' 'PUT 403'; do
  n=$(count_lines "$OUT/all" "^$seen\$")
  ((n > 0)) && pass "seen: $seen ($n)" || fail "never seen: $seen (did the role changes take effect?)"
done

step "the last role applies at once"
authctl role alice user >/dev/null
expect_eq "as user: POST denied" 403 "$(status_of POST /records "${auth[@]}" "${jsonh[@]}" -d '{"x":1}')"
authctl role alice admin >/dev/null
expect_eq "as admin: DELETE allowed" 200 "$(status_of DELETE "/records/$RID" "${auth[@]}")"

print_figure requests "$requests"
print_figure errors "$bad"
print_figure role_changes "$changes"
print_figure role_change_failures "$change_failures"
finish

#!/usr/bin/env bash
# The backend down, and back by itself. authd runs under the supervisor with a
# 3 s restart back-off (SUPERVISE_BACKOFF_MIN=3), so that after a SIGKILL it
# stays down for a while. During that window:
#   - API paths answer 503 with the HTML of www/500.html (what a browser sees),
#     for GET and POST alike: an API client gets a 5xx, never a hang;
#   - static pages (/) are still served by lighttpd;
# then, without anyone touching lighttpd, the supervisor restarts authd and
# the API answers normally again (guarded GET 401/200, sign-in 200).
# Also with the plain harness (no supervisor): authd stopped -> 503 HTML,
# started again -> served, lighttpd untouched.
# Figures: requests while down, 503s, down time, recovery time.
source "$(dirname "$0")/fault_lib.sh"
export SUPERVISE_BACKOFF_MIN=3 SUPERVISE_STABLE=1
stack_start_supervised

PAGE=$SOURCE_DIR/www/500.html
[[ -f $PAGE ]] || fault_die "no $PAGE"
setup_user alice 'alice password'
ALICE=$TOKEN
LIGHTTPD_BEFORE=$LIGHTTPD_PID

down_checks() {
  local when=$1
  http GET /records -H "Authorization: Bearer $ALICE"
  expect_status 503 "$when: GET /records"
  expect_match "$when: GET /records is HTML" '^text/html' "$(header Content-Type)"
  expect_eq "$when: the body is www/500.html" "$(<"$PAGE")" "$BODY"
  http POST /signin -u 'alice:alice password'
  expect_match "$when: POST /signin answers a 5xx" '^5[0-9][0-9]$' "$STATUS"
  expect_match "$when: POST /signin's answer is HTML" '^text/html' "$(header Content-Type)"
  signup bob pw
  expect_match "$when: POST /signup answers a 5xx" '^5[0-9][0-9]$' "$STATUS"
  http GET /login
  expect_status 200 "$when: the static page /login is still served"
}

step "supervised: SIGKILL, the supervisor waits 3 s before restarting"
OLD=$(authd_child_pid)
t0=$(now_ms)
kill -KILL "$OLD"
# wait until lighttpd notices
wait_status /records 503 5 || fail "GET /records never answered 503 after the kill"
down_checks "backend killed"
# count what clients get while it is down
down_requests=0 down_503=0
while :; do
  code=$(probe /records)
  [[ $code == 401 ]] && break
  down_requests=$((down_requests + 1))
  [[ $code == 503 ]] && down_503=$((down_503 + 1))
  (($(now_ms) - t0 < 30000)) || break
  sleep 0.1
done
down_ms=$(($(now_ms) - t0))
echo "down for ${down_ms} ms: $down_requests probes, $down_503 of them 503"
expect_eq "while down, every probe answered 503" "$down_requests" "$down_503"
expect_eq "back by itself: GET /records without a token" 401 "$(probe /records)"
((down_ms >= 2500)) && pass "it was down for the back-off (${down_ms} ms >= 2500)" ||
  fail "down only ${down_ms} ms: was the back-off applied?"
((down_ms <= 15000)) && pass "recovered within 15 s (${down_ms} ms)" || fail "recovered only after ${down_ms} ms"
NEW=$(authd_child_pid)
expect_ne "a new authd process serves" "$OLD" "$NEW"
expect_eq "lighttpd was not restarted" "$LIGHTTPD_BEFORE" "$LIGHTTPD_PID"
expect_eq "guarded GET works again" 200 "$(status_of GET /records -H "Authorization: Bearer $ALICE")"
expect_eq "sign-in works again" 200 "$(signin_status alice 'alice password')"
expect_eq "sign-up works again" 201 "$(signup_status bob pw)"

step "supervisor stopped (no authd at all), then started again"
authd_stop
wait_status /records 503 5 || fail "GET /records never answered 503 with authd stopped"
down_checks "authd stopped"
t1=$(now_ms)
authd_start || fail "authd did not start again"
recover_ms=$(($(now_ms) - t1))
expect_eq "served again after the start" 200 "$(status_of GET /records -H "Authorization: Bearer $ALICE")"
expect_eq "lighttpd still the same process" "$LIGHTTPD_BEFORE" "$LIGHTTPD_PID"

print_figure requests_while_down "$down_requests"
print_figure status_503_while_down "$down_503"
print_figure down_ms_after_kill "$down_ms"
print_figure recovery_ms_after_start "$recover_ms"
print_figure errors "$FAILED"
finish

#!/usr/bin/env bash
# SIGTERM must not drop requests that the web server already handed to authd
# but that no authd thread has accepted yet (they wait in the listening
# socket's backlog). The front end answers such a dropped request 500 with
# its HTML error page ("response not received"); a request that arrives after
# authd closed its socket gets 503 (not in flight: never handed over).
#  1. Under load: wrk keeps LOAD_CONNECTIONS guarded GETs in flight; SIGTERM
#     after a second. Every answer must be 200 (served) or 503 (after the
#     stop), never 500, and authd must exit 0.
#  2. Frozen: authd is stopped with SIGSTOP, BACKLOG_CLIENTS requests (sign-ups
#     and guarded GETs) pile up in its backlog, or unread on connections the
#     front server keeps open (counted with `ss`), then it
#     gets SIGTERM and SIGCONT: every one must get its normal answer (201 /
#     200), the accounts must exist, and authd must exit 0.
# Figures: requests, queued at TERM, answers, errors (dropped), exit status.
source "$(dirname "$0")/fault_lib.sh"
need_tools ss wrk
stack_start

N=${BACKLOG_CLIENTS:-16}
CONNS=${LOAD_CONNECTIONS:-32}
fault_out backlog
setup_user alice 'alice password'

step "SIGTERM under load: $CONNS connections of guarded GETs"
wrk_status_lua "$OUT/get.lua"
wrk -t 2 -c "$CONNS" -d 4s --timeout 10s -s "$OUT/get.lua" "$BASE_URL/records" >"$OUT/wrk" 2>&1 &
wrk_pid=$!
sleep 1.5
load_pid=$AUTHD_PID
kill -TERM "$load_pid"
wait "$load_pid"
load_rc=$?
wait "$wrk_pid"
grep '^wrk:' "$OUT/wrk" | sed 's/^wrk: /    /'
load_status() { awk -v c="$1" '$2 == "status" && $3 == c { print $4 }' "$OUT/wrk"; }
served=$(load_status 200) dropped=$(load_status 500) refused=$(load_status 503)
other=$(awk '$2 == "status" && $3 != 200 && $3 != 500 && $3 != 503 { s += $4 } END { print s + 0 }' "$OUT/wrk")
expect_eq "under load: authd exits 0" 0 "$load_rc"
((${served:-0} > 0)) && pass "under load: requests served before the stop (${served})" || fail "under load: nothing served"
expect_eq "under load: no request in flight dropped at SIGTERM (front end's 500)" 0 "${dropped:-0}"
expect_eq "under load: no other status" 0 "$other"
AUTHD_PID=
authd_start || fault_die "authd did not start again"

step "frozen: SIGSTOP authd, send $N requests"
kill -STOP "$AUTHD_PID"
pids=()
for ((i = 1; i <= N; i++)); do
  if ((i % 2)); then
    ( echo "signup q$i $(signup_answer "q$i" "pw-q$i")" >"$OUT/res.$i" ) &
  else
    (
      a=$(curl -s --noproxy '*' --max-time 30 -o /dev/null -w '%{http_code} %{content_type}' \
            -H "Authorization: Bearer $TOKEN" "$BASE_URL/records")
      echo "get - ${a%%;*}" >"$OUT/res.$i"
    ) &
  fi
  pids+=($!)
done
deadline=$(($(now_ms) + 15000))
queued=0
while (($(now_ms) < deadline)); do
  backlog=$(ss -xlH src "$FCGI_SOCKET" 2>/dev/null | awk '{ s += $3 } END { print s + 0 }')
  # A front server that keeps FastCGI connections (Apache's enablereuse)
  # sends some requests on connections authd accepted before: they wait
  # unread there (Recv-Q > 0).
  kept=$(ss -xH state established src "$FCGI_SOCKET" 2>/dev/null | awk '$2 > 0 { n++ } END { print n + 0 }')
  queued=$((backlog + kept))
  ((queued >= N)) && break
  sleep 0.05
done
echo "queued in authd's backlog: $backlog, unread on its kept connections: $kept"
expect_eq "all $N requests wait in authd's backlog or on its kept connections" "$N" "$queued"

step "SIGTERM, then SIGCONT"
kill -TERM "$AUTHD_PID"
kill -CONT "$AUTHD_PID"
wait "$AUTHD_PID"
rc=$?
wait "${pids[@]}"
cat "$OUT"/res.* >"$OUT/all"
awk '{ print $1, $3, $4 }' "$OUT/all" | sort | uniq -c | sed 's/^/    /'
expect_eq "authd exits 0" 0 "$rc"
ok=$(grep -cE '^(signup .* 201 application/json|get - 200 application/json)$' "$OUT/all" || true)
expect_eq "every queued request got its normal answer" "$N" "$ok"
AUTHD_PID=
authd_start || fault_die "authd did not start again"
created=0
for ((i = 1; i <= N; i += 2)); do
  [[ $(signin_status "q$i" "pw-q$i") == 200 ]] && created=$((created + 1))
done
expect_eq "every queued sign-up's account exists" $(((N + 1) / 2)) "$created"

print_figure load_served_200 "${served:-0}"
print_figure load_dropped_500 "${dropped:-0}"
print_figure load_refused_after_stop_503 "${refused:-0}"
print_figure load_exit_status "$load_rc"
print_figure frozen_requests "$N"
print_figure frozen_queued_at_term "$queued"
print_figure frozen_answered_normally "$ok"
print_figure frozen_exit_status "$rc"
print_figure errors "$((${dropped:-0} + other + N - ok))"
finish

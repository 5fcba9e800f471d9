#!/usr/bin/env bash
# `make run` (scripts/serve.sh) end to end, on its own port, run and state
# directories:
#   - it serves; an authd killed with SIGKILL is brought back by the
#     supervisor while serve.sh keeps running (gap measured);
#   - SIGTERM to serve.sh (round 1) and SIGINT, i.e. Ctrl-C (round 2), stop
#     it with status 0 and leave nothing behind: no lighttpd, supervisor,
#     spawn-fcgi or authd process (every process is looked for by the pids
#     it wrote, by the socket path on command lines, and by the unique RUN_DIR
#     in the environment of every process on the machine), no socket, no pid
#     files.
# Figures: rounds, processes found before and after, restart gap, stop time.
source "$(dirname "$0")/fault_lib.sh"

SERVE=$SOURCE_DIR/scripts/serve.sh
[[ -x $SERVE ]] || fault_die "no $SERVE"
need_tools lighttpd spawn-fcgi pgrep
T=$(mktemp -d "${TMPDIR:-/tmp}/authd-serve.XXXXXX")
SERVE_PID=
cleanup_serve() {
  if [[ -n $SERVE_PID ]]; then
    kill -KILL -- "-$SERVE_PID" 2>/dev/null || true
  fi
  # anything left with our RUN_DIR in its environment
  local p
  for p in $(procs_of_run); do kill -KILL "$p" 2>/dev/null || true; done
  rm -rf "$T"
}
at_exit cleanup_serve

# pids of every process whose environment names this test's RUN_DIR
procs_of_run() {
  local e
  for e in /proc/[0-9]*/environ; do
    if { tr '\0' '\n' <"$e"; } 2>/dev/null | grep -qxF "RUN_DIR=$RUN"; then
      e=${e#/proc/}
      echo "${e%/environ}"
    fi
  done
}

describe_pids() {
  local p
  for p in "$@"; do
    printf '%s(%s) ' "$p" "$({ tr '\0' ' ' <"/proc/$p/cmdline"; } 2>/dev/null | cut -c1-60)"
  done
}

rounds=0
for sig in TERM INT; do
  rounds=$((rounds + 1))
  step "round $rounds: serve.sh, then SIG$sig"
  RUN=$T/run$rounds
  STATE=$T/state$rounds
  served=0
  for ((attempt = 1; attempt <= 5; attempt++)); do
    rm -rf "$RUN"
    PORT=$(pick_port) || fault_die "found no free port"
    BASE_URL=http://127.0.0.1:$PORT  # (for probe and the signup helpers)
    export BASE_URL
    # --default-signal=INT: a background job of a script starts with SIGINT
    # ignored, which a shell cannot trap; a terminal's Ctrl-C would reach it.
    RUN_DIR=$RUN AUTHD_STATE_DIR=$STATE PORT=$PORT AUTHD_BIN=$AUTHD_BIN BUILD_DIR=$(dirname "$AUTHD_BIN") \
      setsid env --default-signal=INT "$SERVE" </dev/null >"$T/serve$rounds.log" 2>&1 &
    SERVE_PID=$!
    t_start=$(now_ms)
    wait_for_http "$BASE_URL/records" 401 30 "$SERVE_PID" && served=1
    ((served)) && break
    wait "$SERVE_PID" 2>/dev/null
    SERVE_PID=
    # another process took the port between the choice and lighttpd's bind
    grep -qi 'already in use' "$T/serve$rounds.log" "$RUN/lighttpd-error.log" 2>/dev/null || break
    echo "port $PORT was taken, retrying"
  done
  if ((served)); then
    pass "round $rounds: serve.sh serves (GET /records 401 after $(($(now_ms) - t_start)) ms)"
  else
    fail "round $rounds: serve.sh does not serve" "$(tail -n 20 "$T/serve$rounds.log")"
    break
  fi
  SOCK=$RUN/authd.sock
  SUP=$(cat "$RUN/supervisor.pid" 2>/dev/null)
  AUTHD=$(cat "$RUN/authd.pid" 2>/dev/null)
  LIGHTTPD=$(cat "$RUN/lighttpd.pid" 2>/dev/null)
  expect_eq "round $rounds: the supervisor is running" yes "$(proc_alive "${SUP:-0}" && echo yes || echo no)"
  expect_eq "round $rounds: authd is running" authd "$(cat "/proc/${AUTHD:-0}/comm" 2>/dev/null)"
  expect_eq "round $rounds: lighttpd is running" lighttpd "$(cat "/proc/${LIGHTTPD:-0}/comm" 2>/dev/null)"
  before=$(procs_of_run | wc -l)
  # shellcheck disable=SC2046  # one pid per word
  echo "processes of this run: $(describe_pids $(procs_of_run))"
  expect_eq "round $rounds: a sign-up" 201 "$(signup_status "user$rounds" pw)"

  if ((rounds == 1)); then
    step "round 1: SIGKILL authd under serve.sh"
    t0=$(now_ms)
    kill -KILL "$AUTHD"
    while (($(now_ms) - t0 < 30000)); do
      NEW=$(cat "$RUN/authd.pid" 2>/dev/null)
      [[ -n $NEW && $NEW != "$AUTHD" && $(probe /records) == 401 ]] && break
      sleep 0.02
    done
    gap=$(($(now_ms) - t0))
    expect_ne "round 1: a new authd was started" "$AUTHD" "$NEW"
    expect_eq "round 1: served again after the kill (${gap} ms)" 401 "$(probe /records)"
    expect_eq "round 1: serve.sh kept running" yes "$(proc_alive "$SERVE_PID" && echo yes || echo no)"
    expect_eq "round 1: the user signed up before the kill signs in" 200 "$(signin_status user1 pw)"
    AUTHD=$NEW
    print_figure restart_gap_ms "$gap"
  fi

  step "round $rounds: SIG$sig to serve.sh"
  t0=$(now_ms)
  kill "-$sig" "$SERVE_PID"
  rc=
  for ((i = 0; i < 300; i++)); do
    proc_alive "$SERVE_PID" || break
    sleep 0.1
  done
  if proc_alive "$SERVE_PID"; then
    fail "round $rounds: serve.sh still runs 30 s after SIG$sig"
  else
    wait "$SERVE_PID"
    rc=$?
  fi
  stop_ms=$(($(now_ms) - t0))
  expect_eq "round $rounds: serve.sh exits 0 after SIG$sig" 0 "$rc"
  echo "round $rounds: stopped in ${stop_ms} ms"
  sleep 0.2
  left=()
  for p in $SUP $AUTHD $LIGHTTPD; do proc_alive "$p" && left+=("$p"); done
  expect_eq "round $rounds: supervisor, authd and lighttpd are gone" "" "$(describe_pids "${left[@]}")"
  expect_eq "round $rounds: no process has the socket path on its command line" "" \
    "$(pgrep -af -- "$SOCK" | grep -v pgrep)"
  leftover=$(procs_of_run)
  expect_eq "round $rounds: no process has this RUN_DIR in its environment" "" \
    "$(describe_pids $leftover)"
  expect_eq "round $rounds: the socket was removed" no "$([[ -e $SOCK ]] && echo yes || echo no)"
  expect_eq "round $rounds: the pid files were removed" "" \
    "$(ls "$RUN"/authd.pid "$RUN"/supervisor.pid 2>/dev/null)"
  expect_eq "round $rounds: the port is free again" 000 "$(probe /)"
  SERVE_PID=
  print_figure "round${rounds}_sig" "$sig"
  print_figure "round${rounds}_processes_before" "$before"
  print_figure "round${rounds}_processes_after" "$(wc -w <<<"$leftover")"
  print_figure "round${rounds}_stop_ms" "$stop_ms"
done

print_figure rounds "$rounds"
print_figure errors "$FAILED"
finish

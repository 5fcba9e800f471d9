#!/usr/bin/env bash
# scripts/supervise-authd.sh - keeps one authd FastCGI process running on a
# unix socket, restarting it whenever it exits (crash, SIGKILL, OOM kill...).
#
#   scripts/supervise-authd.sh SOCKET
#
# lighttpd only respawns FastCGI processes it spawned itself; authd is
# spawned separately (spawn-fcgi), so this loop is what brings it back.
# `make run` (scripts/serve.sh) and the black-box tests (fault_lib.sh,
# stack_start_supervised) use it.
#
# What it does:
#   1. `authd --check` once: a configuration, state directory or signing key
#      that cannot work is reported (authd's one-line reason on stderr) and
#      the supervisor exits with authd's status instead of looping.
#   2. Loop: `spawn-fcgi -n -s SOCKET -M 0600 -- authd` (spawn-fcgi binds the
#      socket, replacing a stale one, and execs authd in the same process).
#      When authd exits for any reason, it is started again after a back-off:
#      SUPERVISE_BACKOFF_MIN seconds, doubled after each exit that came less
#      than SUPERVISE_STABLE seconds after its start, at most
#      SUPERVISE_BACKOFF_MAX; reset once authd ran SUPERVISE_STABLE seconds.
#   3. SIGTERM, SIGINT or SIGHUP: forwards SIGTERM to authd (which finishes
#      its in-flight requests), waits for it, removes the socket and exits
#      with authd's exit status (0 after a clean stop; 0 when authd was not
#      running at that moment).
#
# Environment:
#   AUTHD_BIN              the FastCGI program   (default: build/authd next to this script)
#   SUPERVISE_PID_FILE     when set, the current authd pid is written there
#                          (removed when the supervisor exits)
#   SUPERVISE_BACKOFF_MIN  first restart delay, seconds (default 0.2)
#   SUPERVISE_BACKOFF_MAX  longest restart delay, seconds (default 5)
#   SUPERVISE_STABLE       a run this long (seconds) resets the delay (default 2)
#   AUTHD_*                authd's settings, passed through.
# Messages go to stderr, prefixed "supervise:"; authd's own messages go
# wherever the supervisor's stderr goes.
set -uo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
AUTHD_BIN=${AUTHD_BIN:-$ROOT/build/authd}
BACKOFF_MIN=${SUPERVISE_BACKOFF_MIN:-0.2}
BACKOFF_MAX=${SUPERVISE_BACKOFF_MAX:-5}
STABLE=${SUPERVISE_STABLE:-2}
PID_FILE=${SUPERVISE_PID_FILE:-}

say() { printf 'supervise: %s\n' "$*" >&2; }

if (($# != 1)) || [[ $1 == -* ]]; then
  echo "usage: $0 SOCKET   (see the top of this file)" >&2
  exit 2
fi
SOCKET=$1
command -v spawn-fcgi >/dev/null 2>&1 || { say "'spawn-fcgi' is not installed"; exit 1; }
[[ -x $AUTHD_BIN ]] || { say "$AUTHD_BIN is not an executable (build first)"; exit 1; }
((${#SOCKET} < 108)) || { say "socket path too long for a unix socket: $SOCKET"; exit 1; }

# Milliseconds since the epoch (bash 5: EPOCHREALTIME).
now_ms() { local t=${EPOCHREALTIME/[.,]/}; echo $((t / 1000)); }
# Seconds (decimal string) -> milliseconds.
to_ms() { awk -v s="$1" 'BEGIN { printf "%d", s * 1000 }'; }
# Milliseconds -> seconds as a decimal string for sleep.
ms_to_s() { printf '%d.%03d' $(($1 / 1000)) $(($1 % 1000)); }

min_ms=$(to_ms "$BACKOFF_MIN")
max_ms=$(to_ms "$BACKOFF_MAX")
stable_ms=$(to_ms "$STABLE")
((min_ms >= 10)) || min_ms=10
((max_ms >= min_ms)) || max_ms=$min_ms

child=
stopping=0
on_signal() {
  stopping=1
  if [[ -n $child ]]; then kill -TERM "$child" 2>/dev/null || true; fi
}
trap on_signal TERM INT HUP
# A client that goes away must not kill us (we write only to stderr).
trap '' PIPE

cleanup() {
  [[ -n $PID_FILE ]] && rm -f "$PID_FILE"
  rm -f "$SOCKET"
}

# Waits for $child to end even when signals interrupt `wait`; sets child_rc.
wait_child() {
  child_rc=0
  while :; do
    wait "$child" 2>/dev/null  # (no "Killed" job message from bash)
    child_rc=$?
    # `wait` returns early (status > 128) when a trapped signal arrives;
    # the child is still there (or an unreaped zombie) in that case.
    kill -0 "$child" 2>/dev/null || break
  done
}

# Describes an exit status the way a shell reports it.
describe() {
  local rc=$1
  if ((rc > 128)); then
    local name
    name=$(kill -l $((rc - 128)) 2>/dev/null) || name=$((rc - 128))
    echo "killed by SIG$name"
  else
    echo "exited with status $rc"
  fi
}

# 1. Refuse a configuration that can never work, with authd's own reason.
check_err=$("$AUTHD_BIN" --check 2>&1 </dev/null >/dev/null)
check_rc=$?
if ((check_rc != 0)); then
  [[ -n $check_err ]] && printf '%s\n' "$check_err" >&2
  say "not starting authd: $AUTHD_BIN --check failed (status $check_rc)"
  exit "$check_rc"
fi

delay_ms=$min_ms
restarts=0
while ((!stopping)); do
  started_ms=$(now_ms)
  spawn-fcgi -n -s "$SOCKET" -M 0600 -- "$AUTHD_BIN" </dev/null &
  child=$!
  [[ -n $PID_FILE ]] && echo "$child" >"$PID_FILE"
  if ((restarts == 0)); then
    say "authd started (pid $child) on $SOCKET"
  else
    say "authd restarted (pid $child, restart $restarts)"
  fi
  # A TERM that arrived between the loop test and $child being set.
  ((stopping)) && kill -TERM "$child" 2>/dev/null
  wait_child
  pid=$child
  child=
  if ((stopping)); then
    say "authd (pid $pid) $(describe "$child_rc") after SIGTERM"
    cleanup
    exit "$child_rc"
  fi
  ran_ms=$(($(now_ms) - started_ms))
  if ((ran_ms >= stable_ms)); then
    delay_ms=$min_ms
  fi
  say "authd (pid $pid) $(describe "$child_rc") after $(ms_to_s "$ran_ms") s; restarting in $(ms_to_s "$delay_ms") s"
  # Sleep in the background so that a signal interrupts the back-off at once.
  sleep "$(ms_to_s "$delay_ms")" &
  sleeper=$!
  wait "$sleeper" 2>/dev/null
  kill "$sleeper" 2>/dev/null && wait "$sleeper" 2>/dev/null
  if ((ran_ms < stable_ms)); then
    delay_ms=$((delay_ms * 2))
    ((delay_ms <= max_ms)) || delay_ms=$max_ms
  fi
  restarts=$((restarts + 1))
done
say "stopped before restarting authd"
cleanup
exit 0

#!/usr/bin/env bash
# scripts/serve.sh - serves authd through lighttpd in the foreground (`make run`).
#
#   PORT=8080 scripts/serve.sh
#
# Starts build/authd on a unix socket in the run directory, under
# scripts/supervise-authd.sh (spawn-fcgi in a loop: an authd that dies is
# started again after a short back-off), and lighttpd (conf/lighttpd.conf)
# on http://127.0.0.1:$PORT, then waits. Ctrl-C or SIGTERM stops lighttpd,
# then authd (which finishes its in-flight requests; KILL only after 15 s),
# removes the socket and exits 0, leaving no process behind. If lighttpd or
# the supervisor dies on its own, the rest is stopped and the script exits 1.
# An authd whose configuration, state directory or signing key cannot work
# is not restarted: the supervisor prints authd's reason and the script
# exits 1.
#
# Environment:
#   PORT             TCP port on 127.0.0.1                (default 8080)
#   BUILD_DIR        where authd was built                (default build)
#   AUTHD_BIN        the FastCGI program                  (default $BUILD_DIR/authd)
#   RUN_DIR          socket, pid file, lighttpd logs      (default var/run)
#   AUTHD_STATE_DIR  authd's state (LMDB, signing key); created if missing.
#                    Unset, authd uses its config's value (./var by default,
#                    relative to the repository root, where this runs).
#   AUTHD_*          any other authd setting, passed through to authd.
#   SUPERVISE_*      the supervisor's back-off settings (see supervise-authd.sh).
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"

PORT=${PORT:-8080}
BUILD_DIR=${BUILD_DIR:-build}
[[ $BUILD_DIR == /* ]] || BUILD_DIR=$ROOT/$BUILD_DIR
AUTHD_BIN=${AUTHD_BIN:-$BUILD_DIR/authd}
RUN_DIR=${RUN_DIR:-$ROOT/var/run}
STOP_TIMEOUT=5        # lighttpd
AUTHD_STOP_TIMEOUT=15 # authd may take its 10 s grace period for in-flight requests

say() { printf 'serve: %s\n' "$*" >&2; }
die() { say "$*"; exit 1; }
# shellcheck disable=SC2034  # read by stack_lib.sh
STACK_SAY=serve
# shellcheck source=stack_lib.sh
source "$ROOT/scripts/stack_lib.sh"

for tool in lighttpd spawn-fcgi setsid; do
  command -v "$tool" >/dev/null 2>&1 || die "'$tool' is not installed (run: scripts/deps.sh run)"
done
[[ -x $AUTHD_BIN ]] || die "$AUTHD_BIN not found: build first (make)"
if ! [[ $PORT =~ ^[0-9]+$ ]] || ((PORT < 1 || PORT > 65535)); then
  die "PORT must be a TCP port number, not '$PORT'"
fi

mkdir -p "$RUN_DIR"
RUN_DIR=$(cd "$RUN_DIR" && pwd)
mkdir -p "${AUTHD_STATE_DIR:-var}"
SOCKET=$RUN_DIR/authd.sock
((${#SOCKET} < 108)) || die "socket path too long for a unix socket (${#SOCKET} bytes): set RUN_DIR to a shorter directory"

if port_in_use "$PORT"; then
  die "port $PORT on 127.0.0.1 is already in use: choose another with PORT=..."
fi
if [[ -S $SOCKET ]]; then
  for pidfile in "$RUN_DIR/authd.pid" "$RUN_DIR/supervisor.pid"; do
    if [[ -s $pidfile ]] && kill -0 "$(<"$pidfile")" 2>/dev/null; then
      die "authd already runs (pid $(<"$pidfile") in $pidfile, socket $SOCKET): stop it first"
    fi
  done
  rm -f "$SOCKET"
fi

SUPERVISOR_PID=
LIGHTTPD_PID=

stopping=0
shutdown() {
  local rc=$1
  ((stopping)) && return 0
  stopping=1
  trap '' INT TERM HUP
  say "stopping"
  stop_group "$LIGHTTPD_PID" lighttpd "$STOP_TIMEOUT"
  stop_group "$SUPERVISOR_PID" authd "$AUTHD_STOP_TIMEOUT"
  rm -f "$SOCKET" "$RUN_DIR/authd.pid" "$RUN_DIR/supervisor.pid"
  say "stopped"
  exit "$rc"
}
trap 'shutdown 0' INT TERM HUP
trap 'shutdown $?' EXIT

# authd: the supervisor checks the configuration (authd --check), then runs
# spawn-fcgi -n (which binds the socket and execs authd) and restarts authd
# whenever it exits; it writes the current authd pid to authd.pid. setsid
# gives it (and authd) its own process group, so that Ctrl-C reaches only
# this script, which then stops everything in order.
rc=0
AUTHD_BIN=$AUTHD_BIN supervisor_spawn "$SOCKET" "$RUN_DIR/authd.pid" || rc=$?
SUPERVISOR_PID=$SPAWNED_PID
echo "$SUPERVISOR_PID" >"$RUN_DIR/supervisor.pid"
if ((rc != 0)) || ! proc_alive "$SUPERVISOR_PID"; then
  die "authd did not start (see its messages above)"
fi

rc=0
lighttpd_spawn "$ROOT/conf/lighttpd.conf" "$PORT" "$ROOT/www" "$RUN_DIR" "$SOCKET" || rc=$?
LIGHTTPD_PID=$SPAWNED_PID
if ((rc != 0)); then
  say "lighttpd did not start:"
  tail -n 20 "$RUN_DIR/lighttpd-error.log" "$RUN_DIR/lighttpd.out" >&2 2>/dev/null || true
  exit 1
fi

say "authd (pid $(cat "$RUN_DIR/authd.pid" 2>/dev/null), supervisor pid $SUPERVISOR_PID) behind lighttpd (pid $LIGHTTPD_PID)"
say "logs: $RUN_DIR/lighttpd-error.log, $RUN_DIR/lighttpd-access.log; authd logs here"
echo "Serving on http://127.0.0.1:$PORT/  (Ctrl-C to stop)"

# Wait until one of them exits (or a signal runs the trap). A crashed authd
# is restarted by the supervisor and does not end this wait.
rc=0
wait -n "$SUPERVISOR_PID" "$LIGHTTPD_PID" || rc=$?
if ! proc_alive "$SUPERVISOR_PID"; then
  say "the authd supervisor exited unexpectedly (status $rc)"
else
  say "lighttpd exited unexpectedly (status $rc):"
  tail -n 20 "$RUN_DIR/lighttpd-error.log" >&2 2>/dev/null || true
fi
shutdown 1

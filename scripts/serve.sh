#!/usr/bin/env bash
# scripts/serve.sh - serves authd through lighttpd in the foreground (`make run`).
#
#   PORT=8080 scripts/serve.sh
#
# Starts build/authd under spawn-fcgi on a unix socket in the run directory
# and lighttpd (conf/lighttpd.conf) on http://127.0.0.1:$PORT, then waits.
# Ctrl-C or SIGTERM stops both (TERM, then KILL after 5 s), removes the
# socket and exits 0. If either process dies on its own, the other is
# stopped and the script exits 1.
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
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"

PORT=${PORT:-8080}
BUILD_DIR=${BUILD_DIR:-build}
[[ $BUILD_DIR == /* ]] || BUILD_DIR=$ROOT/$BUILD_DIR
AUTHD_BIN=${AUTHD_BIN:-$BUILD_DIR/authd}
RUN_DIR=${RUN_DIR:-$ROOT/var/run}
STOP_TIMEOUT=5

say() { printf 'serve: %s\n' "$*" >&2; }
die() { say "$*"; exit 1; }

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

if (exec 3<>"/dev/tcp/127.0.0.1/$PORT") 2>/dev/null; then
  die "port $PORT on 127.0.0.1 is already in use: choose another with PORT=..."
fi
if [[ -S $SOCKET ]]; then
  if [[ -s $RUN_DIR/authd.pid ]] && kill -0 "$(<"$RUN_DIR/authd.pid")" 2>/dev/null; then
    die "authd already runs (pid $(<"$RUN_DIR/authd.pid"), socket $SOCKET): stop it first"
  fi
  rm -f "$SOCKET"
fi

AUTHD_PID=
LIGHTTPD_PID=

# True while PID exists and is not a zombie.
alive() {
  local st
  st=$(cat "/proc/$1/stat" 2>/dev/null) || return 1
  st=${st##*) }
  [[ ${st:0:1} != Z ]]
}

# TERM the process group led by PID (each child runs under setsid), wait up
# to STOP_TIMEOUT seconds for all of it, then KILL. Reaps the leader.
stop_group() {
  local pid=$1 name=$2 i
  [[ -n $pid ]] || return 0
  kill -TERM -- "-$pid" 2>/dev/null || kill -TERM "$pid" 2>/dev/null || true
  for ((i = 0; i < STOP_TIMEOUT * 10; i++)); do
    alive "$pid" || wait "$pid" 2>/dev/null || true
    kill -0 -- "-$pid" 2>/dev/null || kill -0 "$pid" 2>/dev/null || return 0
    sleep 0.1
  done
  say "$name (pid $pid) did not stop within ${STOP_TIMEOUT}s: killing it"
  kill -KILL -- "-$pid" 2>/dev/null || kill -KILL "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
}

stopping=0
shutdown() {
  local rc=$1
  ((stopping)) && return 0
  stopping=1
  trap '' INT TERM HUP
  say "stopping"
  stop_group "$LIGHTTPD_PID" lighttpd
  stop_group "$AUTHD_PID" authd
  rm -f "$SOCKET" "$RUN_DIR/authd.pid"
  say "stopped"
  exit "$rc"
}
trap 'shutdown 0' INT TERM HUP
trap 'shutdown $?' EXIT

# authd: spawn-fcgi -n binds the socket and execs authd in the same process
# (so $! is authd's pid); setsid gives it its own process group so that
# Ctrl-C reaches only this script, which then stops everything in order.
setsid spawn-fcgi -n -s "$SOCKET" -M 0600 -- "$AUTHD_BIN" </dev/null &
AUTHD_PID=$!
echo "$AUTHD_PID" >"$RUN_DIR/authd.pid"
for ((i = 0; i < 100; i++)); do
  [[ -S $SOCKET ]] && break
  alive "$AUTHD_PID" || break
  sleep 0.05
done
if ! [[ -S $SOCKET ]] || ! alive "$AUTHD_PID"; then
  die "authd did not start (see its messages above)"
fi

LIGHTTPD_PORT=$PORT LIGHTTPD_WWW=$ROOT/www LIGHTTPD_RUN_DIR=$RUN_DIR LIGHTTPD_FCGI_SOCKET=$SOCKET \
  setsid lighttpd -D -f "$ROOT/conf/lighttpd.conf" </dev/null &
LIGHTTPD_PID=$!
for ((i = 0; i < 100; i++)); do
  (exec 3<>"/dev/tcp/127.0.0.1/$PORT") 2>/dev/null && break
  alive "$LIGHTTPD_PID" || break
  sleep 0.05
done
if ! alive "$LIGHTTPD_PID"; then
  say "lighttpd did not start:"
  tail -n 20 "$RUN_DIR/lighttpd-error.log" >&2 2>/dev/null || true
  exit 1
fi

say "authd (pid $AUTHD_PID) behind lighttpd (pid $LIGHTTPD_PID)"
say "logs: $RUN_DIR/lighttpd-error.log, $RUN_DIR/lighttpd-access.log; authd logs here"
echo "Serving on http://127.0.0.1:$PORT/  (Ctrl-C to stop)"

# Wait until one of them exits (or a signal runs the trap).
rc=0
wait -n "$AUTHD_PID" "$LIGHTTPD_PID" || rc=$?
if ! alive "$AUTHD_PID"; then
  say "authd exited unexpectedly (status $rc)"
else
  say "lighttpd exited unexpectedly (status $rc):"
  tail -n 20 "$RUN_DIR/lighttpd-error.log" >&2 2>/dev/null || true
fi
shutdown 1

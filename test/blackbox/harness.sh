# shellcheck shell=bash source-path=SCRIPTDIR
# test/blackbox/harness.sh - runs the real stack (lighttpd + spawn-fcgi + authd)
# for one black-box test script. Source it from test/blackbox/t_NAME.sh:
#
#   #!/usr/bin/env bash
#   source "$(dirname "${BASH_SOURCE[0]}")/harness.sh"
#   export AUTHD_TOKEN_TTL=2          # optional: any AUTHD_* setting for authd
#   stack_start
#   http GET /records
#   expect_status 401 "no token"
#   finish
#
# Do not `set -e` in a test: failed checks are counted, not fatal.
# CTest runs each script as `bash test/blackbox/t_NAME.sh` (test name
# blackbox.NAME); it can also be run by hand after a build, from any directory.
#
# Inputs (environment; defaults derived from this file's location)
#   SOURCE_DIR     repository root                    (default: ../.. from here)
#   AUTHD_BIN      the FastCGI program                (default: $SOURCE_DIR/build/authd)
#   AUTHCTL_BIN    the admin command                  (default: $SOURCE_DIR/build/authctl)
#   AUTHD_*        every exported AUTHD_* variable reaches authd and authctl
#                  (AUTHD_STATE_DIR is always set by stack_start)
#   KEEP_STATE=1   keep the state directory (logs, LMDB) after the test
#   STACK_START_TIMEOUT  seconds to wait for the stack to answer (default 15)
#   AUTHD_FRONTEND=apache  run Apache 2.4 (conf/apache/authd.conf) instead of
#                  lighttpd, everything else alike; see apache.sh (CTest runs
#                  every script this way too, as blackbox-apache.NAME)
#
# Functions
#   stack_start    fresh STATE_DIR (mktemp -d), exported as AUTHD_STATE_DIR;
#                  starts authd with spawn-fcgi on $STATE_DIR/authd.sock
#                  (stderr to $STATE_DIR/authd.log) and lighttpd with
#                  conf/lighttpd.conf on a free 127.0.0.1 port (retried when
#                  the port is taken); waits until GET /records answers 401.
#                  Exports BASE_URL=http://127.0.0.1:$PORT, PORT, STATE_DIR,
#                  FCGI_SOCKET (authd's unix socket), AUTHD_PID, LIGHTTPD_PID,
#                  and installs an EXIT trap that calls stack_stop. If the
#                  stack does not come up it prints lighttpd's error log and
#                  authd's log and exits 1. lighttpd logs to
#                  $STATE_DIR/lighttpd-error.log and lighttpd-access.log.
#   stack_stop     stops lighttpd and authd, then removes STATE_DIR (unless
#                  KEEP_STATE=1). Safe to call twice. On a failed test (exit
#                  status != 0, or a failed check) the logs are printed first.
#                  A sanitizer report (ASan/UBSan/LSan) in authd.log counts as
#                  a failed check and makes the script exit 1.
#   authd_stop     stops only authd (TERM, then KILL after 5 s) and removes the
#                  socket: lighttpd then answers API paths with 503 + 500.html.
#   authd_start    (re)starts authd on the same socket and state; when lighttpd
#                  runs, waits until it routes to authd again (GET /records -> 401).
#                  Returns 1 (after printing the logs) when authd does not come up.
#   authctl ARGS   runs $AUTHCTL_BIN ARGS with the same AUTHD_* environment as
#                  authd (same state dir), e.g. `authctl role alice admin`,
#                  `printf 'pw' | authctl add bob user`.
#   authd_alive    true while authd runs (unlike `kill -0 $AUTHD_PID`, false
#                  for an authd that died and is a zombie).
#   dump_logs      prints authd.log and lighttpd's error log.
#   @PORT@         settings that must name lighttpd's port before authd
#                  starts: export any AUTHD_* variable with the text @PORT@ in
#                  its value before stack_start, e.g.
#                    export AUTHD_OAUTH_REDIRECT_URI='http://127.0.0.1:@PORT@/oauth'
#                  stack_start then chooses the port first, exports those
#                  variables with @PORT@ replaced by it, starts authd, then
#                  lighttpd; when the port turns out to be taken it stops
#                  authd and tries again with another port (the variables are
#                  rewritten from their @PORT@ templates each time). Later
#                  authd_start/authctl calls see the replaced values.
#                  Without such variables stack_start works exactly as before.
#   at_exit CMD [ARGS...]
#                  runs CMD ARGS when the script exits (after stack_stop, in
#                  the order registered), e.g. to stop a helper process the
#                  test started; $FAILED and _EXIT_RC tell how the test went.
#                  Installs the same EXIT/INT/TERM traps as stack_start, so it
#                  may be called before or after it.
#
# Plus everything in assert.sh (http, header, json, expect_*, finish).

_HARNESS_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=assert.sh
source "$_HARNESS_DIR/assert.sh"

SOURCE_DIR=${SOURCE_DIR:-$(cd "$_HARNESS_DIR/../.." && pwd)}
AUTHD_BIN=${AUTHD_BIN:-$SOURCE_DIR/build/authd}
AUTHCTL_BIN=${AUTHCTL_BIN:-$SOURCE_DIR/build/authctl}
LIGHTTPD_CONF=${LIGHTTPD_CONF:-$SOURCE_DIR/conf/lighttpd.conf}
AUTHD_FRONTEND=${AUTHD_FRONTEND:-lighttpd}
if [[ $AUTHD_FRONTEND == apache ]]; then
  # shellcheck source=apache.sh
  source "$_HARNESS_DIR/apache.sh"
fi
STACK_START_TIMEOUT=${STACK_START_TIMEOUT:-15}
# Every test client shares 127.0.0.1: the per-address sign-up limit is off
# unless a test sets it (t_sec_csrf.sh does).
export AUTHD_SIGNUP_ADDRESS_LIMIT=${AUTHD_SIGNUP_ADDRESS_LIMIT:-0}
export SOURCE_DIR AUTHD_BIN AUTHCTL_BIN

STATE_DIR=
FCGI_SOCKET=
AUTHD_PID=
LIGHTTPD_PID=
PORT=
BASE_URL=
_STACK_STOPPED=0

_harness_die() {
  printf 'harness: %s\n' "$*" >&2
  exit 1
}

# True while PID exists and is not a zombie.
_proc_alive() {
  local st
  st=$(cat "/proc/$1/stat" 2>/dev/null) || return 1
  st=${st##*) }
  [[ ${st:0:1} != Z ]]
}

# Stops the process group led by PID (started with setsid): TERM, wait up to
# 5 s for every member, then KILL. Reaps the leader.
_stop_group() {
  local pid=$1 name=$2 i
  [[ -n $pid ]] || return 0
  kill -TERM -- "-$pid" 2>/dev/null || kill -TERM "$pid" 2>/dev/null || true
  for ((i = 0; i < 50; i++)); do
    _proc_alive "$pid" || wait "$pid" 2>/dev/null || true
    kill -0 -- "-$pid" 2>/dev/null || kill -0 "$pid" 2>/dev/null || return 0
    sleep 0.1
  done
  printf 'harness: %s (pid %s) ignored SIGTERM for 5 s: killing it\n' "$name" "$pid" >&2
  kill -KILL -- "-$pid" 2>/dev/null || kill -KILL "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
}

# HTTP status of GET $1 on the running lighttpd, 000 when no answer.
_probe() {
  curl --silent --noproxy '*' --max-time 2 --output /dev/null \
       --write-out '%{http_code}' "http://127.0.0.1:$PORT$1" 2>/dev/null || true
}

_port_in_use() {
  (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null
}

_pick_port() {
  local p i
  for ((i = 0; i < 50; i++)); do
    p=$((20000 + (RANDOM * 32768 + RANDOM) % 40000))
    _port_in_use "$p" || { echo "$p"; return 0; }
  done
  return 1
}

_HARNESS_EXIT_HOOKS=()
at_exit() {
  (($# > 0)) || _harness_die "usage: at_exit CMD [ARGS...]"
  local quoted
  printf -v quoted '%q ' "$@"
  _HARNESS_EXIT_HOOKS+=("$quoted")
  trap _harness_on_exit EXIT
  trap 'exit 130' INT
  trap 'exit 143' TERM
}

_LOGS_DUMPED=0
dump_logs() {
  [[ -n $STATE_DIR && -d $STATE_DIR ]] || return 0
  _LOGS_DUMPED=1
  local f
  for f in authd.log lighttpd-error.log lighttpd.out apache-error.log apache.out; do
    if [[ -s $STATE_DIR/$f ]]; then
      printf -- '----- %s (last 100 lines) -----\n' "$f"
      tail -n 100 "$STATE_DIR/$f"
    fi
  done
  printf -- '----- end of logs -----\n'
}

authd_start() {
  [[ -n $STATE_DIR ]] || _harness_die "authd_start: call stack_start first"
  if [[ -n $AUTHD_PID ]] && _proc_alive "$AUTHD_PID"; then
    echo "harness: authd_start: authd already runs (pid $AUTHD_PID)" >&2
    return 0
  fi
  rm -f "$FCGI_SOCKET"
  # setsid: authd and any worker it forks form one process group to stop.
  # spawn-fcgi -n binds the socket, then execs authd in the same process.
  setsid spawn-fcgi -n -s "$FCGI_SOCKET" -M 0600 -- "$AUTHD_BIN" \
    </dev/null >>"$STATE_DIR/authd.log" 2>&1 &
  AUTHD_PID=$!
  export AUTHD_PID

  local i
  for ((i = 0; i < 100; i++)); do
    [[ -S $FCGI_SOCKET ]] && break
    if ! _proc_alive "$AUTHD_PID"; then
      echo "harness: authd exited during start-up" >&2
      dump_logs >&2
      return 1
    fi
    sleep 0.05
  done
  if [[ ! -S $FCGI_SOCKET ]]; then
    echo "harness: spawn-fcgi did not create $FCGI_SOCKET" >&2
    dump_logs >&2
    return 1
  fi

  # With lighttpd up, wait until it routes to authd again (after a failed
  # connect lighttpd keeps the backend disabled for about a second).
  if [[ -n $LIGHTTPD_PID ]]; then
    local deadline=$((SECONDS + STACK_START_TIMEOUT)) code
    while ((SECONDS < deadline)); do
      code=$(_probe /records)
      [[ $code == 401 ]] && return 0
      if ! _proc_alive "$AUTHD_PID"; then
        echo "harness: authd exited during start-up" >&2
        dump_logs >&2
        return 1
      fi
      sleep 0.1
    done
    echo "harness: GET /records did not answer 401 within ${STACK_START_TIMEOUT}s (last: $code)" >&2
    dump_logs >&2
    return 1
  fi
  return 0
}

authd_stop() {
  [[ -n $AUTHD_PID ]] || return 0
  _stop_group "$AUTHD_PID" authd
  AUTHD_PID=
  rm -f "$FCGI_SOCKET"
}

# Starts lighttpd on $PORT. Returns 0 when it listens, 2 when the port was
# taken (caller retries with another), 1 on any other failure.
_lighttpd_start() {
  case $AUTHD_FRONTEND in
    apache) _apache_start; return ;;
    lighttpd) ;;
    *) _harness_die "AUTHD_FRONTEND must be lighttpd or apache, not '$AUTHD_FRONTEND'" ;;
  esac
  : >"$STATE_DIR/lighttpd-error.log"
  LIGHTTPD_PORT=$PORT LIGHTTPD_WWW=$SOURCE_DIR/www LIGHTTPD_RUN_DIR=$STATE_DIR \
  LIGHTTPD_FCGI_SOCKET=$FCGI_SOCKET \
    setsid lighttpd -D -f "$LIGHTTPD_CONF" </dev/null >>"$STATE_DIR/lighttpd.out" 2>&1 &
  LIGHTTPD_PID=$!
  export LIGHTTPD_PID
  local i
  for ((i = 0; i < 100; i++)); do
    if ! _proc_alive "$LIGHTTPD_PID"; then
      wait "$LIGHTTPD_PID" 2>/dev/null || true
      LIGHTTPD_PID=
      if grep -qi 'address already in use' "$STATE_DIR/lighttpd-error.log" "$STATE_DIR/lighttpd.out" 2>/dev/null; then
        return 2
      fi
      return 1
    fi
    [[ $(_probe /) != 000 ]] && return 0
    sleep 0.05
  done
  return 1
}

stack_start() {
  local tool
  for tool in lighttpd spawn-fcgi curl jq setsid; do
    command -v "$tool" >/dev/null 2>&1 ||
      _harness_die "'$tool' is not installed (scripts/deps.sh test installs what is missing)"
  done
  [[ -x $AUTHD_BIN ]] || _harness_die "AUTHD_BIN=$AUTHD_BIN is not an executable (build first)"
  [[ -f $LIGHTTPD_CONF ]] || _harness_die "no lighttpd config at $LIGHTTPD_CONF"

  STATE_DIR=$(mktemp -d "${TMPDIR:-/tmp}/authd-bb.XXXXXX") || _harness_die "mktemp failed"
  FCGI_SOCKET=$STATE_DIR/authd.sock
  AUTHD_STATE_DIR=$STATE_DIR
  export STATE_DIR FCGI_SOCKET AUTHD_STATE_DIR
  _STACK_STOPPED=0
  trap _harness_on_exit EXIT
  trap 'exit 130' INT
  trap 'exit 143' TERM

  # AUTHD_* variables whose value names the port (@PORT@): authd can only
  # start once the port is chosen (see @PORT@ at the top).
  local var
  local -A templates=()
  for var in $(compgen -e); do
    [[ $var == AUTHD_* && ${!var} == *@PORT@* ]] && templates[$var]=${!var}
  done
  ((${#templates[@]})) || authd_start || _harness_die "authd did not start"

  local attempt rc=1
  for ((attempt = 1; attempt <= 10; attempt++)); do
    PORT=$(_pick_port) || _harness_die "found no free port"
    if ((${#templates[@]})); then
      for var in "${!templates[@]}"; do
        export "$var=${templates[$var]//@PORT@/$PORT}"
      done
      authd_start || _harness_die "authd did not start"
    fi
    rc=0
    _lighttpd_start || rc=$?
    ((rc == 2)) || break
    ((${#templates[@]})) && authd_stop
    echo "harness: port $PORT was taken, retrying" >&2
  done
  if ((rc != 0)); then
    echo "harness: lighttpd did not start" >&2
    dump_logs >&2
    exit 1
  fi
  BASE_URL=http://127.0.0.1:$PORT
  export PORT BASE_URL

  local deadline=$((SECONDS + STACK_START_TIMEOUT)) code=000
  while ((SECONDS < deadline)); do
    code=$(_probe /records)
    [[ $code == 401 ]] && break
    if ! _proc_alive "$AUTHD_PID" || ! _proc_alive "$LIGHTTPD_PID"; then
      break
    fi
    sleep 0.1
  done
  if [[ $code != 401 ]]; then
    _proc_alive "$AUTHD_PID" || echo "harness: authd (pid $AUTHD_PID) exited" >&2
    _proc_alive "$LIGHTTPD_PID" || echo "harness: lighttpd (pid $LIGHTTPD_PID) exited" >&2
    echo "harness: stack not ready: GET /records answered $code, expected 401" >&2
    dump_logs >&2
    exit 1
  fi
  printf 'harness: stack up at %s (authd pid %s, %s pid %s, state %s)\n' \
    "$BASE_URL" "$AUTHD_PID" "$AUTHD_FRONTEND" "$LIGHTTPD_PID" "$STATE_DIR"
}

# Prints sanitizer reports found in authd.log; returns 0 when there are some.
_sanitizer_reports() {
  [[ -n $STATE_DIR && -f $STATE_DIR/authd.log ]] || return 1
  grep -E -A30 'ERROR: (Address|Leak|Thread|Memory)Sanitizer|Sanitizer has encountered a fatal error|runtime error:' "$STATE_DIR/authd.log"
}

_EXIT_RC=0
_SANITIZER_FAILED=0

stack_stop() {
  ((_STACK_STOPPED)) && return 0
  _STACK_STOPPED=1
  if [[ -n $LIGHTTPD_PID ]]; then
    _stop_group "$LIGHTTPD_PID" lighttpd
    LIGHTTPD_PID=
  fi
  authd_stop
  [[ -n $STATE_DIR && -d $STATE_DIR ]] || return 0
  if _sanitizer_reports >/dev/null; then
    _SANITIZER_FAILED=1
    fail "authd ran without sanitizer reports" "$(_sanitizer_reports | head -n 60)"
  fi
  if ((FAILED > 0 || _EXIT_RC != 0)) && ((_LOGS_DUMPED == 0)); then
    dump_logs
  fi
  if [[ ${KEEP_STATE:-0} == 1 ]]; then
    echo "harness: state kept in $STATE_DIR"
  else
    rm -rf "$STATE_DIR"
  fi
}

_harness_on_exit() {
  _EXIT_RC=$?
  trap - EXIT
  stack_stop
  local hook
  for hook in "${_HARNESS_EXIT_HOOKS[@]}"; do
    eval "$hook" || true
  done
  if ((_SANITIZER_FAILED && _EXIT_RC == 0)); then
    echo "$PASSED passed, $FAILED failed"
    _EXIT_RC=1
  fi
  exit "$_EXIT_RC"
}

authctl() {
  "$AUTHCTL_BIN" "$@"
}

# True while authd runs (a dead authd is a zombie until reaped, which
# `kill -0 $AUTHD_PID` would still report as alive).
authd_alive() {
  [[ -n $AUTHD_PID ]] && _proc_alive "$AUTHD_PID"
}

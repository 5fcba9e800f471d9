# shellcheck shell=bash source-path=SCRIPTDIR
# test/blackbox/harness.sh - runs the real stack (a web server + spawn-fcgi +
# authd) for one black-box test script. Source it from test/blackbox/t_NAME.sh:
#
#   #!/usr/bin/env bash
#   source "$(dirname "${BASH_SOURCE[0]}")/harness.sh"
#   export AUTHD_TOKEN_TTL=2          # optional: any AUTHD_* setting for authd
#   stack_start
#   http GET /records
#   expect_status 401 "no token"
#   signup alice 'alice password'     # client helpers: see api.sh
#   auth_get /records
#   expect_status 200 "alice's token"
#   finish
#
# Do not `set -e` in a test: failed checks are counted, not fatal.
# CTest runs each script as `bash test/blackbox/t_NAME.sh` (test name
# blackbox.NAME); it can also be run by hand after a build, from any directory.
#
# What it brings together (each documented at its own top):
#   assert.sh              checks (expect_*, pass, fail, finish) and `http`
#   api.sh                 the client side: signup, signin (TOKEN), auth_get/
#                          auth_post/..., records, users by role, status-only
#                          requests for background jobs, token helpers
#   scripts/stack_lib.sh   processes and ports (shared with make run and make
#                          bench): proc_alive, stop_group, stop_pid, pick_port,
#                          port_in_use, wait_for_port, wait_for_socket,
#                          wait_for_http, http_status, now_ms, fcgi_spawn...
#   apache.sh, nginx.sh, h2o.sh, caddy.sh   the other front ends (TEST_FRONTEND below)
#   front_conf.sh          configuration pieces they share (apache_run_as, nginx_conf_head)
#
# Inputs (environment; defaults derived from this file's location)
#   SOURCE_DIR     repository root                    (default: ../.. from here)
#   AUTHD_BIN      the FastCGI program                (default: $SOURCE_DIR/build/authd)
#   AUTHCTL_BIN    the admin command                  (default: $SOURCE_DIR/build/authctl)
#   AUTHD_*        every exported AUTHD_* variable reaches authd and authctl
#                  (AUTHD_STATE_DIR is always set by stack_start), which refuse
#                  one that names no setting (AUTHD_BIN and AUTHD_CONFIG aside):
#                  the harness's own variables are not AUTHD_* (TEST_FRONTEND)
#   KEEP_STATE=1   keep the state directory (logs, LMDB) after the test
#   STACK_START_TIMEOUT  seconds to wait for the stack to answer (default 15)
#   TEST_FRONTEND  the web server in front of authd:
#                  lighttpd  (default) conf/lighttpd.conf, LIGHTTPD_CONF to
#                            use another file;
#                  apache    Apache 2.4, conf/apache/authd.conf (apache.sh);
#                  nginx     nginx, conf/nginx/authd.conf (nginx.sh);
#                  h2o       H2O 2.2, conf/h2o/authd.conf (h2o.sh);
#                  caddy     Caddy 2.6, conf/caddy/Caddyfile (caddy.sh).
#                  Everything else is alike; CTest runs the suite on each, as
#                  blackbox.NAME, blackbox-apache.NAME and blackbox-nginx.NAME.
#   PRISM_PROXY=1  Prism's validator between the test and the front end: every
#                  request and answer is checked against docs/openapi.yaml and
#                  a violation fails the test (prism.sh; CTest: blackbox-prism.NAME).
#
# Variables set by stack_start
#   STATE_DIR      a fresh directory (mktemp -d), also AUTHD_STATE_DIR
#   FCGI_SOCKET    authd's unix socket, $STATE_DIR/authd.sock
#   PORT, BASE_URL the front end's 127.0.0.1 port and http://127.0.0.1:$PORT
#   AUTHD_PID      authd's pid (supervised: the supervisor's, see below); not exported
#   FRONTEND_PID   the web server's (parent) pid; LIGHTTPD_PID holds it too,
#                  whichever the front end
#
# Functions
#   stack_start    creates STATE_DIR; starts authd with spawn-fcgi on
#                  FCGI_SOCKET (stderr to $STATE_DIR/authd.log) and the front
#                  end on a free 127.0.0.1 port (retried when the port is
#                  taken); waits until GET /records answers 401. Installs an
#                  EXIT trap that calls stack_stop. If the stack does not come
#                  up it prints the logs and exits 1. The front end logs into
#                  STATE_DIR too (lighttpd-error.log, lighttpd-access.log;
#                  apache-*.log; nginx-*.log).
#   stack_start_supervised
#                  stack_start, with authd run by scripts/supervise-authd.sh
#                  (the supervisor `make run` uses) instead of plain
#                  spawn-fcgi: a killed authd comes back by itself. AUTHD_PID
#                  (and SUPERVISOR_PID) is then the supervisor's pid;
#                  authd_child_pid prints the FastCGI process's pid, and
#                  authd_start / authd_stop start and stop the supervisor
#                  (stop: SIGTERM, which it forwards to authd, then waits;
#                  KILL after 15 s). SUPERVISE_* settings pass through.
#   stack_stop     stops the front end and authd, then removes STATE_DIR
#                  (unless KEEP_STATE=1). Safe to call twice. On a failed test
#                  (exit status != 0, or a failed check) the logs are printed
#                  first. A sanitizer report (ASan/UBSan/LSan) in authd.log
#                  counts as a failed check and makes the script exit 1.
#   authd_stop     stops only authd (TERM, then KILL after 5 s) and removes the
#                  socket: the front end then answers API paths with 503 +
#                  www/500.html.
#   authd_start    (re)starts authd on the same socket and state; when the front
#                  end runs, waits until it routes to authd again (GET /records
#                  -> 401). Returns 1 (after printing the logs) when authd does
#                  not come up.
#   authd_alive    true while authd runs (unlike `kill -0 $AUTHD_PID`, false
#                  for an authd that died and is a zombie).
#   authd_tcp_start PORT SECRET
#                  a second authd on 127.0.0.1:PORT (FastCGI over TCP, for
#                  Apache's authorizer), front_secret SECRET, same state and
#                  settings, logging into authd.log too; AUTHZ_PID, stopped at
#                  exit. The script dies when it does not listen within 5 s.
#   authd_child_pid [TIMEOUT_S]
#                  prints the pid of the live authd process (supervised: the
#                  supervisor's current child, waiting up to TIMEOUT_S, default
#                  15, for one; otherwise AUTHD_PID); returns 1 when none.
#   authctl ARGS   runs $AUTHCTL_BIN ARGS with the same AUTHD_* environment as
#                  authd (same state dir), e.g. `authctl role alice admin`,
#                  `printf 'pw' | authctl add bob user`.
#   probe PATH [MAX_TIME_S]
#                  prints the status of GET PATH on the front end, 000 when no
#                  answer within MAX_TIME_S (default 1); no check is counted.
#   wait_status PATH CODE [TIMEOUT_S]
#                  polls GET PATH every 50 ms until it answers CODE; sets
#                  WAITED_MS; returns 1 on timeout (default 20 s).
#   dump_logs      prints authd.log, the front end's logs and the files given
#                  to extra_log.
#   stack_logs     prints (cat) every log file of the stack: authd.log and all
#                  of the front end's logs and outputs (to search them).
#   extra_log FILE [NAME]
#                  dump_logs also prints the end of FILE (under NAME), e.g.
#                  the log of a helper server the test runs itself: on a
#                  failed test it is printed at exit, before the at_exit
#                  commands run (which may remove it), with or without a stack.
#   at_exit CMD [ARGS...]
#                  runs CMD ARGS when the script exits (after stack_stop, in
#                  the order registered), e.g. to stop a helper process the
#                  test started; $FAILED and _EXIT_RC tell how the test went.
#                  Installs the same EXIT/INT/TERM traps as stack_start, so it
#                  may be called before or after it.
#   make_temp_dir VAR [NAME]
#                  creates a private directory under TMPDIR (mktemp -d, named
#                  authd-NAME.XXXXXX) for the test's own files, stores its
#                  path in VAR and removes it at exit (kept with KEEP_STATE=1).
#   stop_at_exit VAR NAME
#                  at exit, stop_group the pid that VAR holds THEN (a helper
#                  server the test started with setsid; empty: nothing to do).
#                  Register it before make_temp_dir of the directory the
#                  helper writes into: at-exit commands run in order.
#   remove_unless_kept DIR WHAT
#                  rm -rf DIR, or with KEEP_STATE=1 says "WHAT kept in DIR".
#   need_tools TOOL...
#                  exits 1 (a setup failure) naming the first TOOL that is not
#                  on PATH; scripts/deps.sh test installs them all.
#   need_jwks_verifiers
#                  the outside token verifiers of test/jwks: sets JWKS_DIR and
#                  PY (the python3 with python3-jwt), installs jose there once
#                  (npm ci, one script at a time); exits 1 when node or
#                  python3-jwt is missing.
#   _harness_die MSG  prints MSG and exits 1 (a setup failure, not a check).
#   @PORT@         settings that must name the front end's port before authd
#                  starts: export any AUTHD_* variable with the text @PORT@ in
#                  its value before stack_start, e.g.
#                    export AUTHD_OAUTH_REDIRECT_URI='http://127.0.0.1:@PORT@/oauth'
#                  stack_start then chooses the port first, exports those
#                  variables with @PORT@ replaced by it, starts authd, then the
#                  front end; when the port turns out to be taken it stops
#                  authd and tries again with another port (the variables are
#                  rewritten from their @PORT@ templates each time). Later
#                  authd_start/authctl calls see the replaced values.
#
# A front end file (apache.sh, nginx.sh) defines _frontend_start: start the
# server on $PORT for $FCGI_SOCKET (with _frontend_spawn), set FRONTEND_PID,
# return 0 when it listens, 2 when the port was taken, 1 on any other
# failure; and it sets FRONTEND_LOGS, the names of its files in STATE_DIR
# (dump_logs prints them, stack_logs too).

_HARNESS_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
STACK_SAY=harness
# shellcheck source=../../scripts/stack_lib.sh
source "$_HARNESS_DIR/../../scripts/stack_lib.sh"
# shellcheck source=assert.sh
source "$_HARNESS_DIR/assert.sh"
# shellcheck source=api.sh
source "$_HARNESS_DIR/api.sh"

SOURCE_DIR=${SOURCE_DIR:-$(cd "$_HARNESS_DIR/../.." && pwd)}
AUTHD_BIN=${AUTHD_BIN:-$SOURCE_DIR/build/authd}
AUTHCTL_BIN=${AUTHCTL_BIN:-$SOURCE_DIR/build/authctl}
LIGHTTPD_CONF=${LIGHTTPD_CONF:-$SOURCE_DIR/conf/lighttpd.conf}
TEST_FRONTEND=${TEST_FRONTEND:-lighttpd}
SUPERVISOR=${SUPERVISOR:-$SOURCE_DIR/scripts/supervise-authd.sh}
STACK_START_TIMEOUT=${STACK_START_TIMEOUT:-15}
# Every test client shares 127.0.0.1: the per-address sign-up limit is off
# unless a test sets it (t_sec_csrf.sh does).
export AUTHD_SIGNUP_ADDRESS_LIMIT=${AUTHD_SIGNUP_ADDRESS_LIMIT:-0}
export SOURCE_DIR AUTHD_BIN AUTHCTL_BIN SUPERVISOR

STATE_DIR=
FCGI_SOCKET=
AUTHD_PID=
SUPERVISOR_PID=
SUPERVISED=0
FRONTEND_PID=
LIGHTTPD_PID=
PORT=
BASE_URL=
_STACK_STOPPED=0
_EXTRA_LOGS=()

_harness_die() {
  printf 'harness: %s\n' "$*" >&2
  exit 1
}

need_jwks_verifiers() {
  JWKS_DIR=$SOURCE_DIR/test/jwks
  PY=/usr/bin/python3
  command -v node >/dev/null || _harness_die "node is missing (scripts/deps.sh test)"
  $PY -c 'import jwt' 2>/dev/null || _harness_die "python3-jwt is missing (scripts/deps.sh test)"
  if [[ ! -f $JWKS_DIR/node_modules/jose/package.json ]]; then
    ( exec 9>"${TMPDIR:-/tmp}/authd-jwks-npm.lock"; flock -w 300 9
      [[ -f $JWKS_DIR/node_modules/jose/package.json ]] || (cd "$JWKS_DIR" && npm ci --no-audit --no-fund --loglevel=error) ) ||
      _harness_die "npm ci in test/jwks failed"
  fi
}

need_tools() {
  local tool
  for tool in "$@"; do
    command -v "$tool" >/dev/null 2>&1 ||
      _harness_die "'$tool' is not installed (scripts/deps.sh test installs what is missing)"
  done
}

# _tool_path NAME DEFAULT: NAME's path on PATH, else DEFAULT.
_tool_path() {
  command -v "$1" 2>/dev/null || echo "$2"
}

# --- the front end ---------------------------------------------------------------
# shellcheck source=front_conf.sh
source "$_HARNESS_DIR/front_conf.sh"
case $TEST_FRONTEND in
  lighttpd)
    FRONTEND_LOGS=(lighttpd-error.log lighttpd-access.log lighttpd.out)
    _frontend_start() {
      [[ -f $LIGHTTPD_CONF ]] || _harness_die "no lighttpd config at $LIGHTTPD_CONF"
      local rc=0
      lighttpd_spawn "$LIGHTTPD_CONF" "$PORT" "$SOURCE_DIR/www" "$STATE_DIR" "$FCGI_SOCKET" || rc=$?
      FRONTEND_PID=$SPAWNED_PID
      ((rc == 0)) || { stop_group "$FRONTEND_PID" lighttpd; FRONTEND_PID=; }
      return "$rc"
    }
    ;;
  apache)
    # shellcheck source=apache.sh
    source "$_HARNESS_DIR/apache.sh"
    ;;
  nginx)
    # shellcheck source=nginx.sh
    source "$_HARNESS_DIR/nginx.sh"
    ;;
  h2o)
    # shellcheck source=h2o.sh
    source "$_HARNESS_DIR/h2o.sh"
    ;;
  caddy)
    # shellcheck source=caddy.sh
    source "$_HARNESS_DIR/caddy.sh"
    ;;
  *) _harness_die "TEST_FRONTEND must be lighttpd, apache, nginx, h2o or caddy, not '$TEST_FRONTEND'" ;;
esac

# _frontend_spawn NAME OUT_FILE ERROR_LOG COMMAND...: starts the front end:
# COMMAND in its own process group (stdin /dev/null, output appended to
# $STATE_DIR/OUT_FILE), which must listen on $PORT within 10 s. Sets
# FRONTEND_PID (emptied again, the process stopped, on a failure); returns
# as await_listener: 2 when ERROR_LOG or OUT_FILE says the port was taken.
_frontend_spawn() {
  local name=$1 out=$STATE_DIR/$2 errlog=$STATE_DIR/$3 rc=0
  shift 3
  : >"$errlog"
  setsid "$@" </dev/null >>"$out" 2>&1 &
  FRONTEND_PID=$!
  await_listener "$FRONTEND_PID" "$PORT" 10 "$errlog" "$out" || rc=$?
  if ((rc != 0)); then
    stop_group "$FRONTEND_PID" "$name"
    FRONTEND_PID=
  fi
  return "$rc"
}

# PRISM_PROXY=1: the front end behind Prism's validating proxy (prism.sh).
if [[ ${PRISM_PROXY:-0} == 1 ]]; then
  # shellcheck source=prism.sh
  source "$_HARNESS_DIR/prism.sh"
  FRONTEND_LOGS+=(prism.out)
fi

# --- exit handling and logs --------------------------------------------------------
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

make_temp_dir() {
  local dir
  dir=$(mktemp -d "${TMPDIR:-/tmp}/authd-${2:-test}.XXXXXX") || _harness_die "mktemp failed"
  printf -v "$1" '%s' "$dir"
  at_exit remove_unless_kept "$dir" "${2:-test} files"
}

_stop_var_at_exit() { stop_group "${!1}" "$2"; }
stop_at_exit() {
  at_exit _stop_var_at_exit "$1" "$2"
}

remove_unless_kept() {
  [[ -n $1 && -d $1 ]] || return 0
  if [[ ${KEEP_STATE:-0} == 1 ]]; then
    echo "harness: $2 kept in $1"
  else
    rm -rf "$1"
  fi
}

extra_log() {
  _EXTRA_LOGS+=("$1|${2:-$(basename "$1")}")
}

_LOGS_DUMPED=0
dump_logs() {
  local f entry printed=0
  _LOGS_DUMPED=1
  if [[ -n $STATE_DIR && -d $STATE_DIR ]]; then
    for f in authd.log "${FRONTEND_LOGS[@]}"; do
      [[ $f != *access* && -s $STATE_DIR/$f ]] || continue
      printf -- '----- %s (last 100 lines) -----\n' "$f"
      tail -n 100 "$STATE_DIR/$f"
      printed=1
    done
  fi
  for entry in "${_EXTRA_LOGS[@]}"; do
    f=${entry%%|*}
    [[ -s $f ]] || continue
    printf -- '----- %s (last 60 lines) -----\n' "${entry#*|}"
    tail -n 60 "$f"
    printed=1
  done
  ((printed == 0)) || printf -- '----- end of logs -----\n'
}

stack_logs() {
  [[ -n $STATE_DIR ]] || return 0
  local f
  for f in authd.log "${FRONTEND_LOGS[@]}"; do
    cat "$STATE_DIR/$f" 2>/dev/null
  done
  return 0
}

# --- authd -------------------------------------------------------------------------
authd_alive() {
  [[ -n $AUTHD_PID ]] && proc_alive "$AUTHD_PID"
}

authd_start() {
  [[ -n $STATE_DIR ]] || _harness_die "authd_start: call stack_start first"
  if authd_alive; then
    echo "harness: authd_start: authd already runs (pid $AUTHD_PID)" >&2
    return 0
  fi
  local rc=0
  if ((SUPERVISED)); then
    supervisor_spawn "$FCGI_SOCKET" "$STATE_DIR/authd.pid" "$STATE_DIR/authd.log" || rc=$?
    SUPERVISOR_PID=$SPAWNED_PID
  else
    # setsid: authd and any worker it forks form one process group to stop.
    fcgi_spawn "$FCGI_SOCKET" "$STATE_DIR/authd.log" "$AUTHD_BIN" || rc=$?
  fi
  AUTHD_PID=$SPAWNED_PID
  export SUPERVISOR_PID  # AUTHD_PID stays unexported: authd and authctl refuse unknown AUTHD_* variables
  if ((rc != 0)); then
    if authd_alive; then
      echo "harness: authd did not create $FCGI_SOCKET" >&2
    else
      echo "harness: authd exited during start-up" >&2
    fi
    dump_logs >&2
    return 1
  fi

  # With the front end up, wait until it routes to authd again (after a failed
  # connect some front ends keep the backend disabled for a moment).
  [[ -n $FRONTEND_PID ]] || return 0
  rc=0
  wait_for_http "http://127.0.0.1:$PORT/records" 401 "$STACK_START_TIMEOUT" "$AUTHD_PID" || rc=$?
  case $rc in
    0) return 0 ;;
    2) echo "harness: authd exited during start-up" >&2 ;;
    *) echo "harness: GET /records did not answer 401 within ${STACK_START_TIMEOUT}s (last: $WAIT_STATUS)" >&2 ;;
  esac
  dump_logs >&2
  return 1
}

authd_stop() {
  [[ -n $AUTHD_PID ]] || return 0
  if ((SUPERVISED)); then
    # TERM to the supervisor alone: it forwards it and waits for authd.
    stop_pid -g "$AUTHD_PID" "the supervisor" 15
    SUPERVISOR_PID=
  else
    stop_group "$AUTHD_PID" authd
  fi
  AUTHD_PID=
  rm -f "$FCGI_SOCKET"
}

authd_tcp_start() {
  local port=$1 secret=$2
  AUTHZ_PID=
  stop_at_exit AUTHZ_PID "authd (authorizer)"
  AUTHD_FRONT_SECRET=$secret setsid spawn-fcgi -n -a 127.0.0.1 -p "$port" -- "$AUTHD_BIN" \
    </dev/null >>"$STATE_DIR/authd.log" 2>&1 &
  AUTHZ_PID=$!
  wait_for_port "$port" "$AUTHZ_PID" 5 ||
    { dump_logs; _harness_die "the TCP authd did not start on $port"; }
}

authd_child_pid() {
  local timeout=${1:-15} deadline pid
  if ((!SUPERVISED)); then
    authd_alive && { echo "$AUTHD_PID"; return 0; }
    return 1
  fi
  deadline=$(($(now_ms) + timeout * 1000))
  while :; do
    pid=$(cat "$STATE_DIR/authd.pid" 2>/dev/null) || pid=
    if [[ -n $pid ]] && proc_alive "$pid" &&
       [[ $(cat "/proc/$pid/comm" 2>/dev/null) == authd* ]]; then
      echo "$pid"
      return 0
    fi
    (($(now_ms) < deadline)) || return 1
    sleep 0.05
  done
}

authctl() {
  "$AUTHCTL_BIN" "$@"
}

probe() {
  http_status "http://127.0.0.1:$PORT$1" "${2:-1}"
}

wait_status() {
  wait_for_http "http://127.0.0.1:$PORT$1" "$2" "${3:-20}"
}

# --- the stack -----------------------------------------------------------------------
stack_start() {
  need_tools spawn-fcgi curl jq setsid
  [[ $TEST_FRONTEND != lighttpd ]] || need_tools lighttpd
  [[ -x $AUTHD_BIN ]] || _harness_die "AUTHD_BIN=$AUTHD_BIN is not an executable (build first)"
  [[ ${PRISM_PROXY:-0} != 1 ]] || _prism_install

  STATE_DIR=$(mktemp -d "${TMPDIR:-/tmp}/authd-bb.XXXXXX") || _harness_die "mktemp failed"
  FCGI_SOCKET=$STATE_DIR/authd.sock
  AUTHD_STATE_DIR=$STATE_DIR
  export STATE_DIR FCGI_SOCKET AUTHD_STATE_DIR
  _STACK_STOPPED=0
  trap _harness_on_exit EXIT
  trap 'exit 130' INT
  trap 'exit 143' TERM

  # The argon2id cost of new password hashes: a script that does not choose
  # one gets the cheapest (1 MiB, one pass). At the production default
  # (19 MiB, two passes) hashing was most of the suite's CPU time (three
  # quarters of a sign-up script's), and few scripts are about it: those
  # that are (t_sec_hash_lanes, t_sec_enumeration, t_load_mixed, t_crash_sigkill, ...) set
  # AUTHD_ARGON2_ITERATIONS and so keep the default memory.
  if [[ -z ${AUTHD_ARGON2_ITERATIONS:-} && -z ${AUTHD_ARGON2_MEMORY_KIB:-} ]]; then
    export AUTHD_ARGON2_MEMORY_KIB=1024 AUTHD_ARGON2_ITERATIONS=1
  fi

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
    PORT=$(pick_port) || _harness_die "found no free port"
    if ((${#templates[@]})); then
      for var in "${!templates[@]}"; do
        export "$var=${templates[$var]//@PORT@/$PORT}"
      done
      authd_start || _harness_die "authd did not start"
    fi
    rc=0
    if [[ ${PRISM_PROXY:-0} == 1 ]]; then
      _prism_frontend_start || rc=$?
    else
      _frontend_start || rc=$?
    fi
    ((rc == 2)) || break
    ((${#templates[@]})) && authd_stop
    echo "harness: port $PORT was taken, retrying" >&2
  done
  LIGHTTPD_PID=$FRONTEND_PID
  export FRONTEND_PID LIGHTTPD_PID
  if ((rc != 0)); then
    echo "harness: $TEST_FRONTEND did not start" >&2
    dump_logs >&2
    exit 1
  fi
  BASE_URL=http://127.0.0.1:$PORT
  export PORT BASE_URL

  rc=0
  wait_for_http "$BASE_URL/records" 401 "$STACK_START_TIMEOUT" "$AUTHD_PID" "$FRONTEND_PID" || rc=$?
  if ((rc != 0)); then
    authd_alive || echo "harness: authd (pid $AUTHD_PID) exited" >&2
    proc_alive "$FRONTEND_PID" || echo "harness: $TEST_FRONTEND (pid $FRONTEND_PID) exited" >&2
    echo "harness: stack not ready: GET /records answered $WAIT_STATUS, expected 401" >&2
    dump_logs >&2
    exit 1
  fi
  printf 'harness: stack up at %s (authd pid %s, %s pid %s, state %s)\n' \
    "$BASE_URL" "$AUTHD_PID" "$TEST_FRONTEND" "$FRONTEND_PID" "$STATE_DIR"
}

stack_start_supervised() {
  [[ -x $SUPERVISOR ]] || _harness_die "SUPERVISOR=$SUPERVISOR is not an executable"
  SUPERVISED=1
  stack_start
}

# Prints sanitizer reports found in authd.log; returns 0 when there are some.
_sanitizer_reports() {
  [[ -n $STATE_DIR && -f $STATE_DIR/authd.log ]] || return 1
  grep -E -A30 'ERROR: (Address|Leak|Thread|Memory)Sanitizer|Sanitizer has encountered a fatal error|runtime error:' "$STATE_DIR/authd.log"
}

_EXIT_RC=0
_SANITIZER_FAILED=0
_PRISM_FAILED=0

stack_stop() {
  ((_STACK_STOPPED)) && return 0
  _STACK_STOPPED=1
  if [[ ${PRISM_PROXY:-0} == 1 ]]; then
    local failed_before=$FAILED
    _prism_stop
    ((FAILED == failed_before)) || _PRISM_FAILED=1
  fi
  if [[ -n $FRONTEND_PID ]]; then
    stop_group "$FRONTEND_PID" "$TEST_FRONTEND"
    FRONTEND_PID='' LIGHTTPD_PID=''
  fi
  authd_stop
  if _sanitizer_reports >/dev/null; then
    _SANITIZER_FAILED=1
    fail "authd ran without sanitizer reports" "$(_sanitizer_reports | head -n 60)"
  fi
  if ((FAILED > 0 || _EXIT_RC != 0)) && ((_LOGS_DUMPED == 0)); then
    dump_logs
  fi
  remove_unless_kept "$STATE_DIR" state
}

_harness_on_exit() {
  _EXIT_RC=$?
  trap - EXIT
  stack_stop
  local hook
  for hook in "${_HARNESS_EXIT_HOOKS[@]}"; do
    eval "$hook" || true
  done
  if (((_SANITIZER_FAILED || _PRISM_FAILED) && _EXIT_RC == 0)); then
    echo "$PASSED passed, $FAILED failed"
    _EXIT_RC=1
  fi
  exit "$_EXIT_RC"
}

# AUTHD_STORE=postgresql: a fresh database for this test (test/blackbox/postgres.sh).
if [[ ${AUTHD_STORE:-lmdb} == postgresql ]]; then source "$_HARNESS_DIR/postgres.sh"; fi

# shellcheck shell=bash
# scripts/stack_lib.sh - starting, watching and stopping the processes of the
# stack (authd under spawn-fcgi or the supervisor, lighttpd, any front end),
# shared by scripts/serve.sh (make run), bench/run.sh (make bench) and
# test/blackbox/harness.sh (the black-box and install tests). Source it; it
# only defines functions, and they work under `set -euo pipefail`.
#
#   source "$ROOT/scripts/stack_lib.sh"
#   STACK_SAY=serve                       # prefix of the messages on stderr
#   supervisor_spawn "$SOCKET" "$RUN_DIR/authd.pid" || die "authd did not start"
#   lighttpd_spawn "$ROOT/conf/lighttpd.conf" "$PORT" "$ROOT/www" "$RUN_DIR" "$SOCKET"
#   ...
#   stop_group "$LIGHTTPD_PID" lighttpd
#
# Settings
#   STACK_SAY      prefix of the messages these functions print on stderr
#                  (default: the name of the script that sourced this file)
#
# Processes
#   proc_alive PID     true while PID exists and is not a zombie (unlike
#                      `kill -0`, false for a child that died but is not reaped)
#   stop_group PID NAME [TIMEOUT_S]
#                      TERM to the process group PID leads (it was started
#                      with setsid), waits up to TIMEOUT_S (default 5) for every
#                      member, then KILLs the group; reaps PID. Empty PID: no-op.
#   stop_pid [-g] PID NAME [TIMEOUT_S]
#                      TERM to PID alone (which may pass it on: the supervisor
#                      forwards it to authd), waits up to TIMEOUT_S (default 5)
#                      for PID, then KILLs PID (with -g: the process group it
#                      leads); reaps PID when it is a child. Empty PID: no-op.
#   now_ms             milliseconds since the epoch
#
# Ports and readiness
#   port_in_use PORT   true when something accepts connections on 127.0.0.1:PORT
#   pick_port          prints a free 127.0.0.1 port in 20000-31999, below
#                      Linux's ephemeral range (32768-60999), where outgoing
#                      connections (curl, wrk) could take it between the check
#                      and the bind; returns 1 when 50 tries found none
#   wait_for_port PORT [PID] [TIMEOUT_S]
#                      waits until 127.0.0.1:PORT accepts (default 5 s);
#                      returns 1 on timeout, or as soon as PID has exited
#   wait_for_socket PATH [PID] [TIMEOUT_S]
#                      waits until the unix socket PATH exists (default 10 s);
#                      returns 1 on timeout, or as soon as PID has exited
#   http_status URL [MAX_TIME_S]
#                      prints the status of GET URL (proxies bypassed), 000
#                      when there is no answer within MAX_TIME_S (default 2)
#   wait_for_http URL CODE [TIMEOUT_S] [PID...]
#                      polls GET URL every 50 ms until it answers CODE. Sets
#                      WAIT_STATUS (the last answer) and WAITED_MS. Returns 0,
#                      1 after TIMEOUT_S (default 15) seconds, or 2 as soon as
#                      one of the PIDs has exited.
#   await_listener PID PORT [TIMEOUT_S] [LOG...]
#                      after starting a server (PID) that should listen on
#                      PORT: 0 once the port accepts, 2 when PID exited and one
#                      of the LOG files says the address was in use (the caller
#                      may retry with another port), 1 when PID exited for
#                      another reason or TIMEOUT_S (default 5) passed. A PID
#                      that exited is reaped.
#
# Starting (each in its own process group, stdin from /dev/null; each sets
# SPAWNED_PID, also when it returns 1, so that the caller can stop or report it)
#   fcgi_spawn SOCKET LOG PROGRAM [ARGS...]
#                      `spawn-fcgi -n -s SOCKET -M 0600 -- PROGRAM ARGS` (spawn-fcgi
#                      binds the socket, then execs PROGRAM in the same process),
#                      output appended to LOG; waits for the socket (10 s).
#                      Returns 1 when PROGRAM exits first or no socket appears.
#   supervisor_spawn SOCKET PID_FILE [LOG]
#                      scripts/supervise-authd.sh SOCKET (authd from $AUTHD_BIN,
#                      restarted when it dies; its current pid in PID_FILE),
#                      output appended to LOG (default: this script's); waits
#                      until the socket and PID_FILE exist (10 s). Returns 1 when
#                      the supervisor exits first or they do not appear.
#   lighttpd_spawn CONF PORT WWW RUN_DIR SOCKET [TIMEOUT_S]
#                      `lighttpd -D -f CONF` with LIGHTTPD_PORT/_WWW/_RUN_DIR/
#                      _FCGI_SOCKET from the arguments (conf/lighttpd.conf reads
#                      them), output appended to RUN_DIR/lighttpd.out, errors in
#                      RUN_DIR/lighttpd-error.log; returns as await_listener.

_STACK_LIB_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
STACK_SAY=${STACK_SAY:-$(basename "${0%.sh}")}
SPAWNED_PID=
WAIT_STATUS=
WAITED_MS=0

_stack_say() { printf '%s: %s\n' "$STACK_SAY" "$*" >&2; }

proc_alive() {
  local st
  [[ -n ${1:-} ]] || return 1
  st=$(cat "/proc/$1/stat" 2>/dev/null) || return 1
  st=${st##*) }
  [[ ${st:0:1} != Z ]]
}

now_ms() {
  local t=${EPOCHREALTIME/[.,]/}
  echo $((t / 1000))
}

stop_group() {
  local pid=${1:-} name=${2:-process} timeout=${3:-5} i
  [[ -n $pid ]] || return 0
  kill -TERM -- "-$pid" 2>/dev/null || kill -TERM "$pid" 2>/dev/null || true
  for ((i = 0; i < timeout * 10; i++)); do
    proc_alive "$pid" || wait "$pid" 2>/dev/null || true
    kill -0 -- "-$pid" 2>/dev/null || kill -0 "$pid" 2>/dev/null || return 0
    sleep 0.1
  done
  _stack_say "$name (pid $pid) did not stop within ${timeout} s of SIGTERM: killing it"
  kill -KILL -- "-$pid" 2>/dev/null || kill -KILL "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
}

stop_pid() {
  local group=0
  if [[ ${1:-} == -g ]]; then group=1; shift; fi
  local pid=${1:-} name=${2:-process} timeout=${3:-5} i
  [[ -n $pid ]] || return 0
  kill -TERM "$pid" 2>/dev/null || true
  for ((i = 0; i < timeout * 10; i++)); do
    proc_alive "$pid" || break
    sleep 0.1
  done
  if proc_alive "$pid"; then
    _stack_say "$name (pid $pid) did not stop within ${timeout} s of SIGTERM: killing it"
    if ((group)); then
      kill -KILL -- "-$pid" 2>/dev/null || kill -KILL "$pid" 2>/dev/null || true
    else
      kill -KILL "$pid" 2>/dev/null || true
    fi
  fi
  wait "$pid" 2>/dev/null || true
}

port_in_use() {
  (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null
}

pick_port() {
  local p i
  for ((i = 0; i < 50; i++)); do
    p=$((20000 + (RANDOM * 32768 + RANDOM) % 12000))
    port_in_use "$p" || { echo "$p"; return 0; }
  done
  return 1
}

wait_for_port() {
  local port=$1 pid=${2:-} timeout=${3:-5} i
  for ((i = 0; i < timeout * 20; i++)); do
    port_in_use "$port" && return 0
    [[ -z $pid ]] || proc_alive "$pid" || return 1
    sleep 0.05
  done
  port_in_use "$port"
}

wait_for_socket() {
  local path=$1 pid=${2:-} timeout=${3:-10} i
  for ((i = 0; i < timeout * 20; i++)); do
    [[ -S $path ]] && return 0
    [[ -z $pid ]] || proc_alive "$pid" || return 1
    sleep 0.05
  done
  [[ -S $path ]]
}

http_status() {
  local code
  code=$(curl --silent --noproxy '*' --max-time "${2:-2}" --output /dev/null \
              --write-out '%{http_code}' "$1" 2>/dev/null) || true
  echo "${code:-000}"
}

wait_for_http() {
  local url=$1 want=$2 timeout=${3:-15} start pid
  shift $(($# < 3 ? $# : 3))
  start=$(now_ms)
  WAITED_MS=0
  while :; do
    WAIT_STATUS=$(http_status "$url" 1)
    WAITED_MS=$(($(now_ms) - start))
    [[ $WAIT_STATUS == "$want" ]] && return 0
    for pid in "$@"; do
      proc_alive "$pid" || return 2
    done
    ((WAITED_MS < timeout * 1000)) || return 1
    sleep 0.05
  done
}

await_listener() {
  local pid=$1 port=$2 timeout=${3:-5}
  shift $(($# < 3 ? $# : 3))
  if wait_for_port "$port" "$pid" "$timeout" && proc_alive "$pid"; then
    return 0
  fi
  if proc_alive "$pid"; then
    return 1 # still starting after TIMEOUT_S: the caller stops it
  fi
  wait "$pid" 2>/dev/null || true
  if (($#)) && grep -qi 'address already in use' "$@" 2>/dev/null; then
    return 2
  fi
  return 1
}

fcgi_spawn() {
  local socket=$1 log=$2
  shift 2
  rm -f "$socket"
  setsid spawn-fcgi -n -s "$socket" -M 0600 -- "$@" </dev/null >>"$log" 2>&1 &
  SPAWNED_PID=$!
  wait_for_socket "$socket" "$SPAWNED_PID" 10
}

supervisor_spawn() {
  local socket=$1 pid_file=$2 log=${3:-}
  rm -f "$socket" "$pid_file"
  if [[ -n $log ]]; then
    SUPERVISE_PID_FILE=$pid_file \
      setsid "$_STACK_LIB_DIR/supervise-authd.sh" "$socket" </dev/null >>"$log" 2>&1 &
  else
    SUPERVISE_PID_FILE=$pid_file setsid "$_STACK_LIB_DIR/supervise-authd.sh" "$socket" </dev/null &
  fi
  SPAWNED_PID=$!
  local i
  for ((i = 0; i < 200; i++)); do
    [[ -S $socket && -s $pid_file ]] && return 0
    proc_alive "$SPAWNED_PID" || return 1
    sleep 0.05
  done
  [[ -S $socket ]]
}

lighttpd_spawn() {
  local conf=$1 port=$2 www=$3 run_dir=$4 socket=$5 timeout=${6:-5}
  : >"$run_dir/lighttpd-error.log"
  LIGHTTPD_PORT=$port LIGHTTPD_WWW=$www LIGHTTPD_RUN_DIR=$run_dir LIGHTTPD_FCGI_SOCKET=$socket \
    setsid lighttpd -D -f "$conf" </dev/null >>"$run_dir/lighttpd.out" 2>&1 &
  SPAWNED_PID=$!
  await_listener "$SPAWNED_PID" "$port" "$timeout" "$run_dir/lighttpd-error.log" "$run_dir/lighttpd.out"
}

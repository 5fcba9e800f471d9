# shellcheck shell=bash
# test/blackbox/prism.sh - PRISM_PROXY=1: the test's requests pass through
# Prism's validator on their way to the front end (harness.sh sources this
# file). test/prism/validating-proxy.cjs listens on $PORT (so BASE_URL, probe,
# wait_status and every @PORT@ setting go through it) and forwards each
# request and answer unchanged to the front end, which listens on FRONT_PORT;
# Prism (@stoplight/prism-http, pinned in test/prism/package-lock.json,
# installed with `npm ci` once) checks a copy of each exchange against
# docs/openapi.yaml and writes one JSON line per exchange to
# $STATE_DIR/prism.log. When the stack stops, every violation found is one
# failed check ("every request and answer matches docs/openapi.yaml"); the
# rules are at the top of validating-proxy.cjs. CTest runs the suite so as
# blackbox-prism.NAME (label prism, test/blackbox/CMakeLists.txt).
#
# Variables: FRONT_PORT (the front end's own port), PRISM_PID, PRISM_LOG.
# PRISM_DOCUMENT overrides the document (default $SOURCE_DIR/docs/openapi.yaml).

FRONT_PORT=
PRISM_PID=
PRISM_LOG=
_PRISM_DIR=$(cd "$_HARNESS_DIR/../prism" && pwd)

# npm ci in test/prism once; parallel tests wait on the lock.
_prism_install() {
  need_tools node npm
  ( flock 9
    [[ -f $_PRISM_DIR/node_modules/@stoplight/prism-http/package.json ]] ||
      (cd "$_PRISM_DIR" && npm ci --no-audit --no-fund --loglevel=error) ) 9>"$_PRISM_DIR/.npm-ci.lock" ||
    _harness_die "npm ci in test/prism failed"
}

# _prism_frontend_start: the front end on FRONT_PORT, then the proxy on PORT
# (returns as _frontend_start: 2 when either port was taken).
_prism_frontend_start() {
  local public=$PORT rc=0
  FRONT_PORT=$(pick_port) || return 1
  [[ $FRONT_PORT != "$public" ]] || return 2
  PORT=$FRONT_PORT
  _frontend_start || rc=$?
  PORT=$public
  ((rc == 0)) || return "$rc"
  PRISM_LOG=$STATE_DIR/prism.log
  : >"$STATE_DIR/prism.out"
  setsid node "$_PRISM_DIR/validating-proxy.cjs" "${PRISM_DOCUMENT:-$SOURCE_DIR/docs/openapi.yaml}" \
    "$PORT" "$FRONT_PORT" "$PRISM_LOG" </dev/null >>"$STATE_DIR/prism.out" 2>&1 &
  PRISM_PID=$!
  await_listener "$PRISM_PID" "$PORT" 20 "$STATE_DIR/prism.out" || rc=$?
  if ((rc != 0)); then
    cat "$STATE_DIR/prism.out" >&2
    stop_group "$PRISM_PID" prism
    PRISM_PID=
    stop_group "$FRONTEND_PID" "$TEST_FRONTEND"
    FRONTEND_PID=
  fi
  return "$rc"
}

# _prism_stop: stops the proxy (it finishes its validations first) and counts
# its verdict as one check.
_prism_stop() {
  [[ -n $PRISM_PID ]] || return 0
  stop_group "$PRISM_PID" prism 15
  PRISM_PID=
  [[ -s $PRISM_LOG ]] || { fail "Prism's log $PRISM_LOG exists"; return 0; }
  local summary bad
  summary=$(jq -r 'select(.summary) | "\(.exchanges) exchanges (\(.outside) outside the document, \(.front_pages) front-server pages), \(.operations | length) operations of docs/openapi.yaml, \(.violations) violations"' "$PRISM_LOG")
  bad=$(jq -r 'select(.violation) | "\(.method) \(.url) -> \(.status // "?") [\(.operation // .outside // "")]: \(.violations | join("; "))"' "$PRISM_LOG")
  if [[ -z $summary ]]; then
    fail "Prism's validating proxy wrote its summary" "$(tail -n 20 "$STATE_DIR/prism.out" 2>/dev/null)"
  elif [[ -n $bad ]]; then
    local lines
    mapfile -t lines < <(head -n 40 <<<"$bad")
    _LAST_REQUEST='' fail "every request and answer matches docs/openapi.yaml (Prism: $summary)" "${lines[@]}"
  else
    pass "every request and answer matches docs/openapi.yaml (Prism: $summary)"
  fi
}

# shellcheck shell=bash disable=SC2034  # CURL_RC etc. are for the tests
# test/blackbox/assert.sh - assertion and HTTP helpers for the black-box tests.
# Sourced by harness.sh (source harness.sh, not this file, from a test).
#
# Counters
#   PASSED, FAILED          numbers of passed / failed checks so far.
#   finish                  prints "N passed, M failed" on its own line and
#                           exits 0 when nothing failed, 1 otherwise (also 1
#                           when no check ran at all). Call it last.
#
# Checks (each counts one pass or one failure; a failure never aborts the
# script, it prints what was expected and what came, plus the last request):
#   expect_eq    DESC EXPECTED ACTUAL   ACTUAL is exactly EXPECTED
#   expect_ne    DESC UNEXPECTED ACTUAL ACTUAL is anything but UNEXPECTED
#   expect_match DESC REGEX ACTUAL      ACTUAL matches the bash ERE REGEX ([[ =~ ]])
#   expect_status CODE [DESC]           $STATUS of the last `http` call is CODE
#   expect_json  DESC EXPR EXPECTED     `json EXPR` (jq -r) prints exactly EXPECTED
#   expect_header DESC NAME REGEX       response header NAME exists, value matches REGEX
#   pass DESC / fail DESC [DETAIL...]   count a result decided by your own code
#   step TEXT                           print a "== TEXT" line (readable logs)
#
# HTTP
#   http METHOD PATH [CURL ARGS...]
#       Sends one request with curl to $BASE_URL$PATH (PATH may also be a full
#       http:// URL) and sets:
#         STATUS   the 3-digit status ("000" when no response: refused, timeout)
#         HEADERS  the response header lines, CR stripped, status line first
#                  (only the final header block when there were 1xx responses)
#         BODY     the response body (trailing newlines stripped, as by $(...))
#         CURL_RC  curl's exit code (0 on any HTTP response, even 4xx/5xx)
#       Extra arguments go to curl unchanged, e.g.
#         http POST /signup -H 'Content-Type: application/json' -d '{"username":"a"}'
#         http POST /signin -u alice:secret
#         http GET /records -H "Authorization: Bearer $token"
#       A POST/PUT/PATCH without a body option (-d, --data*, -F, -T, --json)
#       gets "Content-Length: 0": lighttpd answers 411 to a POST that has
#       neither a body nor a Content-Length. Proxies are bypassed, and each
#       request times out after $HTTP_TIMEOUT seconds (default 10).
#   header NAME     prints the value(s) of response header NAME of the last
#                   request (case-insensitive name, surrounding blanks trimmed,
#                   one line per occurrence); returns 1 when absent.
#   json EXPR       prints `jq -r EXPR` applied to $BODY (extra jq options may
#                   follow EXPR, e.g. json '.user.username == $u' --arg u bob).
#
# Example
#   http GET /records
#   expect_status 401 "GET /records without a token"
#   expect_json "error text" .error "Access Denied"
#   expect_match "challenge" '^Bearer' "$(header WWW-Authenticate)"
#   finish

# jq: Debian's jq 1.6 spends ~35 ms of CPU starting (it compiles its builtins
# at every start), which made it the largest CPU user of the suite; gojq (a jq
# in Go, Debian package gojq, installed by scripts/deps.sh test) starts in ~3 ms
# and reads the same programs. Every `jq` in a test goes to gojq when it is
# there (TEST_JQ=jq keeps jq 1.6). gojq prints an object's keys sorted: compare
# values, not an object's printed key order.
if [[ ${TEST_JQ:-gojq} == gojq ]] && command -v gojq >/dev/null 2>&1; then
  jq() { gojq "$@"; }
fi

PASSED=0
FAILED=0
STATUS=
HEADERS=
BODY=
CURL_RC=0
HTTP_TIMEOUT=${HTTP_TIMEOUT:-10}
_LAST_REQUEST=

step() { printf '== %s\n' "$*"; }

pass() {
  PASSED=$((PASSED + 1))
  printf 'ok   %s\n' "$1"
}

fail() {
  FAILED=$((FAILED + 1))
  printf 'FAIL %s\n' "$1"
  shift
  local line
  for line in "$@"; do printf '     %s\n' "$line"; done
  if [[ -n $_LAST_REQUEST ]]; then
    printf '     last request: %s -> %s\n' "$_LAST_REQUEST" "${STATUS:-?}"
    printf '     last body: %.600s\n' "$BODY"
  fi
}

expect_eq() {
  local desc=$1 expected=$2 actual=$3
  if [[ $actual == "$expected" ]]; then
    pass "$desc"
  else
    fail "$desc" "expected: '$expected'" "actual:   '$actual'"
  fi
}

expect_ne() {
  local desc=$1 unexpected=$2 actual=$3
  if [[ $actual != "$unexpected" ]]; then
    pass "$desc"
  else
    fail "$desc" "expected anything but: '$unexpected'"
  fi
}

expect_match() {
  local desc=$1 regex=$2 actual=$3
  if [[ $actual =~ $regex ]]; then
    pass "$desc"
  else
    fail "$desc" "expected to match: $regex" "actual: '$actual'"
  fi
}

expect_status() {
  local code=$1 desc=${2:-status}
  expect_eq "$desc (status $code)" "$code" "$STATUS"
}

expect_json() {
  local desc=$1 expr=$2 expected=$3 actual
  actual=$(json "$expr" 2>&1)
  expect_eq "$desc" "$expected" "$actual"
}

expect_header() {
  local desc=$1 name=$2 regex=$3 value
  if ! value=$(header "$name"); then
    fail "$desc" "response has no header '$name'" "headers: $(tr '\n' '|' <<<"$HEADERS")"
    return
  fi
  expect_match "$desc" "$regex" "$value"
}

finish() {
  if ((PASSED + FAILED == 0)); then
    echo "no check ran"
    FAILED=1
  fi
  echo "$PASSED passed, $FAILED failed"
  if ((FAILED > 0)); then exit 1; fi
  exit 0
}

http() {
  if (($# < 2)); then
    echo "usage: http METHOD PATH [curl args...]" >&2
    return 2
  fi
  local method=$1 path=$2 url
  shift 2
  if [[ $path == http://* || $path == https://* ]]; then
    url=$path
  else
    url=${BASE_URL:?BASE_URL is not set: call stack_start first}$path
  fi

  local -a args=(--silent --show-error --noproxy '*' --max-time "$HTTP_TIMEOUT")
  if [[ $method == HEAD ]]; then
    args+=(--head)
  else
    args+=(--request "$method")
  fi
  if [[ $method == POST || $method == PUT || $method == PATCH ]]; then
    local a has_body=0
    for a in "$@"; do
      case $a in
        -d* | --data* | -F* | --form* | -T* | --upload-file | --json) has_body=1 ;;
      esac
    done
    ((has_body)) || args+=(--header 'Content-Length: 0')
  fi

  # One process for the whole exchange (no temporary files, no tr/awk): curl
  # writes the header blocks (-D -), then the body, then a line with the status;
  # the blocks are taken off the front, keeping the last (after any 1xx, or the
  # redirects of -L).
  local out block line
  CURL_RC=0
  out=$(curl "${args[@]}" --dump-header - --write-out '\n%{http_code}' "$@" "$url") || CURL_RC=$?
  STATUS=${out##*$'\n'}
  [[ $STATUS =~ ^[0-9]{3}$ && $STATUS != 000 ]] || STATUS=000
  out=${out%$'\n'*}
  HEADERS=
  while [[ $out == HTTP/* ]]; do
    if [[ $out == *$'\r\n\r\n'* ]]; then
      block=${out%%$'\r\n\r\n'*}
      out=${out#*$'\r\n\r\n'}
    else  # the headers of a HEAD, or cut short: all of it
      block=${out%$'\r\n'}
      out=
    fi
    HEADERS=
    while IFS= read -r line; do
      line=${line%$'\r'}
      [[ -n ${line//[[:space:]]/} ]] && HEADERS+=$line$'\n'
    done <<<"$block"
    HEADERS=${HEADERS%$'\n'}
  done
  BODY=$out
  while [[ $BODY == *$'\n' ]]; do BODY=${BODY%$'\n'}; done
  _LAST_REQUEST="$method $path"
  return 0
}

header() {
  local want=${1,,} line value found=1
  while IFS= read -r line; do
    [[ $line == HTTP/* || $line != *:* ]] && continue
    value=${line%%:*}
    [[ ${value,,} == "$want" ]] || continue
    value=${line#*:}
    value=${value#"${value%%[![:blank:]]*}"}
    value=${value%"${value##*[![:blank:]]}"}
    printf '%s\n' "$value"
    found=0
  done <<<"$HEADERS"
  return $found
}

json() {
  jq -r "$@" <<<"$BODY"
}

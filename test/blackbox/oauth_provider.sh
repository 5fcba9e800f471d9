# shellcheck shell=bash
# test/blackbox/oauth_provider.sh - a real OAuth 2.0 / OpenID Connect provider
# on loopback (test/oauth/mock-provider.js, oauth2-mock-server) for the
# t_oauth_*.sh black-box tests, and helpers that drive GET /oauth the way a
# browser does. Source it after harness.sh:
#
#   source "$(dirname "$0")/harness.sh"
#   source "$(dirname "$0")/oauth_provider.sh"
#   provider_start                       # before stack_start: authd needs its URL
#   provider_configure_authd authd-test s3cret   # the AUTHD_OAUTH_* of one provider
#   stack_start
#   oauth_signin_as sub=u-1 preferred_username=alice   # start -> provider -> /oauth
#   expect_status 200 "signed in"
#   finish
#
# Provider (one per test script; stopped at exit through harness.sh's at_exit)
#   provider_start [MOCK OPTIONS...]
#                      installs test/oauth's npm packages when they are missing
#                      (`npm ci`, quiet, once even with parallel tests), starts
#                      mock-provider.js and waits until it listens. Exports
#                      PROVIDER_URL (http://127.0.0.1:P), PROVIDER_ISSUER (its
#                      issuer identifier: PROVIDER_URL), PROVIDER_PORT,
#                      PROVIDER_CONTROL (control server URL), PROVIDER_BLACKHOLE_PORT
#                      (accepts TCP connections, never answers), PROVIDER_PID,
#                      PROVIDER_DIR (its temp dir: log, cookie jars).
#                      Exits 1 with a clear message if node/npm are missing.
#                      MOCK OPTIONS go to mock-provider.js, e.g.
#                      --issuer-trailing-slash (then PROVIDER_URL has no slash,
#                      PROVIDER_ISSUER has it).
#   provider_configure_authd CLIENT_ID CLIENT_SECRET
#                      exports the settings of one (unnamed) provider for authd:
#                      AUTHD_OAUTH_ISSUER=$PROVIDER_URL, AUTHD_OAUTH_CLIENT_ID,
#                      AUTHD_OAUTH_CLIENT_SECRET and AUTHD_OAUTH_REDIRECT_URI
#                      http://127.0.0.1:@PORT@/oauth (see @PORT@ in harness.sh).
#   provider_set_identity JSON | KEY=VALUE...
#                      who the next sign-ins are. KEY=VALUE sets a string,
#                      KEY:=JSON a raw JSON value (e.g. id:=4242). sub,
#                      preferred_username, name, email go into the ID token;
#                      /userinfo answers the whole object. No argument: the
#                      default identity (sub mock-subject-1, mockuser).
#   provider_mode NAME [DELAY_MS]
#                      normal, deny, bad_signature, wrong_nonce, wrong_aud,
#                      wrong_iss, expired_id_token, no_id_token, token_error_500,
#                      invalid_grant, invalid_client, slow (token endpoint answers
#                      after DELAY_MS, default 5000), userinfo_error_500.
#                      Stays until changed.
#   provider_log [JQ ARGS...]
#                      prints the provider's request log through jq (default
#                      `.`): {"authorize":[query...], "token":[form...],
#                      "userinfo":[{authorization}...]}, oldest first.
#   provider_clear_log
#   provider_stop      stops the provider (TERM, then KILL), e.g. to test a
#                      provider that is not listening; its files (cookie jars,
#                      log) stay until the script exits. Safe to call twice. At
#                      exit its log is printed when the test failed (extra_log),
#                      the provider stopped and PROVIDER_DIR removed (kept with
#                      KEEP_STATE=1).
#   A control request that fails counts as a failed check.
#
# Browser (a curl cookie jar; every hop is one `http` call, so STATUS,
# HEADERS and BODY describe the last hop)
#   oauth_new_browser  forgets all cookies (a new, empty jar)
#   OAUTH_JAR          the jar file in use
#   oauth_start [QUERY]
#                      GET /oauth[QUERY] with the jar; sets AUTHORIZE_URL from
#                      the Location header (empty when there is none).
#   oauth_authorize    GET $AUTHORIZE_URL at the provider (no cookies: it is
#                      another site); sets CALLBACK_URL from its Location.
#   oauth_callback [URL]
#                      GET URL (default $CALLBACK_URL) with the jar: the
#                      completion at authd.
#   oauth_signin [QUERY]
#                      the three hops; stops early (returning 1) when a hop
#                      does not answer 302, leaving that hop's STATUS/BODY.
#   oauth_signin_as IDENTITY...
#                      provider_set_identity IDENTITY, a new browser, then
#                      oauth_signin.
#   query_param URL NAME
#                      prints the percent-decoded value of query parameter NAME
#                      of URL; returns 1 when absent.
#   with_query URL NAME VALUE
#                      prints URL with parameter NAME set to VALUE (replaced
#                      when present, appended otherwise; VALUE is percent-encoded).
#   pkce_challenge VERIFIER
#                      base64url(sha256(VERIFIER)), the S256 code_challenge.
# (accounts, account_field, set_cookie and cookie_attr are in api.sh.)

_OAUTH_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")/../oauth" && pwd)
# shellcheck source=npm.sh
source "$(dirname "${BASH_SOURCE[0]}")/npm.sh"
PROVIDER_DIR=
PROVIDER_PID=
PROVIDER_URL=
PROVIDER_ISSUER=
PROVIDER_PORT=
PROVIDER_CONTROL=
PROVIDER_CONTROL_PORT=
PROVIDER_BLACKHOLE_PORT=
OAUTH_JAR=
AUTHORIZE_URL=
CALLBACK_URL=
_PROVIDER_STOPPED=0
PROVIDER_START_TIMEOUT=${PROVIDER_START_TIMEOUT:-30}

provider_start() {
  need_tools node curl jq
  [[ -z $PROVIDER_PID ]] || _harness_die "provider_start: the provider already runs (pid $PROVIDER_PID)"
  npm_ci_once oauth_provider "$_OAUTH_DIR" oauth2-mock-server
  PROVIDER_DIR=$(mktemp -d "${TMPDIR:-/tmp}/authd-provider.XXXXXX") || _harness_die "mktemp failed"
  OAUTH_JAR=$PROVIDER_DIR/jar
  _PROVIDER_STOPPED=0
  at_exit _provider_at_exit
  extra_log "$PROVIDER_DIR/provider.log"

  # Started from a subshell, so that it is not a job of this shell: a bare
  # `wait` in a test (for its own background curls) does not wait for it.
  # It still exits with this script (--parent-pid).
  (
    node "$_OAUTH_DIR/mock-provider.js" --ports-file "$PROVIDER_DIR/ports" --parent-pid "$$" "$@" \
      </dev/null >"$PROVIDER_DIR/provider.log" 2>&1 &
    echo $! >"$PROVIDER_DIR/pid"
  )
  PROVIDER_PID=$(<"$PROVIDER_DIR/pid")
  local deadline=$((SECONDS + PROVIDER_START_TIMEOUT))
  while [[ ! -s $PROVIDER_DIR/ports ]]; do
    if ! proc_alive "$PROVIDER_PID" || ((SECONDS >= deadline)); then
      echo "oauth_provider: the provider did not start; its log:" >&2
      cat "$PROVIDER_DIR/provider.log" >&2
      _harness_die "provider_start failed"
    fi
    sleep 0.05
  done
  # shellcheck source=/dev/null
  source "$PROVIDER_DIR/ports"
  PROVIDER_URL=http://127.0.0.1:$PROVIDER_PORT
  PROVIDER_ISSUER=$PROVIDER_URL
  [[ " $* " == *" --issuer-trailing-slash "* ]] && PROVIDER_ISSUER=$PROVIDER_URL/
  PROVIDER_CONTROL=http://127.0.0.1:$PROVIDER_CONTROL_PORT
  export PROVIDER_URL PROVIDER_ISSUER PROVIDER_PORT PROVIDER_CONTROL PROVIDER_CONTROL_PORT PROVIDER_BLACKHOLE_PORT \
         PROVIDER_PID PROVIDER_DIR
  printf 'oauth_provider: provider up at %s (control %s, blackhole port %s, pid %s)\n' \
    "$PROVIDER_URL" "$PROVIDER_CONTROL" "$PROVIDER_BLACKHOLE_PORT" "$PROVIDER_PID"
}

provider_stop() {
  ((_PROVIDER_STOPPED)) && return 0
  _PROVIDER_STOPPED=1
  stop_pid "$PROVIDER_PID" "the OAuth provider"
  PROVIDER_PID=
}

# At exit (after harness.sh printed its log on a failure): stop the provider,
# remove its files.
_provider_at_exit() {
  provider_stop
  remove_unless_kept "$PROVIDER_DIR" "provider files"
}

provider_configure_authd() {
  [[ -n $PROVIDER_URL ]] || _harness_die "call provider_start first"
  export AUTHD_OAUTH_ISSUER=$PROVIDER_URL
  export AUTHD_OAUTH_CLIENT_ID=$1
  export AUTHD_OAUTH_CLIENT_SECRET=$2
  export AUTHD_OAUTH_REDIRECT_URI='http://127.0.0.1:@PORT@/oauth'
}

# _provider_control METHOD PATH [JSON]: one request to the control server.
_provider_control() {
  local method=$1 path=$2 data=${3-} out rc=0
  [[ -n $PROVIDER_CONTROL ]] || _harness_die "call provider_start first"
  local -a args=(--silent --show-error --noproxy '*' --max-time 10 --fail-with-body -X "$method")
  [[ -n $data ]] && args+=(-H 'Content-Type: application/json' --data-binary "$data")
  out=$(curl "${args[@]}" "$PROVIDER_CONTROL$path" 2>&1) || rc=$?
  if ((rc != 0)); then
    fail "provider control $method $path" "curl exit $rc: $out"
    return 1
  fi
  printf '%s\n' "$out"
}

provider_set_identity() {
  local doc
  if (($# == 0)); then
    doc='{}'
  elif [[ $1 == '{'* ]]; then
    doc=$1
  else
    local -a jq_args=() pair key filter='{}'
    local n=0
    for pair in "$@"; do
      if [[ $pair == *:=* ]]; then
        key=${pair%%:=*}
        jq_args+=(--argjson "v$n" "${pair#*:=}")
      elif [[ $pair == *=* ]]; then
        key=${pair%%=*}
        jq_args+=(--arg "v$n" "${pair#*=}")
      else
        _harness_die "provider_set_identity: '$pair' is not KEY=VALUE or KEY:=JSON"
      fi
      filter+=" | .[\"$key\"] = \$v$n"
      n=$((n + 1))
    done
    doc=$(jq -cn "${jq_args[@]}" "$filter") || _harness_die "provider_set_identity: bad arguments: $*"
  fi
  _provider_control PUT /identity "$doc" >/dev/null
}

provider_mode() {
  local mode=${1:?usage: provider_mode NAME [DELAY_MS]} doc
  if [[ -n ${2-} ]]; then
    doc=$(jq -cn --arg m "$mode" --argjson d "$2" '{mode: $m, delay_ms: $d}')
  else
    doc=$(jq -cn --arg m "$mode" '{mode: $m}')
  fi
  _provider_control PUT /mode "$doc" >/dev/null
}

provider_log() {
  local out
  out=$(_provider_control GET /log) || return 1
  if (($# == 0)); then set -- .; fi
  jq -r "$@" <<<"$out"
}

provider_clear_log() {
  _provider_control DELETE /log >/dev/null
}

oauth_new_browser() {
  [[ -n $PROVIDER_DIR ]] || _harness_die "call provider_start first"
  OAUTH_JAR=$PROVIDER_DIR/jar
  rm -f "$OAUTH_JAR"
  : >"$OAUTH_JAR"
}

oauth_start() {
  [[ -n $OAUTH_JAR ]] || oauth_new_browser
  http GET "/oauth${1-}" -b "$OAUTH_JAR" -c "$OAUTH_JAR"
  AUTHORIZE_URL=$(header Location) || AUTHORIZE_URL=
}

oauth_authorize() {
  http GET "${AUTHORIZE_URL:?oauth_authorize: no AUTHORIZE_URL (oauth_start first)}"
  CALLBACK_URL=$(header Location) || CALLBACK_URL=
}

oauth_callback() {
  local url=${1:-${CALLBACK_URL:?oauth_callback: no CALLBACK_URL (oauth_authorize first)}}
  [[ -n $OAUTH_JAR ]] || oauth_new_browser
  http GET "$url" -b "$OAUTH_JAR" -c "$OAUTH_JAR"
}

oauth_signin() {
  AUTHORIZE_URL= CALLBACK_URL=
  oauth_start "${1-}"
  [[ $STATUS == 302 && -n $AUTHORIZE_URL ]] || return 1
  oauth_authorize
  [[ $STATUS == 302 && -n $CALLBACK_URL ]] || return 1
  oauth_callback
}

oauth_signin_as() {
  provider_set_identity "$@"
  oauth_new_browser
  oauth_signin
}

_url_decode() {
  local v=${1//+/ }
  printf '%b' "${v//%/\\x}"
}

query_param() {
  local url=$1 name=$2 query pair
  [[ $url == *\?* ]] || return 1
  query=${url#*\?}
  query=${query%%#*}
  local IFS='&'
  for pair in $query; do
    if [[ ${pair%%=*} == "$name" ]]; then
      [[ $pair == *=* ]] || { printf '\n'; return 0; }
      _url_decode "${pair#*=}"
      printf '\n'
      return 0
    fi
  done
  return 1
}

with_query() {
  local url=$1 name=$2 value encoded base query pair out= found=0
  value=$3
  encoded=$(jq -rn --arg v "$value" '$v | @uri')
  base=${url%%\?*}
  query=
  [[ $url == *\?* ]] && query=${url#*\?}
  local IFS='&'
  for pair in $query; do
    if [[ ${pair%%=*} == "$name" ]]; then
      pair="$name=$encoded"
      found=1
    fi
    out+=${out:+&}$pair
  done
  ((found)) || out+=${out:+&}$name=$encoded
  printf '%s?%s\n' "$base" "$out"
}

# pkce_challenge VERIFIER: base64url(sha256(VERIFIER)) without padding (RFC 7636 S256).
pkce_challenge() {
  node -e 'process.stdout.write(require("node:crypto").createHash("sha256").update(process.argv[1]).digest("base64url"))' -- "$1"
}

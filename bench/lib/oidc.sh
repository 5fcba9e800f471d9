# shellcheck shell=bash
# bench/lib/oidc.sh - the OpenID provider part of bench/run.sh (BENCH_PARTS
# "oidc", issue 43; sourced; uses run.sh's say/die/check/status_of, $STATE,
# $AUTHCTL_BIN, $AUTHD_BIN, BENCH_* and bench/lib/fronts.sh, measure.sh).
#
# authd as OpenID provider (oidc_provider = true, refresh tokens on) with its
# default threads (OIDC_WORKERS below) behind the nginx of the nginx part
# (FastCGI keep-alive, `keepalive K` + fastcgi_keep_conn on), every client
# authenticated with client_secret_basic (the keyed hash of the secret):
#
#   oidc_client_credentials  POST /token grant_type=client_credentials, a
#                            service client (role user) -> 200
#   oidc_refresh             POST /token grant_type=refresh_token, each
#                            answer's new refresh token used next (rotation;
#                            wrk's Lua keeps a queue per thread, seeded with
#                            2 x BENCH_CONNECTIONS tokens from code exchanges
#                            made before the run, another set for the warm-up)
#   oidc_introspection       POST /introspect by the confidential client of a
#                            valid access token of its own -> 200 and
#                            "active":true in every answer
#   oidc_code_exchange       per iteration: the signed-in user's GET
#                            /authorize (PKCE S256, a first-party client: no
#                            consent page) -> 302 with a code -> POST /token
#                            (code, redirect_uri, code_verifier) -> 200 with
#                            an ID token; counted in exchanges
#
# wrk's Lua checks every answer (status, and the body where it matters) and
# nginx's access log gives the statuses; results.jq marks a row with any
# other answer as not met, whatever its rate.
#
#   oidc_clients    before authd first starts (run.sh's set-up): registers
#                   the first-party client (OIDC_CLIENT_ID, OIDC_BASIC)
#   oidc_phase      the four rows

OIDC_REDIRECT=http://127.0.0.1:9/cb
OIDC_CLIENT_ID=
OIDC_BASIC=

oidc_clients() {
  local out
  out=$("$AUTHCTL_BIN" client add "Bench portal" --first-party --redirect-uri "$OIDC_REDIRECT" \
    --scope openid profile offline_access --json 2>/dev/null) || die "authctl client add (the bench's first-party client) failed"
  OIDC_CLIENT_ID=$(jq -r .client_id <<<"$out")
  OIDC_BASIC=$(printf '%s:%s' "$OIDC_CLIENT_ID" "$(jq -r .client_secret <<<"$out")" | base64 -w0)
  [[ -n $OIDC_CLIENT_ID && $OIDC_CLIENT_ID != null ]] || die "authctl client add printed no client_id"
}

# The PKCE pair of every request (one client, one verifier: what counts is
# that authd checks it).
OIDC_VERIFIER=$(head -c 48 /dev/urandom | base64 -w0 | tr '+/' '-_' | tr -d '=')
OIDC_CHALLENGE=$(printf %s "$OIDC_VERIFIER" | openssl dgst -sha256 -binary | base64 -w0 | tr '+/' '-_' | tr -d '=')

# oidc_authorize_query SCOPE: the query of the authorization request.
oidc_authorize_query() {
  local scope=${1// /%20}
  printf 'response_type=code&client_id=%s&redirect_uri=%s&scope=%s&state=bench&nonce=bench&code_challenge=%s&code_challenge_method=S256' \
    "$OIDC_CLIENT_ID" "$OIDC_REDIRECT" "$scope" "$OIDC_CHALLENGE"
}

# oidc_exchange SCOPE: one code flow with the session cookie; the token
# answer (JSON) on stdout.
oidc_exchange() {
  local back code
  back=$(curl --silent --noproxy '*' --max-time 10 -o /dev/null -w '%{http_code} %{redirect_url}' \
    -H "Cookie: auth=$OIDC_SESSION" "$BASE/authorize?$(oidc_authorize_query "$1")")
  [[ $back == 302\ "$OIDC_REDIRECT"\?* ]] || die "GET /authorize answered '$back', not 302 to $OIDC_REDIRECT"
  code=$(sed -n 's/.*[?&]code=\([^&]*\).*/\1/p' <<<"$back")
  [[ -n $code ]] || die "GET /authorize gave no code: $back"
  curl --silent --noproxy '*' --max-time 10 --fail-with-body -H "Authorization: Basic $OIDC_BASIC" "$BASE/token" \
    -d grant_type=authorization_code --data-urlencode "code=$code" --data-urlencode "redirect_uri=$OIDC_REDIRECT" \
    --data-urlencode "code_verifier=$OIDC_VERIFIER" || die "POST /token (code exchange) failed"
}

# oidc_refresh_tokens N FILE: N refresh tokens, each of its own code exchange
# (its own family), one a line.
oidc_refresh_tokens() {
  local n=$1 file=$2 i token
  : >"$file"
  for ((i = 0; i < n; i++)); do
    token=$(oidc_exchange "openid offline_access" | jq -r '.refresh_token // empty')
    [[ -n $token ]] || die "a code exchange with offline_access gave no refresh token"
    printf '%s\n' "$token" >>"$file"
  done
}

# authd's own default for its store threads (workers = 0): on LMDB with
# sync_writes, eight per core run the writes, and the more wait for a flush,
# the more share it (group commit). Shown as the rows' threads.
OIDC_WORKERS=$((8 * $(nproc)))

oidc_row() {  # ID TITLE EXPECTED METHOD PATH [wrk args]
  local id=$1 title=$2 expected=$3 method=$4 path=$5
  shift 5
  BACKEND_PGID=$FCGI_PID FRONT_PGID=$FRONT_PID ROW_FRONT=nginx ROW_BACKEND="authd (OpenID provider)" ROW_CEILING='' \
  ROW_THREADS=$OIDC_WORKERS ROW_KEEP=$K ROW_USERS='' BENCH_EXPECT=${BENCH_EXPECT:-$expected} \
    run_scenario "$id" "$title" "$expected" "$BENCH_CONNECTIONS" "$BENCH_DURATION" "$method" "$path" "$@"
  local bad
  bad=$(jq '(.lua.failed // 0) + (.lua.starved // 0) + .errors.status + .errors.connect + .errors.read + .errors.write
            + .errors.timeout' "$RAW/$id.scenario.json")
  ((bad == 0)) || say "  WARNING: $title: $bad answers were not as expected (see above): the report marks the row not met"
}

oidc_phase() {
  [[ -n $OIDC_BASIC && -n $CC_BASIC ]] || die "the oidc part's clients were not registered"
  AUTHD_OIDC_PROVIDER=true AUTHD_REFRESH_TOKEN_TTL=86400 start_fcgi "$AUTHD_BIN" "$STATE/authd-oidc.log" 0
  start_front nginx fastcgi "$K"
  wait_for_status /records 401
  say "OpenID provider: nginx (pid $FRONT_PID) on $BASE, authd (pid $FCGI_PID) with its default $OIDC_WORKERS store threads, $K kept connections"
  OIDC_SESSION=$(signin_token benchuser)
  [[ -n $OIDC_SESSION ]] || die "the oidc part's sign-in failed"

  # Each scenario answers what it should before it is measured.
  local form='Content-Type: application/x-www-form-urlencoded' access refresh_file=$STATE/refresh-tokens
  check 200 POST /token -H "Authorization: Basic $CC_BASIC" -H "$form" -d grant_type=client_credentials
  access=$(oidc_exchange "openid profile" | jq -r '.access_token // empty')
  [[ -n $access ]] || die "the code exchange gave no access token"
  curl --silent --noproxy '*' --max-time 10 -H "Authorization: Basic $OIDC_BASIC" -H "$form" \
    --data-urlencode "token=$access" "$BASE/introspect" | jq -e '.active == true' >/dev/null ||
    die "POST /introspect did not say the fresh access token is active"
  say "minting $((4 * BENCH_CONNECTIONS)) refresh tokens (one code exchange each) for the refresh row and its warm-up"
  oidc_refresh_tokens "$((2 * BENCH_CONNECTIONS))" "$refresh_file"
  oidc_refresh_tokens "$((2 * BENCH_CONNECTIONS))" "$refresh_file.warmup"
  local one
  one=$(head -n 1 "$refresh_file.warmup")
  curl --silent --noproxy '*' --max-time 10 -H "Authorization: Basic $OIDC_BASIC" -H "$form" \
    -d grant_type=refresh_token --data-urlencode "refresh_token=$one" "$BASE/token" | jq -e '.refresh_token' >/dev/null ||
    die "the refresh_token grant gave no new refresh token"
  sed -i 1d "$refresh_file.warmup"  # used: its family would end if the warm-up sent it again

  BENCH_BODY=grant_type=client_credentials oidc_row oidc_client_credentials "client_credentials grant (OpenID provider, nginx)" \
    200 POST /token -H "Authorization: Basic $CC_BASIC" -H "$form"
  BENCH_MODE=refresh BENCH_REFRESH_FILE=$refresh_file BENCH_CLIENT_AUTH="Basic $OIDC_BASIC" \
    oidc_row oidc_refresh "refresh_token grant, rotating (OpenID provider, nginx)" 200 POST /token
  BENCH_BODY="token=$access" BENCH_EXPECT_BODY='"active":true' \
    oidc_row oidc_introspection "introspection of a valid access token (OpenID provider, nginx)" 200 POST /introspect \
    -H "Authorization: Basic $OIDC_BASIC" -H "$form"
  BENCH_MODE=code BENCH_AUTHORIZE_QUERY=$(oidc_authorize_query "openid profile") BENCH_COOKIE="auth=$OIDC_SESSION" \
  BENCH_CLIENT_AUTH="Basic $OIDC_BASIC" ROW_ALSO_EXPECTED=302 \
  BENCH_TOKEN_BODY="grant_type=authorization_code&redirect_uri=$(jq -rn --arg u "$OIDC_REDIRECT" '$u | @uri')&code_verifier=$OIDC_VERIFIER" \
    oidc_row oidc_code_exchange "code exchange: GET /authorize → 302 → POST /token (OpenID provider, nginx)" 200 GET /authorize
  MEMORY+=("$(memory_json "$FCGI_PID" "authd as OpenID provider (nginx)")")
  stop_front
  stop_fcgi
}

# shellcheck shell=bash disable=SC2034  # TOKEN, RECORD_ID etc. are for the tests
# test/blackbox/api.sh - the client side of the black-box tests: accounts,
# sign-in, requests with a bearer token, records, tokens and cookies. Sourced
# by harness.sh (source harness.sh, not this file, from a test); builds on
# assert.sh's `http` (STATUS, HEADERS, BODY of the last request).
#
#   signup alice 'alice password'         # 201, TOKEN = alice's token
#   auth_get /records                     # GET with "Authorization: Bearer $TOKEN"
#   expect_status 200 "alice lists the records"
#   add_user root 'root password' admin && signin root 'root password'
#   record_create '{"title":"x"}'         # RECORD_ID, as root
#   TOKEN=$OTHER auth_delete "/records/$RECORD_ID"   # as someone else, once
#
# Accounts (each request is one `http` call: STATUS, HEADERS and BODY describe it)
#   signup USER PASSWORD [ROLE]
#                  POST /signup (JSON body from signup_body). Sets TOKEN to the
#                  token of a 201 (empty otherwise). With ROLE, then
#                  `authctl role USER ROLE` (a failure counts as a failed check).
#   signup_body USER PASSWORD
#                  prints the JSON of a sign-up: those two, fullname
#                  "Test Person", email test@example.com
#   signup_json JSON [CURL ARGS...]
#                  POST /signup with JSON as the body, whatever it is
#   add_user USER PASSWORD ROLE
#                  `authctl add USER ROLE` with PASSWORD on stdin (output
#                  discarded); returns authctl's exit status
#   signin USER PASSWORD [CURL ARGS...]
#                  POST /signin with Basic credentials (see basic); sets TOKEN
#                  to the token of a 200 (empty otherwise)
#   role_users [--via URL] [--note TEXT] ROLE...
#                  for each ROLE an account ROLE-1 (password pw-ROLE, made with
#                  authctl add; a failure counts as a failed check), signed in
#                  with `curl -u` (expect_status 200 "signin as ROLE-1TEXT"),
#                  its token in ROLE_TOKEN[ROLE]. --via: sign in at
#                  URL/signin instead of $BASE_URL/signin.
#   role_bearer ROLE   prints the Authorization header for ROLE_TOKEN[ROLE]
#   accounts       `authctl list` without its header line, sorted
#   account_field USERNAME COLUMN
#                  a column of `authctl list` for USERNAME: username, role,
#                  id or v (__v); returns 1 when there is no such account
#   account_names  the usernames `authctl list` shows, sorted, one a line
#   users_listed   how many accounts `authctl list` shows
#   expect_import DESC FILE COUNTS-REGEX
#                  `authctl import FILE` exits 0 (check "DESC: exit 0") and
#                  says COUNTS-REGEX ("DESC: counts"), e.g. 'imported 2 users'
#
# Requests with a bearer token: $TOKEN (prefix a call with TOKEN=... for
# another one); each is one `http` call, extra curl arguments go last
#   bearer [TOKEN]             prints "Authorization: Bearer TOKEN" (default $TOKEN)
#   basic USER:PASSWORD        prints "Authorization: Basic <base64>" (what curl -u sends)
#   auth_http METHOD PATH [CURL ARGS...]
#   auth_get PATH [CURL ARGS...]
#   auth_delete PATH [CURL ARGS...]
#   auth_post PATH JSON [CURL ARGS...]   with Content-Type: application/json
#   auth_put PATH JSON [CURL ARGS...]
#
# Records (as $TOKEN)
#   record_create JSON       POST /records; sets RECORD_ID (the _id of a 201, else empty)
#   new_record [TITLE]       creates {"title": TITLE} and prints its _id (for
#                            $(...)); complains on stderr when it was not 201
#
# Checks about answers (counted like the checks of assert.sh)
#   expect_denied DESC STATUS [CHALLENGE-REGEX]
#                  the last answer is STATUS, its body exactly
#                  {"error":"Access Denied"}, and WWW-Authenticate matches
#                  CHALLENGE-REGEX (default ^Bearer)
#   expect_token_cookie DESC TOKEN MAX_AGE
#                  the last answer's Set-Cookie is auth=TOKEN; Path=/ as its
#                  second attribute, and has HttpOnly, SameSite=Lax and
#                  Max-Age=MAX_AGE
#   expect_no_header DESC NAME
#                  the last answer has no header NAME
#   expect_front_refusal DESC STATUS CHALLENGE-REGEX
#                  a refusal passed on by a front server's forward-auth:
#                  STATUS, .error "Access Denied", a JSON Content-Type, one
#                  WWW-Authenticate matching CHALLENGE-REGEX, no Location
#
# Second factors
#   totp_fresh_step        waits until the current TOTP step has 5 s or more left
#   totp_enrol DESC        enrols an authenticator app for $TOKEN's account:
#                          POST /me/mfa/totp (expect 200), SECRET = its secret,
#                          then at a fresh step confirms oathtool's code
#                          (expect_status 200 DESC); the confirmation's answer
#                          stays in STATUS/HEADERS/BODY (recovery codes, token)
#   passkey_keys NAME      after stack_start, for tests with
#                          AUTHD_WEBAUTHN_ORIGINS='http://localhost:@PORT@':
#                          KEYS = a temp folder for the authenticators' keys
#                          (removed at exit), ORIGIN = http://localhost:$PORT
#   passkey_client ARGS... python3 webauthn_client.py ARGS (an authenticator:
#                          register KEYDIR OPTIONS ORIGIN, assert KEYDIR
#                          OPTIONS ORIGIN COUNT [RPID]; see that file)
#
# Cookies and tokens
#   set_cookie NAME        the Set-Cookie line of the last answer that sets NAME
#                          (returns 1 when there is none)
#   cookie_of NAME         the value the last answer sets cookie NAME to ("" if none)
#   cookie_attr LINE ATTR  true when the Set-Cookie LINE has attribute ATTR,
#                          matched exactly and case-sensitively
#   cookie_attributes [LINE]
#                          the attributes of LINE (default: the last answer's
#                          Set-Cookie) after name=value, trimmed, one a line
#   b64url                 stdin, base64url-encoded without padding
#   b64url_decode TEXT     TEXT base64url-decoded (padding optional)
#   jwt_header TOKEN / jwt_payload TOKEN
#                          the decoded JSON of a token's first / second part
#
# Status only: light requests for background jobs and loops; no check is
# counted and STATUS/BODY are left alone. POST/PUT without a body get
# "Content-Length: 0".
#   status_of METHOD PATH [CURL ARGS...]   prints the status ("000": no answer)
#   signup_status USER PASSWORD            POST /signup; prints the status
#   signup_answer USER PASSWORD            POST /signup; prints "STATUS MEDIA-TYPE",
#                                          e.g. "201 application/json", "500
#                                          text/html" (the front end's own
#                                          error page), "000 -" (no answer)
#   signin_status USER PASSWORD            POST /signin (Basic); prints the status
#   signin_token USER PASSWORD             prints the token of a sign-in (empty
#                                          when it fails)
#
# Small helpers
#   yesno CMD [ARGS...]    prints yes when CMD succeeds, no otherwise
#   trim TEXT              TEXT without leading and trailing blanks

TOKEN=
RECORD_ID=
declare -A ROLE_TOKEN=()
_JSON_CT='Content-Type: application/json'

# --- small helpers ---------------------------------------------------------------
yesno() { if "$@"; then echo yes; else echo no; fi; }

trim() {
  local s=$1
  s=${s#"${s%%[![:space:]]*}"}
  printf '%s' "${s%"${s##*[![:space:]]}"}"
}

b64url() { base64 -w0 | tr '+/' '-_' | tr -d '='; }

b64url_decode() {
  local s
  s=$(printf '%s' "$1" | tr '_-' '/+')
  case $((${#s} % 4)) in 2) s+='==' ;; 3) s+='=' ;; esac
  printf '%s' "$s" | base64 -d 2>/dev/null
}

jwt_header() { b64url_decode "${1%%.*}"; }
jwt_payload() { b64url_decode "$(cut -d. -f2 <<<"$1")"; }

# --- credentials and requests -------------------------------------------------------
basic() { printf 'Authorization: Basic %s' "$(printf '%s' "$1" | base64 -w0)"; }
bearer() { printf 'Authorization: Bearer %s' "${1-$TOKEN}"; }

auth_http() {
  local method=$1 path=$2
  shift 2
  http "$method" "$path" -H "$(bearer)" "$@"
}
post() { http POST "$1" -H "$_JSON_CT" --data-binary "$2" "${@:3}"; }  # PATH JSON [CURL ARGS], no token
auth_get() { auth_http GET "$@"; }
auth_delete() { auth_http DELETE "$@"; }
auth_post() {
  local path=$1 json=$2
  shift 2
  auth_http POST "$path" -H "$_JSON_CT" --data-binary "$json" "$@"
}
auth_put() {
  local path=$1 json=$2
  shift 2
  auth_http PUT "$path" -H "$_JSON_CT" --data-binary "$json" "$@"
}

# --- accounts ----------------------------------------------------------------------
signup_body() {
  jq -nc --arg u "$1" --arg p "$2" '{username:$u,password:$p,fullname:"Test Person",email:"test@example.com"}'
}

signup_json() {
  local json=$1
  shift
  http POST /signup -H "$_JSON_CT" --data-binary "$json" "$@"
}

signup() {
  signup_json "$(signup_body "$1" "$2")"
  TOKEN=
  [[ $STATUS == 201 ]] && TOKEN=$(json '.token // empty' 2>/dev/null)
  if [[ -n ${3:-} ]] && ! authctl role "$1" "$3" >/dev/null 2>&1; then
    fail "signup $1: authctl role $1 $3"
  fi
}

add_user() {
  printf '%s' "$2" | authctl add "$1" "$3" >/dev/null 2>&1
}

# change_password AUTHORIZATION CURRENT NEW: PUT /me/password with that
# header (e.g. "Authorization: Bearer $T") and the two passwords.
change_password() {
  http PUT /me/password -H "$1" -H 'Content-Type: application/json' \
    --data-binary "$(jq -nc --arg c "$2" --arg n "$3" '{current_password: $c, new_password: $n}')"
}

signin() {
  local user=$1 password=$2
  shift 2
  http POST /signin -H "$(basic "$user:$password")" "$@"
  TOKEN=
  [[ $STATUS == 200 ]] && TOKEN=$(json '.token // empty' 2>/dev/null)
  return 0
}

role_users() {
  local via=${BASE_URL:-} note='' role
  while [[ ${1:-} == --* ]]; do
    case $1 in
      --via) via=$2 ;;
      --note) note=$2 ;;
      *) _harness_die "role_users: unknown option $1" ;;
    esac
    shift 2
  done
  for role in "$@"; do
    printf 'pw-%s' "$role" | authctl add "$role-1" "$role" >/dev/null || fail "authctl add $role-1"
    http POST "$via/signin" -u "$role-1:pw-$role"
    expect_status 200 "signin as $role-1$note"
    ROLE_TOKEN[$role]=$(json .token)
  done
}

role_bearer() { bearer "${ROLE_TOKEN[$1]}"; }

accounts() {
  authctl list | tail -n +2 | sort
}

account_field() {
  local user=$1 column=$2 n
  case $column in
    username) n=1 ;;
    role) n=2 ;;
    id | _id) n=3 ;;
    v | __v) n=4 ;;
    *) _harness_die "account_field: unknown column '$column'" ;;
  esac
  authctl list | awk -v u="$user" -v n="$n" 'NR > 1 && $1 == u { print $n; found = 1 } END { exit found ? 0 : 1 }'
}

account_names() {
  authctl list 2>/dev/null | awk 'NR > 1 { print $1 }' | sort
}

users_listed() {
  authctl list 2>/dev/null | grep -cvE '^[[:space:]]*$|^(USERNAME|username)\b' || true
}

expect_import() {
  local out rc=0
  out=$(authctl import "$2" 2>&1) || rc=$?
  expect_eq "$1: exit 0" 0 "$rc"
  expect_match "$1: counts" "$3" "$out"
}

# --- records -----------------------------------------------------------------------
record_create() {
  auth_post /records "$1"
  RECORD_ID=
  [[ $STATUS == 201 ]] && RECORD_ID=$(json '._id // empty' 2>/dev/null)
  return 0
}

new_record() {
  record_create "$(jq -nc --arg t "${1:-record}" '{title:$t}')"
  [[ $STATUS == 201 ]] || echo "new_record: POST /records answered $STATUS: $BODY" >&2
  printf '%s\n' "$RECORD_ID"
}

# --- checks about answers ------------------------------------------------------------
expect_denied() {
  local desc=$1 status=$2 challenge=${3:-^Bearer}
  expect_eq "$desc: $status" "$status" "$STATUS"
  expect_eq "$desc: body" '{"error":"Access Denied"}' "$(jq -c . <<<"$BODY" 2>/dev/null)"
  if (($# < 3)); then
    expect_match "$desc: WWW-Authenticate starts with Bearer" "$challenge" "$(header WWW-Authenticate)"
  else
    expect_match "$desc: WWW-Authenticate" "$challenge" "$(header WWW-Authenticate)"
  fi
}

expect_token_cookie() {
  local desc=$1 token=$2 max_age=$3 attrs
  local -a parts
  IFS=';' read -r -a parts <<<"$(header Set-Cookie)"
  expect_eq "$desc: cookie starts auth=<body token>" "auth=$token" "$(trim "${parts[0]:-}")"
  expect_eq "$desc: cookie second attribute is Path=/" "Path=/" "$(trim "${parts[1]:-}")"
  attrs=$(cookie_attributes)
  expect_eq "$desc: cookie has HttpOnly" yes "$(yesno grep -qx 'HttpOnly' <<<"$attrs")"
  expect_eq "$desc: cookie has SameSite=Lax" yes "$(yesno grep -qx 'SameSite=Lax' <<<"$attrs")"
  expect_eq "$desc: cookie has Max-Age=<ttl>" yes "$(yesno grep -qx "Max-Age=$max_age" <<<"$attrs")"
}

expect_no_header() {
  if header "$2" >/dev/null; then fail "$1" "unexpected header $2: $(header "$2")"; else pass "$1"; fi
}

expect_front_refusal() {
  expect_status "$2" "$1"
  expect_json "$1: JSON body" .error "Access Denied"
  expect_header "$1: JSON, not the front server's HTML" Content-Type '^application/json'
  expect_header "$1: authd's challenge" WWW-Authenticate "$3"
  expect_eq "$1: one challenge" 1 "$(header WWW-Authenticate | wc -l | tr -d ' ')"
  expect_no_header "$1: no redirect" Location
}

# --- second factors --------------------------------------------------------------------
totp_fresh_step() { while (($(date +%s) % 30 > 24)); do sleep 1; done; }

totp_enrol() {
  auth_post /me/mfa/totp '{}'
  expect_status 200 "$1: POST /me/mfa/totp"
  SECRET=$(json .secret)
  totp_fresh_step
  auth_post /me/mfa/totp/confirm "{\"code\":\"$(oathtool --totp -b "$SECRET")\"}"
  expect_status 200 "$1"
}

passkey_keys() {
  make_temp_dir KEYS "$1"
  ORIGIN="http://localhost:$PORT"
}

passkey_client() { python3 "$_HARNESS_DIR/webauthn_client.py" "$@"; }

# --- cookies --------------------------------------------------------------------------
set_cookie() {
  header Set-Cookie | grep -m1 -- "^$1=" || return 1
}

cookie_of() { header Set-Cookie | sed -n "s/^$1=\([^;]*\);.*/\1/p" | head -1; }

cookie_attr() {
  local line=$1 want=$2 part
  local IFS=';'
  for part in $line; do
    [[ $(trim "$part") == "$want" ]] && return 0
  done
  return 1
}

# shellcheck disable=SC2120  # LINE is optional
# The `auth` Set-Cookie line (sign-in also sets authd_device: t_sec_lockout.sh).
auth_cookie() { header Set-Cookie | grep '^auth='; }

cookie_attributes() {
  local line part
  local -a parts
  if (($#)); then line=$1; else line=$(header Set-Cookie); fi
  IFS=';' read -r -a parts <<<"$line"
  for part in "${parts[@]:1}"; do
    trim "$part"
    echo
  done
}

# --- status only -------------------------------------------------------------------------
status_of() {
  local method=$1 path=$2 code
  shift 2
  local -a extra=()
  if [[ $method == POST || $method == PUT ]]; then
    local a has_body=0
    for a in "$@"; do
      case $a in -d* | --data*) has_body=1 ;; esac
    done
    ((has_body)) || extra=(--header 'Content-Length: 0')
  fi
  code=$(curl --silent --noproxy '*' --max-time "${HTTP_TIMEOUT:-10}" --output /dev/null \
              --write-out '%{http_code}' --request "$method" "${extra[@]}" "$@" \
              "$BASE_URL$path" 2>/dev/null) || true
  echo "${code:-000}"
}

signup_status() {
  status_of POST /signup -H "$_JSON_CT" --data-binary "$(signup_body "$1" "$2")"
}

signup_answer() {
  local out code type
  out=$(curl --silent --noproxy '*' --max-time "${HTTP_TIMEOUT:-10}" --output /dev/null \
             --write-out '%{http_code} %{content_type}' -H "$_JSON_CT" \
             --data-binary "$(signup_body "$1" "$2")" "$BASE_URL/signup" 2>/dev/null) || true
  code=${out%% *} type=${out#* }
  type=${type%%;*}
  echo "${code:-000} ${type:--}"
}

signin_status() {
  status_of POST /signin -u "$1:$2"
}

signin_token() {
  curl --silent --noproxy '*' --max-time "${HTTP_TIMEOUT:-10}" -u "$1:$2" \
       -H 'Content-Length: 0' -X POST "$BASE_URL/signin" 2>/dev/null | jq -r '.token // empty' 2>/dev/null
}

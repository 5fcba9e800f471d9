#!/usr/bin/env bash
# No usable secret rests in the store (issue 41, class 5).
# The attack: someone gets a copy of the database (a backup, a stolen disk or
# snapshot, a read-only SQL injection, pg_dump access) and reads bearer
# secrets out of it: a refresh token kept in clear in an authorization
# code's entry (it used to be, for ten minutes), or a reset, verification or
# invitation link waiting in the mail outbox. Then they are the user.
# So every token, code and link authd hands to a client or mails is used
# here (a full OpenID code flow with offline_access, a sign-in with refresh
# tokens and its rotation, a TOTP second step, a password reset, an email
# verification, an invitation by an admin and one by authctl, a client
# secret), and the raw store is searched for each, in text, as its
# base64url-decoded bytes and as their hex: the LMDB environment (every file
# of the state directory but the logs, free pages included) or, on
# PostgreSQL, pg_dump of the database. Twice: once while every mail still
# waits in the outbox (the SMTP server down), once after all was delivered.
# What stays readable by design: TOTP secrets (authd must compute the codes;
# SECURITY.md), and, with store = postgresql, the token and ID-token signing
# keys (docs/tokens-and-keys.md); neither is a token handed to a client.
source "$(dirname "$0")/harness.sh"
source "$_HARNESS_DIR/mail_lib.sh"
export AUTHD_OIDC_PROVIDER=true AUTHD_REFRESH_TOKEN_TTL=3600 AUTHD_MAIL_RETRY_MAX=1
export AUTHD_PASSWORD_FORGOT_TIME=0
smtp_pick || exit 1  # the server stays down until the first snapshot
stack_start

SNAPSHOTS=$(mktemp -d)
at_exit rm -rf "$SNAPSHOTS"
SECRETS=$SNAPSHOTS/secrets  # one "label<TAB>value" a line
keep() { [[ -n $2 && $2 != null ]] || { fail "no $1 to look for"; return; }; printf '%s\t%s\n' "$1" "$2" >>"$SECRETS"; }
query_param() { /usr/bin/python3 -c 'import sys, urllib.parse as u; print(u.parse_qs(u.urlsplit(sys.argv[1]).query).get(sys.argv[2], [""])[0])' "$1" "$2"; }
b64url() { base64 -w0 | tr '+/' '-_' | tr -d '='; }

# A copy of what an attacker would get: the state directory's files (not
# the logs: they are not the store, t_sec_secrets_in_logs.sh covers them),
# or pg_dump of the database.
snapshot() {
  local to=$SNAPSHOTS/$1
  mkdir -p "$to"
  if [[ ${AUTHD_STORE:-lmdb} == postgresql ]]; then
    "$(pg_bindir)/pg_dump" -h "$PG_BB_CLUSTER" -p "$(pg_cluster_port "$PG_BB_CLUSTER")" -U authd -d "$PG_BB_DB" \
      -f "$to/dump.sql" || fail "pg_dump"
  else
    (cd "$STATE_DIR" && find . -type f ! -name '*.log' ! -name '*.sock' -exec cp --parents {} "$to" \;)
  fi
  [[ -n $(find "$to" -type f -size +0) ]] || fail "snapshot $1 is empty"
}

# Every secret, as text and that text's hex (pg_dump prints the store's
# bytea values as hex), as its base64url-decoded bytes and their hex (when
# it decodes to at least 16 bytes), and so its secret part alone: the last
# dot-separated one (a refresh token is user.family.secret, where the user's
# id and the family's are handles the store must keep; a JWT's signature).
scan() {
  /usr/bin/python3 - "$SECRETS" "$SNAPSHOTS/$1" <<'PY'
import base64, binascii, os, sys
secrets = [line.rstrip("\n").split("\t", 1) for line in open(sys.argv[1]) if "\t" in line]
files = {}
for root, _, names in os.walk(sys.argv[2]):
    for name in names:
        path = os.path.join(root, name)
        with open(path, "rb") as f:
            files[os.path.relpath(path, sys.argv[2])] = f.read()
def forms(value):
    parts = [value] if "." not in value else [value, value.rsplit(".", 1)[1]]
    for part in parts:
        yield "text", part.encode()
        yield "text as hex", part.encode().hex().encode()  # pg_dump shows bytea so
        try:
            raw = base64.urlsafe_b64decode(part + "=" * (-len(part) % 4))
        except (binascii.Error, ValueError):
            continue
        if len(raw) >= 16:
            yield "bytes", raw
            yield "hex", raw.hex().encode()
            yield "HEX", raw.hex().upper().encode()
found = 0
for label, value in secrets:
    for form, needle in forms(value):
        for name, data in files.items():
            if needle in data:
                print(f"FOUND {label} ({form}) in {name}")
                found += 1
print(f"{len(secrets)} secrets, {len(files)} files, {found} found")
sys.exit(1 if found else 0)
PY
}

step "setup: an admin, a client, alice with a TOTP factor"
add_user root 'root password' admin || fail "authctl add root"
signin root 'root password'
ROOT=$TOKEN
CB=http://127.0.0.1:9/cb
OUT=$(authctl client add Wiki --first-party --redirect-uri "$CB" --scope openid profile email offline_access 2>/dev/null)
WIKI=$(sed -n 's/^client_id: //p' <<<"$OUT"); WIKI_SECRET=$(sed -n 's/^client_secret: //p' <<<"$OUT")
keep "client secret" "$WIKI_SECRET"
post /signup '{"username":"alice","password":"alice password","fullname":"Alice","email":"alice@example.com"}'
expect_status 201 "alice signs up (a verification mail waits)"
post /signup '{"username":"bob","password":"bob password","fullname":"Bob","email":"bob@example.com"}'
expect_status 201 "bob signs up"
BOB=$(json .token)
TOKEN=$BOB auth_post /me/mfa/totp '{}'
TOTP=$(json .secret)
TOKEN=$BOB auth_post /me/mfa/totp/confirm "{\"code\":\"$(oathtool --totp -b "$TOTP")\"}"
expect_status 200 "bob enrols TOTP"
for code in $(json -r '.recovery_codes[]'); do keep "recovery code" "$code"; done

step "sign-in with refresh tokens, a rotation, a second step"
signin alice 'alice password'
expect_status 200 "alice signs in"
keep "session token" "$TOKEN"
REFRESH=$(cookie_of refresh)
keep "refresh token (sign-in)" "$REFRESH"
post /token/refresh "{\"refresh_token\":\"$REFRESH\"}"
expect_status 200 "the refresh token rotates"
keep "refresh token (rotated)" "$(json .refresh_token)"
ALICE=$(json .token)
keep "session token (refreshed)" "$ALICE"
signin bob 'bob password'
expect_status 401 "bob's password alone: the second step"
keep "mfa_token" "$(json .mfa_token)"

step "an OpenID code flow with offline_access, and its refresh"
VERIFIER=$(head -c 48 /dev/urandom | b64url)
CHALLENGE=$(printf '%s' "$VERIFIER" | openssl dgst -sha256 -binary | b64url)
http GET "/authorize?response_type=code&client_id=$WIKI&redirect_uri=$CB&scope=openid%20profile%20email%20offline_access&state=st&nonce=nn&code_challenge=$CHALLENGE&code_challenge_method=S256" \
  -H "Cookie: auth=$ALICE"
CODE=$(query_param "$(header Location)" code)
keep "authorization code" "$CODE"
http POST /token -u "$WIKI:$WIKI_SECRET" --data-urlencode grant_type=authorization_code --data-urlencode "code=$CODE" \
  --data-urlencode "redirect_uri=$CB" --data-urlencode "code_verifier=$VERIFIER"
expect_status 200 "the code exchange"
keep "client access token" "$(json .access_token)"
keep "ID token" "$(json .id_token)"
CLIENT_REFRESH=$(json .refresh_token)
keep "client refresh token (the code's first)" "$CLIENT_REFRESH"
http POST /token -u "$WIKI:$WIKI_SECRET" --data-urlencode grant_type=refresh_token \
  --data-urlencode "refresh_token=$CLIENT_REFRESH"
expect_status 200 "the refresh_token grant"
keep "client refresh token (rotated)" "$(json .refresh_token)"
keep "client access token (refreshed)" "$(json .access_token)"

step "a password reset, an invitation by an admin and one by authctl, while the mail server is down"
post /password/forgot '{"username":"alice"}'
expect_status 202 "alice asks for a reset"
TOKEN=$ROOT auth_post /admin/invitations '{"email":"ivy@example.org","role":"editor"}'
expect_status 201 "the admin invites ivy"
authctl invite joe@example.org user >/dev/null 2>&1 || fail "authctl invite joe (mailed)"
mail_count_before=$(mail_count)

step "snapshot 1: everything still waits in the outbox"
snapshot pending

step "the mail server comes back: every mail arrives"
smtp_start || fail "cannot start the SMTP server"
mail_wait 5 30 || fail "only $(mail_count) of 5 mails arrived"
expect_eq "nothing was delivered before" 0 "$mail_count_before"
for f in $(mail_files); do
  link=$(mail_part "$f" text | grep -oE 'https?://[^ ]*token=[A-Za-z0-9_-]+' | head -1)
  keep "mailed link $(mail_part "$f" to) ${link%%token=*}" "${link##*token=}"
done
expect_eq "five links mailed (two verifications, a reset, two invitations)" 5 "$(grep -c '^mailed link' "$SECRETS")"
link_of() { grep -F "mailed link $1" "$SECRETS" | cut -f2 | head -1; }

step "snapshot 2: after delivery"
sleep 1
snapshot delivered

step "no token, code or link is in the store"
echo "   looking for $(wc -l <"$SECRETS") values"
if OUT=$(scan pending); then pass "snapshot 1 (mail waiting): ${OUT##*$'\n'}"; else fail "snapshot 1 (mail waiting): $OUT"; fi
if OUT=$(scan delivered); then pass "snapshot 2 (delivered): ${OUT##*$'\n'}"; else fail "snapshot 2 (delivered): $OUT"; fi

step "the links still work (kept as hashes, not lost)"
post /email/verify "{\"token\":\"$(link_of 'alice@example.com https://auth.example.org/email/verify?')\"}"
expect_status 200 "alice's verification link"
post /password/reset "{\"token\":\"$(link_of 'alice@example.com https://auth.example.org/reset#')\",\"new_password\":\"alice new password\"}"
expect_status 200 "alice's reset link"
post /signup/invitation "{\"token\":\"$(link_of 'ivy@example.org')\",\"username\":\"ivy\",\"password\":\"ivy password\"}"
expect_status 201 "ivy's invitation"
finish

#!/usr/bin/env bash
# Invitations, end to end through a real SMTP server (aiosmtpd): an admin
# invites an address with a role (POST /admin/invitations), the mail carries
# a single-use link, the invitee chooses a username and password (POST
# /signup/invitation) and is signed in with the invited role and the address
# verified. Stops
#  - accounts made without an invitation once signup_mode = invite
#    (POST /signup answers 403 Sign-up Closed; invitations still work);
#  - a link used twice, one revoked, one expired, an unknown token (400);
#  - invitations by anyone but an admin (401 without a token, 403 for a user),
#    or from another site with the admin's cookie;
#  - the token in any log or in the admin API's answers.
# And authctl invite prints a working link (for a site without mail).
source "$(dirname "$0")/harness.sh"
source "$_HARNESS_DIR/mail_lib.sh"
export AUTHD_ARGON2_MEMORY_KIB=4096 AUTHD_ARGON2_ITERATIONS=1 AUTHD_MAIL_RETRY_MAX=1
mail_stack_start audit

# The link of the newest invitation mail to ADDRESS (waits up to 20 s for it).
invitation_token() {
  local f
  f=$(mail_to "$1") || return 1
  mail_part "$f" text | grep -oE 'https://auth\.example\.org/invite#token=[A-Za-z0-9_-]+' | head -1
}
accept() {  # TOKEN USERNAME PASSWORD
  post /signup/invitation "$(jq -cn --arg t "$1" --arg u "$2" --arg p "$3" '{token:$t,username:$u,password:$p}')"
}

add_user root 'root password' admin || fail "authctl add root"
signin root 'root password'
ROOT=$TOKEN
signup plain 'plain password'
PLAIN=$TOKEN

step "who may invite: an admin, by token or same-site cookie"
post /admin/invitations '{"email":"eve@example.org","role":"admin"}'
expect_status 401 "no token"
TOKEN=$PLAIN auth_post /admin/invitations '{"email":"eve@example.org","role":"admin"}'
expect_status 403 "a user's token"
post /admin/invitations '{"email":"eve@example.org","role":"admin"}' -H "Cookie: auth=$ROOT" \
  -H 'Sec-Fetch-Site: cross-site'
expect_status 403 "the admin's cookie from another site"
TOKEN=$ROOT auth_post /admin/invitations '{"email":"eve@example.org","role":"superuser"}'
expect_status 400 "an unknown role"
expect_match "names the roles" 'admin, editor, writer, user' "$(json .error)"
TOKEN=$ROOT auth_post /admin/invitations '{"email":"not an address","role":"user"}'
expect_status 400 "a malformed address"
TOKEN=$ROOT auth_post /admin/invitations '{"role":"user"}'
expect_status 400 "no address"
TOKEN=$ROOT auth_get /admin/invitations
expect_json "nothing was invited" '.invitations | length' 0

step "invite, the mail, the link"
TOKEN=$ROOT auth_post /admin/invitations '{"email":"ivy@example.org","role":"editor"}'
expect_status 201 "the admin invites ivy as editor"
expect_json "the answer: email" .email ivy@example.org
expect_json "role" .role editor
expect_json "mailed" .mailed true
expect_json "expires in invitation_ttl (7 days)" '.expires_at - .created_at' 604800
expect_json "never the token or link" 'keys | join(",")' "created_at,email,expires_at,id,invited_by,mailed,role"
IVY_ID=$(json .id)
LINK=$(invitation_token ivy@example.org) || fail "no invitation mail to ivy"
expect_match "the link: <public_url>/invite#token=" '^https://auth.example.org/invite#token=[A-Za-z0-9_-]{40,}$' "$LINK"
IVY=${LINK##*token=}
MAIL=$(mail_files | tail -1)
expect_eq "Subject" "You are invited" "$(mail_part "$MAIL" subject)"
expect_match "the mail names the role" 'role editor' "$(mail_part "$MAIL" text)"
http GET /invite
expect_status 200 "the invitation page"
expect_match "its title" 'Accept your invitation' "$BODY"
expect_header "the page's policy" Content-Security-Policy "script-src 'self'"
TOKEN=$ROOT auth_get /admin/invitations
expect_json "listed" '.invitations[0].id' "$IVY_ID"
expect_json "by root" '.invitations[0].invited_by' root

step "accept: the sign-up rules, then an account with the role, signed in"
accept "$IVY" plain 'ivy password'
expect_status 409 "a taken username"
expect_json "as /signup says" .error "username already exists"
accept "$IVY" 'no spaces' 'ivy password'
expect_status 400 "a username /signup refuses"
post /signup/invitation '{"token":"'"$IVY"'","username":"ivy","password":"ivy password"}' -H 'Sec-Fetch-Site: cross-site'
expect_status 403 "from another site"
accept "$IVY" ivy 'ivy password'
expect_status 201 "ivy accepts"
expect_json "the spec's user shape" '.user | keys | join(",")' "__v,_id,acl,password,role,username"
expect_json "the invited role" .user.role editor
expect_eq "token header = body" "$(json .token)" "$(header token)"
expect_match "the auth cookie" "^auth=$(json .token);" "$(set_cookie auth)"
TOKEN=$(json .token) auth_get /me
expect_json "GET /me: editor" .role editor
expect_json "GET /me: the invited address" .email ivy@example.org
expect_json "GET /me: verified (the link reached it)" .email_verified true
signin ivy 'ivy password'
expect_status 200 "ivy signs in with her password"
TOKEN=$ROOT auth_get /admin/users/ivy
expect_json "the admin API: email_verified" .email_verified true

step "single use"
accept "$IVY" ivy2 'ivy password'
expect_status 400 "the link again"
expect_match "says why" 'unknown, used, revoked or expired' "$(json .error)"
accept AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA nobody 'some password'
expect_status 400 "an unknown token"
post /signup/invitation '{"username":"x","password":"y"}'
expect_status 400 "no token"
TOKEN=$ROOT auth_get /admin/invitations
expect_json "no longer listed" '.invitations | length' 0

step "revoke"
TOKEN=$ROOT auth_post /admin/invitations '{"email":"rex@example.org","role":"writer"}'
REX_ID=$(json .id)
REX=$(invitation_token rex@example.org) || fail "no invitation mail to rex"
TOKEN=$PLAIN auth_delete "/admin/invitations/$REX_ID"
expect_status 403 "a user cannot revoke"
TOKEN=$ROOT auth_delete "/admin/invitations/$REX_ID"
expect_status 200 "the admin revokes"
expect_json "revoked" .revoked true
TOKEN=$ROOT auth_delete "/admin/invitations/$REX_ID"
expect_status 404 "twice: no such invitation"
accept "${REX##*token=}" rex 'rex password'
expect_status 400 "a revoked link"

step "expired (authctl invite --ttl 1)"
OUT=$(authctl invite old@example.org user --ttl 1 --json 2>/dev/null) || fail "authctl invite --ttl 1"
sleep 2
accept "$(jq -r .link <<<"$OUT" | sed 's/.*token=//')" old 'old password'
expect_status 400 "an expired link"

step "signup_mode = invite: /signup closes, invitations still open"
authd_stop
export AUTHD_SIGNUP_MODE=invite
authd_start || fail "authd did not restart with signup_mode = invite"
signup walkin 'walkin password'
expect_status 403 "POST /signup is closed"
expect_json "the error" .error "Sign-up Closed"
expect_match "and why" 'invitation' "$(json .detail)"
http GET /auth/providers
expect_json "the portal is told" .signup invite
OUT=$(authctl invite wren@example.org writer --no-mail 2>"$MAILDIR/authctl.err")
expect_match "authctl invite prints the link" 'link: https://auth\.example\.org/invite#token=' "$OUT"
expect_match "and says it was not mailed" 'not mailed' "$(cat "$MAILDIR/authctl.err")"
WREN=$(sed -n 's/^link: .*token=//p' <<<"$OUT")
accept "$WREN" wren 'wren password'
expect_status 201 "the printed link works while sign-up is closed"
expect_json "with its role" .user.role writer
TOKEN=$(json .token) auth_get /me
expect_json "verified" .email_verified true
expect_eq "authctl invitation list: none left" "" "$(authctl invitation list --json | jq -r '.[].email')"

step "a broken mail_templates directory stops authctl invite only"
mkdir -p "$MAILDIR/broken"
printf 'two\nlines\n' >"$MAILDIR/broken/invitation.subject"
OUT=$(AUTHD_MAIL_TEMPLATES="$MAILDIR/broken" authctl invite bad@example.org user --no-mail 2>&1) &&
  fail "authctl invite with a broken template succeeded"
expect_match "authctl invite names the template" 'invitation\.subject must be one line' "$OUT"
OUT=$(AUTHD_MAIL_TEMPLATES="$MAILDIR/broken" authctl invitation list --json) || fail "authctl invitation list"
expect_eq "authctl invitation list still works, nothing was made" "" "$(jq -r '.[].email' <<<"$OUT")"

step "audit and logs: events, never a token"
expect_match "audit: created by root" '"event":"invitation_created".*"actor":"root"' "$(cat "$AUDIT")"
expect_match "audit: accepted" '"event":"invitation_accepted","username":"ivy".*"outcome":"ok"' "$(cat "$AUDIT")"
expect_match "audit: revoked" '"event":"invitation_revoked"' "$(cat "$AUDIT")"
http GET /metrics
expect_match "metric: accepted" 'authd_invitations_total\{event="accepted"\} [1-9]' "$BODY"
expect_match "authctl's invitations are not counted" 'authd_invitations_total\{event="created"\} 0' "$BODY"
expect_not_logged "invitation token (ivy's)" "$IVY"
expect_not_logged "invitation token (wren's)" "$WREN"
finish

#!/usr/bin/env bash
# Directory users against a real Active Directory: a Samba domain controller
# (Debian samba, provisioned here by samba-tool on an address of its own in
# 127.0.0.0/8, ldaps:// from a test CA; samba_dc.sh), configured as an AD
# site would (docs/directory.md, "Setup with Active Directory"). The attacks
# and failures it stops:
#  - a disabled account (userAccountControl ACCOUNTDISABLE) signing in, and
#    one disabled or locked out (msDS-User-Account-Control-Computed
#    UF_LOCKOUT) while its token is in use: refused, and the token loses
#    access within directory_cache_ttl;
#  - a wrong password, and a username with filter metacharacters that would
#    widen the sAMAccountName/userPrincipalName search: never signs in;
#  - the same person under two names (sAMAccountName, userPrincipalName):
#    one account, keyed by objectGUID in the form AD's tools show;
#  - a role given through a nested group (groupA in groupB, groupB mapped):
#    found with the matching rule in chain 1.2.840.113556.1.4.1941;
#  - a password change (directory_password_change = user) by someone who holds
#    the session but not the current password, or to a password the domain's
#    policy refuses: refused; the change is AD's (unicodePwd, as the user,
#    over LDAPS): the old password stops signing in.
# Runs on lighttpd and LMDB only (t_directory_ldap.sh covers the directory
# users' store on PostgreSQL; the DC's provisioning costs about 10 s).
source "$(dirname "$0")/harness.sh"
source "$(dirname "$0")/samba_dc.sh"

samba_dc_setup
at_exit samba_dc_cleanup
samba_dc_start
B=$SAMBA_BASE
U="CN=Users,$B"
pw() { printf '%s-Dir-Pass-1' "${1^}"; }

# The service account, the people and the groups, added as an AD
# administrator would over LDAPS (userAccountControl 512: a normal account;
# 514: disabled; 66048: a password that does not expire).
{
  cat <<EOF
dn: CN=authd-svc,$U
objectClass: user
sAMAccountName: authd-svc
unicodePwd:: $(ad_unicode_pwd 'Service-Pass-123')
userAccountControl: 66048

EOF
  for who in alice erin lena dora paul; do
    cat <<EOF
dn: CN=${who^} Example,$U
objectClass: user
sAMAccountName: $who
userPrincipalName: $who@authd.test
mail: $who@authd.test
displayName: ${who^} Example
unicodePwd:: $(ad_unicode_pwd "$(pw "$who")")
userAccountControl: $([[ $who == dora ]] && echo 514 || echo 512)

EOF
  done
  cat <<EOF
dn: CN=groupA,$U
objectClass: group
sAMAccountName: groupA
member: CN=Alice Example,$U
member: CN=Erin Example,$U
member: CN=Lena Example,$U
member: CN=Dora Example,$U
member: CN=Paul Example,$U

dn: CN=groupB,$U
objectClass: group
sAMAccountName: groupB
member: CN=groupA,$U
EOF
} | ad_modify -a
expect_eq "the service account, five people and two groups added over LDAPS" 0 "$?"
printf '%s\n' 'Service-Pass-123' >"$SAMBA_DIR/service.pw"
chmod 0600 "$SAMBA_DIR/service.pw"

# docs/directory.md's Active Directory configuration: its filters and
# attributes as written there, this domain's names and groups.
doc_setting() {  # NAME: its value in the authd.conf block of "Setup with Active Directory"
  awk -v name="$1" '/^## Setup with Active Directory/ { on = 1 } on && /^## / && !/Active Directory/ { on = 0 }
    on && $1 == name && $2 == "=" { sub(/^[^=]*= /, ""); print; exit }' "$SOURCE_DIR/docs/directory.md"
}
for name in user_filter username_attribute id_attribute name_attribute groups group_filter; do
  value=$(doc_setting "directory_$name")
  [[ -n $value ]] || fail "docs/directory.md's AD setup sets directory_$name"
  export "AUTHD_DIRECTORY_${name^^}=$value"
done
export AUTHD_DIRECTORY_URLS=$SAMBA_LDAPS_URL
export AUTHD_DIRECTORY_CA_FILE=$SAMBA_DIR/ca.pem
export AUTHD_DIRECTORY_BIND_DN="CN=authd-svc,$U"
export AUTHD_DIRECTORY_BIND_PASSWORD_FILE=$SAMBA_DIR/service.pw
export AUTHD_DIRECTORY_USER_BASE=$B
export AUTHD_DIRECTORY_GROUP_BASE=$B
export AUTHD_DIRECTORY_EDITOR_GROUPS="CN=groupB,$U"
export AUTHD_DIRECTORY_CACHE_TTL=2
export AUTHD_DIRECTORY_STALE_LIMIT=30
export AUTHD_DIRECTORY_PASSWORD_CHANGE=user
# The throttle sooner than by default, and a delay that outlasts the script
# (the step "a second name gives no attempts of its own").
export AUTHD_SIGNIN_USER_THRESHOLD=3 AUTHD_SIGNIN_FIRST_DELAY=60
export AUTHD_AUDIT_LOG=$SAMBA_DIR/audit.log
stack_start

token_of() { signin "$1" "$(pw "${1%@*}")"; expect_status 200 "$2"; printf -v "$3" '%s' "Authorization: Bearer $TOKEN"; }
wait_ttl() { sleep 3.5; }  # directory_cache_ttl (2 s) and a refresh (every ttl/2)

step "sign-in by sAMAccountName and by userPrincipalName, the role through a nested group"
token_of alice "alice signs in by sAMAccountName" ALICE
http GET /me -H "$ALICE"
expect_json "alice's role (groupA, in groupB, mapped to editor)" .role editor
expect_json "alice's email from the directory" .email alice@authd.test
token_of alice@authd.test "alice signs in by her userPrincipalName" ALICE_UPN
http GET /me -H "$ALICE_UPN"
expect_json "by UPN: the same account, named by sAMAccountName" .username alice
expect_json "by UPN: the same role" .role editor
expect_eq "one account for both names" "alice" "$(authctl list | awk '$1 ~ /^alice/ { print $1 }')"

step "the stable id is the objectGUID, as AD's tools write it"
GUID_B64=$(LDAPTLS_CACERT=$SAMBA_DIR/ca.pem ldapsearch -LLL -x -H "$SAMBA_LDAPS_URL" -D "$SAMBA_ADMIN_DN" \
  -w "$SAMBA_ADMIN_PW" -b "$U" '(sAMAccountName=alice)' objectGUID | awk '/^objectGUID::/ { print $2 }')
GUID=$(python3 -c 'import base64, sys, uuid; print(uuid.UUID(bytes_le=base64.b64decode(sys.argv[1])))' "$GUID_B64")
expect_match "alice's objectGUID read back" '^[0-9a-f]{8}-[0-9a-f]{4}-' "$GUID"
expect_eq "the account is linked to directory:<objectGUID>" "directory:$GUID" \
  "$(authctl export | jq -r 'select(.username == "alice") | .links[]? // empty' | grep '^directory:')"
OUT=$(authctl directory test alice@authd.test 2>&1); RC=$?
expect_eq "directory test by UPN: exit 0" 0 "$RC"
expect_match "directory test: the id" "id +$GUID" "$OUT"
expect_match "directory test: the nested group" "CN=groupB,$U" "$OUT"
expect_match "directory test: the role" 'role +editor' "$OUT"

step "refused: a wrong password, hostile names, a disabled account"
signin alice 'Not-Her-Pass-1'
expect_status 500 "a wrong password"
signin 'al*' "$(pw alice)"
expect_status 500 "al* with alice's password (a wildcard would find alice)"
signin 'alice)(sAMAccountName=*' "$(pw alice)"
expect_status 500 "alice)(sAMAccountName=* with alice's password (a clause added to the filter)"
signin '*@authd.test' "$(pw alice)"
expect_status 500 "*@authd.test with alice's password (a UPN wildcard)"
signin dora "$(pw dora)"
expect_status 500 "dora (userAccountControl 514, ACCOUNTDISABLE) cannot sign in"
OUT=$(authctl directory test dora 2>&1); RC=$?
expect_eq "directory test dora: exit 1" 1 "$RC"
expect_match "directory test dora: cannot sign in" 'locked +yes' "$OUT"
expect_eq "no account was made for a refused name" "" \
  "$(authctl list | awk '$1 == "dora" || $1 ~ /[*()]/ { print $1 }')"

step "an account disabled, and one locked out, while their tokens are in use"
token_of erin "erin signs in" ERIN
token_of lena "lena signs in" LENA
ad_modify <<EOF
dn: CN=Erin Example,$U
changetype: modify
replace: userAccountControl
userAccountControl: 514

dn: $B
changetype: modify
replace: lockoutThreshold
lockoutThreshold: 2
EOF
expect_eq "ldapmodify: erin disabled, the domain locks out after 2 wrong passwords" 0 "$?"
for _ in 1 2; do
  LDAPTLS_CACERT=$SAMBA_DIR/ca.pem ldapwhoami -x -H "$SAMBA_LDAPS_URL" -D lena@authd.test -w 'Wrong-Pass-1' \
    >/dev/null 2>&1
done
wait_ttl
http GET /records -H "$ERIN"
expect_denied "erin's token after her account was disabled" 401
http GET /records -H "$LENA"
expect_denied "lena's token after her account was locked out" 401
http GET /records -H "$ALICE"
expect_status 200 "alice's token still works"
signin erin "$(pw erin)"
expect_status 500 "erin (disabled) cannot sign in"

step "directory_password_change = user: AD's unicodePwd, changed as the user over LDAPS"
# The domain's default minimum password age (1 day) would refuse a change
# of a password set today.
ad_modify <<EOF
dn: $B
changetype: modify
replace: minPwdAge
minPwdAge: 0
EOF
expect_eq "ldapmodify: the domain lets a password change today" 0 "$?"
token_of paul "paul signs in" PAUL
change_password "$PAUL" 'Not-His-Pass-1' 'Paul-New-Pass-2'
expect_status 500 "a wrong current password: Invalid Login, as for a local user"
change_password "$PAUL" "$(pw paul)" 'paul'
expect_status 400 "a new password the domain's complexity policy refuses"
expect_match "the 400 gives the domain's reason" '^new_password refused by the directory: .*password is too short' "$(json .error)"
change_password "$PAUL" "$(pw paul)" 'Paul-New-Pass-2'
expect_status 200 "AD changes paul's password"
NEW_PAUL="Authorization: Bearer $(json .token)"
http GET /records -H "$NEW_PAUL"
expect_status 200 "the token the change gave works"
http GET /records -H "$PAUL"
expect_denied "paul's token from before the change ends" 401
signin paul "$(pw paul)"
expect_status 500 "the old password no longer signs in"
signin paul 'Paul-New-Pass-2'
expect_status 200 "the new password signs in"
signin paul@authd.test 'Paul-New-Pass-2'
expect_status 200 "the new password signs in by userPrincipalName"
expect_eq "the audit line of the change" ok \
  "$(jq -r 'select(.event == "password_changed" and .username == "paul") | .outcome' "$AUTHD_AUDIT_LOG" 2>/dev/null)"

step "a second name gives a guesser no attempts of its own"
# alice answers to alice and alice@authd.test: guesses alternating between
# the two names count for the account, so the throttle holds both names
# after signin_user_threshold (3) failures of the account (one was the
# wrong password above), not after 3 of each name.
GUESSER=127.0.0.9
first_429=
for i in 1 2 3 4 5 6 7 8; do
  name=alice
  ((i % 2)) && name=alice@authd.test
  http POST /signin --interface "$GUESSER" -u "$name:Guess-Pass-$i"
  if [[ $STATUS == 429 ]]; then first_429=$i; break; fi
  expect_eq "guess $i as $name: a wrong password" 500 "$STATUS"
done
expect_ne "the guesser is throttled" "" "$first_429"
expect_eq "throttled at the 4th guess, whichever name (without the shared count: the 8th)" 4 "${first_429:-none}"
http POST /signin --interface "$GUESSER" -u "alice@authd.test:$(pw alice)"
expect_status 429 "then alice@authd.test, even with the right password: 429"
expect_match "the 429 names the account's limit" "for this account" "$(json .detail)"
expect_match "the audit line names the directory account" '"event":"throttled".*the directory account alice' \
  "$(cat "$AUTHD_AUDIT_LOG" 2>/dev/null)"

step "no password in the logs"
expect_eq "authd.log holds no directory password" 0 "$(grep -c 'Dir-Pass\|Service-Pass\|New-Pass' "$STATE_DIR/authd.log")"

finish

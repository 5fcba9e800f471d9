#!/usr/bin/env bash
# Attack (SECURITY.md, issue 41 class 14): `authctl import` took a line whose
# _id belongs to an account already in the store. Second-factor state is
# keyed by _id, so the new account (its password chosen by whoever wrote the
# file) shared alice's TOTP, and `authctl mfa reset NEW` stripped alice's
# factor with an audit line naming NEW. A taken _id is now refused like a
# taken username (with --skip-bad too: skipped, nothing of it written).
# And export -> import dropped every second factor silently: now the export
# carries them as stored ("second_factors", format version 2 on its first
# line) and the import puts them back, so alice still needs, and passes with,
# her TOTP code in the fresh store; a newer format is refused whole. On LMDB
# and (blackbox-postgresql.sec_import_alias) PostgreSQL.
source "$(dirname "$0")/harness.sh"
command -v oathtool >/dev/null || { fail "oathtool is not installed (scripts/deps.sh test)"; finish; }
stack_start
make_temp_dir WORK import-alias
code_at() { oathtool --totp -b --now="@$2" "$1"; }
mfa_step() { http POST /signin/mfa -H 'Content-Type: application/json' --data-binary "$(jq -nc --arg t "$1" --arg c "$2" '{mfa_token:$t,code:$c}')"; }
exported() { authctl export | jq -c --arg u "$1" 'select(.type == "user" and .username == $u)'; }

step "alice with a TOTP factor"
signup alice 'alice password'; expect_status 201 "signup alice"; ALICE=$TOKEN
signup bob 'bob password'; expect_status 201 "signup bob"
TOKEN=$ALICE totp_enrol "alice confirms TOTP"
signin alice 'alice password'
expect_status 401 "alice's password alone is not enough"
ALICE_ID=$(exported alice | jq -r ._id)
expect_match "alice's _id" '^[0-9a-f]{24}$' "$ALICE_ID"

step "an import line with alice's _id is refused"
BOB_HASH=$(exported bob | jq -r .password)
jq -nc --arg id "$ALICE_ID" --arg h "$BOB_HASH" '{_id:$id,username:"mallory",password:$h,role:"user"}' >"$WORK/alias.jsonl"
authctl import "$WORK/alias.jsonl" >/dev/null 2>"$WORK/alias.err"
expect_ne "import: refused" 0 "$?"
expect_match "names the taken _id and its owner" "line 1: _id $ALICE_ID already belongs to user 'alice'" "$(cat "$WORK/alias.err")"
authctl import --skip-bad "$WORK/alias.jsonl" >"$WORK/skip.out" 2>"$WORK/skip.err"
expect_match "--skip-bad: the line skipped" "skipped line 1: _id $ALICE_ID already belongs" "$(cat "$WORK/skip.err")"
expect_eq "no account mallory" "" "$(authctl list | grep -E '^mallory\b')"
signin mallory 'bob password'
expect_ne "mallory cannot sign in" 200 "$STATUS"
signin alice 'alice password'
expect_status 401 "alice's factor is still hers: password alone -> 401"
expect_eq "MFA Required" "MFA Required" "$(json .error)"

step "export -> import into a fresh store carries the factor"
authctl export "$WORK/export.jsonl"
expect_eq "export: exit 0" 0 "$?"
expect_eq "the first line: the format and its version" '{"type":"export","version":2}' "$(head -n 1 "$WORK/export.jsonl")"
expect_eq "alice's line carries her TOTP factor as stored" "true" \
  "$(jq -c 'select(.username == "alice") | .second_factors.totp.active == 1 and (.second_factors.recovery | length) == 10' "$WORK/export.jsonl")"
expect_eq "bob's carries none" "null" "$(jq -c 'select(.username == "bob") | .second_factors' "$WORK/export.jsonl")"
authd_stop
OLD=$AUTHD_STATE_DIR
export AUTHD_STATE_DIR=$WORK/fresh
if [[ ${AUTHD_STORE:-lmdb} == postgresql ]]; then pg_bb_fresh_database; fi
jq -c '.version = 3' <<<'{"type":"export","version":2}' >"$WORK/newer.jsonl"
tail -n +2 "$WORK/export.jsonl" >>"$WORK/newer.jsonl"
authctl import --skip-bad "$WORK/newer.jsonl" >/dev/null 2>"$WORK/newer.err"
expect_ne "a newer export format: refused, even with --skip-bad" 0 "$?"
expect_match "says which version" 'version 3' "$(cat "$WORK/newer.err")"
expect_eq "nothing imported" "" "$(authctl list 2>/dev/null | grep -E '^(alice|bob)\b')"
expect_import "import of the export" "$WORK/export.jsonl" 'imported 2 users'
authd_start
signin bob 'bob password'
expect_status 200 "bob signs in with his password"
signin alice 'alice password'
expect_status 401 "alice still needs her second factor in the fresh store"
MFA=$(json .mfa_token)
mfa_step "$MFA" "$(code_at "$SECRET" $(( $(date +%s) + 30 )))"
expect_status 200 "alice signs in with a code of her authenticator"
expect_eq "amr pwd otp" '["pwd","otp"]' "$(jwt_payload "$(json .token)" | jq -c .amr)"
export AUTHD_STATE_DIR=$OLD
finish

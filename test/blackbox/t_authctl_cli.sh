#!/usr/bin/env bash
# authctl's command line is conventional (getopt_long): options before, between or after
# the operands (`import --skip-bad FILE` and `import FILE --skip-bad`), `--` ends them,
# `--help` for authctl, for each command and each group (`client --help` lists its
# subcommands), `--version`, exit status 0 done / 1 failed / 2 usage, `--json` output that
# parses, and a bash completion that offers every command of `authctl --help`. A state
# directory that does not exist is an error (no new empty store), as is an AUTHD_* variable
# that names no setting. No web server: authctl on a state directory of its own.
source "$(dirname "${BASH_SOURCE[0]}")/harness.sh"
export AUTHD_STATE_DIR=$(mktemp -d)
trap 'rm -rf "$AUTHD_STATE_DIR"' EXIT

ERR_FILE=$AUTHD_STATE_DIR/err
run() { OUT=$(authctl "$@" 2>"$ERR_FILE"); RC=$?; ERR=$(cat "$ERR_FILE"); }

run --version
expect_eq "--version: exit 0" 0 "$RC"
expect_match "--version prints the version" '^authctl [0-9]+\.[0-9]+' "$OUT"
run --help
expect_eq "--help: exit 0" 0 "$RC"
HELP=$OUT
for command in add role list show delete signout backup restore export import "key rotate" "key retire" "key list" "client add" "client list" "client show" "client remove" "client rotate-secret" "client update" invite "invitation list" "invitation revoke" "mfa reset" "directory test"; do
  expect_match "--help names '$command'" "  $command" "$HELP"
  run $command --help
  expect_eq "authctl $command --help: exit 0" 0 "$RC"
  expect_match "authctl $command --help: its usage line" "^usage: authctl $command" "$OUT"
done
run
expect_eq "no command: usage error, exit 2" 2 "$RC"
run frobnicate
expect_eq "unknown command: exit 2" 2 "$RC"
expect_match "unknown command named" "unknown command 'frobnicate'" "$ERR"
run list --frob
expect_eq "unknown option: exit 2" 2 "$RC"
expect_match "unknown option named" "unknown option '--frob'" "$ERR"
run add onlyuser
expect_eq "missing operand: exit 2" 2 "$RC"
run add alice user --email
expect_eq "option without its value: exit 2" 2 "$RC"
run key
expect_eq "group without subcommand: exit 2" 2 "$RC"
expect_match "group without subcommand: its subcommands on stderr" "  key rotate" "$ERR"
for group in key client invitation mfa; do
  for help in --help -h; do
    run $group $help
    expect_eq "authctl $group $help: exit 0" 0 "$RC"
    expect_match "authctl $group $help: its usage line" "^usage: authctl $group SUBCOMMAND" "$OUT"
    expect_eq "authctl $group $help: every '$group' command of --help" \
      "$(sed -n "s/^  \($group [a-z-]*\).*/\1/p" <<<"$HELP")" "$(sed -n "s/^  \($group [a-z-]*\).*/\1/p" <<<"$OUT")"
  done
done
run client frob
expect_eq "unknown subcommand: exit 2" 2 "$RC"
expect_match "unknown subcommand named" "unknown subcommand 'client frob'" "$ERR"

# No store where one is expected: authctl says so and stops instead of making an empty one.
MISSING=$AUTHD_STATE_DIR/not-here
AUTHD_STATE_DIR=$MISSING run list
expect_eq "list on a missing state directory: failure, exit 1" 1 "$RC"
expect_match "missing state directory: named with the setting" "no store at $MISSING: .*state_dir.*AUTHD_STATE_DIR" "$ERR"
[[ ! -e $MISSING ]] && pass "missing state directory: not created" || fail "missing state directory: created"
for command in "show alice" "role alice admin" "export" "key list" "client list"; do
  AUTHD_STATE_DIR=$MISSING run $command </dev/null
  expect_eq "authctl $command on a missing state directory: exit 1" 1 "$RC"
done
(cd "$AUTHD_STATE_DIR" && mkdir elsewhere && cd elsewhere && unset AUTHD_STATE_DIR && "$AUTHCTL_BIN" list >/dev/null 2>&1)
expect_eq "authctl list in another directory (default ./var): exit 1" 1 "$?"
[[ ! -e $AUTHD_STATE_DIR/elsewhere/var ]] && pass "no ./var made in another directory" || fail "a new ./var was made"

# Settings in the environment: AUTHD_<NAME> exactly; any other AUTHD_* variable stops authctl.
AUTHD_AUTHORIZE_RULES='/ * method' run list
expect_eq "an unknown AUTHD_* variable: failure, exit 1" 1 "$RC"
expect_match "the unknown variable named, with the nearest setting's" \
  "AUTHD_AUTHORIZE_RULES: unknown setting.*did you mean AUTHD_AUTHORIZE_RULE\?" "$ERR"
AUTHD_AUTHORIZE_RULE='/ * method' run list
expect_eq "AUTHD_AUTHORIZE_RULE is a setting: exit 0" 0 "$RC"

printf 'alice password' | authctl add --email alice@example.com alice user >/dev/null 2>&1
expect_eq "add with the option before the operands: exit 0" 0 "$?"
printf 'bob password' | authctl add bob --fullname 'Bob B' editor >/dev/null 2>&1
expect_eq "add with the option between the operands: exit 0" 0 "$?"
run show -- bob
expect_eq "'--' ends the options: show bob" 0 "$RC"
expect_match "show bob: fullname from --fullname between operands" "Bob B" "$OUT"
run role nobody admin
expect_eq "role of an unknown user: failure, exit 1" 1 "$RC"

run list --json
expect_eq "list --json: exit 0" 0 "$RC"
expect_eq "list --json: an array of the users" "alice bob" "$(jq -r '[.[].username] | sort | join(" ")' <<<"$OUT" 2>/dev/null)"
expect_eq "list --json: alice's email" alice@example.com "$(jq -r '.[] | select(.username=="alice") | .email' <<<"$OUT" 2>/dev/null)"
run --json show alice
expect_eq "--json before the command: show alice as JSON" user "$(jq -r .role <<<"$OUT" 2>/dev/null)"

# import: the option on either side of the operand, and `-` for stdin.
hash=$(printf 'carol password' | authctl add carol-tmp user >/dev/null 2>&1; authctl export | jq -r 'select(.username=="carol-tmp") | .password' 2>/dev/null)
authctl delete carol-tmp >/dev/null 2>&1
printf '{"username":"carol","password":"%s","role":"writer"}\nnot json\n' "$hash" >"$AUTHD_STATE_DIR/one.jsonl"
printf '{"username":"dave","password":"%s","role":"writer"}\nnot json\n' "$hash" >"$AUTHD_STATE_DIR/two.jsonl"
run import --skip-bad "$AUTHD_STATE_DIR/one.jsonl"
expect_eq "import --skip-bad FILE: exit 0" 0 "$RC"
run import "$AUTHD_STATE_DIR/two.jsonl" --skip-bad
expect_eq "import FILE --skip-bad: exit 0" 0 "$RC"
expect_eq "both imports added their good line" "carol dave" "$(authctl list --json | jq -r '[.[].username | select(.=="carol" or .=="dave")] | sort | join(" ")')"
run import "$AUTHD_STATE_DIR/two.jsonl"
expect_eq "import with a bad line, no --skip-bad: failure, exit 1" 1 "$RC"

# The bash completion offers exactly the commands of --help.
completion=$SOURCE_DIR/conf/bash-completion/authctl
offered=$(bash -c 'source /usr/share/bash-completion/bash_completion; source "$1"
  COMP_WORDS=(authctl ""); COMP_CWORD=1; COMP_LINE="authctl "; COMP_POINT=${#COMP_LINE}
  _authctl; printf "%s\n" "${COMPREPLY[@]}"' _ "$completion" | grep -v '^-' | sort | tr '\n' ' ')
listed=$(authctl --help | sed -n 's/^  \([a-z][a-z]*\).*/\1/p' | sort -u | tr '\n' ' ')
expect_eq "bash completion offers the commands of --help" "$listed" "$offered"
offered=$(bash -c 'source /usr/share/bash-completion/bash_completion; source "$1"
  COMP_WORDS=(authctl import --s); COMP_CWORD=2; COMP_LINE="authctl import --s"; COMP_POINT=${#COMP_LINE}
  _authctl; printf "%s\n" "${COMPREPLY[@]}"' _ "$completion" | tr '\n' ' ')
expect_eq "bash completion: import's --skip-bad" "--skip-bad " "$offered"
finish

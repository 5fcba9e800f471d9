#!/usr/bin/env bash
# authd refuses to start, with ONE line on stderr naming the reason, when its
# state directory or signing key cannot work:
#   - the state directory is a regular file;
#   - the state directory cannot be created (its parent is a regular file,
#     or does not exist);
#   - the state directory is not writable (mode 0555, authd run as an
#     unprivileged user: root ignores permission bits);
#   - the signing key file is unreadable (mode 0600 of another user; a
#     directory in its place);
#   - the signing key file has the wrong length (31 bytes);
#   - the signing key file's directory cannot be created (a file is in the
#     way; a missing one is created like the state directory);
#   - an AUTHD_* variable names no setting (AUTHD_AUTHORIZE_RULES for
#     AUTHD_AUTHORIZE_RULE), as an unknown name in the file does.
# Each case is checked three ways: `authd --check`, a real start under
# `spawn-fcgi -n` (what make run and the harness do), and the supervisor
# scripts/supervise-authd.sh (which must give up at once, not loop).
# A missing state directory whose parent exists is not an error: authd
# creates it (mode 0700) -- checked too, as is a usable setup (exit 0); one
# whose parent is missing is refused like the cases above. `authd --help`
# prints the usage on stdout and exits 0; a bad option, on stderr with 2.
# Figures: cases, runs, errors.
source "$(dirname "$0")/fault_lib.sh"

need_tools spawn-fcgi
[[ -x $AUTHD_BIN ]] || fault_die "AUTHD_BIN=$AUTHD_BIN is not an executable (build first)"
make_temp_dir T startup
chmod 0755 "$T"
mkdir -m 1777 "$T/run"  # the socket's directory, writable by the unprivileged user
SOCK=$T/run/s.sock

# An unprivileged user for the permission cases (root reads and writes
# anything). Without root we already are one.
if (($(id -u) == 0)); then
  need_tools setpriv
  AS_USER=(setpriv --reuid=65534 --regid=65534 --clear-groups)
  owner_other() { chown 0:0 "$@"; }          # root's, unreadable to nobody
  owner_self() { chown 65534:65534 "$@"; }   # nobody's
else
  AS_USER=()
  owner_other() { :; }
  owner_self() { :; }
fi

runs=0
# run_three DESC REGEX UNPRIV ENV...: the three ways to start, each must fail
# with exactly one line of stderr from authd matching REGEX.
run_three() {
  local desc=$1 regex=$2 unpriv=$3
  shift 3
  local -a who=()
  ((unpriv)) && who=("${AS_USER[@]}")
  local -a envv=(env -i "PATH=$PATH" "HOME=$T" "$@")
  local err rc lines

  err=$("${who[@]}" "${envv[@]}" "$AUTHD_BIN" --check 2>&1 >/dev/null </dev/null); rc=$?
  runs=$((runs + 1))
  lines=$(grep -c '' <<<"$err")
  expect_ne "$desc: authd --check exits non-zero" 0 "$rc"
  expect_eq "$desc: authd --check writes one line" 1 "$lines"
  expect_match "$desc: the line names the reason" "$regex" "$err"
  echo "     --check: status $rc: $err"

  rm -f "$SOCK"
  err=$(timeout 20 "${who[@]}" "${envv[@]}" spawn-fcgi -n -s "$SOCK" -M 0600 -- "$AUTHD_BIN" 2>&1 >/dev/null </dev/null); rc=$?
  runs=$((runs + 1))
  lines=$(grep -c '' <<<"$err")
  expect_eq "$desc: a real start (spawn-fcgi -n) exits non-zero at once" yes \
    "$( ((rc != 0 && rc != 124)) && echo yes || echo "no (status $rc)")"
  expect_eq "$desc: a real start writes one line" 1 "$lines"
  expect_match "$desc: a real start names the reason" "$regex" "$err"

  rm -f "$SOCK"
  err=$(timeout 20 "${who[@]}" "${envv[@]}" "AUTHD_BIN=$AUTHD_BIN" "$SUPERVISOR" "$SOCK" 2>&1 >/dev/null </dev/null); rc=$?
  runs=$((runs + 1))
  expect_eq "$desc: the supervisor gives up at once, non-zero" yes \
    "$( ((rc != 0 && rc != 124)) && echo yes || echo "no (status $rc)")"
  expect_match "$desc: the supervisor passes authd's reason on" "$regex" "$(grep -v '^supervise:' <<<"$err")"
}

step "sanity: a usable setup passes --check"
mkdir -m 0700 "$T/good"
err=$(env -i "PATH=$PATH" "AUTHD_STATE_DIR=$T/good" "$AUTHD_BIN" --check 2>&1); rc=$?
runs=$((runs + 1))
expect_eq "usable state dir: --check exits 0" 0 "$rc"
expect_eq "usable state dir: the key was created (32 bytes)" 32 "$(stat -c %s "$T/good/signing.key" 2>/dev/null)"

step "--help: the usage on stdout, exit 0; a bad option: the usage on stderr, exit 2"
for help in --help -h; do
  out=$("$AUTHD_BIN" $help 2>/dev/null); rc=$?
  expect_eq "authd $help: exit 0" 0 "$rc"
  expect_match "authd $help: the usage on stdout" '^usage: authd ' "$out"
done
err=$("$AUTHD_BIN" --frob 2>&1 >/dev/null); rc=$?
expect_eq "authd --frob: exit 2" 2 "$rc"
expect_match "authd --frob: the usage on stderr" '^usage: authd ' "$err"

step "a missing state directory is created (mode 0700) when its parent exists"
mkdir "$T/new"
err=$(env -i "PATH=$PATH" "AUTHD_STATE_DIR=$T/new/state" "$AUTHD_BIN" --check 2>&1); rc=$?
runs=$((runs + 1))
expect_eq "missing state dir: --check exits 0" 0 "$rc"
expect_eq "missing state dir: created with mode 700" 700 "$(stat -c %a "$T/new/state" 2>/dev/null)"

step "the state directory's parent does not exist"
run_three "state dir in a missing parent" "$T/nosuch/state.*(No such file|cannot create)|cannot create.*$T/nosuch/state" 0 \
  "AUTHD_STATE_DIR=$T/nosuch/state"

step "the state directory is a regular file"
echo not a directory >"$T/file"
run_three "state dir is a file" 'not a directory' 0 "AUTHD_STATE_DIR=$T/file"

step "the state directory cannot be created (its parent is a file)"
run_three "state dir under a file" "(cannot create|[Nn]ot a directory).*$T/file/state|$T/file/state.*(cannot create|[Nn]ot a directory)" 0 \
  "AUTHD_STATE_DIR=$T/file/state"

step "the state directory is not writable"
mkdir -m 0555 "$T/readonly"
owner_other "$T/readonly"
run_three "state dir not writable" 'not writable' 1 "AUTHD_STATE_DIR=$T/readonly"

step "the signing key file is unreadable"
mkdir -m 0700 "$T/st-unreadable"
owner_self "$T/st-unreadable"
head -c 32 /dev/urandom >"$T/unreadable.key"
chmod 0600 "$T/unreadable.key"
owner_other "$T/unreadable.key"
((${#AS_USER[@]})) || chmod 0000 "$T/unreadable.key"
run_three "signing key unreadable" 'signing key.*(cannot read|[Pp]ermission denied)' 1 \
  "AUTHD_STATE_DIR=$T/st-unreadable" "AUTHD_SIGNING_KEY_FILE=$T/unreadable.key"

step "a directory in place of the signing key file"
mkdir -m 0700 "$T/st-dirkey" "$T/dir.key"
run_three "signing key is a directory" 'signing key.*(not a regular file|[Ii]s a directory)' 0 \
  "AUTHD_STATE_DIR=$T/st-dirkey" "AUTHD_SIGNING_KEY_FILE=$T/dir.key"

step "the signing key file has 31 bytes"
mkdir -m 0700 "$T/st-short"
head -c 31 /dev/urandom >"$T/st-short/signing.key"
chmod 0600 "$T/st-short/signing.key"
run_three "signing key of 31 bytes" 'signing key.*31' 0 "AUTHD_STATE_DIR=$T/st-short"
expect_eq "the short key was left as it was" 31 "$(stat -c %s "$T/st-short/signing.key")"

step "the signing key file's directory cannot be created (a file is in the way)"
# (a missing directory is created, like the state directory)
mkdir -m 0700 "$T/st-nokeydir"
run_three "signing key directory cannot be created" "(signing key|cannot create directory).*$T/file" 0 \
  "AUTHD_STATE_DIR=$T/st-nokeydir" "AUTHD_SIGNING_KEY_FILE=$T/file/signing.key"

step "an AUTHD_* variable that names no setting"
mkdir -m 0700 "$T/st-env"
run_three "unknown variable AUTHD_AUTHORIZE_RULES" \
  'environment AUTHD_AUTHORIZE_RULES: unknown setting.*did you mean AUTHD_AUTHORIZE_RULE\?' 0 \
  "AUTHD_STATE_DIR=$T/st-env" "AUTHD_AUTHORIZE_RULES=/ * method"

print_figure cases 9
print_figure runs "$runs"
print_figure errors "$FAILED"
finish

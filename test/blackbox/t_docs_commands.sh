#!/usr/bin/env bash
# Every runnable shell block of README.md and docs/*.md (```sh, not marked
# `<!-- not run: REASON -->`; test/docs/shell_blocks.py, docs/testing.md)
# runs exactly as written, in document order (README first) against one
# stack, each block with `bash -eo pipefail`: a command that fails fails the
# test. Two substitutions, and only these: `make run`'s address
# http://127.0.0.1:8080 is this stack's BASE_URL, and blocks run in a
# directory where `build/` is the build tree and `authctl` is on PATH (the
# checkout's build/authctl or an installed authctl alike), with the stack's
# AUTHD_STATE_DIR. Runs once (front-server independent: CORE_LOGIC).
source "$(dirname "${BASH_SOURCE[0]}")/harness.sh"
need_tools python3
# The provider is on, as README and docs/openid-provider.md ask of `make run`
# for their OpenID blocks (AUTHD_OIDC_PROVIDER=true make run).
export AUTHD_OIDC_PROVIDER=true
stack_start

make_temp_dir W docs-commands
if ! python3 "$SOURCE_DIR/test/docs/shell_blocks.py" "$SOURCE_DIR" "$W/blocks" >"$W/extract.log" 2>&1; then
  fail "shell blocks of the docs follow the marker convention" "$(cat "$W/extract.log")"
fi
mkdir -p "$W/cwd"
ln -s "$(dirname "$AUTHCTL_BIN")" "$W/cwd/build"
export PATH="$(dirname "$AUTHCTL_BIN"):$PATH"

ran=0
for block in "$W"/blocks/*.sh; do
  [[ -e $block ]] || continue
  where=$(head -n 1 "$block" | sed 's/^# //')
  sed -i "s|http://127\.0\.0\.1:8080|$BASE_URL|g" "$block"
  if (cd "$W/cwd" && timeout 20 bash -eo pipefail "$block") >"$W/out" 2>&1; then
    pass "$where runs as written"
  else
    fail "$where runs as written" "$(tail -n 30 "$W/out")"
  fi
  ran=$((ran + 1))
done
expect_eq "README's session is among the blocks run" yes "$( ((ran >= 1)) && grep -lq 'build/authctl role alice admin' "$W"/blocks/*.sh && echo yes)"

finish

# shellcheck shell=bash
# test/browser/driver.sh - sourced by the browser tests (t_*.sh) in place of
# ../blackbox/harness.sh, which it sources: sets _BROWSER_DIR, needs node and
# Chromium, makes sure test/browser/node_modules holds the pinned npm
# playwright-core (`npm ci` through ../blackbox/npm.sh, once even with
# parallel runs; no browser download), and runs the node test files against
# the stack.
_BROWSER_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=../blackbox/harness.sh
source "$_BROWSER_DIR/../blackbox/harness.sh"
need_tools node
CHROMIUM=${CHROMIUM:-/usr/bin/chromium}
[[ -x $CHROMIUM ]] ||
  _harness_die "Chromium is not installed at $CHROMIUM (Debian package 'chromium'; scripts/deps.sh test installs it)"
export CHROMIUM SCREENSHOT_DIR=${SCREENSHOT_DIR:-$PWD/screenshots}
# shellcheck source=../blackbox/npm.sh
source "$_BROWSER_DIR/../blackbox/npm.sh"

npm_ci_once "$(basename "$0" .sh)" "$_BROWSER_DIR" playwright-core

# browser_step WHAT: a step "WHAT in Chromium (VERSION)".
browser_step() { step "$1 in Chromium ($("$CHROMIUM" --version 2>/dev/null | head -n1))"; }

# browser_run FILE: runs test/browser/FILE (node's test runner) against the
# running stack: one pass, or one fail with node's exit status.
browser_run() {
  local rc=0
  (cd "$_BROWSER_DIR" && node --test --test-reporter=spec "$1") || rc=$?
  if ((rc == 0)); then
    pass "browser tests ($1)"
  else
    fail "browser tests ($1)" "node --test exited $rc; screenshots in $SCREENSHOT_DIR"
  fi
}

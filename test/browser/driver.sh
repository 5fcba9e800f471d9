# shellcheck shell=bash
# test/browser/driver.sh - sourced by the browser tests (t_*.sh) after
# harness.sh with _BROWSER_DIR set: makes sure test/browser/node_modules
# holds the pinned npm playwright-core (`npm ci`, once even with parallel
# runs; no browser download).
CHROMIUM=${CHROMIUM:-/usr/bin/chromium}
[[ -x $CHROMIUM ]] ||
  _harness_die "Chromium is not installed at $CHROMIUM (Debian package 'chromium'; scripts/deps.sh test installs it)"
export CHROMIUM SCREENSHOT_DIR=${SCREENSHOT_DIR:-$PWD/screenshots}

# True when test/browser/node_modules holds the pinned playwright-core.
_driver_installed() {
  local pinned installed
  pinned=$(jq -r '.dependencies["playwright-core"]' "$_BROWSER_DIR/package.json" 2>/dev/null) || return 1
  installed=$(jq -r .version "$_BROWSER_DIR/node_modules/playwright-core/package.json" 2>/dev/null) || return 1
  [[ -n $installed && $installed == "$pinned" && -f $_BROWSER_DIR/node_modules/.package-lock.json ]]
}

# `npm ci` in test/browser, once even with parallel runs. playwright-core
# downloads no browser (and PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD makes sure).
_driver_install() {
  _driver_installed && return 0
  command -v npm >/dev/null 2>&1 || _harness_die "'npm' is not installed (scripts/deps.sh test installs it)"
  local lock log rc=0
  lock=${TMPDIR:-/tmp}/authd-browser-npm-$(printf '%s' "$_BROWSER_DIR" | cksum | cut -d' ' -f1).lock
  log=$(mktemp "${TMPDIR:-/tmp}/authd-npm-ci.XXXXXX")
  (
    exec 9>"$lock"
    flock -w 300 9 || { echo "timed out waiting for $lock" >&2; exit 1; }
    _driver_installed && exit 0
    echo "t_pages: installing test/browser's npm packages (npm ci)" >&2
    cd "$_BROWSER_DIR" && PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 npm ci --no-audit --no-fund --loglevel=error
  ) >"$log" 2>&1 || rc=$?
  if ((rc != 0)) || ! _driver_installed; then
    echo "t_pages: 'npm ci' in $_BROWSER_DIR failed (exit $rc):" >&2
    tail -n 40 "$log" >&2
    rm -f "$log"
    _harness_die "cannot install playwright-core"
  fi
  rm -f "$log"
}

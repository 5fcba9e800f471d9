# shellcheck shell=bash
# test/blackbox/npm.sh - sourced after harness.sh by the helpers that run npm
# packages (oauth_provider.sh: test/oauth's oauth2-mock-server;
# ../browser/driver.sh: test/browser's playwright-core). One way to install a
# folder's pinned packages: `npm ci`, quiet, once even when tests run in
# parallel (the others wait on a lock), and no browser download.

# npm_pinned DIR PACKAGE: true when DIR/node_modules holds PACKAGE at the
# version DIR/package.json pins, installed by `npm ci`.
npm_pinned() {
  local pinned installed
  pinned=$(jq -r --arg p "$2" '.dependencies[$p]' "$1/package.json" 2>/dev/null) || return 1
  installed=$(jq -r .version "$1/node_modules/$2/package.json" 2>/dev/null) || return 1
  [[ -n $installed && $installed == "$pinned" && -f $1/node_modules/.package-lock.json ]]
}

# npm_ci_once WHO DIR PACKAGE: `npm ci` in DIR unless npm_pinned DIR PACKAGE
# holds already; stops the test (_harness_die) when npm is missing or the
# install fails, with the tail of npm's output. WHO names the caller in messages.
npm_ci_once() {
  local who=$1 dir=$2 package=$3 lock log rc=0
  npm_pinned "$dir" "$package" && return 0
  command -v npm >/dev/null 2>&1 ||
    _harness_die "'npm' is not installed: $who needs node and npm (scripts/deps.sh test installs them)"
  lock=${TMPDIR:-/tmp}/authd-npm-$(printf '%s' "$dir" | cksum | cut -d' ' -f1).lock
  log=$(mktemp "${TMPDIR:-/tmp}/authd-npm-ci.XXXXXX")
  (
    if command -v flock >/dev/null 2>&1; then
      exec 9>"$lock"
      flock -w 300 9 || { echo "timed out waiting for $lock" >&2; exit 1; }
    fi
    npm_pinned "$dir" "$package" && exit 0
    echo "$who: installing $dir's npm packages (npm ci)" >&2
    cd "$dir" && PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 npm ci --no-audit --no-fund --loglevel=error
  ) >"$log" 2>&1 || rc=$?
  if ((rc != 0)) || ! npm_pinned "$dir" "$package"; then
    echo "$who: 'npm ci' in $dir failed (exit $rc):" >&2
    tail -n 40 "$log" >&2
    rm -f "$log"
    _harness_die "cannot install $package"
  fi
  rm -f "$log"
}

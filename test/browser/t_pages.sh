#!/usr/bin/env bash
# shellcheck source-path=SCRIPTDIR
# The pages (/login, /account, /admin) in a real browser: Debian's Chromium
# driven by npm playwright-core (test/browser/pages.test.mjs, node's test
# runner), through the real lighttpd + authd of test/blackbox/harness.sh, with
# the OAuth test provider of test/oauth for third-party sign-in; then, with
# authd restarted with signup_mode = invite, login_invite_mode.test.mjs.
#
# CTest runs it as browser.pages (label browser). By hand, after a build:
#   bash test/browser/t_pages.sh
# Screenshots (desktop 1280 px and phone 360 px wide) go to $SCREENSHOT_DIR
# (CTest: build/test/browser/screenshots).
#
# Tests that need routes this server does not have yet (GET /me,
# PUT /me/password, POST /signout: issue 14; /admin/users: issue 17) are
# reported as skipped with the reason, and run by themselves once the routes
# exist.
# shellcheck source=driver.sh
source "$(dirname "${BASH_SOURCE[0]}")/driver.sh"
# shellcheck source=../blackbox/oauth_provider.sh
source "$_BROWSER_DIR/../blackbox/oauth_provider.sh"

provider_start
export AUTHD_OAUTH_ISSUER=$PROVIDER_URL
export AUTHD_OAUTH_CLIENT_ID=authd-browser-test
export AUTHD_OAUTH_CLIENT_SECRET=browser-s3cret
# The provider sends the browser back to the portal, which completes the
# sign-in with GET /oauth (see docs/pages.md).
export AUTHD_OAUTH_REDIRECT_URI='http://127.0.0.1:@PORT@/login'
# Two more origins on this host (test/browser/apps.mjs): an app on the
# portal's allow-list, and a foreign one. They listen before authd starts, so
# no other server of this test can take their ports.
APPS_DIR=$(mktemp -d "${TMPDIR:-/tmp}/authd-apps.XXXXXX") || _harness_die "mktemp failed"
(node "$_BROWSER_DIR/apps.mjs" "$APPS_DIR/ports" "$$" </dev/null >"$APPS_DIR/apps.log" 2>&1 & echo $! >"$APPS_DIR/pid")
APPS_PID=$(<"$APPS_DIR/pid")
_apps_stop() {
  kill -TERM "$APPS_PID" 2>/dev/null || true
  rm -rf "$APPS_DIR"
}
at_exit _apps_stop
for ((i = 0; i < 100; i++)); do [[ -s $APPS_DIR/ports ]] && break; sleep 0.05; done
[[ -s $APPS_DIR/ports ]] || { cat "$APPS_DIR/apps.log" >&2; _harness_die "the stand-in apps did not start"; }
# shellcheck source=/dev/null
source "$APPS_DIR/ports"
export APP_PORT FOREIGN_PORT
export AUTHD_PORTAL_RETURN_ORIGINS="http://127.0.0.1:$APP_PORT"
# A real SMTP server (aiosmtpd) for the password reset by mail; the test
# reads the messages from $MAILDIR/box/new.
# shellcheck source=../blackbox/mail_lib.sh
source "$_BROWSER_DIR/../blackbox/mail_lib.sh"
smtp_pick && smtp_start || _harness_die "cannot start aiosmtpd"
export MAILDIR AUTHD_PASSWORD_FORGOT_TIME=50
stack_start

browser_step "pages"
browser_run pages.test.mjs

step "the login page with signup_mode = invite"
authd_stop
export AUTHD_SIGNUP_MODE=invite
authd_start || _harness_die "authd did not start again with AUTHD_SIGNUP_MODE=invite"
browser_run login_invite_mode.test.mjs
echo "screenshots: $SCREENSHOT_DIR"
finish

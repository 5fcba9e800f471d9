#!/usr/bin/env bash
# shellcheck source-path=SCRIPTDIR
# authd as OpenID provider in a real browser (issue 25): Debian's Chromium
# driven by npm playwright-core goes from /authorize through the portal's
# sign-in with a second factor and the consent page back to the application
# (oidc.test.mjs). CTest runs it as browser.oidc (label browser).
_BROWSER_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=../blackbox/harness.sh
source "$_BROWSER_DIR/../blackbox/harness.sh"
# shellcheck source=driver.sh
source "$_BROWSER_DIR/driver.sh"
need_tools oathtool node
_driver_install
export AUTHD_OIDC_PROVIDER=true
stack_start
browser_step "OpenID sign-in"
browser_run oidc.test.mjs
finish

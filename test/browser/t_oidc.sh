#!/usr/bin/env bash
# shellcheck source-path=SCRIPTDIR
# authd as OpenID provider in a real browser (issue 25): Debian's Chromium
# driven by npm playwright-core goes from /authorize through the portal's
# sign-in with a second factor and the consent page back to the application
# (oidc.test.mjs). CTest runs it as browser.oidc (label browser).
# shellcheck source=driver.sh
source "$(dirname "${BASH_SOURCE[0]}")/driver.sh"
need_tools oathtool
export AUTHD_OIDC_PROVIDER=true
stack_start
browser_step "OpenID sign-in"
browser_run oidc.test.mjs
finish

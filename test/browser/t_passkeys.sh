#!/usr/bin/env bash
# shellcheck source-path=SCRIPTDIR
# The second factor in a real browser (issue 19): Debian's Chromium driven by
# npm playwright-core with the DevTools protocol's virtual authenticator
# (WebAuthn.addVirtualAuthenticator: ctap2, internal, resident keys, user
# verification) registers a passkey on the account page and signs in with it
# through the portal, as second factor and password-less; the authenticator
# app (TOTP) is set up on the account page with codes from oathtool.
#
# WebAuthn refuses IP addresses as relying-party ids: the pages are opened at
# http://localhost:PORT (a secure context, like 127.0.0.1).
# CTest runs it as browser.passkeys (label browser).
# shellcheck source=driver.sh
source "$(dirname "${BASH_SOURCE[0]}")/driver.sh"
need_tools oathtool

export AUTHD_WEBAUTHN_RP_ID=localhost
export AUTHD_WEBAUTHN_ORIGINS='http://localhost:@PORT@'
export AUTHD_WEBAUTHN_USER_VERIFICATION=true
export AUTHD_PASSKEY_SIGNIN=true
stack_start

browser_step "passkeys"
browser_run passkeys.test.mjs
finish

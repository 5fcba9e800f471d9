# shellcheck shell=bash
# test/blackbox/oidc_rp.sh - sourced after harness.sh by the scripts that
# drive authd's OpenID provider with test/oidc's relying-party packages
# (openid-client, jose): installs them once (npm.sh), sets RP_DIR, and
# rp COMMAND ARGS... runs test/oidc/rp.mjs (its output and errors on stdout).
# shellcheck source=npm.sh
source "$(dirname "${BASH_SOURCE[0]}")/npm.sh"
RP_DIR=$SOURCE_DIR/test/oidc
npm_ci_once "$(basename "$0" .sh)" "$RP_DIR" openid-client
rp() { (cd "$RP_DIR" && NO_PROXY='*' node rp.mjs "$@") 2>&1; }

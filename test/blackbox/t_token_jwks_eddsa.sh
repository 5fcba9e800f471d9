#!/usr/bin/env bash
# token_algorithm = EdDSA: JWKS, independent verification (PyJWT, jose), tampering,
# wrong kid, alg switching, rotation and retirement. See jwks_suite.sh.
JWKS_ALG=EdDSA
source "$(dirname "$0")/jwks_suite.sh"

#!/usr/bin/env bash
# token_algorithm = ES256: JWKS, independent verification (PyJWT, jose), tampering,
# wrong kid, alg switching, rotation and retirement. See jwks_suite.sh.
JWKS_ALG=ES256
source "$(dirname "$0")/jwks_suite.sh"

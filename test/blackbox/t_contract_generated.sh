#!/usr/bin/env bash
# Requests generated from docs/openapi.yaml (test/docs/generated_requests.py,
# Hypothesis + jsonschema from Debian) against the live stack, with the
# optional features on: no answer is a 5xx the document does not name, and
# every answer has a documented status and matches its documented schema.
# Stops the document and the code drifting apart (an undocumented error, a
# changed shape) and finds inputs that crash or 500 a route.
source "$(dirname "${BASH_SOURCE[0]}")/harness.sh"
export AUTHD_REFRESH_TOKEN_TTL=3600
export AUTHD_TOKEN_ALGORITHM=EdDSA
export AUTHD_WEBAUTHN_RP_ID=localhost
export AUTHD_WEBAUTHN_ORIGINS=http://localhost
export AUTHD_PASSKEY_SIGNIN=true
stack_start

add_user contract-admin 'contract admin password' admin || fail "authctl add contract-admin"
signin contract-admin 'contract admin password'
ADMIN_TOKEN=$TOKEN
signup contract-user 'contract user password'
USER_TOKEN=$TOKEN
[[ -n $ADMIN_TOKEN && -n $USER_TOKEN ]] || fail "tokens for the generated requests"

if /usr/bin/python3 "$SOURCE_DIR/test/docs/generated_requests.py" "$SOURCE_DIR/docs/openapi.yaml" \
     "$BASE_URL" "$USER_TOKEN" "$ADMIN_TOKEN" "${CONTRACT_EXAMPLES:-15}"; then
  pass "generated requests: every answer documented, no undocumented 5xx"
else
  fail "generated requests: answers the document does not describe (above)"
fi
finish

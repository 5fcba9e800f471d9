#!/usr/bin/python3
# An independent verifier for authd's tokens: PyJWT (Debian python3-jwt),
# exactly as docs/tokens-and-keys.md tells a resource server to check a
# session token: the signature against the JWKS authd publishes (or, with
# HS256, the secret signing key), the algorithm pinned, iss, aud, exp, and
# typ "at+jwt". Run with /usr/bin/python3.
# Usage: verify.py JWKS_URL|secret:KEY_FILE TOKEN ISSUER AUDIENCE ALG [no-typ]
#   no-typ: leave out the typ check (to show what the other checks refuse alone).
# Prints "ok SUBJECT KID" (KID "-" without one) and exits 0, or
# "fail REASON" and exits 1.
import sys

import jwt

source, token, issuer, audience, alg = sys.argv[1:6]
check_typ = sys.argv[6:7] != ["no-typ"]
try:
    if source.startswith("secret:"):
        with open(source[len("secret:"):], "rb") as f:
            key = f.read()
    else:
        key = jwt.PyJWKClient(source, cache_keys=False).get_signing_key_from_jwt(token).key
    decoded = jwt.decode_complete(token, key, algorithms=[alg], issuer=issuer, audience=audience,
                                  options={"require": ["iss", "aud", "exp", "sub"]})
    if check_typ and decoded["header"].get("typ") != "at+jwt":
        raise jwt.InvalidTokenError("not an access token (typ)")
    print("ok", decoded["payload"]["sub"], decoded["header"].get("kid", "-"))
except Exception as e:  # every refusal is the same answer here
    print("fail", type(e).__name__)
    sys.exit(1)

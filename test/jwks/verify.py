#!/usr/bin/python3
# An independent verifier for authd's tokens: PyJWT (Debian python3-jwt)
# against the JWKS authd publishes. Run with /usr/bin/python3.
# Usage: verify.py JWKS_URL TOKEN ISSUER AUDIENCE ALG
# Prints "ok SUBJECT KID" and exits 0, or "fail REASON" and exits 1.
import sys

import jwt

jwks_url, token, issuer, audience, alg = sys.argv[1:6]
try:
    client = jwt.PyJWKClient(jwks_url, cache_keys=False)
    key = client.get_signing_key_from_jwt(token)
    claims = jwt.decode(token, key.key, algorithms=[alg], issuer=issuer, audience=audience,
                        options={"require": ["exp", "iat", "sub"]})
    print("ok", claims["sub"], jwt.get_unverified_header(token)["kid"])
except Exception as e:  # every refusal is the same answer here
    print("fail", type(e).__name__)
    sys.exit(1)

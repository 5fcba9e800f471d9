#!/usr/bin/python3
# An independent verifier for authd's tokens: PyJWT (Debian python3-jwt),
# exactly as docs/tokens-and-keys.md tells a resource server to check a
# session token: the signature against the JWKS authd publishes (or, with
# HS256, the secret signing key), the algorithm pinned, iss, aud, exp, and
# typ "at+jwt". Run with /usr/bin/python3.
# Usage: verify.py JWKS_URL|secret:KEY_FILE TOKEN|- ISSUER AUDIENCE ALG [no-typ]
#   -: the tokens on stdin, one a line, one answer a line.
#   no-typ: leave out the typ check (to show what the other checks refuse alone).
# Prints "ok SUBJECT KID" (KID "-" without one), or "fail REASON"; exits 1
# when a token failed.
import sys

import jwt

source, token_arg, issuer, audience, alg = sys.argv[1:6]
check_typ = sys.argv[6:7] != ["no-typ"]
keys = None
if source.startswith("secret:"):
    with open(source[len("secret:"):], "rb") as f:
        secret = f.read()
else:
    keys = jwt.PyJWKClient(source)


def verify(token):
    try:
        key = keys.get_signing_key_from_jwt(token).key if keys else secret
        claims = jwt.decode(token, key, algorithms=[alg], issuer=issuer, audience=audience,
                            options={"require": ["iss", "aud", "exp", "sub"]})
        # The header is signed: once decode() passed, this is the verified one.
        header = jwt.get_unverified_header(token)
        if check_typ and header.get("typ") != "at+jwt":
            raise jwt.InvalidTokenError("not an authd session token (typ)")
        print("ok", claims["sub"], header.get("kid", "-"))
        return True
    except Exception as e:  # every refusal is the same answer here
        print("fail", type(e).__name__)
        return False


tokens = sys.stdin.read().splitlines() if token_arg == "-" else [token_arg]
results = [verify(token) for token in tokens]
sys.exit(0 if all(results) else 1)

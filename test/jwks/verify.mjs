// An independent verifier for authd's tokens: npm `jose`, exactly as
// docs/tokens-and-keys.md tells a resource server to check a session token:
// the signature against the JWKS authd publishes (or, with HS256, the secret
// signing key), the algorithm pinned, iss, aud, exp, and typ "at+jwt".
// Usage: node verify.mjs JWKS_URL|secret:KEY_FILE TOKEN ISSUER AUDIENCE ALG [no-typ]
//   no-typ: leave out the typ check (to show what the other checks refuse alone).
// Prints "ok SUBJECT KID" (KID "-" without one) and exits 0, or "fail CODE" and exits 1.
import { readFileSync } from "node:fs";
import { createRemoteJWKSet, jwtVerify } from "jose";

const [source, token, issuer, audience, alg, mode] = process.argv.slice(2);
try {
  const key = source.startsWith("secret:") ? new Uint8Array(readFileSync(source.slice("secret:".length)))
                                           : createRemoteJWKSet(new URL(source));
  const { payload, protectedHeader } = await jwtVerify(token, key, {
    issuer, audience, algorithms: [alg], requiredClaims: ["exp", "sub"],
    ...(mode === "no-typ" ? {} : { typ: "at+jwt" }),
  });
  console.log(`ok ${payload.sub} ${protectedHeader.kid ?? "-"}`);
} catch (e) {
  console.log(`fail ${e.code || e.name}`);
  process.exit(1);
}

// An independent verifier for authd's tokens: npm `jose`, exactly as
// docs/tokens-and-keys.md tells a resource server to check a session token:
// the signature against the JWKS authd publishes (or, with HS256, the secret
// signing key), the algorithm pinned, iss, aud, exp, and typ "at+jwt".
// Usage: node verify.mjs JWKS_URL|secret:KEY_FILE TOKEN|- ISSUER AUDIENCE ALG [no-typ]
//   -: the tokens on stdin, one a line, one answer a line.
//   no-typ: leave out the typ check (to show what the other checks refuse alone).
// Prints "ok SUBJECT KID" (KID "-" without one), or "fail CODE"; exits 1
// when a token failed.
import { readFileSync } from "node:fs";
import { createRemoteJWKSet, jwtVerify } from "jose";

const [source, tokenArg, issuer, audience, alg, mode] = process.argv.slice(2);
const key = source.startsWith("secret:") ? new Uint8Array(readFileSync(source.slice("secret:".length)))
                                         : createRemoteJWKSet(new URL(source));
const tokens = tokenArg === "-" ? readFileSync(0, "utf8").split("\n").filter((line) => line !== "") : [tokenArg];
let failed = false;
for (const token of tokens) {
  try {
    const { payload, protectedHeader } = await jwtVerify(token, key, {
      issuer, audience, algorithms: [alg], requiredClaims: ["exp", "sub"],
      ...(mode === "no-typ" ? {} : { typ: "at+jwt" }),
    });
    console.log(`ok ${payload.sub} ${protectedHeader.kid ?? "-"}`);
  } catch (e) {
    console.log(`fail ${e.code || e.name}`);
    failed = true;
  }
}
process.exit(failed ? 1 : 0);

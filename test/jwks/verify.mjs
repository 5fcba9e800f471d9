// An independent verifier for authd's tokens: npm `jose` against the JWKS
// authd publishes. Usage: node verify.mjs JWKS_URL TOKEN ISSUER AUDIENCE ALG
// Prints "ok SUBJECT KID" and exits 0, or "fail CODE" and exits 1.
import { createRemoteJWKSet, jwtVerify } from "jose";

const [jwksUrl, token, issuer, audience, alg] = process.argv.slice(2);
try {
  const jwks = createRemoteJWKSet(new URL(jwksUrl));
  const { payload, protectedHeader } = await jwtVerify(token, jwks, {
    issuer, audience, algorithms: [alg], typ: "at+jwt",
  });
  console.log(`ok ${payload.sub} ${protectedHeader.kid}`);
} catch (e) {
  console.log(`fail ${e.code || e.name}`);
  process.exit(1);
}

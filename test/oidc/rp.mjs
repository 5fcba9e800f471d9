// A relying party nobody here wrote (npm openid-client) against authd as
// OpenID provider, for test/blackbox/t_oidc_provider.sh. The "browser" is
// the test's curl, so the flow is two commands:
//   node rp.mjs start ISSUER CLIENT_ID SECRET|- AUTH REDIRECT_URI SCOPE
//     discovery, PKCE, state, nonce -> {"url", "verifier", "state", "nonce"}
//   node rp.mjs start-par ...  the same, the parameters pushed to /par (RFC 9126):
//     the url carries client_id and request_uri only
//   node rp.mjs finish ISSUER CLIENT_ID SECRET|- AUTH REDIRECT_URI CALLBACK_URL VERIFIER STATE NONCE
//     the code grant (ID token checked: signature against the JWKS, iss, aud,
//     nonce, at_hash), UserInfo, a refresh -> JSON of what it got
//   node rp.mjs revoke|introspect ISSUER CLIENT_ID SECRET|- AUTH - TOKEN [HINT]
//     tokenRevocation (RFC 7009) -> {"revoked":true}, tokenIntrospection
//     (RFC 7662) -> the introspection response; a refusal -> {"error","status"}
//   node rp.mjs receive ISSUER CLIENT_IDS PORT OUT
//     a relying party's back-channel logout endpoint (OpenID Connect
//     Back-Channel Logout 1.0 §2.6, §2.8) on 127.0.0.1:PORT: every POST's
//     logout_token is verified with jose against the issuer's JWKS
//     (signature, alg, typ logout+jwt, iss, aud one of the comma-separated
//     CLIENT_IDS, iat, exp, jti not seen before, the back-channel logout
//     event, sub and sid, no nonce). An accepted token: a JSON line
//     {"aud","sub","sid","jti","typ","alg"} in OUT and 200; a refused one:
//     {"error"} in OUT and 400. With RECEIVE_HOLD=N in the environment the
//     first N accepted POSTs are never answered (their line has "held":true):
//     a relying party that hangs while the test kills the sender.
//   node rp.mjs device ISSUER CLIENT_ID SECRET|- AUTH - [SCOPE]
//     initiateDeviceAuthorization (RFC 8628) -> a line with the device
//     authorization response, then pollDeviceAuthorizationGrant until the
//     user answers -> a line {"claims","userinfo","scope","refresh_token"}
//     or {"error","status"}
//   node rp.mjs credentials ISSUER CLIENT_ID SECRET|- AUTH - [SCOPE]
//     clientCredentialsGrant (RFC 6749 §4.4) -> the token response; a refusal -> {"error","status"}
//   node rp.mjs keygen ALG KID PRIVATE_JWK_FILE JWKS_FILE
//     a key pair (ES256, RS256, EdDSA) by WebCrypto: the private JWK for
//     pkjwt:FILE, the public JWK Set to register (authctl client add --jwks)
//   node rp.mjs assertion PRIVATE_JWK_FILE CLIENT_ID AUD EXP_IN_SECONDS JTI [none]
//     a client assertion made by hand (for what openid-client never sends:
//     a replay, another aud, an expired one, alg none)
// AUTH: basic (client_secret_basic), post (client_secret_post), none (public),
// pkjwt:PRIVATE_JWK_FILE (private_key_jwt, openid-client's PrivateKeyJwt).
import * as client from "openid-client";
import * as jose from "jose";
import { appendFileSync, readFileSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";

const [command, issuer, clientId, secret, auth, redirectUri, ...rest] = process.argv.slice(2);

const algorithms = {
  ES256: { generate: { name: "ECDSA", namedCurve: "P-256" }, sign: { name: "ECDSA", hash: "SHA-256" } },
  RS256: { generate: { name: "RSASSA-PKCS1-v1_5", modulusLength: 2048, publicExponent: new Uint8Array([1, 0, 1]),
                       hash: "SHA-256" }, sign: { name: "RSASSA-PKCS1-v1_5" } },
  EdDSA: { generate: { name: "Ed25519" }, sign: { name: "Ed25519" } },
};

// The private JWK of a keygen file as a WebCrypto key, with its kid and alg.
async function privateKey(file) {
  const jwk = JSON.parse(readFileSync(file, "utf8"));
  const key = await crypto.subtle.importKey("jwk", jwk, algorithms[jwk.alg].generate, false, ["sign"]);
  return { key, kid: jwk.kid, alg: jwk.alg };
}

const b64u = (bytes) => Buffer.from(bytes).toString("base64url");

if (command === "keygen") {
  const [alg, kid, privateFile, jwksFile] = [issuer, clientId, secret, auth];
  const pair = await crypto.subtle.generateKey(algorithms[alg].generate, true, ["sign", "verify"]);
  const priv = { ...(await crypto.subtle.exportKey("jwk", pair.privateKey)), kid, alg };
  const { key_ops, ext, ...pub } = { ...(await crypto.subtle.exportKey("jwk", pair.publicKey)), kid, alg, use: "sig" };
  writeFileSync(privateFile, JSON.stringify(priv), { mode: 0o600 });
  writeFileSync(jwksFile, JSON.stringify({ keys: [pub] }));
  process.exit(0);
}
if (command === "assertion") {
  const [file, sub, aud, expIn, jti, alg] = [issuer, clientId, secret, auth, redirectUri, rest[0]];
  const { key, kid, alg: keyAlg } = await privateKey(file);
  const now = Math.floor(Date.now() / 1000);
  const header = alg === "none" ? { alg: "none" } : { alg: keyAlg, kid };
  const input = b64u(JSON.stringify(header)) + "." +
                b64u(JSON.stringify({ iss: sub, sub, aud, jti, iat: now, exp: now + Number(expIn) }));
  const signature = alg === "none" ? "" : b64u(await crypto.subtle.sign(algorithms[keyAlg].sign, key, Buffer.from(input)));
  console.log(input + "." + signature);
  process.exit(0);
}

if (command === "receive") {
  const [, , clientIds, port, out] = process.argv.slice(2);
  const jwks = jose.createRemoteJWKSet(new URL(`${issuer}/.well-known/jwks.json`));
  const event = "http://schemas.openid.net/event/backchannel-logout";
  const seen = new Set();
  let hold = Number(process.env.RECEIVE_HOLD ?? 0);
  async function verify(token) {
    const { payload, protectedHeader } = await jose.jwtVerify(token, jwks, {
      issuer, audience: clientIds.split(","), typ: "logout+jwt", algorithms: ["RS256", "ES256", "EdDSA"],
      requiredClaims: ["iat", "exp", "jti", "events", "sub", "sid"], maxTokenAge: "5 minutes",
    });
    const events = payload.events;
    if (typeof events !== "object" || events === null || typeof events[event] !== "object" || events[event] === null) {
      throw new Error("no back-channel logout event");
    }
    if ("nonce" in payload) throw new Error("a logout token must not carry nonce");
    if (seen.has(payload.jti)) throw new Error("jti replayed");
    seen.add(payload.jti);
    return { aud: payload.aud, sub: payload.sub, sid: payload.sid, jti: payload.jti,
             typ: protectedHeader.typ, alg: protectedHeader.alg };
  }
  createServer((request, response) => {
    let body = "";
    request.on("data", (chunk) => { body += chunk; });
    request.on("end", async () => {
      const type = request.headers["content-type"] ?? "";
      let line, status = 200;
      try {
        if (request.method !== "POST" || !type.startsWith("application/x-www-form-urlencoded")) {
          throw new Error(`${request.method} ${type}`);
        }
        const token = new URLSearchParams(body).get("logout_token");
        if (!token) throw new Error("no logout_token");
        line = await verify(token);
      } catch (e) {
        line = { error: String(e.code ?? "") + " " + String(e.message ?? e) };
        status = 400;
      }
      if (status === 200 && hold > 0) {
        hold -= 1;
        appendFileSync(out, JSON.stringify({ ...line, held: true }) + "\n");
        return;
      }
      appendFileSync(out, JSON.stringify(line) + "\n");
      response.writeHead(status, { "Cache-Control": "no-store" }).end();
    });
  }).listen(Number(port), "127.0.0.1");
  process.on("SIGTERM", () => process.exit(0));
} else {
  await main();
}

async function main() {

  async function configuration() {
    const clientAuth = auth === "basic" ? client.ClientSecretBasic(secret)
                     : auth === "post" ? client.ClientSecretPost(secret)
                     : auth.startsWith("pkjwt:") ? client.PrivateKeyJwt(await privateKey(auth.slice(6)))
                     : client.None();
    const config = await client.discovery(new URL(issuer), clientId, secret === "-" ? undefined : secret, clientAuth,
                                          { execute: [client.allowInsecureRequests] });
    // Check the ID token's signature against the JWKS too (not only TLS trust).
    client.enableNonRepudiationChecks(config);
    return config;
  }

  const config = await configuration();
  if (command === "start" || command === "start-par") {
    const [scope] = rest;
    const verifier = client.randomPKCECodeVerifier();
    const state = client.randomState();
    const nonce = client.randomNonce();
    const parameters = {
      redirect_uri: redirectUri, scope, state, nonce,
      code_challenge: await client.calculatePKCECodeChallenge(verifier), code_challenge_method: "S256",
    };
    const url = command === "start" ? client.buildAuthorizationUrl(config, parameters)
                                    : await client.buildAuthorizationUrlWithPAR(config, parameters);
    console.log(JSON.stringify({ url: url.href, verifier, state, nonce }));
  } else if (command === "finish") {
    const [callback, verifier, state, nonce] = rest;
    const tokens = await client.authorizationCodeGrant(config, new URL(callback),
                                                       { pkceCodeVerifier: verifier, expectedState: state, expectedNonce: nonce });
    const claims = tokens.claims();
    const userinfo = await client.fetchUserInfo(config, tokens.access_token, claims.sub);
    let refreshed = null;
    if (tokens.refresh_token) {
      const next = await client.refreshTokenGrant(config, tokens.refresh_token);
      const again = await client.fetchUserInfo(config, next.access_token, claims.sub);
      refreshed = { rotated: next.refresh_token !== tokens.refresh_token, sub: again.sub, refresh_token: next.refresh_token };
    }
    console.log(JSON.stringify({ claims, userinfo, refreshed, access_token: tokens.access_token,
                                 id_token: tokens.id_token, refresh_token: tokens.refresh_token ?? null }));
  } else if (command === "revoke" || command === "introspect") {
    const [token, hint] = rest;
    const parameters = hint ? { token_type_hint: hint } : undefined;
    try {
      if (command === "revoke") {
        await client.tokenRevocation(config, token, parameters);
        console.log(JSON.stringify({ revoked: true }));
      } else {
        console.log(JSON.stringify(await client.tokenIntrospection(config, token, parameters)));
      }
    } catch (e) {
      console.log(JSON.stringify({ error: e.error ?? e.code ?? String(e), status: e.status ?? e.response?.status ?? null }));
    }
  } else if (command === "device") {
    const [scope] = rest;
    const started = await client.initiateDeviceAuthorization(config, scope ? { scope } : {});
    console.log(JSON.stringify(started));
    try {
      const tokens = await client.pollDeviceAuthorizationGrant(config, started);
      const claims = tokens.claims() ?? null;
      const userinfo = claims ? await client.fetchUserInfo(config, tokens.access_token, claims.sub) : null;
      console.log(JSON.stringify({ claims, userinfo, scope: tokens.scope, refresh_token: tokens.refresh_token ?? null }));
    } catch (e) {
      console.log(JSON.stringify({ error: e.error ?? e.code ?? String(e), status: e.status ?? e.response?.status ?? null }));
    }
  } else if (command === "credentials") {
    const [scope] = rest;
    try {
      console.log(JSON.stringify(await client.clientCredentialsGrant(config, scope ? { scope } : {})));
    } catch (e) {
      console.log(JSON.stringify({ error: e.error ?? e.code ?? String(e), status: e.status ?? e.response?.status ?? null }));
    }
  } else {
    console.error(`unknown command ${command}`);
    process.exit(2);
  }
}

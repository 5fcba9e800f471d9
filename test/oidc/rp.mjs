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
// AUTH: basic (client_secret_basic), post (client_secret_post), none (public).
import * as client from "openid-client";

const [command, issuer, clientId, secret, auth, redirectUri, ...rest] = process.argv.slice(2);

async function configuration() {
  const clientAuth = auth === "basic" ? client.ClientSecretBasic(secret)
                   : auth === "post" ? client.ClientSecretPost(secret) : client.None();
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
} else {
  console.error(`unknown command ${command}`);
  process.exit(2);
}

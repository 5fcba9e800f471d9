// The checks of the OpenID Foundation conformance suite's Basic OP and Config
// OP plans (github.com/openid-certification/conformance-suite, Java) that look
// at what authd answers, for test/blackbox/t_oidc_conformance.sh: each check
// is named after the suite's condition class it follows. The suite itself
// needs Java, MongoDB and an internet-facing issuer; the test drives the
// flows (curl is the browser and the client, as the suite's own HTTP client
// is) and hands what came back to this script. jose (pinned with
// openid-client in package-lock.json) checks signatures.
//   node conformance.mjs discovery ISSUER DISCOVERY_JSON JWKS_JSON
//     OIDCCDiscoveryEndpointVerification's conditions (and the JWKS ones every
//     module runs at setup: ValidateJwksSequence, CheckForKeyIdInServerJWKs, ...)
//   node conformance.mjs idtoken ISSUER CLIENT_ID NONCE|- JWKS_JSON ID_TOKEN SCOPE [ACCESS_TOKEN]
//     PerformStandardIdTokenChecks, EnsureIdTokenContainsKid,
//     EnsureIdTokenSignatureIsRS256, ValidateAtHash (when at_hash is there),
//     EnsureIdTokenDoesNotContainName, EnsureIdTokenDoesNotContainNonRequestedClaims
//   node conformance.mjs userinfo USERINFO_JSON SCOPE ID_TOKEN_SUB
//     ValidateUserInfoStandardClaims, EnsureUserInfoContainsSub,
//     EnsureUserInfoUpdatedAtValid, VerifyUserInfoAndIdTokenInTokenEndpointSameSub,
//     VerifyScopesReturnedInUserInfoClaims (a warning in the suite)
//   node conformance.mjs rotatedkeys ORIGINAL_JWKS_JSON NEW_JWKS_JSON
//     OIDCCServerRotateKeys's conditions on the JWKS fetched again after the
//     rotation: the JWKS ones of its setup, VerifyNewJwksHasNewSigningKey,
//     VerifyNewJwksStillHasOldSigningKey (a warning in the suite)
//   node conformance.mjs batch < CHECKS
//     each line of CHECKS {"name", "command", "args", "warnings"} is one of the
//     above (one node start for the whole test, not one per check); prints per
//     line {"name", "failures", "warnings", "expected", "failing"}
// Each prints {"failures": [...], "warnings": [...], ...}: a failure is what
// the suite reports as FAILURE, a warning what it reports as WARNING.
import * as jose from "jose";
import { createHash } from "node:crypto";

const [command, ...args] = process.argv.slice(2);
let failures = [];
let warnings = [];
const fail = (condition, why) => failures.push(`${condition}: ${why}`);
const warn = (condition, why) => warnings.push(`${condition}: ${why}`);
const now = Math.floor(Date.now() / 1000);
const skew = 5 * 60;  // the suite's allowed clock skew
const isString = (v) => typeof v === "string";

// AbstractValidateOpenIdStandardClaims.STANDARD_CLAIMS: the type of each claim
// of OpenID Connect Core §5.1 that may appear (unknown claims are skipped).
const nonEmptyString = (v) => isString(v) && v.trim() !== "" && v.toLowerCase() !== "null";
const STANDARD_CLAIMS = {
  sub: nonEmptyString, name: nonEmptyString, given_name: nonEmptyString, family_name: nonEmptyString,
  middle_name: nonEmptyString, nickname: nonEmptyString, preferred_username: nonEmptyString,
  profile: nonEmptyString, picture: nonEmptyString, website: nonEmptyString, email: nonEmptyString,
  email_verified: (v) => typeof v === "boolean", gender: nonEmptyString,
  birthdate: (v) => nonEmptyString(v) && /^(\d{4}|\d{4}-\d{2}-\d{2})$/.test(v), zoneinfo: nonEmptyString,
  locale: nonEmptyString, phone_number: nonEmptyString, phone_number_verified: (v) => typeof v === "boolean",
  address: (v) => v !== null && typeof v === "object" && !Array.isArray(v) &&
    Object.entries(v).every(([k, x]) => !["formatted", "street_address", "locality", "region", "postal_code", "country"].includes(k) || nonEmptyString(x)),
  updated_at: (v) => typeof v === "number", _claim_names: (v) => v !== null && typeof v === "object",
  _claim_sources: (v) => v !== null && typeof v === "object", txn: nonEmptyString,
};
function standardClaims(condition, claims) {
  if (Object.keys(claims).length === 0) fail(condition, "no identity claims");
  for (const [name, value] of Object.entries(claims)) {
    if (STANDARD_CLAIMS[name] && !STANDARD_CLAIMS[name](value)) fail(condition, `${name} has the wrong type or is empty`);
  }
}
// AbstractUpdatedAtValid
function updatedAt(condition, claims) {
  if (claims.updated_at === undefined) return;
  if (claims.updated_at > now + skew) fail(condition, "updated_at in the future");
  if (claims.updated_at < 631152000) fail(condition, "updated_at before 1990");
}
// AbstractVerifyScopesReturnedInClaims.SCOPE_STANDARD_CLAIMS
const SCOPE_CLAIMS = {
  openid: ["sub"],
  profile: ["name", "given_name", "family_name", "middle_name", "nickname", "profile", "picture", "website", "gender",
            "birthdate", "zoneinfo", "locale", "updated_at", "preferred_username"],
  email: ["email", "email_verified"], address: ["address"], phone: ["phone_number", "phone_number_verified"],
  offline_access: [],
};
const words = (text) => text.split(" ").filter(Boolean);

// RFC 8414's metadata, as the suite's json-schemas/rfc8414/oauth_authorization_server_metadata.json
// types it (ValidateServerMetadataAgainstSchema; a key it lacks is
// CheckForUnexpectedParametersInServerMetadata's warning).
const METADATA_TYPES = {
  issuer: "string", authorization_endpoint: "string", token_endpoint: "string", jwks_uri: "string",
  registration_endpoint: "string", scopes_supported: "array", response_types_supported: "array",
  response_modes_supported: "array", grant_types_supported: "array", token_endpoint_auth_methods_supported: "array",
  token_endpoint_auth_signing_alg_values_supported: "array", service_documentation: "string",
  ui_locales_supported: "array", op_policy_uri: "string", op_tos_uri: "string", revocation_endpoint: "string",
  revocation_endpoint_auth_methods_supported: "array", revocation_endpoint_auth_signing_alg_values_supported: "array",
  introspection_endpoint: "string", introspection_endpoint_auth_methods_supported: "array",
  introspection_endpoint_auth_signing_alg_values_supported: "array", code_challenge_methods_supported: "array",
  userinfo_endpoint: "string", end_session_endpoint: "string", check_session_iframe: "string",
  subject_types_supported: "array", id_token_signing_alg_values_supported: "array",
  id_token_encryption_alg_values_supported: "array", id_token_encryption_enc_values_supported: "array",
  userinfo_signing_alg_values_supported: "array", userinfo_encryption_alg_values_supported: "array",
  userinfo_encryption_enc_values_supported: "array", request_object_signing_alg_values_supported: "array",
  request_object_encryption_alg_values_supported: "array", request_object_encryption_enc_values_supported: "array",
  display_values_supported: "array", claim_types_supported: "array", claims_supported: "array",
  claims_locales_supported: "array", claims_parameter_supported: "boolean", request_parameter_supported: "boolean",
  request_uri_parameter_supported: "boolean", require_request_uri_registration: "boolean",
  acr_values_supported: "array", frontchannel_logout_supported: "boolean",
  frontchannel_logout_session_supported: "boolean", backchannel_logout_supported: "boolean",
  backchannel_logout_session_supported: "boolean", dpop_signing_alg_values_supported: "array",
  pushed_authorization_request_endpoint: "string", require_pushed_authorization_requests: "boolean",
  authorization_response_iss_parameter_supported: "boolean", device_authorization_endpoint: "string",
  require_signed_request_object: "boolean", prompt_values_supported: "array", mtls_endpoint_aliases: "object",
  tls_client_certificate_bound_access_tokens: "boolean", jwks: "object", signed_metadata: "string",
  backchannel_authentication_endpoint: "string", backchannel_token_delivery_modes_supported: "array",
  backchannel_authentication_request_signing_alg_values_supported: "array",
  backchannel_user_code_parameter_supported: "boolean", authorization_details_types_supported: "array",
};
const typeOf = (v) => (Array.isArray(v) ? "array" : v === null ? "null" : typeof v);

// AbstractJsonUriIsValidAndHttps
function httpsUrl(condition, name, value) {
  if (!isString(value)) return fail(condition, `${name} is missing or not a string`);
  let url;
  try { url = new URL(value); } catch { return fail(condition, `${name} is not a URL: ${value}`); }
  if (url.protocol !== "https:") fail(condition, `${name} is not https: ${value}`);
}
// AbstractValidateJsonArray: an array holding at least `minimum` of `values`
function arrayWith(condition, metadata, name, values, minimum) {
  const array = metadata[name];
  if (!Array.isArray(array)) return fail(condition, `${name} is not an array`);
  if (values.filter((v) => array.includes(v)).length < minimum) fail(condition, `${name} lacks ${values.join("|")}`);
}

// ValidateJwksSequence, CheckForKeyIdInServerJWKs, CheckDistinctKeyIdValueInServerJWKs, CheckServerKeysIsValid
async function checkJwks(jwks) {
  if (!jwks || !Array.isArray(jwks.keys) || jwks.keys.length === 0) return fail("ValidateJwksStructure", "no keys array");
  const kids = new Set();
  for (const key of jwks.keys) {
    for (const secret of ["d", "p", "q", "dp", "dq", "qi", "k", "oth"]) {
      if (key[secret] !== undefined) fail("EnsureJwksHasNoPrivateOrSymmetricKeyMaterial", `key ${key.kid} has ${secret}`);
    }
    if (!isString(key.kty)) fail("ValidateJwksStructure", "a key without kty");
    if (!isString(key.kid) || key.kid === "") fail("CheckForKeyIdInServerJWKs", "a key without kid");
    else if (kids.has(key.kid)) fail("CheckDistinctKeyIdValueInServerJWKs", `kid ${key.kid} twice`);
    kids.add(key.kid);
    if (key.use !== undefined && key.use !== "sig" && key.use !== "enc") fail("ValidateJwksStructure", `use ${key.use}`);
    try { await jose.importJWK(key, key.alg ?? (key.kty === "RSA" ? "RS256" : key.kty === "OKP" ? "EdDSA" : "ES256")); }
    catch (e) { fail("ParseUsableJwksKeys", `key ${key.kid}: ${e.message}`); }
  }
}

async function discovery([issuer, metadataText, jwksText]) {
  const metadata = JSON.parse(metadataText);
  const discoveryUrl = `${issuer}/.well-known/openid-configuration`;
  // OIDCCCheckDiscEndpointResponseTypesSupported
  arrayWith("OIDCCCheckDiscEndpointResponseTypesSupported", metadata, "response_types_supported",
            ["code", "code id_token", "id_token", "token id_token", "code id_token token", "code token"], 1);
  // CheckDiscEndpointDiscoveryUrl: https, ends in /.well-known/openid-configuration
  httpsUrl("CheckDiscEndpointDiscoveryUrl", "discoveryUrl", discoveryUrl);
  // CheckDiscEndpointIssuer: the issuer is where the document was fetched from
  if (!isString(metadata.issuer) || metadata.issuer.replace(/\/$/, "") !== issuer.replace(/\/$/, "")) {
    fail("CheckDiscEndpointIssuer", `issuer ${metadata.issuer} is not ${issuer}`);
  }
  // CheckDiscEndpointIssuerIsValidUrl (RFC 8414 §2): https, a host, no query, fragment or userinfo
  try {
    const url = new URL(metadata.issuer);
    if (url.protocol !== "https:" || !url.hostname || url.search || url.hash || url.username || url.password ||
        metadata.issuer.includes("?") || metadata.issuer.includes("#")) {
      fail("CheckDiscEndpointIssuerIsValidUrl", `issuer ${metadata.issuer}`);
    }
  } catch { fail("CheckDiscEndpointIssuerIsValidUrl", `issuer ${metadata.issuer} is no URL`); }
  // ValidateServerMetadataAgainstSchema / CheckForUnexpectedParametersInServerMetadata
  for (const [name, value] of Object.entries(metadata)) {
    const type = METADATA_TYPES[name];
    if (!type) { warn("CheckForUnexpectedParametersInServerMetadata", name); continue; }
    if (typeOf(value) !== type) fail("ValidateServerMetadataAgainstSchema", `${name} is ${typeOf(value)}, not ${type}`);
    if (type === "array" && name.endsWith("_supported") && !value.every(isString)) {
      fail("ValidateServerMetadataAgainstSchema", `${name} holds a non-string`);
    }
  }
  arrayWith("CheckDiscEndpointSubjectTypesSupported", metadata, "subject_types_supported", ["public", "pairwise"], 1);
  arrayWith("OIDCCCheckDiscEndpointIdTokenSigningAlgValuesSupported", metadata, "id_token_signing_alg_values_supported", ["RS256"], 1);
  if (metadata.userinfo_signing_alg_values_supported !== undefined) {
    arrayWith("OIDCCCheckDiscEndpointUserinfoSigningAlgValuesSupported", metadata, "userinfo_signing_alg_values_supported", [], 0);
  }
  httpsUrl("CheckDiscEndpointAuthorizationEndpoint", "authorization_endpoint", metadata.authorization_endpoint);
  httpsUrl("CheckDiscEndpointTokenEndpoint", "token_endpoint", metadata.token_endpoint);
  if (metadata.userinfo_endpoint === undefined) warn("CheckDiscEndpointUserinfoEndpoint", "no userinfo_endpoint");
  else httpsUrl("CheckDiscEndpointUserinfoEndpoint", "userinfo_endpoint", metadata.userinfo_endpoint);
  if (metadata.registration_endpoint !== undefined) {
    httpsUrl("CheckDiscEndpointRegistrationEndpoint", "registration_endpoint", metadata.registration_endpoint);
  }
  httpsUrl("CheckJwksUri", "jwks_uri", metadata.jwks_uri);
  await checkJwks(JSON.parse(jwksText));
  // CheckDiscEndpointRequestObjectSigningAlgValuesSupportedIncludesRS256 (only when listed; a warning)
  if (metadata.request_object_signing_alg_values_supported !== undefined &&
      !metadata.request_object_signing_alg_values_supported.includes("RS256")) {
    warn("CheckDiscEndpointRequestObjectSigningAlgValuesSupportedIncludesRS256", "RS256 missing");
  }
  if (metadata.claims_supported === undefined) warn("OIDCCCheckDiscEndpointClaimsSupported", "no claims_supported");
  else if (!Array.isArray(metadata.claims_supported)) warn("OIDCCCheckDiscEndpointClaimsSupported", "not an array");
  // OIDCCCheckDiscEndpointGrantTypesSupported: if present, a non-empty array
  if (metadata.grant_types_supported !== undefined &&
      (!Array.isArray(metadata.grant_types_supported) || metadata.grant_types_supported.length === 0)) {
    fail("OIDCCCheckDiscEndpointGrantTypesSupported", "not a non-empty array");
  }
  if (metadata.scopes_supported === undefined) warn("CheckDiscEndpointScopesSupportedContainsOpenId", "no scopes_supported");
  else arrayWith("CheckDiscEndpointScopesSupportedContainsOpenId", metadata, "scopes_supported", ["openid"], 1);
  // CheckDiscEndpointScopesSupportedSyntax: RFC 6749 A.4 scope-tokens
  for (const scope of metadata.scopes_supported ?? []) {
    if (!/^[\x21\x23-\x5B\x5D-\x7E]+$/.test(scope)) fail("CheckDiscEndpointScopesSupportedSyntax", scope);
  }
  // CheckDiscEndpointLocalesSyntax: BCP 47 tags (a syntax check; the suite also looks up the IANA registry)
  for (const name of ["ui_locales_supported", "claims_locales_supported"]) {
    for (const tag of metadata[name] ?? []) {
      if (!/^[A-Za-z]{2,8}(-[A-Za-z0-9]{1,8})*$/.test(tag)) fail("CheckDiscEndpointLocalesSyntax", `${name}: ${tag}`);
    }
  }
  // CheckDiscEndpointAllEndpointsAreHttps: every *_endpoint
  for (const name of Object.keys(metadata).filter((n) => n.endsWith("_endpoint"))) {
    httpsUrl("CheckDiscEndpointAllEndpointsAreHttps", name, metadata[name]);
  }
  // EnsureServerConfigurationCodeChallengeMethodsSupportedIsAnArray
  if (metadata.code_challenge_methods_supported !== undefined && metadata.code_challenge_methods_supported.length) {
    arrayWith("EnsureServerConfigurationCodeChallengeMethodsSupportedIsAnArray", metadata,
              "code_challenge_methods_supported", ["S256", "plain"], 1);
  }
  return {};
}

async function idtoken([issuer, clientId, nonce, jwksText, token, scope, accessToken]) {
  const header = jose.decodeProtectedHeader(token);
  const claims = jose.decodeJwt(token);
  // EnsureIdTokenContainsKid (oidcc-idtoken-signature's; OIDCC 10.1), EnsureIdTokenSignatureIsRS256
  if (!isString(header.kid) || header.kid === "") fail("EnsureIdTokenContainsKid", "no kid");
  if (header.alg !== "RS256") fail("EnsureIdTokenSignatureIsRS256", `alg ${header.alg}`);
  // ValidateIdToken
  if (claims.iss !== issuer) fail("ValidateIdToken", `iss ${claims.iss} is not ${issuer}`);
  const aud = Array.isArray(claims.aud) ? claims.aud : [claims.aud];
  if (!aud.includes(clientId)) fail("ValidateIdToken", `aud ${claims.aud} lacks ${clientId}`);
  if (typeof claims.exp !== "number") fail("ValidateIdToken", "no exp");
  else if (claims.exp < now - skew) fail("ValidateIdToken", "expired");
  else if (claims.exp > now + 50 * 365 * 86400) fail("ValidateIdToken", "exp over 50 years away (milliseconds?)");
  if (typeof claims.iat !== "number") fail("ValidateIdToken", "no iat");
  else if (claims.iat > now + skew || claims.iat < now - skew) fail("ValidateIdToken", "iat not within 5 minutes");
  if (claims.auth_time !== undefined) {
    if (typeof claims.auth_time !== "number") fail("ValidateIdToken", "auth_time is not a number");
    if (claims.auth_time < now - 365 * 86400 || claims.auth_time > now + skew) fail("ValidateIdToken", "auth_time out of range");
  }
  if (claims.acr !== undefined && (!isString(claims.acr) || claims.acr === "")) {
    fail("ValidateIdToken", "acr is empty or not a string");  // ValidateIdTokenACRClaimAgainstRequest: a string
  }
  // ValidateIdTokenStandardClaims: the identity claims left once the ID-token ones are set aside
  const identity = { ...claims };
  for (const name of ["iss", "aud", "exp", "iat", "auth_time", "nonce", "acr", "amr", "azp", "c_hash", "at_hash",
                      "s_hash", "jti", "nbf", "verified_claims"]) delete identity[name];
  standardClaims("ValidateIdTokenStandardClaims", identity);
  // ValidateIdTokenNonce: the request's nonce, or none when the request had none
  const expected = nonce === "-" ? undefined : nonce;
  if (claims.nonce !== expected) fail("ValidateIdTokenNonce", `nonce ${claims.nonce} is not ${expected}`);
  // ValidateIdTokenSignature: the JWKS key with that kid (and kty, alg, use) verifies it
  const jwks = JSON.parse(jwksText);
  const matching = jwks.keys.filter((k) => k.kid === header.kid && (k.alg === undefined || k.alg === header.alg) &&
                                          (k.use === undefined || k.use === "sig"));
  if (matching.length !== 1) fail("ValidateIdTokenSignature", `${matching.length} keys match kid ${header.kid}`);
  else {
    try { await jose.compactVerify(token, await jose.importJWK(matching[0], header.alg)); }
    catch (e) { fail("ValidateIdTokenSignature", e.message); }
  }
  // CheckForSubjectInIdToken: at most 255 printable ASCII characters
  if (!isString(claims.sub) || !/^[\x20-\x7E]{1,255}$/.test(claims.sub)) fail("CheckForSubjectInIdToken", `sub ${claims.sub}`);
  updatedAt("EnsureIdTokenUpdatedAtValid", claims);
  // ValidateAtHash (optional at the token endpoint, right when present): the left half of SHA-256
  if (claims.at_hash !== undefined) {
    const digest = createHash("sha256").update(accessToken ?? "").digest();
    if (claims.at_hash !== jose.base64url.encode(digest.subarray(0, 16))) fail("ValidateAtHash", "at_hash does not match");
  }
  if (claims.c_hash !== undefined) fail("ValidateCHash", "c_hash in a code-flow token-endpoint ID token is not checked here");
  // EnsureIdTokenDoesNotContainName, EnsureIdTokenDoesNotContainNonRequestedClaims (warnings)
  if (claims.name !== undefined) warn("EnsureIdTokenDoesNotContainName", "name in the ID token");
  if (words(scope).includes("email") && claims.email !== undefined) {
    warn("EnsureIdTokenDoesNotContainEmailForScopeEmail", "email in the ID token");
  }
  const allowed = new Set(["iss", "sub", "aud", "exp", "iat", "auth_time", "nonce", "acr", "amr", "azp", "at_hash",
                           "c_hash", "nbf", "jti", "sid", "s_hash", "openbanking_intent_id", "txn"]);
  if (words(scope).includes("openid")) for (const s of words(scope)) for (const c of SCOPE_CLAIMS[s] ?? []) allowed.add(c);
  for (const name of Object.keys(claims)) {
    if (!allowed.has(name)) warn("EnsureIdTokenDoesNotContainNonRequestedClaims", name);
  }
  return { claims, header };
}

async function userinfo([bodyText, scope, idTokenSub]) {
  const body = JSON.parse(bodyText);
  standardClaims("ValidateUserInfoStandardClaims", body);
  if (!isString(body.sub) || body.sub === "") fail("EnsureUserInfoContainsSub", "no sub");
  updatedAt("EnsureUserInfoUpdatedAtValid", body);
  // EnsureMemberValuesInClaimNameReferenceToMemberNamesInClaimSources
  for (const source of Object.values(body._claim_names ?? {})) {
    if (!(source in (body._claim_sources ?? {}))) fail("EnsureMemberValuesInClaimNameReferenceToMemberNamesInClaimSources", source);
  }
  if (body.sub !== idTokenSub) fail("VerifyUserInfoAndIdTokenInTokenEndpointSameSub", `${body.sub} is not ${idTokenSub}`);
  const missing = words(scope).flatMap((s) => SCOPE_CLAIMS[s] ?? []).filter((c) => !(c in body));
  if (missing.length) warn("VerifyScopesReturnedInUserInfoClaims", `missing ${missing.join(" ")}`);
  if (words(scope).includes("email") && body.name !== undefined && !words(scope).includes("profile")) {
    warn("EnsureUserInfoDoesNotContainName", "name without the profile scope");
  }
  return {};
}

// AbstractCompareJwks: the keys with use sig or no use, compared as their
// JSON (the suite compares JSON objects).
const signingKeys = (jwks) => jwks.keys.filter((k) => k.use === undefined || k.use === "sig");
const canonical = (key) => JSON.stringify(Object.keys(key).sort().map((name) => [name, key[name]]));

async function rotatedkeys([originalText, latestText]) {
  const latest = JSON.parse(latestText);
  await checkJwks(latest);
  const original = signingKeys(JSON.parse(originalText));
  const now = signingKeys(latest);
  // VerifyNewJwksHasNewSigningKey: a key (its required members and kid) not in
  // the original set, whose kid and whose n (RSA) or x (EC) no original key has
  const required = { RSA: ["e", "kty", "n"], EC: ["crv", "kty", "x", "y"], OKP: ["crv", "kty", "x"] };
  const publicPart = (k) => canonical(Object.fromEntries([...(required[k.kty] ?? ["kty"]), "kid"].map((m) => [m, k[m]])));
  const before = new Set(original.map(publicPart));
  const fresh = now.filter((k) => !before.has(publicPart(k)));
  if (fresh.length === 0) fail("VerifyNewJwksHasNewSigningKey", "no new key with use sig (or no use)");
  for (const key of fresh) {
    if (original.some((k) => k.kid === key.kid)) fail("VerifyNewJwksHasNewSigningKey", `new key reuses kid ${key.kid}`);
    const field = key.kty === "RSA" ? "n" : key.kty === "EC" ? "x" : undefined;
    if (!field) fail("VerifyNewJwksHasNewSigningKey", `unknown key type ${key.kty}`);
    else if (original.some((k) => k[field] === key[field])) fail("VerifyNewJwksHasNewSigningKey", `new key reuses ${field}`);
  }
  // VerifyNewJwksStillHasOldSigningKey (a warning): an original key still published
  const after = new Set(now.map(canonical));
  if (!original.some((k) => after.has(canonical(k)))) {
    warn("VerifyNewJwksStillHasOldSigningKey", "none of the original signing keys is still published");
  }
  return {};
}

const commands = { discovery, idtoken, userinfo, rotatedkeys };
async function run(name, params) {
  failures = [];
  warnings = [];
  try {
    return await commands[name](params);
  } catch (e) {
    fail(name, `cannot check: ${e.message}`);
    return {};
  }
}
if (command === "batch") {
  const input = await new Promise((resolve) => {
    let text = "";
    process.stdin.on("data", (chunk) => { text += chunk; }).on("end", () => resolve(text));
  });
  for (const line of input.split("\n").filter(Boolean)) {
    const check = JSON.parse(line);
    await run(check.command, check.args);
    console.log(JSON.stringify({ name: check.name, failures, warnings, expected: check.warnings ?? [], failing: check.failing ?? "" }));
  }
} else if (commands[command]) {
  const extra = await run(command, args);
  console.log(JSON.stringify({ failures, warnings, ...extra }));
} else {
  console.error(`unknown command ${command}`);
  process.exit(2);
}

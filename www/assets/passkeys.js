// WebAuthn in the pages: authd sends the options with binary members as
// base64url strings ({"publicKey": {...}}); navigator.credentials wants
// ArrayBuffers, and the credential goes back as base64url strings again.

export function supported() {
  return typeof window.PublicKeyCredential === "function" && !!navigator.credentials;
}

function fromBase64url(text) {
  const base64 = text.replace(/-/g, "+").replace(/_/g, "/") + "===".slice((text.length + 3) % 4);
  const binary = atob(base64);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes.buffer;
}

function toBase64url(buffer) {
  const bytes = new Uint8Array(buffer);
  let binary = "";
  for (const b of bytes) binary += String.fromCharCode(b);
  return btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

function credentialList(list) {
  return (Array.isArray(list) ? list : []).map((c) => ({ ...c, id: fromBase64url(c.id) }));
}

// navigator.credentials.create() with authd's creation options; the credential as JSON.
export async function create(options) {
  const publicKey = {
    ...options,
    challenge: fromBase64url(options.challenge),
    user: { ...options.user, id: fromBase64url(options.user.id) },
    excludeCredentials: credentialList(options.excludeCredentials),
  };
  const credential = await navigator.credentials.create({ publicKey });
  return {
    id: credential.id,
    type: credential.type,
    response: {
      clientDataJSON: toBase64url(credential.response.clientDataJSON),
      attestationObject: toBase64url(credential.response.attestationObject),
    },
  };
}

// navigator.credentials.get() with authd's request options; the assertion as JSON.
export async function get(options) {
  const publicKey = {
    ...options,
    challenge: fromBase64url(options.challenge),
    allowCredentials: credentialList(options.allowCredentials),
  };
  const credential = await navigator.credentials.get({ publicKey });
  const response = credential.response;
  return {
    id: credential.id,
    type: credential.type,
    response: {
      clientDataJSON: toBase64url(response.clientDataJSON),
      authenticatorData: toBase64url(response.authenticatorData),
      signature: toBase64url(response.signature),
      userHandle: response.userHandle ? toBase64url(response.userHandle) : null,
    },
  };
}

// Why a ceremony did not happen, in words for the page.
export function failureText(error) {
  if (error && error.name === "NotAllowedError") return "The passkey request was cancelled or timed out.";
  if (error && error.name === "InvalidStateError") return "This passkey is registered already.";
  return `The passkey did not work: ${error && error.message ? error.message : error}`;
}

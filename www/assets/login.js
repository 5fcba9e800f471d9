// The sign-in portal (/login): sign in, sign up, third-party sign-in, and the
// way back to the address in ?rd= (or ?return_to=), which the server checks
// (GET /auth/return) against its allow-list.
import { call, signIn, signOut, whoAmI } from "./api.js";
import { clearErrors, fieldFor, setBusy, showError, values } from "./forms.js";
import { failureText, get as getPasskey, supported as passkeysSupported } from "./passkeys.js";

// The return address survives the trip to a third-party provider in
// sessionStorage (this tab only). It is no secret: the token itself never
// leaves the HttpOnly cookie.
const RETURN_KEY = "authd.return";
const params = new URLSearchParams(location.search);
const $ = (id) => document.getElementById(id);
const signinForm = $("signin-form");
const signupForm = $("signup-form");
const mfaForm = $("mfa-form");
// The pending sign-in's single-use mfa_token (POST /signin answered 401 MFA
// Required): only in this variable, never stored.
let mfaToken = "";

const PROVIDER_LABELS = { github: "GitHub", gitlab: "GitLab", google: "Google", microsoft: "Microsoft",
                          azure: "Microsoft", keycloak: "Keycloak", auth0: "Auth0", okta: "Okta" };

// An application asked for a fresh sign-in (OpenID prompt=login or max_age,
// GET /authorize sends ?prompt=login): the form even over a session, which
// stays until the new sign-in replaces it.
const freshSignIn = params.get("prompt") === "login";

function requestedReturn() {
  return params.get("rd") || params.get("return_to") || "";
}

// The server decides where "back" is: an allowed address or its safe default.
function returnUrl(rd) {
  return rd ? `/auth/return?rd=${encodeURIComponent(rd)}` : "/account";
}

function show(view, focusTarget) {
  for (const id of ["signin", "signup", "signed-in", "mfa"]) $(id).hidden = id !== view;
  if (focusTarget) focusTarget.focus();
}

function notice(text) {
  $("notice").textContent = text;
}

// "Continue" appears when there is somewhere to go back to.
function showSignedIn(username) {
  const rd = requestedReturn();
  $("signed-in-user").textContent = username;
  $("continue").href = returnUrl(rd);
  $("continue").hidden = !rd;
  $("account-link").className = rd ? "button secondary" : "button";
  show("signed-in");
  (rd ? $("continue") : $("account-link")).focus();
}

// After any successful sign-in: back where the user came from, if anywhere.
function finish(username) {
  const rd = requestedReturn() || sessionStorage.getItem(RETURN_KEY) || "";
  sessionStorage.removeItem(RETURN_KEY);
  if (rd) {
    location.assign(returnUrl(rd));
    return;
  }
  notice("");
  showSignedIn(username);
}

async function onSignIn(event) {
  event.preventDefault();
  clearErrors(signinForm);
  notice("");
  const { username, password } = values(signinForm);
  if (!username) return showError(signinForm, "Enter your username.", signinForm.elements.username);
  if (!password) return showError(signinForm, "Enter your password.", signinForm.elements.password);
  setBusy(signinForm, true, "Signing in…");
  const result = await signIn(username, password);
  setBusy(signinForm, false);
  if (result.ok) {
    signinForm.reset();
    finish(result.data && result.data.user ? result.data.user.username : username);
    return;
  }
  if (result.status === 401 && result.data && result.data.error === "MFA Required") {
    signinForm.reset();
    askSecondFactor(result.data);
    return;
  }
  const wrong = result.data && result.data.error === "Invalid Login";
  showError(signinForm, wrong ? "Invalid Login: the username or the password is wrong." : result.message);
  signinForm.elements.password.value = "";
  signinForm.elements.password.focus();
}

// The second step: a code (TOTP or recovery code) or the passkey.
function askSecondFactor(data) {
  mfaToken = String(data.mfa_token || "");
  const methods = Array.isArray(data.methods) ? data.methods : [];
  const codes = methods.includes("totp") || methods.includes("recovery");
  mfaForm.hidden = !codes;
  mfaForm.querySelector("label[for=mfa-code]").textContent = methods.includes("totp")
    ? "Code from your authenticator app, or a recovery code" : "Recovery code";
  $("mfa-passkey").hidden = !(methods.includes("webauthn") && passkeysSupported());
  $("mfa-passkey").querySelector(".divider").hidden = !codes;
  clearErrors(mfaForm);
  show("mfa", codes ? mfaForm.elements.code : $("mfa-passkey-button"));
}

async function secondStep(body) {
  const result = await call("POST", "/signin/mfa", { mfa_token: mfaToken, ...body });
  if (result.ok) {
    mfaToken = "";
    mfaForm.reset();
    finish(result.data && result.data.user ? result.data.user.username : "");
    return;
  }
  // A spent or expired mfa_token cannot be retried: back to the password.
  if (/mfa_token/.test(result.message)) {
    mfaToken = "";
    show("signin", signinForm.elements.username);
    showError(signinForm, "The sign-in took too long or was used up. Please sign in again.");
    return;
  }
  showError(mfaForm, result.status === 401 ? "That did not work: the code is wrong or was used already." : result.message,
            mfaForm.hidden ? null : mfaForm.elements.code);
  if (mfaForm.hidden) $("mfa-lead").textContent = result.message;
}

async function onSecondFactorCode(event) {
  event.preventDefault();
  clearErrors(mfaForm);
  const { code } = values(mfaForm);
  if (!code.trim()) return showError(mfaForm, "Enter the code.", mfaForm.elements.code);
  setBusy(mfaForm, true, "Verifying…");
  await secondStep({ code: code.trim() });
  setBusy(mfaForm, false);
}

async function onSecondFactorPasskey() {
  clearErrors(mfaForm);
  const options = await call("POST", "/signin/mfa/webauthn/begin", { mfa_token: mfaToken });
  if (!options.ok) return showError(mfaForm, options.message);
  let assertion;
  try {
    assertion = await getPasskey(options.data.publicKey);
  } catch (error) {
    return showError(mfaForm, failureText(error));
  }
  await secondStep({ webauthn: assertion });
}

async function onPasskeySignIn() {
  clearErrors(signinForm);
  notice("");
  const options = await call("POST", "/signin/passkey/begin");
  if (!options.ok) return showError(signinForm, options.message);
  let assertion;
  try {
    assertion = await getPasskey(options.data.publicKey);
  } catch (error) {
    return showError(signinForm, failureText(error));
  }
  const result = await call("POST", "/signin/passkey/finish", assertion);
  if (result.ok) {
    finish(result.data && result.data.user ? result.data.user.username : "");
    return;
  }
  showError(signinForm, result.message);
}

async function offerPasskeySignIn() {
  if (!passkeysSupported()) return;
  const result = await call("GET", "/signin/passkey");
  $("passkey-signin").hidden = !(result.ok && result.data && result.data.enabled === true);
}

async function onSignUp(event) {
  event.preventDefault();
  clearErrors(signupForm);
  notice("");
  const body = values(signupForm);
  setBusy(signupForm, true, "Creating your account…");
  const result = await call("POST", "/signup", {
    username: body.username, password: body.password, fullname: body.fullname, email: body.email,
  });
  setBusy(signupForm, false);
  if (result.ok) {
    signupForm.reset();
    finish(result.data && result.data.user ? result.data.user.username : body.username);
    return;
  }
  showError(signupForm, result.message, fieldFor(signupForm, result));
}

async function onSignOut() {
  $("signout-error").textContent = "";
  const result = await signOut();
  if (result.ok) {
    show("signin", signinForm.elements.username);
    notice("You are signed out.");
    offerPasskeySignIn();
    return;
  }
  $("signout-error").textContent = result.status === 404
    ? "Signing out is not available on this server yet (POST /signout)."
    : result.message;
}

async function loadProviders() {
  const result = await call("GET", "/auth/providers");
  if (!result.ok || !result.data || !Array.isArray(result.data.providers)) return;
  // signup_mode = invite: POST /signup is closed, so no "Create an account".
  const closed = result.data.signup === "invite";
  $("signup-offer").hidden = closed;
  $("signup-closed").hidden = !closed;
  const list = $("provider-list");
  list.replaceChildren();
  for (const provider of result.data.providers) {
    const url = String(provider.login_url || "");
    if (!url.startsWith("/") || url.startsWith("//")) continue; // same site only
    const name = String(provider.name || "");
    const label = PROVIDER_LABELS[name] || (name === "default" ? "single sign-on" : name);
    const link = document.createElement("a");
    link.className = "button secondary wide";
    link.href = url;
    link.textContent = `Continue with ${label}`;
    link.addEventListener("click", () => {
      const rd = requestedReturn();
      if (rd) sessionStorage.setItem(RETURN_KEY, rd);
      else sessionStorage.removeItem(RETURN_KEY);
    });
    const item = document.createElement("li");
    item.append(link);
    list.append(item);
  }
  $("providers").hidden = list.children.length === 0;
}

// The provider sent the browser back here (?code=&state=, or ?error=):
// authd's GET /oauth completes the sign-in with those parameters and its
// state cookie, and sets the `auth` cookie.
async function completeThirdParty() {
  const query = location.search;
  history.replaceState(null, "", "/login"); // the one-time code leaves the address bar and history
  show("signin");
  $("signin-lead").textContent = "Completing the sign-in…";
  const result = await call("GET", `/oauth${query}`);
  $("signin-lead").textContent = "Use your account to continue.";
  if (result.ok) {
    finish(result.data && result.data.user ? result.data.user.username : "");
    return;
  }
  showError(signinForm, `The sign-in with the other account did not succeed. ${result.message}`);
  loadProviders();
}

async function start() {
  signinForm.addEventListener("submit", onSignIn);
  signupForm.addEventListener("submit", onSignUp);
  $("signout").addEventListener("click", onSignOut);
  mfaForm.addEventListener("submit", onSecondFactorCode);
  $("mfa-passkey-button").addEventListener("click", onSecondFactorPasskey);
  $("passkey-signin-button").addEventListener("click", onPasskeySignIn);
  $("mfa-cancel").addEventListener("click", () => {
    mfaToken = "";
    show("signin", signinForm.elements.username);
  });
  $("to-signup").addEventListener("click", () => show("signup", signupForm.elements.username));
  $("to-signin").addEventListener("click", () => show("signin", signinForm.elements.username));
  if (requestedReturn()) $("signin-lead").textContent = "Sign in to continue to the page you asked for.";
  // An application signing in through authd may suggest the account (login_hint).
  if (params.get("login_hint")) signinForm.elements.username.value = params.get("login_hint").slice(0, 256);

  if (params.has("code") || params.has("error")) {
    await completeThirdParty();
    return;
  }
  if (params.has("signedout")) notice("You are signed out.");
  const me = await whoAmI();
  if (me.user && !freshSignIn) {
    showSignedIn(me.user.username);
    return;
  }
  if (me.user) {
    notice("The application asks you to sign in again.");
    if (!signinForm.elements.username.value) signinForm.elements.username.value = me.user.username;
  }
  await Promise.all([loadProviders(), offerPasskeySignIn()]);
}

start();

// The account page's second factors (GET /me/mfa): set up or remove an
// authenticator app (TOTP), add or remove passkeys, see how many recovery
// codes are left. New recovery codes are shown once, right after set-up.
import { call } from "./api.js";
import { clearErrors, setBusy, showError, values } from "./forms.js";
import { create as createPasskey, failureText, supported as passkeysSupported } from "./passkeys.js";

const $ = (id) => document.getElementById(id);
const totpForm = $("mfa-totp-form");

function error(text) {
  $("mfa-error").textContent = text;
}

function showRecoveryCodes(codes) {
  if (!Array.isArray(codes) || codes.length === 0) return;
  const list = $("mfa-recovery-codes");
  list.replaceChildren();
  for (const code of codes) {
    const li = document.createElement("li");
    li.textContent = code;
    list.append(li);
  }
  $("mfa-recovery").hidden = false;
}

async function removePasskey(id) {
  error("");
  const result = await call("DELETE", `/me/mfa/webauthn/${encodeURIComponent(id)}`);
  if (!result.ok) return error(result.message);
  await refresh();
}

async function refresh() {
  const result = await call("GET", "/me/mfa");
  if (!result.ok || !result.data) return;
  const status = result.data;
  $("mfa").hidden = false;
  $("mfa-required").hidden = !status.required || status.totp || (status.passkeys || []).length > 0;
  $("mfa-totp-state").textContent = status.totp ? "on" : "off";
  $("mfa-recovery-count").textContent = String(status.recovery_codes);
  $("mfa-totp-start").hidden = status.totp;
  $("mfa-totp-remove").hidden = !status.totp;
  $("mfa-passkey-add").hidden = !(status.passkeys_enabled && passkeysSupported());
  const list = $("mfa-passkeys");
  list.replaceChildren();
  for (const key of status.passkeys || []) {
    const li = document.createElement("li");
    li.textContent = `${key.name} `;
    const remove = document.createElement("button");
    remove.type = "button";
    remove.className = "link";
    remove.textContent = "Remove";
    remove.setAttribute("aria-label", `Remove passkey ${key.name}`);
    remove.addEventListener("click", () => removePasskey(key.id));
    li.append(remove);
    list.append(li);
  }
  if (!list.children.length) {
    const li = document.createElement("li");
    li.textContent = "none";
    list.append(li);
  }
}

async function startTotp() {
  error("");
  const result = await call("POST", "/me/mfa/totp", {});
  if (!result.ok) return error(result.message);
  $("mfa-totp-secret").textContent = result.data.secret;
  // The server's own SVG, parsed as SVG (no HTML, no scripts), shown inline.
  const svg = new DOMParser().parseFromString(result.data.qr_svg, "image/svg+xml").documentElement;
  $("mfa-totp-qr").replaceChildren(document.importNode(svg, true));
  $("mfa-totp-setup").hidden = false;
  totpForm.elements.code.focus();
}

async function confirmTotp(event) {
  event.preventDefault();
  clearErrors(totpForm);
  const { code } = values(totpForm);
  setBusy(totpForm, true, "Confirming…");
  const result = await call("POST", "/me/mfa/totp/confirm", { code: code.trim() });
  setBusy(totpForm, false);
  if (!result.ok) return showError(totpForm, result.message, totpForm.elements.code);
  totpForm.reset();
  $("mfa-totp-setup").hidden = true;
  showRecoveryCodes(result.data.recovery_codes);
  await refresh();
}

async function removeTotp() {
  error("");
  const result = await call("DELETE", "/me/mfa/totp");
  if (!result.ok) return error(result.message);
  await refresh();
}

async function addPasskey() {
  error("");
  const options = await call("POST", "/me/mfa/webauthn/register/begin", {});
  if (!options.ok) return error(options.message);
  let credential;
  try {
    credential = await createPasskey(options.data.publicKey);
  } catch (e) {
    return error(failureText(e));
  }
  const result = await call("POST", "/me/mfa/webauthn/register/finish", { ...credential, name: "passkey" });
  if (!result.ok) return error(result.message);
  showRecoveryCodes(result.data.recovery_codes);
  await refresh();
}

$("mfa-totp-start").addEventListener("click", startTotp);
$("mfa-totp-remove").addEventListener("click", removeTotp);
$("mfa-passkey-add").addEventListener("click", addPasskey);
totpForm.addEventListener("submit", confirmTotp);
refresh();

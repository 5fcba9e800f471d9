// /forgot and /reset (www/reset.html): ask for a reset link by mail, and
// choose the new password with the link's token. The token arrives in the
// URL fragment (#token=...), which the browser never sends to a server; it
// is removed from the address bar at once and only ever posted in a body.
import { call } from "./api.js";
import { clearErrors, fieldFor, setBusy, showError, values } from "./forms.js";

const $ = (id) => document.getElementById(id);
const token = new URLSearchParams(location.hash.slice(1)).get("token") || "";
if (location.hash) history.replaceState(null, "", location.pathname);

function notice(text) {
  $("notice").textContent = text;
}

$("forgot-form").addEventListener("submit", async (event) => {
  event.preventDefault();
  const form = event.currentTarget;
  clearErrors(form);
  const who = (values(form).who || "").trim();
  if (!who) return showError(form, "Give your username or your email address.", form.elements.who);
  setBusy(form, true, "Sending...");
  const result = await call("POST", "/password/forgot", who.includes("@") && !who.startsWith("@")
    ? { email: who } : { username: who });
  setBusy(form, false);
  if (!result.ok) return showError(form, result.message);
  form.reset();
  notice("If the account exists and has an email address, a link is on its way. Check your mail.");
});

$("reset-form").addEventListener("submit", async (event) => {
  event.preventDefault();
  const form = event.currentTarget;
  clearErrors(form);
  const { new_password: password } = values(form);
  if (!password) return showError(form, "Choose a new password.", form.elements.new_password);
  setBusy(form, true, "Saving...");
  const result = await call("POST", "/password/reset", { token, new_password: password });
  setBusy(form, false);
  if (result.status === 401 && result.data && result.data.mfa_token) {
    notice("Your password is changed. Sign in with it and your second factor.");
    setTimeout(() => location.assign("/login"), 1500);
    return;
  }
  if (!result.ok) {
    const input = result.data && result.data.field === "new_password" ? form.elements.new_password : fieldFor(form, result);
    return showError(form, result.message, input);
  }
  notice("Your password is changed and you are signed in.");
  location.assign("/account");
});

if (token || location.pathname === "/reset") {
  $("forgot").hidden = true;
  $("reset").hidden = false;
  if (!token) notice("This page needs the link from the mail. Ask for a new one if it is lost.");
}

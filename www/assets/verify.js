// /verify.html: confirm an email address with the token of the mailed link
// (GET /email/verify?token=... leads here with the token in the fragment,
// which the browser never sends to a server). The token is removed from the
// address bar at once and only posted, on the user's click, in a body: a
// mail scanner that follows the link spends nothing.
import { call } from "./api.js";
import { clearErrors, setBusy, showError, values } from "./forms.js";

const $ = (id) => document.getElementById(id);
const token = new URLSearchParams(location.hash.slice(1)).get("token") || "";
if (location.hash) history.replaceState(null, "", location.pathname);

function notice(text) {
  $("notice").textContent = text;
}

$("verify-form").addEventListener("submit", async (event) => {
  event.preventDefault();
  const form = event.currentTarget;
  clearErrors(form);
  setBusy(form, true, "Confirming...");
  const result = await call("POST", "/email/verify", { token });
  setBusy(form, false);
  if (!result.ok) {
    $("resend").hidden = false;
    return showError(form, result.message);
  }
  $("verify").hidden = true;
  notice(`${result.data.email} is confirmed. You can sign in.`);
  setTimeout(() => location.assign("/login"), 2000);
});

$("resend-form").addEventListener("submit", async (event) => {
  event.preventDefault();
  const form = event.currentTarget;
  clearErrors(form);
  const username = (values(form).username || "").trim();
  if (!username) return showError(form, "Give your username.", form.elements.username);
  setBusy(form, true, "Sending...");
  const result = await call("POST", "/email/verify/resend", { username });
  setBusy(form, false);
  if (!result.ok) return showError(form, result.message);
  form.reset();
  notice("If the account exists and its address is not confirmed yet, a new link is on its way.");
});

if (!token) {
  $("verify").hidden = true;
  $("resend").hidden = false;
}

// /invite (www/invite.html): accept an invitation with the token of the
// mailed link (<public_url>/invite#token=...). The token arrives in the URL
// fragment, which the browser never sends to a server; it is removed from
// the address bar at once and only posted, with the chosen username and
// password, to POST /signup/invitation. Opening the page spends nothing.
import { call } from "./api.js";
import { clearErrors, fieldFor, setBusy, showError, values } from "./forms.js";

const $ = (id) => document.getElementById(id);
// The fragment is what authd mails; ?token= too, for a template edited that way.
const token = new URLSearchParams(location.hash.slice(1)).get("token") ||
  new URLSearchParams(location.search).get("token") || "";
if (location.hash || location.search) history.replaceState(null, "", location.pathname);

function notice(text) {
  $("notice").textContent = text;
}

$("invite-form").addEventListener("submit", async (event) => {
  event.preventDefault();
  const form = event.currentTarget;
  clearErrors(form);
  const { username = "", password = "", fullname = "" } = values(form);
  if (!username.trim()) return showError(form, "Choose a username.", form.elements.username);
  if (!password) return showError(form, "Choose a password.", form.elements.password);
  setBusy(form, true, "Creating your account...");
  const result = await call("POST", "/signup/invitation", { token, username: username.trim(), password, fullname });
  setBusy(form, false);
  // "username already exists", "password must be ..." go under their field;
  // an unknown, used or expired link into the form's alert.
  if (!result.ok) return showError(form, result.message, fieldFor(form, result));
  notice("Your account is ready and you are signed in.");
  location.assign("/account");
});

if (!token) {
  $("invite-form").hidden = true;
  notice("This page needs the link from your invitation mail. Ask whoever invited you for a new one if it is lost.");
}

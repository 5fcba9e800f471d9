// The account page (/account): who you are (GET /me), change password
// (PUT /me/password), change email (PUT /me/email), sign out here or
// everywhere (POST /signout[/all]), the applications allowed to sign in with
// authd (GET /me/clients, DELETE /me/clients/{id}).
import { call, signOut, whoAmI } from "./api.js";
import { clearErrors, fieldFor, setBusy, showError, values } from "./forms.js";

const $ = (id) => document.getElementById(id);
const form = $("password-form");

function tags(list, items, empty) {
  list.replaceChildren();
  for (const item of items.length ? items : [empty]) {
    const li = document.createElement("li");
    li.textContent = typeof item === "string" ? item : String(item.name || item.provider || JSON.stringify(item));
    list.append(li);
  }
}

async function load() {
  const me = await whoAmI();
  $("profile").removeAttribute("aria-busy");
  if (me.status === 401) {
    location.replace(`/login?rd=${encodeURIComponent("/account")}`);
    return;
  }
  if (!me.user) {
    $("profile-lead").textContent = me.status === 404
      ? "This server does not offer the account page yet (GET /me is missing)."
      : me.message;
    return;
  }
  const user = me.user;
  $("profile-lead").textContent = "Signed in as " + user.username + ".";
  $("username").textContent = user.username;
  $("role").textContent = user.role;
  tags($("capabilities"), Array.isArray(user.capabilities) ? user.capabilities : [], "nothing yet");
  tags($("providers"), Array.isArray(user.providers) ? user.providers : [], "none");
  $("email").textContent = user.email || "none";
  $("email-state").textContent = !user.email ? "" : user.email_verified ? "(verified)" : "(not verified)";
  if (user.email_pending) $("email-state").textContent += ` - ${user.email_pending} waits for its link`;
  $("email-change").hidden = typeof user.email !== "string";
  $("facts").hidden = false;
  $("password").hidden = false;
  $("sessions").hidden = false;
  $("admin-link").hidden = user.role !== "admin";
  loadApps();
}

// The consents of authd as OpenID provider; the section stays hidden when
// there are none (or the server has no such route).
async function loadApps() {
  const result = await call("GET", "/me/clients");
  const clients = result.ok && result.data && Array.isArray(result.data.clients) ? result.data.clients : [];
  const list = $("apps-list");
  list.replaceChildren();
  for (const client of clients) {
    const li = document.createElement("li");
    li.textContent = client.name + " ";
    const button = document.createElement("button");
    button.type = "button";
    button.className = "secondary";
    button.textContent = "Remove";
    button.addEventListener("click", async () => {
      const removed = await call("DELETE", `/me/clients/${encodeURIComponent(client.client_id)}`);
      if (removed.ok) loadApps();
      else $("page-error").textContent = removed.message;
    });
    li.append(button);
    list.append(li);
  }
  $("apps").hidden = clients.length === 0;
}

async function onChangePassword(event) {
  event.preventDefault();
  clearErrors(form);
  $("notice").textContent = "";
  const v = values(form);
  if (v.new_password !== v.confirm_password) {
    showError(form, "The two new passwords are not the same.", form.elements.confirm_password);
    return;
  }
  setBusy(form, true, "Changing…");
  const result = await call("PUT", "/me/password", { current_password: v.current_password, new_password: v.new_password });
  setBusy(form, false);
  if (result.ok) {
    form.reset();
    $("notice").textContent = "Your password is changed. Every other session of this account is signed out.";
    return;
  }
  let input = fieldFor(form, result);
  // A wrong current password is the usual reason for a refusal.
  if (!input && [401, 403, 500].includes(result.status)) input = form.elements.current_password;
  showError(form, result.status === 404 ? "Changing the password is not available on this server yet." : result.message,
            input);
}

async function onChangeEmail(event) {
  event.preventDefault();
  const emailForm = event.currentTarget;
  clearErrors(emailForm);
  $("notice").textContent = "";
  const v = values(emailForm);
  if (!v.email) return showError(emailForm, "Give the new address.", emailForm.elements.email);
  setBusy(emailForm, true, "Sending…");
  const body = v.password ? { email: v.email, password: v.password } : { email: v.email };
  const result = await call("PUT", "/me/email", body);
  setBusy(emailForm, false);
  if (result.ok) {
    emailForm.reset();
    $("notice").textContent = result.status === 202
      ? `A link is on its way to ${result.data.email}: open it to make it your address.`
      : "This is your verified address already.";
    load();
    return;
  }
  let input = fieldFor(emailForm, result);
  if (!input && [401, 403, 500].includes(result.status)) input = emailForm.elements.password;
  showError(emailForm, result.message, input);
}

async function onSignOut(everywhere) {
  $("page-error").textContent = "";
  const result = await signOut(everywhere);
  if (result.ok) {
    location.assign("/login?signedout=1");
    return;
  }
  $("page-error").textContent = result.status === 404
    ? "Signing out is not available on this server yet."
    : result.message;
}

form.addEventListener("submit", onChangePassword);
$("email-form").addEventListener("submit", onChangeEmail);
$("signout").addEventListener("click", () => onSignOut(false));
$("signout-all").addEventListener("click", () => onSignOut(true));
load();

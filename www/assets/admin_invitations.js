// The admin page's invitations (/admin): invite an address with a role
// (POST /admin/invitations: the link goes by mail, never to this page), the
// pending invitations (GET /admin/invitations) and revoking one
// (DELETE /admin/invitations/{id}). Shown to an admin only (the API
// refuses everyone else anyway).
import { call, whoAmI } from "./api.js";
import { clearErrors, fieldFor, setBusy, showError, values } from "./forms.js";

const $ = (id) => document.getElementById(id);

function say(text) {
  $("page-error").textContent = "";
  $("notice").textContent = text;
}

function row(invitation) {
  const tr = document.createElement("tr");
  const email = document.createElement("th");
  email.scope = "row";
  email.textContent = invitation.email;
  const role = document.createElement("td");
  role.dataset.label = "Role";
  role.textContent = invitation.role;
  const expires = document.createElement("td");
  expires.dataset.label = "Expires";
  expires.textContent = new Date(invitation.expires_at * 1000).toLocaleString();
  const revoke = document.createElement("button");
  revoke.type = "button";
  revoke.className = "danger";
  revoke.textContent = "Revoke";
  revoke.setAttribute("aria-label", `Revoke the invitation of ${invitation.email}`);
  revoke.addEventListener("click", async () => {
    revoke.disabled = true;
    const result = await call("DELETE", `/admin/invitations/${encodeURIComponent(invitation.id)}`);
    if (result.ok) say(`The invitation of ${invitation.email} is revoked: its link no longer works.`);
    else $("page-error").textContent = `The invitation was not revoked: ${result.message}`;
    await load();
  });
  const last = document.createElement("td");
  last.append(revoke);
  tr.append(email, role, expires, last);
  return tr;
}

async function load() {
  const result = await call("GET", "/admin/invitations");
  if (!result.ok || !result.data || !Array.isArray(result.data.invitations)) return false;
  const pending = result.data.invitations;
  $("invitation-rows").replaceChildren(...pending.map(row));
  $("invitations-summary").textContent = pending.length === 0 ? "No pending invitation"
    : `${pending.length} pending invitation${pending.length === 1 ? "" : "s"}`;
  $("invitations").hidden = false;
  return true;
}

$("invite-form").addEventListener("submit", async (event) => {
  event.preventDefault();
  const form = event.currentTarget;
  clearErrors(form);
  const { email = "", role = "user" } = values(form);
  if (!email.trim()) return showError(form, "Give the address to invite.", form.elements.email);
  setBusy(form, true, "Inviting...");
  const result = await call("POST", "/admin/invitations", { email: email.trim(), role });
  setBusy(form, false);
  if (!result.ok) return showError(form, result.message, fieldFor(form, result));
  form.reset();
  say(`${result.data.email} is invited as ${result.data.role}: the link is on its way by mail.`);
  await load();
});

async function start() {
  const me = await whoAmI();
  if (me.user && me.user.role === "admin") await load();
}

start();

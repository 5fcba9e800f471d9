// The admin page (/admin): users with search and paging
// (GET /admin/users?q=&role=&page=&per_page=), change role
// (PUT /admin/users/{username}), delete with confirmation
// (DELETE /admin/users/{username}). The API enforces the admin role; this
// page only explains a refusal.
import { call, whoAmI } from "./api.js";

const ROLES = ["admin", "editor", "writer", "user"];
const PER_PAGE = 20;
const $ = (id) => document.getElementById(id);
const state = { q: "", role: "", page: 1, total: 0 };

function refuse(text) {
  $("users").hidden = true;
  $("refusal-text").textContent = text;
  $("refusal").hidden = false;
}

function say(text) {
  $("page-error").textContent = "";
  $("notice").textContent = text;
}

function fail(text) {
  $("notice").textContent = "";
  $("page-error").textContent = text;
}

function userPath(username) {
  return `/admin/users/${encodeURIComponent(username)}`;
}

// `label` is shown before the value when the table is stacked on a phone.
function cell(label, ...children) {
  const td = document.createElement(label === "Username" ? "th" : "td"); // the username heads its row
  if (label === "Username") td.scope = "row";
  if (label === "Role" || label === "Id") td.dataset.label = label;
  td.append(...children);
  return td;
}

function row(user) {
  const tr = document.createElement("tr");
  const name = document.createElement("strong");
  name.textContent = user.username;

  const select = document.createElement("select");
  select.setAttribute("aria-label", `Role of ${user.username}`);
  for (const role of ROLES) select.append(new Option(role, role, false, role === user.role));
  const save = document.createElement("button");
  save.type = "button";
  save.className = "secondary";
  save.textContent = "Save";
  save.setAttribute("aria-label", `Save the role of ${user.username}`);
  save.addEventListener("click", () => changeRole(user, select.value, save));
  const roleBox = document.createElement("div");
  roleBox.className = "row-role";
  roleBox.append(select, save);

  const id = cell("Id", String(user._id || ""));
  id.className = "id";
  const remove = document.createElement("button");
  remove.type = "button";
  remove.className = "danger";
  remove.textContent = "Delete";
  remove.setAttribute("aria-label", `Delete ${user.username}`);
  remove.addEventListener("click", () => confirmDelete(user, remove));

  tr.append(cell("Username", name), cell("Role", roleBox), id, cell("Delete", remove));
  return tr;
}

async function load() {
  const query = new URLSearchParams({ page: String(state.page), per_page: String(PER_PAGE) });
  if (state.q) query.set("q", state.q);
  if (state.role) query.set("role", state.role);
  $("users").setAttribute("aria-busy", "true");
  const result = await call("GET", `/admin/users?${query}`);
  $("users").removeAttribute("aria-busy");
  if (result.status === 401) {
    location.replace(`/login?rd=${encodeURIComponent("/admin")}`);
    return;
  }
  if (result.status === 403) {
    refuse("This page is for administrators only. Your account does not have the admin role.");
    return;
  }
  if (result.status === 404) {
    refuse("This server does not offer the user administration API yet (GET /admin/users is missing).");
    return;
  }
  if (!result.ok || !result.data || !Array.isArray(result.data.users)) {
    fail(result.message || "The list of users could not be read.");
    return;
  }
  $("refusal").hidden = true;
  $("users").hidden = false;
  state.total = Number(result.data.total) || 0;
  $("rows").replaceChildren(...result.data.users.map(row));
  const pages = Math.max(1, Math.ceil(state.total / PER_PAGE));
  $("summary").textContent = `${state.total} user${state.total === 1 ? "" : "s"}` +
    (state.q || state.role ? " found" : "");
  $("page-label").textContent = `Page ${state.page} of ${pages}`;
  $("previous").disabled = state.page <= 1;
  $("next").disabled = state.page >= pages;
}

async function changeRole(user, role, button) {
  if (role === user.role) {
    say(`${user.username} already has the role ${role}.`);
    return;
  }
  button.disabled = true;
  const result = await call("PUT", userPath(user.username), { role });
  button.disabled = false;
  if (result.ok) {
    user.role = role;
    say(`${user.username} now has the role ${role}.`);
    return;
  }
  fail(`The role of ${user.username} was not changed: ${result.message}`);
}

function confirmDelete(user, button) {
  const dialog = $("confirm-delete");
  $("confirm-text").textContent = `${user.username} will no longer be able to sign in, and every token of this account stops working at once. This cannot be undone.`;
  $("confirm-button").textContent = `Delete ${user.username}`;
  dialog.returnValue = "";
  dialog.addEventListener("close", async () => {
    if (dialog.returnValue !== "delete") {
      button.focus();
      return;
    }
    const result = await call("DELETE", userPath(user.username));
    if (result.ok) {
      say(`${user.username} is deleted.`);
      await load();
      $("users-title").focus();
      return;
    }
    fail(`${user.username} was not deleted: ${result.message}`);
    button.focus();
  }, { once: true });
  dialog.showModal();
}

async function start() {
  $("users-title").tabIndex = -1;
  $("filters").addEventListener("submit", (event) => {
    event.preventDefault();
    state.q = $("search").value.trim();
    state.role = $("role-filter").value;
    state.page = 1;
    load();
  });
  $("previous").addEventListener("click", () => { state.page -= 1; load(); });
  $("next").addEventListener("click", () => { state.page += 1; load(); });

  // Explain a refusal before asking for the list (the API refuses anyway).
  const me = await whoAmI();
  if (me.status === 401) {
    location.replace(`/login?rd=${encodeURIComponent("/admin")}`);
    return;
  }
  if (me.user && me.user.role !== "admin") {
    refuse(`This page is for administrators only. You are signed in as ${me.user.username} (role ${me.user.role}).`);
    return;
  }
  await load();
}

start();

// authd's pages in a real browser (Debian's Chromium + playwright-core),
// through the real lighttpd + authd started by test/browser/t_pages.sh, with
// the OAuth test provider of test/oauth for third-party sign-in.
// Controls are found by label and role, as a screen reader user finds them.
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { test } from "node:test";
import { BASE, authCookie, authctl, newContext, problems, role, signInWithPage,
         signUpApi, snap, useBrowser } from "./lib.mjs";

useBrowser("t_pages.sh");

const APP_PORT = Number(process.env.APP_PORT);          // an origin in portal_return_origins
const FOREIGN_PORT = Number(process.env.FOREIGN_PORT);  // an origin that is not
const PROVIDER_CONTROL = process.env.PROVIDER_CONTROL;
const PASSWORD = "correct horse battery";

// What the stand-in apps (apps.mjs, started by t_pages.sh) were asked for.
async function seenBy(port) {
  return (await fetch(`http://127.0.0.1:${port}/__seen`)).json();
}

test("sign up: field errors from the API, then an account and an HttpOnly cookie", async () => {
  const context = await newContext("signup");
  const page = await context.newPage();
  await page.goto(`${BASE}/`);
  assert.equal(new URL(page.url()).pathname, "/login", "/ leads to /login");
  await page.getByRole("button", { name: "Create an account" }).click();
  const form = page.getByRole("form", { name: "Create an account" });
  await form.getByLabel("Username").fill("alice");
  await form.getByLabel("Password").fill(PASSWORD);
  await form.getByLabel("Full name").fill("Alice Liddell");
  await form.getByRole("button", { name: "Create account" }).click();
  // The API's own message, under the field it names, which gets the focus.
  const email = form.getByLabel("Email");
  await assert.doesNotReject(email.and(page.locator('[aria-invalid="true"]')).waitFor());
  assert.match(await page.locator("#signup-email-error").textContent(), /^email (is required|must be)/);
  assert.ok(await email.evaluate((el) => el === document.activeElement), "focus moves to the field at fault");
  await snap(page, "signup-field-error");

  await email.fill("alice@example.test");
  await form.getByRole("button", { name: "Create account" }).click();
  await page.getByRole("heading", { name: "You are signed in" }).waitFor();
  assert.equal(await page.locator("#signed-in-user").textContent(), "alice");
  assert.equal(role("alice"), "user");
  const cookie = await authCookie(context);
  assert.ok(cookie, "the auth cookie is set");
  assert.equal(cookie.httpOnly, true, "the auth cookie is HttpOnly");
  assert.equal(cookie.sameSite, "Lax");
  // Page scripts never see or keep the token.
  assert.ok(!(await page.evaluate(() => document.cookie)).includes("auth="), "document.cookie has no token");
  const stored = await page.evaluate(() => JSON.stringify({ ...localStorage }) + JSON.stringify({ ...sessionStorage }));
  assert.ok(!stored.includes(cookie.value) && !stored.includes("eyJ"), "no token in web storage");
  await snap(page, "signed-in");

  // The same name again: 409 from the API, shown under Username.
  const other = await (await newContext("signup-taken")).newPage();
  await other.goto(`${BASE}/login`);
  await other.getByRole("button", { name: "Create an account" }).click();
  const again = other.getByRole("form", { name: "Create an account" });
  await again.getByLabel("Username").fill("alice");
  await again.getByLabel("Password").fill(PASSWORD);
  await again.getByLabel("Full name").fill("Another Alice");
  await again.getByLabel("Email").fill("other@example.test");
  await again.getByRole("button", { name: "Create account" }).click();
  await other.locator("#signup-username-error").filter({ hasText: "username already exists" }).waitFor();
  await other.context().close();
  await context.close();
});

test("wrong password: the message, focus back on the password", async () => {
  const context = await newContext("wrong-password");
  const page = await context.newPage();
  await signInWithPage(page, "alice", "not the password");
  const alert = page.getByRole("form", { name: "Sign in" }).getByRole("alert");
  await alert.filter({ hasText: "Invalid Login" }).waitFor();
  const password = page.getByRole("form", { name: "Sign in" }).getByLabel("Password");
  assert.equal(await password.inputValue(), "", "the wrong password is cleared");
  assert.ok(await password.evaluate((el) => el === document.activeElement), "focus is on the password");
  assert.equal(await authCookie(context), undefined, "no cookie after a failed sign-in");
  await snap(page, "wrong-password");
  await context.close();
});

test("sign in, then sign out (POST /signout clears the cookie)", async () => {
  const context = await newContext("signin");
  const page = await context.newPage();
  await signInWithPage(page, "alice", PASSWORD);
  await page.getByRole("heading", { name: "You are signed in" }).waitFor();
  assert.ok(await authCookie(context), "signed in: the auth cookie is set");
  await snap(page, "signin");
  await page.getByRole("button", { name: "Sign out" }).click();
  await page.getByRole("status").filter({ hasText: "You are signed out." }).waitFor();
  await page.getByRole("form", { name: "Sign in" }).waitFor();
  assert.equal(await authCookie(context), undefined, "the auth cookie is cleared");
  await snap(page, "signed-out");
  await context.close();
});

test("keyboard only: sign in without a pointer", async () => {
  const context = await newContext("keyboard");
  const page = await context.newPage();
  await page.goto(`${BASE}/login`);
  const focused = () => page.evaluate(() => {
    const el = document.activeElement;
    return el.labels?.[0]?.textContent?.trim() || el.getAttribute("aria-label") || el.textContent.trim();
  });
  // Tab order: skip link, home link, then the form.
  await page.keyboard.press("Tab");
  assert.equal(await focused(), "Skip to the form");
  await page.keyboard.press("Enter"); // the skip link jumps to the main content
  let stops = 0;
  while ((await focused()) !== "Username" && stops++ < 6) await page.keyboard.press("Tab");
  assert.equal(await focused(), "Username", "the username field is reachable by Tab");
  await page.keyboard.type("alice");
  await page.keyboard.press("Tab");
  assert.equal(await focused(), "Password");
  await page.keyboard.type(PASSWORD);
  await page.keyboard.press("Tab");
  assert.equal(await focused(), "Sign in");
  const ring = await page.evaluate(() => getComputedStyle(document.activeElement).outlineStyle);
  assert.notEqual(ring, "none", "the focused button shows a focus ring");
  await snap(page, "keyboard-focus");
  await page.keyboard.press("Enter");
  await page.getByRole("heading", { name: "You are signed in" }).waitFor();
  assert.equal(await focused(), "Your account", "focus moves to the next step");
  await context.close();
});

test("rd: back to an allowed origin after sign-in", async () => {
  const context = await newContext("rd-allowed");
  const page = await context.newPage();
  const target = `http://127.0.0.1:${APP_PORT}/dashboard?tab=1&q=a+b%26c`;
  await signInWithPage(page, "alice", PASSWORD, `?rd=${encodeURIComponent(target)}`);
  await page.waitForURL(target);
  assert.equal(page.url(), target, "exactly the address asked for, query included");
  const last = (await seenBy(APP_PORT)).at(-1);
  assert.equal(last.url, "/dashboard?tab=1&q=a+b%26c");
  assert.equal(last.cookie, true, "the app (same host, another port) received the auth cookie");
  await context.close();
});

test("rd: a foreign origin and open-redirect tricks go to the safe default", async () => {
  const context = await newContext("rd-refused");
  const page = await context.newPage();
  const foreign = `http://127.0.0.1:${FOREIGN_PORT}/steal`;
  await signInWithPage(page, "alice", PASSWORD, `?return_to=${encodeURIComponent(foreign)}`);
  await page.waitForURL(`${BASE}/account`);
  assert.deepEqual(await seenBy(FOREIGN_PORT), [], "the foreign origin was never visited");
  for (const trick of ["//evil.example/", "/\\evil.example", "javascript:alert(document.domain)", "https://evil.example@127.0.0.1/",
                       `http://127.0.0.1:${APP_PORT}@evil.example/`, "http:/evil.example", " https://evil.example",
                       "data:text/html,<script>alert(1)</script>", `http://127.0.0.1:${FOREIGN_PORT}`]) {
    await page.goto(`${BASE}/login?rd=${encodeURIComponent(trick)}`);
    // The portal shows its form, or who is signed in, whatever rd says.
    await page.getByRole("link", { name: "Your account" }).or(page.getByRole("form", { name: "Sign in" })).first().waitFor();
    // The page itself sends every rd through the server's check:
    await page.goto(`${BASE}/auth/return?rd=${encodeURIComponent(trick)}`);
    assert.equal(page.url(), `${BASE}/account`, `rd=${trick} ends at the default`);
  }
  assert.deepEqual(await seenBy(FOREIGN_PORT), [], "the foreign origin was never visited");
  await context.close();
});

test("third-party sign-in through the test OAuth provider, back to rd", async () => {
  await fetch(`${PROVIDER_CONTROL}/identity`, {
    method: "PUT", headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ sub: "browser-subject-1", preferred_username: "octo", name: "Octo Cat", email: "octo@example.test" }),
  });
  const context = await newContext("oauth");
  const page = await context.newPage();
  const target = `http://127.0.0.1:${APP_PORT}/after-oauth`;
  await page.goto(`${BASE}/login?rd=${encodeURIComponent(target)}`);
  const button = page.getByRole("link", { name: "Continue with single sign-on" });
  await button.waitFor();
  await snap(page, "login-with-provider");
  await button.click();
  // /oauth -> the provider (auto-approves) -> /login?code=&state= -> GET /oauth completes -> rd
  await page.waitForURL(target);
  assert.equal(role("octo"), "user", "the provider's account exists");
  assert.deepEqual((await seenBy(APP_PORT)).at(-1), { url: "/after-oauth", cookie: true });

  // Without rd: the portal says who is signed in; the code left the address bar.
  // (Signed out first: with GET /me the portal would greet octo straight away.)
  await context.clearCookies();
  await page.goto(`${BASE}/login`);
  await page.getByRole("link", { name: "Continue with single sign-on" }).click();
  await page.getByRole("heading", { name: "You are signed in" }).waitFor();
  assert.equal(await page.locator("#signed-in-user").textContent(), "octo");
  assert.equal(new URL(page.url()).search, "", "no code or state left in the URL");
  await context.close();
});

test("error pages share the style", async () => {
  const context = await newContext("errors");
  const page = await context.newPage();
  const response = await page.goto(`${BASE}/no-such-page`);
  assert.equal(response.status(), 404);
  await page.getByRole("heading", { name: "Page not found" }).waitFor();
  await snap(page, "not-found");
  await context.close();
});

test("account page: change password (PUT /me/password)", async () => {
  await signUpApi("carol", PASSWORD);
  const context = await newContext("account");
  const page = await context.newPage();
  await signInWithPage(page, "carol", PASSWORD, `?rd=${encodeURIComponent("/account")}`);
  await page.waitForURL(`${BASE}/account`);
  await page.getByRole("heading", { name: "Your account" }).waitFor();
  await page.locator("#username").filter({ hasText: "carol" }).waitFor();
  assert.equal(await page.locator("#role").textContent(), "user");
  await snap(page, "account");
  const form = page.getByRole("form", { name: "Change password" });
  await form.getByLabel("Current password").fill("wrong");
  await form.getByLabel("New password", { exact: true }).fill("a new password 2");
  await form.getByLabel("Repeat the new password").fill("a new password 2");
  await form.getByRole("button", { name: "Change password" }).click();
  await page.locator('#current-password[aria-invalid="true"]').waitFor();
  await form.getByLabel("Current password").fill(PASSWORD);
  await form.getByRole("button", { name: "Change password" }).click();
  await page.getByRole("status").filter({ hasText: "Your password is changed" }).waitFor();
  await snap(page, "account-password-changed");
  const fresh = await (await newContext("account-new-password")).newPage();
  await signInWithPage(fresh, "carol", "a new password 2");
  await fresh.getByRole("heading", { name: "You are signed in" }).waitFor();
  await fresh.context().clearCookies(); // else GET /me greets carol instead of showing the form
  await signInWithPage(fresh, "carol", PASSWORD);
  await fresh.getByRole("alert").filter({ hasText: "Invalid Login" }).waitFor();
  await fresh.context().close();
  await context.close();
});

test("admin page: role change seen by the changed user; delete with confirmation", async () => {
  authctl("add", "root", "admin", PASSWORD);
  await signUpApi("bob", PASSWORD);
  await signUpApi("dave", PASSWORD);

  const bobContext = await newContext("admin-bob");
  const bob = await bobContext.newPage();
  await signInWithPage(bob, "bob", PASSWORD, `?rd=${encodeURIComponent("/account")}`);
  await bob.waitForURL(`${BASE}/account`);
  await bob.locator("#role").filter({ hasText: "user" }).waitFor();
  await bob.goto(`${BASE}/admin`);
  await bob.getByRole("heading", { name: "Access denied" }).waitFor();
  await snap(bob, "admin-refused");

  const adminContext = await newContext("admin");
  const admin = await adminContext.newPage();
  await signInWithPage(admin, "root", PASSWORD, `?rd=${encodeURIComponent("/admin")}`);
  await admin.waitForURL(`${BASE}/admin`);
  await admin.getByRole("heading", { name: "Users" }).waitFor();
  await admin.getByRole("searchbox", { name: "Username contains" }).fill("bob");
  await admin.getByRole("button", { name: "Search" }).click();
  // The search replaces the rows: a choice made in the first list's row of bob
  // (still shown while the search runs) would be lost with it.
  await admin.locator("#summary").filter({ hasText: "1 user found" }).waitFor();
  await admin.getByRole("combobox", { name: "Role of bob" }).selectOption("editor");
  await admin.getByRole("button", { name: "Save the role of bob" }).click();
  await admin.getByRole("status").filter({ hasText: "bob now has the role editor" }).waitFor();
  assert.equal(role("bob"), "editor");
  await snap(admin, "admin");

  await bob.goto(`${BASE}/account`);
  await bob.locator("#role").filter({ hasText: "editor" }).waitFor(); // the next request sees it

  await admin.getByRole("searchbox", { name: "Username contains" }).fill("dave");
  await admin.getByRole("button", { name: "Search" }).click();
  await admin.getByRole("button", { name: "Delete dave" }).click();  // only the new rows have it
  const dialog = admin.getByRole("dialog", { name: "Delete this user?" });
  await dialog.waitFor();
  await snap(admin, "admin-confirm-delete");
  await dialog.getByRole("button", { name: "Cancel" }).click();
  assert.notEqual(role("dave"), null, "Cancel deletes nothing");
  await admin.getByRole("button", { name: "Delete dave" }).click();
  await dialog.getByRole("button", { name: "Delete dave" }).click();
  await admin.getByRole("status").filter({ hasText: "dave is deleted" }).waitFor();
  assert.equal(role("dave"), null);
  await bobContext.close();
  await adminContext.close();
});

// The reset link of the newest message to `to` in $MAILDIR (aiosmtpd, started
// by t_pages.sh): the base64 parts decoded, the link found in them.
async function resetLinkFor(to, pattern = /https?:\S+#token=[\w-]+/) {
  const box = `${process.env.MAILDIR}/box/new`;
  for (let i = 0; i < 200; i++) {
    for (const name of readdirSync(box, { withFileTypes: false }).reverse()) {
      const raw = readFileSync(`${box}/${name}`, "latin1");
      if (!raw.includes(`To: ${to}`)) continue;
      for (const [, b64] of raw.matchAll(/base64\r?\n\r?\n([A-Za-z0-9+/=\r\n]+)/g)) {
        const link = Buffer.from(b64.replace(/\s/g, ""), "base64").toString("utf8").match(pattern);
        if (link) return link[0];
      }
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`no mail to ${to} with a link like ${pattern}`);
}

test("forgot password: the link on /login, the mail, a new password, signed in", async () => {
  await signUpApi("rita", PASSWORD);
  const context = await newContext("reset");
  const page = await context.newPage();
  await page.goto(`${BASE}/login`);
  await page.getByRole("link", { name: "Forgot password?" }).click();
  const forgot = page.getByRole("form", { name: "Forgot your password?" });
  await forgot.getByLabel("Username or email").fill("rita@example.test");
  await snap(page, "forgot");
  await forgot.getByRole("button", { name: "Send the link" }).click();
  await page.getByRole("status").filter({ hasText: "a link is on its way" }).waitFor();
  const link = await resetLinkFor("rita@example.test");
  // The mail links to public_url; the page under test is at BASE.
  await page.goto(`${BASE}/reset${link.slice(link.indexOf("#"))}`);
  assert.ok(!page.url().includes("token="), "the token leaves the address bar at once");
  const reset = page.getByRole("form", { name: "Choose a new password" });
  await reset.getByLabel("New password").fill("a brand new password");
  await snap(page, "reset");
  await reset.getByRole("button", { name: "Set the password" }).click();
  await page.waitForURL(`${BASE}/account`);
  assert.ok(await authCookie(context), "signed in by the reset");
  await context.close();
  const again = await fetch(`${BASE}/signin`, { method: "POST", headers: {
    Authorization: `Basic ${Buffer.from("rita:a brand new password").toString("base64")}` } });
  assert.equal(again.status, 200, "the new password signs in");
});

test("verify email: the mailed link, the page, one click", async () => {
  await signUpApi("vera", PASSWORD);
  const link = await resetLinkFor("vera@example.test", /https?:\S+\/email\/verify\?token=[\w-]+/);
  const context = await newContext("verify");
  const page = await context.newPage();
  // The mail links to public_url; the page under test is at BASE.
  await page.goto(`${BASE}${link.slice(link.indexOf("/email/verify"))}`);
  await page.waitForURL(/\/verify\.html$/);
  assert.ok(!page.url().includes("token="), "the token leaves the address bar at once");
  const form = page.getByRole("form", { name: "Confirm your email address" });
  await snap(page, "verify");
  await form.getByRole("button", { name: "Confirm my address" }).click();
  await page.getByRole("status").filter({ hasText: "vera@example.test is confirmed" }).waitFor();
  await context.close();
});

test("invitation: the admin page invites, the mailed link, a username and a password, signed in", async () => {
  // root: the admin of the admin page's test.
  const adminContext = await newContext("admin-invite");
  const admin = await adminContext.newPage();
  await signInWithPage(admin, "root", PASSWORD, `?rd=${encodeURIComponent("/admin")}`);
  await admin.waitForURL(`${BASE}/admin`);
  const invite = admin.getByRole("form", { name: "Invitations" });
  await invite.getByLabel("Email").fill("inez@example.test");
  await invite.getByLabel("Role").selectOption("editor");
  await invite.getByRole("button", { name: "Invite" }).click();
  await admin.getByRole("status").filter({ hasText: "inez@example.test is invited as editor" }).waitFor();
  await admin.getByRole("button", { name: "Revoke the invitation of inez@example.test" }).waitFor();
  await snap(admin, "admin-invitations");
  await adminContext.close();

  const link = await resetLinkFor("inez@example.test", /https?:\S+\/invite#token=[\w-]+/);
  const context = await newContext("invite");
  const page = await context.newPage();
  // The mail links to public_url; the page under test is at BASE.
  await page.goto(`${BASE}/invite${link.slice(link.indexOf("#"))}`);
  assert.ok(!page.url().includes("token="), "the token leaves the address bar at once");
  const form = page.getByRole("form", { name: "Accept your invitation" });
  await form.getByLabel("Username").fill("inez");
  await form.getByLabel("Password").fill("inez password");
  await snap(page, "invite");
  await form.getByRole("button", { name: "Create my account" }).click();
  await page.waitForURL(`${BASE}/account`);
  assert.ok(await authCookie(context), "signed in by the invitation");
  await page.locator("#role").filter({ hasText: "editor" }).waitFor();
  await page.locator("#email").filter({ hasText: "inez@example.test" }).waitFor();
  assert.equal(role("inez"), "editor");
  await context.close();
  // Used up: the same link again says so on the page.
  const again = await (await newContext("invite-used")).newPage();
  await again.goto(`${BASE}/invite${link.slice(link.indexOf("#"))}`);
  const used = again.getByRole("form", { name: "Accept your invitation" });
  await used.getByLabel("Username").fill("inez2");
  await used.getByLabel("Password").fill("another password");
  await used.getByRole("button", { name: "Create my account" }).click();
  await used.getByRole("alert").filter({ hasText: "unknown, used, revoked or expired" }).waitFor();
  await again.context().close();
});

test("the policy is enforced, and no page logged an error or a CSP violation", async () => {
  const context = await newContext("csp");
  const page = await context.newPage();
  await page.goto(`${BASE}/login`);
  // An injected inline script must not run: proof that the header is live.
  const ran = await page.evaluate(async () => {
    const script = document.createElement("script");
    script.textContent = "window.__inline = true";
    document.head.append(script);
    await new Promise((resolve) => setTimeout(resolve, 100));
    return window.__inline === true;
  });
  assert.equal(ran, false, "an inline script is blocked by the Content-Security-Policy");
  const blocked = problems.filter((p) => p.startsWith("csp:") && p.includes("CSP violation"));
  assert.ok(blocked.length >= 1, "the blocked script was reported as a violation");
  await context.close();
  const others = problems.filter((p) => !p.startsWith("csp:"));
  assert.deepEqual(others, [], "no console errors, uncaught exceptions or CSP violations on any page");
});

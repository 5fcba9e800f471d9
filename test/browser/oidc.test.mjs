// authd as OpenID provider in Chromium (test/browser/t_oidc.sh): an
// application that is not first-party sends the browser to /authorize; the
// user signs in on the portal with a second factor (a recovery code of the
// authenticator app), allows the application on the consent page, and the
// browser arrives at the application with a code, its state and iss. The
// application is a stand-in: a node:http server on a free loopback port
// (Playwright's routes do not see the targets of redirects). Then prompt=login:
// the portal asks for the password again over the session, which stays until
// the new sign-in replaces it.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { createServer } from "node:http";
import { after, before, test } from "node:test";
import { BASE, authctl, newContext, problems, signUpApi, snap, useBrowser } from "./lib.mjs";

useBrowser("t_oidc.sh");

const PASSWORD = "correct horse battery";
let app;
let APP;

before(async () => {
  app = createServer((request, response) => response.end("the application"));
  await new Promise((resolve) => app.listen(0, "127.0.0.1", resolve));
  APP = `http://127.0.0.1:${app.address().port}/cb`;
});

after(async () => {
  app?.close();
  assert.deepEqual(problems, [], "no console errors, uncaught exceptions or CSP violations");
});

async function api(method, path, token, body) {
  const headers = { Authorization: `Bearer ${token}` };
  if (body !== undefined) headers["Content-Type"] = "application/json";
  const response = await fetch(`${BASE}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  assert.ok(response.ok, `${method} ${path}: ${response.status}`);
  return response.json();
}

// The authenticator app, set up through the API: its recovery codes.
async function enrolTotp(username) {
  const signin = await fetch(`${BASE}/signin`, {
    method: "POST", headers: { Authorization: `Basic ${Buffer.from(`${username}:${PASSWORD}`).toString("base64")}` },
  });
  const { token } = await signin.json();
  const { secret } = await api("POST", "/me/mfa/totp", token, {});
  const code = execFileSync("oathtool", ["--totp", "-b", secret], { encoding: "utf8" }).trim();
  const { recovery_codes: codes } = await api("POST", "/me/mfa/totp/confirm", token, { code });
  return codes;
}

test("sign in with authd: portal with a second factor, consent, back to the application", async () => {
  await signUpApi("olga", PASSWORD);
  const recovery = await enrolTotp("olga");
  const added = authctl("client", "add", "Forum", "--redirect-uri", APP, "--scope", "openid", "profile");
  const clientId = /client_id: (\S+)/.exec(added)[1];

  const context = await newContext("oidc");
  const page = await context.newPage();
  const query = new URLSearchParams({
    response_type: "code", client_id: clientId, redirect_uri: APP, scope: "openid profile", state: "st-1", nonce: "n-1",
    code_challenge: "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM", code_challenge_method: "S256",
  });
  await page.goto(`${BASE}/authorize?${query}`);
  await page.waitForURL(/\/login\?rd=/);
  const form = page.getByRole("form", { name: "Sign in" });
  await form.getByLabel("Username").fill("olga");
  await form.getByLabel("Password").fill(PASSWORD);
  await form.getByRole("button", { name: "Sign in" }).click();
  const second = page.getByRole("region", { name: "Second factor" });
  await second.getByLabel(/Code from your authenticator app/).fill(recovery[0]);
  await second.getByRole("button", { name: "Verify" }).click();

  await page.getByRole("heading", { name: "Allow Forum to sign you in?" }).waitFor();
  await snap(page, "oidc-consent");
  await page.getByRole("button", { name: "Allow" }).click();
  await page.waitForURL((url) => url.href.startsWith(`${APP}?`));
  const back = new URL(page.url());
  assert.match(back.searchParams.get("code") ?? "", /^[A-Za-z0-9_-]{43}$/);
  assert.equal(back.searchParams.get("state"), "st-1");
  assert.equal(back.searchParams.get("iss"), BASE);

  // prompt=login (issue 41, class 7): the portal asks for the password over the
  // session, which stays until the new sign-in replaces it; then the code.
  const before = (await context.cookies(BASE)).find((c) => c.name === "auth");
  assert.ok(before, "signed in");
  query.set("prompt", "login");
  query.set("state", "st-2");
  await page.goto(`${BASE}/authorize?${query}`);
  await page.waitForURL(/\/login\?rd=.*prompt=login/);
  await form.waitFor();
  assert.equal(await page.locator("#signed-in").isHidden(), true, "the sign-in form, not 'You are signed in'");
  assert.equal((await context.cookies(BASE)).find((c) => c.name === "auth")?.value, before.value,
    "the session cookie is untouched until the new sign-in");
  await form.getByLabel("Username").fill("olga");
  await form.getByLabel("Password").fill(PASSWORD);
  await form.getByRole("button", { name: "Sign in" }).click();
  await second.getByLabel(/Code from your authenticator app/).fill(recovery[1]);
  await second.getByRole("button", { name: "Verify" }).click();
  await page.waitForURL((url) => url.href.startsWith(`${APP}?`));
  const again = new URL(page.url());
  assert.match(again.searchParams.get("code") ?? "", /^[A-Za-z0-9_-]{43}$/);
  assert.equal(again.searchParams.get("state"), "st-2");
  assert.notEqual((await context.cookies(BASE)).find((c) => c.name === "auth")?.value, before.value,
    "the new sign-in replaced the session");
  await context.close();
});

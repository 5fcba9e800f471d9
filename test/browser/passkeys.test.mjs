// Passkeys and the authenticator app in Chromium (test/browser/t_passkeys.sh):
// the DevTools protocol's virtual authenticator stands in for the device,
// oathtool for the authenticator app.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { after, test } from "node:test";
import { BASE, newContext, problems, signUpApi, snap, useBrowser } from "./lib.mjs";

useBrowser("t_passkeys.sh");

// WebAuthn wants a domain: the same server as BASE, by the name localhost.
const LOCAL = BASE.replace("//127.0.0.1:", "//localhost:");
const PASSWORD = "correct horse battery";

// The auth cookie of the pages at LOCAL (lib.mjs's authCookie looks at BASE).
async function authCookie(context) {
  return (await context.cookies(LOCAL)).find((c) => c.name === "auth");
}

after(async () => {
  assert.deepEqual(problems, [], "no console errors, uncaught exceptions or CSP violations");
});

async function withAuthenticator(context, page) {
  const cdp = await context.newCDPSession(page);
  await cdp.send("WebAuthn.enable");
  const { authenticatorId } = await cdp.send("WebAuthn.addVirtualAuthenticator", {
    options: { protocol: "ctap2", transport: "internal", hasResidentKey: true, hasUserVerification: true,
               isUserVerified: true, automaticPresenceSimulation: true },
  });
  return { cdp, authenticatorId };
}

async function signIn(page, username, password) {
  await page.goto(`${LOCAL}/login`);
  const form = page.getByRole("form", { name: "Sign in" });
  await form.getByLabel("Username").fill(username);
  await form.getByLabel("Password").fill(password);
  await form.getByRole("button", { name: "Sign in" }).click();
}

async function signOut(page) {
  await page.goto(`${LOCAL}/account`);
  await page.getByRole("navigation").getByRole("button", { name: "Sign out" }).click();
  await page.waitForURL(/\/login\?signedout=1/);
}

test("a passkey: registered on the account page, then second factor and password-less sign-in", async () => {
  await signUpApi("pat", PASSWORD);
  const context = await newContext("passkey");
  const page = await context.newPage();
  const { cdp, authenticatorId } = await withAuthenticator(context, page);

  await signIn(page, "pat", PASSWORD);
  await page.getByRole("heading", { name: "You are signed in" }).waitFor();
  await page.goto(`${LOCAL}/account`);
  const mfa = page.getByRole("region", { name: "Two-factor authentication" });
  await mfa.getByRole("button", { name: "Add a passkey" }).click();
  await page.getByRole("list", { name: "Recovery codes" }).getByRole("listitem").first().waitFor();
  assert.equal(await page.getByRole("list", { name: "Recovery codes" }).getByRole("listitem").count(), 10);
  await mfa.getByRole("button", { name: "Remove passkey passkey" }).waitFor();
  assert.equal(await page.locator("#mfa-recovery-count").textContent(), "10");
  const { credentials } = await cdp.send("WebAuthn.getCredentials", { authenticatorId });
  assert.equal(credentials.length, 1, "the authenticator holds one credential");
  assert.ok(credentials[0].isResidentCredential, "a discoverable credential (passkey)");
  await snap(page, "account-passkey");

  // The password alone is not enough any more: the portal asks for the passkey.
  await signOut(page);
  await signIn(page, "pat", PASSWORD);
  const second = page.getByRole("region", { name: "Second factor" });
  await second.waitFor();
  assert.equal(await authCookie(context), undefined, "no token before the second factor");
  await snap(page, "second-factor");
  await second.getByRole("button", { name: "Use your passkey" }).click();
  await page.getByRole("heading", { name: "You are signed in" }).waitFor();
  const cookie = await authCookie(context);
  assert.ok(cookie, "signed in after the passkey");
  const claims = JSON.parse(Buffer.from(cookie.value.split(".")[1], "base64url").toString());
  assert.deepEqual(claims.amr, ["pwd", "hwk"]);
  let count = (await cdp.send("WebAuthn.getCredentials", { authenticatorId })).credentials[0].signCount;
  assert.ok(count >= 1, "the authenticator counted the signature");

  // Password-less (passkey_signin = true): no username, no password.
  await signOut(page);
  await page.getByRole("button", { name: "Sign in with a passkey" }).click();
  await page.getByRole("heading", { name: "You are signed in" }).waitFor();
  assert.equal(await page.locator("#signed-in-user").textContent(), "pat");
  const passwordless = JSON.parse(Buffer.from((await authCookie(context)).value.split(".")[1], "base64url").toString());
  assert.deepEqual(passwordless.amr, ["hwk", "mfa"], "user-verified passkey: two factors in one");
  count = (await cdp.send("WebAuthn.getCredentials", { authenticatorId })).credentials[0].signCount;

  // Removing the passkey from the account page: the password alone works again.
  await page.goto(`${LOCAL}/account`);
  await mfa.getByRole("button", { name: "Remove passkey passkey" }).click();
  await mfa.getByRole("list", { name: "Passkeys" }).getByText("none").waitFor();
  await signOut(page);
  await signIn(page, "pat", PASSWORD);
  await page.getByRole("heading", { name: "You are signed in" }).waitFor();
  await context.close();
});

test("the authenticator app: set up on the account page, then asked for by the portal", async () => {
  await signUpApi("tess", PASSWORD);
  const context = await newContext("totp");
  const page = await context.newPage();
  await signIn(page, "tess", PASSWORD);
  await page.getByRole("heading", { name: "You are signed in" }).waitFor();
  await page.goto(`${LOCAL}/account`);
  const mfa = page.getByRole("region", { name: "Two-factor authentication" });
  await mfa.getByRole("button", { name: "Set up an authenticator app" }).click();
  await page.getByRole("img", { name: "QR code of the authenticator key" }).locator("svg").waitFor();
  const secret = (await page.locator("#mfa-totp-secret").textContent()).trim();
  assert.match(secret, /^[A-Z2-7]{32}$/);
  await snap(page, "account-totp-setup");
  await mfa.getByLabel("Code from the app").fill(execFileSync("oathtool", ["--totp", "-b", secret], { encoding: "utf8" }).trim());
  await mfa.getByRole("button", { name: "Confirm" }).click();
  await page.getByRole("list", { name: "Recovery codes" }).getByRole("listitem").first().waitFor();
  const recovery = await page.getByRole("list", { name: "Recovery codes" }).getByRole("listitem").first().textContent();
  // The codes appear first; the state follows once GET /me/mfa answers.
  await page.locator("#mfa-totp-state").filter({ hasText: /^on$/ }).waitFor();

  await signOut(page);
  await signIn(page, "tess", PASSWORD);
  const second = page.getByRole("region", { name: "Second factor" });
  await second.getByLabel(/Code from your authenticator app/).fill("000000");
  await second.getByRole("button", { name: "Verify" }).click();
  await second.getByText("the code is wrong or was used already").waitFor();
  await second.getByLabel(/Code from your authenticator app/).fill(recovery);
  await second.getByRole("button", { name: "Verify" }).click();
  await page.getByRole("heading", { name: "You are signed in" }).waitFor();
  await page.goto(`${LOCAL}/account`);
  await page.locator("#mfa-recovery-count").filter({ hasText: "9" }).waitFor();
  await context.close();
});

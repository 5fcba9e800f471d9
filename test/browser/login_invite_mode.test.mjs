// The login page when signup_mode = invite (t_pages.sh restarts authd with
// AUTHD_SIGNUP_MODE=invite after pages.test.mjs): GET /auth/providers says
// "signup": "invite", so the page offers no "Create an account" and says why;
// signing in is unchanged, and the sign-up form cannot be reached.
import assert from "node:assert/strict";
import { test } from "node:test";
import { BASE, authCookie, authctl, newContext, problems, signInWithPage, snap, useBrowser } from "./lib.mjs";

useBrowser("t_pages.sh");

const PASSWORD = "correct horse battery";

test("invite mode: the notice instead of the sign-up offer; signing in still works", async () => {
  const context = await newContext("login-invite-mode");
  const page = await context.newPage();
  await page.goto(`${BASE}/login`);
  await page.getByText("New accounts are by invitation only.").waitFor();
  assert.equal(await page.getByRole("button", { name: "Create an account" }).isVisible(), false,
               "no 'Create an account' offer");
  assert.equal(await page.locator("#signup-form").isVisible(), false, "the sign-up form stays hidden");
  await snap(page, "login-invite-mode");
  // An account made by the operator (as an accepted invitation makes one) signs in as before.
  authctl("add", "ivy", "user", PASSWORD);
  await signInWithPage(page, "ivy", PASSWORD);
  await page.getByRole("heading", { name: "You are signed in" }).waitFor();
  assert.ok(await authCookie(context), "signed in: the auth cookie is set");
  await context.close();
  assert.deepEqual(problems, [], "no console errors, uncaught exceptions or CSP violations");
});

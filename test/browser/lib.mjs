// Helpers for the browser tests: Debian's Chromium driven by playwright-core
// (no browser download), watched for console errors and CSP violations, with
// screenshots at desktop and phone width.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdirSync } from "node:fs";
import path from "node:path";
import { after, before } from "node:test";
import { chromium } from "playwright-core";

export const BASE = process.env.BASE_URL;
const SHOTS = process.env.SCREENSHOT_DIR || path.resolve("screenshots");
mkdirSync(SHOTS, { recursive: true });

// Chromium from Debian (scripts/deps.sh test). Playwright adds its own
// automation flags and a fresh temporary --user-data-dir per launch (it
// refuses one in `args`: a fresh profile is exactly what each run gets).
export async function launch() {
  return chromium.launch({
    executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
    headless: true,
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
           "--disable-background-networking", "--disable-component-update", "--disable-sync"],
  });
}

// The test file's Chromium: useBrowser(SCRIPT), called once at the top of a
// *.test.mjs, launches it before the file's tests and closes it after them
// (before the file's own `after` hooks run); SCRIPT is the t_*.sh that runs
// the file and sets BASE_URL. newContext opens its contexts in it.
let fileBrowser;
export function useBrowser(script) {
  before(async () => {
    assert.ok(BASE, `BASE_URL must be set (run through test/browser/${script})`);
    fileBrowser = await launch();
  });
  after(async () => {
    await fileBrowser?.close();
  });
}

// API paths whose 4xx/5xx answers are expected in a test (401 before sign-in,
// 500 Invalid Login, 404 for a route not built yet): Chromium logs each as
// "Failed to load resource", which is not a page error.
const API = /^\/(signin|signup|signout|oauth|me|auth|admin\/users|admin\/invitations)(\/|\?|$)/;

// Every problem any page of any context showed: console errors, uncaught
// exceptions, CSP violations (reported by the page itself).
export const problems = [];

export async function newContext(name) {
  const context = await fileBrowser.newContext({ viewport: { width: 1280, height: 800 } });
  context.setDefaultTimeout(15000);
  // Runs before any page script (Playwright injects it through the DevTools
  // protocol, outside the page's CSP).
  await context.addInitScript(() => {
    document.addEventListener("securitypolicyviolation", (e) => {
      console.error(`CSP violation: ${e.violatedDirective} blocked ${e.blockedURI || "inline"} in ${e.sourceFile}:${e.lineNumber}`);
    });
  });
  context.on("page", (page) => watch(page, name));
  return context;
}

function watch(page, name) {
  page.on("console", (message) => {
    if (message.type() !== "error" && message.type() !== "warning") return;
    const text = message.text();
    const where = message.location().url || "";
    if (!page.url().startsWith(BASE)) return; // another origin's page (the test's stand-in apps)
    if (message.type() === "warning" && !/Content.Security.Policy|CSP/i.test(text)) return;
    if (/^Failed to load resource: the server responded with a status of \d{3}/.test(text) && where.startsWith(BASE)) {
      const url = new URL(where);
      if (API.test(url.pathname)) return;
      if (where === page.url() && /status of (404|50[0-4])/.test(text)) return; // an error page, on purpose
    }
    problems.push(`${name}: console ${message.type()} on ${page.url()}: ${text} (${where})`);
  });
  page.on("pageerror", (error) => problems.push(`${name}: uncaught ${error.message} on ${page.url()}`));
}

// Screenshots at 1280 (desktop) and 360 (phone) width, full page.
export async function snap(page, name) {
  const before = page.viewportSize();
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.screenshot({ path: path.join(SHOTS, `${name}-desktop.png`), fullPage: true });
  await page.setViewportSize({ width: 360, height: 740 });
  await page.screenshot({ path: path.join(SHOTS, `${name}-phone.png`), fullPage: true });
  const width = await page.evaluate(() => document.documentElement.scrollWidth);
  if (width > 360) problems.push(`${name}: the page is ${width}px wide at 360px (horizontal scrolling)`);
  await page.setViewportSize(before);
}

// authctl on the test's state directory (the harness exported AUTHD_*).
export function authctl(...args) {
  const options = { encoding: "utf8", env: process.env };
  if (args[0] === "add") options.input = args.pop();
  return execFileSync(process.env.AUTHCTL_BIN, args, options);
}

export function role(username) {
  const line = authctl("list").split("\n").find((l) => l.split(/\s+/)[0] === username);
  return line ? line.split(/\s+/)[1] : null;
}

// Signs up through the API (not the page), for tests about something else.
export async function signUpApi(username, password) {
  const response = await fetch(`${BASE}/signup`, {
    method: "POST", headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ username, password, fullname: `${username} Test`, email: `${username}@example.test` }),
  });
  if (response.status !== 201) throw new Error(`sign-up of ${username}: ${response.status} ${await response.text()}`);
}

// Signs in through the portal's form, found by label and role.
export async function signInWithPage(page, username, password, query = "") {
  await page.goto(`${BASE}/login${query}`);
  const form = page.getByRole("form", { name: "Sign in" });
  await form.getByLabel("Username").fill(username);
  await form.getByLabel("Password").fill(password);
  await form.getByRole("button", { name: "Sign in" }).click();
}

export async function authCookie(context) {
  return (await context.cookies(BASE)).find((c) => c.name === "auth");
}

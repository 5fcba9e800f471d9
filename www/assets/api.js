// Calls to authd from the pages. Credentials travel only in the HttpOnly
// `auth` cookie that the browser sends by itself (credentials: "same-origin"):
// no script here ever reads, stores or sends a token.

// The outcome of one call: {ok, status, data, message, retryAfter}.
// `message` is the API's own JSON error text ("error", plus "detail" when
// there is one), or a sentence for a failure that produced no JSON.
export async function call(method, path, body) {
  const init = { method, credentials: "same-origin", headers: { Accept: "application/json" }, cache: "no-store" };
  if (body !== undefined) {
    init.headers["Content-Type"] = "application/json";
    init.body = JSON.stringify(body);
  } else if (method !== "GET" && method !== "HEAD") {
    init.body = ""; // lighttpd refuses a POST without Content-Length (411)
  }
  let response;
  try {
    response = await fetch(path, init);
  } catch {
    return { ok: false, status: 0, data: null, message: "The service cannot be reached. Check your connection and try again." };
  }
  return outcome(response);
}

// Password sign-in: POST /signin with HTTP Basic credentials (UTF-8).
export async function signIn(username, password) {
  const bytes = new TextEncoder().encode(`${username}:${password}`);
  let binary = "";
  for (const b of bytes) binary += String.fromCharCode(b);
  let response;
  try {
    response = await fetch("/signin", {
      method: "POST", credentials: "same-origin", cache: "no-store", body: "",
      headers: { Accept: "application/json", Authorization: `Basic ${btoa(binary)}` },
    });
  } catch {
    return { ok: false, status: 0, data: null, message: "The service cannot be reached. Check your connection and try again." };
  }
  return outcome(response);
}

async function outcome(response) {
  const text = await response.text();
  let data = null;
  if (text) {
    try { data = JSON.parse(text); } catch { data = null; }
  }
  const result = { ok: response.ok, status: response.status, data, message: "" };
  const retry = Number.parseInt(response.headers.get("Retry-After") || "", 10);
  if (Number.isFinite(retry)) result.retryAfter = retry;
  if (!response.ok) result.message = errorText(response.status, data, result.retryAfter);
  return result;
}

function errorText(status, data, retryAfter) {
  if (status === 429) {
    // The detail names the limit that was hit ("too many sign-ups from this address; retry in 60 s").
    const which = data && typeof data.detail === "string" ? data.detail.replace(/; retry in \d+ s$/, "") : "";
    const what = which ? which.charAt(0).toUpperCase() + which.slice(1) + "." : "Too many attempts.";
    return `${what} Try again in ${retryAfter || 1} second${retryAfter === 1 ? "" : "s"}.`;
  }
  if (data && typeof data.error === "string") {
    return data.detail ? `${data.error}: ${data.detail}` : data.error;
  }
  if (status >= 500) return "The service is not available right now. Please try again in a moment.";
  return `The request failed (HTTP ${status}).`;
}

// The signed-in user from GET /me, or why not: {user} | {status, message}.
// status 401: not signed in; 404: this server has no GET /me yet.
export async function whoAmI() {
  const result = await call("GET", "/me");
  if (result.ok && result.data && typeof result.data.username === "string") return { user: result.data, status: 200 };
  return { user: null, status: result.status, message: result.message };
}

// POST /signout (or /signout/all): the server clears the cookie.
export function signOut(everywhere = false) {
  return call("POST", everywhere ? "/signout/all" : "/signout");
}

// The signed-in session and how its tokens are kept:
// - the access token (15 minutes) lives only in this module's memory: never in storage, never in
//   a URL except the realtime socket's, which browsers cannot give headers;
// - the refresh token is kept in localStorage so that a reload stays signed in. It rotates on
//   every use (the server revokes the session if a spent one comes back), so refreshes are
//   serialised across tabs with a Web Lock, and a tab that finds a newer token in storage uses it;
// - signing out ends the session on the server and clears both.
// The page's Content-Security-Policy allows scripts from this origin only (no inline script, no
// eval), which is what keeps other code away from localStorage.

const KEY = "parley.refreshToken";
let access = null;          // {token, expiresAt}
let me = null;
const listeners = new Set();

export function currentUser() { return me; }
export function setCurrentUser(user) { me = user; }
export function isSignedIn() { return !!localStorage.getItem(KEY); }
/** Called with true on sign-in, false on sign-out (also when another tab signs out). */
export function onChange(listener) { listeners.add(listener); }
function changed(signedIn) { for (const l of listeners) l(signedIn); }

window.addEventListener("storage", (event) => {
  if (event.key === KEY && !event.newValue && me) { access = null; me = null; changed(false); }
});

async function post(path, body) {
  const response = await fetch(path, {
    method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body),
    credentials: "omit", cache: "no-store",
  });
  const json = response.status === 204 ? {} : await response.json().catch(() => ({}));
  if (!response.ok) throw apiError(response.status, json);
  return json;
}

export function apiError(status, json) {
  const error = new Error(json?.error?.message || `Request failed (${status})`);
  error.status = status;
  error.code = json?.error?.code || "http_" + status;
  return error;
}

function keep(grant) {
  access = { token: grant.accessToken, expiresAt: Date.now() + (grant.expiresIn - 30) * 1000 };
  localStorage.setItem(KEY, grant.refreshToken);
  if (grant.user) me = grant.user;
}

export async function signIn(email, password) {
  keep(await post("/v1/auth/login", { email, password, deviceName: deviceName() }));
  changed(true);
  return me;
}

function deviceName() {
  const ua = navigator.userAgent;
  const browser = /Firefox\//.test(ua) ? "Firefox" : /Edg\//.test(ua) ? "Edge" : /Chrom/.test(ua) ? "Chromium" : /Safari\//.test(ua) ? "Safari" : "Browser";
  return `${browser} (web)`;
}

/** A valid access token, refreshing it when it is about to run out. */
export async function accessToken(force = false) {
  if (!force && access && Date.now() < access.expiresAt) return access.token;
  const held = access?.token;
  const run = async () => {
    // Another tab (or an earlier call) may have refreshed while this one waited for the lock.
    if (!force && access && access.token !== held && Date.now() < access.expiresAt) return access.token;
    const refreshToken = localStorage.getItem(KEY);
    if (!refreshToken) throw Object.assign(new Error("Signed out"), { status: 401, code: "unauthenticated" });
    try {
      keep(await post("/v1/auth/refresh", { refreshToken }));
    } catch (error) {
      if (error.status === 401 || error.status === 400) { forget(); changed(false); }
      throw error;
    }
    return access.token;
  };
  return navigator.locks ? navigator.locks.request("parley.refresh", run) : run();
}

function forget() {
  access = null;
  me = null;
  localStorage.removeItem(KEY);
  for (const key of Object.keys(localStorage)) if (key.startsWith("parley.")) localStorage.removeItem(key);
}

/** Device-local marks of this user (calls seen up to when), cleared with the session. */
export function mark(name, value) {
  const key = `parley.${name}.${me?.id}`;
  if (value === undefined) return localStorage.getItem(key);
  localStorage.setItem(key, value);
}

export async function signOut() {
  const refreshToken = localStorage.getItem(KEY);
  try {
    const headers = { "Content-Type": "application/json" };
    if (access?.token) headers.Authorization = `Bearer ${access.token}`;
    if (refreshToken) {
      await fetch("/v1/auth/logout", { method: "POST", headers, body: JSON.stringify({ refreshToken }), credentials: "omit" })
        .catch(() => {});
    }
  } finally {
    forget();
    changed(false);
  }
}

export { post as postUnauthenticated };

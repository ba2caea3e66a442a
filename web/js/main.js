// The shell: restores the session, opens the realtime socket, routes #/… to one screen module
// at a time, and keeps the header's badges current. Screens export render(el, params) and may
// return a function that tears them down.
import { h, fill } from "./dom.js";
import * as session from "./session.js";
import * as realtime from "./realtime.js";
import { get, forgetBlobs } from "./api.js";
import { remember } from "./users.js";
import * as calls from "./call.js";

const screens = {
  signin: () => import("./screen-auth.js").then((m) => m.signIn),
  signup: () => import("./screen-auth.js").then((m) => m.signUp),
  reset: () => import("./screen-auth.js").then((m) => m.reset),
  chats: () => import("./screen-chats.js").then((m) => m.render),
  chat: () => import("./screen-chat.js").then((m) => m.render),
  people: () => import("./screen-people.js").then((m) => m.render),
  stories: () => import("./screen-stories.js").then((m) => m.render),
  calls: () => import("./screen-calls.js").then((m) => m.render),
  profile: () => import("./screen-profile.js").then((m) => m.render),
};
const open = new Set(["signin", "signup", "reset"]);

const main = document.getElementById("screen");
let teardown = null;
let routing = 0;

function parseHash() {
  const [path, search = ""] = location.hash.replace(/^#\/?/, "").split("?");
  const [name, ...rest] = path.split("/");
  return { name: name || "", args: rest.map(decodeURIComponent), query: new URLSearchParams(search) };
}

async function route() {
  const ticket = ++routing;
  let { name, args, query } = parseHash();
  const signedIn = !!session.currentUser();
  if (!screens[name]) name = signedIn ? "chats" : "signin";
  if (!signedIn && !open.has(name)) name = "signin";
  if (signedIn && (name === "signin" || name === "signup")) name = "chats";
  const render = await screens[name]();
  if (ticket !== routing) return;
  if (teardown) { try { teardown(); } catch {} teardown = null; }
  document.getElementById("top").hidden = !signedIn;
  for (const a of document.querySelectorAll("#nav a")) {
    a.classList.toggle("active", a.getAttribute("href") === `#/${name === "chat" ? "chats" : name}`);
  }
  main.replaceChildren();
  main.dataset.screen = name;
  try {
    teardown = (await render(main, { args, query })) || null;
  } catch (error) {
    if (ticket === routing) fill(main, h("div.card", h("p.error", error.message || String(error)), h("a", { href: "#/chats" }, "Back to chats")));
  }
}

export function go(hash) {
  if (location.hash === hash) route(); else location.hash = hash;
}

// Refreshes can overlap (events arrive while reads are out); only the newest one's answers are
// shown, so an older read that comes back last cannot put back a badge from before an event.
let badgeRound = 0;

async function refreshBadges() {
  if (!session.currentUser()) return;
  const round = ++badgeRound;
  try {
    const [dialogs, incoming, calls] = await Promise.all([get("/v1/dialogs"), get("/v1/friends/requests?direction=incoming"), get("/v1/calls")]);
    if (round !== badgeRound) return;
    badge("unread-total", dialogs.dialogs.reduce((n, d) => n + (d.unreadCount || 0), 0));
    badge("requests-total", incoming.requests.length);
    // Missed calls since this device last showed the call history (the Calls screen moves the mark).
    const seen = session.mark("callsSeen") || "";
    badge("missed-total", location.hash.startsWith("#/calls") ? 0
      : calls.calls.filter((c) => c.outcome === "missed" && c.startedAt > seen).length);
  } catch {
    if (round !== badgeRound) return;
    // A read that failed (offline, a token being renewed) is tried again shortly: a badge that
    // missed its refresh would otherwise stay wrong until the next event.
    clearTimeout(refreshBadges.timer);
    refreshBadges.timer = setTimeout(refreshBadges, 2000);
  }
}

function badge(id, count) {
  const el = document.getElementById(id);
  el.hidden = !count;
  el.textContent = count ? String(count) : "";
}

async function signedIn() {
  const { user } = await get("/v1/me");
  session.setCurrentUser(remember(user));
  realtime.start();
  calls.install();
  refreshBadges();
}

session.onChange(async (isIn) => {
  if (isIn) {
    await signedIn();
    go("#/chats");
  } else {
    realtime.stop();
    forgetBlobs();
    // A password reset ends every session, this one too: its screen stays, saying so.
    if (!location.hash.startsWith("#/reset")) go("#/signin");
  }
});

realtime.on("status", ({ online }) => {
  const el = document.getElementById("connection");
  el.textContent = online ? "online" : "reconnecting…";
  el.classList.toggle("online", online);
});
for (const type of ["message.new", "message.read", "dialog.updated", "friend.request", "friend.accepted", "friend.removed", "resynced", "call.ended"]) {
  realtime.on(type, () => { clearTimeout(refreshBadges.timer); refreshBadges.timer = setTimeout(refreshBadges, 250); });
}

window.addEventListener("hashchange", route);

(async function boot() {
  if (session.isSignedIn()) {
    try { await signedIn(); } catch (error) {
      if (session.isSignedIn()) fill(main, h("p.error", `Could not reach Parley: ${error.message}`));
    }
  }
  route();
})();

// The realtime socket (GET /v1/realtime): commands with replies, events by type, and no gaps.
// Each event carries the user's next `seq`; after the socket drops, the client reconnects with
// backoff and asks `sync since <last seq seen>`, so whatever happened meanwhile is replayed and
// handled the same way as live events (duplicates, by seq, are dropped). A socket whose network
// went away without a word (no close ever comes) is found by its missing reply to a `ping` sent
// when it has been quiet for the hello's `pingIntervalSeconds`; the browser's `online` event
// reconnects at once.
import { accessToken } from "./session.js";

const handlers = new Map();   // type → Set<fn>
const pending = new Map();    // id → {resolve, reject, timer}
let socket = null;
let nextId = 1;
let lastSeq = null;           // highest seq seen; null until the first hello
const seen = new Set();
let wanted = false;
let backoff = 500;
let reconnectTimer = null;
let connecting = false;
let lastHeard = 0;            // when the socket last brought a frame (ms)
let keepAlive = null;         // the quiet socket's check, while one is open
export let hello = null;

export function on(type, fn) {
  if (!handlers.has(type)) handlers.set(type, new Set());
  handlers.get(type).add(fn);
  return () => handlers.get(type).delete(fn);
}

function emit(type, frame) {
  for (const fn of handlers.get(type) || []) {
    try { fn(frame); } catch (error) { console.error("handler of", type, error); }
  }
}

export function isOpen() { return socket?.readyState === WebSocket.OPEN; }

export function start() {
  wanted = true;
  if (!socket) connect();
}

export function stop() {
  wanted = false;
  clearTimeout(reconnectTimer);
  clearInterval(keepAlive);
  lastSeq = null;
  seen.clear();
  socket?.close(1000, "signed out");
  socket = null;
}

async function connect() {
  if (connecting || socket) return;
  connecting = true;
  let token;
  try { token = await accessToken(); } catch { connecting = false; return retry(); }
  connecting = false;
  if (!wanted || socket) return;
  const scheme = location.protocol === "https:" ? "wss" : "ws";
  const ws = new WebSocket(`${scheme}://${location.host}/v1/realtime?token=${encodeURIComponent(token)}`);
  socket = ws;
  ws.addEventListener("message", (event) => { if (socket === ws) lastHeard = Date.now(); receive(JSON.parse(event.data)); });
  ws.addEventListener("close", () => lost(ws));
}

/** The socket is gone (closed, or silent past its ping's wait): what waited on it fails, and
 * a new one is tried with backoff. */
function lost(ws) {
  if (socket !== ws) return;
  socket = null;
  clearInterval(keepAlive);
  for (const [, p] of pending) { clearTimeout(p.timer); p.reject(new Error("The connection dropped")); }
  pending.clear();
  emit("status", { online: false });
  retry();
}

/** While `ws` is open: a `ping` once it has been quiet `seconds`; no reply within as long
 * (10 s at most), and it counts as gone — closed here, as the network never will. */
function keepAliveFor(ws, seconds) {
  clearInterval(keepAlive);
  if (!ws) return;
  const quiet = Math.max(1, Number(seconds) || 25) * 1000;
  const wait = Math.min(quiet, 10000);
  let asking = false;
  const timer = setInterval(() => {
    if (socket !== ws) return clearInterval(timer);
    if (asking || Date.now() - lastHeard < quiet) return;
    asking = true;
    command("ping", {}, wait).then(() => { asking = false; }, () => {
      asking = false;
      if (socket !== ws) return;
      lost(ws);
      try { ws.close(4000, "no reply to ping"); } catch { /* already closing */ }
    });
  }, Math.min(quiet, 1000));
  keepAlive = timer;
}

// The network is back (a laptop's Wi-Fi, a phone leaving a tunnel): no need to wait out the backoff.
window.addEventListener("online", () => {
  if (!wanted || socket) return;
  clearTimeout(reconnectTimer);
  backoff = 500;
  connect();
});

function retry() {
  if (!wanted) return;
  clearTimeout(reconnectTimer);
  reconnectTimer = setTimeout(connect, backoff);
  backoff = Math.min(backoff * 2, 10000);
}

async function receive(frame) {
  if (frame.replyTo !== undefined) {
    const p = pending.get(frame.replyTo);
    if (!p) return;
    pending.delete(frame.replyTo);
    clearTimeout(p.timer);
    if (frame.ok) p.resolve(frame);
    else p.reject(Object.assign(new Error(frame.error?.message || "Refused"), { code: frame.error?.code }));
    return;
  }
  if (frame.type === "hello") {
    hello = frame;
    backoff = 500;
    keepAliveFor(socket, frame.pingIntervalSeconds);
    emit("status", { online: true });
    if (lastSeq === null) { lastSeq = frame.latestSeq; emit("ready", frame); return; }
    await catchUp();
    return;
  }
  if (typeof frame.seq === "number") {
    if (seen.has(frame.seq) || (lastSeq !== null && frame.seq <= lastSeq - 5000)) return;
    seen.add(frame.seq);
    if (seen.size > 5000) for (const s of seen) { if (seen.size <= 4000) break; seen.delete(s); }
    lastSeq = Math.max(lastSeq ?? 0, frame.seq);
  }
  emit(frame.type, frame);
}

/** Replays what this device missed while the socket was down, page by page. */
async function catchUp() {
  let since = lastSeq, more = true, replayed = 0;
  while (more && isOpen()) {
    const reply = await command("sync", { since, limit: 500 });
    replayed += reply.count;
    more = reply.more && reply.latestSeq > since;
    since = Math.max(since, lastSeq ?? since);
    emit("sync", reply);
  }
  emit("resynced", { replayed });
}

/** Sends a command and waits for its reply. */
export function command(type, body = {}, timeoutMs = 20000) {
  if (!isOpen()) return Promise.reject(new Error("Not connected: try again in a moment"));
  const id = String(nextId++);
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => { pending.delete(id); reject(new Error(`${type}: no reply`)); }, timeoutMs);
    pending.set(id, { resolve, reject, timer });
    socket.send(JSON.stringify({ id, type, ...body }));
  });
}

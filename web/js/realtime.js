// The realtime socket (GET /v1/realtime): commands with replies, events by type, and no gaps.
// Each event carries the user's next `seq`; after the socket drops, the client reconnects with
// backoff and asks `sync since <last seq seen>`, so whatever happened meanwhile is replayed and
// handled the same way as live events (duplicates, by seq, are dropped).
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
  lastSeq = null;
  seen.clear();
  socket?.close(1000, "signed out");
  socket = null;
}

async function connect() {
  let token;
  try { token = await accessToken(); } catch { return retry(); }
  if (!wanted) return;
  const scheme = location.protocol === "https:" ? "wss" : "ws";
  const ws = new WebSocket(`${scheme}://${location.host}/v1/realtime?token=${encodeURIComponent(token)}`);
  socket = ws;
  ws.addEventListener("message", (event) => receive(JSON.parse(event.data)));
  ws.addEventListener("close", () => {
    if (socket !== ws) return;
    socket = null;
    for (const [, p] of pending) { clearTimeout(p.timer); p.reject(new Error("The connection dropped")); }
    pending.clear();
    emit("status", { online: false });
    retry();
  });
}

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

// One conversation: messages (text, photos, videos, voice), older ones on scrolling up, typing,
// read marks, and for groups renaming, adding people and leaving. Private chats can call.
import { h, fill, shortTime, duration, guarded, uuid, toast } from "./dom.js";
import { get, post, patch, del, upload, blobURL, query } from "./api.js";
import * as realtime from "./realtime.js";
import { currentUser } from "./session.js";
import { remember, nameOf, avatar } from "./users.js";
import { dialogTitle } from "./screen-chats.js";
import { startCall } from "./call.js";

const PAGE = 30;

export async function render(el, { args }) {
  const dialogId = args[0];
  const me = currentUser().id;
  let { dialog } = await get(`/v1/dialogs/${encodeURIComponent(dialogId)}`);
  dialog.members.forEach(remember);
  const messages = [];            // oldest first
  const nodes = new Map();        // message id → element
  let older = undefined;          // cursor for the page before the oldest shown
  let loadingOlder = false;

  const title = h("h1.grow.ellipsis", { "data-testid": "chat-title" }, dialogTitle(dialog));
  const actions = h("div.row");
  const panel = h("div");
  const list = h("div.messages", { "data-testid": "messages" });
  const typing = h("div.typing", { "data-testid": "typing" });
  const text = h("input", { type: "text", placeholder: "Message", "data-testid": "composer-text", maxlength: 4000, autocomplete: "off" });
  const file = h("input", { type: "file", accept: "image/*,video/*,audio/*", hidden: true, "data-testid": "composer-file" });
  const recordButton = h("button.secondary", { type: "button", "data-testid": "record", title: "Record a voice message" }, "Voice");
  const videoButton = h("button.secondary", { type: "button", "data-testid": "record-video", title: "Record a video message" }, "Video");
  const composer = h("form.composer", { "data-testid": "composer" },
    h("button.secondary", { type: "button", title: "Send a photo, video or audio file", onclick: () => file.click() }, "Attach"),
    file, text, recordButton, videoButton, h("button", { type: "submit", "data-testid": "send" }, "Send"));
  el.append(h("div.chat", h("div.row", h("a.button.secondary", { href: "#/chats" }, "‹"), title, actions), panel, list, typing, composer));

  function headerActions() {
    if (dialog.type === "private") {
      const other = dialog.members.find((m) => m.id !== me);
      fill(actions,
        h("button.secondary", { "data-testid": "call-audio", onclick: () => startCall(other, "audio") }, "Audio call"),
        h("button.secondary", { "data-testid": "call-video", onclick: () => startCall(other, "video") }, "Video call"));
    } else {
      fill(actions,
        h("button.secondary", { "data-testid": "group-rename", onclick: renameForm }, "Rename"),
        h("button.secondary", { "data-testid": "group-add", onclick: addForm }, "Add people"),
        h("button.danger", { "data-testid": "group-leave", onclick: leave }, "Leave"));
    }
  }
  headerActions();

  function renameForm() {
    const input = h("input", { value: dialog.name || "", required: true, maxlength: 64 });
    const form = h("form.card.row", input, h("button", { type: "submit" }, "Save"),
      h("button.secondary", { type: "button", onclick: () => panel.replaceChildren() }, "Cancel"));
    form.addEventListener("submit", (e) => { e.preventDefault(); guarded(async () => {
      dialog = (await patch(`/v1/dialogs/${dialogId}`, { name: input.value })).dialog;
      title.textContent = dialogTitle(dialog);
      panel.replaceChildren();
    }); });
    fill(panel, form);
  }

  async function addForm() {
    const { friends } = await get("/v1/friends");
    const inGroup = new Set(dialog.members.map((m) => m.id));
    const candidates = friends.filter((f) => !inGroup.has(f.id));
    const form = h("form.card.stack",
      h("div.checks", candidates.length ? candidates.map((f) => h("label", h("input", { type: "checkbox", value: f.id }), " ", f.name))
        : h("span.muted", "All your friends are here already.")),
      h("div.row", h("button", { type: "submit" }, "Add"), h("button.secondary", { type: "button", onclick: () => panel.replaceChildren() }, "Cancel")));
    form.addEventListener("submit", (e) => { e.preventDefault(); guarded(async () => {
      const userIds = [...form.querySelectorAll("input:checked")].map((i) => i.value);
      if (userIds.length) dialog = (await post(`/v1/dialogs/${dialogId}/members`, { userIds })).dialog;
      dialog.members.forEach(remember);
      panel.replaceChildren();
      toast(`${dialog.members.length} people in ${dialogTitle(dialog)}`);
    }); });
    fill(panel, form);
  }

  let left = false;
  function leave() {
    if (!confirm(`Leave ${dialogTitle(dialog)}?`)) return;
    left = true;   // the dialog.updated our leaving causes (it may come after the reply) is not ours to show
    guarded(async () => {
      try { await del(`/v1/dialogs/${dialogId}/members/me`); } catch (error) { left = false; throw error; }
      location.hash = "#/chats";
    });
  }

  // Messages ---------------------------------------------------------------------------------
  function bubble(message) {
    const mine = message.senderId === me;
    if (message.kind === "call") {
      const c = message.call || {};
      const missed = c.outcome === "missed" || (c.outcome === "declined" && !mine);
      return h("div.bubble.call", { "data-testid": "message", "data-kind": "call", "data-outcome": c.outcome },
        h("span", { class: missed ? "missed" : "" }, `${c.media === "video" ? "Video call" : "Audio call"} call · ${c.outcome}`),
        c.durationSeconds ? ` · ${duration(c.durationSeconds)}` : "", h("div.meta", shortTime(message.createdAt)));
    }
    const body = h("div");
    if (message.text) body.append(h("div", message.text));
    if (message.attachment) {
      const holder = h("div", "…");
      body.prepend(holder);
      blobURL(message.attachment.url).then((src) => {
        const kind = message.attachment.kind;
        holder.replaceWith(kind === "image" ? h("img", { src, alt: "Photo", "data-testid": "message-image" })
          : kind === "video" ? h("video", { src, controls: true, playsInline: true, preload: "metadata", "data-testid": "message-video" })
          : h("audio", { src, controls: true, preload: "metadata", "data-testid": "message-audio" }));
      }).catch(() => { holder.textContent = "(could not load the attachment)"; });
    }
    const meta = h("div.meta");
    const el = h(mine ? "div.bubble.mine" : "div.bubble", { "data-testid": "message", "data-kind": message.kind, "data-mine": mine ? "1" : "0" },
      dialog.type === "group" && !mine ? h("div.muted", "…") : null, body, meta);
    if (dialog.type === "group" && !mine) nameOf(message.senderId).then((n) => { el.firstChild.textContent = n; });
    updateMeta(message, meta);
    return el;
  }

  function updateMeta(message, meta) {
    const others = (message.readBy || []).filter((id) => id !== me);
    const mine = message.senderId === me;
    const read = mine && others.length ? (dialog.type === "private" ? " · Read" : ` · Seen by ${others.length}`) : "";
    meta.textContent = shortTime(message.createdAt) + read;
    meta.dataset.read = mine && others.length ? "1" : "0";
    if (mine) meta.dataset.testid = "read-mark";
  }

  function add(message, where = "end") {
    if (nodes.has(message.id)) return false;
    const node = bubble(message);
    nodes.set(message.id, node);
    if (where === "end") { messages.push(message); list.append(node); }
    else { messages.unshift(message); list.prepend(node); }
    return true;
  }

  async function loadOlder() {
    if (loadingOlder || older === null) return;
    loadingOlder = true;
    try {
      const page = await get(`/v1/dialogs/${dialogId}/messages` + query({ before: older, limit: PAGE }));
      older = page.nextCursor ?? null;
      const height = list.scrollHeight;
      for (const message of page.messages) add(message, "start");   // newest first → prepend each
      list.scrollTop += list.scrollHeight - height;
    } finally { loadingOlder = false; }
  }

  let lastMarked = null;
  function markRead() {
    const last = [...messages].reverse().find((m) => m.senderId !== me);
    if (!last || last.id === lastMarked || document.hidden) return;
    lastMarked = last.id;
    post(`/v1/dialogs/${dialogId}/read`, { upToMessageId: last.id }).catch(() => { lastMarked = null; });
  }

  // Older pages load as the top comes near; while what is shown does not fill the list there is
  // nothing to scroll, so pages keep coming until it does or the first message is shown.
  async function fillUp() {
    while (older !== null && list.scrollTop < 80 && !loadingOlder) {
      const before = messages.length;
      await loadOlder();
      if (messages.length === before) break;
    }
  }

  // Sending ----------------------------------------------------------------------------------
  async function send(body) {
    const { message } = await post(`/v1/dialogs/${dialogId}/messages`, { clientMessageId: uuid(), ...body });
    if (add(message)) list.scrollTop = list.scrollHeight;
  }
  composer.addEventListener("submit", (event) => {
    event.preventDefault();
    const value = text.value.trim();
    if (!value) return;
    text.value = "";
    guarded(() => send({ kind: "text", text: value }));
  });
  file.addEventListener("change", () => {
    const chosen = file.files[0];
    file.value = "";
    if (chosen) guarded(async () => {
      const attachment = await upload(chosen);
      await send({ kind: attachment.kind, attachmentId: attachment.id });
    });
  });
  let lastTyping = 0;
  text.addEventListener("input", () => {
    if (Date.now() - lastTyping < 3000 || !realtime.isOpen()) return;
    lastTyping = Date.now();
    realtime.command("typing", { dialogId }).catch(() => {});
  });

  // Voice and video messages, recorded here. The container is the first the browser records of
  // MP4 (Safari; Chromium from 126: Opus, and VP9 or H.264), Ogg/Opus (Firefox's audio) and WebM
  // (Firefox's video, older Chromium); the server tells the kind from the bytes.
  const formats = {
    audio: ["audio/mp4", "audio/ogg;codecs=opus", "audio/webm;codecs=opus"],
    video: ["video/mp4", "video/webm;codecs=vp8,opus", "video/webm"],
  };
  let recorder = null;
  async function record(kind, button) {
    if (recorder) { recorder.stop(); return; }
    const type = formats[kind].find((t) => window.MediaRecorder?.isTypeSupported(t));
    if (!type) throw new Error(`This browser cannot record ${kind}`);
    const stream = await navigator.mediaDevices.getUserMedia(kind === "video"
      ? { audio: true, video: { width: 480, height: 360 } } : { audio: true });
    const chunks = [];
    const started = Date.now();
    const active = new MediaRecorder(stream, { mimeType: type });
    recorder = active;
    const label = button.textContent;
    const tick = setInterval(() => { button.textContent = `■ Stop ${duration((Date.now() - started) / 1000)}`; }, 500);
    if (kind === "video") {
      const preview = h("video.preview", { autoplay: true, muted: true, playsInline: true, "data-testid": "recording-preview" });
      preview.srcObject = stream;
      fill(panel, h("div.card.row", preview, h("span.muted", "Recording a video message…")));
    }
    active.addEventListener("dataavailable", (e) => { if (e.data.size) chunks.push(e.data); });
    active.addEventListener("stop", () => guarded(async () => {
      clearInterval(tick);
      stream.getTracks().forEach((t) => t.stop());
      recorder = null;
      button.textContent = label;
      if (kind === "video") panel.replaceChildren();
      if (!chunks.length || active.discard) return;
      const blob = new Blob(chunks, { type: active.mimeType.split(";")[0] });
      const attachment = await upload(blob);
      await send({ kind: attachment.kind, attachmentId: attachment.id });
    }));
    active.start(1000);
    button.textContent = "■ Stop";
  }
  recordButton.addEventListener("click", () => guarded(() => record("audio", recordButton)));
  videoButton.addEventListener("click", () => guarded(() => record("video", videoButton)));

  // Live events ------------------------------------------------------------------------------
  let typingTimer;
  const offs = [
    realtime.on("message.new", ({ message }) => {
      if (message.dialogId !== dialogId) return;
      const atBottom = list.scrollHeight - list.scrollTop - list.clientHeight < 120;
      if (add(message) && (atBottom || message.senderId === me)) list.scrollTop = list.scrollHeight;
      if (message.senderId !== me) { typing.textContent = ""; markRead(); }
    }),
    realtime.on("message.read", (event) => {
      if (event.dialogId !== dialogId || event.userId === me) return;
      const upTo = messages.findIndex((m) => m.id === event.upToMessageId);
      for (const message of upTo >= 0 ? messages.slice(0, upTo + 1) : []) {
        if (!message.readBy.includes(event.userId)) message.readBy.push(event.userId);
        updateMeta(message, nodes.get(message.id).querySelector(".meta"));
      }
    }),
    realtime.on("typing", async (event) => {
      if (event.dialogId !== dialogId || event.userId === me) return;
      typing.textContent = `${await nameOf(event.userId)} is typing…`;
      clearTimeout(typingTimer);
      typingTimer = setTimeout(() => { typing.textContent = ""; }, 5000);
    }),
    realtime.on("dialog.updated", async (event) => {
      if (event.dialog?.id !== dialogId || left) return;
      try { dialog = (await get(`/v1/dialogs/${dialogId}`)).dialog; } catch { location.hash = "#/chats"; return; }
      dialog.members.forEach(remember);
      title.textContent = dialogTitle(dialog);
    }),
  ];
  const visible = () => markRead();
  document.addEventListener("visibilitychange", visible);
  text.focus();

  // The history comes last: the composer, its buttons and the live events work from the moment
  // the screen is shown (a Send clicked while a page loaded would otherwise submit the form
  // itself, and the message would be lost).
  const cleanup = () => {
    offs.forEach((off) => off());
    document.removeEventListener("visibilitychange", visible);
    if (recorder) { recorder.discard = true; recorder.stop(); }   // leaving the chat drops what was being recorded
  };
  try {
    await loadOlder();
    list.scrollTop = list.scrollHeight;
    await fillUp();
  } catch (error) {
    cleanup();   // the screen shows the error instead: nothing of it may go on listening
    throw error;
  }
  markRead();
  list.addEventListener("scroll", () => { if (list.scrollTop < 80) guarded(fillUp); });
  return cleanup;
}

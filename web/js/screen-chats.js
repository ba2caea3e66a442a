// The chat list: newest conversation first, unread counts, and starting a group.
import { h, fill, shortTime, values, guarded } from "./dom.js";
import { get, post, query } from "./api.js";
import * as realtime from "./realtime.js";
import { currentUser } from "./session.js";
import { avatar, remember } from "./users.js";

/** What a dialog is called for me: its name, or the other person's in a private chat. */
export function dialogTitle(dialog) {
  if (dialog.type === "group") return dialog.name || "Group";
  const other = dialog.members?.find((m) => m.id !== currentUser().id);
  return other?.name || dialog.name || "Chat";
}

export function preview(message) {
  if (!message) return "";
  const mine = message.senderId === currentUser().id ? "You: " : "";
  switch (message.kind) {
    case "text": return mine + (message.text || "");
    case "image": return mine + "Photo";
    case "video": return mine + "Video";
    case "audio": return mine + "Voice message";
    case "call": return `${message.call?.media === "video" ? "Video" : "Audio"} call · ${message.call?.outcome || ""}`;
    default: return mine + message.kind;
  }
}

export async function render(el) {
  const list = h("ul.list", { "data-testid": "chat-list" });
  const more = h("button.secondary", { hidden: true }, "Older chats");
  let cursor = null;
  const groupForm = h("div");
  el.append(h("div.row.spread", h("h1", "Chats"),
    h("button.secondary", { "data-testid": "new-group", onclick: () => openGroupForm(groupForm) }, "New group")),
    groupForm, h("div.card", list, more));

  async function load(append = false) {
    const page = await get("/v1/dialogs" + query({ cursor: append ? cursor : undefined }));
    cursor = page.nextCursor;
    more.hidden = !cursor;
    if (!append) list.replaceChildren();
    for (const dialog of page.dialogs) {
      dialog.members?.forEach(remember);
      const other = dialog.type === "private" ? dialog.members?.find((m) => m.id !== currentUser().id) : null;
      list.append(h("li.clickable", { "data-testid": "chat-item", "data-dialog": dialog.id, onclick: () => { location.hash = `#/chat/${dialog.id}`; } },
        avatar(other || { name: dialogTitle(dialog) }),
        h("div.grow", h("div.row.spread", h("strong.ellipsis", dialogTitle(dialog)), h("span.muted", shortTime(dialog.updatedAt))),
          h("div.muted.ellipsis", preview(dialog.lastMessage))),
        dialog.unreadCount ? h("span.badge", { "data-testid": "unread" }, String(dialog.unreadCount)) : null));
    }
    if (!list.children.length) list.append(h("li.muted", "No chats yet: find friends under People and say hello."));
  }
  more.addEventListener("click", () => guarded(() => load(true)));
  await guarded(() => load());
  let timer;
  const reload = () => { clearTimeout(timer); timer = setTimeout(() => guarded(() => load()), 200); };
  const offs = ["message.new", "message.read", "dialog.updated", "resynced"].map((t) => realtime.on(t, reload));
  return () => offs.forEach((off) => off());
}

async function openGroupForm(holder) {
  const { friends } = await get("/v1/friends");
  const error = h("p.error");
  const form = h("form.card.stack", { "data-testid": "group-form" },
    h("label", "Group name", h("input", { name: "name", required: true, maxlength: 64 })),
    h("div.checks", friends.length ? friends.map((f) => h("label", h("input", { type: "checkbox", name: "member", value: f.id }), " ", f.name))
      : h("span.muted", "Add friends first.")),
    h("div.row", h("button", { type: "submit" }, "Create group"), h("button.secondary", { type: "button", onclick: () => holder.replaceChildren() }, "Cancel")),
    error);
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const memberIds = [...form.querySelectorAll("input[name=member]:checked")].map((i) => i.value);
    guarded(async () => {
      const { dialog } = await post("/v1/dialogs", { type: "group", name: values(form).name, memberIds });
      location.hash = `#/chat/${dialog.id}`;
    }, error);
  });
  fill(holder, form);
}

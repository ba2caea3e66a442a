// Finding people and everything between two people: requests sent, accepted, declined and
// canceled; friends (message, call, unfriend); blocking and unblocking.
import { h, fill, guarded, toast } from "./dom.js";
import { get, post, put, del, query } from "./api.js";
import * as realtime from "./realtime.js";
import { avatar, remember } from "./users.js";
import { startCall } from "./call.js";

export async function openChat(person) {
  const { dialog } = await post("/v1/dialogs", { type: "private", userId: person.id });
  location.hash = `#/chat/${dialog.id}`;
}

export async function render(el) {
  const search = h("input", { type: "search", placeholder: "Find people by name or e-mail", "data-testid": "people-search", autocomplete: "off" });
  const results = h("ul.list", { "data-testid": "search-results" });
  const incoming = h("ul.list", { "data-testid": "incoming-requests" });
  const outgoing = h("ul.list", { "data-testid": "outgoing-requests" });
  const friends = h("ul.list", { "data-testid": "friends" });
  const blocked = h("ul.list", { "data-testid": "blocked" });
  el.append(h("h1", "People"), h("div.card", search, results),
    h("h2", "Requests to you"), h("div.card", incoming),
    h("h2", "Requests you sent"), h("div.card", outgoing),
    h("h2", "Friends"), h("div.card", friends),
    h("h2", "Blocked"), h("div.card", blocked));

  let requestsIn = [], requestsOut = [];

  const act = (fn) => () => guarded(async () => { await fn(); await reload(); });
  const actions = {
    request: (p) => act(async () => {
      const reply = await post("/v1/friends/requests", { userId: p.id });
      toast(reply.friend ? `You and ${p.name} are friends` : `Request sent to ${p.name}`);
    }),
    accept: (id) => act(() => post(`/v1/friends/requests/${id}/accept`)),
    decline: (id) => act(() => post(`/v1/friends/requests/${id}/decline`)),
    cancel: (id) => act(() => del(`/v1/friends/requests/${id}`)),
    unfriend: (p) => act(async () => { if (confirm(`Remove ${p.name} from your friends?`)) await del(`/v1/friends/${p.id}`); }),
    block: (p) => act(async () => { if (confirm(`Block ${p.name}? They will not be able to reach you.`)) await put(`/v1/blocks/${p.id}`); }),
    unblock: (p) => act(() => del(`/v1/blocks/${p.id}`)),
  };

  function row(person, ...buttons) {
    remember(person);
    return h("li", { "data-testid": "person", "data-user": person.id, "data-name": person.name },
      avatar(person), h("div.grow", h("strong", person.name), h("div.muted.ellipsis", person.status || person.email || "")), ...buttons);
  }
  const button = (label, onclick, kind = "secondary", testid) => h(`button.${kind}`, { onclick, "data-testid": testid }, label);

  function personButtons(p) {
    const inReq = requestsIn.find((r) => r.from.id === p.id), outReq = requestsOut.find((r) => r.to.id === p.id);
    switch (p.relationship) {
      case "friend": return [button("Message", () => guarded(() => openChat(p)), "good", "message"), button("Unfriend", actions.unfriend(p), "secondary", "unfriend"), button("Block", actions.block(p), "danger", "block")];
      case "requestSent": return [outReq ? button("Cancel request", actions.cancel(outReq.id), "secondary", "cancel-request") : h("span.muted", "Requested")];
      case "requestReceived": return inReq ? [button("Accept", actions.accept(inReq.id), "good", "accept-request"), button("Decline", actions.decline(inReq.id), "secondary", "decline-request")] : [];
      case "blocked": return [button("Unblock", actions.unblock(p), "secondary", "unblock")];
      default: return [button("Add friend", actions.request(p), "primary", "add-friend"), button("Block", actions.block(p), "danger", "block")];
    }
  }

  async function runSearch() {
    const q = search.value.trim();
    if (q.length < 2) { results.replaceChildren(); return; }
    const page = await get("/v1/users" + query({ query: q, limit: 20 }));
    fill(results, page.users.length ? page.users.map((p) => row(p, ...personButtons(p))) : h("li.muted", "Nobody found"));
  }

  async function reload() {
    const [inc, out, fr, bl] = await Promise.all([
      get("/v1/friends/requests?direction=incoming"), get("/v1/friends/requests?direction=outgoing"), get("/v1/friends"), get("/v1/blocks")]);
    requestsIn = inc.requests; requestsOut = out.requests;
    fill(incoming, requestsIn.length ? requestsIn.map((r) => row(r.from, button("Accept", actions.accept(r.id), "good", "accept-request"), button("Decline", actions.decline(r.id), "secondary", "decline-request"))) : h("li.muted", "None"));
    fill(outgoing, requestsOut.length ? requestsOut.map((r) => row(r.to, button("Cancel", actions.cancel(r.id), "secondary", "cancel-request"))) : h("li.muted", "None"));
    fill(friends, fr.friends.length ? fr.friends.map((p) => row(p,
      button("Message", () => guarded(() => openChat(p)), "good", "message"),
      button("Audio call", () => startCall(p, "audio"), "secondary", "friend-call-audio"),
      button("Video call", () => startCall(p, "video"), "secondary", "friend-call-video"),
      button("Unfriend", actions.unfriend(p), "secondary", "unfriend"), button("Block", actions.block(p), "danger", "block"))) : h("li.muted", "No friends yet: search above"));
    fill(blocked, bl.blocks.length ? bl.blocks.map((b) => row(b.user, button("Unblock", actions.unblock(b.user), "secondary", "unblock"))) : h("li.muted", "Nobody"));
    await runSearch();
  }

  let timer;
  search.addEventListener("input", () => { clearTimeout(timer); timer = setTimeout(() => guarded(runSearch), 250); });
  await guarded(reload);
  const offs = ["friend.request", "friend.accepted", "friend.removed", "resynced"].map((t) => realtime.on(t, () => guarded(reload)));
  search.focus();
  return () => offs.forEach((off) => off());
}

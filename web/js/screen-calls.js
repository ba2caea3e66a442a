// The call history (missed calls marked), calling a friend again, and the echo test.
import { h, fill, shortTime, duration, guarded } from "./dom.js";
import { get, query } from "./api.js";
import * as realtime from "./realtime.js";
import { avatar, remember } from "./users.js";
import { startCall, startEcho } from "./call.js";
import { mark } from "./session.js";

export async function render(el) {
  const list = h("ul.list", { "data-testid": "call-history" });
  const more = h("button.secondary", { hidden: true }, "Older calls");
  el.append(h("div.row.spread", h("h1", "Calls"),
    h("button", { "data-testid": "echo-test", onclick: startEcho }, "Test my microphone and camera")), h("div.card", list, more));
  let cursor = null;
  async function load(append = false) {
    const page = await get("/v1/calls" + query({ cursor: append ? cursor : undefined }));
    cursor = page.nextCursor;
    more.hidden = !cursor;
    if (!append) list.replaceChildren();
    for (const call of page.calls) {
      remember(call.peer);
      const bad = call.outcome === "missed";
      list.append(h(bad ? "li.missed-call" : "li", { "data-testid": "call-entry", "data-outcome": call.outcome, "data-direction": call.direction, "data-media": call.media },
        avatar(call.peer),
        h("div.grow", h("strong", { class: bad ? "missed" : "" }, call.peer.name),
          h("div.muted", `${bad ? "✕ Missed" : call.direction === "outgoing" ? "↗ Outgoing" : "↙ Incoming"} ${call.media} · ${call.outcome}` +
            (call.durationSeconds ? ` · ${duration(call.durationSeconds)}` : "") + ` · ${shortTime(call.startedAt)}`)),
        h("button.secondary", { title: "Call back", onclick: () => startCall(call.peer, call.media) }, "Call back")));
    }
    if (!list.children.length) list.append(h("li.muted", "No calls yet"));
    // Shown now: missed calls up to the newest no longer count on the Calls badge.
    const newest = page.calls[0]?.startedAt;
    if (!append && newest && newest > (mark("callsSeen") || "")) mark("callsSeen", newest);
    if (!append) document.getElementById("missed-total").hidden = true;
  }
  more.addEventListener("click", () => guarded(() => load(true)));
  await guarded(() => load());
  const off = realtime.on("call.ended", () => setTimeout(() => guarded(() => load()), 300));
  return off;
}

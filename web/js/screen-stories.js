// Stories: post a photo or a short video, watch friends' stories (each view counted once), and
// see who watched mine.
import { h, fill, shortTime, guarded, toast, values } from "./dom.js";
import { get, post, del, upload, blobURL } from "./api.js";
import * as realtime from "./realtime.js";
import { avatar } from "./users.js";

function mediaOf(story) {
  const holder = h("div", "…");
  if (story.attachment) blobURL(story.attachment.url).then((src) => holder.replaceWith(story.kind === "video"
    // Muted until the viewer turns the sound on, as story apps play them; looped while shown.
    ? h("video", { src, controls: true, autoplay: true, muted: true, loop: true, playsInline: true, "data-testid": "story-media" })
    : h("img", { src, alt: story.title, "data-testid": "story-media" }))).catch(() => { holder.textContent = "(unavailable)"; });
  return holder;
}

export async function render(el) {
  const error = h("p.error");
  const form = h("form.card.row", { "data-testid": "story-form" },
    h("input", { type: "file", name: "file", accept: "image/*,video/*", required: true, "data-testid": "story-file" }),
    h("input", { name: "title", placeholder: "Say something about it", maxlength: 200, "data-testid": "story-title" }),
    h("button", { type: "submit", "data-testid": "post-story" }, "Post story"), error);
  const feed = h("div.stories", { "data-testid": "story-feed" });
  const viewer = h("div");
  const mine = h("ul.list", { "data-testid": "my-stories" });
  el.append(h("h1", "Stories"), form, h("h2", "Friends"), h("div.card", feed), viewer, h("h2", "Mine (24 hours)"), h("div.card", mine));

  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const file = form.querySelector("input[type=file]").files[0];
    const { title } = values(form);
    guarded(async () => {
      const attachment = await upload(file);
      await post("/v1/stories", { attachmentId: attachment.id, title: title || "" });
      form.reset();
      toast("Story posted");
      await load();
    }, error);
  });

  function show(entry, index = 0) {
    const story = entry.stories[index];
    if (!story) { viewer.replaceChildren(); return; }
    post(`/v1/stories/${story.id}/views`).catch(() => {});
    fill(viewer, h("div.viewer", { "data-testid": "story-viewer" },
      h("div.row.spread", h("strong", `${entry.user.name} · ${shortTime(story.createdAt)}`), h("span", `${index + 1} / ${entry.stories.length}`)),
      mediaOf(story), h("p", story.title),
      h("div.row", index > 0 ? h("button.secondary", { onclick: () => show(entry, index - 1) }, "‹ Previous") : null,
        h("button.secondary", { onclick: () => show(entry, index + 1) }, index + 1 < entry.stories.length ? "Next ›" : "Close"))));
  }

  async function viewers(story, holder) {
    const { viewers } = await get(`/v1/stories/${story.id}/viewers`);
    fill(holder, viewers.length ? h("ul.list", { "data-testid": "story-viewers" }, viewers.map((v) =>
      h("li", avatar(v.user), h("span.grow", v.user.name), h("span.muted", shortTime(v.viewedAt))))) : h("p.muted", "Nobody yet"));
  }

  async function load() {
    const [{ users }, { stories }] = await Promise.all([get("/v1/stories/feed"), get("/v1/stories/mine")]);
    fill(feed, users.length ? users.map((entry) => h(`button.story-ring${entry.stories.every((s) => s.viewed) ? ".seen" : ""}`,
      { "data-testid": "story-ring", "data-user": entry.user.id, onclick: () => show(entry) }, avatar(entry.user, true), entry.user.name))
      : h("span.muted", "No stories from friends right now"));
    fill(mine, stories.length ? stories.map((story) => {
      const who = h("div");
      return h("li", { "data-testid": "my-story" }, h("div.grow", h("strong", story.title || "(untitled)"),
        h("div.muted", `${story.kind} · ${shortTime(story.createdAt)} · `, h("span", { "data-testid": "view-count" }, `${story.viewCount} views`)), who),
        h("button.secondary", { "data-testid": "show-viewers", onclick: () => guarded(() => viewers(story, who)) }, "Who watched"),
        h("button.danger", { onclick: () => guarded(async () => { await del(`/v1/stories/${story.id}`); await load(); }) }, "Delete"));
    }) : h("li.muted", "You have no story up"));
  }
  await guarded(load);
  const off = realtime.on("story.new", () => guarded(load));
  return off;
}

// People the client has seen, by id (messages and events carry ids only), and their avatars.
import { get, blobURL } from "./api.js";
import { h } from "./dom.js";

const known = new Map();
const loading = new Map();

export function remember(user) {
  if (user?.id) known.set(user.id, { ...known.get(user.id), ...user });
  return user;
}

export function cached(id) { return known.get(id); }

export async function user(id) {
  if (known.has(id)) return known.get(id);
  if (!loading.has(id)) {
    loading.set(id, get(`/v1/users/${encodeURIComponent(id)}`).then((r) => remember(r.user))
      .finally(() => loading.delete(id)));
  }
  return loading.get(id);
}

export async function nameOf(id) {
  try { return (await user(id)).name; } catch { return "Someone"; }
}

/** A round avatar: the picture when there is one, else the initials. */
export function avatar(person, big = false) {
  const initials = (person?.name || "?").split(/\s+/).map((w) => w[0]).join("").slice(0, 2).toUpperCase();
  const el = h(big ? "span.avatar.big" : "span.avatar", initials);
  if (person?.avatarUrl) {
    blobURL(person.avatarUrl).then((src) => el.replaceChildren(h("img", { src, alt: "" }))).catch(() => {});
  }
  return el;
}

// Small DOM helpers: every screen builds its elements with h(); text always goes in as text
// (textContent), never as HTML, so nothing a person typed can become markup.

/** h("button.secondary", {onclick, "data-testid": "x"}, "Text", child…) */
export function h(spec, attrs = {}, ...children) {
  const [tag, ...classes] = spec.split(".");
  const el = document.createElement(tag || "div");
  if (classes.length) el.className = classes.join(" ");
  if (attrs === null || typeof attrs !== "object" || attrs instanceof Node || Array.isArray(attrs)) {
    children.unshift(attrs);
    attrs = {};
  }
  for (const [key, value] of Object.entries(attrs)) {
    if (value === undefined || value === null || value === false) continue;
    if (key.startsWith("on")) el.addEventListener(key.slice(2), value);
    else if (key === "hidden" || key === "disabled" || key === "required" || key === "multiple" || key === "checked"
             || key === "autoplay" || key === "muted" || key === "playsInline" || key === "controls" || key === "loop") el[key] = true;
    else if (key === "value") el.value = value;
    else el.setAttribute(key, value === true ? "" : String(value));
  }
  append(el, children);
  return el;
}

function append(el, children) {
  for (const child of children.flat(Infinity)) {
    if (child === undefined || child === null || child === false) continue;
    el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
}

/** Replaces an element's content. */
export function fill(el, ...children) {
  el.replaceChildren();
  append(el, children);
  return el;
}

export function toast(text, ms = 3500) {
  const el = h("div.toast", text);
  document.getElementById("toasts").append(el);
  setTimeout(() => el.remove(), ms);
}

/** "14:05" today, "3 Dec" otherwise. */
export function shortTime(iso) {
  if (!iso) return "";
  const d = new Date(iso), now = new Date();
  return d.toDateString() === now.toDateString()
    ? d.toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" })
    : d.toLocaleDateString([], { day: "numeric", month: "short" });
}

export function duration(seconds) {
  const s = Math.max(0, Math.round(seconds || 0));
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, "0")}`;
}

/** A form's named fields as an object. */
export function values(form) {
  return Object.fromEntries(new FormData(form).entries());
}

/** Runs an async action for a button or form, showing failures instead of throwing them away. */
export async function guarded(action, errorEl) {
  try {
    if (errorEl) errorEl.textContent = "";
    return await action();
  } catch (error) {
    const text = error?.message || String(error);
    if (errorEl) errorEl.textContent = text; else toast(text);
    return undefined;
  }
}

export function uuid() {
  return crypto.randomUUID();
}

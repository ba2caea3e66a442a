// My profile: name, status and picture; signing out; deleting the account.
import { h, values, guarded, toast } from "./dom.js";
import { patch, request, del } from "./api.js";
import * as session from "./session.js";
import { avatar, remember } from "./users.js";

export function render(el) {
  const me = session.currentUser();
  const picture = h("div", avatar(me, true));
  const error = h("p.error");
  const form = h("form.stack", { "data-testid": "profile-form" },
    h("label", "Name", h("input", { name: "name", value: me.name, required: true, maxlength: 64, "data-testid": "profile-name" })),
    h("label", "Status", h("input", { name: "status", value: me.status || "", maxlength: 140, "data-testid": "profile-status" })),
    h("button", { type: "submit" }, "Save"), error);
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    guarded(async () => {
      const { user } = await patch("/v1/me", values(form));
      session.setCurrentUser(remember(user));
      toast("Saved");
    }, error);
  });
  const file = h("input", { type: "file", accept: "image/jpeg,image/png,image/heic", "data-testid": "avatar-file" });
  file.addEventListener("change", () => guarded(async () => {
    const chosen = file.files[0];
    if (!chosen) return;
    const { user } = await request("PUT", "/v1/me/avatar", undefined, { raw: chosen, contentType: chosen.type });
    session.setCurrentUser(remember(user));
    picture.replaceChildren(avatar(user, true));
  }, error));
  const remove = h("form.row", h("input", { type: "password", name: "password", placeholder: "Your password", required: true }),
    h("button.danger", { type: "submit" }, "Delete my account"));
  remove.addEventListener("submit", (event) => {
    event.preventDefault();
    if (!confirm("Delete your account and everything in it? This cannot be undone.")) return;
    guarded(async () => { await del("/v1/me", values(remove)); await session.signOut(); }, error);
  });
  el.append(h("h1", "Me"),
    h("div.card.stack", h("div.row", picture, h("div", h("strong", me.email), h("label", "New picture", file))), form),
    h("div.card.row.spread", h("span.muted", "Signed in on this browser"),
      h("button.secondary", { "data-testid": "sign-out", onclick: () => guarded(session.signOut) }, "Sign out")),
    h("h2", "Danger zone"), h("div.card", remove));
}

// Signing up (with the age rule), the verification mail, signing in, and resetting a password.
import { h, values, guarded } from "./dom.js";
import * as session from "./session.js";

const post = session.postUnauthenticated;

/** Where mail goes: while the server writes it to its outbox folder, the page says which. */
async function mailNotice(address, what) {
  let settings = {};
  try { settings = await (await fetch("/web/settings.json", { credentials: "omit" })).json(); } catch {}
  if (settings.mail?.transport === "outbox") {
    return h("div.notice", { "data-testid": "outbox-notice" },
      `This server writes mail to a folder instead of sending it. ${what} for ${address} is in `,
      h("code", { "data-testid": "outbox-directory" }, settings.mail.outboxDirectory),
      " (the newest .eml file).");
  }
  return h("div.notice", `We sent ${what.toLowerCase()} to ${address}.`);
}

function card(title, ...children) {
  return h("div.card.narrow", h("h1", title), ...children);
}

export function signIn(el, { query }) {
  const error = h("p.error", { "data-testid": "signin-error" });
  const extra = h("div");
  const form = h("form.stack", { "data-testid": "signin-form" },
    h("label", "E-mail", h("input", { name: "email", type: "email", required: true, autocomplete: "username", value: query.get("email") || "" })),
    h("label", "Password", h("input", { name: "password", type: "password", required: true, autocomplete: "current-password" })),
    h("button", { type: "submit" }, "Sign in"), error, extra);
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const { email, password } = values(form);
    extra.replaceChildren();
    guarded(async () => {
      try {
        await session.signIn(email, password);
      } catch (e) {
        if (e.code === "email_not_verified") {
          extra.append(h("button.secondary", { type: "button", onclick: () => guarded(async () => {
            await post("/v1/auth/resend-verification", { email });
            extra.replaceChildren(await mailNotice(email, "A new verification link"));
          }, error) }, "Send the verification link again"));
        }
        throw e;
      }
    }, error);
  });
  el.append(card("Sign in to Parley", form,
    h("p.row.spread", h("a", { href: "#/signup" }, "Create an account"), h("a", { href: "#/reset" }, "Forgot your password?"))));
}

export function signUp(el) {
  const error = h("p.error", { "data-testid": "signup-error" });
  const form = h("form.stack", { "data-testid": "signup-form" },
    h("label", "Name", h("input", { name: "name", required: true, autocomplete: "name", maxlength: 64 })),
    h("label", "E-mail", h("input", { name: "email", type: "email", required: true, autocomplete: "email" })),
    h("label", "Password (at least 8 characters)", h("input", { name: "password", type: "password", required: true, autocomplete: "new-password", minlength: 8 })),
    h("label", "Date of birth (you must be 14 or older)", h("input", { name: "dateOfBirth", type: "date", required: true })),
    h("button", { type: "submit" }, "Create account"), error);
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const body = values(form);
    guarded(async () => {
      await post("/v1/auth/register", body);
      el.replaceChildren(card("Check your mail",
        h("p", { "data-testid": "signup-done" }, `Your account is made. Open the link in the verification mail, then sign in.`),
        await mailNotice(body.email, "The verification link"),
        h("p", h("a.button", { href: `#/signin?email=${encodeURIComponent(body.email)}` }, "Go to sign in"))));
    }, error);
  });
  el.append(card("Create your account", form, h("p", h("a", { href: "#/signin" }, "I already have an account"))));
}

/** The token from what a person pasted: the token itself, or the whole link from the mail. */
function tokenFrom(text) {
  const match = /token=([A-Za-z0-9_-]+)/.exec(text);
  return (match ? match[1] : text).trim();
}

export function reset(el, { query }) {
  const error = h("p.error");
  const sent = h("div");
  const ask = h("form.stack", { "data-testid": "reset-request-form" },
    h("label", "E-mail", h("input", { name: "email", type: "email", required: true })),
    h("button", { type: "submit" }, "Send me a reset link"), sent);
  ask.addEventListener("submit", (event) => {
    event.preventDefault();
    const { email } = values(ask);
    guarded(async () => {
      await post("/v1/auth/password-reset", { email });
      sent.replaceChildren(await mailNotice(email, "The reset link"));
    }, error);
  });
  const done = h("p", { "data-testid": "reset-done" });
  const confirm = h("form.stack", { "data-testid": "reset-confirm-form" },
    h("label", "The link or code from the mail", h("input", { name: "token", required: true, value: query.get("token") || "" })),
    h("label", "New password", h("input", { name: "newPassword", type: "password", required: true, minlength: 8, autocomplete: "new-password" })),
    h("button", { type: "submit" }, "Set the new password"), done);
  confirm.addEventListener("submit", (event) => {
    event.preventDefault();
    const { token, newPassword } = values(confirm);
    guarded(async () => {
      await post("/v1/auth/password-reset/confirm", { token: tokenFrom(token), newPassword });
      done.replaceChildren("Your password is changed and every device was signed out. ", h("a", { href: "#/signin" }, "Sign in"));
    }, error);
  });
  el.append(card("Reset your password", ask, h("h2", "Got the mail?"), confirm, error,
    h("p", h("a", { href: "#/signin" }, "Back to sign in"))));
}

// REST calls with the session's bearer token: JSON in and out, one retry after a refresh when
// the server says the token ran out, and stored files (avatars, attachments) fetched with the
// header and shown through blob: URLs, so no token is ever put in an <img src>.
import { accessToken, apiError } from "./session.js";

export async function request(method, path, body, { raw, contentType } = {}) {
  for (let attempt = 0; ; attempt++) {
    const headers = { Authorization: `Bearer ${await accessToken(attempt > 0)}` };
    let payload;
    if (raw) { payload = raw; headers["Content-Type"] = contentType || raw.type || "application/octet-stream"; }
    else if (body !== undefined) { payload = JSON.stringify(body); headers["Content-Type"] = "application/json"; }
    const response = await fetch(path, { method, headers, body: payload, credentials: "omit", cache: "no-store" });
    if (response.status === 401 && attempt === 0) continue;
    if (response.status === 204) return {};
    const json = await response.json().catch(() => ({}));
    if (!response.ok) throw apiError(response.status, json);
    return json;
  }
}

export const get = (path) => request("GET", path);
export const post = (path, body) => request("POST", path, body ?? {});
export const patch = (path, body) => request("PATCH", path, body);
export const put = (path, body) => request("PUT", path, body);
export const del = (path, body) => request("DELETE", path, body);

/** Uploads a chat or story file; the server tells its kind from the bytes. */
export function upload(file) {
  return request("POST", "/v1/attachments", undefined, { raw: file, contentType: file.type || "application/octet-stream" });
}

/** The path and query of a URL the server gave (its host may be the public name, not ours). */
export function localPath(url) {
  const u = new URL(url, location.origin);
  return u.pathname + u.search;
}

const blobs = new Map();   // path → Promise<object URL>

/** An object URL for a stored file, fetched once with the bearer header. */
export function blobURL(url) {
  const path = localPath(url);
  if (!blobs.has(path)) {
    blobs.set(path, (async () => {
      for (let attempt = 0; ; attempt++) {
        const response = await fetch(path, { headers: { Authorization: `Bearer ${await accessToken(attempt > 0)}` }, credentials: "omit" });
        if (response.status === 401 && attempt === 0) continue;
        if (!response.ok) { blobs.delete(path); throw apiError(response.status, await response.json().catch(() => ({}))); }
        return URL.createObjectURL(await response.blob());
      }
    })());
  }
  return blobs.get(path);
}

export function forgetBlobs() {
  for (const p of blobs.values()) p.then((u) => URL.revokeObjectURL(u)).catch(() => {});
  blobs.clear();
}

/** "?a=1&b=x%20y" (spaces as %20: the server does not read "+" as a space). */
export function query(params) {
  const parts = Object.entries(params).filter(([, v]) => v !== undefined && v !== null && v !== "")
    .map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`);
  return parts.length ? "?" + parts.join("&") : "";
}

// The dashboard's only door to healthd: JSON calls with the session cookie, and the CSRF header on
// every state-changing request. A 401 means the session is gone: listeners show the sign-in page.
let csrfToken = null;
const signedOutListeners = [];

/** An answer that was not 2xx; `code`, `field` and `status` as the server gave them. */
class ApiError extends Error {
  constructor(status, body) {
    const error = (body && body.error) || {};
    super(error.message || `HTTP ${status}`);
    this.status = status;
    this.code = error.code || null;
    this.field = error.field || null;
  }
}

export function onSignedOut(listener) {
  signedOutListeners.push(listener);
}

export async function call(method, path, body) {
  const headers = { Accept: "application/json" };
  if (body !== undefined) headers["Content-Type"] = "application/json";
  if (method !== "GET" && csrfToken) headers["X-CSRF-Token"] = csrfToken;
  const response = await fetch(path, {
    method, headers, credentials: "same-origin",
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const answer = response.status === 204 ? {} : await response.json().catch(() => null);
  if (!response.ok) {
    const error = new ApiError(response.status, answer);
    if (response.status === 401 && path !== "/api/session") {
      csrfToken = null;
      signedOutListeners.forEach((listener) => listener(error));
    }
    throw error;
  }
  return answer;
}

/** POSTs `file` as the body with XMLHttpRequest, whose upload events tell `onProgress(sent, total)`. */
export function upload(path, file, onProgress) {
  return new Promise((resolve, reject) => {
    const request = new XMLHttpRequest();
    request.open("POST", path);
    request.setRequestHeader("Content-Type", file.type || "application/octet-stream");
    if (csrfToken) request.setRequestHeader("X-CSRF-Token", csrfToken);
    request.upload.addEventListener("progress", (event) => onProgress(event.loaded, event.total));
    request.addEventListener("load", () => {
      let answer = null;
      try { answer = JSON.parse(request.responseText); } catch { answer = null; }
      if (request.status >= 200 && request.status < 300) resolve(answer);
      else {
        const error = new ApiError(request.status, answer);
        if (request.status === 401) signedOutListeners.forEach((listener) => listener(error));
        reject(error);
      }
    });
    request.addEventListener("error", () => reject(new ApiError(0, null)));
    request.send(file);
  });
}

/** `GET path?params`, leaving out parameters that are null or undefined. */
export function get(path, params = {}) {
  const query = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) {
    if (value !== null && value !== undefined) query.set(key, String(value));
  }
  const text = query.toString();
  return call("GET", text ? `${path}?${text}` : path);
}

/** Who is signed in, or null (the server answers `{"owner": null}`). */
export async function currentSession() {
  const session = await call("GET", "/api/session");
  csrfToken = session.owner === null ? null : session.csrf_token;
  return session.owner === null ? null : session;
}

export async function signIn(token) {
  const session = await call("POST", "/api/session", { token });
  csrfToken = session.csrf_token;
  return session;
}

export async function signOut() {
  try {
    await call("DELETE", "/api/session");
  } finally {
    csrfToken = null;
  }
}

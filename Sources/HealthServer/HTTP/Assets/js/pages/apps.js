// Apps and permissions: pending requests to approve or deny, every app's grants, revoke, token
// rotation (the new token is shown once), registration, and source priority per type.
import { call, get } from "../api.js";
import { h, section, table } from "../dom.js";
import { formatTime, typeLabel } from "../format.js";
import { subscribe } from "../live.js";
import { sourcePriority } from "./priority.js";

function tokenNotice(output, app, token) {
  output.replaceChildren(
    h("p", {}, `New token for ${app.name} (${app.bundle_id}). It is shown this once: copy it into the app now.`),
    h("code", { id: "new-token", class: "token" }, token));
  output.hidden = false;
  output.focus();
}

function pendingTable(requests, decide) {
  if (requests.length === 0) return h("p", { class: "hint", id: "no-pending" }, "No app is waiting for an answer.");
  return table(["App", "Type", "Access", "Asked", ""], requests.map((request) => [
    `${request.app.name} (${request.app.bundle_id})`, typeLabel(request.short_name), request.direction, formatTime(request.requested_micros),
    h("span", { class: "actions", dataset: { bundleId: request.app.bundle_id, type: request.type, direction: request.direction } },
      h("button", { type: "button", class: "approve", onclick: () => decide(request, true) }, "Approve"),
      h("button", { type: "button", class: "deny", onclick: () => decide(request, false) }, "Deny")),
  ]), { id: "pending" });
}

function grantsTable(permissions) {
  const byType = new Map();
  for (const permission of permissions) {
    const row = byType.get(permission.type) || { name: permission.short_name, read: "—", share: "—" };
    row[permission.direction] = permission.state;
    byType.set(permission.type, row);
  }
  if (byType.size === 0) return h("p", { class: "hint" }, "No permissions asked for.");
  return table(["Type", "Read", "Share"], [...byType.values()].map((row) => [typeLabel(row.name), row.read, row.share]), { class: "grants" });
}

export async function render(page) {
  const pendingArea = h("div", { id: "pending-area" });
  const appsArea = h("div", { id: "apps" });
  const notice = h("output", { id: "token-notice", class: "notice", tabindex: -1, hidden: true });
  const message = h("p", { role: "alert", class: "error" });

  async function decide(request, grant) {
    message.textContent = "";
    try {
      await call("POST", `/api/apps/${encodeURIComponent(request.app.bundle_id)}/decisions`,
        { decisions: [{ type: request.type, direction: request.direction, grant }] });
      await Promise.all([showPending(), showApps()]);
    } catch (error) { message.textContent = error.message; }
  }

  function drawPending(requests) {
    pendingArea.replaceChildren(pendingTable(requests, decide));
  }

  async function showPending() {
    drawPending((await get("/api/authorization-requests")).requests);
  }

  async function act(method, path, onAnswer) {
    message.textContent = "";
    try { onAnswer(await call(method, path)); await showApps(); } catch (error) { message.textContent = error.message; }
  }

  async function showApps() {
    const { apps } = await get("/api/apps");
    const cards = await Promise.all(apps.map(async (app) => {
      const path = `/api/apps/${encodeURIComponent(app.bundle_id)}`;
      const grants = app.revoked ? h("p", { class: "hint" }, "Revoked: its token no longer works.")
        : grantsTable((await get(`${path}/permissions`)).permissions);
      return h("article", { class: "app", dataset: { bundleId: app.bundle_id } },
        h("h3", {}, `${app.name} `, h("small", {}, app.bundle_id)),
        h("p", { class: "hint" }, `Registered ${formatTime(app.created_micros)}`),
        grants,
        app.revoked ? null : h("div", { class: "toolbar" },
          h("button", { type: "button", class: "rotate", onclick: () => act("POST", `${path}/token`, (answer) => tokenNotice(notice, answer.app, answer.token)) }, "Rotate token"),
          h("button", { type: "button", class: "revoke danger", onclick: () => {
            if (confirm(`Revoke ${app.name}? Its token stops working and its connections close.`)) act("DELETE", path, () => {});
          } }, "Revoke")));
    }));
    appsArea.replaceChildren(...(cards.length ? cards : [h("p", { class: "hint" }, "No app registered.")]));
  }

  const bundle = h("input", { id: "new-bundle-id", required: true, pattern: "[A-Za-z0-9._-]+", placeholder: "com.example.app" });
  const name = h("input", { id: "new-app-name", required: true, placeholder: "Example" });
  const register = h("form", { class: "inline" },
    h("label", { for: "new-bundle-id" }, "Bundle id"), bundle, h("label", { for: "new-app-name" }, "Name"), name,
    h("button", { type: "submit" }, "Register app"));
  register.addEventListener("submit", async (event) => {
    event.preventDefault();
    message.textContent = "";
    try {
      const answer = await call("POST", "/api/apps", { bundle_id: bundle.value, name: name.value });
      register.reset();
      tokenNotice(notice, answer.app, answer.token);
      await showApps();
    } catch (error) { message.textContent = error.message; }
  });

  page.replaceChildren(h("h1", {}, "Apps and permissions"), message, notice,
    section("Waiting for your answer", pendingArea),
    section("Apps", appsArea, register),
    section("Source priority", await sourcePriority()));
  await Promise.all([showPending(), showApps()]);
  // A request may come from an app registered since the page was drawn: redraw the apps too.
  return subscribe("authorization_requests", ({ requests }) => {
    drawPending(requests);
    showApps().catch((error) => { message.textContent = error.message; });
  });
}

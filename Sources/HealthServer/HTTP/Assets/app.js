// A minimal page until the dashboard lands: sign in with the owner token, list the types with data, sign out.
"use strict";
let csrf = null;

async function api(method, path, body) {
  const headers = { "Content-Type": "application/json" };
  if (csrf) headers["X-CSRF-Token"] = csrf;
  const response = await fetch(path, { method, headers, body: body ? JSON.stringify(body) : undefined, credentials: "same-origin" });
  const data = response.status === 204 ? {} : await response.json();
  if (!response.ok) throw new Error(data.error ? data.error.message : response.statusText);
  return data;
}

async function show() {
  try {
    const me = await api("GET", "/api/session");
    csrf = me.csrf_token;
    document.getElementById("owner").textContent = me.owner;
    const overview = await api("GET", "/api/overview");
    const rows = document.querySelector("#types tbody");
    rows.replaceChildren(...overview.types.map((t) => {
      const row = document.createElement("tr");
      for (const text of [t.short_name, String(t.count)]) {
        const cell = document.createElement("td");
        cell.textContent = text;
        row.append(cell);
      }
      return row;
    }));
    document.getElementById("sign-in").hidden = true;
    document.getElementById("signed-in").hidden = false;
  } catch (error) {
    csrf = null;
    document.getElementById("signed-in").hidden = true;
    document.getElementById("sign-in").hidden = false;
  }
}

document.getElementById("sign-in").addEventListener("submit", async (event) => {
  event.preventDefault();
  const field = document.getElementById("token");
  try {
    await api("POST", "/api/session", { token: field.value });
    field.value = "";
    document.getElementById("sign-in-error").textContent = "";
    await show();
  } catch (error) {
    document.getElementById("sign-in-error").textContent = error.message;
  }
});

document.getElementById("sign-out").addEventListener("click", async () => {
  await api("DELETE", "/api/session");
  csrf = null;
  await show();
});

show();

// The dashboard's shell: sign-in and sign-out, the hash router, and the live stream's lifetime.
import { currentSession, onSignedOut, signIn, signOut } from "./api.js";
import { forgetCatalog, loadCatalog } from "./catalog.js";
import { h } from "./dom.js";
import { connect, disconnect } from "./live.js";

const routes = {
  "": () => import("./pages/overview.js"),
  type: () => import("./pages/type.js"),
  sleep: () => import("./pages/sleep.js"),
  "blood-pressure": () => import("./pages/blood-pressure.js"),
  workouts: () => import("./pages/workouts.js"),
  apps: () => import("./pages/apps.js"),
  import: () => import("./pages/import.js"),
};

const page = document.getElementById("page");
const signInForm = document.getElementById("sign-in");
const signInError = document.getElementById("sign-in-error");
const nav = document.getElementById("nav");
let leave = null;
let session = null;
let shown = 0;

function showSignIn(reason) {
  session = null;
  shown += 1;
  if (leave) leave();
  leave = null;
  disconnect();
  forgetCatalog();
  page.replaceChildren();
  nav.hidden = true;
  signInForm.hidden = false;
  signInError.textContent = reason || "";
  document.getElementById("token").focus();
}

async function route(event) {
  const movedByLink = event instanceof HashChangeEvent;
  if (!session) return;
  const [name, argument] = location.hash.replace(/^#\/?/, "").split("/").map(decodeURIComponent);
  const load = routes[name || ""];
  const generation = ++shown;
  nav.querySelectorAll("a").forEach((link) => link.setAttribute("aria-current", String(link.getAttribute("href") === `#/${name || ""}`)));
  page.setAttribute("aria-busy", "true");
  // Each page draws into its own view, shown only if no later navigation overtook it.
  const view = h("div", { class: "view" });
  let stop = null;
  try {
    if (!load) throw new Error(`No page at ${location.hash}`);
    await loadCatalog(); // pages read value names synchronously
    stop = (await (await load()).render(view, argument)) || null;
  } catch (error) {
    if (error.status === 401) return;
    view.replaceChildren(h("p", { role: "alert", class: "error" }, error.message));
  }
  if (generation !== shown) {
    if (stop) stop();
    return;
  }
  if (leave) leave();
  leave = stop;
  page.replaceChildren(view);
  page.removeAttribute("aria-busy");
  // Screen readers follow a navigation to the new page's content, as after a page load.
  if (movedByLink) page.focus({ preventScroll: true });
}

function openStream() {
  connect({ onResume: route, onEnded: streamEnded });
}

/** The live stream ended: a gone session shows the sign-in page, else the stream opens again shortly. */
async function streamEnded() {
  const again = await currentSession().catch(() => null);
  if (!again) {
    showSignIn("Your session ended: sign in again.");
    return;
  }
  setTimeout(() => { if (session) openStream(); }, 1000);
}

function enter(answer) {
  session = answer;
  document.getElementById("owner").textContent = answer.owner;
  signInForm.hidden = true;
  nav.hidden = false;
  openStream();
  route();
}

signInForm.addEventListener("submit", async (event) => {
  event.preventDefault();
  const field = document.getElementById("token");
  try {
    const answer = await signIn(field.value.trim());
    field.value = "";
    enter(answer);
  } catch (error) {
    signInError.textContent = error.status === 401 ? "That token is not valid (wrong, revoked or rotated)." : error.message;
  }
});

document.getElementById("sign-out").addEventListener("click", async () => {
  await signOut().catch(() => {});
  showSignIn("Signed out.");
});

onSignedOut(() => showSignIn("Your session ended: sign in again."));
window.addEventListener("hashchange", route);

currentSession().then((answer) => (answer ? enter(answer) : showSignIn()), (error) => showSignIn(error.message));

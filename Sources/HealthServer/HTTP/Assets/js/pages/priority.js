// Source priority per type: the order in effect, moved up and down, saved at once.
import { call, get } from "../api.js";
import { h } from "../dom.js";
import { typeLabel } from "../format.js";

export async function sourcePriority() {
  const { types } = await get("/api/overview");
  const choice = h("select", { id: "priority-type" }, types.filter((row) => row.kind === "quantity")
    .map((row) => h("option", { value: row.type }, typeLabel(row.short_name))));
  const list = h("ol", { id: "priority", class: "priority" });
  const message = h("p", { role: "status", class: "hint" });

  function draw(answer) {
    const ids = answer.sources.map((source) => source.bundle_id);
    const move = (index, by) => async () => {
      const order = ids.slice();
      [order[index], order[index + by]] = [order[index + by], order[index]];
      try {
        draw(await call("PUT", "/api/source-priority", { type: answer.type, bundle_ids: order }));
        message.textContent = "Saved.";
      } catch (error) { message.textContent = error.message; }
    };
    list.replaceChildren(...answer.sources.map((source, index) => h("li", { dataset: { bundleId: source.bundle_id } },
      `${source.name} (${source.bundle_id}) `,
      h("button", { type: "button", disabled: index === 0, "aria-label": `move ${source.name} up`, onclick: move(index, -1) }, "↑"),
      h("button", { type: "button", disabled: index === ids.length - 1, "aria-label": `move ${source.name} down`, onclick: move(index, 1) }, "↓"))));
  }

  async function load() {
    message.textContent = "";
    if (choice.value) draw(await get("/api/source-priority", { type: choice.value }));
  }

  choice.addEventListener("change", load);
  await load();
  return h("div", {}, types.length ? h("label", { for: "priority-type" }, "Type ") : h("p", { class: "hint" }, "No data yet."),
    types.length ? choice : null, list, message);
}

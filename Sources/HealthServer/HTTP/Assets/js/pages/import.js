// Import: an Apple Health export uploaded with a progress bar, then healthd's import progress, then
// what it stored per type and per source.
import { get, upload } from "../api.js";
import { h, section, table } from "../dom.js";
import { formatNumber, shortName, typeLabel } from "../format.js";

const POLL_MS = 500;

function bar(id, label) {
  const meter = h("progress", { id, max: 1, value: 0, "aria-label": label });
  const text = h("span", { class: "hint", "aria-live": "polite" });
  return { node: h("p", {}, h("span", {}, `${label}: `), meter, " ", text), meter, text };
}

function summaryTable(rows, heading, id, name) {
  return table([heading, "Stored", "Already present", "Skipped"], rows.map((row) => [
    name(row.name), formatNumber(row.stored), formatNumber(row.already_present),
    Object.entries(row.skipped).map(([reason, count]) => `${count} ${reason}`).join("; ") || "0",
  ]), { id });
}

export async function render(page) {
  let stopped = false;
  const input = h("input", { id: "export-file", type: "file", accept: ".zip,.xml,application/zip,text/xml,application/xml" });
  const start = h("button", { id: "start-import", type: "submit" }, "Import");
  const status = h("div", { id: "import-status" });
  const form = h("form", { id: "import-form" },
    h("label", { for: "export-file" }, "Apple Health export (export.zip, or export.xml)"), " ", input, " ", start);

  async function follow(id) {
    const reading = bar("import-progress", "Importing");
    status.append(reading.node);
    for (;;) {
      const state = await get(`/api/imports/${encodeURIComponent(id)}`);
      if (stopped) return;
      reading.meter.max = Math.max(state.total_bytes, 1);
      reading.meter.value = state.state === "running" ? state.bytes_read : reading.meter.max;
      reading.text.textContent = `${formatNumber(state.records)} records read` + (state.current_type ? `, ${typeLabel(shortName(state.current_type))}` : "");
      if (state.state !== "running") return finish(state);
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    }
  }

  function finish(state) {
    status.dataset.state = state.state;
    if (state.error) status.append(h("p", { role: "alert", class: "error" }, state.error.error.message));
    if (state.summary) {
      status.append(
        h("h3", {}, "By type"), summaryTable(state.summary.types, "Type", "import-types", (name) => typeLabel(shortName(name))),
        h("h3", {}, "By source"), summaryTable(state.summary.sources, "Source", "import-sources", (name) => name));
    }
    start.disabled = false;
  }

  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const file = input.files[0];
    if (!file) return;
    start.disabled = true;
    status.replaceChildren();
    delete status.dataset.state;
    const sending = bar("upload-progress", "Uploading");
    status.append(sending.node);
    try {
      const started = await upload("/api/imports", file, (sent, total) => {
        sending.meter.max = Math.max(total, 1);
        sending.meter.value = sent;
        sending.text.textContent = `${formatNumber(sent / 1048576)} of ${formatNumber(total / 1048576)} MB`;
      });
      sending.meter.value = sending.meter.max;
      await follow(started.id);
    } catch (error) {
      if (error.status === 401) return;
      status.dataset.state = "failed";
      status.append(h("p", { role: "alert", class: "error" }, error.message || "The upload failed."));
      start.disabled = false;
    }
  });

  page.replaceChildren(h("h1", {}, "Import"), section("Apple Health export",
    h("p", { class: "hint" }, "On the iPhone: Health → your picture → Export All Health Data. Importing the same export again stores nothing twice."),
    form, status));
  return () => { stopped = true; };
}

// Overview: every type with data, its latest value and a sparkline; samples per source and per device;
// and a live feed of what devices save while the page is open.
import { get } from "../api.js";
import { sparkline } from "../charts.js";
import { h, section, table } from "../dom.js";
import { deviceLabel, formatTime, micros, sampleValue, shortName, timeZone, typeLabel } from "../format.js";
import { subscribe } from "../live.js";
import { loadCatalog } from "../catalog.js";
import { lastDays } from "../periods.js";

const FEED_LENGTH = 30;

function typeRow(row) {
  const latest = row.latest;
  return h("tr", { dataset: { type: row.type, latestMicros: latest ? latest.end_micros : 0 } },
    h("th", { scope: "row" }, h("a", { href: `#/type/${row.short_name}` }, typeLabel(row.short_name))),
    h("td", { class: "number count" }, String(row.count)),
    h("td", {}, latest ? sampleValue(latest) : "—"),
    h("td", { class: "when" }, latest ? formatTime(latest.end_micros) : ""),
    h("td", { class: "spark" }));
}

/** Two weeks of daily statistics for a quantity type, drawn once the table is on screen. */
async function fillSparkline(cell, entry) {
  const [from, to] = lastDays(14)(0);
  const answer = await get("/api/statistics/collection", {
    type: entry.type, interval: "day", from: micros(from), to: micros(to) - 1, tz: timeZone,
  });
  const pick = entry.aggregation === "cumulative" ? "sum" : "average";
  const values = answer.buckets.map((bucket) => (bucket[pick] ? bucket[pick].value : null));
  cell.replaceChildren(sparkline(values, `${typeLabel(entry.short_name)}, last 14 days`));
}

function feedItem(sample) {
  return h("li", { dataset: { uuid: sample.uuid, type: sample.type } },
    h("a", { href: `#/type/${sample.type}` }, typeLabel(shortName(sample.type))),
    ` ${sampleValue(sample)} · ${sample.source ? sample.source.name : ""} · ${formatTime(sample.end_micros)}`);
}

export async function render(page) {
  const [overview, catalog] = await Promise.all([get("/api/overview"), loadCatalog()]);
  const feed = h("ol", { id: "live-feed", class: "feed", "aria-live": "polite" });
  const types = table(["Type", "Samples", "Latest", "When", "Last 14 days"], [], { id: "types" });
  types.tBodies[0].append(...overview.types.map(typeRow));
  page.replaceChildren(
    h("h1", {}, "Overview"),
    section("Types with data", types,
      overview.types.length ? null : h("p", { id: "no-data" }, "Nothing stored yet. Devices' samples show up here as they arrive.")),
    section("Live", h("p", { class: "hint" }, "Samples saved while this page is open."), feed),
    h("div", { class: "columns" },
      section("Samples per source", table(["Source", "Bundle id", "Samples"],
        overview.sources.map((row) => [row.source.name, row.source.bundle_id, String(row.count)]), { id: "sources" })),
      section("Samples per device", table(["Device", "Manufacturer", "Samples"],
        overview.devices.map((row) => [deviceLabel(row.device), row.device ? row.device.manufacturer || "" : "", String(row.count)]), { id: "devices" }))));

  for (const row of overview.types) {
    const entry = catalog.get(row.type);
    if (entry && entry.kind === "quantity") {
      const cell = types.querySelector(`tr[data-type="${row.type}"] td.spark`);
      fillSparkline(cell, entry).catch(() => cell.replaceChildren("—"));
    }
  }

  const countCell = (type) => types.querySelector(`tr[data-type="${type}"] .count`);
  return subscribe("samples", ({ samples, deleted }) => {
    for (const gone of deleted || []) {
      const count = countCell(gone.type);
      if (count) count.textContent = String(Math.max(Number(count.textContent) - 1, 0));
      feed.querySelectorAll(`li[data-uuid="${gone.uuid}"]`).forEach((item) => item.remove());
    }
    for (const sample of samples) {
      feed.prepend(feedItem(sample));
      const count = countCell(sample.type);
      if (count) {
        const row = count.parentElement;
        count.textContent = String(Number(count.textContent) + 1);
        if (sample.end_micros >= Number(row.dataset.latestMicros)) {  // a device catching up sends older samples too
          row.dataset.latestMicros = sample.end_micros;
          row.children[2].textContent = sampleValue(sample);
          row.children[3].textContent = formatTime(sample.end_micros);
        }
      } else {
        page.querySelector("#no-data")?.remove();
        const entry = catalog.get(sample.type);
        types.tBodies[0].append(typeRow({ type: sample.type, short_name: entry ? entry.short_name : sample.type, count: 1, latest: sample }));
      }
    }
    while (feed.children.length > FEED_LENGTH) feed.lastElementChild.remove();
  });
}

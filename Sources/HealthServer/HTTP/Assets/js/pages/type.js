// A type page: one statistics-collection call per period drawn as a chart, the per-source breakdown
// of the chosen bucket, and the samples under it. Types with a page of their own are sent there.
import { get } from "../api.js";
import { statisticsChart } from "../charts.js";
import { h, section, table } from "../dom.js";
import { formatQuantity, micros, timeZone, typeLabel } from "../format.js";
import { subscribe } from "../live.js";
import { typeEntry } from "../catalog.js";
import { bucketLabel, periods } from "../periods.js";
import { samplesTable } from "./samples.js";

const SAMPLE_LIMIT = 500;

function breakdown(bucket, cumulative) {
  const rows = (bucket.by_source || []).map((entry) => [
    entry.source.name, entry.source.bundle_id,
    formatQuantity(cumulative ? entry.sum : entry.average),
    cumulative ? "" : `${formatQuantity(entry.minimum)} – ${formatQuantity(entry.maximum)}`,
  ]);
  if (rows.length === 0) return h("p", { class: "hint", id: "by-source" }, "No source in this bucket.");
  return table(["Source", "Bundle id", cumulative ? "Sum" : "Average", cumulative ? "" : "Range"], rows, { id: "by-source" });
}

function periodPicker(state, redraw) {
  return h("div", { class: "toolbar", role: "toolbar", "aria-label": "period" },
    h("button", { type: "button", onclick: () => { state.offset -= 1; redraw(); }, "aria-label": "earlier" }, "◀"),
    Object.keys(periods).map((name) => h("button", {
      type: "button", class: "period", "aria-pressed": String(state.period === name), dataset: { period: name },
      onclick: () => { state.period = name; state.offset = 0; redraw(); },
    }, name)),
    h("button", { type: "button", onclick: () => { state.offset = Math.min(state.offset + 1, 0); redraw(); }, "aria-label": "later" }, "▶"));
}

async function quantityPage(page, entry) {
  const state = { period: "week", offset: 0, selected: null, answer: null };
  const chartArea = h("div", { id: "chart-area" });
  const details = h("div", { id: "bucket-details" });
  const unit = entry.display_unit || entry.canonical_unit;
  const cumulative = entry.aggregation === "cumulative";

  async function showBucket(index) {
    state.selected = index;
    chartArea.querySelectorAll(".bucket").forEach((node) => node.classList.toggle("selected", Number(node.dataset.index) === index));
    const bucket = state.answer.buckets[index];
    const { samples } = await get("/api/samples", { type: entry.type, from: bucket.start_micros, to: bucket.end_micros, limit: SAMPLE_LIMIT });
    details.replaceChildren(
      h("h3", {}, bucketLabel(state.period, bucket)),
      h("p", {}, cumulative ? `Sum ${formatQuantity(bucket.sum)}`
        : `Average ${formatQuantity(bucket.average)}, minimum ${formatQuantity(bucket.minimum)}, maximum ${formatQuantity(bucket.maximum)}`),
      h("h4", {}, "By source"), breakdown(bucket, cumulative),
      h("h4", {}, samples.length === SAMPLE_LIMIT ? `Samples (first ${SAMPLE_LIMIT})` : "Samples"), samplesTable(samples));
  }

  async function redraw() {
    const period = periods[state.period];
    const [from, end] = period.range(state.offset);
    // The collection includes the bucket holding `to`: end just before the next period starts.
    const to = micros(end) - 1;
    const answer = await get("/api/statistics/collection", {
      type: entry.type, interval: period.interval, from: micros(from), to, tz: timeZone, unit, by_source: 1,
    });
    state.answer = answer;
    const latest = answer.buckets.map((bucket, index) => (bucket.sum || bucket.average ? index : -1)).reduce((a, b) => Math.max(a, b), -1);
    const selected = state.selected !== null && state.selected < answer.buckets.length ? state.selected : latest;
    chartArea.replaceChildren(
      periodPicker(state, () => { state.selected = null; redraw(); }),
      statisticsChart(answer.buckets, {
        cumulative, unit: answer.unit || unit, selected, onSelect: showBucket,
        label: (bucket, short) => bucketLabel(state.period, bucket, short),
      }));
    chartArea.dataset.type = entry.type;
    chartArea.dataset.period = state.period;
    chartArea.dataset.fromMicros = micros(from);
    chartArea.dataset.toMicros = to;
    if (selected >= 0) await showBucket(selected);
    else details.replaceChildren(h("p", { class: "hint" }, "No data in this period."));
  }

  page.replaceChildren(h("h1", {}, typeLabel(entry.short_name)),
    section(`${cumulative ? "Total" : "Average, minimum and maximum"} per bucket (${unit === "%" ? "fraction" : unit}, ${timeZone})`, chartArea), section("Chosen bucket", details));
  await redraw();
  let pending = null;
  return subscribe("samples", ({ samples }) => {
    if (!samples.some((sample) => sample.type === entry.type) || pending) return;
    pending = setTimeout(() => { pending = null; redraw(); }, 200);
  });
}

async function samplesPage(page, entry) {
  const { samples } = await get("/api/samples", { type: entry.type, order: "desc", limit: SAMPLE_LIMIT });
  page.replaceChildren(h("h1", {}, typeLabel(entry.short_name)), section("Latest samples", samplesTable(samples)));
}

const ownPages = { SleepAnalysis: "#/sleep", BloodPressure: "#/blood-pressure", Workout: "#/workouts" };

export async function render(page, name) {
  const entry = await typeEntry(name);
  if (!entry) {
    page.replaceChildren(h("h1", {}, "Unknown type"), h("p", {}, `The server knows no type named ${name}.`));
    return null;
  }
  if (ownPages[entry.short_name]) {
    location.replace(ownPages[entry.short_name]);
    return null;
  }
  return entry.kind === "quantity" ? quantityPage(page, entry) : samplesPage(page, entry);
}

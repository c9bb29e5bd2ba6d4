// Sleep: one night (18:00 to 12:00 in the owner's zone) as a timeline with a row per stage.
import { get } from "../api.js";
import { timeline } from "../charts.js";
import { h, section } from "../dom.js";
import { categoryName, formatClock, micros } from "../format.js";
import { samplesTable } from "./samples.js";

// Rows top to bottom: out of sleep first, then from light to deep.
const sleep = "HKCategoryTypeIdentifierSleepAnalysis";
const stageOrder = [0, 2, 5, 3, 4, 1];

/** The time the spans cover together: devices of several sources record the same sleep. */
function coveredMicros(spans) {
  let total = 0, reached = -Infinity;
  for (const span of spans.slice().sort((a, b) => a.start - b.start)) {
    const start = Math.max(span.start, reached);
    if (span.end > start) total += span.end - start;
    reached = Math.max(reached, span.end);
  }
  return total;
}

function night(offset) {
  const now = new Date();
  const morning = new Date(now.getFullYear(), now.getMonth(), now.getDate() + offset, 12);
  return [new Date(morning.getFullYear(), morning.getMonth(), morning.getDate() - 1, 18), morning];
}

/** The night holding the newest sleep sample (0 = last night), so the page opens on data. */
async function latestNight() {
  const { samples } = await get("/api/samples", { type: "SleepAnalysis", order: "desc", limit: 1 });
  if (samples.length === 0) return 0;
  const start = new Date(samples[0].start_micros / 1000);
  const morning = new Date(start.getFullYear(), start.getMonth(), start.getDate() + (start.getHours() >= 18 ? 1 : 0));
  const today = new Date();
  const days = Math.round((morning - new Date(today.getFullYear(), today.getMonth(), today.getDate())) / 864e5);
  return Math.min(days, 0);
}

export async function render(page) {
  let offset = await latestNight();
  const body = h("div", { id: "night" });
  async function redraw() {
    const [from, to] = night(offset);
    const { samples } = await get("/api/samples", { type: "SleepAnalysis", from: micros(from), to: micros(to), limit: 2000 });
    const spans = samples.map((sample) => ({
      row: sample.category_value, start: sample.start_micros, end: sample.end_micros,
      title: `${categoryName(sleep, sample.category_value)}: ${formatClock(sample.start_micros)}–${formatClock(sample.end_micros)}`,
    }));
    const asleep = coveredMicros(spans.filter((span) => [1, 3, 4, 5].includes(span.row))
      .map((span) => ({ start: Math.max(span.start, micros(from)), end: Math.min(span.end, micros(to)) })));
    body.replaceChildren(
      h("div", { class: "toolbar" },
        h("button", { type: "button", "aria-label": "previous night", onclick: () => { offset -= 1; redraw(); } }, "◀"),
        h("strong", {}, `Night of ${from.toLocaleDateString()}`),
        h("button", { type: "button", "aria-label": "next night", onclick: () => { offset = Math.min(offset + 1, 0); redraw(); } }, "▶")),
      samples.length ? h("p", {}, `Asleep ${Math.floor(asleep / 3.6e9)} h ${Math.round((asleep % 3.6e9) / 6e7)} min`)
        : h("p", { class: "hint" }, "No sleep recorded this night."),
      timeline(stageOrder.map((key) => ({ key, label: categoryName(sleep, key) })), spans, micros(from), micros(to), formatClock),
      samplesTable(samples));
  }
  page.replaceChildren(h("h1", {}, "Sleep"), section("Night", body));
  await redraw();
  return null;
}

// Blood pressure: each reading as a systolic/diastolic pair over the last 30 days.
import { get } from "../api.js";
import { pairs } from "../charts.js";
import { h, section, table } from "../dom.js";
import { formatTime, micros, sourceLabel } from "../format.js";

function reading(sample) {
  const part = (name) => (sample.objects || []).find((object) => object.type.endsWith(name));
  const high = part("BloodPressureSystolic"), low = part("BloodPressureDiastolic");
  return high && low ? { at: sample.start_micros, high: high.value, low: low.value, unit: high.unit, sample } : null;
}

export async function render(page) {
  const now = new Date();
  const from = new Date(now.getFullYear(), now.getMonth(), now.getDate() - 29);
  const { samples } = await get("/api/samples", { type: "BloodPressure", from: micros(from), to: micros(now) + 1, limit: 2000 });
  const readings = samples.map(reading).filter(Boolean);
  const unit = readings.length ? readings[0].unit : "mmHg";
  page.replaceChildren(h("h1", {}, "Blood pressure"),
    section(`Last 30 days (${unit})`, readings.length ? pairs(readings, unit, formatTime) : h("p", { class: "hint" }, "No readings in the last 30 days.")),
    section("Readings", table(["When", "Systolic", "Diastolic", "Source"], readings.slice().reverse().map((r) => [
      formatTime(r.at), `${r.high} ${r.unit}`, `${r.low} ${r.unit}`, sourceLabel(r.sample.source),
    ]), { id: "readings" })));
  return null;
}

// Small SVG charts. Every drawn value also sits in data-* attributes, so tests (and curious owners)
// can read the exact numbers the server answered.
import { s } from "./dom.js";
import { formatCompact, formatNumber, formatValue } from "./format.js";

const WIDTH = 720, HEIGHT = 220, LEFT = 56, BOTTOM = 24, TOP = 8;

function scale(domainMin, domainMax, rangeMin, rangeMax) {
  const span = domainMax - domainMin || 1;
  return (value) => rangeMin + ((value - domainMin) / span) * (rangeMax - rangeMin);
}

/** A line of values, no axes: the overview's glance at a type. */
export function sparkline(values, label) {
  const points = values.map((value, index) => [index, value]).filter(([, value]) => value !== null);
  const svg = s("svg", { class: "sparkline", viewBox: "0 0 120 28", role: "img", "aria-label": label });
  if (points.length === 0) return svg;
  const numbers = points.map(([, value]) => value);
  const x = scale(0, Math.max(values.length - 1, 1), 2, 118);
  const y = scale(Math.min(...numbers), Math.max(...numbers), 26, 2);
  svg.append(s("polyline", { points: points.map(([i, v]) => `${x(i).toFixed(1)},${y(v).toFixed(1)}`).join(" ") }));
  return svg;
}

function axis(maximum) {
  const y = scale(0, maximum, HEIGHT - BOTTOM, TOP);
  return s("g", { class: "axis" },
    s("line", { x1: LEFT, x2: WIDTH, y1: HEIGHT - BOTTOM, y2: HEIGHT - BOTTOM }),
    [0, maximum / 2, maximum].map((value) => s("text", { x: LEFT - 4, y: y(value) + 4, "text-anchor": "end" }, formatCompact(value))));
}

/**
 * A statistics collection as bars: the sum for cumulative types, the average with a minimum–maximum
 * whisker for discrete ones. `label(bucket)` names a bucket; `onSelect(index)` runs on click or Enter.
 */
export function statisticsChart(buckets, { cumulative, unit, label, onSelect, selected }) {
  const value = (bucket) => (cumulative ? bucket.sum : bucket.average);
  const tops = buckets.map((bucket) => (cumulative ? bucket.sum : bucket.maximum)).filter(Boolean).map((q) => q.value);
  const maximum = tops.length ? Math.max(...tops) * 1.05 || 1 : 1;
  const y = scale(0, maximum, HEIGHT - BOTTOM, TOP);
  const slot = (WIDTH - LEFT) / Math.max(buckets.length, 1);
  const width = Math.max(slot * 0.7, 1);
  const svg = s("svg", { class: "chart", viewBox: `0 0 ${WIDTH} ${HEIGHT}`, role: "group", "aria-label": `${unit} per bucket` }, axis(maximum));
  const step = Math.ceil(buckets.length / 8);
  buckets.forEach((bucket, index) => {
    const x = LEFT + index * slot + (slot - width) / 2;
    const shown = value(bucket);
    const text = `${label(bucket)}: ${shown ? formatValue(shown.value, unit) : "no data"}`;
    const group = s("g", {
      class: `bucket${index === selected ? " selected" : ""}`, tabindex: 0, role: "button", "aria-label": text,
      dataset: {
        index, startMicros: bucket.start_micros, endMicros: bucket.end_micros,
        value: shown ? shown.value : "", minimum: bucket.minimum ? bucket.minimum.value : "",
        maximum: bucket.maximum ? bucket.maximum.value : "",
      },
    }, s("title", {}, text));
    group.append(s("rect", { class: "hit", x: LEFT + index * slot, y: TOP, width: slot, height: HEIGHT - BOTTOM - TOP }));
    if (shown && cumulative) {
      group.append(s("rect", { class: "bar", x, y: y(shown.value), width, height: Math.max(y(0) - y(shown.value), 0.5) }));
    } else if (shown) {
      const middle = x + width / 2;
      group.append(s("line", { class: "whisker", x1: middle, x2: middle, y1: y(bucket.minimum.value), y2: y(bucket.maximum.value) }));
      group.append(s("circle", { class: "dot", cx: middle, cy: y(shown.value), r: Math.min(Math.max(width / 3, 1.5), 4) }));
    }
    if (index % step === 0) group.append(s("text", { class: "tick", x: x + width / 2, y: HEIGHT - 8, "text-anchor": "middle" }, label(bucket, true)));
    group.addEventListener("click", () => onSelect(index));
    group.addEventListener("keydown", (event) => { if (event.key === "Enter" || event.key === " ") { event.preventDefault(); onSelect(index); } });
    svg.append(group);
  });
  return svg;
}

/**
 * Intervals on rows over one time span: the sleep night. `rows` are [{key, label}], `spans`
 * are [{row, start, end, title}] in microseconds.
 */
export function timeline(rows, spans, from, to, tickLabel) {
  const rowHeight = 28, height = rows.length * rowHeight + BOTTOM;
  const x = scale(from, to, LEFT + 60, WIDTH);
  const svg = s("svg", { class: "chart timeline", viewBox: `0 0 ${WIDTH} ${height}`, role: "img", "aria-label": "timeline" });
  rows.forEach((row, index) => svg.append(s("text", { class: "row-label", x: LEFT + 52, y: index * rowHeight + 18, "text-anchor": "end" }, row.label)));
  for (const span of spans) {
    const index = rows.findIndex((row) => row.key === span.row);
    if (index < 0) continue;
    const x1 = x(Math.max(span.start, from)), x2 = x(Math.min(span.end, to));
    svg.append(s("rect", {
      class: `span stage-${span.row}`, x: x1, y: index * rowHeight + 4, width: Math.max(x2 - x1, 1), height: rowHeight - 8,
      dataset: { startMicros: span.start, endMicros: span.end, stage: span.row },
    }, s("title", {}, span.title)));
  }
  for (let hour = 0; hour <= 6; hour++) {
    const at = from + ((to - from) * hour) / 6;
    svg.append(s("text", { class: "tick", x: x(at), y: height - 6, "text-anchor": "middle" }, tickLabel(at)));
  }
  return svg;
}

/** Paired readings (blood pressure): a line from low to high per reading, dots at both ends. */
export function pairs(readings, unit, tickLabel) {
  const values = readings.flatMap((reading) => [reading.low, reading.high]);
  const minimum = Math.min(...values, 60) * 0.9, maximum = Math.max(...values, 140) * 1.05;
  const y = scale(minimum, maximum, HEIGHT - BOTTOM, TOP);
  const times = readings.map((reading) => reading.at);
  const x = scale(Math.min(...times), Math.max(...times) + 1, LEFT + 8, WIDTH - 8);
  const svg = s("svg", { class: "chart pairs", viewBox: `0 0 ${WIDTH} ${HEIGHT}`, role: "img", "aria-label": `readings in ${unit}` },
    s("g", { class: "axis" }, [minimum, (minimum + maximum) / 2, maximum].map((value) =>
      s("text", { x: LEFT - 4, y: y(value) + 4, "text-anchor": "end" }, formatNumber(Math.round(value))))));
  for (const reading of readings) {
    const at = x(reading.at);
    svg.append(s("g", { class: "pair", dataset: { high: reading.high, low: reading.low, micros: reading.at } },
      s("title", {}, `${tickLabel(reading.at)}: ${reading.high}/${reading.low} ${unit}`),
      s("line", { x1: at, x2: at, y1: y(reading.low), y2: y(reading.high) }),
      s("circle", { class: "high", cx: at, cy: y(reading.high), r: 3 }),
      s("circle", { class: "low", cx: at, cy: y(reading.low), r: 3 })));
  }
  return svg;
}

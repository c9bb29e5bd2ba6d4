// How values, times, sources and devices read on the page, in the owner's (the browser's) time zone.
export const timeZone = Intl.DateTimeFormat().resolvedOptions().timeZone || "UTC";

const dateTime = new Intl.DateTimeFormat(undefined, { dateStyle: "medium", timeStyle: "short" });
const timeOnly = new Intl.DateTimeFormat(undefined, { hour: "2-digit", minute: "2-digit" });
const number = new Intl.NumberFormat(undefined, { maximumFractionDigits: 2 });

export const micros = (date) => date.getTime() * 1000;
export const toDate = (value) => new Date(Math.floor(value / 1000));
export const formatTime = (value) => dateTime.format(toDate(value));
export const formatClock = (value) => timeOnly.format(toDate(value));
export const formatNumber = (value) => number.format(value);

export function formatQuantity(quantity) {
  return quantity ? `${number.format(quantity.value)} ${quantity.unit}` : "—";
}

/** A type's readable name: "HeartRate" → "Heart Rate". */
export function typeLabel(shortName) {
  return String(shortName || "").replace(/([a-z])([A-Z0-9])/g, "$1 $2");
}

export function shortName(identifier) {
  return String(identifier).replace(/^HK[A-Za-z]*?TypeIdentifier/, "");
}

export function sourceLabel(source) {
  if (!source) return "—";
  return source.version ? `${source.name} ${source.version}` : source.name;
}

export function deviceLabel(device) {
  if (!device) return "no device";
  return [device.name, device.model].filter(Boolean).join(" · ") || device.manufacturer || "device";
}

/** What a sample says, in a few words: its value, category value, readings or workout. */
export function sampleValue(sample) {
  switch (sample.kind) {
    case "quantity": return `${number.format(sample.value)} ${sample.unit}`;
    case "category": return `value ${sample.category_value}`;
    case "correlation": return (sample.objects || []).map(sampleValue).join(" / ");
    case "workout": return `${sample.workout.activity_type} · ${Math.round(sample.workout.duration_micros / 60e6)} min`;
    default: return "";
  }
}

export function metadataText(metadata) {
  return Object.entries(metadata || {}).map(([key, value]) => {
    if (value && typeof value === "object") return `${key}=${"micros" in value ? formatTime(value.micros) : `${value.value} ${value.unit}`}`;
    return `${key}=${value}`;
  }).join(", ");
}

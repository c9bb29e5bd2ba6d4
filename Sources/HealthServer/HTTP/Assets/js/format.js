// How values, times, sources and devices read on the page, in the owner's (the browser's) time zone.
export const timeZone = Intl.DateTimeFormat().resolvedOptions().timeZone || "UTC";

const dateTime = new Intl.DateTimeFormat(undefined, { dateStyle: "medium", timeStyle: "short" });
const timeOnly = new Intl.DateTimeFormat(undefined, { hour: "2-digit", minute: "2-digit" });
const number = new Intl.NumberFormat(undefined, { maximumFractionDigits: 2 });
const compact = new Intl.NumberFormat(undefined, { notation: "compact", maximumFractionDigits: 1 });

export const micros = (date) => date.getTime() * 1000;
const toDate = (value) => new Date(Math.floor(value / 1000));
export const formatTime = (value) => dateTime.format(toDate(value));
export const formatClock = (value) => timeOnly.format(toDate(value));
export const formatNumber = (value) => number.format(value);
export const formatCompact = (value) => compact.format(value);

/** A value in its unit; HealthKit's "%" holds a fraction (0.97), read as 97 %. */
export function formatValue(value, unit) {
  return unit === "%" ? `${number.format(value * 100)} %` : `${number.format(value)} ${unit}`;
}

export function formatQuantity(quantity) {
  return quantity ? formatValue(quantity.value, quantity.unit) : "—";
}

// Category value and workout activity names as the server's catalog gives them (`useNames`).
let valueNames = new Map();
let activities = {};

/** Takes the names from a `/api/catalog` answer; catalog.js calls it once per sign-in. */
export function useNames(catalog) {
  valueNames = new Map(catalog.types.filter((entry) => entry.value_names).map((entry) => [entry.type, entry.value_names]));
  activities = catalog.workout_activity_types || {};
}

/** "asleepREM" → "Asleep REM", "traditionalStrengthTraining" → "Traditional strength training". */
function readable(name) {
  const text = name.replace(/([a-z])([A-Z])/g, "$1 $2").split(" ")
    .map((word) => (/^[A-Z]{2,}$/.test(word) ? word : word.toLowerCase())).join(" ");
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/** A category type's value by name ("In bed" for sleep's 0), else the number. */
export function categoryName(type, raw) {
  const name = (valueNames.get(type) || {})[raw];
  return name ? readable(name) : `value ${raw}`;
}

export const activityName = (raw) => (activities[raw] ? readable(activities[raw]) : `Activity ${raw}`);

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

/** A workout's duration, else its time span. */
export function workoutMicros(sample) {
  return sample.workout.duration_micros ?? sample.end_micros - sample.start_micros;
}

/** What a sample says, in a few words: its value, category value, readings, workout or the other kinds' gist. */
export function sampleValue(sample) {
  switch (sample.kind) {
    case "quantity": return formatValue(sample.value, sample.unit);
    case "category": return categoryName(sample.type, sample.category_value);
    case "correlation": return (sample.objects || []).map(sampleValue).join(" / ");
    case "workout": return `${activityName(sample.workout.activity_type)} · ${Math.round(workoutMicros(sample) / 6e7)} min`;
    case "electrocardiogram": return `ECG · ${sample.electrocardiogram.number_of_voltage_measurements} voltages`;
    case "audiogram": return `${sample.audiogram.points.length} frequencies`;
    case "state_of_mind": return `valence ${sample.state_of_mind.valence}`;
    case "scored_assessment": return `score ${sample.scored_assessment.score}`;
    default: return "";
  }
}

export function metadataText(metadata) {
  return Object.entries(metadata || {}).map(([key, value]) => {
    if (value && typeof value === "object") return `${key}=${"micros" in value ? formatTime(value.micros) : formatQuantity(value)}`;
    return `${key}=${value}`;
  }).join(", ");
}

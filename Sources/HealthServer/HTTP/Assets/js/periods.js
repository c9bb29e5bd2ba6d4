// The chart periods: where each starts in the owner's calendar, its bucket size, and how a bucket is named.
const dayName = new Intl.DateTimeFormat(undefined, { weekday: "short", day: "numeric" });
const monthDay = new Intl.DateTimeFormat(undefined, { month: "short", day: "numeric" });
const hourName = new Intl.DateTimeFormat(undefined, { hour: "2-digit" });
const full = new Intl.DateTimeFormat(undefined, { dateStyle: "medium", timeStyle: "short" });

function startOfDay(date) {
  return new Date(date.getFullYear(), date.getMonth(), date.getDate());
}

function addDays(date, days) {
  return new Date(date.getFullYear(), date.getMonth(), date.getDate() + days);
}

/** `offset` 0 is the period holding now, -1 the one before. */
export const periods = {
  day: { interval: "hour", range(offset) { const from = addDays(startOfDay(new Date()), offset); return [from, addDays(from, 1)]; }, tick: hourName },
  week: { interval: "day", range(offset) { const to = addDays(startOfDay(new Date()), 1 + 7 * offset); return [addDays(to, -7), to]; }, tick: dayName },
  month: { interval: "day", range(offset) { const to = addDays(startOfDay(new Date()), 1 + 30 * offset); return [addDays(to, -30), to]; }, tick: monthDay },
  // A year of daily buckets from one call: each day's bar, as the issue asks of steps.
  year: { interval: "day", range(offset) { const to = addDays(startOfDay(new Date()), 1 + 365 * offset); return [addDays(to, -365), to]; }, tick: monthDay },
};

/** A bucket's name: short for the axis, full for the title. */
export function bucketLabel(period, bucket, short) {
  const date = new Date(bucket.start_micros / 1000);
  return short ? periods[period].tick.format(date) : full.format(date);
}

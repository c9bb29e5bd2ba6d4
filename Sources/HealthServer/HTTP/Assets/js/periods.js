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

/** The `count` days ending tonight; `offset` -1 is the `count` days before those. */
export function lastDays(count) {
  return (offset) => {
    const to = addDays(startOfDay(new Date()), 1 + count * offset);
    return [addDays(to, -count), to];
  };
}

export const periods = {
  day: { interval: "hour", range: lastDays(1), tick: hourName },
  week: { interval: "day", range: lastDays(7), tick: dayName },
  month: { interval: "day", range: lastDays(30), tick: monthDay },
  // A year of daily buckets, all from one statistics call.
  year: { interval: "day", range: lastDays(365), tick: monthDay },
};

/** A bucket's name: short for the axis, full for the title. */
export function bucketLabel(period, bucket, short) {
  const date = new Date(bucket.start_micros / 1000);
  return short ? periods[period].tick.format(date) : full.format(date);
}

// Workouts: the latest ones with their activity, duration and statistics. Routes have no store yet,
// so no map is drawn.
import { get } from "../api.js";
import { h, section, table } from "../dom.js";
import { formatQuantity, formatTime, shortName, sourceLabel, typeLabel } from "../format.js";

// HKWorkoutActivityType raw values for the activities devices commonly record.
const activities = {
  13: "Cycling", 16: "Elliptical", 20: "Functional strength", 24: "Hiking", 35: "Rowing", 37: "Running",
  46: "Swimming", 50: "Strength training", 52: "Walking", 57: "Yoga", 63: "HIIT",
};

function statistics(workout) {
  return (workout.statistics || []).map((entry) =>
    `${typeLabel(shortName(entry.quantity_type))} ${formatQuantity(entry.sum || entry.average)}`).join(", ");
}

export async function render(page) {
  const { samples } = await get("/api/samples", { type: "Workout", order: "desc", limit: 200 });
  page.replaceChildren(h("h1", {}, "Workouts"), section("Latest workouts", samples.length === 0
    ? h("p", { class: "hint" }, "No workouts stored.")
    : table(["Start", "Activity", "Duration", "Statistics", "Source"], samples.map((sample) => [
      formatTime(sample.start_micros),
      activities[sample.workout.activity_type] || `Activity ${sample.workout.activity_type}`,
      `${Math.round((sample.workout.duration_micros ?? sample.end_micros - sample.start_micros) / 6e7)} min`,
      statistics(sample.workout), sourceLabel(sample.source),
    ]), { id: "workouts" })));
  return null;
}

// Workouts: the latest ones with their activity, duration and statistics. Routes have no store yet,
// so no map is drawn.
import { get } from "../api.js";
import { h, section, table } from "../dom.js";
import { activityName, formatQuantity, formatTime, shortName, sourceLabel, typeLabel, workoutMicros } from "../format.js";

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
      activityName(sample.workout.activity_type), `${Math.round(workoutMicros(sample) / 6e7)} min`,
      statistics(sample.workout), sourceLabel(sample.source),
    ]), { id: "workouts" })));
  return null;
}

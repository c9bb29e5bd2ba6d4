// The samples table every type page shares: time, value, source revision, device and metadata.
import { h, table } from "../dom.js";
import { deviceLabel, formatTime, metadataText, sampleValue } from "../format.js";

function revision(source) {
  if (!source) return "—";
  return [source.name, source.version && `v${source.version}`, source.product_type, source.os_version && `OS ${source.os_version}`]
    .filter(Boolean).join(" · ");
}

export function samplesTable(samples, id = "samples") {
  if (samples.length === 0) return h("p", { id, class: "hint" }, "No samples in this range.");
  const rows = table(["Start", "End", "Value", "Source revision", "Device", "Metadata"], samples.map((sample) => [
    formatTime(sample.start_micros), formatTime(sample.end_micros), sampleValue(sample),
    revision(sample.source), deviceLabel(sample.device), metadataText(sample.metadata),
  ]), { id, class: "samples" });
  samples.forEach((sample, index) => { rows.tBodies[0].rows[index].dataset.uuid = sample.uuid; });
  return rows;
}

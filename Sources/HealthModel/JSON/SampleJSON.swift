import Foundation

// The stable JSON form of stored objects, parsed by scripts and the Python interop tests:
// {
//   "uuid": "E621E1F8-…" (canonical upper-case), "type": "HKQuantityTypeIdentifierHeartRate",
//   "kind": "quantity" | "category" | "correlation" | "workout" | "electrocardiogram" | "audiogram" | "state_of_mind"
//           | "scored_assessment",
//   "start": ISO-8601 UTC, "end": ISO-8601 UTC, "start_micros": Int, "end_micros": Int,
//   quantity:    "value": Double, "unit": String, "count": Int, and on a discrete series sample only
//                "discrete_series": {"minimum", "maximum", "most_recent": {"value", "unit"},
//                                    "most_recent_start_micros", "most_recent_end_micros"}
//   category:    "category_value": Int
//   correlation: "objects": [sample, …]
//   workout:     "workout": {"activity_type": Int, "duration_micros": Int|null, "associated": [uuid, …],
//                 "events": [event, …], "activities": [activity, …], "statistics": [statistic, …]}
//     event:     {"type": Int (HKWorkoutEventType), "start_micros", "end_micros", "metadata", "metadata_types"}
//     activity:  {"uuid", "activity_type", "start_micros", "end_micros", "metadata", "metadata_types", "events",
//                 "statistics"}
//     statistic: {"quantity_type", "sum", "average", "minimum", "maximum"}, each {"value", "unit"} | null
//   electrocardiogram: "electrocardiogram": {"classification": Int, "symptoms_status": Int, "average_heart_rate",
//                 "sampling_frequency" ({"value", "unit"} | null), "number_of_voltage_measurements": Int,
//                 "voltages": [[offset_micros, microvolts], …] (only when the sample carries them: an export does)}
//   audiogram:   "audiogram": {"points": [{"frequency": {"value", "unit"}, "tests": [{"sensitivity": {"value", "unit"},
//                 "conduction_type": Int, "masked": Bool, "side": Int, "clamping_lower_bound", "clamping_upper_bound"}]}]}
//   state of mind: "state_of_mind": {"kind": Int, "valence": Double, "valence_classification": Int (derived),
//                 "labels": [Int], "associations": [Int]}
//   scored assessment: "scored_assessment": {"answers": [Int], "score": Int, "risk": Int} (score and risk derived)
//   "source": {"name", "bundle_id", "version", "product_type", "os_version"} | null,
//   "device": {"name", "manufacturer", "model", "hardware_version", "firmware_version",
//              "software_version", "local_identifier", "udi_device_identifier"} | null,
//   "metadata": {key: String | Int | Double | Bool | {"date": ISO, "micros": Int} | {"value", "unit"}},
//   "metadata_types": {key: "string" | "int" | "double" | "bool" | "date" | "quantity"} (JSON writes the
//                     double 1.0 as 1, so this keeps integral doubles apart from ints),
//   "creation_micros": Int | null
// }
// Keys are sorted; absent optional fields are null. The form carries everything needed to recreate the
// object (SampleJSONDecoding.swift reads it back; `healthctl export`/`import` use it).
/// Samples, devices and sources in the stable JSON form above.
public enum SampleJSON {
    public static func sample(_ s: Sample, zone: TimeZone? = nil) -> JSON {
        var fields: [String: JSON] = [
            "uuid": .string(s.uuid.uuidString),
            "type": .string(s.type),
            "start": .string(Time.iso8601(s.start, in: zone)),
            "end": .string(Time.iso8601(s.end, in: zone)),
            "start_micros": .int(s.start),
            "end_micros": .int(s.end),
            "source": s.sourceRevision.map(revision) ?? .null,
            "device": s.device.map(device) ?? .null,
            "metadata": metadata(s.metadata),
            "metadata_types": metadataTypes(s.metadata),
            "creation_micros": s.creationTime.map(JSON.int) ?? .null,
        ]
        switch s.body {
        case .quantity(let q, let count):
            fields["kind"] = .string("quantity")
            fields["value"] = .double(q.value)
            fields["unit"] = .string(q.unit)
            fields["count"] = .int(count)
            if let series = s.discreteSeries {
                fields["discrete_series"] = .object([
                    "minimum": quantity(series.minimum), "maximum": quantity(series.maximum),
                    "most_recent": quantity(series.mostRecent), "most_recent_start_micros": .int(series.mostRecentStart),
                    "most_recent_end_micros": .int(series.mostRecentEnd),
                ])
            }
        case .category(let value):
            fields["kind"] = .string("category")
            fields["category_value"] = .int(value)
        case .correlation(let objects):
            fields["kind"] = .string("correlation")
            fields["objects"] = .array(objects.map { sample($0, zone: zone) })
        case .workout(let w):
            fields["kind"] = .string("workout")
            fields["workout"] = .object([
                "activity_type": .int(Int64(w.activityType)),
                "duration_micros": w.duration.map(JSON.int) ?? .null,
                "associated": .array(w.associatedSampleUUIDs.map { .string($0.uuidString) }),
                "events": .array(w.events.map(event)),
                "activities": .array(w.activities.map(activity)),
                "statistics": .array(w.statistics.map(statistic)),
            ])
        case .electrocardiogram, .audiogram, .stateOfMind, .scoredAssessment:
            let (kind, body) = kindBody(s)
            fields["kind"] = .string(kind)
            fields[kind] = body
        case .series(let count):
            fields["kind"] = .string("series")
            fields["count"] = .int(count)
        }
        return .object(fields)
    }

    public static func event(_ e: WorkoutEvent) -> JSON {
        .object(["type": .int(Int64(e.type.rawValue)), "start_micros": .int(e.start), "end_micros": .int(e.end),
                 "metadata": metadata(e.metadata), "metadata_types": metadataTypes(e.metadata)])
    }

    public static func activity(_ a: WorkoutActivity) -> JSON {
        .object(["uuid": .string(a.uuid.uuidString), "activity_type": .int(Int64(a.activityType)),
                 "start_micros": .int(a.start), "end_micros": .int(a.end), "metadata": metadata(a.metadata),
                 "metadata_types": metadataTypes(a.metadata), "events": .array(a.events.map(event)),
                 "statistics": .array(a.statistics.map(statistic))])
    }

    public static func statistic(_ s: WorkoutStatistic) -> JSON {
        .object(["quantity_type": .string(s.quantityType), "sum": quantity(s.sum), "average": quantity(s.average),
                 "minimum": quantity(s.minimum), "maximum": quantity(s.maximum)])
    }

    public static func quantity(_ q: Quantity?) -> JSON {
        q.map { .object(["value": .double($0.value), "unit": .string($0.unit)]) } ?? .null
    }

    public static func revision(_ r: SourceRevision) -> JSON {
        .object(["name": .string(r.source.name), "bundle_id": .string(r.source.bundleID), "version": .optional(r.version),
                 "product_type": .optional(r.productType), "os_version": .string(r.osVersionString)])
    }

    public static func device(_ d: Device) -> JSON {
        .object(["name": .optional(d.name), "manufacturer": .optional(d.manufacturer), "model": .optional(d.model),
                 "hardware_version": .optional(d.hardwareVersion), "firmware_version": .optional(d.firmwareVersion),
                 "software_version": .optional(d.softwareVersion), "local_identifier": .optional(d.localIdentifier),
                 "udi_device_identifier": .optional(d.udiDeviceIdentifier)])
    }

    public static func metadata(_ m: Metadata) -> JSON {
        .object(m.mapValues { value in
            switch value {
            case .string(let v): .string(v)
            case .double(let v): .double(v)
            case .int(let v): .int(v)
            case .bool(let v): .bool(v)
            case .date(let v): .object(["date": .string(Time.iso8601(v)), "micros": .int(v)])
            case .quantity(let q): quantity(q)
            }
        })
    }

    public static func metadataTypes(_ m: Metadata) -> JSON {
        .object(m.mapValues { .string(metadataKind($0)) })
    }

    public static func metadataKind(_ value: MetadataValue) -> String {
        switch value {
        case .string: "string"
        case .double: "double"
        case .int: "int"
        case .bool: "bool"
        case .date: "date"
        case .quantity: "quantity"
        }
    }
}

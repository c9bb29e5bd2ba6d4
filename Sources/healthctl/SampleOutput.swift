import Foundation
import HealthModel

// The stable JSON form of stored objects, parsed by scripts and the Python interop tests:
// {
//   "uuid": "E621E1F8-…" (canonical upper-case), "type": "HKQuantityTypeIdentifierHeartRate",
//   "kind": "quantity" | "category" | "correlation" | "workout",
//   "start": ISO-8601 UTC, "end": ISO-8601 UTC, "start_micros": Int, "end_micros": Int,
//   quantity:    "value": Double, "unit": String, "count": Int
//   category:    "category_value": Int
//   correlation: "objects": [sample, …]
//   workout:     "workout": {"activity_type": Int, "duration_micros": Int|null, "associated": [uuid, …]}
//   "source": {"name", "bundle_id", "version", "product_type", "os_version"} | null,
//   "device": {"name", "manufacturer", "model", "hardware_version", "firmware_version",
//              "software_version", "local_identifier", "udi_device_identifier"} | null,
//   "metadata": {key: String | Int | Double | Bool | {"date": ISO, "micros": Int} | {"value", "unit"}},
//   "creation_micros": Int | null
// }
// Keys are sorted; absent optional fields are null.
enum SampleJSON {
    static func sample(_ s: Sample) -> JSON {
        var fields: [String: JSON] = [
            "uuid": .string(s.uuid.uuidString),
            "type": .string(s.type),
            "start": .string(Time.iso8601(s.start)),
            "end": .string(Time.iso8601(s.end)),
            "start_micros": .int(s.start),
            "end_micros": .int(s.end),
            "source": s.sourceRevision.map(revision) ?? .null,
            "device": s.device.map(device) ?? .null,
            "metadata": metadata(s.metadata),
            "creation_micros": s.creationTime.map(JSON.int) ?? .null,
        ]
        switch s.body {
        case .quantity(let q, let count):
            fields["kind"] = .string("quantity")
            fields["value"] = .double(q.value)
            fields["unit"] = .string(q.unit)
            fields["count"] = .int(count)
        case .category(let value):
            fields["kind"] = .string("category")
            fields["category_value"] = .int(value)
        case .correlation(let objects):
            fields["kind"] = .string("correlation")
            fields["objects"] = .array(objects.map(sample))
        case .workout(let w):
            fields["kind"] = .string("workout")
            fields["workout"] = .object([
                "activity_type": .int(Int64(w.activityType)),
                "duration_micros": w.duration.map(JSON.int) ?? .null,
                "associated": .array(w.associatedSampleUUIDs.map { .string($0.uuidString) }),
            ])
        }
        return .object(fields)
    }

    static func revision(_ r: SourceRevision) -> JSON {
        .object(["name": .string(r.source.name), "bundle_id": .string(r.source.bundleID), "version": .optional(r.version),
                 "product_type": .optional(r.productType), "os_version": .string(r.osVersionString)])
    }

    static func device(_ d: Device) -> JSON {
        .object(["name": .optional(d.name), "manufacturer": .optional(d.manufacturer), "model": .optional(d.model),
                 "hardware_version": .optional(d.hardwareVersion), "firmware_version": .optional(d.firmwareVersion),
                 "software_version": .optional(d.softwareVersion), "local_identifier": .optional(d.localIdentifier),
                 "udi_device_identifier": .optional(d.udiDeviceIdentifier)])
    }

    static func metadata(_ m: Metadata) -> JSON {
        .object(m.mapValues { value in
            switch value {
            case .string(let v): .string(v)
            case .double(let v): .double(v)
            case .int(let v): .int(v)
            case .bool(let v): .bool(v)
            case .date(let v): .object(["date": .string(Time.iso8601(v)), "micros": .int(v)])
            case .quantity(let q): .object(["value": .double(q.value), "unit": .string(q.unit)])
            }
        })
    }
}

/// The people-facing columns of samples.
enum SampleTable {
    static let columns = ["START", "END", "TYPE", "VALUE", "UNIT", "SOURCE", "DEVICE", "UUID"]

    static func row(_ s: Sample) -> [String] {
        let (value, unit): (String, String) = switch s.body {
        case .quantity(let q, _): (formatNumber(q.value), q.unit)
        case .category(let v): (String(v), "")
        case .correlation(let objects): (objects.compactMap { $0.quantity.map { formatNumber($0.value) } }.joined(separator: "/"), "")
        case .workout(let w): ("activity \(w.activityType)", "")
        }
        return [Time.iso8601(s.start), Time.iso8601(s.end), shortName(s.type), value, unit,
                s.sourceRevision?.source.bundleID ?? "", deviceLabel(s.device), s.uuid.uuidString]
    }

    static func report(_ samples: [Sample]) -> Report {
        Report(table: Table(columns: columns, rows: samples.map(row)), json: .array(samples.map(SampleJSON.sample)))
    }
}

/// A short label for a device: its name, else model, else manufacturer.
func deviceLabel(_ device: Device?) -> String {
    device?.name ?? device?.model ?? device?.manufacturer ?? ""
}

/// "HeartRate" for "HKQuantityTypeIdentifierHeartRate"; unknown identifiers unchanged.
func shortName(_ identifier: String) -> String {
    TypeCatalog.type(identifier)?.shortName ?? identifier
}

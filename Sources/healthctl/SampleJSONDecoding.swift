import Foundation
import HealthModel

// Reading the documented sample JSON (SampleOutput.swift) back into samples.
extension SampleJSON {
    /// The sample one exported JSON line describes.
    static func decode(line: String) throws(HealthError) -> Sample {
        try decode(try JSON.parse(line), path: "")
    }

    /// The sample a JSON object describes, including the store-stamped source and creation time.
    static func decode(_ json: JSON, path: String) throws(HealthError) -> Sample {
        let f = try JSONFields(json, path: path)
        let body: SampleBody
        let kind = try f.string("kind")
        switch kind {
        case "quantity":
            body = .quantity(Quantity(try f.double("value"), try f.string("unit")), count: try f.int("count"))
        case "category":
            body = .category(try f.int("category_value"))
        case "correlation":
            var children: [Sample] = []
            for (i, child) in try f.array("objects").enumerated() {
                children.append(try decode(child, path: f.elementPath("objects", i)))
            }
            body = .correlation(children)
        case "workout":
            body = .workout(try workout(try f.object("workout")))
        case "electrocardiogram", "audiogram", "state_of_mind", "scored_assessment":
            body = try kindBody(kind, try f.object(kind))
        case "series":
            body = .series(count: try f.int("count"))
        default:
            throw HealthError.invalid("kind must be quantity, category, correlation, workout, series, electrocardiogram, "
                                      + "audiogram, state_of_mind or scored_assessment, got '\(kind)'", field: "kind")
        }
        return Sample(uuid: try f.uuid("uuid"), type: try f.string("type"), start: try f.int("start_micros"),
                      end: try f.int("end_micros"), metadata: try metadata(f), device: try f.optionalObject("device").map(device),
                      sourceRevision: try f.optionalObject("source").map(revision),
                      creationTime: try f.optionalInt("creation_micros"), body: body)
    }

    private static func workout(_ f: JSONFields) throws(HealthError) -> Workout {
        var associated: [UUID] = []
        for (i, item) in try f.array("associated").enumerated() {
            guard case .string(let text) = item, let uuid = UUID(uuidString: text) else {
                throw HealthError.invalid("\(f.elementPath("associated", i)) must be a UUID", field: f.elementPath("associated", i))
            }
            associated.append(uuid)
        }
        var activities: [WorkoutActivity] = []
        for (i, item) in try f.array("activities").enumerated() {
            let a = try JSONFields(item, path: f.elementPath("activities", i))
            activities.append(WorkoutActivity(uuid: try a.uuid("uuid"), activityType: try int32(a, "activity_type"),
                                              start: try a.int("start_micros"), end: try a.int("end_micros"),
                                              metadata: try metadata(a), events: try events(a), statistics: try statistics(a)))
        }
        return Workout(activityType: try int32(f, "activity_type"), duration: try f.optionalInt("duration_micros"),
                       events: try events(f), activities: activities, statistics: try statistics(f),
                       associatedSampleUUIDs: associated)
    }

    private static func events(_ f: JSONFields) throws(HealthError) -> [WorkoutEvent] {
        var events: [WorkoutEvent] = []
        for (i, item) in try f.array("events").enumerated() {
            let e = try JSONFields(item, path: f.elementPath("events", i))
            let raw = try int32(e, "type")
            guard let type = WorkoutEventType(rawValue: raw) else {
                throw HealthError.invalid("\(e.path).type \(raw) is not an HKWorkoutEventType (1…8)", field: "\(e.path).type")
            }
            events.append(WorkoutEvent(type: type, start: try e.int("start_micros"), end: try e.int("end_micros"),
                                       metadata: try metadata(e)))
        }
        return events
    }

    private static func statistics(_ f: JSONFields) throws(HealthError) -> [WorkoutStatistic] {
        var statistics: [WorkoutStatistic] = []
        for (i, item) in try f.array("statistics").enumerated() {
            let s = try JSONFields(item, path: f.elementPath("statistics", i))
            statistics.append(WorkoutStatistic(quantityType: try s.string("quantity_type"), sum: try quantity(s, "sum"),
                                               average: try quantity(s, "average"), minimum: try quantity(s, "minimum"),
                                               maximum: try quantity(s, "maximum")))
        }
        return statistics
    }

    static func quantity(_ f: JSONFields, _ key: String) throws(HealthError) -> Quantity? {
        guard let q = try f.optionalObject(key) else { return nil }
        return Quantity(try q.double("value"), try q.string("unit"))
    }

    static func int32(_ f: JSONFields, _ key: String) throws(HealthError) -> Int32 {
        let v = try f.int(key)
        guard let narrow = Int32(exactly: v) else { throw HealthError.invalid("\(key) \(v) is out of range", field: key) }
        return narrow
    }

    private static func device(_ f: JSONFields) throws(HealthError) -> Device {
        Device(name: try f.optionalString("name"), manufacturer: try f.optionalString("manufacturer"),
               model: try f.optionalString("model"), hardwareVersion: try f.optionalString("hardware_version"),
               firmwareVersion: try f.optionalString("firmware_version"),
               softwareVersion: try f.optionalString("software_version"),
               localIdentifier: try f.optionalString("local_identifier"),
               udiDeviceIdentifier: try f.optionalString("udi_device_identifier"))
    }

    private static func revision(_ f: JSONFields) throws(HealthError) -> SourceRevision {
        let (major, minor, patch) = try osVersion(try f.string("os_version"), path: f.path)
        return SourceRevision(source: Source(name: try f.string("name"), bundleID: try f.string("bundle_id")),
                              version: try f.optionalString("version"), productType: try f.optionalString("product_type"),
                              osMajor: major, osMinor: minor, osPatch: patch)
    }

    /// The numbers of a source's "os_version" (at `path`), which must be MAJOR.MINOR.PATCH.
    static func osVersion(_ text: String, path: String) throws(HealthError) -> (Int, Int, Int) {
        let os = text.split(separator: ".").map { Int($0) }
        guard os.count == 3, let major = os[0], let minor = os[1], let patch = os[2] else {
            throw HealthError.invalid("\(path).os_version must be MAJOR.MINOR.PATCH", field: "\(path).os_version")
        }
        return (major, minor, patch)
    }

    /// The "metadata" of an object, typed by its "metadata_types" (inferred from the JSON when absent).
    private static func metadata(_ f: JSONFields) throws(HealthError) -> Metadata {
        let values = try f.object("metadata")
        let kinds = f.isNull("metadata_types") ? nil : try f.object("metadata_types")
        var metadata: Metadata = [:]
        for key in values.fields.keys {
            metadata[key] = try metadataValue(values, key, kind: try kinds?.optionalString(key))
        }
        return metadata
    }

    private static func metadataValue(_ f: JSONFields, _ key: String, kind: String?) throws(HealthError) -> MetadataValue {
        let value = f.fields[key] ?? .null
        switch (kind, value) {
        case ("string", _), (nil, .string): return .string(try f.string(key))
        case ("bool", _), (nil, .bool):
            guard case .bool(let v) = value else { throw HealthError.invalid("\(f.path).\(key) must be a bool", field: "\(f.path).\(key)") }
            return .bool(v)
        case ("int", _), (nil, .int): return .int(try f.int(key))
        case ("double", _), (nil, .double): return .double(try f.double(key))
        case ("date", _): return .date(try f.object(key).int("micros"))
        case (nil, .object(let fields)) where fields["micros"] != nil: return .date(try f.object(key).int("micros"))
        case ("quantity", _), (nil, .object):
            let q = try f.object(key)
            return .quantity(Quantity(try q.double("value"), try q.string("unit")))
        default:
            throw HealthError.invalid("\(f.path).\(key): cannot read \(kind ?? "a value") from \(value.text(pretty: false))",
                                      field: "\(f.path).\(key)")
        }
    }

    /// The sample as a client saves it: without the store-stamped creation time, and without its
    /// source unless `keepingSource` (an owner's import keeping sources; a correlation's objects
    /// are saved as its source, so theirs is dropped either way).
    static func unsaved(_ s: Sample, keepingSource: Bool = false) -> Sample {
        let body: SampleBody = if case .correlation(let children) = s.body { .correlation(children.map { unsaved($0) }) } else { s.body }
        return Sample(uuid: s.uuid, type: s.type, start: s.start, end: s.end, metadata: s.metadata, device: s.device,
                      sourceRevision: keepingSource ? s.sourceRevision : nil, body: body)
    }
}

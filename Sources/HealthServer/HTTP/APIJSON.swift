import HealthModel

/// The JSON API's shapes of the model's values (docs/http.md); samples and devices use the export form.
enum APIJSON {
    static func source(_ source: Source) -> JSON {
        .object(["name": .string(source.name), "bundle_id": .string(source.bundleID)])
    }

    static func type(_ identifier: String) -> [String: JSON] {
        ["type": .string(identifier), "short_name": .string(TypeCatalog.type(identifier)?.shortName ?? identifier)]
    }

    static func catalogEntry(_ type: HealthType) -> JSON {
        var fields = Self.type(type.identifier)
        fields["kind"] = .string(type.kind.rawValue)
        fields["canonical_unit"] = .optional(type.canonicalUnit)
        fields["display_unit"] = .optional(type.kind == .quantity ? type.displayUnit ?? type.canonicalUnit : nil)
        fields["aggregation"] = type.aggregation.map { .string($0 == .cumulative ? "cumulative" : "discrete") } ?? .null
        fields["value_names"] = type.kind == .category && !type.valueNames.isEmpty ? names(type.valueNames) : .null
        return .object(fields)
    }

    /// Raw value → name, keyed by the value's decimal text (JSON keys are strings).
    static func names<Raw: BinaryInteger>(_ names: [Raw: String]) -> JSON {
        .object(Dictionary(uniqueKeysWithValues: names.map { (String($0.key), JSON.string($0.value)) }))
    }

    static func statistics(_ s: Statistics) -> JSON {
        .object([
            "start": .string(Time.iso8601(s.start)), "end": .string(Time.iso8601(s.end)),
            "start_micros": .int(s.start), "end_micros": .int(s.end),
            "sum": SampleJSON.quantity(s.sum), "average": SampleJSON.quantity(s.average),
            "minimum": SampleJSON.quantity(s.minimum), "maximum": SampleJSON.quantity(s.maximum),
            "most_recent": SampleJSON.quantity(s.mostRecent),
            "most_recent_start_micros": s.mostRecentInterval.map { .int($0.lowerBound) } ?? .null,
            "most_recent_end_micros": s.mostRecentInterval.map { .int($0.upperBound) } ?? .null,
            "duration_seconds": s.duration.map(JSON.double) ?? .null,
            "by_source": .array(s.bySource.map { part in
                .object(["source": source(part.source), "sum": SampleJSON.quantity(part.sum),
                         "average": SampleJSON.quantity(part.average), "minimum": SampleJSON.quantity(part.minimum),
                         "maximum": SampleJSON.quantity(part.maximum), "most_recent": SampleJSON.quantity(part.mostRecent),
                         "duration_seconds": part.duration.map(JSON.double) ?? .null])
            }),
        ])
    }

    static func app(_ app: AppInfo) -> JSON {
        .object(["name": .string(app.source.name), "bundle_id": .string(app.source.bundleID),
                 "created_micros": .int(app.createdTime), "revoked": .bool(app.revoked)])
    }

    static func direction(_ direction: AccessDirection) -> JSON {
        .string(direction == .read ? "read" : "share")
    }

    static func permission(_ p: Permission) -> JSON {
        var fields = type(p.type)
        fields["direction"] = direction(p.direction)
        let state = switch p.state {
        case .granted: "granted"
        case .denied: "denied"
        case .pending: "pending"
        }
        fields["state"] = .string(state)
        fields["updated_micros"] = .int(p.updatedTime)
        return .object(fields)
    }

    static func request(_ r: AuthorizationRequest) -> JSON {
        var fields = type(r.type)
        fields["app"] = source(r.app)
        fields["direction"] = direction(r.direction)
        fields["requested_micros"] = .int(r.requestedTime)
        return .object(fields)
    }

    static func requests(_ requests: [AuthorizationRequest]) -> JSON {
        .object(["requests": .array(requests.map(request))])
    }

    static func characteristics(_ c: Characteristics) -> JSON {
        func value(_ v: Int32?) -> JSON { v.map { .int(Int64($0)) } ?? .null }
        return .object(["biological_sex": value(c.biologicalSex), "blood_type": value(c.bloodType),
                        "date_of_birth": c.dateOfBirth.map { .string($0.isoString) } ?? .null,
                        "fitzpatrick_skin_type": value(c.fitzpatrickSkinType), "wheelchair_use": value(c.wheelchairUse),
                        "activity_move_mode": value(c.activityMoveMode)])
    }

    static func device(_ device: Device?) -> JSON {
        device.map(SampleJSON.device) ?? .null
    }

    static func sourceOrder(type: String, sources: [Source]) -> JSON {
        .object(["type": .string(type), "sources": .array(sources.map(source))])
    }
}

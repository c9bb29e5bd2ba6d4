import Foundation

/// HealthKit's type catalog (docs/semantics.md §4): every type, lookup by identifier or short name.
public enum TypeCatalog {
    public static let identifierPrefixes = [
        "HKQuantityTypeIdentifier", "HKCategoryTypeIdentifier", "HKCorrelationTypeIdentifier",
        "HKCharacteristicTypeIdentifier", "HKWorkoutTypeIdentifier", "HKWorkoutRouteTypeIdentifier",
        "HKDataTypeIdentifier", "HKScoredAssessmentTypeIdentifier",
    ]

    /// Every known type.
    public static let all: [HealthType] = QuantityTypes.all + CategoryTypes.all + ObjectTypes.correlations
        + [ObjectTypes.workout] + ObjectTypes.characteristics + [ObjectTypes.workoutRoute, ObjectTypes.heartbeatSeries]
        + [ObjectTypes.electrocardiogram, ObjectTypes.audiogram, ObjectTypes.stateOfMind] + ObjectTypes.scoredAssessments

    /// Every quantity type.
    public static let quantityTypes = QuantityTypes.all
    /// Every category type.
    public static let categoryTypes = CategoryTypes.all
    /// The blood pressure and food correlation types.
    public static let correlationTypes = ObjectTypes.correlations
    /// The identifiers of the types a correlation type may hold; no other type's sample is ever inside one.
    public static let correlationMemberTypes = Set(correlationTypes.flatMap { $0.correlationContents ?? [] })
    /// The one workout type, "HKWorkoutTypeIdentifier".
    public static let workoutType = ObjectTypes.workout
    /// The workout route series type, "HKWorkoutRouteTypeIdentifier".
    public static let workoutRouteType = ObjectTypes.workoutRoute
    /// The heartbeat series type, "HKDataTypeIdentifierHeartbeatSeries".
    public static let heartbeatSeriesType = ObjectTypes.heartbeatSeries
    /// The electrocardiogram type, "HKDataTypeIdentifierElectrocardiogram".
    public static let electrocardiogramType = ObjectTypes.electrocardiogram
    /// The audiogram type, "HKDataTypeIdentifierAudiogram".
    public static let audiogramType = ObjectTypes.audiogram
    /// The state of mind type, "HKDataTypeIdentifierStateOfMind".
    public static let stateOfMindType = ObjectTypes.stateOfMind
    /// The six characteristic types.
    public static let characteristicTypes = ObjectTypes.characteristics
    /// Every type that can be saved as a sample.
    public static let sampleTypes = all.filter(\.isSampleType)

    /// The types of one kind.
    public static func types(of kind: ObjectKind) -> [HealthType] { all.filter { $0.kind == kind } }

    private static let byIdentifier: [String: HealthType] = Dictionary(uniqueKeysWithValues: all.map { ($0.identifier, $0) })

    private static let byNormalizedName: [String: HealthType] = {
        var names: [String: HealthType] = [:]
        for type in all {
            names[TypeNameMatching.normalized(type.shortName)] = type
            names[TypeNameMatching.normalized(type.identifier)] = type
        }
        return names
    }()

    /// The type with exactly this identifier.
    public static func type(_ identifier: String) -> HealthType? { byIdentifier[identifier] }

    /// The identifier of the type any accepted spelling names ("HeartRate", "heart_rate" or the
    /// identifier itself), or nil for an unknown name.
    public static func identifier(named name: String) -> String? { named(name)?.identifier }

    /// The type any accepted spelling names (see `identifier(named:)`), or nil for an unknown name.
    public static func entry(named name: String) -> HealthType? { named(name) }

    /// The type whose identifier is exactly this NUL-terminated UTF-8 text (a wire message's field), found
    /// without making a String of it; nil for anything else, short names included.
    public static func entry(identifierBytes text: UnsafePointer<CChar>) -> HealthType? {
        var hash = IdentifierHash()
        var length = 0
        while text[length] != 0 {
            guard length < IdentifierHash.longest else { return nil }
            hash.add(UInt8(bitPattern: text[length]))
            length += 1
        }
        guard let type = byIdentifierHash[hash.value] else { return nil }
        // memcmp: a byte-by-byte comparison through Swift's sequences cost as much as the look-up it saves.
        let equal = type.identifier.utf8.withContiguousStorageIfAvailable { stored in
            guard let base = stored.baseAddress, stored.count == length else { return false }
            return memcmp(base, text, length) == 0
        }
        return equal == true ? type : nil
    }

    /// Types by their identifier's `IdentifierHash`. Two identifiers of one hash would keep the first;
    /// the other is then found by `entry(named:)`, the lookup every miss falls back to.
    private static let byIdentifierHash: [UInt64: HealthType] = Dictionary(
        all.map { type in (IdentifierHash.of(type.identifier), type) }, uniquingKeysWith: { first, _ in first })

    /// Resolves an identifier or a short name ("HeartRate", "heartRate", "heart-rate", "heart_rate");
    /// the error suggests the nearest known name for a near miss.
    public static func resolve(_ name: String) throws(HealthError) -> HealthType {
        guard let type = named(name) else { throw unknownType(name) }
        return type
    }

    private static func named(_ name: String) -> HealthType? {
        byIdentifier[name] ?? byNormalizedName[TypeNameMatching.normalized(name)]
    }

    /// INVALID_ARGUMENT for a name that is no type, suggesting the nearest known name for a near miss.
    public static func unknownType(_ name: String, field: String = "type") -> HealthError {
        var message = "unknown type \"\(name)\""
        if let suggestion = TypeNameMatching.nearest(to: name, among: all.map(\.shortName)),
           let type = byNormalizedName[TypeNameMatching.normalized(suggestion)] {
            message += "; did you mean \"\(suggestion)\" (\(type.identifier))?"
        }
        return HealthError.invalid(message, field: field)
    }
}

/// FNV-1a over an identifier's UTF-8 bytes: `TypeCatalog.entry(identifierBytes:)`'s key.
private struct IdentifierHash {
    /// Longer text is no identifier (far longer than any).
    static let longest = 128

    private(set) var value: UInt64 = 0xcbf2_9ce4_8422_2325

    mutating func add(_ byte: UInt8) { value = (value ^ UInt64(byte)) &* 0x0000_0100_0000_01b3 }

    static func of(_ identifier: String) -> UInt64 {
        var hash = IdentifierHash()
        for byte in identifier.utf8 { hash.add(byte) }
        return hash.value
    }
}

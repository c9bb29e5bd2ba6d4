/// HealthKit's type catalog: lookup by identifier or short name.
/// PLACEHOLDER TABLE: the units-and-catalog work replaces `all` with every type of SEMANTICS §4.
public enum TypeCatalog {
    public static let identifierPrefixes = [
        "HKQuantityTypeIdentifier", "HKCategoryTypeIdentifier", "HKCorrelationTypeIdentifier",
        "HKCharacteristicTypeIdentifier", "HKWorkoutTypeIdentifier",
    ]

    static let day: Microseconds = 86_400_000_000

    /// Every known type.
    public static let all: [HealthType] = [
        HealthType(identifier: "HKQuantityTypeIdentifierStepCount", kind: .quantity, aggregation: .cumulative, canonicalUnit: "count", maximumDuration: 4 * day),
        HealthType(identifier: "HKQuantityTypeIdentifierHeartRate", kind: .quantity, aggregation: .discreteTemporallyWeighted, canonicalUnit: "count/s", maximumDuration: 4 * day),
        HealthType(identifier: "HKQuantityTypeIdentifierBodyMass", kind: .quantity, aggregation: .discreteArithmetic, canonicalUnit: "kg", maximumDuration: 4 * day),
        HealthType(identifier: "HKQuantityTypeIdentifierBloodPressureSystolic", kind: .quantity, aggregation: .discreteArithmetic, canonicalUnit: "mmHg", maximumDuration: 4 * day),
        HealthType(identifier: "HKQuantityTypeIdentifierBloodPressureDiastolic", kind: .quantity, aggregation: .discreteArithmetic, canonicalUnit: "mmHg", maximumDuration: 4 * day),
        HealthType(identifier: "HKCategoryTypeIdentifierSleepAnalysis", kind: .category, categoryValues: [0, 1, 2, 3, 4, 5], maximumDuration: 4 * day),
        HealthType(identifier: "HKCorrelationTypeIdentifierBloodPressure", kind: .correlation,
                   correlationContents: ["HKQuantityTypeIdentifierBloodPressureSystolic", "HKQuantityTypeIdentifierBloodPressureDiastolic"]),
        HealthType(identifier: "HKWorkoutTypeIdentifier", kind: .workout),
        HealthType(identifier: "HKCharacteristicTypeIdentifierBiologicalSex", kind: .characteristic),
    ]

    private static let byIdentifier: [String: HealthType] = Dictionary(uniqueKeysWithValues: all.map { ($0.identifier, $0) })

    /// The type with exactly this identifier.
    public static func type(_ identifier: String) -> HealthType? { byIdentifier[identifier] }

    /// Resolves an identifier or a short name ("HeartRate", "heartRate", "heart-rate"); the error
    /// suggests the nearest known name.
    public static func resolve(_ name: String) throws(HealthError) -> HealthType {
        if let t = byIdentifier[name] { return t }
        let wanted = name.lowercased().filter { $0.isLetter || $0.isNumber }
        if let t = all.first(where: { $0.shortName.lowercased() == wanted }) { return t }
        throw HealthError.invalid("unknown type '\(name)'", field: "type")
    }
}

/// HKWorkoutActivityType raw values (SEMANTICS §4.6), as a set: 81 is unused.
public enum WorkoutActivityTypes {
    public static let all: Set<Int32> = Set(Int32(1)...Int32(80)).union([82, 83, 3000])
}

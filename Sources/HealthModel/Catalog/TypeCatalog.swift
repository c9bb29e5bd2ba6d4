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

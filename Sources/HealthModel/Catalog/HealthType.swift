/// What kind of object a type identifier names.
public enum ObjectKind: String, Sendable, Hashable {
    case quantity, category, correlation, workout, characteristic
    /// A series sample (HKSeriesType): a workout route or a heartbeat series, built point by point.
    case series
    /// HKElectrocardiogram, HKAudiogramSample, HKStateOfMind, HKScoredAssessment (GAD-7, PHQ-9).
    case electrocardiogram, audiogram, stateOfMind, scoredAssessment
}

/// HKQuantityAggregationStyle.
public enum AggregationStyle: Int, Sendable, Hashable {
    case cumulative = 0
    case discreteArithmetic = 1
    case discreteTemporallyWeighted = 2
    case discreteEquivalentContinuousLevel = 3

    /// True for every discrete style.
    public var isDiscrete: Bool { self != .cumulative }
}

/// One entry of HealthKit's type catalog (docs/semantics.md §4). A class of constants: a lookup hands
/// out one reference instead of copying (and retaining) each of its strings, sets and tables, which
/// cost a save about 1k instructions a lookup.
public final class HealthType: Sendable, Hashable {
    /// Full identifier, e.g. "HKQuantityTypeIdentifierHeartRate".
    public let identifier: String
    /// Which kind of object this type describes.
    public let kind: ObjectKind
    /// Quantity types: aggregation style.
    public let aggregation: AggregationStyle?
    /// Quantity types: canonical unit string, e.g. "count/s".
    public let canonicalUnit: String?
    /// Quantity types: the parsed canonical unit, parsed once here so saves never look it up again.
    public let unit: HealthUnit?
    /// The unit people read instead of a canonical unit that is awkward to read (heart rate in beats
    /// per minute, not per second); nil = the canonical unit (healthctl stats and the dashboard).
    public let displayUnit: String?
    /// `displayUnit` parsed, once here: devices save in it (heart rate per minute), and a save then
    /// needs no look-up of the unit by its text.
    public let parsedDisplayUnit: HealthUnit?
    /// Quantity types: the values accepted, in the canonical unit.
    public let valueRange: ClosedRange<Double>?
    /// Category types: the allowed raw values.
    public let categoryValues: Set<Int64>?
    /// Longest allowed end − start in microseconds; nil = unrestricted.
    public let maximumDuration: Microseconds?
    /// Shortest allowed end − start in microseconds; nil = unrestricted.
    public let minimumDuration: Microseconds?
    /// True when an end at Date.distantFuture is allowed.
    public let allowsUndeterminedDuration: Bool
    /// True for types only Apple may write: apps may not request share permission.
    public let appleOnlyWrite: Bool
    /// Metadata keys every sample of this type must carry (docs/semantics.md §7.4).
    public let requiredMetadataKeys: [String]
    /// Correlation types: the sample types it may contain.
    public let correlationContents: Set<String>?
    /// Category and characteristic types: the name of each raw value, e.g. 3 → "asleepCore".
    public let valueNames: [Int64: String]

    public init(identifier: String, kind: ObjectKind, aggregation: AggregationStyle? = nil,
                canonicalUnit: String? = nil, valueRange: ClosedRange<Double>? = nil, categoryValues: Set<Int64>? = nil,
                maximumDuration: Microseconds? = nil, minimumDuration: Microseconds? = nil,
                allowsUndeterminedDuration: Bool = false, appleOnlyWrite: Bool = false,
                requiredMetadataKeys: [String] = [], correlationContents: Set<String>? = nil,
                valueNames: [Int64: String] = [:]) {
        self.identifier = identifier
        self.kind = kind
        self.aggregation = aggregation
        self.canonicalUnit = canonicalUnit
        let unit = canonicalUnit.flatMap { try? HealthUnit.parse($0) }
        self.unit = unit
        let displayUnit = canonicalUnit.flatMap { Self.displayUnits[$0] }
        self.displayUnit = displayUnit
        // Only a unit of the canonical unit's dimension may stand in for it.
        let parsedDisplayUnit = displayUnit.flatMap { try? HealthUnit.parse($0) }
        self.parsedDisplayUnit = parsedDisplayUnit.flatMap { display in unit.map(display.isCompatible) == true ? display : nil }
        self.valueRange = valueRange
        self.categoryValues = categoryValues
        self.maximumDuration = maximumDuration
        self.minimumDuration = minimumDuration
        self.allowsUndeterminedDuration = allowsUndeterminedDuration
        self.appleOnlyWrite = appleOnlyWrite
        self.requiredMetadataKeys = requiredMetadataKeys
        self.correlationContents = correlationContents
        self.valueNames = valueNames
    }

    /// The catalogue holds one type per identifier.
    public static func == (lhs: HealthType, rhs: HealthType) -> Bool { lhs.identifier == rhs.identifier }

    public func hash(into hasher: inout Hasher) { hasher.combine(identifier) }

    /// The identifier without its HK…TypeIdentifier prefix, e.g. "HeartRate".
    public var shortName: String {
        for prefix in TypeCatalog.identifierPrefixes where identifier.hasPrefix(prefix) {
            let rest = identifier.dropFirst(prefix.count)
            // A prefix that is the whole identifier ("HKWorkoutTypeIdentifier") names the type itself.
            return rest.isEmpty ? String(prefix.dropFirst(2).dropLast("TypeIdentifier".count)) : String(rest)
        }
        return identifier
    }

    /// True for types that can be saved as samples (quantity, category, correlation, workout).
    public var isSampleType: Bool { kind != .characteristic }

    private static let displayUnits = ["count/s": "count/min"]

    /// Quantity types: the dimension every accepted unit must have (that of the canonical unit).
    public var dimension: UnitDimension? { unit?.dimension }

    /// Quantity types: true when `unit` parses and measures this type's dimension (docs/semantics.md §5.4).
    public func accepts(unit: String) -> Bool {
        guard let own = self.unit, let other = try? HealthUnit.parse(unit) else { return false }
        return own.isCompatible(with: other)
    }

    /// Characteristic types with an enum: the allowed raw values (date of birth has none).
    public var characteristicValues: Set<Int64>? {
        kind == .characteristic && !valueNames.isEmpty ? Set(valueNames.keys) : nil
    }

    /// True when an app may ask to share (write) this type: not Apple-only, not a correlation (apps
    /// request each contained type instead, docs/semantics.md §3.6), not a characteristic (read-only, §1.9).
    public var isShareable: Bool { isSampleType && kind != .correlation && !appleOnlyWrite }

    /// True when an app may ask to read this type: everything but correlations (docs/semantics.md §3.2, §3.6).
    public var isReadable: Bool { kind != .correlation }
}

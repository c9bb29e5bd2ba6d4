import Foundation

/// Comparison operators usable in predicates.
public enum ComparisonOperator: Int32, Sendable, Hashable, CaseIterable {
    case lessThan = 1, lessThanOrEqual = 2, greaterThan = 3, greaterThanOrEqual = 4, equal = 5, notEqual = 6

    /// Applies the operator to two comparable values.
    public func evaluate<T: Comparable>(_ lhs: T, _ rhs: T) -> Bool {
        switch self {
        case .lessThan: lhs < rhs
        case .lessThanOrEqual: lhs <= rhs
        case .greaterThan: lhs > rhs
        case .greaterThanOrEqual: lhs >= rhs
        case .equal: lhs == rhs
        case .notEqual: lhs != rhs
        }
    }

    /// SQL spelling of the operator.
    public var sql: String {
        switch self {
        case .lessThan: "<"
        case .lessThanOrEqual: "<="
        case .greaterThan: ">"
        case .greaterThanOrEqual: ">="
        case .equal: "="
        case .notEqual: "<>"
        }
    }
}

/// predicateForSamples(withStart:end:options:) — see docs/semantics.md §6.1 for the exact clauses.
public struct DateRange: Sendable, Hashable {
    public let start: Microseconds?
    public let end: Microseconds?
    public let strictStart: Bool
    public let strictEnd: Bool

    public init(start: Microseconds?, end: Microseconds?, strictStart: Bool = false, strictEnd: Bool = false) {
        self.start = start
        self.end = end
        self.strictStart = strictStart
        self.strictEnd = strictEnd
    }

    /// HealthKit's clauses: S → endDate >= S (strict: startDate >= S); E → startDate < E
    /// (strict: also endDate < E).
    public func matches(start sampleStart: Microseconds, end sampleEnd: Microseconds) -> Bool {
        if let s = start {
            if strictStart { if !(sampleStart >= s) { return false } } else if !(sampleEnd >= s) { return false }
        }
        if let e = end {
            if !(sampleStart < e) { return false }
            if strictEnd && !(sampleEnd < e) { return false }
        }
        return true
    }
}

/// Device properties usable in a device-property predicate (HKDevicePropertyKey…).
public enum DeviceProperty: Int32, Sendable, Hashable, CaseIterable {
    case name = 1, manufacturer, model, hardwareVersion, firmwareVersion, softwareVersion, localIdentifier, udiDeviceIdentifier

    /// The property's value on a device.
    public func value(of device: Device?) -> String? {
        guard let device else { return nil }
        switch self {
        case .name: return device.name
        case .manufacturer: return device.manufacturer
        case .model: return device.model
        case .hardwareVersion: return device.hardwareVersion
        case .firmwareVersion: return device.firmwareVersion
        case .softwareVersion: return device.softwareVersion
        case .localIdentifier: return device.localIdentifier
        case .udiDeviceIdentifier: return device.udiDeviceIdentifier
        }
    }
}

/// A source-revision pattern: nil version/product type and a nil OS version are wildcards.
public struct SourceRevisionPattern: Sendable, Hashable {
    public let bundleID: String
    public let version: String?
    public let productType: String?
    /// (major, minor, patch), or nil for any.
    public let osVersion: [Int]?

    public init(bundleID: String, version: String? = nil, productType: String? = nil, osVersion: [Int]? = nil) {
        self.bundleID = bundleID
        self.version = version
        self.productType = productType
        self.osVersion = osVersion
    }

    public func matches(_ revision: SourceRevision?) -> Bool {
        guard let revision, revision.source.bundleID == bundleID else { return false }
        if let version, revision.version != version { return false }
        if let productType, revision.productType != productType { return false }
        if let os = osVersion, os != [revision.osMajor, revision.osMinor, revision.osPatch] { return false }
        return true
    }
}

/// A predicate tree with exactly HealthKit's leaves (docs/semantics.md §6.1–6.2).
public indirect enum QueryPredicate: Sendable, Hashable {
    case allOf([QueryPredicate])
    case anyOf([QueryPredicate])
    case not(QueryPredicate)
    case dateRange(DateRange)
    case uuids(Set<UUID>)
    /// Saved by any of these bundle ids.
    case sources(Set<String>)
    case sourceRevisions([SourceRevisionPattern])
    /// Measured by a device matching any pattern (nil fields are wildcards).
    case devices([Device])
    case deviceProperty(DeviceProperty, Set<String>)
    case metadataExists(key: String)
    case metadataCompare(key: String, ComparisonOperator, MetadataValue)
    case metadataIn(key: String, [MetadataValue])
    /// Compared in the sample type's canonical unit after converting the operand.
    case quantity(ComparisonOperator, Quantity)
    case categoryValue(ComparisonOperator, Int64)
    case categoryValueIn(Set<Int64>)
    case workoutActivityType(Int32)
    case noCorrelation
    /// Samples associated with the workout with this UUID.
    case workout(UUID)
    /// Workout duration in microseconds.
    case workoutDuration(ComparisonOperator, Microseconds)
}

/// Sort keys for sample queries.
public enum SortKey: Int32, Sendable, Hashable {
    case startDate = 1, endDate = 2, workoutDuration = 3
}

/// One sort criterion.
public struct SampleSortDescriptor: Sendable, Hashable {
    public let key: SortKey
    public let descending: Bool

    public init(_ key: SortKey, descending: Bool = false) {
        self.key = key
        self.descending = descending
    }
}

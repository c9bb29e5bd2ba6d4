import Foundation

// The queries a client asks, as plain values shared by the client, the server and the tools;
// HealthWire maps them to and from the protocol.

/// What DeleteObjects deletes.
public enum DeleteTarget: Sendable, Hashable {
    case uuids([UUID])
    case matching(type: String, predicate: QueryPredicate?)
}

/// A sample query (HKSampleQuery).
public struct SampleQuery: Sendable, Hashable {
    public let types: [String]
    public let predicate: QueryPredicate?
    public let sort: [SampleSortDescriptor]
    /// 0 = no limit.
    public let limit: Int

    public init(types: [String], predicate: QueryPredicate? = nil, sort: [SampleSortDescriptor] = [], limit: Int = 0) {
        self.types = types
        self.predicate = predicate
        self.sort = sort
        self.limit = limit
    }
}

/// An anchored query (HKAnchoredObjectQuery).
public struct AnchoredQuery: Sendable, Hashable {
    public let types: [String]
    public let predicate: QueryPredicate?
    /// Opaque anchor bytes; nil = from the beginning.
    public let anchor: Data?
    public let limit: Int
    public let updates: Bool

    public init(types: [String], predicate: QueryPredicate? = nil, anchor: Data? = nil, limit: Int = 0, updates: Bool = false) {
        self.types = types
        self.predicate = predicate
        self.anchor = anchor
        self.limit = limit
        self.updates = updates
    }
}

/// A statistics query (HKStatisticsQuery).
public struct StatisticsQuery: Sendable, Hashable {
    public let type: String
    public let predicate: QueryPredicate?
    public let options: StatisticsOptions
    /// nil = canonical unit.
    public let unit: String?

    public init(type: String, predicate: QueryPredicate? = nil, options: StatisticsOptions, unit: String? = nil) {
        self.type = type
        self.predicate = predicate
        self.options = options
        self.unit = unit
    }
}

/// A statistics collection query (HKStatisticsCollectionQuery) with its enumeration range.
public struct StatisticsCollectionQuery: Sendable, Hashable {
    public let type: String
    public let predicate: QueryPredicate?
    public let options: StatisticsOptions
    public let unit: String?
    public let anchor: Microseconds
    public let interval: IntervalComponents
    /// IANA identifier; nil = UTC.
    public let timeZone: String?
    /// nil = gregorian.
    public let calendar: String?
    public let from: Microseconds
    public let to: Microseconds
    public let updates: Bool

    public init(type: String, predicate: QueryPredicate? = nil, options: StatisticsOptions, unit: String? = nil,
                anchor: Microseconds, interval: IntervalComponents, timeZone: String? = nil, calendar: String? = nil,
                from: Microseconds, to: Microseconds, updates: Bool = false) {
        self.type = type
        self.predicate = predicate
        self.options = options
        self.unit = unit
        self.anchor = anchor
        self.interval = interval
        self.timeZone = timeZone
        self.calendar = calendar
        self.from = from
        self.to = to
        self.updates = updates
    }
}

/// A correlation query (HKCorrelationQuery).
public struct CorrelationQuery: Sendable, Hashable {
    public let type: String
    public let predicate: QueryPredicate?
    /// Per contained type predicates (type → predicate; nil predicate = any sample of that type).
    public let samplePredicates: [TypedPredicate]

    public init(type: String, predicate: QueryPredicate? = nil, samplePredicates: [TypedPredicate] = []) {
        self.type = type
        self.predicate = predicate
        self.samplePredicates = samplePredicates
    }
}

/// A type with an optional predicate.
public struct TypedPredicate: Sendable, Hashable {
    public let type: String
    public let predicate: QueryPredicate?

    public init(type: String, predicate: QueryPredicate? = nil) {
        self.type = type
        self.predicate = predicate
    }
}

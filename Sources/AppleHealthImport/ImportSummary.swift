/// What happened to each kind of object of one source or type.
public struct ImportTally: Sendable, Hashable {
    public var stored = 0
    public var alreadyPresent = 0
    /// Objects not stored, by reason.
    public var skipped: [String: Int] = [:]

    public var skippedTotal: Int { skipped.values.reduce(0, +) }
}

/// The import's outcome per type and per source: stored, already present, skipped with reason.
public struct ImportSummary: Sendable {
    public private(set) var byType: [String: ImportTally] = [:]
    public private(set) var bySource: [String: ImportTally] = [:]
    /// Malformed places passed over with --skip-invalid, first few with their position.
    public private(set) var invalid: [String] = []
    public private(set) var invalidCount = 0

    public init() {}

    public mutating func stored(type: String, source: String) {
        byType[type, default: ImportTally()].stored += 1
        bySource[source, default: ImportTally()].stored += 1
    }

    public mutating func alreadyPresent(type: String, source: String) {
        byType[type, default: ImportTally()].alreadyPresent += 1
        bySource[source, default: ImportTally()].alreadyPresent += 1
    }

    /// `count` objects of `type` (from `source`, when the element names one) not stored for `reason`.
    public mutating func skip(type: String, source: String?, reason: String, count: Int = 1) {
        guard count > 0 else { return }
        byType[type, default: ImportTally()].skipped[reason, default: 0] += count
        if let source { bySource[source, default: ImportTally()].skipped[reason, default: 0] += count }
    }

    /// Adds `other`'s counts to these (the reader's skips and the saves' outcomes).
    public mutating func merge(_ other: ImportSummary) {
        func add(_ rows: [String: ImportTally], into target: inout [String: ImportTally]) {
            for (key, tally) in rows {
                target[key, default: ImportTally()].stored += tally.stored
                target[key, default: ImportTally()].alreadyPresent += tally.alreadyPresent
                target[key, default: ImportTally()].skipped.merge(tally.skipped, uniquingKeysWith: +)
            }
        }
        add(other.byType, into: &byType)
        add(other.bySource, into: &bySource)
        invalid += other.invalid.prefix(max(0, 10 - invalid.count))
        invalidCount += other.invalidCount
    }

    mutating func noteInvalid(_ place: String) {
        invalidCount += 1
        if invalid.count < 10 { invalid.append(place) }
    }
}

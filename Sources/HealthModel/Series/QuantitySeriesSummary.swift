import Foundation

/// What HKDiscreteQuantitySample adds for a series of more than one point: the sample's quantity is the
/// points' average, and these are their minimum, maximum and most recent (latest start) point.
public struct DiscreteSeriesSummary: Sendable, Hashable {
    public let minimum: Quantity
    public let maximum: Quantity
    public let mostRecent: Quantity
    /// The most recent point's interval (mostRecentQuantityDateInterval).
    public let mostRecentStart: Microseconds
    public let mostRecentEnd: Microseconds

    public init(minimum: Quantity, maximum: Quantity, mostRecent: Quantity, mostRecentStart: Microseconds, mostRecentEnd: Microseconds) {
        self.minimum = minimum
        self.maximum = maximum
        self.mostRecent = mostRecent
        self.mostRecentStart = mostRecentStart
        self.mostRecentEnd = mostRecentEnd
    }
}

/// Folds a builder's points (in start order, batch by batch, so a long series never sits in memory
/// at once) into the sample finishSeries(metadata:endDate:) makes of them: a cumulative series' quantity
/// is the sum of its points, a discrete one's their average with its `DiscreteSeriesSummary`; `count` is
/// the number of points. Quantities are in the unit of the first point.
public struct QuantitySeriesSummary: Sendable {
    public let type: HealthType
    private var unit: String?
    public private(set) var count: Int64 = 0
    private var sum = 0.0
    private var minimum = Double.infinity
    private var maximum = -Double.infinity
    private var last: (value: Double, start: Microseconds, end: Microseconds)?
    private var latestEnd = Microseconds.min

    public init(type: HealthType) throws(HealthError) {
        guard type.kind == .quantity, type.aggregation != nil else {
            throw HealthError.invalid("Quantity series need a quantity type; \(type.identifier) is a \(type.kind.rawValue) type",
                                      field: "type")
        }
        self.type = type
    }

    /// Adds the next points of the series.
    public mutating func add(_ points: [QuantitySeriesPoint]) throws(HealthError) {
        for point in points {
            let unit = self.unit ?? point.quantity.unit
            self.unit = unit
            let value = point.quantity.unit == unit ? point.quantity.value : try point.quantity.value(in: unit)
            count += 1
            sum += value
            minimum = min(minimum, value)
            maximum = max(maximum, value)
            last = (value, point.start, point.end)
            latestEnd = max(latestEnd, point.end)
        }
    }

    /// The finished sample. `end` nil ends it where its last-ending point ends; an explicit end must not
    /// cut a point off. The sample is checked as a saved one is (duration limits, metadata).
    public func sample(uuid: UUID, start: Microseconds, end: Microseconds?, metadata: Metadata,
                       device: Device?) throws(HealthError) -> Sample {
        guard let last, let unit else { throw QuantitySeriesRules.empty }
        let end = end ?? latestEnd
        if end < latestEnd {
            throw HealthError.invalid("The series cannot end (\(end) µs) before its last quantity ends (\(latestEnd) µs)",
                                      field: "end_time")
        }
        try IntervalRules.checkSample(start: start, end: end, type: type, path: .root)
        try MetadataValidator.checkObject(metadata, type: type, path: .root)
        let discrete = type.aggregation?.isDiscrete ?? false
        let quantity = Quantity(discrete ? sum / Double(count) : sum, unit)
        let summary = discrete && count > 1
            ? DiscreteSeriesSummary(minimum: Quantity(minimum, unit), maximum: Quantity(maximum, unit),
                                    mostRecent: Quantity(last.value, unit), mostRecentStart: last.start, mostRecentEnd: last.end)
            : nil
        return Sample(uuid: uuid, type: type.identifier, start: start, end: end, metadata: metadata, device: device,
                      body: .quantity(quantity, count: count), discreteSeries: summary)
    }
}

/// HKStatisticsQuery's math as a pure function over samples (docs/semantics.md §6.5).
///
/// Merging: cumulative sums are merged across sources by priority (`CumulativeMerge`). Discrete
/// statistics (average, min, max, mostRecent) and duration use every source's samples without priority:
/// docs/semantics.md §6.5.2 marks discrete merging as unverified [inf], and the union used for duration already counts
/// overlapping time once. separateBySource adds per-source statistics, each computed independently
/// (no de-duplication), while the top-level values stay merged.
public enum StatisticsCalculator {
    /// Statistics of `samples` (values in `type`'s canonical unit), reported in `unit` (nil = canonical).
    /// - Parameter interval: a collection bucket: only the parts of samples inside it count, and the
    ///   result spans it even when empty. Without it the result spans the samples (earliest start to
    ///   latest end) and no samples at all is NO_DATA.
    public static func compute(type: HealthType, samples: [StatInput], options: StatisticsOptions,
                               interval: Range<Microseconds>? = nil, priority: SourcePriorityOrder,
                               unit: String? = nil) throws(HealthError) -> Statistics {
        let plan = try StatisticsPlan(type: type, options: options, unit: unit)
        return try plan.statistics(samples, interval: interval, priority: priority)
    }
}

/// A validated request: the type's style, its canonical unit and the unit to report in.
struct StatisticsPlan {
    let type: HealthType
    let style: AggregationStyle
    let options: StatisticsOptions
    let canonicalUnit: String
    let unit: String

    init(type: HealthType, options: StatisticsOptions, unit: String?) throws(HealthError) {
        try StatisticsOptionRules.check(options, for: type)
        guard let style = type.aggregation, let canonicalUnit = type.canonicalUnit else {
            throw HealthError.invalid("type \(type.identifier) has no aggregation style or canonical unit", field: "type")
        }
        let unit = unit ?? canonicalUnit
        guard Quantity(0, canonicalUnit).isCompatible(with: unit) else {
            throw HealthError.invalid("unit '\(unit)' is not compatible with \(type.identifier) (canonical unit '\(canonicalUnit)')", field: "unit")
        }
        self.type = type
        self.style = style
        self.options = options
        self.canonicalUnit = canonicalUnit
        self.unit = unit
    }

    func statistics(_ samples: [StatInput], interval: Range<Microseconds>?, priority: SourcePriorityOrder) throws(HealthError) -> Statistics {
        let start: Microseconds, end: Microseconds
        if let interval {
            (start, end) = (interval.lowerBound, interval.upperBound)
        } else {
            guard let first = samples.map(\.start).min(), let last = samples.map(\.end).max() else {
                throw HealthError(.noData, "no samples of \(type.identifier) match the query")
            }
            (start, end) = (first, last)
        }
        let merged = try values(samples, clip: interval, priority: priority, merged: true)
        return Statistics(type: type.identifier, start: start, end: end, sum: merged.sum, average: merged.average,
                          minimum: merged.minimum, maximum: merged.maximum, mostRecent: merged.mostRecent,
                          mostRecentInterval: merged.mostRecentInterval, duration: merged.duration,
                          bySource: try bySource(samples, clip: interval, priority: priority))
    }

    /// Per-source statistics, highest priority first; empty unless separateBySource was requested.
    private func bySource(_ samples: [StatInput], clip: Range<Microseconds>?, priority: SourcePriorityOrder) throws(HealthError) -> [SourceStatistics] {
        guard options.contains(.separateBySource) else { return [] }
        let groups = Dictionary(grouping: samples, by: \.sourceBundleID)
        let order = groups.keys.sorted { (priority.rank(of: $0), $0) < (priority.rank(of: $1), $1) }
        var result: [SourceStatistics] = []
        for bundleID in order {
            let group = groups[bundleID] ?? []
            guard group.contains(where: { CumulativeMerge.clipped($0, to: clip) != nil }) else { continue }
            let v = try values(group, clip: clip, priority: priority, merged: false)
            result.append(SourceStatistics(source: group[0].source, sum: v.sum, average: v.average, minimum: v.minimum,
                                           maximum: v.maximum, mostRecent: v.mostRecent, duration: v.duration))
        }
        return result
    }

    private struct Values {
        var sum, average, minimum, maximum, mostRecent: Quantity?
        var mostRecentInterval: ClosedRange<Microseconds>?
        var duration: Double?
    }

    /// The requested statistics of `samples`, in the report unit.
    private func values(_ samples: [StatInput], clip: Range<Microseconds>?, priority: SourcePriorityOrder,
                        merged: Bool) throws(HealthError) -> Values {
        var v = Values()
        if options.contains(.cumulativeSum) {
            let sum = merged ? CumulativeMerge.mergedSum(samples, clip: clip, priority: priority)
                             : CumulativeMerge.plainSum(samples, clip: clip)
            v.sum = try quantity(sum)
        }
        if options.contains(.discreteAverage) { v.average = try quantity(DiscreteStatistics.average(style, samples, clip: clip)) }
        if options.contains(.discreteMin) { v.minimum = try quantity(DiscreteStatistics.minimum(samples, clip: clip)) }
        if options.contains(.discreteMax) { v.maximum = try quantity(DiscreteStatistics.maximum(samples, clip: clip)) }
        if options.contains(.mostRecent), let recent = DiscreteStatistics.mostRecent(samples, clip: clip, priority: priority) {
            v.mostRecent = try quantity(recent.value)
            v.mostRecentInterval = recent.start...recent.end
        }
        if options.contains(.duration) { v.duration = DiscreteStatistics.duration(samples, clip: clip) }
        return v
    }

    private func quantity(_ canonical: Double?) throws(HealthError) -> Quantity? {
        guard let canonical else { return nil }
        return try Quantity(canonical, canonicalUnit).converted(to: unit)
    }
}

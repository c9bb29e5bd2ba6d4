import Foundation

/// Discrete statistics and duration (docs/semantics.md §6.5.2) over samples clipped to an optional interval.
/// Every function takes only the samples that fall in the interval (see `CumulativeMerge.clipped`) and
/// returns nil when there are none.
enum DiscreteStatistics {
    /// Samples in `clip` with the length of their part inside it.
    static func inside(_ samples: [StatInput], clip: Range<Microseconds>?) -> [(sample: StatInput, part: Microseconds)] {
        samples.compactMap { sample in
            CumulativeMerge.clipped(sample, to: clip).map { (sample, $0.end - $0.start) }
        }
    }

    /// Average per aggregation style:
    /// - discreteArithmetic: arithmetic mean.
    /// - discreteTemporallyWeighted: each value weighted by its duration inside `clip`; instantaneous
    ///   samples weigh nothing next to ones with duration, and if every weight is 0 the plain mean is used.
    /// - discreteEquivalentContinuousLevel: Leq = 10·log10(Σ tᵢ·10^(Lᵢ/10) / Σ tᵢ), equal weights when
    ///   every duration is 0.
    static func average(_ style: AggregationStyle, _ samples: [StatInput], clip: Range<Microseconds>?) -> Double? {
        let items = inside(samples, clip: clip)
        guard !items.isEmpty else { return nil }
        let totalTime = items.reduce(0.0) { $0 + Double($1.part) }
        func weight(_ part: Microseconds) -> Double { totalTime > 0 ? Double(part) : 1 }
        let totalWeight = totalTime > 0 ? totalTime : Double(items.count)
        switch style {
        case .cumulative, .discreteArithmetic:
            return items.reduce(0.0) { $0 + $1.sample.value } / Double(items.count)
        case .discreteTemporallyWeighted:
            return items.reduce(0.0) { $0 + weight($1.part) * $1.sample.value } / totalWeight
        case .discreteEquivalentContinuousLevel:
            let energy = items.reduce(0.0) { $0 + weight($1.part) * pow(10, $1.sample.value / 10) }
            return 10 * log10(energy / totalWeight)
        }
    }

    static func minimum(_ samples: [StatInput], clip: Range<Microseconds>?) -> Double? {
        inside(samples, clip: clip).map(\.sample.value).min()
    }

    static func maximum(_ samples: [StatInput], clip: Range<Microseconds>?) -> Double? {
        inside(samples, clip: clip).map(\.sample.value).max()
    }

    /// The sample with the latest end; ties go to the latest start (the more specific sample), then to
    /// the higher-priority source, then to the larger value, so the answer never depends on input order.
    static func mostRecent(_ samples: [StatInput], clip: Range<Microseconds>?, priority: SourcePriorityOrder) -> StatInput? {
        inside(samples, clip: clip).map(\.sample).min { a, b in
            if a.end != b.end { return a.end > b.end }
            if a.start != b.start { return a.start > b.start }
            let ra = priority.rank(of: a), rb = priority.rank(of: b)
            if ra != rb { return ra < rb }
            return a.value > b.value
        }
    }

    /// Seconds covered by the union of the samples' intervals inside `clip`.
    static func duration(_ samples: [StatInput], clip: Range<Microseconds>?) -> Double? {
        let parts = samples.compactMap { CumulativeMerge.clipped($0, to: clip) }.sorted { $0.start < $1.start }
        guard !parts.isEmpty else { return nil }
        var covered: Microseconds = 0
        var runStart = parts[0].start, runEnd = parts[0].end
        for part in parts.dropFirst() {
            if part.start > runEnd {
                covered += runEnd - runStart
                (runStart, runEnd) = (part.start, part.end)
            } else {
                runEnd = max(runEnd, part.end)
            }
        }
        covered += runEnd - runStart
        return Double(covered) / Double(Time.microsPerSecond)
    }
}

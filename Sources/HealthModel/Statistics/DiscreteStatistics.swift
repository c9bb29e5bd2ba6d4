import Foundation

/// Discrete statistics and duration (docs/semantics.md §6.5.2) over samples clipped to an optional interval.
/// Every function takes only the samples that fall in the interval (see `CumulativeMerge.clipped`) and
/// returns nil when there are none.
enum DiscreteStatistics {
    /// Calls `body` with each sample in `clip` and the length of its part inside it, in order, with no
    /// array of them in between (a year of hourly buckets runs this once per bucket).
    static func forEachInside(_ samples: [StatInput], clip: Range<Microseconds>?, _ body: (StatInput, Microseconds) -> Void) {
        for sample in samples {
            guard let part = CumulativeMerge.clipped(sample, to: clip) else { continue }
            body(sample, part.end - part.start)
        }
    }

    /// Average per aggregation style:
    /// - discreteArithmetic: arithmetic mean.
    /// - discreteTemporallyWeighted: each value weighted by its duration inside `clip`; instantaneous
    ///   samples weigh nothing next to ones with duration, and if every weight is 0 the plain mean is used.
    /// - discreteEquivalentContinuousLevel: Leq = 10·log10(Σ tᵢ·10^(Lᵢ/10) / Σ tᵢ), equal weights when
    ///   every duration is 0.
    static func average(_ style: AggregationStyle, _ samples: [StatInput], clip: Range<Microseconds>?) -> Double? {
        var count = 0, totalTime = 0.0
        forEachInside(samples, clip: clip) { _, part in
            count += 1
            totalTime += Double(part)
        }
        guard count > 0 else { return nil }
        func weight(_ part: Microseconds) -> Double { totalTime > 0 ? Double(part) : 1 }
        let totalWeight = totalTime > 0 ? totalTime : Double(count)
        var total = 0.0
        forEachInside(samples, clip: clip) { sample, part in
            switch style {
            case .cumulative, .discreteArithmetic: total += sample.value
            case .discreteTemporallyWeighted: total += weight(part) * sample.value
            case .discreteEquivalentContinuousLevel: total += weight(part) * pow(10, sample.value / 10)
            }
        }
        switch style {
        case .cumulative, .discreteArithmetic: return total / Double(count)
        case .discreteTemporallyWeighted: return total / totalWeight
        case .discreteEquivalentContinuousLevel: return 10 * log10(total / totalWeight)
        }
    }

    static func minimum(_ samples: [StatInput], clip: Range<Microseconds>?) -> Double? {
        var result: Double?
        forEachInside(samples, clip: clip) { sample, _ in
            if result.map({ sample.value < $0 }) ?? true { result = sample.value }
        }
        return result
    }

    static func maximum(_ samples: [StatInput], clip: Range<Microseconds>?) -> Double? {
        var result: Double?
        forEachInside(samples, clip: clip) { sample, _ in
            if result.map({ $0 < sample.value }) ?? true { result = sample.value }
        }
        return result
    }

    /// The sample with the latest end; ties go to the latest start (the more specific sample), then to
    /// the higher-priority source, then to the larger value, so the answer never depends on input order.
    static func mostRecent(_ samples: [StatInput], clip: Range<Microseconds>?, priority: SourcePriorityOrder) -> StatInput? {
        func isMoreRecent(_ a: StatInput, than b: StatInput) -> Bool {
            if a.end != b.end { return a.end > b.end }
            if a.start != b.start { return a.start > b.start }
            let ra = priority.rank(of: a), rb = priority.rank(of: b)
            if ra != rb { return ra < rb }
            return a.value > b.value
        }
        var result: StatInput?
        forEachInside(samples, clip: clip) { sample, _ in
            if let best = result, !isMoreRecent(sample, than: best) { return }
            result = sample
        }
        return result
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

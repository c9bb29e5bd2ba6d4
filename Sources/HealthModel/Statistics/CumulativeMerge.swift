/// Sums of cumulative samples (docs/semantics.md §6.5.1), optionally clipped to a bucket.
///
/// Rules:
/// - A sample's value is spread uniformly over [start, end); only the part inside the clip interval counts.
/// - Merged sum: the timeline is split at every sample boundary; each elementary slice is credited only
///   to samples of the best-ranked `SampleRank` covering it, so lower-priority sources fill gaps only.
/// - An instantaneous sample (start == end) counts fully at its instant, and only when its rank is the
///   best among the samples covering that instant (intervals with start ≤ t < end, and other instants at t).
///   Having no length, it never takes time away from intervals. It belongs to a clip interval when
///   clipStart ≤ t < clipEnd.
/// - Overlapping samples of the same rank (same source and user-entered tier) are all counted: a source
///   is trusted not to double-count itself, and de-duplicating it would need a rule HealthKit does not give.
enum CumulativeMerge {
    /// The portion of `sample` inside `clip` (the whole sample when nil), or nil when it falls outside.
    /// A sample ending before it starts never passes validation; it is ignored rather than trusted.
    static func clipped(_ sample: StatInput, to clip: Range<Microseconds>?) -> (start: Microseconds, end: Microseconds)? {
        guard sample.end >= sample.start else { return nil }
        guard let clip else { return (sample.start, sample.end) }
        if sample.duration == 0 {
            return clip.contains(sample.start) ? (sample.start, sample.end) : nil
        }
        let start = max(sample.start, clip.lowerBound), end = min(sample.end, clip.upperBound)
        return start < end ? (start, end) : nil
    }

    /// Share of a sample's value that lies in `part` (uniform rate); instants count fully.
    static func share(of sample: StatInput, covering part: Microseconds) -> Double {
        sample.duration == 0 ? sample.value : sample.value * (Double(part) / Double(sample.duration))
    }

    /// Sum without merging (separateBySource, or one source); nil when no sample falls in `clip`.
    static func plainSum(_ samples: [StatInput], clip: Range<Microseconds>?) -> Double? {
        var total: Double?
        for sample in samples {
            guard let part = clipped(sample, to: clip) else { continue }
            total = (total ?? 0) + share(of: sample, covering: part.end - part.start)
        }
        return total
    }

    /// Priority-merged sum; nil when no sample falls in `clip`.
    static func mergedSum(_ samples: [StatInput], clip: Range<Microseconds>?, priority: SourcePriorityOrder) -> Double? {
        // Ranks as positions among the distinct ranks present (a few: sources × user-entered tier), so
        // the sweep compares integers instead of bundle ids.
        let ranks = RankOrdinals(samples, priority: priority).ordinals
        var events: [(time: Microseconds, index: Int, opens: Bool)] = []
        var instants: [(time: Microseconds, index: Int)] = []
        var parts = [Microseconds](repeating: 0, count: samples.count)
        var any = false
        for (index, sample) in samples.enumerated() {
            guard let part = clipped(sample, to: clip) else { continue }
            any = true
            if sample.duration == 0 {
                instants.append((part.start, index))
            } else {
                events.append((part.start, index, true))
                events.append((part.end, index, false))
            }
        }
        guard any else { return nil }
        events.sort { $0.time < $1.time }
        instants.sort { $0.time < $1.time }

        // Won time per interval sample; instants are added directly when they win their instant.
        var total = 0.0
        // The open interval samples (rank, index): only a few overlap at any time.
        var active: [(rank: Int, index: Int)] = []
        var e = 0, i = 0
        while e < events.count || i < instants.count {
            let now = min(e < events.count ? events[e].time : .max, i < instants.count ? instants[i].time : .max)
            while e < events.count, events[e].time == now {
                let event = events[e]
                if event.opens {
                    active.append((ranks[event.index], event.index))
                } else if let position = active.firstIndex(where: { $0.index == event.index }) {
                    active.swapAt(position, active.count - 1)
                    active.removeLast()
                }
                e += 1
            }
            let instantsStart = i
            while i < instants.count, instants[i].time == now { i += 1 }
            let here = instants[instantsStart..<i]
            let bestInterval = active.lazy.map(\.rank).min()
            let bestHere = here.reduce(bestInterval ?? .max) { min($0, ranks[$1.index]) }
            for instant in here where ranks[instant.index] == bestHere {
                total += samples[instant.index].value
            }
            // Instants have no length, so only intervals compete for the slice that follows.
            // An open interval always has its closing event pending, so events[e] exists here.
            if let bestInterval {
                let next = min(events[e].time, i < instants.count ? instants[i].time : .max)
                for open in active where open.rank == bestInterval { parts[open.index] += next - now }
            }
        }
        for (index, sample) in samples.enumerated() where parts[index] > 0 {
            total += share(of: sample, covering: parts[index])
        }
        return total
    }
}

/// Each sample's `SampleRank` as its position among the distinct ranks of the samples: comparing
/// positions orders samples exactly as comparing their ranks.
private struct RankOrdinals {
    let ordinals: [Int]

    init(_ samples: [StatInput], priority: SourcePriorityOrder) {
        var distinct: [(bundleID: String, userEntered: Bool, rank: SampleRank)] = []
        var positions: [Int] = []
        positions.reserveCapacity(samples.count)
        for sample in samples {
            // Samples of a source share its bundle id's storage, so this compare is usually a pointer check.
            if let known = distinct.firstIndex(where: { $0.userEntered == sample.wasUserEntered && $0.bundleID == sample.sourceBundleID }) {
                positions.append(known)
            } else {
                positions.append(distinct.count)
                distinct.append((sample.sourceBundleID, sample.wasUserEntered, priority.rank(of: sample)))
            }
        }
        let order = distinct.indices.sorted { distinct[$0].rank < distinct[$1].rank }
        var ordinalOf = [Int](repeating: 0, count: distinct.count)
        for (ordinal, position) in order.enumerated() { ordinalOf[position] = ordinal }
        ordinals = positions.map { ordinalOf[$0] }
    }
}

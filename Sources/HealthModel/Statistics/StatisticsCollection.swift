extension StatisticsCalculator {
    /// HKStatisticsCollection's values: one `Statistics` per bucket from the one containing `from` to the
    /// one containing `to`, in order, empty buckets included with nil quantities. A sample feeds every
    /// bucket it overlaps; cumulative values are apportioned by time (see `CumulativeMerge`).
    public static func collection(type: HealthType, samples: [StatInput], options: StatisticsOptions,
                                  buckets: CalendarBuckets, from: Microseconds, to: Microseconds,
                                  priority: SourcePriorityOrder, unit: String? = nil) throws(HealthError) -> [Statistics] {
        try collection(type: type, grouped: group(samples, buckets: try buckets.buckets(from: from, to: to)), options: options,
                       priority: priority, unit: unit)
    }

    /// The same values from samples already grouped by their buckets (a fetch fills `grouped` as it reads).
    public static func collection(type: HealthType, grouped: BucketedStatInputs, options: StatisticsOptions,
                                  priority: SourcePriorityOrder, unit: String? = nil) throws(HealthError) -> [Statistics] {
        let plan = try StatisticsPlan(type: type, options: options, unit: unit)
        var result: [Statistics] = []
        result.reserveCapacity(grouped.buckets.count)
        for (bucket, inBucket) in zip(grouped.buckets, grouped.groups) {
            result.append(try plan.statistics(inBucket, interval: bucket.range, priority: priority))
        }
        return result
    }

    /// Samples grouped by the `buckets` they overlap.
    static func group(_ samples: [StatInput], buckets: [CalendarBucket]) -> BucketedStatInputs {
        var grouped = BucketedStatInputs(buckets)
        for sample in samples { grouped.add(sample) }
        return grouped
    }

    /// Positions (in `bounds`' buckets) of the buckets a sample overlaps; an instant feeds the bucket
    /// with start ≤ t < end. `near` guesses the first of them (the last sample's, when samples come in
    /// start order): that bucket and the next are tried before a binary search, so a year of hourly
    /// buckets costs two comparisons a sample instead of two searches of 8,784 bounds.
    static func bucketSpan(of sample: StatInput, bounds: [Microseconds], near: Int = 0) -> ClosedRange<Int>? {
        let count = bounds.count - 1
        if sample.duration == 0 {
            let position = countOf(bounds, guess: near + 1) { $0 <= sample.start } - 1
            return (0..<count).contains(position) ? position...position : nil
        }
        guard sample.end > bounds[0], sample.start < bounds[count] else { return nil }
        let first = max(0, countOf(bounds, guess: near + 1) { $0 <= sample.start } - 1)
        let last = min(count - 1, countOf(bounds, guess: first + 1) { $0 < sample.end } - 1)
        return first...last
    }

    /// How many leading elements of the ascending `bounds` satisfy `predicate` (true for a prefix):
    /// `guess` or the count after it when either is the answer, else found by binary search.
    private static func countOf(_ bounds: [Microseconds], guess: Int, where predicate: (Microseconds) -> Bool) -> Int {
        for candidate in guess...guess + 1 where candidate <= bounds.count {
            if candidate == 0 || predicate(bounds[candidate - 1]), candidate == bounds.count || !predicate(bounds[candidate]) {
                return candidate
            }
        }
        var low = 0, high = bounds.count
        while low < high {
            let mid = (low + high) / 2
            if predicate(bounds[mid]) { low = mid + 1 } else { high = mid }
        }
        return low
    }
}

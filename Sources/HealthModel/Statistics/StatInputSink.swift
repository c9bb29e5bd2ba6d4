/// Where a statistics fetch hands each sample as it reads it, in ascending start order, so the rows
/// reach the math without an array of their own in between.
public protocol StatInputSink: Sendable {
    mutating func add(_ sample: StatInput)
}

extension Array: StatInputSink where Element == StatInput {
    public mutating func add(_ sample: StatInput) { append(sample) }
}

/// Samples kept with each collection bucket they overlap, grouped as they arrive.
public struct BucketedStatInputs: StatInputSink {
    /// The buckets, in order.
    public let buckets: [CalendarBucket]
    /// The buckets' starts, then the last one's end.
    let bounds: [Microseconds]
    /// The samples of each bucket, in the order they were added.
    private(set) var groups: [[StatInput]]
    /// Samples added that overlap some bucket (each counted once).
    public private(set) var count = 0
    /// The first bucket of the last sample filed: where the next one, later or as early, most likely starts.
    private var recent = 0

    /// Empty groups for `buckets` (ascending and adjacent, at least one).
    public init(_ buckets: [CalendarBucket]) {
        self.buckets = buckets
        bounds = buckets.map(\.start) + [buckets[buckets.count - 1].end]
        groups = [[StatInput]](repeating: [], count: buckets.count)
    }

    public mutating func add(_ sample: StatInput) {
        guard let span = StatisticsCalculator.bucketSpan(of: sample, bounds: bounds, near: recent) else { return }
        recent = span.lowerBound
        count += 1
        for index in span { groups[index].append(sample) }
    }
}

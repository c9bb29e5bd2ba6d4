import Synchronization

/// A Prometheus histogram with fixed upper bounds, recorded without a lock.
public final class Histogram: Sendable {
    /// Upper bounds of the buckets, ascending; +Inf is implicit.
    public let bounds: [Double]
    private let buckets: [Counter]
    /// The sum of observations, as the bit pattern of a Double (updated by compare-and-swap).
    private let sumBits = Atomic<UInt64>(0)

    public init(bounds: [Double]) {
        self.bounds = bounds
        buckets = (0...bounds.count).map { _ in Counter() }
    }

    /// Call latencies: 100 µs to 10 s.
    public static func seconds() -> Histogram {
        Histogram(bounds: [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 10])
    }

    /// Sizes: 1 to 10,000 by powers of about 4.
    public static func sizes() -> Histogram {
        Histogram(bounds: [1, 2, 4, 8, 16, 32, 64, 128, 256, 1024, 4096, 10_000])
    }

    public func observe(_ value: Double) {
        let index = bounds.firstIndex { value <= $0 } ?? bounds.count
        buckets[index].add()
        var old = sumBits.load(ordering: .relaxed)
        while true {
            let new = (Double(bitPattern: old) + value).bitPattern
            let (exchanged, current) = sumBits.compareExchange(expected: old, desired: new, ordering: .relaxed)
            if exchanged { return }
            old = current
        }
    }

    /// Cumulative counts per bound (the last is +Inf, the total count), and the sum.
    public func snapshot() -> (cumulative: [Int], sum: Double) {
        var running = 0
        let cumulative = buckets.map { bucket in
            running += bucket.current
            return running
        }
        return (cumulative, Double(bitPattern: sumBits.load(ordering: .relaxed)))
    }
}

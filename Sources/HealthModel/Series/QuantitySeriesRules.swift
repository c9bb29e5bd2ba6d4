/// HealthKit's rules for the quantities an HKQuantitySeriesSampleBuilder inserts: each is a valid
/// quantity of the builder's type (compatible unit, finite, in the type's range), its interval starts
/// no earlier than the builder's start date, and the points come in start order across every batch.
/// A point starting exactly where the previous one starts replaces it, as HealthKit's insert does.
public enum QuantitySeriesRules {
    /// The points a batch adds, with equal starts collapsed to the later point, and whether the first
    /// of them replaces the builder's last stored point (which starts at `lastStart`). Errors name the
    /// point as `quantities[i]` and carry `i` as the object index.
    public static func accept(_ points: [QuantitySeriesPoint], type: HealthType, builderStart: Microseconds,
                              lastStart: Microseconds?) throws(HealthError) -> (points: [QuantitySeriesPoint], replacesLast: Bool) {
        guard type.kind == .quantity else {
            throw HealthError.invalid("Quantity series points need a quantity type; \(type.identifier) is a \(type.kind.rawValue) type",
                                      field: "type")
        }
        var accepted: [QuantitySeriesPoint] = []
        accepted.reserveCapacity(points.count)
        var replacesLast = false
        var previous = lastStart
        for (i, point) in points.enumerated() {
            let path = FieldPath.root.child("quantities[\(i)]")
            do throws(HealthError) {
                try check(point, type: type, builderStart: builderStart, path: path)
                if let previous, point.start < previous {
                    throw path.invalid("start_time", "Quantity series points must be in start order: a point starting at "
                        + "\(point.start) µs follows one starting at \(previous) µs")
                }
            } catch {
                throw error.at(index: i)
            }
            if point.start == previous {
                if accepted.isEmpty { replacesLast = true } else { accepted.removeLast() }
            }
            accepted.append(point)
            previous = point.start
        }
        return (accepted, replacesLast)
    }

    private static func check(_ point: QuantitySeriesPoint, type: HealthType, builderStart: Microseconds,
                              path: FieldPath) throws(HealthError) {
        try QuantityRules.check(point.quantity, count: 1, type: type, path: path)
        try TimeRules.checkInstant(point.start, field: path("start_time"))
        try TimeRules.checkInstant(point.end, field: path("end_time"))
        if point.end < point.start {
            throw path.invalid("end_time", "A quantity's interval cannot end (\(point.end) µs) before it starts (\(point.start) µs)")
        }
        if point.start < builderStart {
            throw path.invalid("start_time", "A quantity cannot start (\(point.start) µs) before the series builder's "
                + "start date (\(builderStart) µs)")
        }
    }

    /// The error for finishing a builder that holds no quantity.
    static let empty = HealthError.invalid("A quantity series needs at least one quantity; insert one before finishing",
                                           field: "builder_id")
}

/// Time-interval rules shared by samples, workout events and workout activities (docs/semantics.md §1.3, §8.2).
enum IntervalRules {
    /// The wire carries times as proto3 int64, where "absent" reads as 0; no real health data sits
    /// on the exact microsecond of the Unix epoch, so 0 is treated as missing (HealthKit's
    /// "Missing start or end time").
    static let missing: Microseconds = 0

    /// Start and end present, in years 1 through 9999, and start ≤ end.
    static func checkOrder(start: Microseconds, end: Microseconds, path: FieldPath) throws(HealthError) {
        if start == missing { throw path.invalid("start_time", "Missing start or end time") }
        if end == missing { throw path.invalid("end_time", "Missing start or end time") }
        try TimeRules.checkInstant(start, field: path("start_time"))
        try TimeRules.checkInstant(end, field: path("end_time"))
        if start > end {
            throw path.invalid("start_time",
                               "startDate (\(Time.iso8601(start))) cannot occur after endDate (\(Time.iso8601(end)))")
        }
    }

    /// The full sample-interval check: order, undetermined end, and the type's duration limits.
    static func checkSample(start: Microseconds, end: Microseconds, type: HealthType, path: FieldPath) throws(HealthError) {
        try checkOrder(start: start, end: end, path: path)
        let undetermined = end >= Time.distantFuture
        if undetermined {
            guard type.allowsUndeterminedDuration else {
                throw path.invalid("end_time", "Type \(type.identifier) can not have endDate of NSDate.distantFuture")
            }
            // An open-ended sample has no duration to limit.
            return
        }
        let duration = end - start
        if let maximum = type.maximumDuration, duration > maximum {
            throw path.invalid("end_time", "startDate (\(Time.iso8601(start))) and endDate (\(Time.iso8601(end))) exceed "
                + "the maximum allowed duration for this sample type. Maximum duration for type \(type.identifier) is "
                + "\(seconds(maximum)) s")
        }
        if let minimum = type.minimumDuration, duration < minimum {
            throw path.invalid("end_time", "startDate (\(Time.iso8601(start))) and endDate (\(Time.iso8601(end))) are "
                + "shorter than the minimum allowed duration for this sample type. Minimum duration for type "
                + "\(type.identifier) is \(seconds(minimum)) s")
        }
    }

    private static func seconds(_ micros: Microseconds) -> Double {
        Double(micros) / Double(Time.microsPerSecond)
    }
}

/// The client values of a statistics collection, bounded so bucket arithmetic cannot overflow:
/// interval components non-negative and together at most the span of supported dates (10,000
/// years), and anchor, from and to inside years 1 through 9999 with from ≤ to.
public enum StatisticsCollectionRules {
    /// 10,000 Gregorian years in seconds.
    static let maximumIntervalSeconds = 10_000 * 31_556_952.0

    /// Throws INVALID_ARGUMENT (field "interval") for a negative, empty or over-long interval.
    public static func checkInterval(_ components: IntervalComponents) throws(HealthError) {
        let parts = [components.seconds, components.minutes, components.hours, components.days, components.weeks,
                     components.months, components.years]
        guard parts.allSatisfy({ $0 >= 0 }), !components.isEmpty else {
            throw HealthError.invalid("interval components must be non-negative with at least one positive; got \(components)",
                                      field: "interval")
        }
        guard components.nominalSeconds <= maximumIntervalSeconds else {
            throw HealthError.invalid("interval \(components) is longer than 10000 years, the span of supported dates",
                                      field: "interval")
        }
    }

    /// Every client value of a collection request.
    public static func check(anchor: Microseconds, interval: IntervalComponents, from: Microseconds,
                             to: Microseconds) throws(HealthError) {
        try checkInterval(interval)
        try TimeRules.checkInstant(anchor, field: "anchor")
        try TimeRules.checkInstant(from, field: "from_time")
        try TimeRules.checkInstant(to, field: "to_time")
        guard from <= to else {
            throw HealthError.invalid("from_time \(Time.iso8601(from)) is after to_time \(Time.iso8601(to))", field: "from_time")
        }
    }
}

extension IntervalComponents {
    /// Approximate length in seconds (months and years at their Gregorian averages), computed in
    /// Double so any component values give a finite answer.
    var nominalSeconds: Double {
        Double(seconds) + 60 * Double(minutes) + 3_600 * Double(hours) + 86_400 * (Double(days) + 7 * Double(weeks))
            + 2_629_746 * Double(months) + 31_556_952 * Double(years)
    }
}

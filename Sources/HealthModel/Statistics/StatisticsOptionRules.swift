/// Which statistics options a quantity type accepts (docs/semantics.md §4.1).
public enum StatisticsOptionRules {
    /// Names as HealthKit prints them in its exception text.
    static let names: [(StatisticsOptions, String)] = [
        (.separateBySource, "separateBySource"), (.discreteAverage, "discreteAverage"), (.discreteMin, "discreteMin"),
        (.discreteMax, "discreteMax"), (.cumulativeSum, "cumulativeSum"), (.mostRecent, "mostRecent"), (.duration, "duration"),
    ]

    /// Throws INVALID_ARGUMENT unless `type` is a quantity type and every option suits its aggregation
    /// style: cumulative types reject discreteAverage/Min/Max, discrete types reject cumulativeSum.
    public static func check(_ options: StatisticsOptions, for type: HealthType) throws(HealthError) {
        guard type.kind == .quantity, let style = type.aggregation else {
            throw HealthError.invalid("statistics need a quantity type; \(type.identifier) is a \(type.kind.rawValue) type", field: "type")
        }
        let rejected: StatisticsOptions = style.isDiscrete ? .cumulativeSum : [.discreteAverage, .discreteMin, .discreteMax]
        if let (_, name) = names.first(where: { options.contains($0.0) && rejected.contains($0.0) }) {
            let kind = style.isDiscrete ? "discrete" : "cumulative"
            throw HealthError.invalid("Statistics option \(name) is not compatible with \(kind) data type \(type.identifier)", field: "options")
        }
    }
}

/// A category sample reduced to what activity summaries need (AppleStandHour).
public struct CategoryStatInput: Sendable, Hashable {
    public let start: Microseconds
    public let end: Microseconds
    public let value: Int64
    public let sourceBundleID: String

    public init(start: Microseconds, end: Microseconds, value: Int64, sourceBundleID: String) {
        self.start = start
        self.end = end
        self.value = value
        self.sourceBundleID = sourceBundleID
    }
}

/// HKActivitySummary values derived from stored samples, one per local day (docs/semantics.md §1.10, §6.10).
///
/// Rules:
/// - Days run from local midnight to midnight in the time zone (23 or 25 hours across DST).
/// - Active energy (kcal) and exercise time (min) are priority-merged cumulative sums clipped to the
///   day, exactly as a statistics collection with one-day buckets computes them.
/// - Stand hours count the distinct hours of the day (counted from its midnight) in which an
///   AppleStandHour sample with value `stood` (0) starts, so several sources reporting the same hour
///   count once.
/// - Every day in the range gets a summary; days without samples have zeros.
public enum ActivitySummaryCalculator {
    /// HKCategoryValueAppleStandHour.stood.
    public static let stood: Int64 = 0
    /// The types summaries read: active energy, exercise time and stand hours.
    public static let activeEnergyType = "HKQuantityTypeIdentifierActiveEnergyBurned"
    public static let exerciseTimeType = "HKQuantityTypeIdentifierAppleExerciseTime"
    public static let standHourType = "HKCategoryTypeIdentifierAppleStandHour"
    public static let inputTypes = [activeEnergyType, exerciseTimeType, standHourType]

    /// Summaries for `from`…`to` inclusive. Sample values are in canonical units: kcal and min.
    public static func summaries(from: CalendarDay, to: CalendarDay, timeZone: String?,
                                 activeEnergy: [StatInput], energyPriority: SourcePriorityOrder,
                                 exerciseTime: [StatInput], exercisePriority: SourcePriorityOrder,
                                 standHours: [CategoryStatInput]) throws(HealthError) -> [ActivitySummary] {
        guard from <= to else {
            throw HealthError.invalid("activity summary range starts \(from.isoString), after its end \(to.isoString)", field: "from")
        }
        let days = try CalendarBuckets.days(startingAt: from, timeZone: timeZone)
        let last = try CalendarBuckets.days(startingAt: to, timeZone: timeZone).anchor
        let buckets = try days.buckets(from: days.anchor, to: last)
        let bounds = buckets.map(\.start) + [buckets[buckets.count - 1].end]
        let energy = StatisticsCalculator.group(activeEnergy, buckets: buckets).groups
        let exercise = StatisticsCalculator.group(exerciseTime, buckets: buckets).groups

        var stoodHours = [Set<Int64>](repeating: [], count: buckets.count)
        for sample in standHours where sample.value == stood {
            let instant = StatInput(start: sample.start, end: sample.start, value: 1, sourceBundleID: sample.sourceBundleID)
            guard let span = StatisticsCalculator.bucketSpan(of: instant, bounds: bounds) else { continue }
            let day = span.lowerBound
            stoodHours[day].insert((sample.start - bounds[day]) / (3600 * Time.microsPerSecond))
        }

        return try buckets.indices.map { (i: Int) throws(HealthError) -> ActivitySummary in
            let range = buckets[i].range
            return ActivitySummary(
                day: days.day(containing: range.lowerBound),
                activeEnergyBurned: Quantity(CumulativeMerge.mergedSum(energy[i], clip: range, priority: energyPriority) ?? 0, "kcal"),
                exerciseTime: Quantity(CumulativeMerge.mergedSum(exercise[i], clip: range, priority: exercisePriority) ?? 0, "min"),
                standHours: Quantity(Double(stoodHours[i].count), "count"))
        }
    }
}

import Foundation
import HealthModel
import HealthProto

/// protobuf-c structs → query parameters, statistics and characteristics (shared by both directions).
extension WireDecode {
    static func statisticsOptions(_ pointer: UnsafeMutablePointer<Healthstore__V1__StatisticsOptions>?) -> StatisticsOptions {
        guard let o = pointer?.pointee else { return [] }
        var options: StatisticsOptions = []
        if o.separate_by_source != 0 { options.insert(.separateBySource) }
        if o.discrete_average != 0 { options.insert(.discreteAverage) }
        if o.discrete_min != 0 { options.insert(.discreteMin) }
        if o.discrete_max != 0 { options.insert(.discreteMax) }
        if o.cumulative_sum != 0 { options.insert(.cumulativeSum) }
        if o.most_recent != 0 { options.insert(.mostRecent) }
        if o.duration != 0 { options.insert(.duration) }
        return options
    }

    static func interval(_ pointer: UnsafeMutablePointer<Healthstore__V1__IntervalComponents>?) throws(HealthError) -> IntervalComponents {
        let i = try CRead.required(pointer, "interval")
        return IntervalComponents(seconds: Int(i.seconds), minutes: Int(i.minutes), hours: Int(i.hours), days: Int(i.days),
                                  weeks: Int(i.weeks), months: Int(i.months), years: Int(i.years))
    }

    static func sortDescriptor(_ s: Healthstore__V1__SortDescriptor) throws(HealthError) -> SampleSortDescriptor {
        SampleSortDescriptor(try CRead.enumValue(s.key.rawValue, "sort.key"), descending: s.descending != 0)
    }

    static func typedPredicate(_ t: Healthstore__V1__TypedPredicate) throws(HealthError) -> TypedPredicate {
        TypedPredicate(type: try CRead.typeName(t.type, "type"), predicate: try optionalPredicate(t.predicate))
    }

    /// Absent interval of the most recent sample reads as nil when there is no most recent value.
    static func statistics(_ s: Healthstore__V1__Statistics) throws(HealthError) -> Statistics {
        let mostRecent = try optionalQuantity(s.most_recent, "statistics.most_recent")
        var interval: ClosedRange<Microseconds>?
        if mostRecent != nil || s.most_recent_start_time != 0 || s.most_recent_end_time != 0 {
            guard s.most_recent_start_time <= s.most_recent_end_time else {
                throw CRead.malformed("statistics.most_recent_start_time \(s.most_recent_start_time) is after most_recent_end_time \(s.most_recent_end_time)",
                                      field: "statistics.most_recent_start_time")
            }
            interval = s.most_recent_start_time...s.most_recent_end_time
        }
        return Statistics(type: try CRead.string(s.type, "statistics.type"),
                          start: s.start_time, end: s.end_time,
                          sum: try optionalQuantity(s.sum, "statistics.sum"),
                          average: try optionalQuantity(s.average, "statistics.average"),
                          minimum: try optionalQuantity(s.minimum, "statistics.minimum"),
                          maximum: try optionalQuantity(s.maximum, "statistics.maximum"),
                          mostRecent: mostRecent, mostRecentInterval: interval,
                          duration: try optionalSeconds(s.duration, "statistics.duration"),
                          bySource: try CRead.list(s.by_source, s.n_by_source, "statistics.by_source", sourceStatistics))
    }

    static func sourceStatistics(_ s: Healthstore__V1__SourceStatistics) throws(HealthError) -> SourceStatistics {
        SourceStatistics(source: try requiredSource(s.source, "statistics.by_source.source"),
                         sum: try optionalQuantity(s.sum, "statistics.by_source.sum"),
                         average: try optionalQuantity(s.average, "statistics.by_source.average"),
                         minimum: try optionalQuantity(s.minimum, "statistics.by_source.minimum"),
                         maximum: try optionalQuantity(s.maximum, "statistics.by_source.maximum"),
                         mostRecent: try optionalQuantity(s.most_recent, "statistics.by_source.most_recent"),
                         duration: try optionalSeconds(s.duration, "statistics.by_source.duration"))
    }

    /// UNSPECIFIED enums and an absent date of birth read as not set; values beyond the enum are rejected.
    static func characteristics(_ c: Healthstore__V1__Characteristics) throws(HealthError) -> Characteristics {
        Characteristics(biologicalSex: try CRead.rawEnum(c.biological_sex.rawValue, max: 3, "characteristics.biological_sex"),
                        bloodType: try CRead.rawEnum(c.blood_type.rawValue, max: 8, "characteristics.blood_type"),
                        dateOfBirth: c.date_of_birth == nil ? nil : try calendarDay(c.date_of_birth, "characteristics.date_of_birth"),
                        fitzpatrickSkinType: try CRead.rawEnum(c.fitzpatrick_skin_type.rawValue, max: 6,
                                                               "characteristics.fitzpatrick_skin_type"),
                        wheelchairUse: try CRead.rawEnum(c.wheelchair_use.rawValue, max: 2, "characteristics.wheelchair_use"),
                        activityMoveMode: try CRead.rawEnum(c.activity_move_mode.rawValue, max: 2, "characteristics.activity_move_mode"))
    }

    static func activitySummary(_ a: Healthstore__V1__ActivitySummary) throws(HealthError) -> ActivitySummary {
        ActivitySummary(day: try calendarDay(a.day, "summaries.day"),
                        activeEnergyBurned: try requiredQuantity(a.active_energy_burned, "summaries.active_energy_burned"),
                        exerciseTime: try requiredQuantity(a.exercise_time, "summaries.exercise_time"),
                        standHours: try requiredQuantity(a.stand_hours, "summaries.stand_hours"))
    }
}

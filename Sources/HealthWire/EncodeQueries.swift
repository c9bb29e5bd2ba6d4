import Foundation
import HealthModel
import HealthProto

/// Query parameters, statistics and characteristics → protobuf-c structs (shared by both directions).
extension WireArena {
    func statisticsOptions(_ o: StatisticsOptions) -> UnsafeMutablePointer<Healthstore__V1__StatisticsOptions> {
        let p = message(healthstore__v1__statistics_options__init)
        p.pointee.separate_by_source = o.contains(.separateBySource) ? 1 : 0
        p.pointee.discrete_average = o.contains(.discreteAverage) ? 1 : 0
        p.pointee.discrete_min = o.contains(.discreteMin) ? 1 : 0
        p.pointee.discrete_max = o.contains(.discreteMax) ? 1 : 0
        p.pointee.cumulative_sum = o.contains(.cumulativeSum) ? 1 : 0
        p.pointee.most_recent = o.contains(.mostRecent) ? 1 : 0
        p.pointee.duration = o.contains(.duration) ? 1 : 0
        return p
    }

    func interval(_ i: IntervalComponents) -> UnsafeMutablePointer<Healthstore__V1__IntervalComponents> {
        let p = message(healthstore__v1__interval_components__init)
        p.pointee.seconds = Int32(clamping: i.seconds)
        p.pointee.minutes = Int32(clamping: i.minutes)
        p.pointee.hours = Int32(clamping: i.hours)
        p.pointee.days = Int32(clamping: i.days)
        p.pointee.weeks = Int32(clamping: i.weeks)
        p.pointee.months = Int32(clamping: i.months)
        p.pointee.years = Int32(clamping: i.years)
        return p
    }

    func sortDescriptor(_ s: SampleSortDescriptor) -> UnsafeMutablePointer<Healthstore__V1__SortDescriptor> {
        let p = message(healthstore__v1__sort_descriptor__init)
        p.pointee.key = cEnum(s.key)
        p.pointee.descending = s.descending ? 1 : 0
        return p
    }

    func typedPredicate(type: String, predicate: QueryPredicate?) -> UnsafeMutablePointer<Healthstore__V1__TypedPredicate> {
        let p = message(healthstore__v1__typed_predicate__init)
        p.pointee.type = cString(type)
        p.pointee.predicate = optionalPredicate(predicate)
        return p
    }

    func statistics(_ s: Statistics) -> UnsafeMutablePointer<Healthstore__V1__Statistics> {
        let p = message(healthstore__v1__statistics__init)
        p.pointee.type = cString(s.type)
        p.pointee.start_time = s.start
        p.pointee.end_time = s.end
        p.pointee.sum = optionalQuantity(s.sum)
        p.pointee.average = optionalQuantity(s.average)
        p.pointee.minimum = optionalQuantity(s.minimum)
        p.pointee.maximum = optionalQuantity(s.maximum)
        p.pointee.most_recent = optionalQuantity(s.mostRecent)
        p.pointee.most_recent_start_time = s.mostRecentInterval?.lowerBound ?? 0
        p.pointee.most_recent_end_time = s.mostRecentInterval?.upperBound ?? 0
        p.pointee.duration = seconds(s.duration)
        (p.pointee.n_by_source, p.pointee.by_source) = list(s.bySource, sourceStatistics)
        return p
    }

    func sourceStatistics(_ s: SourceStatistics) -> UnsafeMutablePointer<Healthstore__V1__SourceStatistics> {
        let p = message(healthstore__v1__source_statistics__init)
        p.pointee.source = source(s.source)
        p.pointee.sum = optionalQuantity(s.sum)
        p.pointee.average = optionalQuantity(s.average)
        p.pointee.minimum = optionalQuantity(s.minimum)
        p.pointee.maximum = optionalQuantity(s.maximum)
        p.pointee.most_recent = optionalQuantity(s.mostRecent)
        p.pointee.duration = seconds(s.duration)
        return p
    }

    func characteristics(_ c: Characteristics) -> UnsafeMutablePointer<Healthstore__V1__Characteristics> {
        let p = message(healthstore__v1__characteristics__init)
        p.pointee.biological_sex = .init(rawValue: UInt32(bitPattern: c.biologicalSex ?? 0))
        p.pointee.blood_type = .init(rawValue: UInt32(bitPattern: c.bloodType ?? 0))
        p.pointee.date_of_birth = c.dateOfBirth.map(calendarDay)
        p.pointee.fitzpatrick_skin_type = .init(rawValue: UInt32(bitPattern: c.fitzpatrickSkinType ?? 0))
        p.pointee.wheelchair_use = .init(rawValue: UInt32(bitPattern: c.wheelchairUse ?? 0))
        p.pointee.activity_move_mode = .init(rawValue: UInt32(bitPattern: c.activityMoveMode ?? 0))
        return p
    }

    func activitySummary(_ a: ActivitySummary) -> UnsafeMutablePointer<Healthstore__V1__ActivitySummary> {
        let p = message(healthstore__v1__activity_summary__init)
        p.pointee.day = calendarDay(a.day)
        p.pointee.active_energy_burned = quantity(a.activeEnergyBurned)
        p.pointee.exercise_time = quantity(a.exerciseTime)
        p.pointee.stand_hours = quantity(a.standHours)
        return p
    }
}

import Foundation

/// Rules for workouts (docs/semantics.md §1.7, §4.6), as HealthKit's workout validation has them: a known
/// activity type; a duration no longer than the workout; events and activities inside the workout's
/// interval (an activity's events inside the activity's); pause/resume sequences that start with a
/// pause; statistics in range.
enum WorkoutRules {
    static func check(_ workout: Workout, start: Microseconds, end: Microseconds, path: FieldPath) throws(HealthError) {
        try checkActivityType(workout.activityType, field: "workout.activity_type", path: path)
        if let duration = workout.duration, !(0...end - start).contains(duration) {
            throw path.invalid("workout.duration", "Workout duration must be between 0 and the workout's length "
                + "(\(end - start) µs); got \(duration) µs")
        }
        let workoutPath = path.child("workout")
        try checkEvents(workout.events, within: start...end, owner: "workout", path: workoutPath)
        try checkStatistics(workout.statistics, path: workoutPath)
        var seen = Set<UUID>()
        for (i, activity) in workout.activities.enumerated() {
            let activityPath = path.child("workout.activities[\(i)]")
            if !seen.insert(activity.uuid).inserted {
                throw activityPath.invalid("uuid", "Duplicate workout activity UUID \(activity.uuid)")
            }
            try checkActivityType(activity.activityType, field: "activity_type", path: activityPath)
            try IntervalRules.checkOrder(start: activity.start, end: activity.end, path: activityPath)
            try checkInside(activity.start, activity.end, within: start...end, what: "A workout activity",
                            owner: "workout", path: activityPath)
            try MetadataValidator.checkEntries(activity.metadata, path: activityPath)
            try checkEvents(activity.events, within: activity.start...activity.end, owner: "activity", path: activityPath)
            try checkStatistics(activity.statistics, path: activityPath)
        }
    }

    private static func checkActivityType(_ raw: Int32, field: String, path: FieldPath) throws(HealthError) {
        if !WorkoutActivityTypes.all.contains(raw) {
            throw path.invalid(field, "Invalid workout activity type \(raw)")
        }
    }

    private static func checkEvents(_ events: [WorkoutEvent], within interval: ClosedRange<Microseconds>, owner: String,
                                    path: FieldPath) throws(HealthError) {
        for (i, event) in events.enumerated() {
            let eventPath = path.child("events[\(i)]")
            try IntervalRules.checkOrder(start: event.start, end: event.end, path: eventPath)
            try checkInside(event.start, event.end, within: interval, what: "A workout event", owner: owner, path: eventPath)
            try MetadataValidator.checkEntries(event.metadata, path: eventPath)
        }
        try checkFirstIsPause(events, pause: .pause, resume: .resume, path: path)
        try checkFirstIsPause(events, pause: .motionPaused, resume: .motionResumed, path: path)
    }

    /// A workout starts active, so the first of its pause/resume events (in time order) must pause it.
    private static func checkFirstIsPause(_ events: [WorkoutEvent], pause: WorkoutEventType, resume: WorkoutEventType,
                                          path: FieldPath) throws(HealthError) {
        let first = events.enumerated()
            .filter { $0.element.type == pause || $0.element.type == resume }
            .min { ($0.element.start, $0.offset) < ($1.element.start, $1.offset) }
        if let first, first.element.type == resume {
            throw path.child("events[\(first.offset)]").invalid("type", "The first \(pause)/\(resume) event must be a "
                + "\(pause): a workout starts active, so it cannot begin with a \(resume)")
        }
    }

    private static func checkInside(_ start: Microseconds, _ end: Microseconds, within interval: ClosedRange<Microseconds>,
                                    what: String, owner: String, path: FieldPath) throws(HealthError) {
        if start < interval.lowerBound {
            throw path.invalid("start_time", "\(what) cannot start (\(Time.iso8601(start))) before its \(owner) starts "
                + "(\(Time.iso8601(interval.lowerBound)))")
        }
        if end > interval.upperBound {
            throw path.invalid("end_time", "\(what) cannot end (\(Time.iso8601(end))) after its \(owner) ends "
                + "(\(Time.iso8601(interval.upperBound)))")
        }
    }

    private static func checkStatistics(_ statistics: [WorkoutStatistic], path: FieldPath) throws(HealthError) {
        for (i, statistic) in statistics.enumerated() {
            let statPath = path.child("statistics[\(i)]")
            guard let type = TypeCatalog.type(statistic.quantityType), type.kind == .quantity,
                  let canonical = type.canonicalUnit else {
                throw statPath.invalid("quantity_type", "Workout statistics need a quantity type; got '\(statistic.quantityType)'")
            }
            let values = [("sum", statistic.sum), ("average", statistic.average),
                          ("minimum", statistic.minimum), ("maximum", statistic.maximum)]
            for case let (name, quantity?) in values {
                try QuantityRules.checkFinite(quantity.value, field: name, path: statPath)
                let unit = try QuantityRules.unit(of: quantity, for: type, canonical: canonical, subject: type.identifier,
                                                  field: name, path: statPath)
                try QuantityRules.checkRange(quantity.value, in: unit, type: type, lowerBoundOnly: name == "sum", field: name,
                                             path: statPath)
            }
        }
    }
}

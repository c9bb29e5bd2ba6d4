import Foundation

/// Rules for workouts (SEMANTICS §1.7, §4.6): a known activity type, well-ordered events and
/// activities, valid statistics. HealthKit's undocumented placement rules (events inside the
/// workout's interval) are not enforced, so real data is not refused (decision 8).
enum WorkoutRules {
    static func check(_ workout: Workout, path: FieldPath) throws(HealthError) {
        try checkActivityType(workout.activityType, field: "workout.activity_type", path: path)
        if let duration = workout.duration, duration < 0 {
            throw path.invalid("workout.duration", "Workout duration must not be negative; got \(duration) µs")
        }
        try checkEvents(workout.events, path: path.child("workout"))
        try checkStatistics(workout.statistics, path: path.child("workout"))
        var seen = Set<UUID>()
        for (i, activity) in workout.activities.enumerated() {
            let activityPath = path.child("workout.activities[\(i)]")
            if !seen.insert(activity.uuid).inserted {
                throw activityPath.invalid("uuid", "Duplicate workout activity UUID \(activity.uuid)")
            }
            try checkActivityType(activity.activityType, field: "activity_type", path: activityPath)
            try IntervalRules.checkOrder(start: activity.start, end: activity.end, path: activityPath)
            try MetadataValidator.checkEntries(activity.metadata, path: activityPath)
            try checkEvents(activity.events, path: activityPath)
            try checkStatistics(activity.statistics, path: activityPath)
        }
    }

    private static func checkActivityType(_ raw: Int32, field: String, path: FieldPath) throws(HealthError) {
        if !WorkoutActivityTypes.all.contains(raw) {
            throw path.invalid(field, "Invalid workout activity type \(raw)")
        }
    }

    private static func checkEvents(_ events: [WorkoutEvent], path: FieldPath) throws(HealthError) {
        for (i, event) in events.enumerated() {
            let eventPath = path.child("events[\(i)]")
            try IntervalRules.checkOrder(start: event.start, end: event.end, path: eventPath)
            try MetadataValidator.checkEntries(event.metadata, path: eventPath)
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
                guard try QuantityRules.isCompatible(quantity.unit, with: canonical, field: name, path: statPath) else {
                    throw statPath.invalid(name, "\(type.identifier) requires unit of type \(canonical). "
                        + "Incompatible unit: \(quantity.unit)")
                }
            }
        }
    }
}

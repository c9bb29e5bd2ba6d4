/// HealthKit's rules for the points of series samples: coordinates in range and finite values, points in
/// time order across every batch a builder inserts, a route's locations inside its workout, at most
/// `maximumHeartbeats` beats a series, and a builder finished only once.
public enum SeriesRules {
    /// The most beats one heartbeat series holds (HKHeartbeatSeriesBuilder.maximumCount).
    public static let maximumHeartbeats = 1_000
    /// Latest beat after the series start: a day (an HRV reading spans about a minute; HealthKit states
    /// no bound), which also keeps every offset within the packed form.
    public static let maximumHeartbeatOffset: Microseconds = 86_400 * Time.microsPerSecond
    /// Largest magnitude accepted for altitude, accuracies, course and speed, so every value fits the
    /// store's grid (HealthKit states no bound; no real location comes near it).
    static let largestMeasure = 1e9

    /// Checks a batch of locations inserted after `previousTime` (the builder's last location's time).
    /// Errors name the location as `locations[i]` and carry `i` as the object index.
    public static func checkLocations(_ locations: [RouteLocation], after previousTime: Microseconds?) throws(HealthError) {
        var previous = previousTime
        for (i, location) in locations.enumerated() {
            // The location's path is built only for the one that fails: built for each, it cost more than the checks.
            if let (field, message) = problem(with: location, after: previous) {
                throw FieldPath.root.child("locations[\(i)]").invalid(field, message).at(index: i)
            }
            previous = location.time
        }
    }

    /// The measures bounded by `largestMeasure`, by field name, in the order they are checked.
    private static let measures: [(field: String, value: @Sendable (RouteLocation) -> Double)] = [
        ("altitude", { $0.altitude }), ("horizontal_accuracy", { $0.horizontalAccuracy }), ("vertical_accuracy", { $0.verticalAccuracy }),
        ("course", { $0.course }), ("course_accuracy", { $0.courseAccuracy }), ("speed", { $0.speed }), ("speed_accuracy", { $0.speedAccuracy }),
    ]

    /// The first rule `location` breaks, as its field and message; nil when it keeps them all.
    private static func problem(with location: RouteLocation, after previous: Microseconds?) -> (field: String, message: String)? {
        guard location.latitude.isFinite, (-90...90).contains(location.latitude) else {
            return ("latitude", "Latitude must be between -90 and 90 degrees; got \(location.latitude)")
        }
        guard location.longitude.isFinite, (-180...180).contains(location.longitude) else {
            return ("longitude", "Longitude must be between -180 and 180 degrees; got \(location.longitude)")
        }
        for (field, measure) in measures {
            let value = measure(location)
            if !(value.isFinite && abs(value) <= largestMeasure) {
                return (field, "Route location \(field) must be a finite number within ±1e9; got \(value)")
            }
        }
        if location.course >= 360 {
            return ("course", "Course must be below 360 degrees (negative when not known); got \(location.course)")
        }
        if let previous, location.time <= previous {
            return ("time", "Route locations must be in time order: location at \(location.time) µs "
                + "is not after the previous one at \(previous) µs")
        }
        return nil
    }

    /// A finished route's locations must lie inside the workout it is attached to.
    public static func checkRoute(first: Microseconds, last: Microseconds, workoutStart: Microseconds,
                                  workoutEnd: Microseconds) throws(HealthError) {
        if first < workoutStart || last > workoutEnd {
            throw HealthError.invalid("Route locations (\(first)…\(last) µs) must lie inside the workout "
                + "(\(workoutStart)…\(workoutEnd) µs)", field: "workout_uuid")
        }
    }

    /// Checks beats added to a series already holding `count` beats, the last at `previousOffset`.
    public static func checkBeats(_ beats: [Heartbeat], count: Int, after previousOffset: Microseconds?) throws(HealthError) {
        if count + beats.count > maximumHeartbeats {
            throw HealthError(.dataSizeExceeded, "A heartbeat series holds at most \(maximumHeartbeats) beats; "
                + "adding \(beats.count) to \(count) exceeds it", field: "beats")
        }
        var previous = previousOffset
        for (i, beat) in beats.enumerated() {
            let path = FieldPath.root.child("beats[\(i)]")
            if !(0...maximumHeartbeatOffset).contains(beat.offset) {
                throw path.invalid("offset", "A heartbeat's time since the series start must be between 0 and a day "
                    + "(\(maximumHeartbeatOffset) µs); got \(beat.offset) µs").at(index: i)
            }
            if let previous, beat.offset <= previous {
                throw path.invalid("offset", "Heartbeats must be in time order: \(beat.offset) µs is not after "
                    + "the previous beat at \(previous) µs").at(index: i)
            }
            previous = beat.offset
        }
    }

    /// The error for a second finish (or an insert after finishing) of one builder.
    public static func alreadyFinished(_ what: String) -> HealthError {
        HealthError.invalid("This \(what) builder has already been finished; start a new builder", field: "builder_id")
    }
}

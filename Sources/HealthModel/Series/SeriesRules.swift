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
            let path = FieldPath.root.child("locations[\(i)]")
            do throws(HealthError) {
                try checkLocation(location, path: path)
                if let previous, location.time <= previous {
                    throw path.invalid("time", "Route locations must be in time order: location at \(location.time) µs "
                        + "is not after the previous one at \(previous) µs")
                }
            } catch {
                throw error.at(index: i)
            }
            previous = location.time
        }
    }

    private static func checkLocation(_ location: RouteLocation, path: FieldPath) throws(HealthError) {
        guard location.latitude.isFinite, (-90...90).contains(location.latitude) else {
            throw path.invalid("latitude", "Latitude must be between -90 and 90 degrees; got \(location.latitude)")
        }
        guard location.longitude.isFinite, (-180...180).contains(location.longitude) else {
            throw path.invalid("longitude", "Longitude must be between -180 and 180 degrees; got \(location.longitude)")
        }
        let measures: [(String, Double)] = [
            ("altitude", location.altitude), ("horizontal_accuracy", location.horizontalAccuracy),
            ("vertical_accuracy", location.verticalAccuracy), ("course", location.course),
            ("course_accuracy", location.courseAccuracy), ("speed", location.speed),
            ("speed_accuracy", location.speedAccuracy),
        ]
        for (field, value) in measures where !(value.isFinite && abs(value) <= largestMeasure) {
            throw path.invalid(field, "Route location \(field) must be a finite number within ±1e9; got \(value)")
        }
        if location.course >= 360 {
            throw path.invalid("course", "Course must be below 360 degrees (negative when not known); got \(location.course)")
        }
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

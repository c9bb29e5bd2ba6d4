/// One location of a workout route (CLLocation as HKWorkoutRoute holds it). CoreLocation's conventions
/// carry over: a negative horizontal accuracy marks an invalid coordinate, a negative vertical accuracy an
/// invalid altitude, and a negative course, speed or accuracy of either means "not known".
public struct RouteLocation: Sendable, Hashable {
    public let time: Microseconds
    /// Degrees, −90…90.
    public let latitude: Double
    /// Degrees, −180…180.
    public let longitude: Double
    /// Metres above sea level.
    public let altitude: Double
    /// Metres.
    public let horizontalAccuracy: Double
    /// Metres.
    public let verticalAccuracy: Double
    /// Degrees clockwise from true north, 0…<360, or negative when not known.
    public let course: Double
    /// Degrees.
    public let courseAccuracy: Double
    /// Metres per second.
    public let speed: Double
    /// Metres per second.
    public let speedAccuracy: Double

    public init(time: Microseconds, latitude: Double, longitude: Double, altitude: Double = 0,
                horizontalAccuracy: Double = 0, verticalAccuracy: Double = -1, course: Double = -1,
                courseAccuracy: Double = -1, speed: Double = -1, speedAccuracy: Double = -1) {
        self.time = time
        self.latitude = latitude
        self.longitude = longitude
        self.altitude = altitude
        self.horizontalAccuracy = horizontalAccuracy
        self.verticalAccuracy = verticalAccuracy
        self.course = course
        self.courseAccuracy = courseAccuracy
        self.speed = speed
        self.speedAccuracy = speedAccuracy
    }
}

/// One beat of a heartbeat series (HKHeartbeatSeriesQuery's per-beat values).
public struct Heartbeat: Sendable, Hashable {
    /// Microseconds since the series sample's start.
    public let offset: Microseconds
    /// True when beats were missed just before this one, so the interval to the previous beat is no R-R interval.
    public let precededByGap: Bool

    public init(offset: Microseconds, precededByGap: Bool = false) {
        self.offset = offset
        self.precededByGap = precededByGap
    }
}

import HealthModel

/// One stage of a night's hypnogram (HKCategoryValueSleepAnalysis raw value).
public struct SleepStage: Sendable, Hashable {
    public let value: Int64
    public let start: Microseconds
    public let end: Microseconds
}

/// A night in bed: the in-bed span and the stages inside it, which never overlap each other.
public struct Night: Sendable, Hashable {
    public let inBedStart: Microseconds
    public let inBedEnd: Microseconds
    /// Asleep stages with awake stages only between two asleep ones (as Apple Watch writes them).
    public let stages: [SleepStage]

    /// First and last moment asleep.
    public var sleepSpan: Range<Microseconds> {
        (stages.first?.start ?? inBedStart)..<(stages.last?.end ?? inBedStart)
    }
}

/// A spell of walking at a steady cadence.
public struct Walk: Sendable, Hashable {
    public let start: Microseconds
    public let end: Microseconds
    /// Steps per minute.
    public let cadence: Double
    /// Flights of stairs climbed during the walk.
    public let flights: Int
}

/// A planned workout with an optional pause.
public struct PlannedWorkout: Sendable, Hashable {
    /// HKWorkoutActivityType raw value.
    public let activityType: Int32
    public let start: Microseconds
    public let end: Microseconds
    /// 0…1 share of heart-rate reserve.
    public let intensity: Double
    /// Steps per minute for on-foot workouts, nil otherwise.
    public let cadence: Double?
    /// Metres per second for cycling, nil otherwise.
    public let speed: Double?
    public let pause: Range<Microseconds>?

    /// True while the workout runs and is not paused.
    public func isActive(at t: Microseconds) -> Bool {
        t >= start && t < end && !(pause?.contains(t) ?? false)
    }
}

/// Everything one person does on one local day: the night that starts that evening, the walks and
/// the workout, and the day's body values.
public struct DayPlan: Sendable, Hashable {
    public let day: Int
    public let dayStart: Microseconds
    public let dayEnd: Microseconds
    /// When the person got up (end of the previous night).
    public let wake: Microseconds
    public let night: Night
    public let walks: [Walk]
    public let workout: PlannedWorkout?
    public let weightKg: Double
    public let bodyFat: Double
    /// Degrees Celsius; a rare fever raises it.
    public let bodyTemperature: Double
}

/// A physiological or activity signal a device records; each maps to the HealthKit types it writes.
public enum SignalKind: String, Codable, Sendable, CaseIterable {
    case heartRate, restingHeartRate, heartRateVariability, oxygenSaturation
    case activeEnergy, steps, distance, flightsClimbed, sleep, workouts
    case bodyMass, bodyFatPercentage, bloodPressure, bodyTemperature
    /// The watch's ECG app: recordings are saved by the Health app with the owner's credential, so the
    /// device's app shares no type for them.
    case electrocardiogram
    case stateOfMind, assessments

    /// The sample types this signal saves (correlation contents, not the correlation type, are what
    /// authorization covers — docs/semantics.md §3.6).
    public var writtenTypes: [String] {
        switch self {
        case .heartRate: [HKType.heartRate]
        case .restingHeartRate: [HKType.restingHeartRate]
        case .heartRateVariability: [HKType.hrvSDNN, HKType.heartbeatSeries]
        case .oxygenSaturation: [HKType.oxygenSaturation]
        case .activeEnergy: [HKType.activeEnergy]
        case .steps: [HKType.stepCount]
        case .distance: [HKType.distanceWalkingRunning]
        case .flightsClimbed: [HKType.flightsClimbed]
        case .sleep: [HKType.sleepAnalysis]
        case .workouts: [HKType.workout, HKType.distanceCycling, HKType.workoutRoute, HKType.heartRate, HKType.stepCount]
        case .bodyMass: [HKType.bodyMass]
        case .bodyFatPercentage: [HKType.bodyFatPercentage]
        case .bloodPressure: [HKType.systolic, HKType.diastolic]
        case .bodyTemperature: [HKType.bodyTemperature]
        case .electrocardiogram: []
        case .stateOfMind: [HKType.stateOfMind]
        case .assessments: [HKType.phq9, HKType.gad7]
        }
    }
}

/// How one device records one signal; every field but `kind` has a sensible default.
public struct SignalSpec: Codable, Sendable, Hashable {
    public var kind: SignalKind
    /// Seconds between readings (periodic signals) or the longest sample interval (steps, distance, energy).
    public var everySeconds: Double?
    /// Seconds between heart-rate readings during a workout.
    public var workoutEverySeconds: Double?
    /// HealthKit unit string the device reports in, e.g. "count/min", "lb", "degF".
    public var unit: String?
    /// Sleep: write core/deep/REM stages (true) or only asleepUnspecified (false).
    public var stages: Bool?
    /// Chance of a reading at each opportunity (e.g. a weigh-in per morning).
    public var probability: Double?
    /// Raw sensor-location metadata value (HKHeartRateSensorLocation / HKBodyTemperatureSensorLocation).
    public var sensorLocation: Int?

    public init(kind: SignalKind, everySeconds: Double? = nil, workoutEverySeconds: Double? = nil,
                unit: String? = nil, stages: Bool? = nil, probability: Double? = nil, sensorLocation: Int? = nil) {
        self.kind = kind
        self.everySeconds = everySeconds
        self.workoutEverySeconds = workoutEverySeconds
        self.unit = unit
        self.stages = stages
        self.probability = probability
        self.sensorLocation = sensorLocation
    }
}

/// The HealthKit type identifiers the simulator writes.
public enum HKType {
    public static let heartRate = "HKQuantityTypeIdentifierHeartRate"
    public static let restingHeartRate = "HKQuantityTypeIdentifierRestingHeartRate"
    public static let hrvSDNN = "HKQuantityTypeIdentifierHeartRateVariabilitySDNN"
    public static let oxygenSaturation = "HKQuantityTypeIdentifierOxygenSaturation"
    public static let activeEnergy = "HKQuantityTypeIdentifierActiveEnergyBurned"
    public static let stepCount = "HKQuantityTypeIdentifierStepCount"
    public static let distanceWalkingRunning = "HKQuantityTypeIdentifierDistanceWalkingRunning"
    public static let distanceCycling = "HKQuantityTypeIdentifierDistanceCycling"
    public static let flightsClimbed = "HKQuantityTypeIdentifierFlightsClimbed"
    public static let sleepAnalysis = "HKCategoryTypeIdentifierSleepAnalysis"
    public static let workout = "HKWorkoutTypeIdentifier"
    public static let workoutRoute = "HKWorkoutRouteTypeIdentifier"
    public static let heartbeatSeries = "HKDataTypeIdentifierHeartbeatSeries"
    public static let bodyMass = "HKQuantityTypeIdentifierBodyMass"
    public static let bodyFatPercentage = "HKQuantityTypeIdentifierBodyFatPercentage"
    public static let bloodPressure = "HKCorrelationTypeIdentifierBloodPressure"
    public static let systolic = "HKQuantityTypeIdentifierBloodPressureSystolic"
    public static let diastolic = "HKQuantityTypeIdentifierBloodPressureDiastolic"
    public static let bodyTemperature = "HKQuantityTypeIdentifierBodyTemperature"
    public static let electrocardiogram = "HKDataTypeIdentifierElectrocardiogram"
    public static let stateOfMind = "HKDataTypeIdentifierStateOfMind"
    public static let gad7 = "HKScoredAssessmentTypeIdentifierGAD7"
    public static let phq9 = "HKScoredAssessmentTypeIdentifierPHQ9"
}

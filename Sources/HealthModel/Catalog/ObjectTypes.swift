/// The correlation, workout and characteristic types (docs/semantics.md §4.4, §4.5, §1.7, §1.9).
enum ObjectTypes {
    static let correlations: [HealthType] = [
        HealthType(identifier: "HKCorrelationTypeIdentifierBloodPressure", kind: .correlation,
                   correlationContents: ["HKQuantityTypeIdentifierBloodPressureSystolic",
                                         "HKQuantityTypeIdentifierBloodPressureDiastolic"]),
        // Food holds nutrition samples: every dietary quantity type.
        HealthType(identifier: "HKCorrelationTypeIdentifierFood", kind: .correlation,
                   correlationContents: Set(QuantityTypes.all.map(\.identifier)
                       .filter { $0.hasPrefix("HKQuantityTypeIdentifierDietary") })),
    ]

    static let workout = HealthType(identifier: "HKWorkoutTypeIdentifier", kind: .workout)

    /// HKSeriesType.workoutRoute(): GPS locations attached to a workout.
    static let workoutRoute = HealthType(identifier: "HKWorkoutRouteTypeIdentifier", kind: .series)
    /// HKSeriesType.heartbeat(): beat-to-beat times behind a heart rate variability reading.
    static let heartbeatSeries = HealthType(identifier: "HKDataTypeIdentifierHeartbeatSeries", kind: .series)

    /// HKObjectType.electrocardiogramType(): recorded by the ECG app and saved through the Health app only.
    static let electrocardiogram = HealthType(identifier: "HKDataTypeIdentifierElectrocardiogram", kind: .electrocardiogram,
                                              appleOnlyWrite: true)
    /// HKObjectType.audiogramSampleType().
    static let audiogram = HealthType(identifier: "HKDataTypeIdentifierAudiogram", kind: .audiogram)
    /// HKObjectType.stateOfMindType(): logged at one moment (start equals end).
    static let stateOfMind = HealthType(identifier: "HKDataTypeIdentifierStateOfMind", kind: .stateOfMind, maximumDuration: 0)
    /// HKScoredAssessmentType GAD-7 and PHQ-9: answered at one moment (start equals end).
    static let scoredAssessments = [ScoredAssessment.gad7Type, ScoredAssessment.phq9Type].map {
        HealthType(identifier: $0, kind: .scoredAssessment, maximumDuration: 0)
    }

    static let characteristics: [HealthType] = [
        characteristic("BiologicalSex", [0: "notSet", 1: "female", 2: "male", 3: "other"]),
        characteristic("BloodType", [0: "notSet", 1: "aPositive", 2: "aNegative", 3: "bPositive", 4: "bNegative",
                                     5: "abPositive", 6: "abNegative", 7: "oPositive", 8: "oNegative"]),
        characteristic("DateOfBirth", [:]),
        characteristic("FitzpatrickSkinType", [0: "notSet", 1: "I", 2: "II", 3: "III", 4: "IV", 5: "V", 6: "VI"]),
        characteristic("WheelchairUse", [0: "notSet", 1: "no", 2: "yes"]),
        characteristic("ActivityMoveMode", [1: "activeEnergy", 2: "appleMoveTime"]),
    ]

    private static func characteristic(_ name: String, _ values: [Int64: String]) -> HealthType {
        HealthType(identifier: "HKCharacteristicTypeIdentifier" + name, kind: .characteristic, valueNames: values)
    }
}

/// Every quantity type of docs/semantics.md §4.2 with its canonical unit (already in `HealthUnit` canonical
/// form) and aggregation style. All quantity types share the 4-day maximum duration (§8.2).
enum QuantityTypes {
    /// Types only Apple may write (docs/semantics.md §3.2): sharing them is refused. Evidence: the runtime raises for
    /// appleExerciseTime, walkingHeartRateAverage and appleSleepingWristTemperature [2nd]; the other
    /// Apple Watch computations (stand/move time, walking steadiness, sleeping breathing disturbances,
    /// AFib burden) are the same kind of derived value [inf]. HeartRateRecoveryOneMinute stays
    /// writable: nothing reports it refused, and apps record recovery tests.
    static let appleOnly: Set<String> = [
        "AppleExerciseTime", "AppleStandTime", "AppleMoveTime", "WalkingHeartRateAverage",
        "AppleSleepingWristTemperature", "AppleWalkingSteadiness", "AppleSleepingBreathingDisturbances",
        "AtrialFibrillationBurden",
    ]

    /// The dietary family (all grams) besides energy and water.
    static let dietaryGrams = [
        "Protein", "Carbohydrates", "FatTotal", "FatSaturated", "FatMonounsaturated", "FatPolyunsaturated",
        "Sugar", "Fiber", "Cholesterol", "Sodium", "Potassium", "Calcium", "Iron", "Caffeine",
        "VitaminA", "VitaminB6", "VitaminB12", "VitaminC", "VitaminD", "VitaminE", "VitaminK",
        "Thiamin", "Riboflavin", "Niacin", "Folate", "Biotin", "PantothenicAcid", "Phosphorus",
        "Iodine", "Magnesium", "Zinc", "Selenium", "Copper", "Manganese", "Chromium", "Molybdenum", "Chloride",
    ]

    private static let rows: [(String, String, AggregationStyle)] = [
        ("StepCount", "count", .cumulative),
        ("DistanceWalkingRunning", "m", .cumulative),
        ("DistanceCycling", "m", .cumulative),
        ("DistanceWheelchair", "m", .cumulative),
        ("DistanceSwimming", "m", .cumulative),
        ("DistanceDownhillSnowSports", "m", .cumulative),
        ("DistanceCrossCountrySkiing", "m", .cumulative),
        ("DistancePaddleSports", "m", .cumulative),
        ("DistanceRowing", "m", .cumulative),
        ("DistanceSkatingSports", "m", .cumulative),
        ("PushCount", "count", .cumulative),
        ("SwimmingStrokeCount", "count", .cumulative),
        ("FlightsClimbed", "count", .cumulative),
        ("NikeFuel", "count", .cumulative),
        ("ActiveEnergyBurned", "kcal", .cumulative),
        ("BasalEnergyBurned", "kcal", .cumulative),
        ("AppleExerciseTime", "min", .cumulative),
        ("AppleStandTime", "min", .cumulative),
        ("AppleMoveTime", "min", .cumulative),
        ("TimeInDaylight", "min", .cumulative),
        ("HeartRate", "count/s", .discreteTemporallyWeighted),
        ("RestingHeartRate", "count/min", .discreteArithmetic),
        ("WalkingHeartRateAverage", "count/min", .discreteArithmetic),
        ("HeartRateVariabilitySDNN", "ms", .discreteArithmetic),
        ("HeartRateRecoveryOneMinute", "count/min", .discreteArithmetic),
        ("AtrialFibrillationBurden", "%", .discreteTemporallyWeighted),
        ("PeripheralPerfusionIndex", "%", .discreteArithmetic),
        ("OxygenSaturation", "%", .discreteArithmetic),
        ("RespiratoryRate", "count/s", .discreteArithmetic),
        ("BodyTemperature", "degC", .discreteArithmetic),
        ("BasalBodyTemperature", "degC", .discreteArithmetic),
        ("AppleSleepingWristTemperature", "degC", .discreteArithmetic),
        ("BloodPressureSystolic", "mmHg", .discreteArithmetic),
        ("BloodPressureDiastolic", "mmHg", .discreteArithmetic),
        ("BloodGlucose", "mg/dL", .discreteArithmetic),
        ("BloodAlcoholContent", "%", .discreteArithmetic),
        ("InsulinDelivery", "IU", .cumulative),
        ("VO2Max", "mL/(kg.min)", .discreteArithmetic),
        ("BodyMass", "kg", .discreteArithmetic),
        ("LeanBodyMass", "kg", .discreteArithmetic),
        ("Height", "m", .discreteArithmetic),
        ("WaistCircumference", "m", .discreteArithmetic),
        ("BodyMassIndex", "count", .discreteArithmetic),
        ("BodyFatPercentage", "%", .discreteArithmetic),
        ("ElectrodermalActivity", "S", .discreteArithmetic),
        ("WalkingSpeed", "m/s", .discreteArithmetic),
        ("WalkingStepLength", "m", .discreteArithmetic),
        ("WalkingAsymmetryPercentage", "%", .discreteArithmetic),
        ("WalkingDoubleSupportPercentage", "%", .discreteArithmetic),
        ("StairAscentSpeed", "m/s", .discreteArithmetic),
        ("StairDescentSpeed", "m/s", .discreteArithmetic),
        ("SixMinuteWalkTestDistance", "m", .discreteArithmetic),
        ("AppleWalkingSteadiness", "%", .discreteArithmetic),
        ("RunningSpeed", "m/s", .discreteArithmetic),
        ("RunningPower", "W", .discreteArithmetic),
        ("RunningStrideLength", "m", .discreteArithmetic),
        ("RunningVerticalOscillation", "cm", .discreteArithmetic),
        ("RunningGroundContactTime", "ms", .discreteArithmetic),
        ("CyclingSpeed", "m/s", .discreteArithmetic),
        ("CyclingPower", "W", .discreteArithmetic),
        ("CyclingFunctionalThresholdPower", "W", .discreteArithmetic),
        ("CyclingCadence", "count/min", .discreteArithmetic),
        ("CrossCountrySkiingSpeed", "m/s", .discreteArithmetic),
        ("PaddleSportsSpeed", "m/s", .discreteArithmetic),
        ("RowingSpeed", "m/s", .discreteArithmetic),
        ("PhysicalEffort", "kcal/(hr.kg)", .discreteArithmetic),
        ("WorkoutEffortScore", "appleEffortScore", .discreteArithmetic),
        ("EstimatedWorkoutEffortScore", "appleEffortScore", .discreteArithmetic),
        ("EnvironmentalAudioExposure", "dBASPL", .discreteEquivalentContinuousLevel),
        ("HeadphoneAudioExposure", "dBASPL", .discreteEquivalentContinuousLevel),
        ("EnvironmentalSoundReduction", "dBASPL", .discreteEquivalentContinuousLevel),
        ("UVExposure", "count", .discreteArithmetic),
        ("WaterTemperature", "degC", .discreteArithmetic),
        ("UnderwaterDepth", "m", .discreteArithmetic),
        ("ForcedVitalCapacity", "L", .discreteArithmetic),
        ("ForcedExpiratoryVolume1", "L", .discreteArithmetic),
        ("PeakExpiratoryFlowRate", "L/min", .discreteArithmetic),
        ("InhalerUsage", "count", .cumulative),
        ("AppleSleepingBreathingDisturbances", "count", .discreteArithmetic),
        ("NumberOfTimesFallen", "count", .cumulative),
        ("NumberOfAlcoholicBeverages", "count", .cumulative),
        ("DietaryEnergyConsumed", "kcal", .cumulative),
        ("DietaryWater", "mL", .cumulative),
    ] + dietaryGrams.map { ("Dietary" + $0, "g", .cumulative) }

    /// Metadata keys some quantity types require (docs/semantics.md §7.4).
    private static let requiredKeys: [String: [String]] = ["InsulinDelivery": ["HKInsulinDeliveryReason"]]

    static let all: [HealthType] = rows.map { name, unit, style in
        HealthType(identifier: "HKQuantityTypeIdentifier" + name, kind: .quantity, aggregation: style,
                   canonicalUnit: unit, valueRange: QuantityValueRanges.range(name: name, canonicalUnit: unit),
                   maximumDuration: DurationLimits.standard,
                   appleOnlyWrite: appleOnly.contains(name), requiredMetadataKeys: requiredKeys[name] ?? [])
    }
}

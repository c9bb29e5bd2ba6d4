/// How the value of a predefined metadata key is checked (docs/semantics.md §7.2).
public enum MetadataValueRule: Sendable {
    case string
    /// String of at least one character (HKMetadataKeySyncIdentifier).
    case nonEmptyString
    /// String holding Base64 text (HKDigitalSignature).
    case base64
    /// String naming a time zone that `TimeZone(identifier:)` knows (HKTimeZone).
    case timeZoneName
    case bool
    /// Any finite number.
    case number
    /// An integral number in the range (enum-valued keys and the sync version).
    case integer(ClosedRange<Int64>)
    /// An integral number that is an HKWorkoutActivityType raw value.
    case workoutActivityType
    /// An HKQuantity whose unit is compatible with this unit string.
    case quantity(compatibleWith: String)
}

/// The predefined keys HealthKit type-checks, by stored key string (docs/semantics.md §7.2).
public enum PredefinedMetadataKeys {
    public static let rules: [String: MetadataValueRule] = [
        MetadataKey.syncIdentifier: .nonEmptyString,
        MetadataKey.syncVersion: .integer(0...Int64.max),
        MetadataKey.externalUUID: .string,
        MetadataKey.wasUserEntered: .bool,
        MetadataKey.timeZone: .timeZoneName,
        "HKDeviceName": .string,
        "HKDeviceManufacturerName": .string,
        "HKDeviceSerialNumber": .string,
        "HKUDIDeviceIdentifier": .string,
        "HKUDIProductionIdentifier": .string,
        "HKDigitalSignature": .base64,
        "HKMetadataKeyHeartRateMotionContext": .integer(0...2),
        "HKHeartRateSensorLocation": .integer(0...6),
        "HKBodyTemperatureSensorLocation": .integer(0...11),
        "HKBloodGlucoseMealTime": .integer(1...2),
        MetadataKey.insulinDeliveryReason: .integer(1...2),
        MetadataKey.menstrualCycleStart: .bool,
        "HKSexualActivityProtectionUsed": .bool,
        MetadataKey.foodType: .string,
        "HKWasTakenInLab": .bool,
        "HKReferenceRangeLowerLimit": .number,
        "HKReferenceRangeUpperLimit": .number,
        "HKVO2MaxTestType": .integer(1...4),
        "HKVO2MaxValue": .quantity(compatibleWith: "ml/(kg*min)"),
        "HKLowCardioFitnessEventThreshold": .quantity(compatibleWith: "ml/(kg*min)"),
        "HKMetadataKeyUserMotionContext": .integer(0...2),
        "HKMetadataKeyDevicePlacementSide": .integer(0...3),
        "HKMetadataKeyAudioExposureLevel": .quantity(compatibleWith: "dBASPL"),
        "HKMetadataKeyAudioExposureDuration": .quantity(compatibleWith: "s"),
        "HKMetadataKeyHeadphoneGain": .quantity(compatibleWith: "dBASPL"),
        "HKMetadataKeyAppleECGAlgorithmVersion": .integer(1...2),
        "HKIndoorWorkout": .bool,
        "HKAverageSpeed": .quantity(compatibleWith: "m/s"),
        "HKMaximumSpeed": .quantity(compatibleWith: "m/s"),
        "HKElevationAscended": .quantity(compatibleWith: "m"),
        "HKElevationDescended": .quantity(compatibleWith: "m"),
        "HKAverageMETs": .quantity(compatibleWith: "kcal/(kg*hr)"),
        "HKLapLength": .quantity(compatibleWith: "m"),
        "HKSwimmingLocationType": .integer(0...2),
        "HKSwimmingStrokeStyle": .integer(0...6),
        "HKWeatherCondition": .integer(0...27),
        "HKWeatherTemperature": .quantity(compatibleWith: "degC"),
        "HKWeatherHumidity": .quantity(compatibleWith: "%"),
        "HKAlpineSlopeGrade": .quantity(compatibleWith: "%"),
        "HKFitnessMachineDuration": .quantity(compatibleWith: "min"),
        "HKIndoorBikeDistance": .quantity(compatibleWith: "m"),
        "HKCrossTrainerDistance": .quantity(compatibleWith: "m"),
        "HKCoachedWorkout": .bool,
        "HKGroupFitness": .bool,
        "HKWorkoutBrandName": .string,
        "HKMetadataKeyHeartRateRecoveryTestType": .integer(1...3),
        "HKMetadataKeyHeartRateRecoveryActivityType": .workoutActivityType,
        "HKMetadataKeyHeartRateRecoveryActivityDuration": .quantity(compatibleWith: "s"),
        "HKMetadataKeyHeartRateRecoveryMaxObservedRecoveryHeartRate": .quantity(compatibleWith: "count/min"),
        "HKMetadataKeyWaterSalinity": .integer(1...2),
        "HKCyclingCyclingFunctionalThresholdPowerTestType": .integer(1...4),
        "HKPhysicalEffortEstimationType": .integer(1...2),
    ]
}

extension PredefinedMetadataKeys {
    /// HealthKit's other public keys: any value is stored, but they are HealthKit keys, so the reserved
    /// HK prefix does not refuse them.
    public static let unchecked: Set<String> = [
        "HKActivityType", "HKAlgorithmVersion", "HKDateOfEarliestDataUsedForEstimate", "HKHeartRateEventThreshold",
        "HKSWOLFScore", "HKMetadataKeyAppleDeviceCalibrated", "HKMetadataKeyAppleFitnessPlusSession",
        "HKMetadataKeyBarometricPressure", "HKMetadataKeyGlassesPrescriptionDescription",
        "HKMetadataKeyMaximumLightIntensity", "HKMetadataKeyQuantityClampedToLowerBound",
        "HKMetadataKeyQuantityClampedToUpperBound", "HKMetadataKeySessionEstimate",
    ]
}

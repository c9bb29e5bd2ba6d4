import Foundation
import HealthModel
@testable import HealthWire

/// Non-trivial values exercising every field the wire carries.
enum Fixtures {
    static func uuid(_ n: UInt8) -> UUID {
        UUID(uuid: (n, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, n &+ 100))
    }

    /// One metadata value of every kind, including edge values.
    static let richMetadata: Metadata = [
        "HKMetadataKeySyncIdentifier": .string("sync-Ü-✓"),
        "HKMetadataKeySyncVersion": .int(Int64.max),
        "custom.double": .double(-0.125),
        "custom.bool": .bool(true),
        "custom.false": .bool(false),
        "custom.date": .date(1_700_000_000_123_456),
        "custom.quantity": .quantity(Quantity(72.5, "count/min")),
        "custom.emptyString": .string(""),
        "custom.negative": .int(-42),
    ]

    static let watch = Device(name: "Apple Watch", manufacturer: "Apple Inc.", model: "Watch", hardwareVersion: "Watch6,1",
                              firmwareVersion: "1.0", softwareVersion: "10.1", localIdentifier: "peripheral-1",
                              udiDeviceIdentifier: "00812345678901")
    static let partialDevice = Device(manufacturer: "Acme")
    static let revision = SourceRevision(source: Source(name: "Band", bundleID: "com.example.band"), version: "2.3",
                                         productType: "Band1,1", osMajor: 17, osMinor: 4, osPatch: 1)

    static let heartRate = Sample(uuid: uuid(1), type: "HKQuantityTypeIdentifierHeartRate", start: 1_700_000_000_000_000,
                                  end: 1_700_000_060_000_000, metadata: richMetadata, device: watch, sourceRevision: revision,
                                  creationTime: 1_700_000_100_000_000, body: .quantity(Quantity(61, "count/min"), count: 3))
    static let sleep = Sample(uuid: uuid(2), type: "HKCategoryTypeIdentifierSleepAnalysis", start: -5, end: 0,
                              device: partialDevice, body: .category(4))
    static let bloodPressure = Sample(
        uuid: uuid(3), type: "HKCorrelationTypeIdentifierBloodPressure", start: 10, end: 10,
        metadata: ["HKWasUserEntered": .bool(true)],
        body: .correlation([
            Sample(uuid: uuid(4), type: "HKQuantityTypeIdentifierBloodPressureSystolic", start: 10, end: 10,
                   body: .quantity(Quantity(120, "mmHg"), count: 1)),
            Sample(uuid: uuid(5), type: "HKQuantityTypeIdentifierBloodPressureDiastolic", start: 10, end: 10,
                   metadata: ["k": .double(1.5)], body: .quantity(Quantity(80, "mmHg"), count: 1)),
        ]))
    static let run = Sample(
        uuid: uuid(6), type: "HKWorkoutTypeIdentifier", start: 1_000_000, end: 4_600_000_000, metadata: ["HKTimeZone": .string("Europe/Berlin")],
        device: watch,
        body: .workout(Workout(
            activityType: 37, duration: 3_000_000_000,
            events: [WorkoutEvent(type: .pause, start: 2_000_000, end: 2_000_000),
                     WorkoutEvent(type: .resume, start: 3_000_000, end: 3_000_000),
                     WorkoutEvent(type: .segment, start: 1_000_000, end: 9_000_000, metadata: ["lap": .int(1)])],
            activities: [WorkoutActivity(uuid: uuid(7), activityType: 13, start: 1_000_000, end: 2_000_000,
                                         metadata: ["a": .bool(false)],
                                         events: [WorkoutEvent(type: .marker, start: 1_500_000, end: 1_500_000)],
                                         statistics: [WorkoutStatistic(quantityType: "HKQuantityTypeIdentifierDistanceWalkingRunning",
                                                                       sum: Quantity(1.2, "km"))])],
            statistics: [WorkoutStatistic(quantityType: "HKQuantityTypeIdentifierActiveEnergyBurned", sum: Quantity(410, "kcal")),
                         WorkoutStatistic(quantityType: "HKQuantityTypeIdentifierHeartRate", average: Quantity(140, "count/min"),
                                          minimum: Quantity(90, "count/min"), maximum: Quantity(181, "count/min"))],
            associatedSampleUUIDs: [uuid(1), uuid(2)])))

    /// An electrocardiogram as the owner saves it (voltages included), an audiogram, a state of mind and
    /// both scored assessments.
    static let kindSamples = [
        Sample(uuid: uuid(20), type: "HKDataTypeIdentifierElectrocardiogram", start: 1_000, end: 31_000_000,
               body: .electrocardiogram(Electrocardiogram(classification: 2, symptomsStatus: 2, averageHeartRate: Quantity(88, "count/min"),
                                                          samplingFrequency: Quantity(512, "Hz"),
                                                          voltages: [VoltageMeasurement(offset: 0, microvolts: -12.5),
                                                                     VoltageMeasurement(offset: 1_953, microvolts: 401.25)]))),
        Sample(uuid: uuid(21), type: "HKDataTypeIdentifierElectrocardiogram", start: 1_000, end: 31_000_000,
               body: .electrocardiogram(Electrocardiogram(samplingFrequency: nil, numberOfVoltageMeasurements: 15_360))),
        Sample(uuid: uuid(22), type: "HKDataTypeIdentifierAudiogram", start: 0, end: 600_000_000,
               body: .audiogram(Audiogram(points: [AudiogramSensitivityPoint(frequency: Quantity(1_000, "Hz"), tests: [
                   AudiogramSensitivityTest(sensitivity: Quantity(10, "dBHL"), side: 0),
                   AudiogramSensitivityTest(sensitivity: Quantity(25, "dBHL"), masked: true, side: 1,
                                            clampingLowerBound: Quantity(-10, "dBHL"), clampingUpperBound: Quantity(100, "dBHL")),
               ])]))),
        Sample(uuid: uuid(23), type: "HKDataTypeIdentifierStateOfMind", start: 5, end: 5,
               body: .stateOfMind(StateOfMind(kind: 1, valence: -0.25, labels: [4, 31], associations: [17, 18]))),
        Sample(uuid: uuid(24), type: "HKScoredAssessmentTypeIdentifierPHQ9", start: 5, end: 5,
               body: .scoredAssessment(ScoredAssessment(answers: [0, 1, 2, 3, 0, 1, 2, 3, 4]))),
    ]

    static let allSamples = [heartRate, sleep, bloodPressure, run] + kindSamples

    /// Every predicate leaf, once each.
    static let leaves: [QueryPredicate] = [
        .dateRange(DateRange(start: 100, end: 200, strictStart: true, strictEnd: false)),
        .dateRange(DateRange(start: nil, end: 0, strictStart: false, strictEnd: true)),
        .dateRange(DateRange(start: -7, end: nil)),
        .uuids([uuid(1), uuid(2), uuid(3)]),
        .sources(["com.example.band", "com.example.watch"]),
        .sourceRevisions([SourceRevisionPattern(bundleID: "com.example.band", version: "2.3", productType: "Band1,1", osVersion: [17, 4, 1]),
                          SourceRevisionPattern(bundleID: "com.example.watch")]),
        .devices([watch, partialDevice]),
        .deviceProperty(.udiDeviceIdentifier, ["a", "b"]),
        .metadataExists(key: "HKWasUserEntered"),
        .metadataCompare(key: "custom.quantity", .greaterThanOrEqual, .quantity(Quantity(1, "kg"))),
        .metadataCompare(key: "custom.date", .lessThan, .date(5)),
        .metadataIn(key: "custom", [.string("x"), .int(2), .double(2.5), .bool(false), .date(9), .quantity(Quantity(3, "m"))]),
        .quantity(.notEqual, Quantity(98.6, "degF")),
        .categoryValue(.equal, 0),
        .categoryValueIn([0, 2, 5]),
        .categoryValueIn([]),
        .workoutActivityType(37),
        .noCorrelation,
        .workout(uuid(6)),
        .workoutDuration(.greaterThan, 600_000_000),
    ]

    /// A compound tree nested `depth` levels deep, mixing every compound kind.
    static func deepPredicate(depth: Int) -> QueryPredicate {
        var predicate = QueryPredicate.allOf(Array(leaves.prefix(3)))
        for level in 0..<depth {
            switch level % 3 {
            case 0: predicate = .not(predicate)
            case 1: predicate = .anyOf([predicate, leaves[level % leaves.count]])
            default: predicate = .allOf([leaves[(level * 7) % leaves.count], predicate])
            }
        }
        return predicate
    }

    static let statistics = Statistics(
        type: "HKQuantityTypeIdentifierHeartRate", start: 0, end: 86_400_000_000, sum: nil, average: Quantity(70.5, "count/min"),
        minimum: Quantity(50, "count/min"), maximum: Quantity(150, "count/min"), mostRecent: Quantity(66, "count/min"),
        mostRecentInterval: 80_000_000_000...80_060_000_000, duration: 3600.5,
        bySource: [SourceStatistics(source: Source(name: "Band", bundleID: "com.example.band"), sum: Quantity(1, "count"),
                                    average: Quantity(2, "count/min"), minimum: Quantity(3, "count/min"), maximum: Quantity(4, "count/min"),
                                    mostRecent: Quantity(5, "count/min"), duration: 6),
                   SourceStatistics(source: Source(name: "Watch", bundleID: "com.example.watch"))])

    static let emptyStatistics = Statistics(type: "HKQuantityTypeIdentifierStepCount", start: 5, end: 6)

    static let allOptions: StatisticsOptions = [.separateBySource, .discreteAverage, .discreteMin, .discreteMax,
                                                .cumulativeSum, .mostRecent, .duration]
}

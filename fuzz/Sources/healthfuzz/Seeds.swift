import Foundation
import HealthModel
import HealthWire

/// Valid calls of every `ClientCall` kind, rich enough that mutations reach every field the wire
/// carries: samples of each kind, every predicate leaf, every statistics option and interval part.
enum Seeds {
    static func uuid(_ n: UInt8) -> UUID {
        UUID(uuid: (n, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, n &+ 100))
    }

    static let watch = Device(name: "Apple Watch", manufacturer: "Apple Inc.", model: "Watch", hardwareVersion: "Watch6,1",
                              firmwareVersion: "1.0", softwareVersion: "10.1", localIdentifier: "peripheral-1",
                              udiDeviceIdentifier: "00812345678901")
    static let revision = SourceRevision(source: Source(name: "Band", bundleID: "com.example.band"), version: "2.3",
                                         productType: "Band1,1", osMajor: 17, osMinor: 4, osPatch: 1)
    static let metadata: Metadata = [
        MetadataKey.syncIdentifier: .string("sync-1"), MetadataKey.syncVersion: .int(3),
        MetadataKey.wasUserEntered: .bool(true), MetadataKey.timeZone: .string("Europe/Berlin"),
        "custom.double": .double(-0.125), "custom.date": .date(1_700_000_000_123_456),
        "custom.quantity": .quantity(Quantity(72.5, "count/min")),
    ]

    static let heartRate = Sample(uuid: uuid(1), type: "HKQuantityTypeIdentifierHeartRate", start: 1_700_000_000_000_000,
                                  end: 1_700_000_060_000_000, metadata: metadata, device: watch,
                                  body: .quantity(Quantity(61, "count/min"), count: 3))
    static let steps = Sample(uuid: uuid(8), type: "HKQuantityTypeIdentifierStepCount", start: 1_700_000_000_000_000,
                              end: 1_700_003_600_000_000, body: .quantity(Quantity(1200, "count"), count: 1))
    static let sleep = Sample(uuid: uuid(2), type: "HKCategoryTypeIdentifierSleepAnalysis", start: 1_699_990_000_000_000,
                              end: 1_700_000_000_000_000, device: Device(manufacturer: "Acme"), body: .category(4))
    static let bloodPressure = Sample(
        uuid: uuid(3), type: "HKCorrelationTypeIdentifierBloodPressure", start: 1_700_000_000_000_000, end: 1_700_000_000_000_000,
        metadata: [MetadataKey.wasUserEntered: .bool(true)],
        body: .correlation([
            Sample(uuid: uuid(4), type: "HKQuantityTypeIdentifierBloodPressureSystolic", start: 1_700_000_000_000_000,
                   end: 1_700_000_000_000_000, body: .quantity(Quantity(120, "mmHg"), count: 1)),
            Sample(uuid: uuid(5), type: "HKQuantityTypeIdentifierBloodPressureDiastolic", start: 1_700_000_000_000_000,
                   end: 1_700_000_000_000_000, body: .quantity(Quantity(80, "mmHg"), count: 1)),
        ]))
    static let run = Sample(
        uuid: uuid(6), type: "HKWorkoutTypeIdentifier", start: 1_700_000_000_000_000, end: 1_700_003_600_000_000,
        metadata: [MetadataKey.timeZone: .string("Europe/Berlin")], device: watch,
        body: .workout(Workout(
            activityType: 37, duration: 3_000_000_000,
            events: [WorkoutEvent(type: .pause, start: 1_700_000_600_000_000, end: 1_700_000_600_000_000),
                     WorkoutEvent(type: .resume, start: 1_700_000_900_000_000, end: 1_700_000_900_000_000),
                     WorkoutEvent(type: .segment, start: 1_700_000_000_000_000, end: 1_700_001_000_000_000, metadata: ["lap": .int(1)])],
            activities: [WorkoutActivity(uuid: uuid(7), activityType: 13, start: 1_700_000_000_000_000, end: 1_700_001_000_000_000,
                                         events: [WorkoutEvent(type: .marker, start: 1_700_000_500_000_000, end: 1_700_000_500_000_000)],
                                         statistics: [WorkoutStatistic(quantityType: "HKQuantityTypeIdentifierDistanceWalkingRunning",
                                                                       sum: Quantity(1.2, "km"))])],
            statistics: [WorkoutStatistic(quantityType: "HKQuantityTypeIdentifierActiveEnergyBurned", sum: Quantity(410, "kcal")),
                         WorkoutStatistic(quantityType: "HKQuantityTypeIdentifierHeartRate", average: Quantity(140, "count/min"),
                                          minimum: Quantity(90, "count/min"), maximum: Quantity(181, "count/min"))],
            associatedSampleUUIDs: [uuid(1), uuid(2)])))

    static let t: Microseconds = 1_700_000_000_000_000
    /// An ECG (the owner's to save), with a few voltages of its own.
    static let ecg = Sample(
        uuid: uuid(11), type: "HKDataTypeIdentifierElectrocardiogram", start: t, end: t + 30_000_000, device: watch,
        body: .electrocardiogram(Electrocardiogram(classification: 1, symptomsStatus: 1, averageHeartRate: Quantity(66, "count/min"),
                                                   samplingFrequency: Quantity(512, "Hz"),
                                                   voltages: (0..<8).map { VoltageMeasurement(offset: Int64($0) * 1_953, microvolts: Double($0) * 12.5 - 40) })))
    /// The kinds apps save besides quantities, categories, correlations and workouts.
    static let kinds = [
        Sample(uuid: uuid(12), type: "HKDataTypeIdentifierStateOfMind", start: t, end: t,
               body: .stateOfMind(StateOfMind(kind: 2, valence: 0.6, labels: [17, 7], associations: [5]))),
        Sample(uuid: uuid(13), type: "HKDataTypeIdentifierAudiogram", start: t, end: t + 600_000_000, body: .audiogram(Audiogram(points: [
            AudiogramSensitivityPoint(frequency: Quantity(1_000, "Hz"), tests: [AudiogramSensitivityTest(sensitivity: Quantity(5, "dBHL"), side: 0),
                                                                               AudiogramSensitivityTest(sensitivity: Quantity(10, "dBHL"), masked: true, side: 1)]),
        ]))),
        Sample(uuid: uuid(14), type: ScoredAssessment.gad7Type, start: t, end: t, body: .scoredAssessment(ScoredAssessment(answers: [2, 2, 2, 1, 1, 1, 1]))),
        Sample(uuid: uuid(15), type: ScoredAssessment.phq9Type, start: t, end: t,
               body: .scoredAssessment(ScoredAssessment(answers: [0, 0, 1, 1, 0, 0, 0, 0, 0]))),
    ]

    /// An import's samples, each with the source revision and device it was recorded by.
    static let imported = [
        Sample(uuid: uuid(19), type: "HKQuantityTypeIdentifierHeartRate", start: t, end: t, device: watch, sourceRevision: revision,
               body: .quantity(Quantity(58, "count/min"), count: 1)),
        Sample(uuid: uuid(20), type: "HKCategoryTypeIdentifierSleepAnalysis", start: t - 3_600_000_000, end: t,
               sourceRevision: SourceRevision(source: Source(name: "Sleep", bundleID: "com.example.sleep"), version: "1"), body: .category(3)),
    ]

    /// Builders of each series kind: a route, heartbeats and a quantity series, each as its first insert.
    static let routeBuilder = uuid(16), beatBuilder = uuid(17), quantityBuilder = uuid(18)
    static let seriesInserts = [
        SeriesInsert(builderID: routeBuilder, type: "HKWorkoutRouteTypeIdentifier", start: t, device: watch, points: .locations([
            RouteLocation(time: t, latitude: 52.52, longitude: 13.405, altitude: 34, horizontalAccuracy: 5, verticalAccuracy: 3,
                          course: 90, courseAccuracy: 10, speed: 2.5, speedAccuracy: 0.5),
            RouteLocation(time: t + 1_000_000, latitude: 52.5201, longitude: 13.4051),
        ])),
        SeriesInsert(builderID: beatBuilder, type: "HKDataTypeIdentifierHeartbeatSeries", start: t,
                     points: .beats([Heartbeat(offset: 0), Heartbeat(offset: 810_000), Heartbeat(offset: 2_400_000, precededByGap: true)])),
        SeriesInsert(builderID: quantityBuilder, type: "HKQuantityTypeIdentifierHeartRate", start: t,
                     points: .quantities([QuantitySeriesPoint(Quantity(61, "count/min"), start: t),
                                          QuantitySeriesPoint(Quantity(64, "count/min"), start: t + 5_000_000, end: t + 6_000_000)]),
                     sourceRevision: revision),
    ]

    /// Each builder call: the inserts above, then finishing two builders, discarding one, and reading series back.
    static let seriesCalls: [ClientCall] = seriesInserts.map { .insertSeriesData($0) } + [
        .finishSeries(SeriesFinish(builderID: routeBuilder, workoutUUID: uuid(6), metadata: ["Trail": .string("Lake")], end: t + 2_000_000)),
        .finishSeries(SeriesFinish(builderID: quantityBuilder)),
        .discardSeries(builderID: beatBuilder),
        .querySeriesData(SeriesDataQuery(uuid: uuid(11), batchSize: 4)),
        .querySeriesData(SeriesDataQuery(samples: .matching(type: heartRate.type, predicate: quantityPredicate), batchSize: 100)),
    ]

    /// The samples predicates are evaluated against in-process.
    static let samples = [heartRate, steps, sleep, bloodPressure, run]

    /// Leaves valid for any sample type.
    static let commonLeaves: [QueryPredicate] = [
        .allOf([.dateRange(DateRange(start: 100, end: 1_800_000_000_000_000, strictStart: true)),
                .not(.dateRange(DateRange(start: nil, end: 0, strictEnd: true)))]),
        .uuids([uuid(1), uuid(2)]),
        .sources(["com.example.band"]),
        .sourceRevisions([SourceRevisionPattern(bundleID: "com.example.band", version: "2.3", productType: "Band1,1", osVersion: [17, 4, 1])]),
        .devices([watch, Device(manufacturer: "Acme")]),
        .deviceProperty(.udiDeviceIdentifier, ["00812345678901"]),
        .metadataExists(key: MetadataKey.wasUserEntered),
        .metadataCompare(key: "custom.quantity", .greaterThanOrEqual, .quantity(Quantity(1, "count/min"))),
        .metadataCompare(key: "custom.date", .lessThan, .date(1_800_000_000_000_000)),
        .metadataIn(key: "custom.double", [.string("x"), .int(2), .double(-0.125), .bool(false), .date(9)]),
        .noCorrelation,
        .workout(uuid(6)),
    ]
    static let quantityLeaves: [QueryPredicate] = [.quantity(.greaterThan, Quantity(50, "count/min"))]
    static let categoryLeaves: [QueryPredicate] = [.categoryValue(.equal, 4), .categoryValueIn([0, 4])]
    static let workoutLeaves: [QueryPredicate] = [.workoutActivityType(37), .workoutDuration(.greaterThan, 600_000_000)]

    /// The common leaves and `specific` ones under every compound kind; valid for types the
    /// specific leaves suit.
    static func predicate(_ specific: [QueryPredicate]) -> QueryPredicate {
        .anyOf(commonLeaves + [.not(.allOf(specific))] + specific)
    }

    /// Every leaf, valid for no type: evaluated against saved objects without validation.
    static let everyLeaf = predicate(quantityLeaves + categoryLeaves + workoutLeaves)

    /// Predicates valid for one quantity type, as statistics queries need.
    static let quantityPredicate: QueryPredicate = .allOf([
        .dateRange(DateRange(start: 0, end: 1_800_000_000_000_000)),
        .quantity(.lessThan, Quantity(200, "count/min")),
        .not(.sources(["com.example.other"])),
    ])

    static let allOptions: StatisticsOptions = [.separateBySource, .discreteAverage, .discreteMin, .discreteMax, .mostRecent, .duration]

    /// One or more valid calls of every kind.
    static func calls(token: String) -> [ClientCall] {
        let heart = "HKQuantityTypeIdentifierHeartRate", stepCount = "HKQuantityTypeIdentifierStepCount"
        let day: Microseconds = 86_400_000_000
        return [
            .hello(Hello(token: token, sourceRevision: revision, defaultDevice: watch)),
            .ping(Data([1, 2, 3])),
            .cancel(targetCallID: 7),
            .ackObserverEvent(targetCallID: 7, sequence: 1),
            .requestAuthorization(share: [heart, "HKWorkoutTypeIdentifier"], read: [stepCount, "HKCharacteristicTypeIdentifierDateOfBirth"]),
            .getAuthorizationStatus(types: [heart, "HKCategoryTypeIdentifierSleepAnalysis"]),
            .getRequestStatusForAuthorization(share: [heart], read: [stepCount]),
            .saveObjects([heartRate, steps, sleep]),
            .saveObjects([bloodPressure]),
            .saveObjects([run]),
            .saveObjects([ecg]),
            .saveObjects(kinds),
            .saveObjects(imported, keepSources: true),
            .deleteObjects(.uuids([uuid(1), uuid(3)])),
        ] + seriesCalls + [
            .deleteObjects(.matching(type: heart, predicate: quantityPredicate)),
            .querySamples(SampleQuery(types: ["HKWorkoutTypeIdentifier"], predicate: predicate(workoutLeaves),
                                      sort: [SampleSortDescriptor(.startDate, descending: true), SampleSortDescriptor(.workoutDuration)], limit: 10)),
            .queryAnchored(AnchoredQuery(types: [heart], predicate: quantityPredicate, anchor: Data([0, 0, 0, 1]), limit: 5)),
            .queryStatistics(StatisticsQuery(type: heart, predicate: quantityPredicate, options: allOptions, unit: "count/s")),
            .queryStatistics(StatisticsQuery(type: stepCount, options: [.cumulativeSum, .separateBySource, .duration])),
            .queryStatisticsCollection(StatisticsCollectionQuery(
                type: stepCount, options: [.cumulativeSum, .separateBySource], anchor: 1_699_920_000_000_000,
                interval: IntervalComponents(days: 1), timeZone: "Europe/Berlin", calendar: "gregorian",
                from: 1_699_920_000_000_000, to: 1_699_920_000_000_000 + 7 * day)),
            .queryStatisticsCollection(StatisticsCollectionQuery(
                type: heart, predicate: quantityPredicate, options: allOptions, unit: "count/min", anchor: 0,
                interval: IntervalComponents(seconds: 30, minutes: 1, hours: 1), from: 1_700_000_000_000_000,
                to: 1_700_000_000_000_000 + day)),
            .queryStatisticsCollection(StatisticsCollectionQuery(
                type: stepCount, options: [.cumulativeSum], anchor: 1_698_796_800_000_000,
                interval: IntervalComponents(weeks: 1, months: 1, years: 1), timeZone: "America/New_York", calendar: "hebrew",
                from: 1_698_796_800_000_000, to: 1_698_796_800_000_000 + 400 * day)),
            .queryCorrelations(CorrelationQuery(
                type: "HKCorrelationTypeIdentifierBloodPressure", predicate: .dateRange(DateRange(start: 0, end: nil)),
                samplePredicates: [TypedPredicate(type: "HKQuantityTypeIdentifierBloodPressureSystolic",
                                                  predicate: .quantity(.greaterThan, Quantity(100, "mmHg"))),
                                   TypedPredicate(type: "HKQuantityTypeIdentifierBloodPressureDiastolic")])),
            .querySources(type: heart, predicate: predicate(quantityLeaves)),
            .observe(types: [heart, stepCount], predicate: .anyOf(commonLeaves), frequency: .hourly),
            .queryActivitySummaries(from: CalendarDay(year: 2023, month: 11, day: 1), to: CalendarDay(year: 2023, month: 11, day: 30),
                                    timeZone: "Europe/Berlin"),
            .queryDevices(type: heart),
            .countSamples(types: ["HKCategoryTypeIdentifierSleepAnalysis"], predicate: predicate(categoryLeaves)),
            .readCharacteristics,
            .writeCharacteristics(Characteristics(biologicalSex: 2, bloodType: 3, dateOfBirth: CalendarDay(year: 1980, month: 2, day: 29),
                                                  fitzpatrickSkinType: 4, wheelchairUse: 1, activityMoveMode: 2)),
            .registerApp(bundleID: "com.example.fuzz", name: "Fuzz"),
            .listApps,
            .revokeApp(bundleID: "com.example.fuzz"),
            .rotateAppToken(bundleID: "com.example.fuzz"),
            .listAuthorizationRequests(bundleID: "com.example.fuzz", updates: false),
            .decideAuthorization(bundleID: "com.example.fuzz", decisions: [AuthorizationDecision(type: heart, direction: .read, grant: true),
                                                                          AuthorizationDecision(type: stepCount, direction: .share, grant: false)]),
            .listPermissions(bundleID: "com.example.fuzz"),
            .setSourcePriority(type: stepCount, bundleIDs: ["com.example.band", "com.example.watch"]),
            .getSourcePriority(type: stepCount),
            .addOwner(name: "fuzz-owner"),
            .listOwners,
        ]
    }

    /// The seed calls as `ClientMessage` payloads (no length prefix), without the kinds in `excluded`.
    static func payloads(token: String, excluding excluded: Set<String> = []) -> [[UInt8]] {
        calls(token: token).filter { !excluded.contains(ServerPath.kindName($0)) }.enumerated().map { index, call in
            WireCodec.encodeClientMessage(ClientMessage(callID: UInt64(index + 1), call: call))
        }
    }
}

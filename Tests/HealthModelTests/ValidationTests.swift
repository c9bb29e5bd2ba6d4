import XCTest
@testable import HealthModel

/// Sample builders shared by the validation and predicate tests.
enum Fixture {
    static let t0: Microseconds = 1_700_000_000_000_000
    static let minute: Microseconds = 60_000_000
    static let day: Microseconds = 86_400_000_000

    static let steps = "HKQuantityTypeIdentifierStepCount"
    static let heartRate = "HKQuantityTypeIdentifierHeartRate"
    static let bodyMass = "HKQuantityTypeIdentifierBodyMass"
    static let systolic = "HKQuantityTypeIdentifierBloodPressureSystolic"
    static let diastolic = "HKQuantityTypeIdentifierBloodPressureDiastolic"
    static let bloodPressure = "HKCorrelationTypeIdentifierBloodPressure"
    static let sleep = "HKCategoryTypeIdentifierSleepAnalysis"
    static let menstrualFlow = "HKCategoryTypeIdentifierMenstrualFlow"
    static let insulin = "HKQuantityTypeIdentifierInsulinDelivery"
    static let effortScore = "HKQuantityTypeIdentifierWorkoutEffortScore"
    static let workoutType = "HKWorkoutTypeIdentifier"

    static func quantity(_ type: String = steps, _ value: Double = 10, _ unit: String = "count",
                         start: Microseconds = t0, end: Microseconds? = nil, count: Int64 = 1,
                         metadata: Metadata = [:], uuid: UUID = UUID(), device: Device? = nil,
                         revision: SourceRevision? = nil) -> Sample {
        Sample(uuid: uuid, type: type, start: start, end: end ?? start + minute, metadata: metadata, device: device,
               sourceRevision: revision, body: .quantity(Quantity(value, unit), count: count))
    }

    static func category(_ type: String = sleep, _ value: Int64 = 1, start: Microseconds = t0,
                         end: Microseconds? = nil, metadata: Metadata = [:]) -> Sample {
        Sample(type: type, start: start, end: end ?? start + minute, metadata: metadata, body: .category(value))
    }

    static func bloodPressure(_ children: [Sample]? = nil, type: String = bloodPressure) -> Sample {
        let objects = children ?? [quantity(systolic, 120, "mmHg"), quantity(diastolic, 80, "mmHg")]
        return Sample(type: type, start: t0, end: t0 + minute, body: .correlation(objects))
    }

    static func workout(_ workout: Workout = Workout(activityType: 37), start: Microseconds = t0,
                        end: Microseconds? = nil, metadata: Metadata = [:]) -> Sample {
        Sample(type: workoutType, start: start, end: end ?? start + 30 * minute, metadata: metadata,
               body: .workout(workout))
    }
}

/// Asserts that validating `objects` fails with INVALID_ARGUMENT at `index`, naming `field`, with a
/// message containing `message`.
func assertRejected(_ objects: [Sample], index: Int = 0, field: String, message: String = "",
                    file: StaticString = #filePath, line: UInt = #line) {
    do {
        try SampleValidator.validate(objects)
        XCTFail("expected rejection of \(field)", file: file, line: line)
    } catch {
        XCTAssertEqual(error.code, .invalidArgument, file: file, line: line)
        XCTAssertEqual(error.objectIndex, index, "\(error)", file: file, line: line)
        XCTAssertEqual(error.field, field, "\(error)", file: file, line: line)
        if !message.isEmpty {
            XCTAssertTrue(error.message.contains(message), "\(error.message) lacks '\(message)'", file: file, line: line)
        }
    }
}

func assertAccepted(_ objects: [Sample], file: StaticString = #filePath, line: UInt = #line) {
    do {
        try SampleValidator.validate(objects)
    } catch {
        XCTFail("unexpected rejection: \(error)", file: file, line: line)
    }
}

final class ValidationTests: XCTestCase {
    typealias F = Fixture

    func testValidBatchOfEveryKindIsAccepted() {
        assertAccepted([
            F.quantity(),
            F.quantity(F.bodyMass, 70, "kg"),
            F.category(F.sleep, 0),
            F.bloodPressure(),
            F.workout(Workout(activityType: 37, events: [WorkoutEvent(type: .lap, start: F.t0, end: F.t0 + F.minute)])),
        ])
        assertAccepted([])
    }

    // MARK: type and kind (docs/semantics.md §8.1 item 1)

    func testUnknownTypeIsRejected() {
        assertRejected([F.quantity(), F.quantity("HKQuantityTypeIdentifierStepCounts")], index: 1, field: "type",
                       message: "Unknown data type")
    }

    func testCharacteristicTypeIsNotASampleType() {
        let sample = Sample(type: "HKCharacteristicTypeIdentifierBiologicalSex", start: F.t0, end: F.t0, body: .category(1))
        assertRejected([sample], field: "type", message: "must be of type")
    }

    func testBodyKindMustMatchTypeKind() {
        let sample = Sample(type: F.steps, start: F.t0, end: F.t0, body: .category(0))
        assertRejected([sample], field: "type", message: "Data type HKQuantityTypeIdentifierStepCount must be of type HKQuantitySample")
        assertRejected([F.category(F.steps)], field: "type")
        assertRejected([F.quantity(F.sleep, 1, "count")], field: "type", message: "must be of type HKCategorySample")
    }

    // MARK: dates (docs/semantics.md §1.3, §8.1 item 3)

    func testMissingStartOrEndIsRejected() {
        assertRejected([F.quantity(start: 0, end: F.t0)], field: "start_time", message: "Missing start or end time")
        assertRejected([F.quantity(start: F.t0, end: 0)], field: "end_time", message: "Missing start or end time")
    }

    func testStartAfterEndIsRejected() {
        assertRejected([F.quantity(start: F.t0 + 1, end: F.t0)], field: "start_time", message: "cannot occur after endDate")
    }

    func testInstantIsAccepted() {
        assertAccepted([F.quantity(F.bodyMass, 70, "kg", start: F.t0, end: F.t0)])
    }

    func testDistantFutureEndRejectedUnlessTypeAllowsUndeterminedDuration() {
        assertRejected([F.category(F.sleep, 0, end: Time.distantFuture)], field: "end_time",
                       message: "can not have endDate of NSDate.distantFuture")
        assertRejected([F.quantity(end: Time.distantFuture + 1)], field: "end_time")
    }

    func testDistantFutureEndAcceptedForUndeterminedDurationTypes() throws {
        let open = try XCTUnwrap(TypeCatalog.all.first { $0.allowsUndeterminedDuration && $0.kind == .category },
                                 "catalog has no undetermined-duration category type yet")
        let value = try XCTUnwrap(open.categoryValues?.min())
        assertAccepted([F.category(open.identifier, value, end: Time.distantFuture)])
    }

    // MARK: duration limits (docs/semantics.md §8.2)

    func testMaximumDurationIsEnforced() {
        assertAccepted([F.quantity(start: F.t0, end: F.t0 + 4 * F.day)])
        assertRejected([F.quantity(start: F.t0, end: F.t0 + 4 * F.day + 1)], field: "end_time",
                       message: "exceed the maximum allowed duration")
        // The longest span of supported dates is too long, not a crash.
        assertRejected([F.quantity(start: TimeRules.earliest, end: F.t0)], field: "end_time", message: "exceed the maximum")
    }

    /// No catalog type is known to have a minimum (docs/semantics.md §8.2 names only unidentified internal codes), so
    /// the rule is exercised on a synthetic type.
    func testMinimumDurationIsEnforced() throws {
        let type = HealthType(identifier: "HKQuantityTypeIdentifierSynthetic", kind: .quantity, canonicalUnit: "count",
                              minimumDuration: 1_000)
        XCTAssertNoThrow(try IntervalRules.checkSample(start: F.t0, end: F.t0 + 1_000, type: type, path: .root))
        XCTAssertThrowsError(try IntervalRules.checkSample(start: F.t0, end: F.t0 + 999, type: type, path: .root)) { error in
            let error = error as! HealthError
            XCTAssertEqual(error.field, "end_time")
            XCTAssertTrue(error.message.contains("minimum allowed duration"), error.message)
        }
    }

    // MARK: quantities (docs/semantics.md §1.4, §8.1 item 6, decision 8)

    func testIncompatibleUnitIsRejected() {
        assertRejected([F.quantity(F.steps, 1, "kg")], field: "quantity.unit",
                       message: "HKQuantityTypeIdentifierStepCount requires unit of type count. Incompatible unit: kg")
    }

    func testCompatibleNonCanonicalUnitsAreAccepted() {
        assertAccepted([F.quantity(F.heartRate, 60, "count/min"), F.quantity(F.bodyMass, 150, "lb")])
    }

    // The sample's unit is parsed once for the compatibility and the range check; both still report as before.
    func testNonCanonicalUnitsAreParsedAndRangeCheckedInTheCanonicalUnit() {
        assertRejected([F.quantity(F.steps, 1, "furlongs")], field: "quantity.unit", message: "Invalid unit 'furlongs': ")
        assertRejected([F.quantity(F.heartRate, 2_000, "count/min")], field: "quantity.value",
                       message: "HKQuantityTypeIdentifierHeartRate requires a value between 0 and ")
        assertRejected([F.workout(Workout(activityType: 37, statistics: [WorkoutStatistic(quantityType: F.steps, sum: Quantity(1, "furlongs"))]))],
                       field: "workout.statistics[0].sum", message: "Invalid unit 'furlongs': ")
    }

    func testUnparseableUnitIsRejected() {
        assertRejected([F.quantity(F.steps, 1, "blorp")], field: "quantity.unit", message: "Invalid unit")
    }

    func testNonFiniteValuesAreRejected() {
        assertRejected([F.quantity(F.steps, .nan)], field: "quantity.value", message: "finite")
        assertRejected([F.quantity(F.steps, .infinity)], field: "quantity.value")
        assertRejected([F.quantity(F.steps, -.infinity)], field: "quantity.value")
    }

    func testNegativeValuesAreRejected() {
        assertRejected([F.quantity(F.steps, -5)], field: "quantity.value", message: "requires a value between 0 and 10000000 count")
    }

    func testCountMustBePositive() {
        assertRejected([F.quantity(count: 0)], field: "count", message: "greater than 0")
        assertRejected([F.quantity(count: -1)], field: "count")
        assertAccepted([F.quantity(count: 12)])
    }

    func testEffortScoreMustBeWithinZeroToTen() {
        assertAccepted([F.quantity(F.effortScore, 0, "appleEffortScore"), F.quantity(F.effortScore, 10, "appleEffortScore")])
        assertRejected([F.quantity(F.effortScore, 10.5, "appleEffortScore")], field: "quantity.value",
                       message: "requires a value between 0 and 10")
        assertRejected([F.quantity(F.effortScore, -1, "appleEffortScore")], field: "quantity.value")
    }

    // MARK: categories (docs/semantics.md §1.5, §4.3)

    func testCategoryValueMustBeInTheTypesSet() {
        assertAccepted((0...5).map { F.category(F.sleep, Int64($0)) })
        assertRejected([F.category(F.sleep, 7)], field: "category.value",
                       message: "Value 7 is not compatible with type HKCategoryTypeIdentifierSleepAnalysis")
    }

    // MARK: correlations (docs/semantics.md §1.6)

    func testCorrelationNeedsObjects() {
        assertRejected([F.bloodPressure([])], field: "correlation.objects", message: "one or more HKSample")
    }

    func testCorrelationCannotNest() {
        assertRejected([F.bloodPressure([F.bloodPressure()])], field: "correlation.objects[0].type",
                       message: "cannot contain other correlations")
    }

    func testCorrelationCannotContainWorkouts() {
        assertRejected([F.bloodPressure([F.quantity(F.systolic, 120, "mmHg"), F.workout()])],
                       field: "correlation.objects[1].type", message: "cannot contain workouts")
    }

    func testCorrelationChildTypeMustBeAllowed() {
        assertRejected([F.bloodPressure([F.quantity(F.systolic, 120, "mmHg"), F.quantity()])],
                       field: "correlation.objects[1].type", message: "not allowed in correlation")
    }

    func testCorrelationChildrenAreValidatedAndReportedUnderTheCorrelation() {
        let bad = F.quantity(F.diastolic, 80, "mmHg", start: F.t0 + 1, end: F.t0)
        assertRejected([F.quantity(), F.bloodPressure([F.quantity(F.systolic, 120, "mmHg"), bad])], index: 1,
                       field: "correlation.objects[1].start_time", message: "cannot occur after endDate")
        let badUnit = F.quantity(F.systolic, 120, "kg")
        assertRejected([F.bloodPressure([badUnit])], field: "correlation.objects[0].quantity.unit")
        let badMetadata = F.quantity(F.systolic, 120, "mmHg", metadata: [MetadataKey.timeZone: .string("Nowhere/Land")])
        assertRejected([F.bloodPressure([badMetadata])], field: "correlation.objects[0].metadata.HKTimeZone")
    }

    // MARK: workouts (docs/semantics.md §1.7, §4.6)

    func testWorkoutActivityTypeMustBeKnown() {
        assertAccepted([3000, 1, 80, 82, 83].map { F.workout(Workout(activityType: $0)) })
        assertRejected([F.workout(Workout(activityType: 81))], field: "workout.activity_type")
        assertRejected([F.workout(Workout(activityType: 0))], field: "workout.activity_type")
    }

    func testWorkoutEventsMustBeOrdered() {
        let event = WorkoutEvent(type: .pause, start: F.t0 + 2, end: F.t0 + 1)
        assertRejected([F.workout(Workout(activityType: 37, events: [WorkoutEvent(type: .lap, start: F.t0, end: F.t0), event]))],
                       field: "workout.events[1].start_time", message: "cannot occur after endDate")
    }

    func testWorkoutEventMetadataIsValidated() {
        let event = WorkoutEvent(type: .segment, start: F.t0, end: F.t0, metadata: ["HKLapLength": .string("25m")])
        assertRejected([F.workout(Workout(activityType: 46, events: [event]))], field: "workout.events[0].metadata.HKLapLength",
                       message: "is not a quantity")
    }

    func testWorkoutNegativeDurationIsRejected() {
        assertRejected([F.workout(Workout(activityType: 37, duration: -1))], field: "workout.duration")
    }

    func testWorkoutActivitiesAreValidated() {
        let id = UUID()
        let good = WorkoutActivity(uuid: id, activityType: 46, start: F.t0, end: F.t0 + F.minute)
        assertAccepted([F.workout(Workout(activityType: 82, activities: [good]))])
        let badType = WorkoutActivity(uuid: UUID(), activityType: 81, start: F.t0, end: F.t0)
        assertRejected([F.workout(Workout(activityType: 82, activities: [good, badType]))],
                       field: "workout.activities[1].activity_type")
        let badOrder = WorkoutActivity(uuid: UUID(), activityType: 13, start: F.t0 + 1, end: F.t0)
        assertRejected([F.workout(Workout(activityType: 82, activities: [badOrder]))], field: "workout.activities[0].start_time")
        let badEvent = WorkoutActivity(uuid: UUID(), activityType: 13, start: F.t0, end: F.t0 + 5,
                                       events: [WorkoutEvent(type: .lap, start: 0, end: F.t0)])
        assertRejected([F.workout(Workout(activityType: 82, activities: [badEvent]))],
                       field: "workout.activities[0].events[0].start_time", message: "Missing start or end time")
        let duplicate = WorkoutActivity(uuid: id, activityType: 37, start: F.t0, end: F.t0)
        assertRejected([F.workout(Workout(activityType: 82, activities: [good, duplicate]))], field: "workout.activities[1].uuid")
    }

    func testWorkoutStatisticsAreValidated() {
        let energy = "HKQuantityTypeIdentifierActiveEnergyBurned"
        assertAccepted([F.workout(Workout(activityType: 37, statistics: [WorkoutStatistic(quantityType: F.steps, sum: Quantity(100, "count"))]))])
        assertRejected([F.workout(Workout(activityType: 37, statistics: [WorkoutStatistic(quantityType: F.sleep)]))],
                       field: "workout.statistics[0].quantity_type")
        assertRejected([F.workout(Workout(activityType: 37, statistics: [WorkoutStatistic(quantityType: F.steps, sum: Quantity(.nan, "count"))]))],
                       field: "workout.statistics[0].sum")
        assertRejected([F.workout(Workout(activityType: 37, statistics: [WorkoutStatistic(quantityType: energy, maximum: Quantity(1, "count"))]))],
                       field: "workout.statistics[0].maximum", message: "Incompatible unit")
    }

    // MARK: batch rules

    func testDuplicateUUIDsInOneBatchAreRejected() {
        let id = UUID()
        assertRejected([F.quantity(uuid: id), F.quantity(), F.quantity(uuid: id)], index: 2, field: "uuid",
                       message: "Duplicate UUID")
        let child = F.quantity(F.systolic, 120, "mmHg", uuid: id)
        assertRejected([F.quantity(uuid: id), F.bloodPressure([child])], index: 1, field: "correlation.objects[0].uuid")
    }

    func testFirstOffendingObjectIsReported() {
        assertRejected([F.quantity(), F.quantity(), F.quantity(count: 0), F.quantity(F.steps, .nan)], index: 2, field: "count")
    }
}

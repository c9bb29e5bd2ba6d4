import XCTest
@testable import HealthModel

/// Every client-controlled instant, value, interval and key is range-checked where it enters.
final class BoundaryValidationTests: XCTestCase {
    typealias F = Fixture

    private let oxygen = "HKQuantityTypeIdentifierOxygenSaturation"
    /// Proleptic Gregorian instants (Foundation's gregorian calendar switches to Julian before 1582).
    private let year1 = TimeRules.earliest, year9999End = utc(9999, 12, 31, 23, 59)
    private let year0 = TimeRules.earliest - 180 * Fixture.day, yearMinus5000 = TimeRules.earliest - 5_001 * 365 * Fixture.day

    private func assertInvalid(field: String, message: String = "", _ body: () throws(HealthError) -> Void,
                               file: StaticString = #filePath, line: UInt = #line) {
        do {
            try body()
            XCTFail("expected INVALID_ARGUMENT for \(field)", file: file, line: line)
        } catch {
            XCTAssertEqual(error.code, .invalidArgument, file: file, line: line)
            XCTAssertEqual(error.field, field, "\(error)", file: file, line: line)
            XCTAssertTrue(message.isEmpty || error.message.contains(message), "\(error.message) lacks '\(message)'",
                          file: file, line: line)
        }
    }

    // MARK: dates: years 1 through 9999

    func testTheSupportedRangeIsYears1Through9999() {
        XCTAssertEqual(TimeRules.latest + 1, utc(10000, 1, 1))
    }

    func testSampleTimesOutsideYears1Through9999AreRejectedWithARangeMessage() {
        assertAccepted([F.quantity(start: year1), F.category("HKCategoryTypeIdentifierPregnancy", 0, start: F.t0, end: year9999End)])
        assertRejected([F.quantity(start: year0)], field: "start_time", message: "years 1 through 9999")
        assertRejected([F.quantity(start: yearMinus5000)], field: "start_time", message: "years 1 through 9999")
        let year10000 = utc(10000, 1, 1)
        assertRejected([F.quantity(F.bodyMass, 70, "kg", start: year10000, end: year10000)], field: "start_time",
                       message: "years 1 through 9999")
        assertRejected([F.quantity(F.bodyMass, 70, "kg", start: year9999End, end: year10000)], field: "end_time",
                       message: "years 1 through 9999")
    }

    /// The crash input: start = Int64.min, end = 1 passed validation and trapped on end − start.
    func testInt64MinStartIsRejectedForEveryKind() {
        let child = F.quantity(F.systolic, 120, "mmHg", start: .min, end: 1)
        assertRejected([F.bloodPressure([child, F.quantity(F.diastolic, 80, "mmHg")])],
                       field: "correlation.objects[0].start_time", message: "years 1 through 9999")
        assertRejected([F.workout(start: .min, end: 1)], field: "start_time")
        assertRejected([F.quantity(start: .min, end: 1)], field: "start_time")
        assertRejected([F.quantity(start: F.t0, end: .max)], field: "end_time")
    }

    func testCalendarDaysMustBeRealDatesInYears1Through9999() {
        XCTAssertNoThrow(try TimeRules.checkDay(CalendarDay(year: 1, month: 1, day: 1), field: "day"))
        XCTAssertNoThrow(try TimeRules.checkDay(CalendarDay(year: 2024, month: 2, day: 29), field: "day"))
        for day in [CalendarDay(year: 0, month: 1, day: 1), CalendarDay(year: 10000, month: 1, day: 1),
                    CalendarDay(year: Int(Int32.max), month: 1, day: 1), CalendarDay(year: 2023, month: 2, day: 29),
                    CalendarDay(year: 2024, month: 13, day: 1)] {
            assertInvalid(field: "from_day") { () throws(HealthError) in try TimeRules.checkDay(day, field: "from_day") }
        }
    }

    // MARK: quantity values

    func testEveryQuantityTypeHasAValueRangeThatAcceptsZeroOrAFraction() {
        for type in TypeCatalog.all where type.kind == .quantity {
            let range = type.valueRange
            XCTAssertNotNil(range, type.identifier)
            XCTAssertTrue(range?.contains(0.5) ?? false, type.identifier)
        }
    }

    func testPercentagesAreFractions() {
        assertAccepted([F.quantity(oxygen, 0.97, "%"), F.quantity(oxygen, 1, "%"), F.quantity(oxygen, 0, "%")])
        assertRejected([F.quantity(oxygen, 97, "%")], field: "quantity.value",
                       message: "HKQuantityTypeIdentifierOxygenSaturation requires a value between 0 and 1 %; got 97 %")
        assertRejected([F.quantity(oxygen, -0.1, "%")], field: "quantity.value")
    }

    func testRatesCountsAndMassesAreNonNegativeAndBounded() {
        assertRejected([F.quantity(F.heartRate, -70, "count/min")], field: "quantity.value", message: "between 0 and")
        assertAccepted([F.quantity(F.heartRate, 220, "count/min"), F.quantity(F.bodyMass, 635, "kg")])
        assertRejected([F.quantity(F.bodyMass, 1e300, "kg")], field: "quantity.value", message: "got 1e+300 kg")
        assertRejected([F.quantity(F.bodyMass, -1, "lb")], field: "quantity.value")
        assertRejected([F.quantity(F.steps, 1e12)], field: "quantity.value")
    }

    func testTemperaturesMayBeBelowZeroButNotBelowAbsoluteZero() {
        let water = "HKQuantityTypeIdentifierWaterTemperature"
        assertAccepted([F.quantity(water, -2, "degC"), F.quantity("HKQuantityTypeIdentifierBodyTemperature", 98.6, "degF")])
        assertRejected([F.quantity(water, -300, "degC")], field: "quantity.value")
    }

    func testWorkoutStatisticsAreRangeChecked() {
        let negative = WorkoutStatistic(quantityType: F.steps, sum: Quantity(-1, "count"))
        assertRejected([F.workout(Workout(activityType: 37, statistics: [negative]))], field: "workout.statistics[0].sum")
        let saturation = WorkoutStatistic(quantityType: oxygen, average: Quantity(97, "%"))
        assertRejected([F.workout(Workout(activityType: 37, statistics: [saturation]))], field: "workout.statistics[0].average")
        let longTotal = WorkoutStatistic(quantityType: F.steps, sum: Quantity(50_000_000, "count"))
        assertAccepted([F.workout(Workout(activityType: 37, statistics: [longTotal]))])
    }

    // MARK: metadata

    func testTimeZoneMetadataIsCheckedOnEveryObject() {
        for bad: MetadataValue in [.int(1), .string("Mars/Olympus")] {
            let metadata: Metadata = [MetadataKey.timeZone: bad]
            assertRejected([F.quantity(metadata: metadata)], field: "metadata.HKTimeZone")
            let event = WorkoutEvent(type: .marker, start: F.t0, end: F.t0, metadata: metadata)
            assertRejected([F.workout(Workout(activityType: 37, events: [event]))], field: "workout.events[0].metadata.HKTimeZone")
            let activity = WorkoutActivity(uuid: UUID(), activityType: 37, start: F.t0, end: F.t0, metadata: metadata)
            assertRejected([F.workout(Workout(activityType: 37, activities: [activity]))],
                           field: "workout.activities[0].metadata.HKTimeZone")
        }
    }

    func testUnknownHKKeysAreRejectedButHealthKitsAndCustomKeysAreNot() {
        assertRejected([F.quantity(metadata: ["HKMadeUpKey": .string("x")])], field: "metadata.HKMadeUpKey",
                       message: "reserved")
        assertAccepted([F.quantity(metadata: ["HKAlgorithmVersion": .int(2),
                                              "HKSWOLFScore": .double(42), "MyHKKey": .string("x"), "hkLower": .int(1)])])
    }

    func testMetadataDatesMustBeSupportedDates() {
        assertAccepted([F.quantity(metadata: ["when": .date(year1)])])
        assertRejected([F.quantity(metadata: ["when": .date(year0)])], field: "metadata.when", message: "years 1 through 9999")
        assertRejected([F.quantity(metadata: ["when": .date(.max)])], field: "metadata.when")
    }

    // MARK: workouts

    func testWorkoutEventsMustLieInsideTheWorkout() {
        let end = F.t0 + 30 * F.minute
        assertAccepted([F.workout(Workout(activityType: 37, events: [WorkoutEvent(type: .lap, start: F.t0, end: end)]))])
        let late = WorkoutEvent(type: .marker, start: end + 60 * F.minute, end: end + 60 * F.minute)
        assertRejected([F.workout(Workout(activityType: 37, events: [late]))], field: "workout.events[0].end_time",
                       message: "after its workout ends")
        let early = WorkoutEvent(type: .lap, start: F.t0 - 1, end: F.t0)
        assertRejected([F.workout(Workout(activityType: 37, events: [early]))], field: "workout.events[0].start_time")
    }

    func testWorkoutActivitiesAndTheirEventsMustLieInsideTheirInterval() {
        let before = WorkoutActivity(uuid: UUID(), activityType: 37, start: F.t0 - F.minute, end: F.t0 + F.minute)
        assertRejected([F.workout(Workout(activityType: 37, activities: [before]))], field: "workout.activities[0].start_time",
                       message: "before its workout starts")
        let after = WorkoutActivity(uuid: UUID(), activityType: 37, start: F.t0, end: F.t0 + 31 * F.minute)
        assertRejected([F.workout(Workout(activityType: 37, activities: [after]))], field: "workout.activities[0].end_time")
        let eventOutside = WorkoutActivity(uuid: UUID(), activityType: 37, start: F.t0, end: F.t0 + F.minute,
                                           events: [WorkoutEvent(type: .lap, start: F.t0 + 2 * F.minute, end: F.t0 + 2 * F.minute)])
        assertRejected([F.workout(Workout(activityType: 37, activities: [eventOutside]))],
                       field: "workout.activities[0].events[0].end_time", message: "after its activity ends")
    }

    func testTheFirstPauseOrResumeEventMustBeAPause() {
        let pause = WorkoutEvent(type: .pause, start: F.t0 + F.minute, end: F.t0 + F.minute)
        let resume = WorkoutEvent(type: .resume, start: F.t0 + 2 * F.minute, end: F.t0 + 2 * F.minute)
        assertAccepted([F.workout(Workout(activityType: 37, events: [resume, pause]))])
        assertRejected([F.workout(Workout(activityType: 37, events: [WorkoutEvent(type: .lap, start: F.t0, end: F.t0), resume]))],
                       field: "workout.events[1].type", message: "cannot begin with a resume")
        let motionResumed = WorkoutEvent(type: .motionResumed, start: F.t0, end: F.t0)
        assertRejected([F.workout(Workout(activityType: 37, events: [motionResumed]))], field: "workout.events[0].type")
    }

    func testWorkoutDurationMustFitTheWorkout() {
        assertAccepted([F.workout(Workout(activityType: 37, duration: 0)), F.workout(Workout(activityType: 37, duration: 30 * F.minute))])
        assertRejected([F.workout(Workout(activityType: 37, duration: 30 * F.minute + 1))], field: "workout.duration")
        assertRejected([F.workout(Workout(activityType: 37, duration: .max))], field: "workout.duration")
    }

    // MARK: predicates

    func testPredicateDatesAndDurationsAreBounded() {
        XCTAssertNoThrow(try QueryPredicate.dateRange(DateRange(start: year1, end: year9999End)).validate())
        assertInvalid(field: "predicate.date_range") { () throws(HealthError) in
            try QueryPredicate.dateRange(DateRange(start: .min, end: nil)).validate()
        }
        assertInvalid(field: "predicate.metadata.value") { () throws(HealthError) in
            try QueryPredicate.metadataCompare(key: "when", .lessThan, .date(.max)).validate()
        }
        assertInvalid(field: "predicate.workout_duration") { () throws(HealthError) in
            try QueryPredicate.workoutDuration(.greaterThan, -1).validate()
        }
        assertInvalid(field: "predicate.workout_duration") { () throws(HealthError) in
            try QueryPredicate.workoutDuration(.lessThan, .max).validate()
        }
    }

    // MARK: statistics collections

    /// The crash inputs: these intervals trapped on overflow in `CalendarBuckets.start(of:)`.
    func testOverflowingIntervalsAreRejected() {
        let crashing = [IntervalComponents(days: Int(Int32.max)), IntervalComponents(weeks: Int(Int32.max)),
                        IntervalComponents(months: Int(Int32.max)), IntervalComponents(years: 300_000),
                        IntervalComponents(seconds: Int(Int32.max), years: 10_000)]
        for interval in crashing {
            assertInvalid(field: "interval", message: "longer than 10000 years") { () throws(HealthError) in
                try StatisticsCollectionRules.check(anchor: F.t0, interval: interval, from: F.t0, to: F.t0)
            }
            assertInvalid(field: "interval") { () throws(HealthError) in
                _ = try CalendarBuckets(anchor: F.t0, components: interval, timeZone: nil, calendar: nil)
            }
        }
    }

    func testCollectionInstantsMustBeSupportedDatesInOrder() {
        let day = IntervalComponents(days: 1)
        assertInvalid(field: "anchor") { () throws(HealthError) in
            try StatisticsCollectionRules.check(anchor: .min, interval: day, from: F.t0, to: F.t0)
        }
        assertInvalid(field: "from_time") { () throws(HealthError) in
            try StatisticsCollectionRules.check(anchor: F.t0, interval: day, from: .min, to: F.t0)
        }
        assertInvalid(field: "to_time") { () throws(HealthError) in
            try StatisticsCollectionRules.check(anchor: F.t0, interval: day, from: F.t0, to: .max)
        }
        assertInvalid(field: "from_time", message: "is after") { () throws(HealthError) in
            try StatisticsCollectionRules.check(anchor: F.t0, interval: day, from: F.t0 + 1, to: F.t0)
        }
    }

    /// The extremes the rules allow: every calendar computes buckets without trapping.
    func testTheLargestAllowedIntervalsComputeAtTheEdgesOfTheSupportedDates() throws {
        let widest = [IntervalComponents(years: 10_000), IntervalComponents(months: 120_000), IntervalComponents(days: 3_652_425),
                      IntervalComponents(seconds: 315_569_520_000), IntervalComponents(seconds: 1)]
        for calendar in CalendarBuckets.calendars.keys.sorted() {
            for interval in widest {
                for anchor in [TimeRules.earliest, TimeRules.latest] {
                    let buckets = try CalendarBuckets(anchor: anchor, components: interval, timeZone: "Pacific/Kiritimati",
                                                      calendar: calendar)
                    for instant in [TimeRules.earliest, TimeRules.latest] {
                        let bucket = buckets.bucket(containing: instant)
                        XCTAssertTrue(bucket.range.contains(instant), "\(calendar) \(interval)")
                    }
                }
            }
        }
    }
}

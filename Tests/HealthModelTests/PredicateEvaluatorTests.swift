import XCTest
@testable import HealthModel

final class PredicateEvaluatorTests: XCTestCase {
    typealias F = Fixture
    let s = Fixture.t0
    var e: Microseconds { s + Fixture.day }

    private func interval(_ start: Microseconds, _ end: Microseconds) -> Sample {
        F.quantity(start: start, end: end)
    }

    // MARK: date range (docs/semantics.md §6.1)

    /// Every strictness combination against the boundary cases of docs/semantics.md §6.1, for the window [S, E).
    func testDateRangeBoundaryCasesForEveryStrictnessCombination() {
        let h = 3_600_000_000 as Microseconds
        // (name, sample, default, strictStart, strictEnd, both)
        let cases: [(String, Sample, Bool, Bool, Bool, Bool)] = [
            ("ends exactly at S (touching)", interval(s - h, s), true, false, true, false),
            ("spans S", interval(s - h, s + h), true, false, true, false),
            ("instant at S", interval(s, s), true, true, true, true),
            ("inside", interval(s + h, s + 2 * h), true, true, true, true),
            ("starts at S, ends at E", interval(s, e), true, true, false, false),
            ("ends exactly at E", interval(e - h, e), true, true, false, false),
            ("spans E", interval(e - h, e + h), true, true, false, false),
            ("starts exactly at E", interval(e, e + h), false, false, false, false),
            ("instant at E", interval(e, e), false, false, false, false),
            ("spans the whole window", interval(s - h, e + h), true, false, false, false),
            ("entirely before", interval(s - 2 * h, s - h), false, false, false, false),
            ("entirely after", interval(e + h, e + 2 * h), false, false, false, false),
            ("instant just before E", interval(e - 1, e - 1), true, true, true, true),
        ]
        for (name, sample, plain, strictStart, strictEnd, both) in cases {
            let expected = [(false, false, plain), (true, false, strictStart), (false, true, strictEnd), (true, true, both)]
            for (ss, se, want) in expected {
                let predicate = QueryPredicate.dateRange(DateRange(start: s, end: e, strictStart: ss, strictEnd: se))
                XCTAssertEqual(predicate.matches(sample), want, "\(name), strictStart \(ss), strictEnd \(se)")
            }
        }
    }

    func testDateRangeOpenSides() {
        let before = interval(s - F.minute, s - 1)
        let after = interval(e, e + F.minute)
        XCTAssertTrue(QueryPredicate.dateRange(DateRange(start: nil, end: e)).matches(before))
        XCTAssertFalse(QueryPredicate.dateRange(DateRange(start: nil, end: e)).matches(after))
        XCTAssertTrue(QueryPredicate.dateRange(DateRange(start: s, end: nil)).matches(after))
        XCTAssertFalse(QueryPredicate.dateRange(DateRange(start: s, end: nil)).matches(before))
        XCTAssertTrue(QueryPredicate.dateRange(DateRange(start: nil, end: nil, strictStart: true, strictEnd: true)).matches(before))
    }

    // MARK: identity, source, device

    func testUUIDs() {
        let sample = F.quantity()
        XCTAssertTrue(QueryPredicate.uuids([sample.uuid, UUID()]).matches(sample))
        XCTAssertFalse(QueryPredicate.uuids([UUID()]).matches(sample))
        XCTAssertFalse(QueryPredicate.uuids([]).matches(sample))
    }

    private let revision = SourceRevision(source: Source(name: "Watch", bundleID: "com.apple.health.watch"),
                                          version: "10.1", productType: "Watch6,1", osMajor: 10, osMinor: 1, osPatch: 0)

    func testSourcesMatchByBundleID() {
        let sample = F.quantity(revision: revision)
        XCTAssertTrue(QueryPredicate.sources(["com.apple.health.watch"]).matches(sample))
        XCTAssertFalse(QueryPredicate.sources(["com.example.app"]).matches(sample))
        XCTAssertFalse(QueryPredicate.sources(["com.apple.health.watch"]).matches(F.quantity()), "unsaved sample has no source")
    }

    func testSourceRevisionPatternsWithWildcards() {
        let sample = F.quantity(revision: revision)
        let any = SourceRevisionPattern(bundleID: "com.apple.health.watch")
        XCTAssertTrue(QueryPredicate.sourceRevisions([any]).matches(sample))
        XCTAssertTrue(QueryPredicate.sourceRevisions([SourceRevisionPattern(bundleID: "com.apple.health.watch", version: "10.1",
                                                                             productType: "Watch6,1", osVersion: [10, 1, 0])]).matches(sample))
        XCTAssertFalse(QueryPredicate.sourceRevisions([SourceRevisionPattern(bundleID: "com.apple.health.watch", version: "9.0")]).matches(sample))
        XCTAssertFalse(QueryPredicate.sourceRevisions([SourceRevisionPattern(bundleID: "com.apple.health.watch", osVersion: [10, 0, 0])]).matches(sample))
        XCTAssertFalse(QueryPredicate.sourceRevisions([any]).matches(F.quantity()))
    }

    func testDevicePatternsTreatNilAsWildcard() {
        let device = Device(name: "Apple Watch", manufacturer: "Apple Inc.", model: "Watch", hardwareVersion: "Watch6,1")
        let sample = F.quantity(device: device)
        XCTAssertTrue(QueryPredicate.devices([Device(manufacturer: "Apple Inc.")]).matches(sample))
        XCTAssertTrue(QueryPredicate.devices([Device(name: "Other"), Device(model: "Watch", hardwareVersion: "Watch6,1")]).matches(sample))
        XCTAssertFalse(QueryPredicate.devices([Device(manufacturer: "Apple Inc.", firmwareVersion: "1.0")]).matches(sample))
        XCTAssertTrue(QueryPredicate.devices([Device()]).matches(sample), "an all-nil pattern matches any device")
        XCTAssertFalse(QueryPredicate.devices([Device()]).matches(F.quantity()), "no device matches no pattern")
    }

    func testDevicePropertyIn() {
        let sample = F.quantity(device: Device(name: "Scale", manufacturer: "Withings"))
        XCTAssertTrue(QueryPredicate.deviceProperty(.manufacturer, ["Withings", "Omron"]).matches(sample))
        XCTAssertFalse(QueryPredicate.deviceProperty(.manufacturer, ["Omron"]).matches(sample))
        XCTAssertFalse(QueryPredicate.deviceProperty(.model, ["Withings"]).matches(sample), "nil property is in no set")
        XCTAssertFalse(QueryPredicate.deviceProperty(.name, ["Scale"]).matches(F.quantity()))
    }

    // MARK: metadata

    func testMetadataExists() {
        let sample = F.quantity(metadata: ["k": .bool(false)])
        XCTAssertTrue(QueryPredicate.metadataExists(key: "k").matches(sample))
        XCTAssertFalse(QueryPredicate.metadataExists(key: "other").matches(sample))
    }

    func testMetadataNumbersCompareAcrossIntDoubleAndBool() {
        let sample = F.quantity(metadata: ["i": .int(3), "d": .double(2.5), "b": .bool(true), "big": .int(9_007_199_254_740_993)])
        func m(_ key: String, _ op: ComparisonOperator, _ v: MetadataValue) -> Bool {
            QueryPredicate.metadataCompare(key: key, op, v).matches(sample)
        }
        XCTAssertTrue(m("i", .equal, .double(3.0)))
        XCTAssertTrue(m("i", .greaterThan, .double(2.5)))
        XCTAssertTrue(m("i", .lessThan, .double(3.0000001)))
        XCTAssertFalse(m("i", .lessThan, .int(3)))
        XCTAssertTrue(m("i", .lessThanOrEqual, .int(3)))
        XCTAssertTrue(m("i", .greaterThanOrEqual, .int(3)))
        XCTAssertTrue(m("i", .notEqual, .int(4)))
        XCTAssertTrue(m("d", .lessThan, .int(3)))
        XCTAssertTrue(m("d", .greaterThan, .int(2)))
        XCTAssertTrue(m("b", .equal, .int(1)))
        XCTAssertTrue(m("b", .equal, .bool(true)))
        XCTAssertFalse(m("b", .equal, .int(0)))
        // 2^53 + 1 is not representable as a double; the comparison must not round it.
        XCTAssertFalse(m("big", .equal, .double(9_007_199_254_740_992)))
        XCTAssertTrue(m("big", .greaterThan, .double(9_007_199_254_740_992)))
    }

    func testMetadataStringsDatesAndQuantities() {
        let sample = F.quantity(metadata: ["s": .string("banana"), "t": .date(s), "q": .quantity(Quantity(1, "km"))])
        func m(_ key: String, _ op: ComparisonOperator, _ v: MetadataValue) -> Bool {
            QueryPredicate.metadataCompare(key: key, op, v).matches(sample)
        }
        XCTAssertTrue(m("s", .equal, .string("banana")))
        XCTAssertTrue(m("s", .greaterThan, .string("apple")))
        XCTAssertTrue(m("s", .lessThan, .string("bananas")))
        XCTAssertTrue(m("s", .lessThan, .string("Z") ) == false, "code-point order: 'b' > 'Z'")
        XCTAssertTrue(m("t", .lessThan, .date(s + 1)))
        XCTAssertTrue(m("t", .equal, .date(s)))
        XCTAssertTrue(m("q", .equal, .quantity(Quantity(1000, "m"))))
        XCTAssertTrue(m("q", .lessThan, .quantity(Quantity(1, "mi"))))
        XCTAssertFalse(m("q", .equal, .quantity(Quantity(1, "kg"))), "incompatible units do not compare")
    }

    func testMetadataIncomparableKindsAreOnlyNotEqualAndMissingKeysNeverMatch() {
        let sample = F.quantity(metadata: ["s": .string("5")])
        XCTAssertFalse(QueryPredicate.metadataCompare(key: "s", .equal, .int(5)).matches(sample))
        XCTAssertFalse(QueryPredicate.metadataCompare(key: "s", .lessThan, .int(5)).matches(sample))
        XCTAssertTrue(QueryPredicate.metadataCompare(key: "s", .notEqual, .int(5)).matches(sample))
        XCTAssertFalse(QueryPredicate.metadataCompare(key: "missing", .notEqual, .int(5)).matches(sample))
        XCTAssertFalse(QueryPredicate.metadataCompare(key: "missing", .equal, .int(5)).matches(sample))
    }

    func testMetadataIn() {
        let sample = F.quantity(metadata: ["n": .int(2), "s": .string("a")])
        XCTAssertTrue(QueryPredicate.metadataIn(key: "n", [.int(1), .double(2)]).matches(sample))
        XCTAssertFalse(QueryPredicate.metadataIn(key: "n", [.string("2")]).matches(sample))
        XCTAssertTrue(QueryPredicate.metadataIn(key: "s", [.string("a")]).matches(sample))
        XCTAssertFalse(QueryPredicate.metadataIn(key: "missing", [.int(2)]).matches(sample))
        XCTAssertFalse(QueryPredicate.metadataIn(key: "n", []).matches(sample))
    }

    // MARK: values

    func testQuantityComparesAfterUnitConversion() {
        let mass = F.quantity(F.bodyMass, 70, "kg")
        XCTAssertTrue(QueryPredicate.quantity(.greaterThan, Quantity(150, "lb")).matches(mass))
        XCTAssertFalse(QueryPredicate.quantity(.greaterThan, Quantity(160, "lb")).matches(mass))
        XCTAssertTrue(QueryPredicate.quantity(.equal, Quantity(70_000, "g")).matches(mass))
        let pounds = F.quantity(F.bodyMass, 154, "lb")
        XCTAssertTrue(QueryPredicate.quantity(.greaterThan, Quantity(69.8, "kg")).matches(pounds))
        XCTAssertFalse(QueryPredicate.quantity(.equal, Quantity(70, "count")).matches(mass), "incompatible operand")
        XCTAssertFalse(QueryPredicate.quantity(.equal, Quantity(1, "count")).matches(F.category()), "not a quantity sample")
    }

    func testQuantityOperatorsOnCounts() {
        let steps = F.quantity(F.steps, 100, "count")
        let table: [(ComparisonOperator, Double, Bool)] = [
            (.lessThan, 100, false), (.lessThan, 101, true), (.lessThanOrEqual, 100, true), (.greaterThan, 100, false),
            (.greaterThan, 99, true), (.greaterThanOrEqual, 100, true), (.equal, 100, true), (.notEqual, 100, false),
        ]
        for (op, value, want) in table {
            XCTAssertEqual(QueryPredicate.quantity(op, Quantity(value, "count")).matches(steps), want, "\(op) \(value)")
        }
    }

    func testCategoryValue() {
        let deep = F.category(F.sleep, 4)
        XCTAssertTrue(QueryPredicate.categoryValue(.equal, 4).matches(deep))
        XCTAssertTrue(QueryPredicate.categoryValue(.greaterThanOrEqual, 3).matches(deep))
        XCTAssertFalse(QueryPredicate.categoryValue(.lessThan, 4).matches(deep))
        XCTAssertTrue(QueryPredicate.categoryValueIn([1, 3, 4, 5]).matches(deep))
        XCTAssertFalse(QueryPredicate.categoryValueIn([0, 2]).matches(deep))
        XCTAssertFalse(QueryPredicate.categoryValue(.equal, 10).matches(F.quantity(F.steps, 10)), "not a category sample")
        XCTAssertFalse(QueryPredicate.categoryValueIn([10]).matches(F.quantity(F.steps, 10)))
    }

    // MARK: workouts and relations

    func testWorkoutActivityType() {
        XCTAssertTrue(QueryPredicate.workoutActivityType(37).matches(F.workout(Workout(activityType: 37))))
        XCTAssertFalse(QueryPredicate.workoutActivityType(52).matches(F.workout(Workout(activityType: 37))))
        XCTAssertFalse(QueryPredicate.workoutActivityType(37).matches(F.quantity()))
    }

    func testWorkoutDurationUsesExplicitOrActiveDuration() {
        let m = F.minute
        let explicit = F.workout(Workout(activityType: 37, duration: 20 * m), end: s + 30 * m)
        XCTAssertTrue(QueryPredicate.workoutDuration(.equal, 20 * m).matches(explicit))
        let plain = F.workout(Workout(activityType: 37), end: s + 30 * m)
        XCTAssertTrue(QueryPredicate.workoutDuration(.equal, 30 * m).matches(plain))
        // Paused 5–10 min, a redundant pause at 7, motion-paused 20–22: 30 − 5 − 2 = 23 min active.
        let events = [
            WorkoutEvent(type: .pause, start: s + 5 * m, end: s + 5 * m),
            WorkoutEvent(type: .pause, start: s + 7 * m, end: s + 7 * m),
            WorkoutEvent(type: .resume, start: s + 10 * m, end: s + 10 * m),
            WorkoutEvent(type: .lap, start: s + 15 * m, end: s + 15 * m),
            WorkoutEvent(type: .motionPaused, start: s + 20 * m, end: s + 20 * m),
            WorkoutEvent(type: .motionResumed, start: s + 22 * m, end: s + 22 * m),
        ]
        let paused = F.workout(Workout(activityType: 37, events: events.reversed()), end: s + 30 * m)
        XCTAssertTrue(QueryPredicate.workoutDuration(.equal, 23 * m).matches(paused))
        XCTAssertTrue(QueryPredicate.workoutDuration(.lessThan, 30 * m).matches(paused))
        // Paused and never resumed: active until the pause only.
        let stopped = F.workout(Workout(activityType: 37, events: [WorkoutEvent(type: .pause, start: s + 5 * m, end: s + 5 * m)]),
                                end: s + 30 * m)
        XCTAssertTrue(QueryPredicate.workoutDuration(.equal, 5 * m).matches(stopped))
        XCTAssertFalse(QueryPredicate.workoutDuration(.greaterThan, 0).matches(F.quantity()))
    }

    func testNoCorrelationReadsTheContext() {
        let sample = F.quantity(F.systolic, 120, "mmHg")
        XCTAssertTrue(QueryPredicate.noCorrelation.matches(sample))
        XCTAssertFalse(QueryPredicate.noCorrelation.matches(sample, context: PredicateContext(isInCorrelation: true)))
    }

    /// `noCorrelation` holds for every sample of a type no correlation holds, so a read of such types
    /// leaves it out (a lone leaf or an `allOf`'s conjunct); with a type a correlation may hold among
    /// them, or anywhere else in the tree, it stays.
    func testNoCorrelationIsLeftOutForTypesNoCorrelationHolds() {
        let dietary = "HKQuantityTypeIdentifierDietaryEnergyConsumed"
        let range = QueryPredicate.dateRange(DateRange(start: s, end: e))
        XCTAssertNil(QueryPredicate.noCorrelation.reduced(forTypes: [F.heartRate]))
        XCTAssertNil(QueryPredicate.allOf([.noCorrelation]).reduced(forTypes: [F.heartRate, "HKCorrelationTypeIdentifierBloodPressure"]))
        XCTAssertEqual(QueryPredicate.allOf([range, .noCorrelation, .noCorrelation]).reduced(forTypes: [F.heartRate]), .allOf([range]))
        XCTAssertEqual(range.reduced(forTypes: [F.heartRate]), range)
        for held in [F.systolic, F.diastolic, dietary] {
            XCTAssertEqual(QueryPredicate.noCorrelation.reduced(forTypes: [held]), .noCorrelation)
            XCTAssertEqual(QueryPredicate.allOf([range, .noCorrelation]).reduced(forTypes: [F.heartRate, held]), .allOf([range, .noCorrelation]))
        }
        XCTAssertEqual(QueryPredicate.not(.noCorrelation).reduced(forTypes: [F.heartRate]), .not(.noCorrelation))
        XCTAssertEqual(QueryPredicate.anyOf([range, .noCorrelation]).reduced(forTypes: [F.heartRate]), .anyOf([range, .noCorrelation]))
    }

    func testWorkoutAssociationReadsTheContext() {
        let workout = UUID()
        let sample = F.quantity()
        XCTAssertFalse(QueryPredicate.workout(workout).matches(sample))
        XCTAssertTrue(QueryPredicate.workout(workout).matches(sample, context: PredicateContext(associatedWorkouts: [UUID(), workout])))
    }

    // MARK: compounds

    func testCompoundAndOrNot() {
        let sample = F.quantity(F.steps, 100, "count", metadata: ["k": .int(1)])
        let yes = QueryPredicate.metadataExists(key: "k")
        let no = QueryPredicate.metadataExists(key: "nope")
        XCTAssertTrue(QueryPredicate.allOf([yes, yes]).matches(sample))
        XCTAssertFalse(QueryPredicate.allOf([yes, no]).matches(sample))
        XCTAssertTrue(QueryPredicate.anyOf([no, yes]).matches(sample))
        XCTAssertFalse(QueryPredicate.anyOf([no, no]).matches(sample))
        XCTAssertTrue(QueryPredicate.not(no).matches(sample))
        XCTAssertFalse(QueryPredicate.not(yes).matches(sample))
        XCTAssertTrue(QueryPredicate.allOf([]).matches(sample))
        XCTAssertFalse(QueryPredicate.anyOf([]).matches(sample))
        XCTAssertTrue(QueryPredicate.not(.categoryValue(.equal, 1)).matches(sample), "an inapplicable leaf negates to true")
        let nested = QueryPredicate.allOf([.dateRange(DateRange(start: s, end: e)), .anyOf([no, .not(.uuids([sample.uuid])), yes])])
        XCTAssertTrue(nested.matches(sample))
    }

    // MARK: validate()

    private func assertInvalid(_ predicate: QueryPredicate, types: [String] = [], field: String,
                               file: StaticString = #filePath, line: UInt = #line) {
        do {
            try predicate.validate(forTypes: types)
            XCTFail("expected \(predicate) to be invalid", file: file, line: line)
        } catch {
            XCTAssertEqual(error.code, .invalidArgument, file: file, line: line)
            XCTAssertEqual(error.field, field, "\(error)", file: file, line: line)
        }
    }

    func testValidateAcceptsWellFormedPredicates() throws {
        try QueryPredicate.allOf([.dateRange(DateRange(start: s, end: e)), .not(.uuids([])),
                                  .quantity(.greaterThan, Quantity(60, "count/min"))]).validate(forTypes: [F.heartRate])
        try QueryPredicate.categoryValueIn([1]).validate(forTypes: [F.sleep])
        try QueryPredicate.workoutDuration(.greaterThan, 1).validate(forTypes: [F.workoutType])
        try QueryPredicate.metadataCompare(key: "k", .equal, .quantity(Quantity(1, "m"))).validate()
    }

    func testValidateRejectsEmptyCompounds() {
        assertInvalid(.allOf([]), field: "predicate")
        assertInvalid(.not(.anyOf([])), field: "predicate")
        assertInvalid(.anyOf([.noCorrelation, .allOf([])]), field: "predicate")
    }

    func testValidateRejectsBadMetadataLeaves() {
        assertInvalid(.metadataExists(key: ""), field: "predicate.metadata.key")
        assertInvalid(.metadataCompare(key: "k", .equal, .double(.nan)), field: "predicate.metadata.value")
        assertInvalid(.metadataIn(key: "k", [.int(1), .quantity(Quantity(1, "parsecs!"))]), field: "predicate.metadata.value")
    }

    func testValidateRejectsQuantityLeavesThatCannotApply() {
        assertInvalid(.quantity(.equal, Quantity(1, "kg")), types: [F.steps], field: "predicate.quantity")
        assertInvalid(.quantity(.equal, Quantity(.infinity, "count")), field: "predicate.quantity")
        assertInvalid(.quantity(.equal, Quantity(1, "count")), types: [F.sleep], field: "predicate")
    }

    func testValidateRejectsKindSpecificLeavesOnOtherKinds() {
        assertInvalid(.categoryValue(.equal, 1), types: [F.steps], field: "predicate")
        assertInvalid(.workoutActivityType(37), types: [F.sleep], field: "predicate")
        assertInvalid(.not(.workoutDuration(.lessThan, 1)), types: [F.steps], field: "predicate")
    }

    func testValidateRejectsMalformedSourceRevisionPatterns() {
        assertInvalid(.sourceRevisions([SourceRevisionPattern(bundleID: "")]), field: "predicate.source_revisions")
        assertInvalid(.sourceRevisions([SourceRevisionPattern(bundleID: "a", osVersion: [1, 2])]), field: "predicate.source_revisions")
    }
}

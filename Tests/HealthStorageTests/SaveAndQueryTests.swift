import Foundation
import HealthModel
@testable import HealthStorage
import XCTest

final class SaveAndQueryTests: StoreTestCase {
    func testSavedSampleComesBackWithRevisionDeviceAndOriginalUnit() async throws {
        try await forEachEngine {
            let f = try await StoreFixture()
            let sample = StoreFixture.heartRate(s(100), s(160), bpm: 72, metadata: ["HKWasUserEntered": .bool(true), "note": .string("x")])
            try await expect(await f.save([sample]), [.stored])
            let found = try await f.query()
            XCTAssertEqual(found.count, 1)
            let stored = try XCTUnwrap(found.first)
            XCTAssertEqual(stored.uuid, sample.uuid)
            XCTAssertEqual(stored.quantity, Quantity(72, "count/min"))
            XCTAssertEqual(stored.metadata, sample.metadata)
            XCTAssertEqual(stored.device, StoreFixture.watchDevice)
            XCTAssertEqual(stored.sourceRevision?.source, StoreFixture.watch)
            XCTAssertEqual(stored.sourceRevision?.version, "1.0")
            XCTAssertNotNil(stored.creationTime)
            let stats = try await f.store.statisticsSamples(owner: f.owner, type: StoreFixture.heartRate, predicate: nil,
                                                            scope: .everything(callerBundleID: "x"))
            XCTAssertEqual(stats.count, 1)
            XCTAssertEqual(stats[0].value, 1.2, accuracy: 1e-12)
            XCTAssertTrue(stats[0].wasUserEntered)
            await f.store.close()
        }
    }

    func testSchemaIsCreatedFromAnEmptyFileAndReopens() async throws {
        try await forEachEngine {
            let f = try await StoreFixture()
            try await f.save([StoreFixture.heartRate(s(1))])
            try await f.reopen()
            try await expect(await f.query().count, 1)
            let db = try f.connect()
            let version = try db.prepareOnce(f.isSQLite ? "PRAGMA user_version" : "SELECT version FROM schema_version")
            _ = try version.step()
            XCTAssertEqual(Int(version.int(0)), f.isSQLite ? Schema.currentVersion : PostgreSQLSchema.currentVersion)
            try await expect(await f.store.listOwners().map(\.name), ["alice"])
            await f.store.close()
        }
    }

    func testClosedStoreLeavesNoWAL() async throws {
        try await forEachEngine {
            let f = try await StoreFixture()
            guard f.isSQLite else { return }  // SQLite's write-ahead log file
            try await f.save((0..<2_000).map { StoreFixture.heartRate(s(Int64($0))) })
            await f.store.close()
            let wal = (try? FileManager.default.attributesOfItem(atPath: f.path + "-wal")[.size] as? Int) ?? 0
            XCTAssertEqual(wal, 0, "the WAL is checkpointed into the file and truncated when the writer stops")
            try await f.reopen()
            try await expect(await f.query().count, 2_000)
            await f.store.close()
        }
    }

    func testCorrelationIsStoredWithChildrenAndChildrenAreSamples() async throws {
        try await forEachEngine {
            let f = try await StoreFixture()
            let systolic = Sample(type: StoreFixture.systolic, start: s(10), end: s(10), body: .quantity(Quantity(120, "mmHg"), count: 1))
            let diastolic = Sample(type: StoreFixture.diastolic, start: s(10), end: s(10), body: .quantity(Quantity(80, "mmHg"), count: 1))
            let pressure = Sample(type: StoreFixture.bloodPressure, start: s(10), end: s(10), body: .correlation([systolic, diastolic]))
            try await expect(await f.save([pressure]), [.stored])
            let correlations = try await f.query([StoreFixture.bloodPressure])
            XCTAssertEqual(correlations.count, 1)
            XCTAssertEqual(Set(correlations[0].correlationObjects?.map(\.uuid) ?? []), [systolic.uuid, diastolic.uuid])
            try await expect(await f.query([StoreFixture.systolic]).map(\.uuid), [systolic.uuid])
            try await expect(await f.query([StoreFixture.systolic], .noCorrelation), [])
            // Deleting the correlation deletes its children.
            let deleted = try await f.store.deleteObjects(uuids: [pressure.uuid], by: Deleter(owner: f.owner, bundleID: StoreFixture.watch.bundleID, isOwner: false))
            XCTAssertEqual(deleted, 1)
            try await expect(await f.query([StoreFixture.systolic, StoreFixture.diastolic]), [])
            XCTAssertEqual(try f.count("tombstones"), 3)
            await f.store.close()
        }
    }

    func testWorkoutRoundTripsWithPartsAndAssociations() async throws {
        try await forEachEngine {
            let f = try await StoreFixture()
            let hr = StoreFixture.heartRate(s(100))
            let workout = Workout(activityType: 37, events: [WorkoutEvent(type: .pause, start: s(200), end: s(200)),
                                                             WorkoutEvent(type: .resume, start: s(260), end: s(260))],
                                  activities: [WorkoutActivity(uuid: UUID(), activityType: 37, start: s(0), end: s(600))],
                                  statistics: [WorkoutStatistic(quantityType: StoreFixture.heartRate, average: Quantity(120, "count/min"))],
                                  associatedSampleUUIDs: [hr.uuid])
            let sample = Sample(type: StoreFixture.workout, start: s(0), end: s(600), body: .workout(workout))
            try await f.save([hr, sample])
            let found = try await f.query([StoreFixture.workout], .workoutDuration(.equal, s(540)))
            // Saved without a duration, it reads back with its derived active duration (HKWorkout.duration).
            XCTAssertEqual(found.first?.workout, Workout(activityType: workout.activityType, duration: s(540), events: workout.events,
                                                         activities: workout.activities, statistics: workout.statistics,
                                                         associatedSampleUUIDs: workout.associatedSampleUUIDs))
            try await expect(await f.query([StoreFixture.workout], .workoutActivityType(37)).count, 1)
            try await expect(await f.query([StoreFixture.workout], .workoutActivityType(36)).count, 0)
            try await expect(await f.query([StoreFixture.heartRate], .workout(sample.uuid)).map(\.uuid), [hr.uuid])
            // Retrying the same workout is a no-op.
            try await expect(await f.save([sample]), [.alreadyStored])
            // So is retrying it as a reader saw it (an export imported again): readers get the heart-rate
            // statistic derived from the associated sample, not the 120 count/min the app gave.
            func retry(_ statistics: [WorkoutStatistic]) -> Sample {
                Sample(uuid: sample.uuid, type: sample.type, start: sample.start, end: sample.end,
                       body: .workout(Workout(activityType: 37, events: workout.events, activities: workout.activities,
                                              statistics: statistics, associatedSampleUUIDs: [hr.uuid])))
            }
            try await expect(await f.save([retry([WorkoutStatistic(quantityType: StoreFixture.heartRate, average: Quantity(1, "count/s"),
                                                                   minimum: Quantity(1, "count/s"), maximum: Quantity(1, "count/s"))])]),
                             [.alreadyStored])
            // A total of a type with no associated sample is kept as given, so a different one is refused.
            do {
                try await f.save([retry(workout.statistics + [WorkoutStatistic(quantityType: StoreFixture.steps, sum: Quantity(10, "count"))])])
                XCTFail("a workout with a different kept total under a stored UUID was accepted")
            } catch let error as HealthError {
                XCTAssertEqual(error.field, "uuid")
            }
            await f.store.close()
        }
    }

    func testCharacteristicsMergeAndSourcePriority() async throws {
        try await forEachEngine {
            let f = try await StoreFixture()
            try await expect(await f.store.characteristics(owner: f.owner), Characteristics())
            try await f.store.writeCharacteristics(owner: f.owner, Characteristics(biologicalSex: 1, dateOfBirth: CalendarDay(year: 1990, month: 4, day: 2)))
            try await f.store.writeCharacteristics(owner: f.owner, Characteristics(bloodType: 3))
            try await expect(await f.store.characteristics(owner: f.owner),
                           Characteristics(biologicalSex: 1, bloodType: 3, dateOfBirth: CalendarDay(year: 1990, month: 4, day: 2)))
            try await f.store.setSourcePriority(owner: f.owner, type: StoreFixture.steps, bundleIDs: ["b", "a", "b"])
            try await expect(await f.store.sourcePriority(owner: f.owner, type: StoreFixture.steps), ["b", "a"])
            try await f.save([StoreFixture.heartRate(s(1))])
            try await f.save([StoreFixture.heartRate(s(2))], source: StoreFixture.scale)
            let firstSeen = try await f.store.sourcesFirstSeen(owner: f.owner, type: StoreFixture.heartRate)
            XCTAssertEqual(firstSeen.map(\.0.bundleID), [StoreFixture.watch.bundleID, StoreFixture.scale.bundleID])
            await f.store.close()
        }
    }
}

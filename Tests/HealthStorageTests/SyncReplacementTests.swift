import XCTest
import Foundation
import HealthModel
@testable import HealthStorage

/// docs/semantics.md §7.3: a greater sync version replaces the old object, in its workouts and correlation too;
/// a deleted object leaves them, and they are reported again; a deleted workout stays findable by
/// activity type for anchored queries.
final class SyncReplacementTests: StoreTestCase {
    private static func synced(_ version: Int64, _ identifier: String = "s") -> Metadata {
        [MetadataKey.syncIdentifier: .string(identifier), MetadataKey.syncVersion: .int(version)]
    }

    private static func systolic(_ mmHg: Double, metadata: Metadata = [:]) -> Sample {
        Sample(type: StoreFixture.systolic, start: s(10), end: s(10), metadata: metadata, body: .quantity(Quantity(mmHg, "mmHg"), count: 1))
    }

    private static func pressure(systolic: Sample) -> Sample {
        let diastolic = Sample(type: StoreFixture.diastolic, start: s(10), end: s(10), body: .quantity(Quantity(80, "mmHg"), count: 1))
        return Sample(type: StoreFixture.bloodPressure, start: s(10), end: s(10), body: .correlation([systolic, diastolic]))
    }

    private static func workout(with uuids: [UUID]) -> Sample {
        Sample(type: StoreFixture.workout, start: s(0), end: s(600),
               body: .workout(Workout(activityType: 37, associatedSampleUUIDs: uuids)))
    }

    func testReplacementTakesTheOldObjectsPlaceInItsWorkout() async throws {
        try await forEachEngine {
            let f = try await StoreFixture()
            let a = StoreFixture.heartRate(s(100), bpm: 60, metadata: Self.synced(1))
            let workout = Self.workout(with: [a.uuid])
            try await f.save([a, workout])
            let before = try await f.anchor()
            let newer = StoreFixture.heartRate(s(100), bpm: 61, metadata: Self.synced(2))
            try await expect(await f.save([newer]), [.replaced])
            let stored = try await f.query([StoreFixture.workout])
            XCTAssertEqual(stored.first?.workout?.associatedSampleUUIDs, [newer.uuid])
            // The workout changed, so an anchored query reports it again, holding the new sample.
            let workoutChanges = try await f.store.queryAnchored(owner: f.owner, types: [StoreFixture.workout], predicate: nil, anchor: before,
                                                                 limit: 0, scope: .everything(callerBundleID: "x"))
            XCTAssertEqual(workoutChanges.samples.map { $0.workout?.associatedSampleUUIDs }, [[newer.uuid]])
            XCTAssertEqual(workoutChanges.deleted, [])
            try await expect(await f.query([StoreFixture.heartRate], .workout(workout.uuid)).map(\.uuid), [newer.uuid])
            let changes = try await f.store.queryAnchored(owner: f.owner, types: [StoreFixture.heartRate], predicate: nil, anchor: nil,
                                                          limit: 0, scope: .everything(callerBundleID: "x"))
            XCTAssertEqual(changes.deleted.map(\.uuid), [a.uuid])
            await f.store.close()
        }
    }

    func testStandaloneReplacementTakesTheOldReadingsPlaceInItsCorrelation() async throws {
        try await forEachEngine {
            let f = try await StoreFixture()
            let old = Self.systolic(120, metadata: Self.synced(1))
            let correlation = Self.pressure(systolic: old)
            try await f.save([correlation])
            let before = try await f.anchor()
            let newer = Self.systolic(125, metadata: Self.synced(2))
            try await expect(await f.save([newer]), [.replaced])
            let stored = try await f.query([StoreFixture.bloodPressure])
            let children = Set(stored.first?.correlationObjects?.map(\.uuid) ?? [])
            XCTAssertTrue(children.contains(newer.uuid))
            XCTAssertFalse(children.contains(old.uuid))
            XCTAssertEqual(children.count, 2)
            try await expect(await f.query([StoreFixture.systolic], .noCorrelation), [])
            // The correlation changed, so an anchored query reports it again, holding the new reading.
            let changes = try await f.store.queryAnchored(owner: f.owner, types: [StoreFixture.bloodPressure], predicate: nil, anchor: before,
                                                          limit: 0, scope: .everything(callerBundleID: "x"))
            XCTAssertEqual(changes.samples.map(\.uuid), [correlation.uuid])
            XCTAssertEqual(Set(changes.samples.first?.correlationObjects?.map(\.uuid) ?? []), children)
            // Deleting it afterwards takes every reading along, the replacement included.
            let deleted = try await f.store.deleteObjects(uuids: [correlation.uuid],
                                                          by: Deleter(owner: f.owner, bundleID: StoreFixture.watch.bundleID, isOwner: true))
            XCTAssertEqual(deleted, 1)
            try await expect(await f.query([StoreFixture.systolic, StoreFixture.diastolic]), [])
            await f.store.close()
        }
    }

    func testReplacementSavedInsideACorrelationKeepsItsOwnCorrelation() async throws {
        try await forEachEngine {
            let f = try await StoreFixture()
            let old = Self.systolic(120, metadata: Self.synced(1))
            let first = Self.pressure(systolic: old)
            try await f.save([first])
            let newer = Self.systolic(125, metadata: Self.synced(2))
            let second = Self.pressure(systolic: newer)
            try await expect(await f.save([second]), [.stored])
            let stored = try await f.query([StoreFixture.bloodPressure])
            let byUUID = Dictionary(uniqueKeysWithValues: stored.map { ($0.uuid, Set($0.correlationObjects?.map(\.uuid) ?? [])) })
            XCTAssertEqual(byUUID[second.uuid]?.contains(newer.uuid), true)
            XCTAssertEqual(byUUID[first.uuid]?.contains(newer.uuid), false)
            XCTAssertEqual(byUUID[first.uuid]?.contains(old.uuid), false)
            // The first correlation lost a reading: it is reported again, with the one it kept.
            let changes = try await f.store.queryAnchored(owner: f.owner, types: [StoreFixture.bloodPressure], predicate: nil, anchor: nil,
                                                          limit: 0, scope: .everything(callerBundleID: "x"))
            XCTAssertEqual(changes.samples.map(\.uuid), [second.uuid, first.uuid])
            XCTAssertEqual(changes.samples.last?.correlationObjects?.count, 1)
            await f.store.close()
        }
    }

    func testDeletedObjectLeavesItsCorrelationAndWorkoutWhichAreReportedAgain() async throws {
        try await forEachEngine {
            let f = try await StoreFixture()
            let reading = Self.systolic(120)
            let correlation = Self.pressure(systolic: reading)
            let heartRate = StoreFixture.heartRate(s(100))
            let workout = Self.workout(with: [heartRate.uuid])
            try await f.save([correlation, heartRate, workout])
            let before = try await f.anchor()
            let deleter = Deleter(owner: f.owner, bundleID: StoreFixture.watch.bundleID, isOwner: false)
            let deleted = try await f.store.deleteObjects(uuids: [reading.uuid, heartRate.uuid], by: deleter)
            XCTAssertEqual(deleted, 2)
            let changes = try await f.store.queryAnchored(owner: f.owner, types: [StoreFixture.bloodPressure, StoreFixture.workout],
                                                          predicate: nil, anchor: before, limit: 0, scope: .everything(callerBundleID: "x"))
            XCTAssertEqual(Set(changes.samples.map(\.uuid)), [correlation.uuid, workout.uuid])
            XCTAssertEqual(changes.samples.first { $0.uuid == correlation.uuid }?.correlationObjects?.map(\.type), [StoreFixture.diastolic])
            XCTAssertEqual(changes.samples.first { $0.uuid == workout.uuid }?.workout?.associatedSampleUUIDs, [])
            XCTAssertEqual(changes.deleted, [])
            // Deleting the correlation itself takes its last reading along and reports one deletion.
            try await expect(await f.store.deleteObjects(uuids: [correlation.uuid], by: deleter), 1)
            try await expect(await f.query([StoreFixture.systolic, StoreFixture.diastolic]), [])
            let gone = try await f.store.queryAnchored(owner: f.owner, types: [StoreFixture.bloodPressure], predicate: nil, anchor: before,
                                                       limit: 0, scope: .everything(callerBundleID: "x"))
            XCTAssertEqual(gone.samples, [])
            XCTAssertEqual(gone.deleted.map(\.uuid), [correlation.uuid])
            await f.store.close()
        }
    }

    func testCorrelationReadingCannotBeReplacedByAnotherType() async throws {
        try await forEachEngine {
            let f = try await StoreFixture()
            try await f.save([Self.pressure(systolic: Self.systolic(120, metadata: Self.synced(1)))])
            do {
                try await f.save([StoreFixture.heartRate(s(10), metadata: Self.synced(2))])
                XCTFail("a heart rate cannot take a systolic reading's place")
            } catch let error as HealthError {
                XCTAssertEqual(error.code, .invalidArgument)
            }
            await f.store.close()
        }
    }

    func testEqualOrLowerVersionMovesNothing() async throws {
        try await forEachEngine {
            let f = try await StoreFixture()
            let a = StoreFixture.heartRate(s(100), metadata: Self.synced(2))
            let workout = Self.workout(with: [a.uuid])
            let reading = Self.systolic(120, metadata: Self.synced(2, "bp"))
            let correlation = Self.pressure(systolic: reading)
            try await f.save([a, workout, correlation])
            try await expect(await f.save([StoreFixture.heartRate(s(100), bpm: 70, metadata: Self.synced(2)),
                                           StoreFixture.heartRate(s(100), bpm: 71, metadata: Self.synced(1)),
                                           Self.systolic(130, metadata: Self.synced(1, "bp"))]),
                             [.keptExisting, .keptExisting, .keptExisting])
            try await expect(await f.query([StoreFixture.workout]).first?.workout?.associatedSampleUUIDs, [a.uuid])
            let children = try await f.query([StoreFixture.bloodPressure]).first?.correlationObjects?.map(\.uuid) ?? []
            XCTAssertTrue(children.contains(reading.uuid))
            XCTAssertEqual(try f.count("tombstones"), 0)
            await f.store.close()
        }
    }

    func testDeletedWorkoutIsReportedToAnAnchoredQueryFilteredByItsActivityType() async throws {
        try await forEachEngine {
            let f = try await StoreFixture()
            let running = Self.workout(with: [])
            try await f.save([running])
            let deleted = try await f.store.deleteObjects(uuids: [running.uuid], by: Deleter(owner: f.owner, bundleID: StoreFixture.watch.bundleID, isOwner: true))
            XCTAssertEqual(deleted, 1)
            func deletions(_ activityType: Int32) async throws -> [UUID] {
                try await f.store.queryAnchored(owner: f.owner, types: [StoreFixture.workout], predicate: .workoutActivityType(activityType),
                                                anchor: nil, limit: 0, scope: .everything(callerBundleID: "x")).deleted.map(\.uuid)
            }
            try await expect(await deletions(37), [running.uuid])
            try await expect(await deletions(36), [])
            await f.store.close()
        }
    }
}

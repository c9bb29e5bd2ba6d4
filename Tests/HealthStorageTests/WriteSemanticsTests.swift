import Foundation
import HealthModel
@testable import HealthStorage
import XCTest

final class WriteSemanticsTests: StoreTestCase {
    func testIdenticalRetryIsAlreadyStoredAndChangedContentIsRefused() async throws {
        try await forEachEngine {
            let f = try await StoreFixture()
            let sample = StoreFixture.heartRate(s(10), bpm: 70, metadata: ["k": .int(1)])
            try await expect(await f.save([sample]), [.stored])
            try await expect(await f.save([sample]), [.alreadyStored])
            let changed = StoreFixture.heartRate(s(10), bpm: 71, uuid: sample.uuid, metadata: ["k": .int(1)])
            do {
                try await f.save([StoreFixture.heartRate(s(1)), changed])
                XCTFail("different content under a stored UUID must fail")
            } catch let error as HealthError {
                XCTAssertEqual(error.code, .invalidArgument)
                XCTAssertEqual(error.objectIndex, 1)
            }
            do {
                try await f.save([sample], source: StoreFixture.scale)
                XCTFail("the same UUID from another source must fail")
            } catch let error as HealthError {
                XCTAssertEqual(error.code, .invalidArgument)
            }
            try await expect(await f.query().count, 1)
            await f.store.close()
        }
    }

    /// Plain samples go many to an INSERT on both engines: each still gets the outcome it would have
    /// had alone, over more rows than one statement takes, with a UUID repeated in the batch, beside
    /// objects that read what the batch stored before them, and a refusal names the first bad object.
    func testEverySampleOfALargeBatchGetsItsOwnOutcome() async throws {
        try await forEachEngine {
            let f = try await StoreFixture()
            let first = (0..<1_201).map { StoreFixture.heartRate(s(Int64($0)), bpm: Double(60 + $0 % 50)) }
            try await expect(await f.save(first), Array(repeating: .stored, count: first.count))
            let repeated = StoreFixture.heartRate(s(5_000))
            let synced = StoreFixture.heartRate(s(5_001), metadata: [MetadataKey.syncIdentifier: .string("r"), MetadataKey.syncVersion: .int(1)])
            let resynced = StoreFixture.heartRate(s(5_002), metadata: [MetadataKey.syncIdentifier: .string("r"), MetadataKey.syncVersion: .int(2)])
            let workout = Sample(type: StoreFixture.workout, start: s(4_990), end: s(5_010),
                                 body: .workout(Workout(activityType: 37, associatedSampleUUIDs: [repeated.uuid])))
            try await expect(await f.save([first[7], repeated, repeated, synced, resynced, workout, first[8]]),
                             [.alreadyStored, .stored, .alreadyStored, .stored, .replaced, .stored, .alreadyStored])
            try await expect(await f.query().count, first.count + 2)

            let changed = StoreFixture.heartRate(s(9), bpm: 200, uuid: first[9].uuid)
            let unknown = Sample(type: "HKQuantityTypeIdentifierNoSuchThing", start: s(1), end: s(1), body: .quantity(Quantity(1, "count"), count: 1))
            do {
                try await f.save([StoreFixture.heartRate(s(6_000)), changed, StoreFixture.heartRate(s(6_001)), unknown])
                XCTFail("different content under a stored UUID must fail")
            } catch let error as HealthError {
                XCTAssertEqual(error.objectIndex, 1)
                XCTAssertEqual(error.field, "uuid")
            }
            try await expect(await f.query().count, first.count + 2)
            await f.store.close()
        }
    }

    /// A retry in a batch of many is recognised from the stored row's values; any one field that
    /// differs (metadata, device, a value written in another unit, the span) still refuses it.
    func testARetryInABatchMustRepeatEveryField() async throws {
        try await forEachEngine {
            let f = try await StoreFixture()
            let meta: Metadata = ["k": .int(1), "q": .quantity(Quantity(56, "degF"))]
            let plain = StoreFixture.heartRate(s(10), bpm: 70, metadata: meta, device: StoreFixture.watchDevice)
            let perSecond = Sample(type: StoreFixture.heartRate, start: s(20), end: s(20), body: .quantity(Quantity(1.5, "count/s"), count: 1))
            let filler = StoreFixture.heartRate(s(30))
            try await expect(await f.save([plain, perSecond, filler]), [.stored, .stored, .stored])
            try await expect(await f.save([plain, perSecond, filler]), [.alreadyStored, .alreadyStored, .alreadyStored])
            let changes = [
                StoreFixture.heartRate(s(10), bpm: 70, uuid: plain.uuid, metadata: ["k": .int(2), "q": .quantity(Quantity(56, "degF"))],
                                       device: StoreFixture.watchDevice),
                StoreFixture.heartRate(s(10), bpm: 70, uuid: plain.uuid, metadata: meta, device: Device(name: "Other")),
                StoreFixture.heartRate(s(10), s(11), bpm: 70, uuid: plain.uuid, metadata: meta, device: StoreFixture.watchDevice),
                Sample(uuid: perSecond.uuid, type: StoreFixture.heartRate, start: s(20), end: s(20), body: .quantity(Quantity(90, "count/min"), count: 1)),
            ]
            for changed in changes {
                do {
                    try await f.save([filler, changed])
                    XCTFail("different content under a stored UUID must fail: \(changed)")
                } catch let error as HealthError {
                    XCTAssertEqual(error.objectIndex, 1)
                    XCTAssertEqual(error.field, "uuid")
                }
            }
            try await expect(await f.query().count, 3)
            await f.store.close()
        }
    }

    func testSyncVersionReplacesOnlyWhenGreater() async throws {
        try await forEachEngine {
            let f = try await StoreFixture()
            func versioned(_ version: Int64, bpm: Double) -> Sample {
                StoreFixture.heartRate(s(10), bpm: bpm, metadata: [MetadataKey.syncIdentifier: .string("rec-1"), MetadataKey.syncVersion: .int(version)])
            }
            let first = versioned(2, bpm: 60)
            try await expect(await f.save([first]), [.stored])
            try await expect(await f.save([versioned(2, bpm: 61)]), [.keptExisting])
            try await expect(await f.save([versioned(1, bpm: 62)]), [.keptExisting])
            let newer = versioned(3, bpm: 63)
            try await expect(await f.save([newer]), [.replaced])
            try await expect(await f.query().map(\.uuid), [newer.uuid])
            // Another source's identical sync identifier is its own record.
            try await expect(await f.save([versioned(1, bpm: 64)], source: StoreFixture.scale), [.stored])
            let changes = try await f.store.queryAnchored(owner: f.owner, types: [StoreFixture.heartRate], predicate: nil, anchor: nil,
                                                          limit: 0, scope: .everything(callerBundleID: "x"))
            XCTAssertEqual(changes.deleted.map(\.uuid), [first.uuid])
            XCTAssertEqual(changes.deleted.first?.metadata, [MetadataKey.syncIdentifier: .string("rec-1"), MetadataKey.syncVersion: .int(2)])
            await f.store.close()
        }
    }

    func testFailedBatchLeavesNothingBehind() async throws {
        try await forEachEngine {
            let f = try await StoreFixture()
            let stored = StoreFixture.heartRate(s(1))
            try await f.save([stored])
            let bad = StoreFixture.heartRate(s(2), bpm: 99, uuid: stored.uuid)
            let newDevice = Device(name: "never stored")
            do {
                _ = try await f.store.save(f.batch([StoreFixture.heartRate(s(3)), StoreFixture.heartRate(s(4)), bad], version: "9.9", device: newDevice))
                XCTFail("batch must fail")
            } catch let error as HealthError {
                XCTAssertEqual(error.objectIndex, 2)
            }
            try await expect(await f.query().map(\.uuid), [stored.uuid])
            XCTAssertEqual(try f.count("devices"), 1)
            XCTAssertEqual(try f.count("revisions"), 1)
            // The store keeps working after the rollback, reusing nothing it rolled back.
            _ = try await f.store.save(f.batch([StoreFixture.heartRate(s(5))], version: "9.9", device: newDevice))
            try await expect(await f.query().count, 2)
            await f.store.close()
        }
    }

    func testOneBadBatchInAGroupCommitFailsAlone() async throws {
        try await forEachEngine {
            let f = try await StoreFixture()
            let stored = StoreFixture.heartRate(s(1))
            try await f.save([stored])
            let store = f.store, owner = f.owner
            let results = await withTaskGroup(of: (Int, Bool).self) { group in
                for index in 0..<40 {
                    let batch = f.batch(index == 17 ? [StoreFixture.heartRate(s(100)), StoreFixture.heartRate(s(2), bpm: 1, uuid: stored.uuid)]
                                                    : [StoreFixture.heartRate(s(Int64(index) + 10)), StoreFixture.heartRate(s(Int64(index) + 500))])
                    group.addTask { (index, (try? await store.save(batch)) != nil) }
                }
                var all: [Int: Bool] = [:]
                for await (index, ok) in group { all[index] = ok }
                return all
            }
            XCTAssertEqual(results.filter { !$0.value }.map(\.key), [17])
            let count = try await store.querySamples(owner: owner, types: [StoreFixture.heartRate], predicate: nil, sort: [], limit: 0,
                                                     scope: .everything(callerBundleID: "x")).count
            XCTAssertEqual(count, 1 + 39 * 2)
            await f.store.close()
        }
    }

    func testRevisionsAndDevicesAreDeduplicated() async throws {
        try await forEachEngine {
            let f = try await StoreFixture()
            for round in 0..<20 {
                try await f.save([StoreFixture.heartRate(s(Int64(round))), StoreFixture.heartRate(s(Int64(round) + 100), device: StoreFixture.watchDevice)])
            }
            try await f.reopen()
            try await f.save([StoreFixture.heartRate(s(1000))])
            XCTAssertEqual(try f.count("samples"), 41)
            XCTAssertEqual(try f.count("revisions"), 1)
            XCTAssertEqual(try f.count("devices"), 1)
            XCTAssertEqual(try f.count("sources"), 1)
            await f.store.close()
        }
    }

    func testDeleteRules() async throws {
        try await forEachEngine {
            let f = try await StoreFixture()
            let mine = StoreFixture.heartRate(s(1)), theirs = StoreFixture.heartRate(s(2))
            try await f.save([mine])
            try await f.save([theirs], source: StoreFixture.scale)
            let app = Deleter(owner: f.owner, bundleID: StoreFixture.watch.bundleID, isOwner: false)
            for uuids in [[], [UUID()], [mine.uuid, theirs.uuid]] {
                do {
                    _ = try await f.store.deleteObjects(uuids: uuids, by: app)
                    XCTFail("delete of \(uuids) must fail")
                } catch let error as HealthError {
                    XCTAssertEqual(error.code, .invalidArgument)
                }
            }
            try await expect(await f.query().count, 2, "a failed delete deletes nothing")
            try await expect(await f.store.deleteObjects(type: StoreFixture.heartRate, predicate: nil, by: app), 1)
            try await expect(await f.query().map(\.uuid), [theirs.uuid])
            let owner = Deleter(owner: f.owner, bundleID: Principal.healthApp.bundleID, isOwner: true)
            try await expect(await f.store.deleteObjects(uuids: [theirs.uuid], by: owner), 1)
            try await expect(await f.query().count, 0)
            await f.store.close()
        }
    }

    func testOwnersNeverSeeEachOthersRows() async throws {
        try await forEachEngine {
            let f = try await StoreFixture()
            let (bob, _) = try await f.store.addOwner(name: "bob")
            let shared = StoreFixture.heartRate(s(1))
            try await f.save([shared])
            // The same UUID is independent per owner.
            try await expect(await f.save([shared], owner: bob), [.stored])
            try await f.save([StoreFixture.heartRate(s(2))], owner: bob)
            try await expect(await f.query().count, 1)
            try await expect(await f.query(owner: bob).count, 2)
            let bobDeleter = Deleter(owner: bob, bundleID: "x", isOwner: true)
            try await expect(await f.store.deleteObjects(type: StoreFixture.heartRate, predicate: nil, by: bobDeleter), 2)
            try await expect(await f.query().count, 1)
            let aliceAnchor = try await f.store.currentAnchor(owner: f.owner)
            do {
                _ = try await f.store.queryAnchored(owner: bob, types: [StoreFixture.heartRate], predicate: nil, anchor: aliceAnchor, limit: 0,
                                                   scope: .everything(callerBundleID: "x"))
                XCTFail("another owner's anchor must be refused")
            } catch let error as HealthError {
                XCTAssertEqual(error.code, .invalidAnchor)
            }
            await f.store.close()
        }
    }

    func testReadScopeShowsOnlyOwnRowsOfUnreadableTypes() async throws {
        try await forEachEngine {
            let f = try await StoreFixture()
            let mine = StoreFixture.heartRate(s(1))
            try await f.save([mine, StoreFixture.sleep(s(1), s(2), value: 1)])
            try await f.save([StoreFixture.heartRate(s(2)), StoreFixture.sleep(s(3), s(4), value: 2)], source: StoreFixture.scale)
            let denied = ReadScope(callerBundleID: StoreFixture.watch.bundleID, readableTypes: [StoreFixture.sleep])
            try await expect(await f.query(scope: denied).map(\.uuid), [mine.uuid])
            try await expect(await f.query([StoreFixture.sleep], scope: denied).count, 2)
            try await expect(await f.query([StoreFixture.heartRate, StoreFixture.sleep], scope: denied).count, 3)
            let sources = try await f.store.querySources(owner: f.owner, type: StoreFixture.heartRate, predicate: nil, scope: denied)
            XCTAssertEqual(sources.map(\.bundleID), [StoreFixture.watch.bundleID])
            let stranger = ReadScope(callerBundleID: "com.example.none", readableTypes: [])
            try await expect(await f.query(scope: stranger).count, 0)
            try await expect(await f.store.statisticsSamples(owner: f.owner, type: StoreFixture.heartRate, predicate: nil, scope: stranger).count, 0)
            try await expect(await f.store.queryDevices(owner: f.owner, type: nil, scope: stranger).count, 0)
            try await expect(await f.store.queryDevices(owner: f.owner, type: nil, scope: .everything(callerBundleID: "x")), [StoreFixture.watchDevice])
            await f.store.close()
        }
    }
}

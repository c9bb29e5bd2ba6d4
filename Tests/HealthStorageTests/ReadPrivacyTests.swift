import Foundation
import HealthModel
@testable import HealthStorage
import XCTest

/// docs/semantics.md decision 7 at the storage layer: nothing a read-restricted caller gets back depends on data it
/// may not read.
final class ReadPrivacyTests: StoreTestCase {
    func testDeletingAnotherSourcesObjectFailsLikeDeletingAnUnknownOne() async throws {
        try await forEachEngine {
            let f = try await StoreFixture()
            let theirs = StoreFixture.heartRate(s(1))
            try await f.save([theirs], source: StoreFixture.scale)
            let app = Deleter(owner: f.owner, bundleID: StoreFixture.watch.bundleID, isOwner: false)
            var messages: [String] = []
            for uuid in [theirs.uuid, UUID()] {
                do {
                    _ = try await f.store.deleteObjects(uuids: [uuid], by: app)
                    XCTFail("deleting \(uuid) must fail")
                } catch let error as HealthError {
                    XCTAssertEqual(error.code, .invalidArgument)
                    messages.append(error.message.replacingOccurrences(of: uuid.uuidString, with: "<uuid>"))
                }
            }
            XCTAssertEqual(messages[0], messages[1])
            await f.store.close()
        }
    }

    private static func bloodPressure(systolic: Double?, diastolic: Double?, at second: Int64) -> Sample {
        var readings: [Sample] = []
        if let systolic { readings.append(reading(StoreFixture.systolic, systolic, at: second)) }
        if let diastolic { readings.append(reading(StoreFixture.diastolic, diastolic, at: second)) }
        return Sample(type: StoreFixture.bloodPressure, start: s(second), end: s(second), body: .correlation(readings))
    }

    private static func reading(_ type: String, _ value: Double, at second: Int64) -> Sample {
        Sample(type: type, start: s(second), end: s(second), body: .quantity(Quantity(value, "mmHg"), count: 1))
    }

    /// The caller reads systolic only; the scale saved correlations, three holding only diastolic.
    func testCorrelationsWithoutReadableReadingsAreInvisibleBeforeTheLimit() async throws {
        try await forEachEngine {
            let f = try await StoreFixture()
            let hidden = (0..<3).map { Self.bloodPressure(systolic: nil, diastolic: 80, at: Int64($0)) }
            let shown = [Self.bloodPressure(systolic: 120, diastolic: 80, at: 10), Self.bloodPressure(systolic: 121, diastolic: nil, at: 11)]
            try await f.save(hidden + shown, source: StoreFixture.scale)
            let scope = ReadScope(callerBundleID: StoreFixture.watch.bundleID, readableTypes: [StoreFixture.systolic])
            let sorted = [SampleSortDescriptor(.startDate)]
            let limited = try await f.query([StoreFixture.bloodPressure], sort: sorted, limit: 2, scope: scope)
            XCTAssertEqual(limited.map(\.uuid), shown.map(\.uuid))
            XCTAssertEqual(limited.map { $0.correlationObjects?.map(\.type) }, [[StoreFixture.systolic], [StoreFixture.systolic]])
            let anchored = try await f.store.queryAnchored(owner: f.owner, types: [StoreFixture.bloodPressure], predicate: nil, anchor: nil,
                                                           limit: 2, scope: scope)
            XCTAssertEqual(anchored.samples.map(\.uuid), shown.map(\.uuid))
            // Deleted, a correlation is reported only where it was visible while stored.
            let everything = Deleter(owner: f.owner, bundleID: Principal.healthApp.bundleID, isOwner: true)
            try await expect(await f.store.deleteObjects(uuids: [hidden[0].uuid, shown[0].uuid], by: everything), 2)
            let afterDelete = try await f.store.queryAnchored(owner: f.owner, types: [StoreFixture.bloodPressure], predicate: nil, anchor: nil,
                                                              limit: 0, scope: scope)
            XCTAssertEqual(afterDelete.deleted.map(\.uuid), [shown[0].uuid])
            XCTAssertEqual(afterDelete.samples.map(\.uuid), [shown[1].uuid])
            await f.store.close()
        }
    }

    func testSourcesOfACorrelationTypeAreThoseOfReadableCorrelations() async throws {
        try await forEachEngine {
            let f = try await StoreFixture()
            try await f.save([Self.bloodPressure(systolic: nil, diastolic: 80, at: 0)], source: StoreFixture.scale)
            let systolicOnly = ReadScope(callerBundleID: StoreFixture.watch.bundleID, readableTypes: [StoreFixture.systolic])
            let neither = ReadScope(callerBundleID: StoreFixture.watch.bundleID, readableTypes: [])
            for scope in [systolicOnly, neither] {
                try await expect(await f.store.querySources(owner: f.owner, type: StoreFixture.bloodPressure, predicate: nil, scope: scope), [])
                try await expect(await f.query([StoreFixture.bloodPressure], scope: scope), [])
            }
            try await f.save([Self.bloodPressure(systolic: 118, diastolic: nil, at: 1)], source: StoreFixture.scale)
            try await expect(await f.store.querySources(owner: f.owner, type: StoreFixture.bloodPressure, predicate: nil, scope: systolicOnly),
                             [StoreFixture.scale])
            // The caller's own correlations are always whole.
            try await f.save([Self.bloodPressure(systolic: nil, diastolic: 70, at: 2)])
            try await expect(await f.query([StoreFixture.bloodPressure], scope: neither).map { $0.correlationObjects?.count }, [1])
            await f.store.close()
        }
    }

    private func anchored(_ f: StoreFixture, _ anchor: Data?, scope: ReadScope, limit: Int = 0) async throws -> AnchoredResult {
        try await f.store.queryAnchored(owner: f.owner, types: [StoreFixture.heartRate], predicate: nil, anchor: anchor, limit: limit, scope: scope)
    }

    /// The anchor is the position of the last object returned: other sources' writes never move it.
    func testAnchorMovesOnlyWithWhatTheCallerIsGiven() async throws {
        try await forEachEngine {
            let f = try await StoreFixture()
            let scope = ReadScope(callerBundleID: StoreFixture.watch.bundleID, readableTypes: [])
            let empty = try await anchored(f, nil, scope: scope)
            try await f.save([StoreFixture.heartRate(s(1))], source: StoreFixture.scale)
            try await expect(await anchored(f, nil, scope: scope).newAnchor, empty.newAnchor, "nothing returned from no anchor: position 0")
            try await expect(await anchored(f, empty.newAnchor, scope: scope).newAnchor, empty.newAnchor)
            let mine = StoreFixture.heartRate(s(2))
            try await f.save([mine])
            let own = try await anchored(f, empty.newAnchor, scope: scope)
            XCTAssertEqual(own.samples.map(\.uuid), [mine.uuid])
            try await f.save([StoreFixture.heartRate(s(3))], source: StoreFixture.scale)
            _ = try await f.store.deleteObjects(type: StoreFixture.heartRate, predicate: nil,
                                                by: Deleter(owner: f.owner, bundleID: StoreFixture.scale.bundleID, isOwner: false))
            try await expect(await anchored(f, own.newAnchor, scope: scope).newAnchor, own.newAnchor)
            // Sealed: neither the owner's id nor the position can be read from the bytes.
            let key = try f.anchorKey()
            XCTAssertEqual(try AnchorToken(decoding: own.newAnchor, key: key, owner: f.owner.rawValue).sequence, 2)
            for value in [f.owner.rawValue, 2] {
                XCTAssertNil(own.newAnchor.range(of: withUnsafeBytes(of: value.bigEndian) { Data($0) }))
            }
            // The server's own continuation does move past the others' writes.
            XCTAssertEqual(try AnchorToken(decoding: own.scannedThrough, key: key, owner: f.owner.rawValue).sequence, 2)
            let later = try await anchored(f, own.newAnchor, scope: scope)
            XCTAssertEqual(try AnchorToken(decoding: later.scannedThrough, key: key, owner: f.owner.rawValue).sequence, 5)
            await f.store.close()
        }
    }

    /// An anchor expires when a deletion its holder could be shown was purged, and only then: a
    /// resync gives an anchor that works even when its last object is older than the purged
    /// deletions, and other sources' purges of unreadable data never expire a restricted caller's.
    func testExpiryCountsOnlyPurgedDeletionsTheCallerCouldSeeAndResyncWorks() async throws {
        try await forEachEngine {
            let f = try await StoreFixture()
            let everything = ReadScope.everything(callerBundleID: "x")
            let samples = (1...3).map { StoreFixture.heartRate(s($0)) }
            try await f.save(samples)
            try await f.save([StoreFixture.heartRate(s(9))], source: StoreFixture.scale)
            let restricted = ReadScope(callerBundleID: StoreFixture.scale.bundleID, readableTypes: [])
            let scaleAnchor = try await anchored(f, nil, scope: restricted).newAnchor
            let first = try await anchored(f, nil, scope: everything)
            let page = try await anchored(f, nil, scope: everything, limit: 1)
            _ = try await f.store.deleteObjects(uuids: [samples[2].uuid], by: Deleter(owner: f.owner, bundleID: "x", isOwner: true))
            try await expect(await f.store.purgeExpiredTombstones(now: Time.now() + 91 * 86_400_000_000), 1)
            for stale in [first.newAnchor, page.newAnchor] {
                do {
                    _ = try await anchored(f, stale, scope: everything)
                    XCTFail("an anchor whose holder missed a purged deletion must expire")
                } catch let error as HealthError {
                    XCTAssertEqual(error.code, .anchorExpired)
                }
            }
            try await expect(await anchored(f, scaleAnchor, scope: restricted).newAnchor, scaleAnchor)
            let resync = try await anchored(f, nil, scope: everything)
            XCTAssertEqual(resync.samples.count, 3)
            try await expect(await anchored(f, resync.newAnchor, scope: everything).newAnchor, resync.newAnchor)
            // An anchor that was given nothing never expires.
            let nothing = try await f.store.queryAnchored(owner: f.owner, types: [StoreFixture.steps], predicate: nil, anchor: nil, limit: 0,
                                                          scope: everything)
            try await expect(await f.store.queryAnchored(owner: f.owner, types: [StoreFixture.steps], predicate: nil, anchor: nothing.newAnchor,
                                                         limit: 0, scope: everything).newAnchor, nothing.newAnchor)
            await f.store.close()
        }
    }
}

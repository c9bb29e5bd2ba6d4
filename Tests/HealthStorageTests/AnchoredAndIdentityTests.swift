import Foundation
import HealthModel
@testable import HealthStorage
import Synchronization
import XCTest

final class AnchoredAndIdentityTests: StoreTestCase {
    private let everything = ReadScope.everything(callerBundleID: "x")

    func testAnchorPagingReturnsSamplesAndTombstonesInOrderWithoutGaps() async throws {
        try await forEachEngine {
            let f = try await StoreFixture()
            let samples = (0..<7).map { StoreFixture.heartRate(s(Int64($0))) }
            try await f.save(samples)
            let owner = Deleter(owner: f.owner, bundleID: "x", isOwner: true)
            _ = try await f.store.deleteObjects(uuids: [samples[1].uuid, samples[4].uuid], by: owner)
            let late = StoreFixture.heartRate(s(99))
            try await f.save([late])
            // Sequence: 7 inserts, 2 deletions, 1 insert; pages of 3 must walk it exactly once.
            var anchor: Data?
            var inserted: [UUID] = [], deleted: [UUID] = []
            var pages = 0
            while true {
                let page = try await f.store.queryAnchored(owner: f.owner, types: [StoreFixture.heartRate], predicate: nil, anchor: anchor,
                                                           limit: 3, scope: everything)
                XCTAssertLessThanOrEqual(page.samples.count + page.deleted.count, 3)
                inserted += page.samples.map(\.uuid)
                deleted += page.deleted.map(\.uuid)
                anchor = page.newAnchor
                pages += 1
                if page.samples.isEmpty && page.deleted.isEmpty { break }
            }
            XCTAssertEqual(inserted, [0, 2, 3, 5, 6].map { samples[$0].uuid } + [late.uuid])
            XCTAssertEqual(deleted, [samples[1].uuid, samples[4].uuid])
            XCTAssertEqual(pages, 4)
            // The last page returned nothing and handed the anchor back; it is at the current position.
            let current = try AnchorToken(decoding: try await f.store.currentAnchor(owner: f.owner), key: f.anchorKey(), owner: f.owner.rawValue)
            XCTAssertEqual(try AnchorToken(decoding: anchor!, key: f.anchorKey(), owner: f.owner.rawValue).sequence, current.sequence)
            await f.store.close()
        }
    }

    /// Several types are read as separate streams merged by anchor (or, when they are every stored
    /// type, by the primary key): either way pages walk the interleaved sequence exactly once.
    func testAnchorPagingInterleavesTypesInAnchorOrder() async throws {
        let f = try await StoreFixture()
        var saved: [Sample] = []
        for i in 0..<9 {
            let sample = i % 3 == 2 ? StoreFixture.sleep(s(Int64(i)), s(Int64(i) + 1), value: 0)
                : Sample(type: i % 3 == 0 ? StoreFixture.heartRate : StoreFixture.steps, start: s(Int64(i)), end: s(Int64(i) + 1),
                         body: .quantity(Quantity(Double(i), i % 3 == 0 ? "count/min" : "count"), count: 1))
            try await f.save([sample])
            saved.append(sample)
        }
        let owner = Deleter(owner: f.owner, bundleID: "x", isOwner: true)
        _ = try await f.store.deleteObjects(uuids: [saved[3].uuid, saved[2].uuid], by: owner)
        for types in [[StoreFixture.heartRate, StoreFixture.steps], [StoreFixture.heartRate, StoreFixture.steps, StoreFixture.sleep]] {
            var anchor: Data?
            var inserted: [UUID] = [], deleted: [UUID] = []
            while true {
                let page = try await f.store.queryAnchored(owner: f.owner, types: types, predicate: nil, anchor: anchor, limit: 2, scope: everything)
                inserted += page.samples.map(\.uuid)
                deleted += page.deleted.map(\.uuid)
                anchor = page.newAnchor
                if page.samples.isEmpty && page.deleted.isEmpty { break }
            }
            let expected = saved.enumerated().filter { ![2, 3].contains($0.offset) && types.contains($0.element.type) }.map(\.element.uuid)
            XCTAssertEqual(inserted, expected, "\(types)")
            XCTAssertEqual(deleted, [saved[3].uuid, saved[2].uuid].filter { id in types.contains(saved.first { $0.uuid == id }!.type) }, "\(types)")
        }
        await f.store.close()
    }

    /// Plain quantity and category rows come back as table rows naming a shared type, unit, device
    /// and revision; a sample with metadata or another body comes back whole. Either way an anchored
    /// read returns the samples querySamples returns, whole or cut by a limit.
    func testAnchoredReadReturnsPlainRowsAsQuerySamplesDoes() async throws {
        try await forEachEngine {
            let f = try await StoreFixture()
            let band = Device(name: "Band", manufacturer: "Example")
            let pressure = Sample(type: StoreFixture.bloodPressure, start: s(5), end: s(5), body: .correlation([
                Sample(type: StoreFixture.systolic, start: s(5), end: s(5), body: .quantity(Quantity(120, "mmHg"), count: 1)),
                Sample(type: StoreFixture.diastolic, start: s(5), end: s(5), body: .quantity(Quantity(80, "mmHg"), count: 1)),
            ]))
            try await f.save([StoreFixture.heartRate(s(1)), StoreFixture.heartRate(s(2), bpm: 70, device: band),
                              StoreFixture.sleep(s(3), s(4), value: 1), pressure,
                              StoreFixture.heartRate(s(6), metadata: ["note": .string("x")]),
                              Sample(type: StoreFixture.heartRate, start: s(7), end: s(7), body: .quantity(Quantity(1.25, "count/s"), count: 1))])
            try await f.save([Sample(type: StoreFixture.steps, start: s(8), end: s(9), body: .quantity(Quantity(40, "count"), count: 1)),
                              StoreFixture.heartRate(s(10), bpm: 65)], source: StoreFixture.scale)
            let types = [StoreFixture.heartRate, StoreFixture.sleep, StoreFixture.bloodPressure, StoreFixture.steps]
            let queried = try await f.query(types)
            XCTAssertEqual(queried.count, 8)
            let anchored = try await f.store.queryAnchored(owner: f.owner, types: types, predicate: nil, anchor: nil, limit: 0, scope: everything)
            XCTAssertEqual(Array(anchored.samples), queried)
            XCTAssertEqual(anchored.samples.wholes.map(\.type), [StoreFixture.bloodPressure, StoreFixture.heartRate])
            XCTAssertEqual(anchored.samples.devices.map(\.name), ["Watch", "Band"])
            XCTAssertEqual(anchored.samples.revisions.map(\.source), [StoreFixture.watch, StoreFixture.scale])
            XCTAssertEqual(Set(anchored.samples.units), ["count/min", "count/s", "count"])
            let cut = try await f.store.queryAnchored(owner: f.owner, types: types, predicate: nil, anchor: nil, limit: 5, scope: everything)
            XCTAssertEqual(Array(cut.samples), Array(queried.prefix(5)))
            await f.store.close()
        }
    }

    /// A streamed sync over plain rows mixed with metadata, empty metadata, a correlation with its
    /// readings and a workout returns what querySamples returns, in parts of any size, and keeps
    /// whole exactly the samples a table row cannot carry.
    func testStreamedSyncOverPlainAndWholeRowsReturnsWhatQuerySamplesReturns() async throws {
        try await forEachEngine {
            let f = try await StoreFixture()
            let pressure = Sample(type: StoreFixture.bloodPressure, start: s(3), end: s(3), body: .correlation([
                Sample(type: StoreFixture.systolic, start: s(3), end: s(3), body: .quantity(Quantity(120, "mmHg"), count: 1)),
                Sample(type: StoreFixture.diastolic, start: s(3), end: s(3), body: .quantity(Quantity(80, "mmHg"), count: 1)),
            ]))
            try await f.save([StoreFixture.heartRate(s(1)), StoreFixture.heartRate(s(2), metadata: ["note": .string("x")]), pressure,
                              StoreFixture.sleep(s(4), s(5), value: 1), StoreFixture.heartRate(s(6), metadata: [:]),
                              Sample(type: StoreFixture.workout, start: s(7), end: s(600), body: .workout(Workout(activityType: 37))),
                              Sample(type: StoreFixture.systolic, start: s(8), end: s(8), body: .quantity(Quantity(118, "mmHg"), count: 1)),
                              StoreFixture.heartRate(s(9), bpm: 72)])
            let types = [StoreFixture.heartRate, StoreFixture.sleep, StoreFixture.bloodPressure, StoreFixture.systolic, StoreFixture.workout]
            let queried = try await f.query(types)
            XCTAssertEqual(queried.count, 9)
            for partRows in [1, 2, 100] {
                let stream = try await f.store.streamAnchored(owner: f.owner, types: types, predicate: nil, anchor: nil, limit: 0,
                                                              scope: everything, partRows: partRows)
                var streamed: [Sample] = []
                var wholes: [String] = []
                for try await part in stream.samples {
                    streamed += Array(part.samples)
                    wholes += part.samples.wholes.map(\.type)
                }
                XCTAssertEqual(streamed, queried, "parts of \(partRows)")
                XCTAssertEqual(wholes, [StoreFixture.heartRate, StoreFixture.bloodPressure, StoreFixture.workout], "parts of \(partRows)")
            }
            await f.store.close()
        }
    }

    func testAnchoredPredicateFiltersTombstonesToo() async throws {
        try await forEachEngine {
            let f = try await StoreFixture()
            let early = StoreFixture.heartRate(s(10)), later = StoreFixture.heartRate(s(500))
            try await f.save([early, later])
            let start = try await f.store.currentAnchor(owner: f.owner)
            _ = try await f.store.deleteObjects(uuids: [early.uuid, later.uuid], by: Deleter(owner: f.owner, bundleID: "x", isOwner: true))
            let page = try await f.store.queryAnchored(owner: f.owner, types: [StoreFixture.heartRate],
                                                       predicate: .dateRange(DateRange(start: s(100), end: nil)), anchor: start, limit: 0,
                                                       scope: everything)
            XCTAssertEqual(page.deleted.map(\.uuid), [later.uuid])
            XCTAssertEqual(page.deleted.first?.type, StoreFixture.heartRate)
            await f.store.close()
        }
    }

    func testDamagedForeignAndExpiredAnchorsAreRefused() async throws {
        try await forEachEngine {
            let f = try await StoreFixture()
            try await f.save([StoreFixture.heartRate(s(1))])
            let anchor = try await f.store.currentAnchor(owner: f.owner)
            var damaged = anchor
            damaged[damaged.count - 6] ^= 0x01
            let other = try await StoreFixture()
            let foreign = try await other.store.currentAnchor(owner: other.owner)
            for bad in [damaged, Data([1, 2, 3]), foreign] {
                do {
                    _ = try await f.store.queryAnchored(owner: f.owner, types: [StoreFixture.heartRate], predicate: nil, anchor: bad, limit: 0, scope: everything)
                    XCTFail("anchor must be refused")
                } catch let error as HealthError {
                    XCTAssertEqual(error.code, .invalidAnchor)
                }
            }
            _ = try await f.store.deleteObjects(type: StoreFixture.heartRate, predicate: nil, by: Deleter(owner: f.owner, bundleID: "x", isOwner: true))
            // Tombstones older than the retention are purged; anchors from before them expire.
            try await expect(await f.store.purgeExpiredTombstones(now: Time.now() + 91 * 86_400_000_000), 1)
            do {
                _ = try await f.store.queryAnchored(owner: f.owner, types: [StoreFixture.heartRate], predicate: nil, anchor: anchor, limit: 0, scope: everything)
                XCTFail("expired anchor must be refused")
            } catch let error as HealthError {
                XCTAssertEqual(error.code, .anchorExpired)
            }
            let fresh = try await f.store.currentAnchor(owner: f.owner)
            try await expect(await f.store.queryAnchored(owner: f.owner, types: [StoreFixture.heartRate], predicate: nil, anchor: fresh, limit: 0,
                                                         scope: everything).samples.count, 0)
            await f.store.close()
            await other.store.close()
        }
    }

    func testChangeFeedReportsEachCommitPerOwner() async throws {
        try await forEachEngine {
            let f = try await StoreFixture()
            let events = Mutex<[ChangeEvent]>([])
            let token = f.store.subscribe { event in
                if case .data(let change) = event { events.withLock { $0.append(change) } }
            }
            let sleep = StoreFixture.sleep(s(1), s(2), value: 0)
            try await f.save([StoreFixture.heartRate(s(5)), StoreFixture.heartRate(s(1)), sleep])
            let deleted = try await f.store.deleteObjects(uuids: [sleep.uuid], by: Deleter(owner: f.owner, bundleID: StoreFixture.watch.bundleID, isOwner: false))
            XCTAssertEqual(deleted, 1)
            await f.store.close()
            let seen = events.withLock { $0 }
            XCTAssertEqual(seen.count, 2)
            XCTAssertEqual(seen.first?.owner, f.owner)
            XCTAssertEqual(seen.first?.types, [StoreFixture.heartRate, StoreFixture.sleep])
            // Each type's span covers every object of it the commit touched, deletions included.
            XCTAssertEqual(seen.first?.spans, [StoreFixture.heartRate: TimeSpan(start: s(1), end: s(5)),
                                               StoreFixture.sleep: TimeSpan(start: s(1), end: s(2))])
            XCTAssertEqual(seen.last?.spans, [StoreFixture.sleep: TimeSpan(start: s(1), end: s(2))])
            XCTAssertEqual(seen.first?.sources, [StoreFixture.watch.bundleID])
            f.store.unsubscribe(token)
        }
    }

    /// The writer publishes a commit's change before it answers the commit's savers, so an observer
    /// may hear of a change before the saver does; but only once it is committed: a reader started
    /// as the event is heard finds the change.
    func testAChangeHeardOnTheFeedIsCommittedAndReadable() async throws {
        try await forEachEngine {
            let f = try await StoreFixture()
            let store = f.store
            let (owner, scope) = (f.owner, ReadScope.everything(callerBundleID: "x"))
            let (readOnHearing, heard) = AsyncStream.makeStream(of: Int.self)
            let token = store.subscribe { event in
                guard case .data = event else { return }
                // Holds the feed (and so the next event) until the read is answered.
                let answered = DispatchSemaphore(value: 0)
                Task {
                    let count = try? await store.querySamples(owner: owner, types: [StoreFixture.heartRate], predicate: nil, sort: [],
                                                              limit: 0, scope: scope).count
                    heard.yield(count ?? -1)
                    answered.signal()
                }
                answered.wait()
            }
            for i in 1...40 { try await f.save([StoreFixture.heartRate(s(Int64(i)))]) }
            var counts: [Int] = []
            for await count in readOnHearing {
                counts.append(count)
                if counts.count == 40 { break }
            }
            store.unsubscribe(token)
            await store.close()
            // The saver may be answered, and save again, before the read: a read finds at least the change heard.
            let missed = zip(1..., counts).filter { heard, read in read < heard }
            XCTAssertEqual(missed.map(\.0), [], "changes heard before they could be read (event number, samples read): \(missed)")
        }
    }

    func testTokensAuthenticateRotateAndRevoke() async throws {
        try await forEachEngine {
            let f = try await StoreFixture()
            let (owner, ownerToken) = try await f.store.addOwner(name: "carol")
            let operatorToken = try await f.store.ensureOperatorToken()
            XCTAssertNotNil(operatorToken)
            try await expect(await f.store.ensureOperatorToken(), nil)
            try await expect(await f.store.authenticate(token: operatorToken!)?.role, .serverOperator)
            let principal = try await f.store.authenticate(token: ownerToken)
            XCTAssertEqual(principal, Principal(role: .owner, owner: owner, ownerName: "carol", source: Principal.healthApp))
            let appToken = try await f.store.registerApp(owner: owner, bundleID: "com.example.app", name: "App")
            XCTAssertEqual(appToken.count, 43)
            try await expect(await f.store.authenticate(token: appToken)?.source, Source(name: "App", bundleID: "com.example.app"))
            let rotated = try await f.store.rotateAppToken(owner: owner, bundleID: "com.example.app")
            try await expect(await f.store.authenticate(token: appToken), nil)
            try await expect(await f.store.authenticate(token: rotated)?.role, .app)
            try await f.store.revokeApp(owner: owner, bundleID: "com.example.app")
            try await expect(await f.store.authenticate(token: rotated), nil)
            try await expect(await f.store.listApps(owner: owner).map(\.revoked), [true])
            try await expect(await f.store.authenticate(token: "nonsense"), nil)
            do {
                _ = try await f.store.addOwner(name: "carol")
                XCTFail("duplicate owner name must fail")
            } catch let error as HealthError {
                XCTAssertEqual(error.code, .invalidArgument)
            }
            // Only the hash is stored.
            let db = try f.connect()
            let hashes = try db.prepareOnce("SELECT hash FROM tokens")
            while try hashes.step() { XCTAssertEqual(hashes.blob(0)?.count, 32) }
            await f.store.close()
        }
    }

    func testPermissionsAndPendingRequests() async throws {
        try await forEachEngine {
            let f = try await StoreFixture()
            let request = AuthorizationUpdate(bundleID: "com.example.app", type: StoreFixture.heartRate, direction: .read, state: .pending)
            try await f.store.setPermissions(owner: f.owner, [request,
                                                              AuthorizationUpdate(bundleID: "com.example.app", type: StoreFixture.steps, direction: .share, state: .pending)])
            try await expect(await f.store.pendingRequests(owner: f.owner, bundleID: nil).count, 2)
            try await f.store.setPermissions(owner: f.owner, [AuthorizationUpdate(bundleID: "com.example.app", type: StoreFixture.heartRate, direction: .read, state: .granted)])
            try await expect(await f.store.pendingRequests(owner: f.owner, bundleID: "com.example.app").map(\.0.type), [StoreFixture.steps])
            try await expect(await f.store.permissions(owner: f.owner, bundleID: "com.example.app").map(\.state), [.granted, .pending])
            try await expect(await f.store.permissions(owner: f.owner, bundleID: "other").count, 0)
            await f.store.close()
        }
    }
}

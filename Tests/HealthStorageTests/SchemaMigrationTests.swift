import Foundation
import HealthModel
@testable import HealthStorage
import XCTest

/// Stores written by an older server open migrated, with every sample as it was saved.
final class SchemaMigrationTests: XCTestCase {
    private static let created: Microseconds = 1_700_000_000_000_000

    /// Step 8 narrows sample rows (the unit only when not canonical, end and creation time as offsets
    /// from the start): rows written at step 7 read back unchanged, and their UUIDs stay taken.
    func testStoreFromStep7KeepsEverySampleReadableAndUnique() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("hs-migration-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("store.sqlite").path
        let canonical = UUID(), converted = UUID(), category = UUID()
        try Self.writeStep7Store(path: path, canonical: canonical, converted: converted, category: category)

        let store = try SQLiteStore.open(path: path)
        let owner = OwnerID(1)
        let everything = ReadScope.everything(callerBundleID: "x")
        let rates = try await store.querySamples(owner: owner, types: [StoreFixture.heartRate], predicate: nil,
                                                 sort: [SampleSortDescriptor(.startDate)], limit: 0, scope: everything)
        XCTAssertEqual(rates.map(\.uuid), [canonical, converted])
        XCTAssertEqual(rates.map(\.quantity), [Quantity(1.5, "count/s"), Quantity(72, "count/min")])
        XCTAssertEqual(rates.map(\.end), [s(160), s(200)])
        XCTAssertEqual(rates.map(\.creationTime), [Self.created, Self.created])
        let sleeps = try await store.querySamples(owner: owner, types: [StoreFixture.sleep], predicate: .dateRange(DateRange(start: s(800), end: nil)),
                                                  sort: [], limit: 0, scope: everything)
        XCTAssertEqual(sleeps.map(\.uuid), [category])
        XCTAssertEqual(sleeps.first?.body, .category(1))
        XCTAssertEqual(sleeps.first?.end, s(900))

        let revision = SourceRevision(source: StoreFixture.watch, version: "1.0", productType: nil, osMajor: 10, osMinor: 1, osPatch: 0)
        func save(_ sample: Sample) async throws -> [SaveOutcome] {
            try await store.save(SaveBatch(owner: owner, revision: revision, defaultDevice: nil, objects: [sample]))
        }
        // A retry of a migrated sample is recognised; its UUID with other content is refused.
        try await expect(await save(Sample(uuid: canonical, type: StoreFixture.heartRate, start: s(100), end: s(160),
                                           body: .quantity(Quantity(1.5, "count/s"), count: 1))), [.alreadyStored])
        do {
            _ = try await save(StoreFixture.heartRate(s(500), uuid: converted))
            XCTFail("a migrated UUID was stored twice")
        } catch let error as HealthError {
            XCTAssertEqual(error.field, "uuid")
        }
        try await expect(await save(StoreFixture.heartRate(s(600))), [.stored])
        try await expect(await store.querySamples(owner: owner, types: [StoreFixture.heartRate], predicate: nil, sort: [], limit: 0,
                                                  scope: everything).count, 3)
        await store.close()

        // The migrated row keeps no canonical unit and its times as offsets.
        let db = try SQLiteConnection(path: path, readOnly: true)
        let row = try db.prepareOnce("SELECT unit, duration, created_offset FROM samples WHERE owner = 1 AND anchor = 1")
        XCTAssertTrue(try row.step())
        XCTAssertNil(row.text(0))
        XCTAssertEqual(row.int(1), s(60))
        XCTAssertEqual(row.int(2), Self.created - s(100))
    }

    /// Step 11 gives each owner its own interned rows and app ids: two owners whose samples shared
    /// a type, source, revision and device row read them as before, their apps' tokens still work
    /// (and rotate per owner), and what one owner adds afterwards is its own.
    func testStoreFromStep10KeepsBothOwnersRowsAndTokens() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("hs-migration-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("store.sqlite").path
        let (aliceToken, bobToken) = ("alice-app-token", "bob-app-token")
        let (aliceSample, bobSample) = (UUID(), UUID())
        do {
            let db = try SQLiteConnection(path: path, readOnly: false)
            try Schema.migrate(db, to: 10)
            try db.execute("""
                INSERT INTO owners (id, name, created, last_anchor) VALUES (1, 'alice', 0, 1), (2, 'bob', 0, 1);
                INSERT INTO types (id, identifier) VALUES (1, '\(StoreFixture.heartRate)');
                INSERT INTO sources (id, bundle_id) VALUES (1, '\(StoreFixture.watch.bundleID)');
                INSERT INTO revisions (id, key, source, name, version, os_major, os_minor, os_patch) VALUES (1, x'00', 1, 'Watch', '1.0', 10, 1, 0);
                INSERT INTO devices (id, key, name) VALUES (1, x'01', 'Wrist');
                INSERT INTO apps (id, owner, bundle_id, name, created) VALUES (1, 1, '\(StoreFixture.watch.bundleID)', 'Watch', 0),
                                                                       (2, 2, '\(StoreFixture.watch.bundleID)', 'Watch', 0);
                INSERT INTO type_sources (owner, type, source, first_seen) VALUES (1, 1, 1, 0), (2, 1, 1, 0);
                """)
            let token = try db.prepare("INSERT INTO tokens (hash, kind, owner, app, created) VALUES (?, 1, ?, ?, 0)")
            let sample = try db.prepare("""
                INSERT INTO samples (owner, anchor, uuid, type, start_time, value, source, revision, device) VALUES (?, 1, ?, 1, ?, 60, 1, 1, 1)
                """)
            for (owner, text, uuid) in [(Int64(1), aliceToken, aliceSample), (2, bobToken, bobSample)] {
                token.reset()
                token.bind(1, TokenCrypto.hash(text))
                token.bind(2, owner)
                token.bind(3, owner)
                try token.run()
                sample.reset()
                sample.bind(1, owner)
                sample.bind(2, uuid)
                sample.bind(3, s(owner))
                try sample.run()
            }
        }

        let store = try SQLiteStore.open(path: path)
        let everything = ReadScope.everything(callerBundleID: "x")
        for (owner, uuid) in [(OwnerID(1), aliceSample), (OwnerID(2), bobSample)] {
            let rows = try await store.querySamples(owner: owner, types: [StoreFixture.heartRate], predicate: nil, sort: [], limit: 0,
                                                    scope: everything)
            XCTAssertEqual(rows.map(\.uuid), [uuid])
            XCTAssertEqual(rows.first?.sourceRevision?.source.bundleID, StoreFixture.watch.bundleID)
            XCTAssertEqual(rows.first?.device?.name, "Wrist")
        }
        try await expect(await store.authenticate(token: bobToken)?.owner, OwnerID(2))
        _ = try await store.rotateAppToken(owner: OwnerID(2), bundleID: StoreFixture.watch.bundleID)
        try await expect(await store.authenticate(token: bobToken), nil)
        try await expect(await store.authenticate(token: aliceToken)?.owner, OwnerID(1))

        let scale = SourceRevision(source: StoreFixture.scale, version: "2", productType: nil, osMajor: 1, osMinor: 0, osPatch: 0)
        try await expect(await store.save(SaveBatch(owner: OwnerID(2), revision: scale, defaultDevice: nil,
                                                    objects: [StoreFixture.heartRate(s(50))])), [.stored])
        try await expect(await store.querySources(owner: OwnerID(1), type: StoreFixture.heartRate, predicate: nil, scope: everything)
            .map(\.bundleID), [StoreFixture.watch.bundleID])
        try await expect(await store.querySources(owner: OwnerID(2), type: StoreFixture.heartRate, predicate: nil, scope: everything)
            .map(\.bundleID), [StoreFixture.scale.bundleID, StoreFixture.watch.bundleID])
        await store.close()
    }

    /// Samples whose end or creation time lies more than 2^63 µs from their start cannot be stored as offsets: refused, not trapped.
    func testStartTooFarFromNowIsRefused() async throws {
        let f = try await StoreFixture()
        let ancient = Int64.min + 1
        do {
            try await f.save([StoreFixture.heartRate(ancient)])
            XCTFail("stored a start 2^63 µs before now")
        } catch let error as HealthError {
            XCTAssertEqual(error.field, "start_time")
            XCTAssertEqual(error.objectIndex, 0)
        }
        try await expect(await f.query().count, 0)
        await f.store.close()
    }

    /// A store as schema step 7 left it: a heart rate in its canonical unit, one in another unit, a sleep interval.
    private static func writeStep7Store(path: String, canonical: UUID, converted: UUID, category: UUID) throws {
        let db = try SQLiteConnection(path: path, readOnly: false)
        try Schema.migrate(db, to: 7)
        try db.execute("""
            INSERT INTO owners (id, name, created, last_anchor) VALUES (1, 'alice', 0, 3);
            INSERT INTO types (id, identifier) VALUES (1, '\(StoreFixture.heartRate)'), (2, '\(StoreFixture.sleep)');
            INSERT INTO sources (id, bundle_id) VALUES (1, '\(StoreFixture.watch.bundleID)');
            INSERT INTO revisions (id, key, source, name, version, os_major, os_minor, os_patch) VALUES (1, x'00', 1, 'Watch', '1.0', 10, 1, 0);
            INSERT INTO type_extents (owner, type, max_duration) VALUES (1, 1, \(s(60))), (1, 2, \(s(600)));
            INSERT INTO type_sources (owner, type, source, first_seen) VALUES (1, 1, 1, 0), (1, 2, 1, 0);
            """)
        let insert = try db.prepare("""
            INSERT INTO samples (owner, anchor, uuid, type, start_time, end_time, value, unit, raw_value, category, source, revision, created)
            VALUES (1, ?, ?, ?, ?, ?, ?, ?, ?, ?, 1, 1, ?)
            """)
        let rows: [(UUID, Int64, Microseconds, Microseconds, Double?, String?, Double?, Int64?)] = [
            (canonical, 1, s(100), s(160), 1.5, "count/s", nil, nil),
            (converted, 1, s(200), s(200), 1.2, "count/min", 72, nil),
            (category, 2, s(300), s(900), nil, nil, nil, 1),
        ]
        for (index, (uuid, type, start, end, value, unit, raw, categoryValue)) in rows.enumerated() {
            insert.reset()
            insert.bind(1, Int64(index + 1))
            insert.bind(2, uuid)
            insert.bind(3, type)
            insert.bind(4, start)
            insert.bind(5, end)
            insert.bind(6, value)
            insert.bind(7, unit)
            insert.bind(8, raw)
            insert.bind(9, categoryValue)
            insert.bind(10, created)
            try insert.run()
        }
    }
}

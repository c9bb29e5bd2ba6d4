import Foundation
import HealthModel
@testable import HealthStorage
import XCTest

/// Sample rows written before the table was clustered on (owner, type, anchor) (SQLite step 15,
/// PostgreSQL step 9) keep their anchors, order and UUIDs, and every path that finds a row by anchor
/// (deletes, a correlation's readings, moving a correlation to a new anchor) still finds it.
final class TypeClusteredSamplesTests: StoreTestCase {
    private let everything = ReadScope.everything(callerBundleID: Principal.healthApp.bundleID)
    private let (rate, steps, systolic, diastolic, pressure) = (UUID(), UUID(), UUID(), UUID(), UUID())

    func testRowsFromBeforeKeepAnchorsUUIDsAndCorrelations() async throws {
        try await checkRowsFromStep(sqlite: 14, postgreSQL: 8)
    }

    /// Rows from before UUIDs moved to their own levels (SQLite step 16; PostgreSQL step 9) are
    /// in the merged level: retries, refused reuses and deletes by UUID find them as before.
    func testRowsFromBeforeUUIDLevelsAreFoundByUUID() async throws {
        try await checkRowsFromStep(sqlite: 15, postgreSQL: 9)
    }

    /// Rows from before PostgreSQL's `samples_by_anchor` (its step 10; SQLite has no such step) are
    /// indexed by the migration, and a sync of every stored type, streamed or in pages, returns them
    /// in anchor order as a query does.
    func testRowsFromBeforeTheAnchorIndexSyncInAnchorOrder() async throws {
        try await forEachEngine {
            let (store, db, cleanup) = try openMigrated(sqlite: Schema.currentVersion, postgreSQL: 9)
            defer { cleanup() }
            if db is PostgreSQLConnection {
                let indexed = try db.prepareOnce("""
                    SELECT count(*) FROM pg_indexes WHERE schemaname = current_schema() AND tablename = 'samples'
                        AND indexname = 'samples_by_anchor' AND indexdef LIKE '%(owner, anchor)'
                    """)
                _ = try indexed.step()
                XCTAssertEqual(indexed.int(0), 1, "the migration built no (owner, anchor) index")
            }
            let owner = OwnerID(1)
            let types = [StoreFixture.heartRate, StoreFixture.steps, StoreFixture.bloodPressure, StoreFixture.systolic, StoreFixture.diastolic]
            let queried = try await store.querySamples(owner: owner, types: types, predicate: nil, sort: [], limit: 0, scope: everything)
            XCTAssertEqual(queried.map(\.uuid).prefix(3), [rate, steps, pressure])
            let whole = try await store.queryAnchored(owner: owner, types: types, predicate: nil, anchor: nil, limit: 0, scope: everything)
            XCTAssertEqual(Array(whole.samples), queried)
            for partRows in [1, 2, 2048] {
                let stream = try await store.streamAnchored(owner: owner, types: types, predicate: nil, anchor: nil, limit: 0,
                                                            scope: everything, partRows: partRows)
                var streamed: [Sample] = []
                for try await part in stream.samples { streamed += Array(part.samples) }
                XCTAssertEqual(streamed, queried, "parts of \(partRows)")
                XCTAssertEqual(stream.head.newAnchor, whole.newAnchor)
            }
            let paged = try await store.queryAnchored(owner: owner, types: types, predicate: nil, anchor: nil, limit: 2, scope: everything)
            XCTAssertEqual(Array(paged.samples), Array(queried.prefix(2)))
            await store.close()
        }
    }

    /// Rows from before `samples_by_time` went (SQLite step 18, PostgreSQL step 11) are read by dates,
    /// in start order and deleted by dates through `samples_by_source` after the migration drops it.
    func testRowsFromBeforeTheTimeIndexWentAreReadByDate() async throws {
        try await forEachEngine {
            let (store, db, cleanup) = try openMigrated(sqlite: 17, postgreSQL: 10)
            defer { cleanup() }
            let left = try db.prepareOnce(db is PostgreSQLConnection
                ? "SELECT count(*) FROM pg_indexes WHERE schemaname = current_schema() AND indexname = 'samples_by_time'"
                : "SELECT count(*) FROM sqlite_master WHERE name = 'samples_by_time'")
            _ = try left.step()
            XCTAssertEqual(left.int(0), 0, "the migration left samples_by_time")
            let owner = OwnerID(1)
            let types = [StoreFixture.heartRate, StoreFixture.steps, StoreFixture.systolic]
            let later = QueryPredicate.dateRange(DateRange(start: s(150), end: nil))
            try await expect(await store.querySamples(owner: owner, types: types, predicate: later, sort: [], limit: 0, scope: everything)
                .map(\.uuid), [systolic])
            // Start descending, ties in anchor order: the systolic reading, then the heart rate saved before the steps.
            try await expect(await store.querySamples(owner: owner, types: types, predicate: nil, sort: [SampleSortDescriptor(.startDate, descending: true)],
                                                      limit: 2, scope: everything).map(\.uuid), [systolic, rate])
            let owns = Deleter(owner: owner, bundleID: StoreFixture.watch.bundleID, isOwner: true)
            try await expect(await store.deleteObjects(type: StoreFixture.heartRate, predicate: .dateRange(DateRange(start: s(50), end: s(150))),
                                                       by: owns), 1)
            try await expect(await store.querySamples(owner: owner, types: [StoreFixture.heartRate], predicate: nil, sort: [], limit: 0,
                                                      scope: everything).count, 0)
            await store.close()
        }
    }

    private func checkRowsFromStep(sqlite: Int, postgreSQL: Int) async throws {
        try await forEachEngine {
            let (store, _, cleanup) = try openMigrated(sqlite: sqlite, postgreSQL: postgreSQL)
            defer { cleanup() }
            let owner = OwnerID(1)
            let types = [StoreFixture.heartRate, StoreFixture.steps, StoreFixture.bloodPressure]
            let first = try await store.queryAnchored(owner: owner, types: types, predicate: nil, anchor: nil, limit: 0, scope: everything)
            // Across types, in the anchors they were saved at; the correlation with both readings.
            XCTAssertEqual(first.samples.map(\.uuid), [rate, steps, pressure])
            XCTAssertEqual(first.samples.last.map { Set(Self.readings($0).map(\.uuid)) }, [systolic, diastolic])
            let paged = try await store.queryAnchored(owner: owner, types: types, predicate: nil, anchor: nil, limit: 2, scope: everything)
            XCTAssertEqual(paged.samples.map(\.uuid), [rate, steps])

            // One batch: a retry of the stored heart rate (in its canonical count/s), a new one, and the
            // step count's UUID reused for a heart rate, refused with the batch.
            let later = StoreFixture.heartRate(s(600))
            let retry = Sample(uuid: rate, type: StoreFixture.heartRate, start: s(100), end: s(100), body: .quantity(Quantity(60, "count/s"), count: 1))
            let batch = { (objects: [Sample]) in
                SaveBatch(owner: owner, revision: SourceRevision(source: StoreFixture.watch, version: "1.0", productType: nil,
                                                                 osMajor: 10, osMinor: 1, osPatch: 0), defaultDevice: nil, objects: objects)
            }
            let refused = try? await store.save(batch([retry, later, StoreFixture.heartRate(s(500), uuid: steps)]))
            XCTAssertNil(refused, "a migrated UUID was stored twice")
            try await expect(await store.save(batch([retry, later])), [.alreadyStored, .stored])

            // Deleting a reading moves its correlation to a new anchor; deleting the correlation takes its other reading.
            let owns = Deleter(owner: owner, bundleID: StoreFixture.watch.bundleID, isOwner: true)
            try await expect(await store.deleteObjects(uuids: [systolic], by: owns), 1)
            let next = try await store.queryAnchored(owner: owner, types: types, predicate: nil, anchor: first.newAnchor, limit: 0, scope: everything)
            XCTAssertEqual(next.samples.map(\.uuid), [later.uuid, pressure])
            XCTAssertEqual(next.samples.last.map { Self.readings($0).map(\.uuid) }, [diastolic])
            try await expect(await store.deleteObjects(uuids: [pressure], by: owns), 1)
            try await expect(await store.querySamples(owner: owner, types: [StoreFixture.diastolic], predicate: nil, sort: [], limit: 0,
                                                      scope: everything).count, 0)
            try await expect(await store.deleteObjects(type: StoreFixture.heartRate, predicate: nil, by: owns), 2)
            await store.close()
        }
    }

    private static func readings(_ sample: Sample) -> [Sample] {
        if case .correlation(let readings) = sample.body { return readings }
        return []
    }

    /// A store of the current engine as step `sqlite` or `postgreSQL` left it, holding one owner with a
    /// heart rate, a step count and a blood pressure of two readings, at anchors 1 to 5; opened (migrated),
    /// with the connection that built it.
    private func openMigrated(sqlite: Int, postgreSQL: Int) throws -> (EngineStore, any Database, () -> Void) {
        let db: any Database, open: () throws -> EngineStore, cleanup: () -> Void
        switch StoreEngine.current.withLock({ $0 }) {
        case .sqlite:
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("hs-clustered-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            let path = directory.appendingPathComponent("store.sqlite").path
            let file = try SQLiteConnection(path: path, readOnly: false)
            try Schema.migrate(file, to: sqlite)
            (db, open, cleanup) = (file, { try SQLiteStore.open(path: path) }, { try? FileManager.default.removeItem(at: directory) })
        case .postgreSQL(let conninfo):
            let schema = "hs_test_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
            try PostgreSQLConnection(conninfo: conninfo).execute("CREATE SCHEMA \(schema)")
            let connection = try PostgreSQLConnection(conninfo: conninfo, sessionSetup: "SET search_path TO \(schema)")
            try PostgreSQLSchema.migrate(connection, anchorKey: Data(repeating: 7, count: 32), to: postgreSQL)
            var options = PostgreSQLStore.Options()
            options.schema = schema
            (db, open) = (connection, { try PostgreSQLStore.open(conninfo: conninfo, options: options) })
            cleanup = { try? PostgreSQLConnection(conninfo: conninfo).execute("DROP SCHEMA IF EXISTS \(schema) CASCADE") }
        }
        try db.execute("""
            INSERT INTO owners (id, name, created) VALUES (1, 'alice', 0);
            INSERT INTO anchor_counters (owner, last_anchor) VALUES (1, 5);
            INSERT INTO types (owner, id, identifier) VALUES (1, 1, '\(StoreFixture.heartRate)'), (1, 2, '\(StoreFixture.steps)'),
                (1, 3, '\(StoreFixture.bloodPressure)'), (1, 4, '\(StoreFixture.systolic)'), (1, 5, '\(StoreFixture.diastolic)');
            INSERT INTO sources (owner, id, bundle_id) VALUES (1, 1, '\(StoreFixture.watch.bundleID)');
            """)
        let revision = try db.prepareOnce("""
            INSERT INTO revisions (owner, id, key, source, name, version, os_major, os_minor, os_patch) VALUES (1, 1, ?, 1, 'Watch', '1.0', 10, 1, 0)
            """)
        revision.bind(1, Data([0]))
        try revision.run()
        let sample = try db.prepare("""
            INSERT INTO samples (owner, anchor, uuid, type, start_time, value, source, revision, flags, parent) VALUES (1, ?, ?, ?, ?, ?, 1, 1, ?, ?)
            """)
        let rows: [(UUID, Int64, Int64, Double?, Int64, Int64?)] = [
            (rate, 1, s(100), 60, 0, nil), (steps, 2, s(100), 10, 0, nil), (pressure, 3, s(200), nil, SampleRows.correlation, nil),
            (systolic, 4, s(200), 120, 0, 3), (diastolic, 5, s(200), 80, 0, 3),
        ]
        for (anchor, (uuid, type, start, value, flags, parent)) in zip(Int64(1)..., rows) {
            sample.reset()
            sample.bind(all: [.int(anchor), .uuid(uuid), .int(type), .int(start), value.map { .double($0) } ?? .null, .int(flags),
                              parent.map { .int($0) } ?? .null])
            try sample.run()
        }
        return (try open(), db, cleanup)
    }
}

import CSQLite
import Foundation
import HealthModel
@testable import HealthStorage
import Synchronization
import XCTest

/// A full disk, simulated with `PRAGMA max_page_count` (SQLite then fails writes with SQLITE_FULL
/// exactly as on a full file system): saves are refused as RESOURCE_EXHAUSTED without touching what
/// is stored, go on once there is room, and the store still opens and serves reads while full.
final class DiskFullTests: XCTestCase {
    private func heartRates(_ count: Int, from first: Int64) -> [Sample] {
        (0..<Int64(count)).map { StoreFixture.heartRate(s(first + $0)) }
    }

    private func storedCount(_ f: StoreFixture) async throws -> Int {
        try await f.query().count
    }

    func testSaveOnAFullStoreIsResourceExhaustedAndResumesOnceThereIsRoom() async throws {
        let f = try await StoreFixture()
        try await f.save(heartRates(10, from: 0))
        try await f.store.writerPragma("PRAGMA max_page_count = 1") // never below the current size: no room left

        let batch = heartRates(2_000, from: 100)
        do {
            try await f.save(batch)
            XCTFail("a save beyond max_page_count succeeded")
        } catch let error as HealthError {
            XCTAssertEqual(error.code, .resourceExhausted, "\(error)")
            XCTAssertTrue(error.message.contains("the store is full"), error.message)
            XCTAssertTrue(error.message.contains("SQLITE_FULL"), error.message)
        }
        try await expect(try await storedCount(f), 10, "the stored samples are intact and nothing of the refused batch is")

        try await f.store.writerPragma("PRAGMA max_page_count = 4294967294")
        try await f.save(batch)
        try await expect(try await storedCount(f), 2_010)
    }

    /// Concurrent batches share transactions (group commit); when SQLite rolls a whole transaction back
    /// under one batch's SQLITE_FULL, every batch is stored exactly when it was acknowledged.
    func testConcurrentSavesNearFullAreStoredExactlyWhenAcknowledged() async throws {
        let f = try await StoreFixture()
        try await f.save(heartRates(10, from: 0))
        let pages = try await f.store.writerPragma("PRAGMA page_count") ?? 0
        try await f.store.writerPragma("PRAGMA max_page_count = \(pages + 40)")

        let batches = (0..<24).map { heartRates(150, from: 1_000 * Int64($0 + 1)) }
        let store = f.store
        let saves = batches.map { f.batch($0) }
        let acknowledged = try await withThrowingTaskGroup(of: [UUID].self) { group in
            for batch in saves {
                group.addTask {
                    do {
                        _ = try await store.save(batch)
                        return batch.objects.map(\.uuid)
                    } catch let error as HealthError where error.code == .resourceExhausted {
                        return []
                    }
                }
            }
            return try await group.reduce(into: Set<UUID>()) { $0.formUnion($1) }
        }
        XCTAssertFalse(acknowledged.isEmpty, "no batch fit")
        XCTAssertLessThan(acknowledged.count, 24 * 150, "every batch fit: the limit was not reached")
        let stored = Set(try await f.query().map(\.uuid))
        let initial = stored.subtracting(batches.flatMap { $0 }.map(\.uuid))
        XCTAssertEqual(initial.count, 10)
        XCTAssertEqual(stored.subtracting(initial), acknowledged)
    }

    /// Opening an up-to-date store writes nothing, so it opens on a full disk and serves reads.
    func testAFullStoreOpensAndServesReads() async throws {
        let f = try await StoreFixture()
        try await f.save(heartRates(10, from: 0))
        await f.store.close()
        try await withEveryConnectionFull(to: f.path) {
            f.store = try SQLiteStore.open(path: f.path)
            XCTAssertEqual(f.store.openWarnings, [])
            try await expect(try await storedCount(f), 10)
            do {
                try await f.save(heartRates(2_000, from: 100))
                XCTFail("a save beyond max_page_count succeeded")
            } catch let error as HealthError {
                XCTAssertEqual(error.code, .resourceExhausted, "\(error)")
            }
        }
    }

    /// Planner statistics are worth rewriting but not worth staying down for: a store that needs them
    /// rewritten still opens on a full disk, with a warning.
    func testAFullStoreWithoutPlannerStatisticsOpensWithAWarning() async throws {
        let f = try await StoreFixture()
        try await f.save(heartRates(10, from: 0))
        await f.store.close()
        let db = try SQLiteConnection(path: f.path, readOnly: false)
        // VACUUM leaves no free page the statistics table could be recreated in.
        try db.execute("DROP TABLE sqlite_stat1; VACUUM")
        try await withEveryConnectionFull(to: f.path) {
            f.store = try SQLiteStore.open(path: f.path)
            XCTAssertEqual(f.store.openWarnings.count, 1)
            XCTAssertTrue(f.store.openWarnings.first?.contains("the store is full") ?? false, "\(f.store.openWarnings)")
            try await expect(try await storedCount(f), 10)
        }
        try await f.reopen()
        XCTAssertEqual(f.store.openWarnings, [], "with room again the statistics are written")
    }

    /// Runs `body` while every connection opened to `path` starts with its file capped at its size.
    private func withEveryConnectionFull(to path: String, _ body: () async throws -> Void) async throws {
        fullPath.withLock { $0 = URL(fileURLWithPath: path).resolvingSymlinksInPath().path }
        let entryPoint = unsafeBitCast(capAtCurrentSize, to: (@convention(c) () -> Void).self)
        sqlite3_auto_extension(entryPoint)
        defer {
            sqlite3_cancel_auto_extension(entryPoint)
            fullPath.withLock { $0 = nil }
        }
        try await body()
    }
}

/// The store file `capAtCurrentSize` applies to.
private let fullPath = Mutex<String?>(nil)

/// An SQLite auto-extension entry point: caps a new connection to `fullPath` at the file's current size.
private let capAtCurrentSize: @convention(c) (OpaquePointer?, UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?, UnsafeRawPointer?) -> Int32 = { db, _, _ in
    guard let db, let name = sqlite3_db_filename(db, "main"),
          fullPath.withLock({ $0 == URL(fileURLWithPath: String(cString: name)).resolvingSymlinksInPath().path }) else { return SQLITE_OK }
    return sqlite3_exec(db, "PRAGMA max_page_count = 1", nil, nil, nil)
}

extension EngineStore {
    /// Runs a pragma on the writer's connection (SQLite only) and returns its first value.
    @discardableResult
    func writerPragma(_ sql: String) async throws -> Int64? {
        try await write { context throws(HealthError) in
            let statement = try context.db.prepareOnce(sql)
            return try statement.step() ? statement.int(0) : nil
        }
    }
}

import Foundation
import HealthModel
@testable import HealthStorage
import Synchronization
import XCTest

/// A migration at open reports which step runs, how far its rows have come and when it ends, and stays
/// one transaction: a server killed halfway leaves the store as the older server left it, and the next
/// open migrates it.
final class MigrationProgressTests: XCTestCase {
    private static let storeVariable = "HEALTHSTORE_MIGRATION_CHILD_STORE"
    /// Enough rows that SQLite's progress handler runs while step 19 reads them and while it writes them.
    private static let sampleCount = 10_000

    func testMigrationReportsEachStepAndItsRowsAndKeepsEverySample() async throws {
        let fixture = try await StoreFixture()
        await fixture.store.close()
        let stored = try Self.makeStep18Store(fixture)
        let (store, events) = try Self.open(fixture.path)
        XCTAssertEqual(events.first, .began(from: 18, to: 20))
        XCTAssertEqual(events.dropFirst().first, .stepBegan(step: 19, summary: Schema.migrations[18].summary))
        guard case .stepEnded(20, _) = events.dropLast().last, case .ended(20, _) = events.last else {
            return XCTFail("the migration's last reports are not step 20's end and the commit: \(events.suffix(2))")
        }
        let running = events.compactMap { event -> MigrationRows? in
            guard case .stepRunning(19, _, let rows) = event else { return nil }
            return rows
        }
        // Step 20 packs the levels step 19 built, counted as it reads them.
        let packing = events.compactMap { event -> MigrationRows? in
            guard case .stepRunning(20, _, let rows) = event else { return nil }
            return rows
        }
        XCTAssertEqual(running.count + packing.count, events.count - 6, "only steps 19 and 20 ran")
        XCTAssertTrue(packing.allSatisfy { $0.total == Self.sampleCount && $0.verb == "packed" })
        XCTAssertTrue(running.allSatisfy { $0.total == Self.sampleCount && (0...$0.total).contains($0.done) })
        XCTAssertEqual(running.map(\.fraction), running.map(\.fraction).sorted(), "progress never goes back")
        XCTAssertTrue(running.contains { $0.verb == "read and sorted" && (1..<$0.total).contains($0.done) })
        // Every row read and sorted, and the step still writing them.
        XCTAssertTrue(running.contains { $0.done == $0.total })

        fixture.store = store
        try await Self.expectReadsBack(fixture, stored)
        // Opening it again has nothing to migrate, and a new file nothing to tell.
        await fixture.store.close()
        let (again, none) = try Self.open(fixture.path)
        XCTAssertEqual(none, [])
        await again.close()
        let (new, nothing) = try Self.open(fixture.directory.appendingPathComponent("new.sqlite").path)
        XCTAssertEqual(nothing, [])
        await new.close()
    }

    /// The child's role: migrates the store its parent names and stops once step 19 has read and sorted
    /// every row, with the old levels dropped and the new one being written, where the parent kills it.
    /// Does nothing in a normal test run.
    func testMigrationChildStopsMidway() throws {
        guard let path = ProcessInfo.processInfo.environment[Self.storeVariable] else { return }
        var options = SQLiteStore.Options()
        options.migrationProgressInterval = .zero
        options.migrationProgress = { event in
            guard case .stepRunning(19, _, let rows?) = event, rows.done == rows.total else { return }
            FileHandle.standardOutput.write(Data("MIGRATING\n".utf8))
            while true { sleep(60) }
        }
        _ = try SQLiteStore.open(path: path, options: options)
        XCTFail("the migration ended")
    }

    func testMigrationKilledMidwayLeavesTheOlderStoreWhichMigratesLater() async throws {
        let fixture = try await StoreFixture()
        await fixture.store.close()
        let stored = try Self.makeStep18Store(fixture)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: CommandLine.arguments[0])
        process.arguments = ["HealthStorageTests.MigrationProgressTests/testMigrationChildStopsMidway"]
        process.environment = ProcessInfo.processInfo.environment.merging([Self.storeVariable: fixture.path]) { $1 }
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        try process.run()
        var output = Data()
        while !String(decoding: output, as: UTF8.self).contains("MIGRATING"), case let chunk = pipe.fileHandleForReading.availableData,
              !chunk.isEmpty {
            output.append(chunk)
        }
        XCTAssertTrue(String(decoding: output, as: UTF8.self).contains("MIGRATING"), "the child ended before its migration wrote")
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()

        do {
            // As step 18 left it: the version, and the old merged level of whole UUIDs.
            let db = try SQLiteConnection(path: fixture.path, readOnly: false)
            let version = try db.prepareOnce("PRAGMA user_version")
            _ = try version.step()
            XCTAssertEqual(version.int(0), 18)
            let level = try db.prepareOnce("SELECT count(*) FROM uuids_merged WHERE length(uuid) = 16")
            _ = try level.step()
            XCTAssertEqual(Int(level.int(0)), Self.sampleCount)
        }
        let (store, events) = try Self.open(fixture.path)
        XCTAssertEqual(events.first, .began(from: 18, to: 20))
        fixture.store = store
        try await Self.expectReadsBack(fixture, stored)
    }

    /// Opens the store at `path`, reporting every running step's progress, and what it reported.
    private static func open(_ path: String) throws -> (SQLiteStore, [MigrationProgress]) {
        let events = Mutex([MigrationProgress]())
        var options = SQLiteStore.Options()
        options.migrationProgressInterval = .zero
        options.migrationProgress = { event in events.withLock { $0.append(event) } }
        let store = try SQLiteStore.open(path: path, options: options)
        return (store, events.withLock { $0 })
    }

    /// Replaces the fixture's file by a step-18 store of `sampleCount` heart rates, each UUID in the
    /// old merged level (whole UUIDs), as step 18's server left them; returns the samples as stored.
    private static func makeStep18Store(_ fixture: StoreFixture) throws -> [Sample] {
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: fixture.path + suffix) }
        let db = try SQLiteConnection(path: fixture.path, readOnly: false)
        try Schema.migrate(db, to: 18)
        let owner = fixture.owner.rawValue
        try db.execute("""
            BEGIN;
            INSERT INTO owners (id, name, created) VALUES (\(owner), 'alice', 0);
            INSERT INTO anchor_counters (owner, last_anchor) VALUES (\(owner), \(sampleCount));
            INSERT INTO types (owner, id, identifier) VALUES (\(owner), 1, '\(StoreFixture.heartRate)');
            INSERT INTO sources (owner, id, bundle_id) VALUES (\(owner), 1, '\(StoreFixture.watch.bundleID)');
            INSERT INTO revisions (owner, id, key, source, name, version, os_major, os_minor, os_patch)
                VALUES (\(owner), 1, x'00', 1, 'Watch', '1.0', 10, 1, 0);
            """)
        let sample = try db.prepare("INSERT INTO samples (owner, anchor, uuid, type, start_time, value, source, revision) VALUES (?, ?, ?, 1, ?, ?, 1, 1)")
        let level = try db.prepare("INSERT INTO uuids_merged (uuid, owner, type, anchor) VALUES (?, ?, 1, ?)")
        var stored: [Sample] = []
        for anchor in Int64(1)...Int64(sampleCount) {
            let uuid = UUID(), bps = Double(anchor % 90 + 40) / 60
            sample.reset()
            sample.bind(all: [.int(owner), .int(anchor), .uuid(uuid), .int(s(anchor)), .double(bps)])
            try sample.run()
            level.reset()
            level.bind(all: [.uuid(uuid), .int(owner), .int(anchor)])
            try level.run()
            // As stored: in the canonical unit, without a device.
            stored.append(Sample(uuid: uuid, type: StoreFixture.heartRate, start: s(anchor), end: s(anchor),
                                 body: .quantity(Quantity(bps, "count/s"), count: 1)))
        }
        try db.execute("COMMIT")
        return stored
    }

    /// Every sample reads back as stored, is a retry, and has one level row.
    private static func expectReadsBack(_ fixture: StoreFixture, _ stored: [Sample], file: StaticString = #filePath,
                                        line: UInt = #line) async throws {
        let read = try await fixture.query()
        XCTAssertEqual(read.map(\.uuid), stored.map(\.uuid), file: file, line: line)
        XCTAssertEqual(read.map(\.start), stored.map(\.start), file: file, line: line)
        XCTAssertEqual(read.map(\.body), stored.map(\.body), file: file, line: line)
        let retries = Array(stored.prefix(3) + stored.suffix(3))
        try await expect(await fixture.store.save(fixture.batch(retries, device: nil)), Array(repeating: .alreadyStored, count: 6),
                         file: file, line: line)
        try await expect(try fixture.count(UUIDLevels.all), stored.count, file: file, line: line)
    }
}

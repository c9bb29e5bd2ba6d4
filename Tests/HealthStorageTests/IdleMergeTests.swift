import Foundation
import HealthModel
@testable import HealthStorage
import XCTest

/// The SQLite writer merges UUID runs while no job waits, a slice a transaction of its own committed
/// without an fsync, so commits of saves after it carry no slice, and the store's durability holds
/// again for them.
final class IdleMergeTests: StoreTestCase {
    /// With no save at all after the merge became due, the idle writer finishes it: every entry in one
    /// run of level 1, found once, and the writer's commits synced as configured afterwards.
    func testAnIdleWriterFinishesAMerge() async throws {
        let fixture = try await StoreFixture()
        let entries = try await fixture.writeRunsDue(perRun: 4_000)
        let deadline = Date(timeIntervalSinceNow: 60)
        while try fixture.count("\(UUIDLevels.directory) WHERE level = 0") > 0 {
            XCTAssertLessThan(Date(), deadline, "the idle writer did not finish the merge")
            if Date() > deadline { return }
            try await Task.sleep(for: .milliseconds(20))
        }
        try await expect(try fixture.count("\(UUIDLevels.directory) WHERE cursor IS NOT NULL"), 0)
        try await expect(try fixture.count(UUIDLevels.all), entries.count)
        let db = try fixture.connect()
        let found = try db.prepare("SELECT count(*) FROM \(UUIDLevels.all) WHERE head = ? AND owner = ? AND type = ? AND anchor = ?")
        for entry in entries.shuffled().prefix(200) {
            found.reset()
            found.bind(all: [.blob(UUIDEntry.blob(entry.head)), .int(entry.owner), .int(entry.type), .int(entry.anchor)])
            _ = try found.step()
            XCTAssertEqual(found.int(0), 1)
        }
        let synchronous = try await fixture.store.write { context throws(HealthError) -> Int64 in
            let pragma = try context.db.prepare("PRAGMA synchronous")
            defer { pragma.reset() }
            _ = try pragma.step()
            return pragma.int(0)
        }
        XCTAssertEqual(synchronous, 2, "synchronous = FULL again after the idle slices")
        try await expect(await fixture.save([StoreFixture.heartRate(s(1))]), [.stored])
    }

    /// A commit of jobs after an idle slice carries no slice of its own; the next one, with no idle
    /// slice between, carries its share again (the idle merges are off, so the test decides).
    func testACommitAfterAnIdleSliceCarriesNone() async throws {
        let fixture = try await StoreFixture(options: .withoutIdleMerges)
        _ = try await fixture.writeRunsDue(perRun: 4_000)
        let before = try fixture.mergedIntoLevel1()
        XCTAssertGreaterThan(before, 0, "the merge began")
        // As an idle slice leaves it; this job's commit is the one after it.
        _ = try await fixture.store.write { context throws(HealthError) in context.mergedWhileIdle = true }
        XCTAssertEqual(try fixture.mergedIntoLevel1(), before, "a commit after an idle slice merged")
        try await expect(await fixture.save([StoreFixture.heartRate(s(1))]), [.stored])
        XCTAssertGreaterThanOrEqual(try fixture.mergedIntoLevel1() - before, UUIDLevels.mergeSliceFloor)
    }
}

extension SQLiteStore.Options {
    /// For tests that decide when merges run: only commits of jobs merge.
    static var withoutIdleMerges: Self {
        var options = Self()
        options.mergesWhileIdle = false
        return options
    }
}

extension StoreFixture {
    /// Writes `runFanout` runs of level 0 of `perRun` random entries each, the last commit making
    /// their merge due (and beginning it); the entries written.
    func writeRunsDue(perRun: Int) async throws -> [UUIDEntry] {
        var generator = SystemRandomNumberGenerator()
        var written: [UUIDEntry] = []
        for run in 0..<UUIDLevels.runFanout {
            let entries = (0..<perRun).map { index in
                UUIDEntry(head: generator.next(), owner: owner.rawValue, type: 1, anchor: Int64(1_000_000 + run * perRun + index))
            }
            try await store.write { context throws(HealthError) in
                let row = try context.db.prepare("INSERT INTO \(UUIDLevels.recent) (head, owner, type, anchor) VALUES (?, ?, ?, ?)")
                for entry in entries {
                    row.reset()
                    row.bind(all: [.blob(UUIDEntry.blob(entry.head)), .int(entry.owner), .int(entry.type), .int(entry.anchor)])
                    try row.run()
                }
                try context.flushRecentLevel()
                context.uuidMergeDue = run == UUIDLevels.runFanout - 1 ? nil : false
            }
            written += entries
        }
        return written
    }

    /// Entries the running (or finished) merge into level 1 has written.
    func mergedIntoLevel1() throws -> Int {
        let db = try connect()
        let output = try db.prepareOnce("SELECT coalesce(max(entries), 0) FROM \(UUIDLevels.directory) WHERE level = 1")
        _ = try output.step()
        return Int(output.int(0))
    }
}

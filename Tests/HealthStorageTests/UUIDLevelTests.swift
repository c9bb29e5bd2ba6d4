import Foundation
import HealthModel
@testable import HealthStorage
import Synchronization
import XCTest

/// UUIDs stay unique per owner while the writer moves them between SQLite's UUID levels
/// (`UUIDLevels`), and every lookup by UUID finds a sample in whichever level holds it. On PostgreSQL
/// (one unique index) the same saves, retries, refusals and deletes behave alike.
final class UUIDLevelTests: StoreTestCase {
    func testRetriesReusesAndDeletesInEveryLevel() async throws {
        try await forEachEngine {
            let fixture = try await StoreFixture()
            // 42 samples saved two at a time move the levels on ten times.
            let saved = try await fillLevels(fixture, pairs: 21)
            let held = try levels(fixture, of: saved)
            if fixture.isSQLite {
                XCTAssertEqual(Set(held.values), [UUIDLevels.recent, UUIDLevels.middle, UUIDLevels.merged], "the test needs every level")
                XCTAssertEqual(held.count, saved.count, "every UUID in exactly one level")
            }
            // One sample of each level (any three on PostgreSQL).
            var probes = [saved[0], saved[20], saved[41]]
            if fixture.isSQLite {
                probes = try [UUIDLevels.recent, UUIDLevels.middle, UUIDLevels.merged].map { level in
                    try XCTUnwrap(saved.first { held[$0.uuid] == level })
                }
            }
            let ids = Set(probes.map(\.uuid))
            XCTAssertEqual(ids.count, 3)

            // Retries, in one batch and alone, whichever level holds the UUID.
            try await expect(await fixture.save(saved), Array(repeating: .alreadyStored, count: saved.count))
            for probe in probes { try await expect(await fixture.save([probe]), [.alreadyStored]) }
            // A stored UUID with other content is refused, in a batch of plain samples and alone.
            for probe in probes {
                let other = StoreFixture.heartRate(probe.start, bpm: 99, uuid: probe.uuid)
                try await expectReuseRefused(fixture, [StoreFixture.heartRate(s(900)), other], index: 1)
                try await expectReuseRefused(fixture, [other], index: 0)
            }
            // A UUID twice in one batch: a retry of the earlier row, or refused with other content.
            let twice = StoreFixture.heartRate(s(1000))
            try await expect(await fixture.save([twice, twice]), [.stored, .alreadyStored])
            try await expectReuseRefused(fixture, [StoreFixture.heartRate(s(1100)), StoreFixture.heartRate(s(1100), bpm: 90, uuid: twice.uuid)],
                                         index: 1)
            try await expect(await fixture.query().count, saved.count + 1)
            try await expect(await fixture.query([StoreFixture.heartRate], .uuids(ids)).map(\.uuid).sorted { $0.uuidString < $1.uuidString },
                             ids.sorted { $0.uuidString < $1.uuidString })

            // Deleted from whichever level holds it; the UUID is then free again, as with the unique index.
            let owns = Deleter(owner: fixture.owner, bundleID: StoreFixture.watch.bundleID, isOwner: true)
            try await expect(await fixture.store.deleteObjects(uuids: Array(ids), by: owns), 3)
            try await expect(await fixture.query([StoreFixture.heartRate], .uuids(ids)).count, 0)
            if fixture.isSQLite { try await expect(try levels(fixture, of: probes).count, 0) }
            try await expect(await fixture.save(probes.map { StoreFixture.heartRate($0.start, bpm: 70, uuid: $0.uuid) }),
                             [.stored, .stored, .stored])
            try await expect(await fixture.query().count, saved.count + 1)
        }
    }

    /// A move undone with its transaction leaves every UUID in the level it was in, each found once.
    func testUndoneMoveLeavesEveryUUIDInOneLevel() async throws {
        let fixture = try await StoreFixture()
        let saved = try await fillLevels(fixture, pairs: 9)
        let before = try levels(fixture, of: saved)
        XCTAssertEqual(before.count, saved.count)
        do {
            try await fixture.store.write { context throws(HealthError) in
                try context.moveUUIDLevels()
                throw HealthError(.internalError, "undo the move")
            }
            XCTFail("the job should have failed")
        } catch {}
        try await expect(try levels(fixture, of: saved), before)
        try await expect(try fixture.count(UUIDLevels.all), saved.count)
        try await expect(await fixture.save(saved), Array(repeating: .alreadyStored, count: saved.count))
        try await expect(await fixture.query([StoreFixture.heartRate], .uuids(Set(saved.map(\.uuid)))).count, saved.count)
    }

    /// The claim seeks the older levels only for UUIDs `UUIDFilter` may hold, so the filter must hold
    /// every UUID of every level: built at open, kept through moves and through a group that claimed
    /// UUIDs and was undone (whose UUIDs it keeps, a false "maybe" that must still let them be saved).
    /// A filter that wrongly said "absent" lets a stored UUID into the recent level a second time.
    func testFilterHoldsEveryLevelsUUIDs() async throws {
        let fixture = try await StoreFixture()
        var saved = try await fillLevels(fixture, pairs: 21)
        try await expectFilterHoldsEveryUUID(fixture, count: saved.count)
        // An undone group: its UUIDs were claimed, then rolled back with the group.
        let undone = (0..<3).map { StoreFixture.heartRate(s(2000 + Int64($0)), uuid: Self.spreadUUID(100 + $0)) }
        let rows = undone.map { Self.claimRow(owner: fixture.owner.rawValue, $0.uuid) }
        do {
            try await fixture.store.write { context throws(HealthError) in
                _ = try context.claimUUIDs(rows)
                throw HealthError(.internalError, "undo the group")
            }
            XCTFail("the job should have failed")
        } catch {}
        try await expect(try fixture.count(UUIDLevels.all), saved.count)
        try await expect(await fixture.save(undone), [.stored, .stored, .stored])
        saved += undone
        try await expect(await fixture.save(saved), Array(repeating: .alreadyStored, count: saved.count))
        try await expectFilterHoldsEveryUUID(fixture, count: saved.count)

        // Read a few rows at a time, each chunk resuming after the last one's final key.
        let chunked = try UUIDLevels.filter(reading: fixture.connect(), chunkRows: 4)
        let db = try fixture.connect()
        let pairs = try db.prepareOnce("SELECT owner, uuid FROM \(UUIDLevels.all)")
        var read = 0
        while try pairs.step() {
            XCTAssertTrue(chunked.mayContain(owner: pairs.int(0), pairs.uuid(1)), "a UUID the chunked read missed")
            read += 1
        }
        XCTAssertEqual(read, saved.count)

        // Built again at open, from every level (after kill -9: CrashTests).
        await fixture.store.close()
        fixture.store = try SQLiteStore.open(path: fixture.path)
        try await expectFilterHoldsEveryUUID(fixture, count: saved.count)
        try await expect(await fixture.save(saved), Array(repeating: .alreadyStored, count: saved.count))
        for level in [UUIDLevels.middle, UUIDLevels.merged] {
            let held = try levels(fixture, of: saved)
            let probe = try XCTUnwrap(saved.first { held[$0.uuid] == level })
            try await expectReuseRefused(fixture, [StoreFixture.heartRate(s(900)), StoreFixture.heartRate(probe.start, bpm: 99, uuid: probe.uuid)],
                                         index: 1)
        }
    }

    /// Another connection's commits are not in this writer's filter: SQLite's data version tells it
    /// to build the filter again before it trusts it.
    func testAnotherWritersUUIDsReachTheFilter() async throws {
        let fixture = try await StoreFixture()
        _ = try await fillLevels(fixture, pairs: 2)
        let other = try SQLiteStore.open(path: fixture.path)
        _ = try await other.write { context throws(HealthError) in context.uuidRecentLimit = 1 }
        let sample = StoreFixture.heartRate(s(5000), uuid: Self.spreadUUID(7))
        let batch = fixture.batch([sample, StoreFixture.heartRate(s(5001))])
        try await expect(try await other.save(batch), [.stored, .stored])
        await other.close()
        let held = try levels(fixture, of: [sample])
        XCTAssertEqual(held[sample.uuid], UUIDLevels.middle, "the other writer moved its UUIDs on")
        try await expect(await fixture.save([sample]), [.alreadyStored])
        try await expectReuseRefused(fixture, [StoreFixture.heartRate(s(5000), bpm: 99, uuid: sample.uuid)], index: 0)
    }

    /// The store serves while it builds the filter from a large file: saves are answered before the
    /// build is done (the claim then seeks every level), a stored UUID is still a retry and its reuse
    /// still refused, whichever level holds it, and the UUIDs saved meanwhile, even those the levels
    /// moved on, are in the filter once the writer takes it (the build read the levels before they were
    /// saved: it holds them only because the writer kept what it claimed meanwhile).
    func testSavesDuringTheFiltersBuild() async throws {
        let fixture = try await StoreFixture()
        let stored = try await fillLevels(fixture, pairs: 21)
        let held = try levels(fixture, of: stored)
        await fixture.store.close()
        let gate = BuildGate()
        var options = SQLiteStore.Options()
        options.uuidFilterPause = { gate.pause() }
        fixture.store = try SQLiteStore.open(path: fixture.path, options: options)
        // Open gate or not, leave the build no thread to wait on once the test ends.
        defer { gate.open() }
        _ = try await fixture.store.write { context throws(HealthError) in context.uuidRecentLimit = 4 }
        await gate.reached()

        // The build has read every level and waits: the store answers meanwhile.
        var during: [Sample] = []
        for pair in 0..<9 {
            let objects = (0..<2).map { StoreFixture.heartRate(s(3000 + Int64(pair * 10 + $0)), uuid: Self.spreadUUID(60 + pair * 2 + $0)) }
            try await expect(await fixture.save(objects), [.stored, .stored])
            during += objects
        }
        // Alone, it stays in the recent level whichever save last moved the levels on.
        let last = StoreFixture.heartRate(s(3500), uuid: Self.spreadUUID(90))
        try await expect(await fixture.save([last]), [.stored])
        during.append(last)
        try await expect(await fixture.save(stored), Array(repeating: .alreadyStored, count: stored.count))
        for level in [UUIDLevels.middle, UUIDLevels.merged] {
            let probe = try XCTUnwrap(stored.first { held[$0.uuid] == level })
            try await expectReuseRefused(fixture, [StoreFixture.heartRate(s(900)), StoreFixture.heartRate(probe.start, bpm: 99, uuid: probe.uuid)],
                                         index: 1)
        }
        let built = try await fixture.store.write { context throws(HealthError) in try context.currentUUIDFilter() != nil }
        XCTAssertFalse(built, "the writer had a filter while its build was held")
        XCTAssertFalse(gate.timedOut, "the open waited for the build")
        let duringHeld = try levels(fixture, of: during)
        XCTAssertEqual(Set(duringHeld.values), [UUIDLevels.recent, UUIDLevels.middle, UUIDLevels.merged], "the test needs every level")

        gate.open()
        let notes = await fixture.store.openFinished()
        XCTAssertTrue(notes.contains { $0.hasPrefix("UUID filter built in") }, "\(notes)")
        try await expectFilterHoldsEveryUUID(fixture, count: stored.count + during.count)
        let all = stored + during
        try await expect(await fixture.save(all), Array(repeating: .alreadyStored, count: all.count))
        for level in [UUIDLevels.recent, UUIDLevels.middle, UUIDLevels.merged] {
            let levelsNow = try levels(fixture, of: during)
            let probe = try XCTUnwrap(during.first { levelsNow[$0.uuid] == level })
            try await expectReuseRefused(fixture, [StoreFixture.heartRate(probe.start, bpm: 99, uuid: probe.uuid)], index: 0)
        }
    }

    /// Each move takes the middle level's next slice to the merged level, counted in the file: a
    /// server restarted between every two moves still takes every slice in turn, so no UUID stays in
    /// the middle level for more than `slices` moves (counted in memory, every open began again at the
    /// first slice and the others stayed in the middle level for good).
    func testSlicesMoveInTurnAcrossRestarts() async throws {
        let fixture = try await StoreFixture()
        let samples = (0..<UUIDLevels.slices * 2).map { index in
            var bytes = UUID().uuid
            bytes.0 = UInt8(index * 8)
            return StoreFixture.heartRate(s(Int64(index)), uuid: UUID(uuid: bytes))
        }
        try await expect(await fixture.save(samples), Array(repeating: .stored, count: samples.count))
        for _ in 0...UUIDLevels.slices {
            try await fixture.reopen()
            try await fixture.store.write { context throws(HealthError) in try context.moveUUIDLevels() }
        }
        let held = try levels(fixture, of: samples)
        XCTAssertEqual(held.count, samples.count)
        XCTAssertEqual(held.filter { $0.value != UUIDLevels.merged }.count, 0, "UUIDs left in the middle level after a whole round of slices")
    }

    /// A row for the UUID claim alone (its other columns are not the claim's).
    private static func claimRow(owner: Int64, _ uuid: UUID) -> SampleRow {
        SampleRow(owner: owner, anchor: 1_000_000, uuid: uuid, type: 1, start: 0, duration: 0, source: 1, revision: 1, createdOffset: 0, flags: 0,
                  parent: nil, metadata: nil)
    }

    /// Every UUID the levels hold (there are `count`) is one the writer's filter may hold.
    private func expectFilterHoldsEveryUUID(_ fixture: StoreFixture, count: Int, file: StaticString = #filePath,
                                            line: UInt = #line) async throws {
        let db = try fixture.connect()
        let rows = try db.prepareOnce("SELECT owner, uuid FROM \(UUIDLevels.all)")
        var pairs: [(Int64, UUID)] = []
        while try rows.step() { pairs.append((rows.int(0), rows.uuid(1))) }
        XCTAssertEqual(pairs.count, count, file: file, line: line)
        // The filter is built while the store serves: wait for it, and for the writer to take it.
        _ = await fixture.store.openFinished()
        let missing = try await fixture.store.write { [pairs] context throws(HealthError) in
            let filter = try context.currentUUIDFilter()
            return pairs.filter { filter?.mayContain(owner: $0.0, $0.1) != true }.count
        }
        XCTAssertEqual(missing, 0, "UUIDs the filter calls absent", file: file, line: line)
    }

    /// The writer's multi-row statements stop at a failed constraint (`OR FAIL`) instead of undoing their
    /// earlier rows (the default `ABORT`): a statement that may abort inside a transaction makes SQLite
    /// copy each page it first changes into a statement journal, a whole UUID-level leaf for most claimed
    /// UUIDs. Read from the compiled programs: each constraint halt names its resolution in P2 (2 abort, 3 fail).
    func testMultiRowWritesCannotAbort() async throws {
        let fixture = try await StoreFixture()
        let db = try fixture.connect()
        let writes = [UUIDLevels.claimSQL(rows: 3), SampleRow.insertSQL(.sqlite, rows: 3)] + UUIDLevels.sliceMoveSQL + UUIDLevels.recentMoveSQL
        for sql in writes {
            let program = try db.prepareOnce("EXPLAIN " + sql)
            var halts = 0
            while try program.step() {
                guard ["Halt", "HaltIfNull"].contains(program.text(1) ?? ""), program.int(2) != 0 else { continue }
                XCTAssertEqual(program.int(3), 3, "\(program.text(1) ?? "") at \(program.int(0)) of \(sql)")
                halts += 1
            }
            XCTAssertEqual(halts > 0, sql.hasPrefix("INSERT"), "constraint checks of \(sql)")
        }
    }

    /// Saves `pairs` batches of two heart rates (UUIDs spread by `spreadUUID`) with four rows filling
    /// the recent level, so the levels move on every other save; returns them in the order saved.
    private func fillLevels(_ fixture: StoreFixture, pairs: Int) async throws -> [Sample] {
        _ = try await fixture.store.write { context throws(HealthError) in context.uuidRecentLimit = 4 }
        var saved: [Sample] = []
        for pair in 0..<pairs {
            let objects = (0..<2).map { StoreFixture.heartRate(s(Int64(pair * 10 + $0 * 5)), uuid: Self.spreadUUID(pair * 2 + $0)) }
            try await expect(await fixture.save(objects), [.stored, .stored])
            saved += objects
        }
        return saved
    }

    /// A UUID whose first byte spreads samples over the middle level's slices.
    private static func spreadUUID(_ index: Int) -> UUID {
        var bytes = UUID().uuid
        bytes.0 = UInt8((index * 37) % 256)
        return UUID(uuid: bytes)
    }

    /// The level holding each of `samples`' UUIDs (a UUID held twice would hide one: callers compare counts); empty on PostgreSQL.
    private func levels(_ fixture: StoreFixture, of samples: [Sample]) throws -> [UUID: String] {
        guard fixture.isSQLite else { return [:] }
        let db = try fixture.connect()
        var held: [UUID: String] = [:]
        var rows = 0
        for level in [UUIDLevels.recent, UUIDLevels.middle, UUIDLevels.merged] {
            let statement = try db.prepareOnce("SELECT uuid FROM \(level)")
            while try statement.step() {
                let uuid = statement.uuid(0)
                guard samples.contains(where: { $0.uuid == uuid }) else { continue }
                held[uuid] = level
                rows += 1
            }
        }
        XCTAssertEqual(rows, held.count, "a UUID is in more than one level")
        return held
    }

    private func expectReuseRefused(_ fixture: StoreFixture, _ objects: [Sample], index: Int,
                                    file: StaticString = #filePath, line: UInt = #line) async throws {
        do {
            _ = try await fixture.save(objects)
            XCTFail("UUID \(objects[index].uuid) was stored twice", file: file, line: line)
        } catch let error as HealthError {
            XCTAssertEqual(error.field, "uuid", file: file, line: line)
            XCTAssertEqual(error.objectIndex, index, file: file, line: line)
            XCTAssertTrue(error.message.contains("already stored with different content"), error.message, file: file, line: line)
        }
    }
}

/// Holds the UUID filter's build (`SQLiteStore.Options.uuidFilterPause`) until the test opens it; after
/// a minute it lets the build go on by itself, so a store that waits for its build at open fails
/// the test instead of hanging it.
private final class BuildGate: Sendable {
    private let opened = DispatchSemaphore(value: 0)
    private let waiting = DispatchSemaphore(value: 0)
    private let timeout = Atomic<Bool>(false)

    /// The build's side: says it is waiting, then waits.
    func pause() {
        waiting.signal()
        if opened.wait(timeout: .now() + 60) == .timedOut { timeout.store(true, ordering: .relaxed) }
    }

    /// Returns once the build waits at the gate.
    func reached() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            DispatchQueue.global().async { [waiting] in
                waiting.wait()
                continuation.resume()
            }
        }
    }

    func open() { opened.signal() }

    var timedOut: Bool { timeout.load(ordering: .relaxed) }
}

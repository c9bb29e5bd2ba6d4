import CSQLite
import Foundation
import HealthModel
@testable import HealthStorage
import Synchronization
import XCTest

/// UUIDs stay unique per owner while the writer moves them between SQLite's UUID levels (`UUIDLevels`:
/// the recent B-tree, then sorted runs merged level by level), and every lookup by UUID finds a sample
/// in whichever level holds it. On PostgreSQL (one unique index) the same saves, retries, refusals and
/// deletes behave alike.
final class UUIDLevelTests: StoreTestCase {
    func testRetriesReusesAndDeletesInEveryLevel() async throws {
        try await forEachEngine {
            let fixture = try await StoreFixture()
            // 42 samples saved two at a time make ten runs of four, the first eight merged into one.
            let saved = try await fillLevels(fixture, pairs: 21)
            let held = try levels(fixture, of: saved)
            if fixture.isSQLite {
                XCTAssertEqual(Set(held.values), Self.everyLevel, "the test needs every level")
                XCTAssertEqual(held.count, saved.count, "every UUID in exactly one level")
            }
            // One sample of each level (any three on PostgreSQL).
            var probes = [saved[0], saved[20], saved[41]]
            if fixture.isSQLite {
                probes = try Self.everyLevel.sorted().map { level in
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

    /// A run written or a merge's slice undone with its transaction leaves every UUID in the level it
    /// was in, each found once.
    func testUndoneMoveLeavesEveryUUIDInOneLevel() async throws {
        let fixture = try await StoreFixture()
        let saved = try await fillLevels(fixture, pairs: 15)
        let before = try levels(fixture, of: saved)
        XCTAssertEqual(before.count, saved.count)
        XCTAssertEqual(try fixture.count("\(UUIDLevels.directory) WHERE level = 0"), 7, "one run short of a merge")
        do {
            try await fixture.store.write { context throws(HealthError) in
                try context.flushRecentLevel()
                XCTAssertTrue(try context.mergeUUIDRunSlice())
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
        let pairs = try db.prepareOnce(Self.pointedUUIDs(UUIDLevels.all, "s.owner, s.uuid"))
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
        for level in Self.everyLevel.subtracting([UUIDLevels.recent]) {
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
        _ = try await fixture.store.write { context throws(HealthError) in context.uuidRecentLimit = 1_000 }
        let sample = StoreFixture.heartRate(s(5000), uuid: Self.spreadUUID(7))
        let batch = fixture.batch([sample, StoreFixture.heartRate(s(5001))])
        try await expect(try await other.save(batch), [.stored, .stored])
        await other.close()
        let held = try levels(fixture, of: [sample])
        XCTAssertEqual(held[sample.uuid], Self.level(0), "the other writer moved its UUIDs on")
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
        for pair in 0..<13 {
            let objects = (0..<2).map { StoreFixture.heartRate(s(3000 + Int64(pair * 10 + $0)), uuid: Self.spreadUUID(60 + pair * 2 + $0)) }
            try await expect(await fixture.save(objects), [.stored, .stored])
            during += objects
        }
        // Alone, it stays in the recent level whichever save last moved the levels on.
        let last = StoreFixture.heartRate(s(3500), uuid: Self.spreadUUID(90))
        try await expect(await fixture.save([last]), [.stored])
        during.append(last)
        try await expect(await fixture.save(stored), Array(repeating: .alreadyStored, count: stored.count))
        for level in Self.everyLevel.subtracting([UUIDLevels.recent]) {
            let probe = try XCTUnwrap(stored.first { held[$0.uuid] == level })
            try await expectReuseRefused(fixture, [StoreFixture.heartRate(s(900)), StoreFixture.heartRate(probe.start, bpm: 99, uuid: probe.uuid)],
                                         index: 1)
        }
        let built = try await fixture.store.write { context throws(HealthError) in try context.currentUUIDFilter() != nil }
        XCTAssertFalse(built, "the writer had a filter while its build was held")
        XCTAssertFalse(gate.timedOut, "the open waited for the build")
        let duringHeld = try levels(fixture, of: during)
        XCTAssertEqual(Set(duringHeld.values).intersection(Self.everyLevel), Self.everyLevel, "the test needs every level")

        gate.open()
        let notes = await fixture.store.openFinished()
        XCTAssertTrue(notes.contains { $0.hasPrefix("UUID filter built in") }, "\(notes)")
        try await expectFilterHoldsEveryUUID(fixture, count: stored.count + during.count)
        let all = stored + during
        try await expect(await fixture.save(all), Array(repeating: .alreadyStored, count: all.count))
        for level in Self.everyLevel {
            let levelsNow = try levels(fixture, of: during)
            let probe = try XCTUnwrap(during.first { levelsNow[$0.uuid] == level })
            try await expectReuseRefused(fixture, [StoreFixture.heartRate(probe.start, bpm: 99, uuid: probe.uuid)], index: 0)
        }
    }

    /// A merge runs a slice a transaction, and every UUID is found exactly once and refused again after
    /// each slice, across a reopen between any two slices (the cursor is in the file) and after a slice
    /// undone with its transaction; deletes during the merge take the UUID out of both copies.
    func testMergeInSlicesAcrossReopensAndUndo() async throws {
        let fixture = try await StoreFixture(options: .withoutIdleMerges)
        _ = try await fixture.store.write { context throws(HealthError) in Self.mergeSlowly(context) }
        var saved: [Sample] = []
        for pair in 0..<16 {
            let objects = (0..<2).map { StoreFixture.heartRate(s(Int64(pair * 10 + $0 * 5)), uuid: Self.spreadUUID(pair * 2 + $0)) }
            try await expect(await fixture.save(objects), [.stored, .stored])
            saved += objects
        }
        XCTAssertEqual(try fixture.count("\(UUIDLevels.directory) WHERE level = 0"), 8)
        var slices = 0, deleted: [Sample] = []
        while true {
            try await fixture.reopen()
            let more = try await fixture.store.write { context throws(HealthError) in
                Self.mergeSlowly(context)
                return try context.mergeUUIDRunSlice()
            }
            guard more else { break }
            slices += 1
            let remaining = saved.filter { !deleted.map(\.uuid).contains($0.uuid) }
            try await expect(try fixture.count(UUIDLevels.all), remaining.count)
            XCTAssertEqual(try levels(fixture, of: remaining).count, remaining.count)
            try await expect(await fixture.save(remaining), Array(repeating: .alreadyStored, count: remaining.count))
            try await expect(await fixture.query([StoreFixture.heartRate], .uuids(Set(remaining.map(\.uuid)))).count, remaining.count)
            // An undone slice changes nothing.
            do {
                try await fixture.store.write { context throws(HealthError) in
                    Self.mergeSlowly(context)
                    _ = try context.mergeUUIDRunSlice()
                    throw HealthError(.internalError, "undo the slice")
                }
                XCTFail("the job should have failed")
            } catch {}
            try await expect(try fixture.count(UUIDLevels.all), remaining.count)
            if slices % 3 == 1, let victim = remaining.first {
                let owns = Deleter(owner: fixture.owner, bundleID: StoreFixture.watch.bundleID, isOwner: true)
                try await expect(await fixture.store.deleteObjects(uuids: [victim.uuid], by: owns), 1)
                deleted.append(victim)
                try await expect(try fixture.count(UUIDLevels.all), remaining.count - 1)
            }
        }
        XCTAssertGreaterThan(slices, 5, "the merge took one slice")
        let remaining = saved.filter { !deleted.map(\.uuid).contains($0.uuid) }
        XCTAssertEqual(Set(try levels(fixture, of: remaining).values), [Self.level(1)])
        XCTAssertEqual(try fixture.count(UUIDLevels.directory), 1)
        try await expect(await fixture.save(remaining), Array(repeating: .alreadyStored, count: remaining.count))
        // The deleted UUIDs are free again.
        try await expect(await fixture.save(deleted.map { StoreFixture.heartRate($0.start, bpm: 80, uuid: $0.uuid) }),
                         Array(repeating: .stored, count: deleted.count))
    }

    /// Runs of four entries, merged three entries a slice, and only when the test says so.
    private static func mergeSlowly(_ context: WriteContext) {
        context.uuidRecentLimit = 4
        context.uuidMergeSliceEntries = 3
        context.uuidMergeDue = false
    }

    /// The recent level stays small: a commit dirties nearly every one of its leaves up to its own
    /// number of UUIDs (new heads are random), and each dirty page is a WAL frame written and checksummed
    /// at commit, so its leaves bound a commit of lone saves' pages. One UUID short of its limit it spans
    /// at most 32 leaves (at the old limit of 65,536 rows, 163); the save that fills it turns it into
    /// one run of level 0.
    func testTheRecentLevelSpansFewLeavesAndBecomesARunWhenFull() async throws {
        let fixture = try await StoreFixture()
        guard fixture.isSQLite else { return }
        let limit = UUIDLevels.recentLimit
        for start in stride(from: 0, to: limit - 1, by: 1_000) {
            let samples = (start..<min(start + 1_000, limit - 1)).map { StoreFixture.heartRate(s(Int64($0))) }
            try await expect(await fixture.save(samples), Array(repeating: .stored, count: samples.count))
        }
        XCTAssertEqual(try fixture.count(UUIDLevels.recent), limit - 1)
        XCTAssertEqual(try fixture.count(UUIDLevels.directory), 0)
        let leaves = try fixture.count("dbstat WHERE name = '\(UUIDLevels.recent)' AND pagetype = 'leaf'")
        XCTAssertLessThanOrEqual(leaves, 32, "the recent level's leaves are a commit's dirty pages")
        try await expect(await fixture.save([StoreFixture.heartRate(s(Int64(limit)))]), [.stored])
        XCTAssertEqual(try fixture.count(UUIDLevels.recent), 0)
        XCTAssertEqual(try fixture.count("\(UUIDLevels.directory) WHERE level = 0 AND entries = \(limit)"), 1)
    }

    /// A claim of `uuidRunClaimRows` UUIDs or more is a run of level 0 of its own, sorted in memory, and
    /// leaves the recent level alone: its UUIDs are retried, refused with other content and repeated
    /// within a batch as the recent level's are; a batch refused after its claim leaves no run behind;
    /// eight such runs merge into one of level 1, every UUID found once, across a reopen.
    func testABulkClaimIsARunOfItsOwn() async throws {
        let fixture = try await StoreFixture(options: .withoutIdleMerges)
        guard fixture.isSQLite else { return }
        _ = try await fixture.store.write { context throws(HealthError) in context.uuidRunClaimRows = 8 }
        func batch(_ first: Int, _ count: Int) -> [Sample] {
            (first..<first + count).map { StoreFixture.heartRate(s(Int64($0 * 10)), uuid: Self.spreadUUID($0)) }
        }
        let runs = "\(UUIDLevels.directory) WHERE level = 0"
        let first = batch(0, 10)
        try await expect(await fixture.save(first + [first[0]]), Array(repeating: .stored, count: 10) + [.alreadyStored])
        XCTAssertEqual(try fixture.count(UUIDLevels.recent), 0, "a bulk claim in the recent level")
        XCTAssertEqual(try fixture.count("\(runs) AND entries = 10"), 1)
        XCTAssertEqual(Set(try levels(fixture, of: first).values), [Self.level(0)])
        try await expect(await fixture.save(first), Array(repeating: .alreadyStored, count: 10))
        let reuse = StoreFixture.heartRate(first[3].start, bpm: 99, uuid: first[3].uuid)
        try await expectReuseRefused(fixture, batch(10, 9) + [reuse], index: 9)
        XCTAssertEqual(try fixture.count(UUIDLevels.directory), 1, "a refused batch's run left behind")
        XCTAssertEqual(try fixture.count(UUIDLevels.recent), 0)

        var saved = first
        for index in 1..<UUIDLevels.runFanout {
            let next = batch(index * 10, 8 + index)
            try await expect(await fixture.save(next), Array(repeating: .stored, count: next.count))
            saved += next
        }
        XCTAssertEqual(try fixture.count(runs), 0, "eight bulk runs not merged")
        XCTAssertEqual(try fixture.count("\(UUIDLevels.directory) WHERE level = 1 AND entries = \(saved.count) AND cursor IS NULL"), 1)
        XCTAssertEqual(Set(try levels(fixture, of: saved).values), [Self.level(1)])
        XCTAssertEqual(try levels(fixture, of: saved).count, saved.count)
        try await fixture.reopen()
        try await expectFilterHoldsEveryUUID(fixture, count: saved.count)
        try await expect(await fixture.save(saved), Array(repeating: .alreadyStored, count: saved.count))
        try await expect(await fixture.query().count, saved.count)
    }

    /// A batch whose claims gather into a pending run saves as one whose claims enter the recent level:
    /// the same outcomes and stored samples, every UUID in one level, with a correlation (which claims
    /// its own UUIDs and reads by UUID), a synced sample replacing an older version, UUIDs repeated
    /// across the batch's chunks, before and after those objects, and retries of earlier batches.
    func testBulkClaimsSaveAsTheRecentLevelDoes() async throws {
        let bulk = try await StoreFixture(options: .withoutIdleMerges), recent = try await StoreFixture(options: .withoutIdleMerges)
        guard bulk.isSQLite else { return }
        _ = try await bulk.store.write { context throws(HealthError) in context.uuidRunClaimRows = 4 }
        let synced = { (version: Int64, bpm: Double) in
            StoreFixture.heartRate(s(500), bpm: bpm, metadata: [MetadataKey.syncIdentifier: .string("hr"), MetadataKey.syncVersion: .int(version)])
        }
        let plain = (0..<300).map { StoreFixture.heartRate(s(Int64($0)), uuid: Self.spreadUUID($0)) }
        let pressure = Sample(type: StoreFixture.bloodPressure, start: s(900), end: s(900), body: .correlation([
            Sample(type: StoreFixture.systolic, start: s(900), end: s(900), body: .quantity(Quantity(120, "mmHg"), count: 1)),
            Sample(type: StoreFixture.diastolic, start: s(900), end: s(900), body: .quantity(Quantity(80, "mmHg"), count: 1)),
        ]))
        let batches: [[Sample]] = [
            [synced(1, 60)],
            Array(plain[0..<150]) + [plain[3]] + Array(plain[150..<200]) + [pressure, plain[160], synced(2, 61)] + Array(plain[200..<250]) + [plain[0]],
            Array(plain[100..<300]),
            Array(plain[250..<300]) + [pressure],
        ]
        for batch in batches {
            let outcomes = try await bulk.save(batch)
            try await expect(outcomes, try await recent.save(batch))
        }
        XCTAssertGreaterThan(try fixtureRunsHold(bulk), 0, "the bulk batches claimed into the recent level")
        XCTAssertEqual(try fixtureRunsHold(recent), 0)
        try await expect(await bulk.query([StoreFixture.heartRate, StoreFixture.bloodPressure, StoreFixture.systolic]).map(\.uuid),
                         await recent.query([StoreFixture.heartRate, StoreFixture.bloodPressure, StoreFixture.systolic]).map(\.uuid))
        XCTAssertEqual(try levels(bulk, of: plain).count, plain.count)
        try await expect(await bulk.query().count, await recent.query().count)
    }

    /// Level-0 runs of the fixture.
    private func fixtureRunsHold(_ fixture: StoreFixture) throws -> Int {
        try fixture.count("\(UUIDLevels.directory) WHERE level = 0")
    }

    /// A retried UUID is looked up in the levels once: the claim keeps the key it found the stored sample
    /// at, and the comparison with the stored row reads it by that key (a lookup by UUID would read the
    /// recent level and a row of every run again), whichever level holds it.
    func testARetryKeepsTheKeyItsSampleWasFoundAt() async throws {
        let fixture = try await StoreFixture()
        guard fixture.isSQLite else { return }
        let saved = Array(try await fillLevels(fixture, pairs: 21).suffix(32))
        XCTAssertEqual(Set(try levels(fixture, of: saved).values).count, 3, "the test needs every level")
        try await expect(await fixture.save(saved), Array(repeating: .alreadyStored, count: saved.count))
        let kept = try await fixture.store.write { context throws(HealthError) in
            context.heldKeys.map { ($0.key.value, $0.value.type, $0.value.anchor) }
        }
        XCTAssertEqual(Set(kept.map(\.0)), Set(saved.map(\.uuid)), "the retried UUIDs' keys")
        let db = try fixture.connect()
        let row = try db.prepare("SELECT uuid FROM samples WHERE owner = ? AND type = ? AND anchor = ?")
        for (uuid, type, anchor) in kept {
            row.reset()
            row.bind(all: [.int(fixture.owner.rawValue), .int(type), .int(anchor)])
            XCTAssertTrue(try row.step())
            XCTAssertEqual(row.uuid(0), uuid)
        }
        row.reset()
    }

    /// A commit whose UUIDs went into a run of their own merges their share of a due merge, as one whose
    /// UUIDs entered the recent level: a bulk save keeps the merges it makes due going.
    func testABulkRunClaimCarriesItsMergeShare() async throws {
        let fixture = try await StoreFixture(options: .withoutIdleMerges)
        guard fixture.isSQLite else { return }
        _ = try await fixture.writeRunsDue(perRun: 4_000)
        let before = try fixture.mergedIntoLevel1()
        _ = try await fixture.store.write { context throws(HealthError) in context.uuidRunClaimRows = 100 }
        let bulk = (0..<300).map { StoreFixture.heartRate(s(10 + Int64($0))) }
        try await expect(await fixture.save(bulk), Array(repeating: .stored, count: bulk.count))
        XCTAssertEqual(try fixture.count(UUIDLevels.recent), 0)
        let share = bulk.count * UUIDLevels.mergeSharePerClaim
        XCTAssertGreaterThan(share, UUIDLevels.mergeSliceFloor, "the test needs a share above the floor")
        XCTAssertGreaterThanOrEqual(try fixture.mergedIntoLevel1() - before, share)
    }

    /// The recent level's limit is the writer's, not the store's: a store written while it held more
    /// rows (level-0 runs of the old size, a recent level fuller than the new limit) keeps every UUID
    /// unique and findable under a lower one. The first commit turns the full recent level into a run,
    /// and the old runs merge with the new, smaller ones when level 0 next holds eight.
    func testAStoreWrittenWithALargerRecentLevelKeepsEveryUUID() async throws {
        let fixture = try await StoreFixture()
        guard fixture.isSQLite else { return }
        // Three runs of 16 and 10 rows in the recent level.
        var saved = try await fillLevels(fixture, pairs: 29, limit: 16)
        XCTAssertEqual(try fixture.count("\(UUIDLevels.directory) WHERE level = 0 AND entries = 16"), 3)
        XCTAssertEqual(try fixture.count(UUIDLevels.recent), 10)

        await fixture.store.close()
        fixture.store = try SQLiteStore.open(path: fixture.path)
        _ = try await fillLevels(fixture, pairs: 0)
        XCTAssertEqual(try fixture.count(UUIDLevels.recent), 0, "the first commit moves the full recent level")
        XCTAssertEqual(try fixture.count("\(UUIDLevels.directory) WHERE level = 0 AND entries = 10"), 1)
        // Four runs of 4 make eight at level 0: one uneven merge of 3 × 16 + 10 + 4 × 4 entries.
        saved += try await fillLevels(fixture, pairs: 8, from: 29)
        XCTAssertEqual(try fixture.count("\(UUIDLevels.directory) WHERE level = 1 AND entries = 74 AND cursor IS NULL"), 1)
        XCTAssertEqual(try fixture.count("\(UUIDLevels.directory) WHERE level = 0"), 0)

        let held = try levels(fixture, of: saved)
        XCTAssertEqual(held.count, saved.count, "every UUID in exactly one level")
        XCTAssertEqual(Set(held.values), [Self.level(1)])
        await fixture.store.close()
        fixture.store = try SQLiteStore.open(path: fixture.path)
        try await expectFilterHoldsEveryUUID(fixture, count: saved.count)
        try await expect(await fixture.save(saved), Array(repeating: .alreadyStored, count: saved.count))
        for probe in [saved[0], saved[50], saved[73]] {
            try await expectReuseRefused(fixture, [StoreFixture.heartRate(probe.start, bpm: 99, uuid: probe.uuid)], index: 0)
        }
    }

    /// A run's rows are found by one seek each: every head of thousands of entries (many rows of a run,
    /// heads shared by several entries and owners, entries sharing the first head of a row) is found,
    /// with each of its entries and nothing else, in the recent level, in runs, and across a merge.
    func testRunsFindEveryHeadAcrossRows() async throws {
        let fixture = try await StoreFixture()
        var generator = SystemRandomNumberGenerator()
        var made: [UUIDEntry] = []
        for index in 0..<6_000 {
            let head = index % 7 == 0 && !made.isEmpty ? made[made.count - 1].head : generator.next()
            made.append(UUIDEntry(head: head, owner: Int64(index % 3 + 1), type: Int64(index % 5 + 1), anchor: Int64(index * 1_000 + 1)))
        }
        let entries = made
        // Into the recent level, then into a run unless `keep`.
        let insert = { (batch: ArraySlice<UUIDEntry>, keep: Bool) async throws in
            try await fixture.store.write { [batch] context throws(HealthError) in
                let row = try context.db.prepare("INSERT INTO \(UUIDLevels.recent) (head, owner, type, anchor) VALUES (?, ?, ?, ?)")
                for entry in batch {
                    row.reset()
                    row.bind(all: [.blob(UUIDEntry.blob(entry.head)), .int(entry.owner), .int(entry.type), .int(entry.anchor)])
                    try row.run()
                }
                if !keep { try context.flushRecentLevel() }
                context.uuidMergeDue = false
            }
        }
        for start in stride(from: 0, to: 4_000, by: 500) { try await insert(entries[start..<start + 500], false) }
        try await insert(entries[4_000..<5_000], false)
        try await insert(entries[5_000...], true)
        XCTAssertGreaterThan(try fixture.count("\(UUIDLevels.runs) WHERE run = 9"), 1, "the test needs runs of several rows")
        for merged in [false, true] {
            try expectEveryHead(fixture, entries)
            while try await fixture.store.write({ context throws(HealthError) in
                context.uuidMergeSliceEntries = 1_000
                return try context.mergeUUIDRunSlice()
            }) {
                if !merged { try expectEveryHead(fixture, entries) }
            }
        }
        XCTAssertEqual(try fixture.count("\(UUIDLevels.directory) WHERE level = 1"), 1)
    }

    /// A commit merges its share of a due merge (`UUIDLevels.mergeShare`): a lone save's commit a slice
    /// of about `mergeSliceFloor` entries, a bulk save's `mergeSharePerClaim` entries a sample, each
    /// slice ending where a row ends, so a merge made of such slices leaves its run's rows whole (no
    /// row but the last could have taken the next row's first entry) and finds every entry once.
    func testCommitsMergeTheirShareInWholeRows() async throws {
        let fixture = try await StoreFixture(options: .withoutIdleMerges)
        let perRun = 4_000
        _ = try await fixture.writeRunsDue(perRun: perRun)
        let total = perRun * UUIDLevels.runFanout
        let merged = fixture.mergedIntoLevel1
        // The merge began with the last run's commit, which claimed nothing: a slice of the floor.
        let first = try merged()
        XCTAssertGreaterThanOrEqual(first, UUIDLevels.mergeSliceFloor)
        XCTAssertLessThan(first, UUIDLevels.mergeSliceFloor + UUIDLevels.runRowBytes / UUIDRunBlock.headBytes, "a row past the floor at most")
        try await expect(await fixture.save([StoreFixture.heartRate(s(1))]), [.stored])
        let lone = try merged() - first
        XCTAssertGreaterThanOrEqual(lone, UUIDLevels.mergeSliceFloor)
        XCTAssertLessThan(lone, UUIDLevels.mergeSliceFloor + UUIDLevels.runRowBytes / UUIDRunBlock.headBytes)
        let bulk = (0..<1_000).map { StoreFixture.heartRate(s(10 + Int64($0))) }
        try await expect(await fixture.save(bulk), Array(repeating: .stored, count: bulk.count))
        let share = 1_000 * UUIDLevels.mergeSharePerClaim
        XCTAssertGreaterThanOrEqual(try merged() - first - lone, share)
        XCTAssertLessThan(try merged() - first - lone, share + UUIDLevels.runRowBytes / UUIDRunBlock.headBytes)
        // Lone saves finish it.
        var saves = 0
        while try fixture.count("\(UUIDLevels.directory) WHERE level = 0") > 0 {
            try await expect(await fixture.save([StoreFixture.heartRate(s(2_000 + Int64(saves)))]), [.stored])
            saves += 1
            XCTAssertLessThan(saves, total / UUIDLevels.mergeSliceFloor + 1, "the merge does not finish")
        }
        try await expect(try fixture.count("\(UUIDLevels.directory) WHERE cursor IS NOT NULL"), 0)
        try await expect(try fixture.count(UUIDLevels.all), total + 1 + bulk.count + saves)
        let db = try fixture.connect()
        let rows = try db.prepareOnce("SELECT r.data FROM \(UUIDLevels.runs) r JOIN \(UUIDLevels.directory) d USING (run) WHERE d.level = 1 ORDER BY r.first_head")
        var run: [[UUIDEntry]] = []
        while try rows.step() { run.append(UUIDRunBlock.decode(rows.blob(0) ?? Data())) }
        XCTAssertEqual(run.reduce(0) { $0 + $1.count }, total)
        for (row, next) in zip(run, run.dropFirst()) {
            let widths = UUIDRunBlock.widths(row + [next[0]])
            XCTAssertGreaterThan(UUIDRunBlock.size(count: row.count + 1, widths), UUIDLevels.runRowBytes, "a part-filled row")
        }
    }

    /// `uuid_keys` prepares statements of its own on the connection that reads it; SQLite finalizes them
    /// when it disconnects the table, which closing the connection does first, so a writer's, a
    /// reader's and a read-only connection that read it close at once (`sqlite3_close`, not left open as
    /// a zombie with statements unfinalized). Closing with a statement of its own still open is refused,
    /// so the check can fail.
    func testConnectionsThatReadUUIDKeysClose() async throws {
        let fixture = try await StoreFixture()
        let saved = (0..<6).map { StoreFixture.heartRate(s(Int64($0))) }
        try await expect(await fixture.save(Array(saved[..<3])), [.stored, .stored, .stored])
        try await fixture.store.write { context throws(HealthError) in try context.flushRecentLevel() }
        try await expect(await fixture.save(Array(saved[3...])), [.stored, .stored, .stored])
        await fixture.store.close()
        let owner = fixture.owner.rawValue
        let connections: [(String, () throws -> SQLiteConnection)] = [
            ("writer", { try SQLiteConnection(path: fixture.path, readOnly: false) }),
            ("reader", { try SQLiteStore.readConnection(fixture.path) }),
            ("read-only", { try SQLiteConnection(path: fixture.path, readOnly: true) }),
        ]
        for (name, open) in connections {
            let db = try open()
            do {
                // Inside a write transaction on the writer, as the claim asks; a read transaction elsewhere.
                if name == "writer" { try db.beginWrite() } else { try db.beginRead() }
                let held = try db.prepare(UUIDLevels.heldKeysSQL)
                for sample in [saved[0], saved[5]] {
                    held.reset()
                    held.bind(all: [.blob(UUIDLevels.head(sample.uuid)), .int(owner)])
                    XCTAssertTrue(try held.step(), "\(name): the head of a UUID in \(sample == saved[0] ? "a run" : "the recent level")")
                }
                held.reset()
                let list = try db.prepareOnce("SELECT count(*) FROM \(UUIDLevels.all) WHERE owner = ?1 AND head IN (substr(?2, 1, 8), substr(?3, 1, 8))")
                list.bind(all: [.int(owner), .uuid(saved[1].uuid), .uuid(saved[4].uuid)])
                _ = try list.step()
                XCTAssertEqual(list.int(0), 2, name)
                let every = try db.prepareOnce("SELECT count(*) FROM \(UUIDLevels.all)")
                _ = try every.step()
                XCTAssertEqual(every.int(0), 6, name)
                try db.execute("COMMIT")
                withExtendedLifetime((held, list, every)) {
                    XCTAssertEqual(db.close(), SQLITE_BUSY, "\(name): closed with statements of its own open")
                }
            }
            XCTAssertEqual(db.close(), SQLITE_OK, "\(name): unable to close, statements left unfinalized")
        }
    }

    /// `uuid_keys` gives each head's entries of each owner exactly, one at a time and as an IN list.
    private func expectEveryHead(_ fixture: StoreFixture, _ entries: [UUIDEntry], file: StaticString = #filePath, line: UInt = #line) throws {
        let db = try fixture.connect()
        try db.beginRead()
        let byHead = Dictionary(grouping: entries) { Pair(head: $0.head, owner: $0.owner) }
        let lookup = try db.prepare("SELECT type, anchor FROM \(UUIDLevels.all) WHERE head = ? AND owner = ?")
        for (pair, expected) in byHead {
            lookup.reset()
            lookup.bind(all: [.blob(UUIDEntry.blob(pair.head)), .int(pair.owner)])
            var found: [Int64] = []
            while try lookup.step() { found.append(lookup.int(1)) }
            XCTAssertEqual(found.sorted(), expected.map(\.anchor).sorted(), file: file, line: line)
        }
        lookup.reset()
        lookup.bind(all: [.blob(UUIDEntry.blob(12_345)), .int(1)])
        XCTAssertFalse(try lookup.step(), "a head nobody stored", file: file, line: line)
        lookup.reset()
        let heads = Array(byHead.keys.filter { $0.owner == 2 }.prefix(50))
        let list = try db.prepareOnce("""
            SELECT count(*) FROM \(UUIDLevels.all) WHERE owner = 2 AND head IN (\(Array(repeating: "?", count: heads.count).joined(separator: ", ")))
            """)
        list.bind(all: heads.map { .blob(UUIDEntry.blob($0.head)) })
        _ = try list.step()
        XCTAssertEqual(Int(list.int(0)), heads.reduce(0) { $0 + byHead[$1]!.count }, file: file, line: line)
        list.reset()
        XCTAssertEqual(try fixture.count(UUIDLevels.all), entries.count, "each entry once", file: file, line: line)
        try db.execute("COMMIT")
    }

    private struct Pair: Hashable {
        let head: UInt64, owner: Int64
    }

    /// SQLite's levels keep only a UUID's first 8 bytes (`UUIDLevels.head`); UUIDs sharing them stay
    /// distinct: saved in one batch beside a repeat, retried, reused with other content, by another
    /// owner, looked up and deleted by UUID, in every level, across a reopen, and after one is deleted.
    /// On PostgreSQL (its unique index) the same saves and lookups behave alike.
    func testUUIDsSharingTheirHeadStayDistinct() async throws {
        try await forEachEngine {
            let fixture = try await StoreFixture()
            try await expect(await fixture.save((0..<6).map { StoreFixture.heartRate(s(Int64($0))) }), Array(repeating: .stored, count: 6))
            let (first, twin, third) = (Self.sharingHead(1), Self.sharingHead(2), Self.sharingHead(3))
            let a = StoreFixture.heartRate(s(100), bpm: 61, uuid: first), b = StoreFixture.heartRate(s(101), bpm: 62, uuid: twin)
            try await expect(await fixture.save([a, b, a]), [.stored, .stored, .alreadyStored])
            try await expectReuseRefused(fixture, [StoreFixture.heartRate(s(102)), StoreFixture.heartRate(s(100), bpm: 99, uuid: first)], index: 1)
            // Another owner's UUID of the same head, and the same UUIDs, are its own.
            let bob = try await fixture.store.addOwner(name: "bob").0
            let bobs = [StoreFixture.heartRate(s(100), bpm: 70, uuid: first), StoreFixture.heartRate(s(103), bpm: 71, uuid: third)]
            try await expect(await fixture.save(bobs, owner: bob), [.stored, .stored])
            try await expect(Set(await fixture.query([StoreFixture.heartRate], .uuids([first, twin, third]), owner: bob).map(\.uuid)), [first, third])

            // In the recent level, then a run, then a merged run.
            let held = try levels(fixture, of: [a, b])
            if fixture.isSQLite { XCTAssertEqual(Set(held.values), [UUIDLevels.recent]) }
            for level in [nil, 0, 1] {
                if fixture.isSQLite, let level {
                    // Then seven runs of a filler each, so eight merge.
                    for filler in 0..<(level == 0 ? 1 : UUIDLevels.runFanout - 1) {
                        if level == 1 { try await expect(await fixture.save([StoreFixture.heartRate(s(200 + Int64(filler)))]), [.stored]) }
                        try await fixture.store.write { context throws(HealthError) in try context.flushRecentLevel() }
                    }
                    if level == 1 { try await fixture.store.write { context throws(HealthError) in _ = try context.mergeUUIDRunSlice() } }
                    XCTAssertEqual(Set(try levels(fixture, of: [a, b]).values), [Self.level(level)])
                }
                try await expectHeadSharersDistinct(fixture, [a, b])
            }
            try await fixture.reopen()
            try await expectHeadSharersDistinct(fixture, [a, b])

            // Deleted by UUID: only that sample goes; its twin stays, and stays taken.
            let owns = Deleter(owner: fixture.owner, bundleID: StoreFixture.watch.bundleID, isOwner: true)
            try await expect(await fixture.store.deleteObjects(uuids: [first], by: owns), 1)
            try await expect(await fixture.query([StoreFixture.heartRate], .uuids([first, twin])).map(\.uuid), [twin])
            try await expect(await fixture.save([b]), [.alreadyStored])
            try await expectReuseRefused(fixture, [StoreFixture.heartRate(s(101), bpm: 99, uuid: twin)], index: 0)
            // A third UUID of the head is stored; the deleted one may be saved again (as with a unique
            // index), after which both are taken.
            let c = StoreFixture.heartRate(s(104), bpm: 63, uuid: third), again = StoreFixture.heartRate(s(105), bpm: 64, uuid: first)
            try await expect(await fixture.save([c, again]), [.stored, .stored])
            try await fixture.reopen()
            try await expectHeadSharersDistinct(fixture, [again, b, c])
            try await expect(await fixture.query([StoreFixture.heartRate], .uuids([first, twin, third]), owner: bob).count, 2)
            if fixture.isSQLite {
                XCTAssertEqual(try levels(fixture, of: [again, b, c]).count, 3)
                try await expect(try fixture.count(UUIDLevels.all), 6 + 3 + 2 + UUIDLevels.runFanout - 1)
            }
        }
    }

    /// The claim looks the recent level up before it runs, not in its own insert (which would read the
    /// table it writes): in one claim, beside a new UUID, a UUID of a head the recent level already holds
    /// is stored as its own, a retry of a UUID held there is a retry, a reuse of it is refused, and a
    /// UUID repeated in the claim is stored once; each stays distinct in the recent level and after it.
    func testClaimsAgainstHeadsInTheRecentLevel() async throws {
        try await forEachEngine {
            let fixture = try await StoreFixture()
            let a = StoreFixture.heartRate(s(100), bpm: 61, uuid: Self.sharingHead(1))
            try await expect(await fixture.save([a]), [.stored])
            let twin = StoreFixture.heartRate(s(101), bpm: 62, uuid: Self.sharingHead(2)), fresh = StoreFixture.heartRate(s(102))
            try await expect(await fixture.save([twin, a, fresh, twin]), [.stored, .alreadyStored, .stored, .alreadyStored])
            try await expectReuseRefused(fixture, [StoreFixture.heartRate(s(103)), StoreFixture.heartRate(s(100), bpm: 99, uuid: a.uuid)], index: 1)
            if fixture.isSQLite {
                XCTAssertEqual(try levels(fixture, of: [a, twin, fresh]), [a.uuid: UUIDLevels.recent, twin.uuid: UUIDLevels.recent,
                                                                           fresh.uuid: UUIDLevels.recent])
            }
            try await expectHeadSharersDistinct(fixture, [a, twin, fresh])
            try await fixture.reopen()
            try await expectHeadSharersDistinct(fixture, [a, twin, fresh])
        }
    }

    /// A store left by schema step 18 (levels of whole UUIDs) migrates to heads: its samples' UUIDs, two
    /// of them sharing a head, stay taken, and a UUID deleted before the migration (its level row gone
    /// with it then) is as free to save again as it was.
    func testLevelsOfWholeUUIDsMigrateToHeads() async throws {
        let fixture = try await StoreFixture()
        let (first, twin, deleted) = (Self.sharingHead(1), Self.sharingHead(2), Self.sharingHead(3))
        let other = UUID()
        await fixture.store.close()
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: fixture.path + suffix) }
        do {
            let db = try SQLiteConnection(path: fixture.path, readOnly: false)
            try Schema.migrate(db, to: 18)
            let owner = fixture.owner.rawValue
            try db.execute("""
                INSERT INTO owners (id, name, created) VALUES (\(owner), 'alice', 0);
                INSERT INTO anchor_counters (owner, last_anchor) VALUES (\(owner), 4);
                INSERT INTO types (owner, id, identifier) VALUES (\(owner), 1, '\(StoreFixture.heartRate)');
                INSERT INTO sources (owner, id, bundle_id) VALUES (\(owner), 1, '\(StoreFixture.watch.bundleID)');
                """)
            let revision = try db.prepareOnce("""
                INSERT INTO revisions (owner, id, key, source, name, version, os_major, os_minor, os_patch) VALUES (?, 1, ?, 1, 'Watch', '1.0', 10, 1, 0)
                """)
            revision.bind(all: [.int(owner), .blob(Data([0]))])
            try revision.run()
            // Anchor 3 was the deleted sample's: a tombstone at anchor 4, no row and no level row (step 18's delete).
            let sample = try db.prepare("""
                INSERT INTO samples (owner, anchor, uuid, type, start_time, value, source, revision) VALUES (?, ?, ?, 1, ?, 1, 1, 1)
                """)
            let level = try db.prepare("INSERT INTO uuids_merged (uuid, owner, type, anchor) VALUES (?, ?, 1, ?)")
            for (anchor, uuid) in [(Int64(1), first), (2, twin), (5, other)] {
                sample.reset()
                sample.bind(all: [.int(owner), .int(anchor), .uuid(uuid), .int(s(anchor))])
                try sample.run()
                level.reset()
                level.bind(all: [.uuid(uuid), .int(owner), .int(anchor)])
                try level.run()
            }
            let tombstone = try db.prepareOnce("""
                INSERT INTO tombstones (owner, anchor, uuid, type, start_time, end_time, source, revision, deleted, live_anchor)
                VALUES (?, 4, ?, 1, ?, ?, 1, 1, 0, 3)
                """)
            tombstone.bind(all: [.int(owner), .uuid(deleted), .int(s(3)), .int(s(3))])
            try tombstone.run()
            try db.execute("UPDATE anchor_counters SET last_anchor = 5")
        }
        fixture.store = try SQLiteStore.open(path: fixture.path)
        // As stored: in the canonical unit, without a device.
        let stored = zip([first, twin, other], [Int64(1), 2, 5]).map { uuid, anchor in
            Sample(uuid: uuid, type: StoreFixture.heartRate, start: s(anchor), end: s(anchor), body: .quantity(Quantity(1, "count/s"), count: 1))
        }
        try await expect(await fixture.query().map(\.uuid), [first, twin, other])
        try await expect(await fixture.store.save(fixture.batch(stored, device: nil)), [.alreadyStored, .alreadyStored, .alreadyStored])
        for uuid in [first, twin, other] {
            try await expectReuseRefused(fixture, [StoreFixture.heartRate(s(900)), StoreFixture.heartRate(s(9), bpm: 99, uuid: uuid)], index: 1)
        }
        try await expect(await fixture.save([StoreFixture.heartRate(s(3), uuid: deleted)]), [.stored])
        try await expect(await fixture.query([StoreFixture.heartRate], .uuids([twin, deleted])).map(\.uuid), [twin, deleted])
        let all = try await fixture.query()
        XCTAssertEqual(try levels(fixture, of: all).count, 4)
        try await expect(try fixture.count(UUIDLevels.all), 4)
    }

    /// A store whose UUIDs step 19 left in all three levels migrates to runs (step 20): the older levels
    /// packed into one run, the recent level kept; every UUID is still found, a retry of each is a retry
    /// and its reuse refused, two UUIDs sharing a head included.
    func testOldLevelsMigrateToRuns() async throws {
        let fixture = try await StoreFixture()
        let saved = (0..<40).map { StoreFixture.heartRate(s(Int64($0)), uuid: Self.spreadUUID($0)) }
            + [StoreFixture.heartRate(s(50), bpm: 61, uuid: Self.sharingHead(1)), StoreFixture.heartRate(s(51), bpm: 62, uuid: Self.sharingHead(2))]
        try await expect(await fixture.save(saved), Array(repeating: .stored, count: saved.count))
        await fixture.store.close()
        // The levels as step 19 made them, a third of the samples in each.
        do {
            let db = try SQLiteConnection(path: fixture.path, readOnly: false)
            let level = "(head BLOB NOT NULL, owner INTEGER NOT NULL, type INTEGER NOT NULL, anchor INTEGER NOT NULL, PRIMARY KEY (head, owner, type, anchor)) WITHOUT ROWID"
            let rows = "SELECT substr(uuid, 1, 8), owner, type, anchor FROM samples WHERE anchor % 3 ="
            try db.execute("""
                DROP TABLE \(UUIDLevels.runs); DROP TABLE \(UUIDLevels.directory); DELETE FROM \(UUIDLevels.recent);
                ALTER TABLE store_info ADD COLUMN uuid_level_moves INTEGER NOT NULL DEFAULT 0;
                CREATE TABLE uuids_middle \(level); CREATE TABLE uuids_merged \(level);
                INSERT INTO \(UUIDLevels.recent) \(rows) 0; INSERT INTO uuids_middle \(rows) 1; INSERT INTO uuids_merged \(rows) 2;
                CREATE VIEW sample_uuids AS SELECT head, owner, type, anchor FROM uuids_recent
                    UNION ALL SELECT head, owner, type, anchor FROM uuids_middle UNION ALL SELECT head, owner, type, anchor FROM uuids_merged;
                PRAGMA user_version = 19;
                """)
        }
        fixture.store = try SQLiteStore.open(path: fixture.path)
        let held = try levels(fixture, of: saved)
        XCTAssertEqual(held.count, saved.count)
        XCTAssertEqual(Set(held.values), [UUIDLevels.recent, Self.level(0)])
        try await expect(try fixture.count(UUIDLevels.all), saved.count)
        try await expect(await fixture.save(saved), Array(repeating: .alreadyStored, count: saved.count))
        try await expect(await fixture.query([StoreFixture.heartRate], .uuids(Set(saved.map(\.uuid)))).count, saved.count)
        for probe in [saved[0], saved[1], saved[2], saved[40], saved[41]] {
            try await expectReuseRefused(fixture, [StoreFixture.heartRate(s(900)), StoreFixture.heartRate(probe.start, bpm: 99, uuid: probe.uuid)],
                                         index: 1)
        }
        try await fixture.reopen()
        try await expect(await fixture.save(saved), Array(repeating: .alreadyStored, count: saved.count))
    }

    /// Retries of `samples` are retries, their UUIDs with other content refused, and each is found and
    /// counted by UUID on its own, though they share their head.
    private func expectHeadSharersDistinct(_ fixture: StoreFixture, _ samples: [Sample], file: StaticString = #filePath,
                                           line: UInt = #line) async throws {
        try await expect(await fixture.save(samples), Array(repeating: .alreadyStored, count: samples.count), file: file, line: line)
        for sample in samples {
            try await expect(await fixture.save([sample]), [.alreadyStored], file: file, line: line)
            try await expectReuseRefused(fixture, [StoreFixture.heartRate(s(900)), StoreFixture.heartRate(sample.start, bpm: 99, uuid: sample.uuid)],
                                         index: 1, file: file, line: line)
            try await expect(await fixture.query([StoreFixture.heartRate], .uuids([sample.uuid])).map(\.body), [sample.body], file: file, line: line)
        }
    }

    /// UUIDs that differ only after their first 8 bytes (the levels' head).
    private static func sharingHead(_ index: UInt8) -> UUID {
        UUID(uuid: (0x5E, 0xA1, 0x7C, 0x00, 0x42, 0x42, 0x42, 0x42, 0x80, index, 0, 0, 0, 0, 0, index))
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
        let rows = try db.prepareOnce(Self.pointedUUIDs(UUIDLevels.all, "s.owner, s.uuid"))
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
        let writes = [UUIDLevels.claimSQL(rows: 3), UUIDLevels.claimOneSQL, SampleRow.insertSQL(.sqlite, rows: 3)]
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

    /// Saves `pairs` batches of two heart rates (UUIDs spread by `spreadUUID`, the pairs numbered from
    /// `first`) with `limit` rows filling the recent level: at four, a run is written every other save
    /// (and eight runs merge into one of level 1); returns them in the order saved.
    private func fillLevels(_ fixture: StoreFixture, pairs: Int, from first: Int = 0, limit: Int = 4) async throws -> [Sample] {
        _ = try await fixture.store.write { context throws(HealthError) in context.uuidRecentLimit = limit }
        var saved: [Sample] = []
        for pair in first..<first + pairs {
            let objects = (0..<2).map { StoreFixture.heartRate(s(Int64(pair * 10 + $0 * 5)), uuid: Self.spreadUUID(pair * 2 + $0)) }
            try await expect(await fixture.save(objects), [.stored, .stored])
            saved += objects
        }
        return saved
    }

    /// A UUID whose first byte spreads samples over the head range.
    private static func spreadUUID(_ index: Int) -> UUID {
        var bytes = UUID().uuid
        bytes.0 = UInt8((index * 37) % 256)
        return UUID(uuid: bytes)
    }

    /// `columns` of the samples that `level`'s rows point at, each row's head checked against its sample's UUID.
    private static func pointedUUIDs(_ level: String, _ columns: String) -> String {
        """
        SELECT \(columns) FROM \(level) l JOIN samples s ON s.owner = l.owner AND s.type = l.type AND s.anchor = l.anchor
        WHERE substr(s.uuid, 1, 8) = l.head
        """
    }

    /// The levels `fillLevels(pairs: 21)` fills: the recent one, runs of level 0 and a merged run of level 1.
    private static let everyLevel: Set<String> = [UUIDLevels.recent, level(0), level(1)]

    /// What `levels(_:of:)` calls a run of `level`.
    private static func level(_ level: Int) -> String { "runs of level \(level)" }

    /// The level holding each of `samples`' UUIDs, the fixture owner's, read from the tables themselves
    /// (an input of a running merge without the entries its output holds, as `uuid_keys` reads it); a
    /// UUID held twice fails the test; empty on PostgreSQL.
    private func levels(_ fixture: StoreFixture, of samples: [Sample]) throws -> [UUID: String] {
        guard fixture.isSQLite else { return [:] }
        let db = try fixture.connect()
        try db.beginRead()
        defer { try? db.execute("COMMIT") }
        var keys: [[Int64]: String] = [:]
        var rows = 0
        let recent = try db.prepareOnce("SELECT type, anchor FROM \(UUIDLevels.recent) WHERE owner = \(fixture.owner.rawValue)")
        while try recent.step() {
            keys[[recent.int(0), recent.int(1)]] = UUIDLevels.recent
            rows += 1
        }
        let runs = try db.prepareOnce("""
            SELECT d.level, r.data, o.cursor FROM \(UUIDLevels.directory) d JOIN \(UUIDLevels.runs) r ON r.run = d.run
            LEFT JOIN \(UUIDLevels.directory) o ON o.run = d.merge_into
            """)
        while try runs.step() {
            let cursor = runs.blob(2).flatMap(UUIDEntry.head)
            for entry in UUIDRunBlock.decode(runs.blob(1) ?? Data()) where entry.owner == fixture.owner.rawValue && cursor.map({ entry.head > $0 }) ?? true {
                keys[[entry.type, entry.anchor]] = Self.level(Int(runs.int(0)))
                rows += 1
            }
        }
        XCTAssertEqual(rows, keys.count, "a UUID is in more than one level")
        let anchors = try db.prepareOnce("SELECT uuid, type, anchor FROM samples WHERE owner = \(fixture.owner.rawValue)")
        var held: [UUID: String] = [:]
        let wanted = Set(samples.map(\.uuid))
        while try anchors.step() {
            let uuid = anchors.uuid(0)
            if wanted.contains(uuid), let level = keys[[anchors.int(1), anchors.int(2)]] { held[uuid] = level }
        }
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

import Foundation
import HealthModel
@testable import HealthStorage
import XCTest

/// A group's lone plain samples go in together (`WriteContext.save(_:settle:)`): each save must still
/// get the outcome, the anchor and the failure it would have had had the group's jobs run one after
/// another. Every group here is queued behind a held job, so the writer takes it whole.
final class GroupedInsertTests: StoreTestCase {
    /// Submits a lone save now (the job is queued before this returns, so jobs keep this order).
    private func save(_ sample: Sample, _ f: StoreFixture, on queue: HeldQueue, source: Source = StoreFixture.watch) -> Outcome {
        let outcome = Outcome()
        f.store.save(f.batch([sample], source: source), on: queue) { result in outcome.result.withLock { $0 = result } }
        return outcome
    }

    /// A fresh store holding `stored`, its writer held, and the queue its saves complete on.
    private func heldStore(storing stored: [Sample]) async throws -> (StoreFixture, HeldQueue, WriterHold) {
        let f = try await StoreFixture()
        if !stored.isEmpty { try await f.save(stored) }
        return (f, HeldQueue(), try await WriterHold(f.store))
    }

    /// Releases the held writer once `jobs` are queued behind it, and runs the group's completions.
    private func release(_ hold: WriterHold, _ queue: HeldQueue, jobs: Int, _ f: StoreFixture) async throws {
        try await waitUntil { f.store.queuedWrites == jobs }
        try await hold.release()
        // Posted once the group is committed (a second time, with savepoints, when it was undone).
        try await waitUntil { queue.postCount > 0 }
        queue.runPosted()
    }

    private func refusal(_ outcome: Outcome, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertThrowsError(try outcome.get(), file: file, line: line) { error in
            XCTAssertEqual((error as? HealthError)?.code, .invalidArgument, file: file, line: line)
            XCTAssertEqual((error as? HealthError)?.objectIndex, 0, file: file, line: line)
        }
    }

    /// More lone saves than one insert takes (a full chunk, then smaller ones), one of them reusing a
    /// stored UUID with other content: it alone fails; every other is stored, acknowledged and readable,
    /// and the stored sample keeps its content.
    func testOneRefusedAmongManyLoneSavesFailsAlone() async throws {
        try await forEachEngine {
            let stored = StoreFixture.heartRate(s(1), bpm: 70)
            let (f, queue, hold) = try await heldStore(storing: [stored])
            let samples = (0..<150).map { StoreFixture.heartRate(s(10 + $0), bpm: Double(60 + $0 % 40)) }
            var outcomes = samples[..<77].map { save($0, f, on: queue) }
            let refused = save(StoreFixture.heartRate(s(1), bpm: 99, uuid: stored.uuid), f, on: queue)
            outcomes += samples[77...].map { save($0, f, on: queue) }
            let commitsBefore = f.store.commitCount
            try await release(hold, queue, jobs: 151, f)
            for outcome in outcomes { XCTAssertEqual(try outcome.get(), [.stored]) }
            refusal(refused)
            XCTAssertEqual(f.store.commitCount - commitsBefore, 2, "the held job, then the group undone and committed once without the refused save")
            try await f.reopen()
            let read = try await f.query()
            XCTAssertEqual(Set(read.map(\.uuid)), Set(samples.map(\.uuid) + [stored.uuid]))
            XCTAssertEqual(read.first { $0.uuid == stored.uuid }?.body, stored.body, "the refused save changed the stored sample")
        }
    }

    /// A group undone by a refused row after its first try interned a new source, revision, type and
    /// device (the writer ends such a try's bookkeeping once, as one job) runs again with savepoints,
    /// where the others intern them anew: they are stored and read back with their own type, device
    /// and source, not with ids of rows the undo removed.
    func testAGroupUndoneAfterInterningNewRowsStoresTheOthersWithThem() async throws {
        try await forEachEngine {
            let stored = StoreFixture.heartRate(s(1), bpm: 70)
            let (f, queue, hold) = try await heldStore(storing: [stored])
            let ring = Device(name: "Ring", manufacturer: "Example", model: "R1")
            let sleeps = [2, 6].map { Sample(type: StoreFixture.sleep, start: s($0), end: s($0 + 1), device: ring, body: .category(0)) }
            let pulse = StoreFixture.heartRate(s(8), bpm: 64, device: ring)
            let outcomes = [save(sleeps[0], f, on: queue, source: StoreFixture.scale)]
            let refused = save(StoreFixture.heartRate(s(1), bpm: 99, uuid: stored.uuid), f, on: queue)
            let others = [save(sleeps[1], f, on: queue, source: StoreFixture.scale), save(pulse, f, on: queue)]
            try await release(hold, queue, jobs: 4, f)
            XCTAssertEqual(try (outcomes + others).map { try $0.get() }, [[.stored], [.stored], [.stored]])
            refusal(refused)
            try await f.reopen()
            let read = try await f.query([StoreFixture.sleep, StoreFixture.heartRate], sort: [SampleSortDescriptor(.startDate)])
            XCTAssertEqual(read.map(\.uuid), [stored.uuid, sleeps[0].uuid, sleeps[1].uuid, pulse.uuid])
            XCTAssertEqual(read.map(\.type), [StoreFixture.heartRate, StoreFixture.sleep, StoreFixture.sleep, StoreFixture.heartRate])
            XCTAssertEqual(read.map(\.device), [nil, ring, ring, ring].map { $0 ?? StoreFixture.watchDevice })
            XCTAssertEqual(read.map { $0.sourceRevision?.source }, [StoreFixture.watch, StoreFixture.scale, StoreFixture.scale, StoreFixture.watch])
        }
    }

    /// Within one group, a UUID met again behaves as if the saves ran one after another: the same
    /// content is a retry, other content a refusal; so does a UUID stored before the group.
    func testUUIDsRepeatedWithinTheGroupAndRetries() async throws {
        try await forEachEngine {
            let stored = StoreFixture.heartRate(s(1), bpm: 70)
            let (f, queue, hold) = try await heldStore(storing: [stored])
            let twice = StoreFixture.heartRate(s(2), bpm: 71), reused = StoreFixture.heartRate(s(3), bpm: 72)
            let last = StoreFixture.heartRate(s(4), bpm: 73)
            let outcomes = [save(stored, f, on: queue), save(twice, f, on: queue), save(reused, f, on: queue), save(twice, f, on: queue)]
            let refused = save(StoreFixture.heartRate(s(3), bpm: 99, uuid: reused.uuid), f, on: queue)
            let lastOutcome = save(last, f, on: queue)
            try await release(hold, queue, jobs: 6, f)
            XCTAssertEqual(try outcomes.map { try $0.get() }, [[.alreadyStored], [.stored], [.stored], [.alreadyStored]])
            refusal(refused)
            XCTAssertEqual(try lastOutcome.get(), [.stored])
            try await f.reopen()
            let read = try await f.query(sort: [SampleSortDescriptor(.startDate)])
            XCTAssertEqual(read.map(\.uuid), [stored.uuid, twice.uuid, reused.uuid, last.uuid])
            XCTAssertEqual(read.map(\.body), [stored.body, twice.body, reused.body, last.body])
        }
    }

    /// Retries of stored samples, more than one insert takes: each is answered as a retry, the
    /// ones whose rows fill a chunk too.
    func testRetriesAcrossChunksAreAnsweredAsRetries() async throws {
        try await forEachEngine {
            let chunk = (StoreEngine.current.withLock { $0 } == .sqlite ? SQLDialect.sqlite : SQLDialect.postgreSQL).samplesPerInsert
            let samples = (0..<chunk + 2).map { StoreFixture.heartRate(s(Int64($0))) }
            let (f, queue, hold) = try await heldStore(storing: samples)
            let outcomes = samples.map { save($0, f, on: queue) }
            try await release(hold, queue, jobs: samples.count, f)
            for (index, outcome) in outcomes.enumerated() { XCTAssertEqual(try outcome.get(), [.alreadyStored], "save \(index)") }
            try await expect(try await f.query().count, samples.count)
        }
    }

    /// A group mixing lone saves, batches and a delete keeps the order of its jobs: the delete sees the
    /// lone save before it, a batch sees (as a retry) the lone save of its UUID before it, and a lone
    /// save after a batch is a retry of the batch's sample; changes carry anchors in job order.
    func testMixedGroupKeepsJobOrder() async throws {
        try await forEachEngine {
            let (f, queue, hold) = try await heldStore(storing: [])
            let anchor = try await f.anchor()
            let a = StoreFixture.sleep(s(0), s(1), value: 0), b = StoreFixture.heartRate(s(2)), c = StoreFixture.heartRate(s(3))
            let d = StoreFixture.heartRate(s(4)), e = StoreFixture.heartRate(s(5)), g = StoreFixture.heartRate(s(6))
            let saveA = save(a, f, on: queue)
            let (store, deleter) = (f.store, Deleter(owner: f.owner, bundleID: StoreFixture.watch.bundleID, isOwner: false))
            // By type: a delete that finds nothing succeeds, so the group is not run again with savepoints.
            let delete = Task { try await store.deleteObjects(type: StoreFixture.sleep, predicate: nil, by: deleter) }
            try await waitUntil { f.store.queuedWrites == 2 }
            let saveE = save(e, f, on: queue)
            let batch = Outcome()
            f.store.save(f.batch([b, e, c]), on: queue) { result in batch.result.withLock { $0 = result } }
            let saveC = save(c, f, on: queue), saveD = save(d, f, on: queue), saveG = save(g, f, on: queue)
            try await release(hold, queue, jobs: 7, f)
            XCTAssertEqual(try saveA.get(), [.stored])
            try await expect(try await delete.value, 1, "the delete did not see the lone save before it")
            XCTAssertEqual(try [saveE, batch, saveC, saveD, saveG].map { try $0.get() },
                           [[.stored], [.stored, .alreadyStored, .stored], [.alreadyStored], [.stored], [.stored]])
            try await f.reopen()
            let changes = try await f.store.queryAnchored(owner: f.owner, types: [StoreFixture.heartRate, StoreFixture.sleep], predicate: nil, anchor: anchor,
                                                          limit: 0, scope: .everything(callerBundleID: "x"))
            XCTAssertEqual(changes.samples.map(\.uuid), [e.uuid, b.uuid, c.uuid, d.uuid, g.uuid], "anchors out of job order")
            XCTAssertEqual(changes.deleted.map(\.uuid), [a.uuid])
        }
    }

    /// A batch's plain samples of every shape its chunk insert takes (quantities with and without a
    /// device, a unit other than the type's own, a value using every bit of its mantissa, metadata and
    /// device fields holding quotes, backslashes, braces and "NULL", a category) read back exactly as the same samples saved one at
    /// a time, which take the one-row insert. A UUID repeated within the batch is a retry with the same
    /// content; with other content it refuses the batch at the repeat's index, and none of it is stored.
    func testBatchRowsReadBackAsSavedOneByOne() async throws {
        try await forEachEngine {
            let odd = #"a "quoted" \back\slash, {braces} NULL"#
            let strap = Device(name: "Strap \"7\"", manufacturer: #"Back\slash"#, model: "NULL")
            let samples = [
                StoreFixture.heartRate(s(1), bpm: 61),
                StoreFixture.heartRate(s(2), bpm: 62.25, metadata: ["note": .string(odd), "NULL": .string("NULL")]),
                StoreFixture.heartRate(s(3), s(5), bpm: 63, device: strap),
                StoreFixture.heartRate(s(4), bpm: 0.1 * 3 + 64),
                Sample(type: StoreFixture.heartRate, start: s(6), end: s(6), body: .quantity(Quantity(1.5, "count/s"), count: 1)),
                Sample(type: StoreFixture.steps, start: s(7), end: s(9), body: .quantity(Quantity(120, "count"), count: 3)),
                StoreFixture.sleep(s(10), s(20), value: 2),
            ]
            let types = [StoreFixture.heartRate, StoreFixture.steps, StoreFixture.sleep]
            let together = try await StoreFixture()
            let outcomes = try await together.store.save(together.batch(samples + [samples[1]], device: nil))
            XCTAssertEqual(outcomes, Array(repeating: .stored, count: samples.count) + [.alreadyStored])
            let alone = try await StoreFixture()
            for sample in samples { _ = try await alone.store.save(alone.batch([sample], device: nil)) }
            let sort = [SampleSortDescriptor(.startDate)]
            // Each store's creation time is its own save's.
            func uncreated(_ samples: [Sample]) -> [Sample] {
                samples.map { Sample(uuid: $0.uuid, type: $0.type, start: $0.start, end: $0.end, metadata: $0.metadata, device: $0.device,
                                     sourceRevision: $0.sourceRevision, creationTime: nil, body: $0.body) }
            }
            let read = try await together.query(types, sort: sort)
            let readAlone = try await alone.query(types, sort: sort)
            XCTAssertEqual(read.count, samples.count)
            XCTAssertEqual(uncreated(read), uncreated(readAlone))
            XCTAssertEqual(read.first { $0.uuid == samples[1].uuid }?.metadata["note"], .string(odd))
            XCTAssertEqual(read.first { $0.uuid == samples[2].uuid }?.device, strap)
            XCTAssertNil(read.first { $0.uuid == samples[0].uuid }?.device)
            XCTAssertEqual(read.first { $0.uuid == samples[3].uuid }?.body, samples[3].body)

            let fresh = (0..<3).map { StoreFixture.heartRate(s(30 + $0)) }
            let other = StoreFixture.heartRate(s(31), bpm: 99, uuid: fresh[1].uuid)
            do {
                _ = try await together.store.save(together.batch(fresh + [other]))
                XCTFail("a UUID repeated with other content was stored")
            } catch let error as HealthError {
                XCTAssertEqual(error.code, .invalidArgument)
                XCTAssertEqual(error.objectIndex, 3)
            }
            try await expect(try await together.query(types).count, samples.count, "a refused batch stored some of its samples")
        }
    }

    /// A batch of more rows than several inserts take (SQLite's chunks of 100, PostgreSQL's of 500): a
    /// UUID of the first chunk repeated in the last with the same content is a retry and every other row
    /// is stored once, in order; repeated with other content, it refuses the batch at the repeat's index,
    /// and none of that batch is stored.
    func testBatchOfManyChunksSettlesEveryRowInOrder() async throws {
        try await forEachEngine {
            let f = try await StoreFixture()
            let samples = (0..<1_234).map { StoreFixture.heartRate(s(10 + Int64($0)), bpm: 60 + Double($0 % 50) / 7) }
            let outcomes = try await f.store.save(f.batch(samples + [samples[3]]))
            XCTAssertEqual(outcomes, Array(repeating: .stored, count: samples.count) + [.alreadyStored])
            let read = try await f.query(sort: [SampleSortDescriptor(.startDate)])
            XCTAssertEqual(read.map(\.uuid), samples.map(\.uuid))
            XCTAssertEqual(read.map(\.body), samples.map(\.body))

            let more = (0..<1_100).map { StoreFixture.heartRate(s(5_000 + Int64($0))) }
            let clash = StoreFixture.heartRate(s(5_001), bpm: 123, uuid: more[1].uuid)
            do {
                _ = try await f.store.save(f.batch(more + [clash]))
                XCTFail("a UUID repeated with other content was stored")
            } catch let error as HealthError {
                XCTAssertEqual(error.code, .invalidArgument)
                XCTAssertEqual(error.objectIndex, more.count)
            }
            try await expect(try await f.query().count, samples.count, "a refused batch stored some of its samples")
        }
    }

    /// On PostgreSQL a group's first try takes every sample's UUID to be new (`WriteContext.assumesNewUUIDs`,
    /// an insert without `ON CONFLICT`'s probe): a group holding a retry among new saves fails that try, is
    /// undone and run again, and every save gets the outcome it would have had alone; the next group
    /// skips that first try (`WriterThread.firstTriesPausedAfterRetry`). New samples go in on the first
    /// try. SQLite claims UUIDs itself and never tries.
    func testAGroupMeetingAStoredUUIDRunsAgainAndEverySaveKeepsItsOutcome() async throws {
        try await forEachEngine {
            let postgres = StoreEngine.current.withLock { $0 } != .sqlite
            let stored = StoreFixture.heartRate(s(1), bpm: 70)
            let (f, queue, hold) = try await heldStore(storing: [stored])
            let metrics = try XCTUnwrap(f.store.metrics)
            XCTAssertEqual(metrics.groupsTriedAgain.current, 0, "a new sample's save needed a second try")
            let fresh = (0..<20).map { StoreFixture.heartRate(s(10 + $0), bpm: Double(60 + $0)) }
            var outcomes = fresh[..<10].map { save($0, f, on: queue) }
            let retried = save(stored, f, on: queue)
            outcomes += fresh[10...].map { save($0, f, on: queue) }
            try await release(hold, queue, jobs: 21, f)
            for outcome in outcomes { XCTAssertEqual(try outcome.get(), [.stored]) }
            XCTAssertEqual(try retried.get(), [.alreadyStored])
            XCTAssertEqual(metrics.groupsTriedAgain.current, postgres ? 1 : 0)
            let after = try await f.save([stored, StoreFixture.heartRate(s(40), bpm: 80)])
            XCTAssertEqual(after, [.alreadyStored, .stored])
            XCTAssertEqual(metrics.groupsTriedAgain.current, postgres ? 1 : 0, "the group right after a retry tried again")
            let read = try await f.query()
            XCTAssertEqual(read.count, 22)
            XCTAssertEqual(Set(read.map(\.uuid)).count, 22)
        }
    }
}

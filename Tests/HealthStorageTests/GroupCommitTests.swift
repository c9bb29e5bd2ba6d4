import Dispatch
import Foundation
import HealthModel
@testable import HealthStorage
import Synchronization
import XCTest

/// Group commit: lone saves arriving while the writer is busy share one commit (one fsync at
/// power-loss durability), an idle writer commits at once, and a failing job in a group fails alone.
/// Commits are counted by the store, never timed.
final class GroupCommitTests: XCTestCase {
    private func options(window: Duration, jobs: Int) -> SQLiteStore.Options {
        var options = SQLiteStore.Options()
        options.groupCommitWindow = window
        options.groupCommitWindowJobs = jobs
        return options
    }

    /// Saves `sample` alone in its own task.
    private func save(_ sample: Sample, _ f: StoreFixture) -> Task<[SaveOutcome], any Error> {
        let (store, batch) = (f.store, f.batch([sample]))
        return Task { try await store.save(batch) }
    }

    func testLoneSavesArrivingWhileBusyShareOneCommit() async throws {
        // A long window that ends as soon as two jobs are gathered: the test never waits it out.
        let f = try await StoreFixture(options: options(window: .seconds(30), jobs: 2))
        let hold = try await WriterHold(f.store)
        let first = StoreFixture.heartRate(s(1), bpm: 61), second = StoreFixture.heartRate(s(2), bpm: 62)
        let firstSave = save(first, f)
        try await waitUntil { f.store.queuedWrites > 0 }
        let before = f.store.commitCount
        try await hold.release()
        // The writer took the first save (queued while it was busy) and gathers: the second save is
        // submitted only now, so without the window the first would already be committed alone.
        try await waitUntil { f.store.queuedWrites == 0 }
        let secondSave = save(second, f)
        let outcomes = try await [firstSave.value, secondSave.value]
        XCTAssertEqual(outcomes, [[.stored], [.stored]])
        XCTAssertEqual(f.store.commitCount - before, 2, "the held job's commit, then one commit (one fsync) for both lone saves")
        try await expect(Set(try await f.query().map(\.uuid)), [first.uuid, second.uuid])
    }

    /// Saves arriving while a commit runs are the next commit's, all of them in one, with the
    /// default policy (a commit paced by the window, or at once when the window is over).
    func testSavesArrivingWhileACommitRunsAreCommittedTogether() async throws {
        let f = try await StoreFixture(options: SQLiteStore.Options())
        let hold = try await WriterHold(f.store)
        let samples = (Int64(1)...40).map { StoreFixture.heartRate(s($0), bpm: 60 + Double($0)) }
        let saves = samples.map { save($0, f) }
        try await waitUntil { f.store.queuedWrites == samples.count }
        let commitsBefore = f.store.commitCount, jobsBefore = try XCTUnwrap(f.store.metrics).commitJobs.snapshot().sum
        try await hold.release()
        for saved in saves {
            let outcome = try await saved.value
            XCTAssertEqual(outcome, [.stored])
        }
        XCTAssertEqual(f.store.commitCount - commitsBefore, 2, "the held job's commit, then one for the 40 saves")
        XCTAssertEqual(try XCTUnwrap(f.store.metrics).commitJobs.snapshot().sum - jobsBefore, 41)
        try await expect(Set(try await f.query().map(\.uuid)), Set(samples.map(\.uuid)))
    }

    func testIdleWriterCommitsALoneSaveWithoutWaiting() async throws {
        // An hour-long window: a lone save on an idle writer must not wait for it.
        let f = try await StoreFixture(options: options(window: .seconds(3600), jobs: 64))
        let before = f.store.commitCount
        let sample = StoreFixture.heartRate(s(1))
        let finished = try await withThrowingTaskGroup(of: Bool.self) { group in
            let (store, batch) = (f.store, f.batch([sample]))
            group.addTask { _ = try await store.save(batch); return true }
            group.addTask { try await Task.sleep(nanoseconds: 60_000_000_000); return false }
            defer { group.cancelAll() }
            return try await group.next() ?? false
        }
        XCTAssertTrue(finished, "a lone save on an idle writer waited for the group commit window")
        XCTAssertEqual(f.store.commitCount - before, 1)
    }

    func testFailingSaveInAGroupFailsAloneAndTheOthersCommitOnce() async throws {
        let f = try await StoreFixture(options: options(window: .zero, jobs: 64))
        let stored = StoreFixture.heartRate(s(1), bpm: 70)
        try await f.save([stored])
        let hold = try await WriterHold(f.store)
        let before = StoreFixture.heartRate(s(2), bpm: 71), after = StoreFixture.heartRate(s(3), bpm: 72)
        // Same UUID, different content: refused, and it must not disturb the jobs around it.
        let conflicting = StoreFixture.heartRate(s(1), bpm: 99, uuid: stored.uuid)
        let firstSave = save(before, f)
        try await waitUntil { f.store.queuedWrites > 0 }
        let failingSave = save(conflicting, f)
        let lastSave = save(after, f)
        // All three are queued before the writer is released, so they run as one group.
        try await waitUntil { f.store.queuedWrites == 3 }
        let commitsBefore = f.store.commitCount
        try await hold.release()
        let firstOutcome = try await firstSave.value, lastOutcome = try await lastSave.value
        XCTAssertEqual(firstOutcome, [.stored])
        XCTAssertEqual(lastOutcome, [.stored])
        do {
            _ = try await failingSave.value
            XCTFail("a save reusing a stored UUID with other content was accepted")
        } catch let error as HealthError {
            XCTAssertEqual(error.code, .invalidArgument)
            XCTAssertEqual(error.objectIndex, 0)
        }
        let samples = try await f.query()
        XCTAssertEqual(Set(samples.map(\.uuid)), [stored.uuid, before.uuid, after.uuid])
        XCTAssertEqual(samples.first { $0.uuid == stored.uuid }?.body, stored.body, "the refused save changed the stored sample")
        XCTAssertEqual(f.store.commitCount - commitsBefore, 2, "the held job, then the group undone and committed once without the refused save")
        // Anchors stay in commit order: a later change is seen after the earlier ones.
        let anchor = try await f.anchor()
        let later = StoreFixture.heartRate(s(4))
        try await f.save([later])
        let changes = try await f.store.queryAnchored(owner: f.owner, types: [StoreFixture.heartRate], predicate: nil, anchor: anchor,
                                                      limit: 0, scope: .everything(callerBundleID: "x"))
        XCTAssertEqual(changes.samples.map(\.uuid), [later.uuid])
    }

    /// The change feed's event of a group: each type's span over the objects of the committed jobs
    /// (a type met again after another one included), each source that saved, and nothing of a job
    /// the writer undid, though that job's first object was written before its second failed.
    func testGroupChangeEventCoversCommittedJobsOnly() async throws {
        let f = try await StoreFixture(options: options(window: .zero, jobs: 64))
        let stored = StoreFixture.heartRate(s(1))
        try await f.save([stored])
        let events = Mutex<[ChangeEvent]>([])
        let token = f.store.subscribe { event in
            if case .data(let change) = event { events.withLock { $0.append(change) } }
        }
        let hold = try await WriterHold(f.store)
        let (store, other) = (f.store, StoreFixture.scale)
        let watchSave = save(StoreFixture.heartRate(s(2)), f)
        try await waitUntil { f.store.queuedWrites > 0 }
        let mixed = f.batch([StoreFixture.sleep(s(3), s(4), value: 0), StoreFixture.heartRate(s(6)), StoreFixture.sleep(s(7), s(8), value: 0)],
                            source: other)
        let phoneSave = Task { try await store.save(mixed) }
        let refused = f.batch([StoreFixture.heartRate(s(20)), StoreFixture.heartRate(s(1), bpm: 99, uuid: stored.uuid)])
        let refusedSave = Task { try await store.save(refused) }
        try await waitUntil { f.store.queuedWrites == 3 }
        try await hold.release()
        _ = try await watchSave.value
        _ = try await phoneSave.value
        do {
            _ = try await refusedSave.value
            XCTFail("a save reusing a stored UUID with other content was accepted")
        } catch is HealthError {}
        await f.store.close()
        f.store.unsubscribe(token)
        let seen = events.withLock { $0 }.last
        XCTAssertEqual(seen?.spans, [StoreFixture.heartRate: TimeSpan(start: s(2), end: s(6)),
                                     StoreFixture.sleep: TimeSpan(start: s(3), end: s(8))])
        XCTAssertEqual(seen?.sources, [StoreFixture.watch.bundleID, other.bundleID])
    }

    private func save(_ sample: Sample, _ f: StoreFixture, on queue: HeldQueue) -> Outcome {
        let outcome = Outcome()
        f.store.save(f.batch([sample]), on: queue) { result in outcome.result.withLock { $0 = result } }
        return outcome
    }

    /// A store holding one stored sample, two completion queues that run nothing until told, and its writer held.
    private func heldWriterAfterOneSave() async throws -> (StoreFixture, Sample, HeldQueue, HeldQueue, WriterHold) {
        let f = try await StoreFixture(options: options(window: .zero, jobs: 64))
        let stored = StoreFixture.heartRate(s(1), bpm: 70)
        try await f.save([stored])
        return (f, stored, HeldQueue(), HeldQueue(), try await WriterHold(f.store))
    }

    /// The writer hands each queue all of its jobs' completions of one commit in one post, after the
    /// commit, and runs none itself: they run where the queue runs them, the refused job's too.
    func testCommitsCompletionsReachEachQueueInOnePost() async throws {
        let (f, stored, loopA, loopB, hold) = try await heldWriterAfterOneSave()
        let first = save(StoreFixture.heartRate(s(2)), f, on: loopA)
        let refused = save(StoreFixture.heartRate(s(1), bpm: 99, uuid: stored.uuid), f, on: loopA)
        let other = save(StoreFixture.heartRate(s(3)), f, on: loopB)
        try await waitUntil { f.store.queuedWrites == 3 }
        let commitsBefore = f.store.commitCount
        try await hold.release()
        try await waitUntil { loopA.postCount > 0 && loopB.postCount > 0 }
        XCTAssertEqual(f.store.commitCount - commitsBefore, 2, "the held job's commit and the group's were made before its completions were posted")
        XCTAssertEqual([loopA.postCount, loopB.postCount], [1, 1], "one post per queue for the whole commit")
        XCTAssertFalse(first.ran || refused.ran || other.ran, "a completion ran on the writer thread")
        loopA.runPosted()
        loopB.runPosted()
        XCTAssertEqual(try first.get(), [.stored])
        XCTAssertEqual(try other.get(), [.stored])
        XCTAssertThrowsError(try refused.get()) { XCTAssertEqual(($0 as? HealthError)?.code, .invalidArgument) }
        try await expect(Set(try await f.query().map(\.uuid)).count, 3)
    }

    /// A refused job that is the first one its commit decides gets its error, and the committed jobs after
    /// it their outcomes, on each queue (the writer keeps failures apart from the jobs until one fails).
    func testACommitsFirstJobRefusedKeepsItsErrorOnItsQueue() async throws {
        let (f, stored, loopA, loopB, hold) = try await heldWriterAfterOneSave()
        let refused = save(StoreFixture.heartRate(s(1), bpm: 99, uuid: stored.uuid), f, on: loopA)
        let other = save(StoreFixture.heartRate(s(2)), f, on: loopB)
        let last = save(StoreFixture.heartRate(s(3)), f, on: loopA)
        try await waitUntil { f.store.queuedWrites == 3 }
        try await hold.release()
        try await waitUntil { loopA.postCount > 0 && loopB.postCount > 0 }
        loopA.runPosted()
        loopB.runPosted()
        XCTAssertThrowsError(try refused.get()) { XCTAssertEqual(($0 as? HealthError)?.code, .invalidArgument) }
        XCTAssertEqual(try other.get(), [.stored])
        XCTAssertEqual(try last.get(), [.stored])
    }

    /// A save handed to a closed store is answered on its queue too, never before `save` returns.
    func testClosedStoreAnswersOnTheQueue() async throws {
        let f = try await StoreFixture()
        await f.store.close()
        let queue = HeldQueue()
        let outcome = save(StoreFixture.heartRate(s(1)), f, on: queue)
        XCTAssertFalse(outcome.ran)
        XCTAssertEqual(queue.postCount, 1)
        queue.runPosted()
        XCTAssertThrowsError(try outcome.get()) { XCTAssertEqual(($0 as? HealthError)?.code, .unavailable) }
    }
}

/// The writer's pacing, with the instants given: whether and how long a group gathers before it commits.
final class GroupCommitPolicyTests: XCTestCase {
    private let start = ContinuousClock.now

    private func at(_ milliseconds: Int) -> ContinuousClock.Instant { start + .milliseconds(milliseconds) }

    func testAnIdleWriterNeverGathers() {
        var policy = GroupCommitPolicy(window: .milliseconds(10), jobs: 256)
        XCTAssertEqual(policy.gatherTime(count: 1, at: at(0)), .zero, "the first group")
        policy.committed(count: 1, began: at(0), arrivedMeanwhile: false)
        XCTAssertEqual(policy.gatherTime(count: 1, at: at(1)), .zero, "a lone job after a lone commit nobody waited for")
    }

    func testAStreamingWriterCommitsAWindowAfterItsPreviousCommitBegan() {
        var policy = GroupCommitPolicy(window: .milliseconds(10), jobs: 256)
        policy.committed(count: 40, began: at(0), arrivedMeanwhile: true)
        XCTAssertEqual(policy.gatherTime(count: 1, at: at(3)), .milliseconds(7))
        XCTAssertEqual(policy.gatherTime(count: 255, at: at(3)), .milliseconds(7))
        XCTAssertEqual(policy.gatherTime(count: 1, at: at(10)), .zero, "the window is over")
        XCTAssertEqual(policy.gatherTime(count: 1, at: at(25)), .zero, "a commit longer than the window leaves nothing to wait")
        policy.committed(count: 1, began: at(30), arrivedMeanwhile: true)
        XCTAssertEqual(policy.gatherTime(count: 1, at: at(32)), .milliseconds(8), "jobs that arrived during a lone commit make the writer busy")
        policy.committed(count: 1, began: at(40), arrivedMeanwhile: false)
        XCTAssertEqual(policy.gatherTime(count: 1, at: at(41)), .zero, "a lone commit nobody waited for makes it idle again")
    }

    func testAnAnsweredGroupsCallersAreAwaitedNoMoreThanTheyWere() {
        var policy = GroupCommitPolicy(window: .milliseconds(10), jobs: 256)
        policy.committed(count: 32, began: at(0), arrivedMeanwhile: false)
        XCTAssertEqual(policy.target, 32, "32 callers waited for their answers: at most 32 jobs come back")
        XCTAssertEqual(policy.gatherTime(count: 5, at: at(2)), .milliseconds(8))
        XCTAssertEqual(policy.gatherTime(count: 32, at: at(2)), .zero, "every caller has sent again")
        policy.committed(count: 300, began: at(20), arrivedMeanwhile: false)
        XCTAssertEqual(policy.target, 256, "never more than the cap")
        policy.committed(count: 3, began: at(30), arrivedMeanwhile: true)
        XCTAssertEqual(policy.target, 256, "jobs arriving during a commit: gather for the window")
    }

    func testAGroupAtTheJobCapOrAZeroWindowCommitsAtOnce() {
        var capped = GroupCommitPolicy(window: .milliseconds(10), jobs: 256)
        capped.committed(count: 300, began: at(0), arrivedMeanwhile: true)
        XCTAssertEqual(capped.gatherTime(count: 256, at: at(1)), .zero)
        var unpaced = GroupCommitPolicy(window: .zero, jobs: 256)
        unpaced.committed(count: 300, began: at(0), arrivedMeanwhile: true)
        XCTAssertEqual(unpaced.gatherTime(count: 1, at: at(0)), .zero)
    }
}

/// The writer's gathering: it ends once jobs stop arriving, long before its window, and takes every
/// job that keeps arriving within the window. The windows are far longer than the test may take.
final class JobQueueGatherTests: XCTestCase {
    /// Runs `gather` on a thread of its own, as the writer does, and returns what it took.
    private func gather(_ queue: JobQueue<Int>, upTo limit: Int, quiet: Duration) async -> [Int] {
        await withCheckedContinuation { done in
            Thread { done.resume(returning: queue.gather(awaiting: limit, upTo: limit, within: .seconds(3600), quiet: quiet)) }.start()
        }
    }

    func testAGatherNobodySendsToEndsAfterItsQuietTimeNotItsWindow() async {
        let queue = JobQueue<Int>()
        let taken = await gather(queue, upTo: 10, quiet: .milliseconds(50))
        XCTAssertEqual(taken, [], "an hour-long window was waited out although nothing arrived")
    }

    func testJobsArrivingWithinTheQuietTimeAreAllGathered() async throws {
        let queue = JobQueue<Int>()
        let sender = Task {
            for job in 1...20 {
                XCTAssertTrue(queue.push(job))
                try await Task.sleep(nanoseconds: 5_000_000)
            }
        }
        // Twenty jobs 5 ms apart, a quiet time of 10 s: the gather ends at its limit, with all of them.
        let taken = await gather(queue, upTo: 20, quiet: .seconds(10))
        try await sender.value
        XCTAssertEqual(taken, Array(1...20))
    }
}

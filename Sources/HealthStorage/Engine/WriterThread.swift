import Foundation
import HealthModel
import Synchronization

/// One queued write: `perform` runs inside the group transaction (in its own savepoint when the group
/// runs again with them); `complete` resumes the caller once the transaction's fate is known (nil:
/// committed), on `queue` when there is one. The writer touches a job only until it hands it to `complete`.
protocol WriteJob: AnyObject, Sendable {
    var queue: (any CompletionQueue)? { get }
    /// A save, which inserts the group's pending rows itself unless it only adds its own to them
    /// (`WriteContext.save(_:settle:)`); any other job needs them inserted before it runs.
    var isSave: Bool { get }
    func perform(_ context: WriteContext) throws(HealthError)
    func complete(_ failure: HealthError?)
}

/// Any write but a save: `body`'s result, kept until the commit, goes to `completion`.
final class ClosureJob<T>: WriteJob, @unchecked Sendable {
    // `value` is written by the writer thread before `complete`, read after: the job queue orders the two.
    private let body: (WriteContext) throws(HealthError) -> T
    private let completion: (Result<T, any Error>) -> Void
    let queue: (any CompletionQueue)?
    private var value: T?

    init(_ body: @escaping (WriteContext) throws(HealthError) -> T, queue: (any CompletionQueue)?,
         completion: @escaping (Result<T, any Error>) -> Void) {
        self.body = body
        self.completion = completion
        self.queue = queue
    }

    var isSave: Bool { false }

    func perform(_ context: WriteContext) throws(HealthError) { value = try body(context) }

    func complete(_ failure: HealthError?) { completion(failure.map { .failure($0) } ?? .success(value!)) }
}

/// A save, as one object holding its batch, completion and outcomes: saves are the writes an event
/// loop makes and frees on every call, where a job of closures and a result box cost five objects.
final class SaveJob: WriteJob, @unchecked Sendable {
    // `outcomes` is written by the writer thread before `complete`, read after, as `ClosureJob.value`.
    private let batch: SaveBatch
    private let completion: (Result<[SaveOutcome], any Error>) -> Void
    let queue: (any CompletionQueue)?
    private var outcomes: [SaveOutcome] = []

    init(_ batch: SaveBatch, queue: (any CompletionQueue)?, completion: @escaping (Result<[SaveOutcome], any Error>) -> Void) {
        self.batch = batch
        self.completion = completion
        self.queue = queue
    }

    var isSave: Bool { true }

    func perform(_ context: WriteContext) throws(HealthError) {
        // A lone sample left pending in the group is settled when the group inserts it.
        outcomes = try context.save(batch) { self.outcomes = [$0] }
    }

    func complete(_ failure: HealthError?) { completion(failure.map { .failure($0) } ?? .success(outcomes)) }
}

/// Jobs in the order their fate became known, each with its failure (nil: committed). The failures are
/// kept apart, and only once one job has failed: nearly every commit fails none, and a `HealthError?`
/// beside each job was copied at every step of the hand-off (and torn down through the runtime's generic
/// tuple witnesses).
private struct DecidedJobs {
    private(set) var jobs: [any WriteJob] = []
    /// nil while no job has failed; else one entry per job.
    private var failures: [HealthError?]?

    init(capacity: Int = 0) { jobs.reserveCapacity(capacity) }

    func failure(at index: Int) -> HealthError? { failures?[index] ?? nil }

    mutating func append(_ job: any WriteJob, _ failure: HealthError?) {
        if failure != nil && failures == nil { failures = Array(repeating: nil, count: jobs.count) }
        failures?.append(failure)
        jobs.append(job)
    }

    /// `jobs`, all committed.
    mutating func append(committed jobs: ArraySlice<any WriteJob>) {
        if failures == nil { return self.jobs.append(contentsOf: jobs) }
        for job in jobs { append(job, nil) }
    }

    mutating func removeAll() {
        jobs.removeAll(keepingCapacity: true)
        failures = nil
    }
}

/// The jobs of one commit that complete on one queue, handed over in one post. Emptied by the run
/// there, so the last reference to each job is dropped on that thread even when the writer's
/// reference to the box outlives the run.
private final class CompletionRun: @unchecked Sendable {
    private var jobs: DecidedJobs

    init(_ jobs: consuming DecidedJobs) { self.jobs = jobs }

    func run() {
        let taken = jobs
        jobs = DecidedJobs()
        for (index, job) in taken.jobs.enumerated() { job.complete(taken.failure(at: index)) }
    }
}

/// The single writer: drains every waiting job into one transaction (group commit), each job in its own
/// savepoint so a failing batch is undone alone, commits, then completes every job and publishes changes.
///
/// When a group commits is `GroupCommitPolicy`'s: at once while the writer is idle, paced by its window
/// while saves keep arriving (or until its callers have all sent again), so lone saves from many devices share one commit and its fsync.
/// Jobs still complete only after their commit.
final class WriterThread: @unchecked Sendable {
    // `context` is used only on the thread started by `start`.
    private let queue = JobQueue<any WriteJob>()
    private let context: WriteContext
    private let feed: ChangeFeed
    private let metrics: StoreMetrics
    private let policy: GroupCommitPolicy
    private let finished = NSCondition()
    private var running = true
    private let commits = Atomic<Int>(0)
    /// Whether jobs arrived while the last group ran (checked before its callers were answered, so a
    /// caller's next job, sent after its answer, does not count).
    private var arrivedDuringGroup = false
    /// Jobs whose transaction's fate is known, completed once the group is done (see `completeDecided`).
    private var decided = DecidedJobs()

    /// `window` and `windowJobs`: the `GroupCommitPolicy`'s.
    init(context: WriteContext, feed: ChangeFeed, metrics: StoreMetrics, window: Duration, windowJobs: Int) {
        self.context = context
        self.feed = feed
        self.metrics = metrics
        policy = GroupCommitPolicy(window: window, jobs: windowJobs)
    }

    /// Transactions committed so far (each is one fsync of the WAL at power-loss durability).
    var commitCount: Int { commits.load(ordering: .relaxed) }

    /// Jobs queued and not yet taken.
    var queuedJobs: Int { queue.count }

    func start() {
        let thread = Thread(named: "store-writer") { [self] in
            var policy = policy
            while true {
                var jobs = queue.drain(waiting: !context.mergeDueWhileIdle)
                if jobs.isEmpty && !queue.isClosed {
                    mergeWhileIdle()
                    continue
                }
                if jobs.isEmpty { break }
                let gather = policy.gatherTime(count: jobs.count, at: .now)
                if gather > .zero { jobs += queue.gather(awaiting: policy.target - jobs.count, upTo: policy.jobs - jobs.count,
                                                           within: gather, quiet: policy.quiet) }
                arrivedDuringGroup = false
                let began = ContinuousClock.now, grouped = jobs.count
                commit(jobs)
                jobs = []
                completeDecided()
                policy.committed(count: grouped, began: began, arrivedMeanwhile: arrivedDuringGroup)
            }
            context.db.writerWillStop()
            finished.lock()
            running = false
            finished.broadcast()
            finished.unlock()
        }
        thread.start()
    }

    /// Queues a job; false once the writer is shutting down.
    func submit(_ job: any WriteJob) -> Bool { queue.push(job) }

    /// Lets the thread finish queued jobs and exit, without waiting.
    func requestStop() { queue.close() }

    /// Finishes queued jobs, then stops.
    func stop() {
        queue.close()
        finished.lock()
        while running { finished.wait() }
        finished.unlock()
    }

    /// Commits `jobs` in as few transactions as the database lets it. Most groups succeed whole, so they run
    /// first without a savepoint per job (a savepoint copies every page its job touches to the statement
    /// journal, which cost a lone sample more than its own insert), their lone plain samples inserted
    /// together (`WriteContext.groupsRows`); a group in which a job fails, or a row is refused, is
    /// undone and run again with savepoints, each job inserting its own rows, so that job fails alone.
    /// On PostgreSQL a group's first try also takes its samples' UUIDs to be new (`assumesNewUUIDs`),
    /// which saves the backend a quarter of its CPU a row; a group that meets a stored UUID (a retry,
    /// a second import, another node's save of the same sample) is undone and tried as before, and the
    /// next `firstTriesPausedAfterRetry` groups skip that first try, so a stream of retries pays it rarely.
    private func commit(_ jobs: [any WriteJob]) {
        var first: ArraySlice<any WriteJob>?
        if context.db.dialect.insertsSampleArrays && firstTriesPaused == 0 {
            context.assumesNewUUIDs = true
            first = commitGroup(jobs[...], savepoints: false)
            context.assumesNewUUIDs = false
            if first == nil {
                metrics.groupsTriedAgain.add()
                firstTriesPaused = Self.firstTriesPausedAfterRetry
            }
        } else {
            firstTriesPaused = max(0, firstTriesPaused - 1)
        }
        var pending = first ?? commitGroup(jobs[...], savepoints: false) ?? jobs[...]
        while !pending.isEmpty { pending = commitGroup(pending, savepoints: true) ?? [] }
    }

    /// Groups that skip the first try that takes UUIDs to be new, after one that met a stored UUID.
    static let firstTriesPausedAfterRetry = 32
    /// Groups still to skip it.
    private var firstTriesPaused = 0

    /// Completes the decided jobs: one post per completion queue for all of its jobs, the others here.
    /// The writer holds no job afterwards, so each is freed (with its batch) on its queue's thread.
    private func completeDecided() {
        // Gathered in local values, each run's array made once: appending to the runs' objects
        // checked exclusive access to them for every job.
        var runs: [(queue: any CompletionQueue, jobs: DecidedJobs)] = []
        for (index, job) in decided.jobs.enumerated() {
            let failure = decided.failure(at: index)
            guard let queue = job.queue else {
                job.complete(failure)
                continue
            }
            if let run = runs.firstIndex(where: { $0.queue === queue }) {
                runs[run].jobs.append(job, failure)
            } else {
                runs.append((queue, DecidedJobs(capacity: decided.jobs.count - index)))
                runs[runs.count - 1].jobs.append(job, failure)
            }
        }
        decided.removeAll()
        for index in runs.indices {
            // Moved out, so the run holds the only reference to its jobs, dropped on its queue's thread.
            var jobs = DecidedJobs()
            swap(&jobs, &runs[index].jobs)
            let queue = runs[index].queue
            queue.post(CompletionRun(consume jobs).run)
        }
    }

    /// Runs `jobs` in one transaction and marks them decided. The database may roll the whole transaction
    /// back under a failing statement (SQLite on SQLITE_FULL, IOERR, BUSY or NOMEM; PostgreSQL when the
    /// connection is lost): then the jobs run so far are
    /// undone too and get that error, and the ones not yet run are returned for a fresh transaction.
    /// Without `savepoints`, a failing job or refused row undoes the transaction and nil is returned,
    /// nothing completed.
    private func commitGroup(_ jobs: ArraySlice<any WriteJob>, savepoints: Bool) -> ArraySlice<any WriteJob>? {
        let db = context.db
        let began = ContinuousClock.now
        do {
            try db.beginWrite()
        } catch {
            finish(jobs, error)
            return []
        }
        context.beginTransaction()
        // A lone job gains nothing from pending rows and would pay their bookkeeping.
        context.groupsRows = !savepoints && jobs.count > 1
        // The jobs run so far, and each one's failure: kept only with savepoints (without, every job run succeeded).
        var failures: [HealthError?] = []
        for job in jobs {
            do {
                if savepoints { try db.savepoint() }
                if !job.isSave { try context.insertGroupRows() }
                try job.perform(context)
                // Without savepoints no job is undone alone: the group is one job to the context's
                // bookkeeping, ended once below, not after each of its jobs.
                if savepoints {
                    try db.releaseSavepoint()
                    context.finishJob(success: true)
                    failures.append(nil)
                }
            } catch {
                context.finishJob(success: false)
                if !savepoints {
                    undoGroup()
                    return nil
                }
                if db.inTransaction {
                    try? db.execute("ROLLBACK TO job")
                    try? db.execute("RELEASE job")
                }
                failures.append(error)
                if !db.inTransaction {
                    context.finishTransaction(success: false)
                    finish(jobs.prefix(failures.count), error)
                    return jobs.dropFirst(failures.count)
                }
            }
        }
        if !savepoints {
            do {
                if context.groupsRows { try context.insertGroupRows() }
                context.finishJob(success: true)
            } catch {
                // A refused row: the group runs again with savepoints, where its job fails alone.
                context.finishJob(success: false)
                undoGroup()
                return nil
            }
        }
        db.resetAll()
        let events = context.transactionFeedEvents
        do {
            try context.finishTransactionWrites()
            // Inside the transaction: other nodes hear of it on commit, in commit order, or never.
            try db.announce(events)
            try db.commitWrite()
        } catch {
            if db.inTransaction { try? db.execute("ROLLBACK") }
            context.finishTransaction(success: false)
            finish(jobs, error)
            return []
        }
        commits.add(1, ordering: .relaxed)
        context.finishTransaction(success: true)
        metrics.commitJobs.observe(Double(jobs.count))
        metrics.commitSeconds.observe((ContinuousClock.now - began) / .seconds(1))
        arrivedDuringGroup = queue.count > 0
        if savepoints {
            for (job, failure) in zip(jobs, failures) { decided.append(job, failure) }
        } else {
            decided.append(committed: jobs)
        }
        // This node's server already acted on its own non-data events. Published once committed, so a
        // reader started on hearing it finds the change, and before the savers are answered (docs/semantics.md §6.9).
        feed.publish(events.filter { if case .data = $0 { true } else { false } })
        return []
    }

    /// One slice of a due UUID merge in a transaction of its own, while no job waits: commits of jobs
    /// then carry none (`WriteContext.moveUUIDLevelsIfDue`). Unsynced, since a power cut that undoes it
    /// only leaves the merge where the last synced commit had it; a failure stops idle slices until the
    /// next commit of jobs.
    private func mergeWhileIdle() {
        let db = context.db
        do {
            try db.withoutSyncedCommits { () throws(HealthError) in
                try db.beginWrite()
                context.beginTransaction()
                try context.mergeWhileIdle()
                try db.commitWrite()
            }
            context.finishTransaction(success: true)
        } catch {
            db.resetAll()
            if db.inTransaction { try? db.execute("ROLLBACK") }
            context.finishTransaction(success: false)
            context.idleMergeFailed = true
        }
    }

    /// Undoes a group run without savepoints, for it to run again with them.
    private func undoGroup() {
        context.db.resetAll()
        if context.db.inTransaction { try? context.db.execute("ROLLBACK") }
        context.finishTransaction(success: false)
    }

    private func finish(_ jobs: ArraySlice<any WriteJob>, _ error: HealthError) {
        for job in jobs { decided.append(job, error) }
    }
}

/// Reader threads, each with its own connection; a query runs on whichever thread is free.
final class ReaderPool: Sendable {
    private let queue = JobQueue<@Sendable (ReadContext) -> Void>()

    /// Opens `count` connections and starts their threads.
    init(count: Int, makeContext: () throws(HealthError) -> ReadContext) throws(HealthError) {
        for index in 0..<max(1, count) {
            let context = try makeContext()
            let box = UncheckedBox(context)
            let thread = Thread(named: "store-reader-\(index)") { [queue] in
                while let job = queue.take() { job(box.value) }
            }
            thread.start()
        }
    }

    func submit(_ job: @escaping @Sendable (ReadContext) -> Void) -> Bool { queue.push(job) }

    /// Reads waiting for a free thread.
    var waiting: Int { queue.count }

    /// Lets the threads finish queued reads and exit (their connections close with them).
    func stop() { queue.close() }
}

/// Moves a value to the one thread that will own it from then on.
struct UncheckedBox<T>: @unchecked Sendable {
    let value: T
    init(_ value: T) { self.value = value }
}

import Foundation
import HealthModel

/// One queued write: `perform` runs inside its own savepoint of the group transaction; `complete`
/// resumes the caller once the transaction's fate is known.
final class WriteJob: @unchecked Sendable {
    // Touched only by the writer thread until `complete` hands the result over.
    let perform: (WriteContext) throws(HealthError) -> Void
    let complete: (HealthError?) -> Void

    init(perform: @escaping (WriteContext) throws(HealthError) -> Void, complete: @escaping (HealthError?) -> Void) {
        self.perform = perform
        self.complete = complete
    }
}

/// The single writer: drains every waiting job into one transaction (group commit), each job in its own
/// savepoint so a failing batch is undone alone, commits, then completes every job and publishes changes.
final class WriterThread: @unchecked Sendable {
    // `context` is used only on the thread started by `start`.
    private let queue = JobQueue<WriteJob>()
    private let context: WriteContext
    private let feed: ChangeFeed
    private let finished = NSCondition()
    private var running = true

    init(context: WriteContext, feed: ChangeFeed) {
        self.context = context
        self.feed = feed
    }

    func start() {
        let thread = Thread { [self] in
            while true {
                let jobs = queue.drain()
                if jobs.isEmpty { break }
                commit(jobs)
            }
            context.db.writerWillStop()
            finished.lock()
            running = false
            finished.broadcast()
            finished.unlock()
        }
        thread.name = "healthstore-writer"
        thread.start()
    }

    /// Queues a job; false once the writer is shutting down.
    func submit(_ job: WriteJob) -> Bool { queue.push(job) }

    /// Lets the thread finish queued jobs and exit, without waiting.
    func requestStop() { queue.close() }

    /// Finishes queued jobs, then stops.
    func stop() {
        queue.close()
        finished.lock()
        while running { finished.wait() }
        finished.unlock()
    }

    /// Commits `jobs` in as few transactions as the database lets it.
    private func commit(_ jobs: [WriteJob]) {
        var pending = jobs[...]
        while !pending.isEmpty { pending = commitGroup(pending) }
    }

    /// Runs `jobs` in one transaction and completes them. The database may roll the whole transaction
    /// back under a failing statement (SQLite on SQLITE_FULL, IOERR, BUSY or NOMEM; PostgreSQL when the
    /// connection is lost): then the jobs run so far are
    /// undone too and get that error, and the ones not yet run are returned for a fresh transaction.
    private func commitGroup(_ jobs: ArraySlice<WriteJob>) -> ArraySlice<WriteJob> {
        let db = context.db
        do {
            try db.beginWrite()
        } catch {
            jobs.forEach { $0.complete(error) }
            return []
        }
        context.beginTransaction()
        var failures: [HealthError?] = []
        for job in jobs {
            do {
                try db.execute("SAVEPOINT job")
                try job.perform(context)
                try context.finishJobWrites()
                try db.execute("RELEASE job")
                context.finishJob(success: true)
                failures.append(nil)
            } catch {
                if db.inTransaction {
                    try? db.execute("ROLLBACK TO job")
                    try? db.execute("RELEASE job")
                }
                context.finishJob(success: false)
                failures.append(error)
                if !db.inTransaction {
                    _ = context.finishTransaction(success: false)
                    jobs.prefix(failures.count).forEach { $0.complete(error) }
                    return jobs.dropFirst(failures.count)
                }
            }
        }
        db.resetAll()
        do {
            try db.execute("COMMIT")
        } catch {
            if db.inTransaction { try? db.execute("ROLLBACK") }
            _ = context.finishTransaction(success: false)
            jobs.forEach { $0.complete(error) }
            return []
        }
        let changes = context.finishTransaction(success: true)
        for (job, failure) in zip(jobs, failures) { job.complete(failure) }
        feed.publish(changes.map { change in
            ChangeEvent(owner: OwnerID(change.owner), spans: change.changes.spans, sources: change.changes.sources)
        })
        return []
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
            let thread = Thread { [queue] in
                while let job = queue.take() { job(box.value) }
            }
            thread.name = "healthstore-reader-\(index)"
            thread.start()
        }
    }

    func submit(_ job: @escaping @Sendable (ReadContext) -> Void) -> Bool { queue.push(job) }

    /// Lets the threads finish queued reads and exit (their connections close with them).
    func stop() { queue.close() }
}

/// Moves a value to the one thread that will own it from then on.
struct UncheckedBox<T>: @unchecked Sendable {
    let value: T
    init(_ value: T) { self.value = value }
}

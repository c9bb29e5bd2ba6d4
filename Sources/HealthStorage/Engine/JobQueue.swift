import Foundation

/// A blocking FIFO between async callers and the store's own threads. `take` hands one job to one of
/// several readers; `drain` hands the writer everything waiting, which is what makes group commit.
final class JobQueue<Job>: @unchecked Sendable {
    // Every access to `jobs` and `closed` happens with `condition` locked. None of `jobs`' spans
    // another call, so the runtime's exclusivity check of it (per thread, blind to other threads
    // anyway) is left out.
    private let condition = NSCondition()
    @exclusivity(unchecked) private var jobs: [Job] = []
    private var closed = false
    /// While `gather` waits: the queue length that wakes it (earlier arrivals do not).
    private var gatherTarget: Int?

    /// Enqueues; false once the queue is closed.
    func push(_ job: Job) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        guard !closed else { return false }
        jobs.append(job)
        if jobs.count >= gatherTarget ?? 0 { condition.signal() }
        return true
    }

    /// The next job, waiting for one; nil once closed and empty.
    func take() -> Job? {
        condition.lock()
        defer { condition.unlock() }
        while jobs.isEmpty && !closed { condition.wait() }
        return jobs.isEmpty ? nil : jobs.removeFirst()
    }

    /// Every waiting job: at least one if `waiting` (waiting for one), maybe none if not; empty once
    /// closed and empty.
    func drain(waiting: Bool = true) -> [Job] {
        condition.lock()
        defer { condition.unlock() }
        while waiting && jobs.isEmpty && !closed { condition.wait() }
        let all = jobs
        jobs.removeAll(keepingCapacity: true)
        return all
    }

    /// Up to `limit` more jobs, waiting until `awaited` more have arrived, at most `window`, and
    /// ending sooner once `quiet` passes with none arriving (at once when closed): callers that wait
    /// for their answers before saving again stop arriving, and waiting out the window would only
    /// delay them.
    func gather(awaiting awaited: Int, upTo limit: Int, within window: Duration, quiet: Duration) -> [Job] {
        let deadline = Date(timeIntervalSinceNow: window / .seconds(1))
        condition.lock()
        defer { condition.unlock() }
        gatherTarget = awaited
        var seen = jobs.count
        while jobs.count < awaited && !closed {
            let until = min(deadline, Date(timeIntervalSinceNow: quiet / .seconds(1)))
            // Only this thread takes jobs, so a count unchanged since the last wait means none arrived.
            if !condition.wait(until: until) && (until == deadline || jobs.count == seen) { break }
            seen = jobs.count
        }
        gatherTarget = nil
        let taken = jobs.prefix(limit)
        jobs.removeFirst(taken.count)
        return Array(taken)
    }

    /// Jobs waiting.
    var count: Int {
        condition.lock()
        defer { condition.unlock() }
        return jobs.count
    }

    /// Whether new jobs are refused.
    var isClosed: Bool {
        condition.lock()
        defer { condition.unlock() }
        return closed
    }

    /// Refuses new jobs; waiting workers finish what is queued, then see the end.
    func close() {
        condition.lock()
        closed = true
        condition.broadcast()
        condition.unlock()
    }
}

/// A writer-side cache of rows the current transaction may still roll back: entries made by a job
/// become visible to later jobs only if its savepoint is released, and survive only if the
/// transaction commits, so the cache never names a row the file does not hold.
struct LayeredCache<Key: Hashable, Value> {
    private var committed: [Key: Value] = [:]
    private var transaction: [Key: Value] = [:]
    private var job: [Key: Value] = [:]

    subscript(key: Key) -> Value? {
        if let value = committed[key] { return value }
        if transaction.isEmpty && job.isEmpty { return nil }
        return job[key] ?? transaction[key]
    }

    /// Records a row inserted by the running job.
    mutating func insert(_ value: Value, for key: Key) { job[key] = value }

    /// Records a row known to be committed (loaded at open or read back).
    mutating func load(_ value: Value, for key: Key) { committed[key] = value }

    // Most jobs intern nothing new: then ending one costs a check, not a dictionary's removeAll.
    mutating func finishJob(success: Bool) {
        guard !job.isEmpty else { return }
        if success { transaction.merge(job) { $1 } }
        job.removeAll(keepingCapacity: true)
    }

    mutating func finishTransaction(success: Bool) {
        guard !transaction.isEmpty else { return }
        if success { committed.merge(transaction) { $1 } }
        transaction.removeAll(keepingCapacity: true)
    }
}

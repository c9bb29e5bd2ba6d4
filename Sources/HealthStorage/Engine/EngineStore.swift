import Foundation
import HealthModel

/// The engine behind `Store`, written once for every database: one writer thread doing group commit
/// and a small pool of reader threads, each on its own `Database` connection. `SQLiteStore` and
/// `PostgreSQLStore` open the connections and hand them over.
public class EngineStore: Store, @unchecked Sendable {
    // Every stored property is a constant of a thread-safe type; so are those subclasses add.
    private let writer: WriterThread
    private let readers: ReaderPool
    /// Also fed by a listener of other nodes' commits, where the engine has one.
    let feed: ChangeFeed
    /// How long tombstones are kept before `purgeExpiredTombstones` removes them.
    private let tombstoneRetention: Microseconds
    /// Problems met at open that did not stop the store from serving, for the operator's log.
    public let openWarnings: [String]
    /// Waits for what opening left running while the store serves; see `openFinished()`.
    private let finishing: @Sendable () async -> [String]
    public let metrics: StoreMetrics?

    /// Starts the threads over connections the engine has opened and migrated. `window` and
    /// `windowJobs`: the writer's group-commit window (see `WriterThread`).
    init(writer context: WriteContext, readers: ReaderPool, tombstoneRetention: Microseconds, openWarnings: [String],
         openFinished: @escaping @Sendable () async -> [String] = { [] }, metrics: StoreMetrics, window: Duration, windowJobs: Int,
         feed: ChangeFeed = ChangeFeed()) {
        self.metrics = metrics
        self.writer = WriterThread(context: context, feed: feed, metrics: metrics, window: window, windowJobs: windowJobs)
        self.readers = readers
        self.feed = feed
        self.tombstoneRetention = tombstoneRetention
        self.openWarnings = openWarnings
        finishing = openFinished
        writer.start()
    }

    deinit {
        writer.requestStop()
        readers.stop()
    }

    /// What opening left running while the store serves (on SQLite, the UUID filter's build) and the
    /// operator may want to know (how long it took), for the log; returns once it has finished.
    public func openFinished() async -> [String] { await finishing() }

    // MARK: plumbing

    /// Runs `body` as one job of the writer's next group commit and waits for the commit.
    func write<T: Sendable>(_ body: @escaping @Sendable (WriteContext) throws(HealthError) -> T) async throws -> T {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
            write(body) { continuation.resume(with: $0) }
        }
    }

    /// Runs `body` as one job of the writer's next group commit; `completion` gets its result once the
    /// commit is done: on `queue` when there is one, else on the writer thread (at once, on the calling
    /// thread, when the store is closed).
    private func write<T>(_ body: @escaping (WriteContext) throws(HealthError) -> T, on queue: (any CompletionQueue)? = nil,
                          then completion: @escaping (Result<T, any Error>) -> Void) {
        submit(ClosureJob(body, queue: queue, completion: completion))
    }

    /// Queues `job`; once the store is closed it fails at once, on its queue when it has one.
    private func submit(_ job: any WriteJob) {
        guard !writer.submit(job) else { return }
        if let queue = job.queue { queue.post { job.complete(Self.closedError) } } else { job.complete(Self.closedError) }
    }

    /// Runs `body` on a free reader thread, in one read transaction.
    func read<T: Sendable>(_ body: @escaping @Sendable (ReadContext) throws(HealthError) -> T) async throws -> T {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
            let accepted = readers.submit { context in
                do {
                    continuation.resume(returning: try context.snapshot { () throws(HealthError) -> T in try body(context) })
                } catch {
                    continuation.resume(throwing: error)
                }
            }
            if !accepted { continuation.resume(throwing: Self.closedError) }
        }
    }

    /// Other nodes may share the database unless the engine says otherwise.
    public var credentialsChangeOnlyHere: Bool { false }

    /// Transactions the writer has committed (tests count fsyncs with it).
    var commitCount: Int { writer.commitCount }

    /// Writes queued and not yet taken by the writer (tests order their writes with it).
    var queuedWrites: Int { writer.queuedJobs }

    private static let closedError = HealthError(.unavailable, "the store is closed")

    // MARK: identity

    public func addOwner(name: String) async throws -> (OwnerID, token: String) {
        try await write { context throws(HealthError) in try context.addOwner(name: name) }
    }

    public func listOwners() async throws -> [(OwnerID, name: String)] {
        try await read { context throws(HealthError) in try context.listOwners() }
    }

    public func ensureOperatorToken() async throws -> String? {
        try await write { context throws(HealthError) in try context.ensureOperatorToken() }
    }

    public func authenticate(token: String) async throws -> Principal? {
        try await read { context throws(HealthError) in try context.authenticate(token: token) }
    }

    public func registerApp(owner: OwnerID, bundleID: String, name: String) async throws -> String {
        try await write { context throws(HealthError) in try context.registerApp(owner: owner, bundleID: bundleID, name: name) }
    }

    public func rotateAppToken(owner: OwnerID, bundleID: String) async throws -> String {
        try await write { context throws(HealthError) in try context.rotateAppToken(owner: owner, bundleID: bundleID) }
    }

    public func revokeApp(owner: OwnerID, bundleID: String) async throws {
        try await write { context throws(HealthError) in try context.revokeApp(owner: owner, bundleID: bundleID) }
    }

    public func listApps(owner: OwnerID) async throws -> [AppInfo] {
        try await read { context throws(HealthError) in try context.listApps(owner: owner) }
    }

    // MARK: authorization state

    public func permissions(owner: OwnerID, bundleID: String) async throws -> [Permission] {
        try await read { context throws(HealthError) in try context.permissions(owner: owner, bundleID: bundleID) }
    }

    public func setPermissions(owner: OwnerID, _ updates: [AuthorizationUpdate]) async throws {
        try await write { context throws(HealthError) in try context.setPermissions(owner: owner, updates) }
    }

    public func pendingRequests(owner: OwnerID, bundleID: String?) async throws -> [(AuthorizationUpdate, Microseconds)] {
        try await read { context throws(HealthError) in try context.pendingRequests(owner: owner, bundleID: bundleID) }
    }

    // MARK: writes

    public func save(_ batch: SaveBatch) async throws -> [SaveOutcome] {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<[SaveOutcome], any Error>) in
            save(batch, on: nil) { continuation.resume(with: $0) }
        }
    }

    public func save(_ batch: SaveBatch, on queue: any CompletionQueue,
                     then completion: @escaping @Sendable (Result<[SaveOutcome], any Error>) -> Void) {
        save(batch, on: queue as (any CompletionQueue)?, then: completion)
    }

    /// A save as one job of the writer's next group commit: a lone plain sample's row may be inserted
    /// with the group's others, its outcome settled then (`WriteContext.save(_:settle:)`).
    private func save(_ batch: SaveBatch, on queue: (any CompletionQueue)?,
                      then completion: @escaping (Result<[SaveOutcome], any Error>) -> Void) {
        submit(SaveJob(batch, queue: queue, completion: completion))
    }

    public func deleteObjects(uuids: [UUID], by deleter: Deleter) async throws -> Int {
        try await write { context throws(HealthError) in try context.delete(uuids: uuids, by: deleter) }
    }

    public func deleteObjects(type: String, predicate: QueryPredicate?, by deleter: Deleter) async throws -> Int {
        try await write { context throws(HealthError) in try context.delete(type: type, predicate: predicate, by: deleter) }
    }

    /// Purges tombstones older than the retention; returns how many were removed.
    @discardableResult
    public func purgeExpiredTombstones(now: Microseconds = Time.now()) async throws -> Int {
        let cutoff = now - tombstoneRetention
        return try await write { context throws(HealthError) in try context.purgeTombstones(deletedBefore: cutoff) }
    }

    // MARK: reads

    public func querySamples(owner: OwnerID, types: [String], predicate: QueryPredicate?, sort: [SampleSortDescriptor],
                             limit: Int, scope: ReadScope) async throws -> [Sample] {
        try await read { context throws(HealthError) in
            try context.querySamples(owner: owner.rawValue, types: types, predicate: predicate, sort: sort, limit: limit, scope: scope)
        }
    }

    public func queryAnchored(owner: OwnerID, types: [String], predicate: QueryPredicate?, anchor: Data?, limit: Int,
                              scope: ReadScope) async throws -> AnchoredResult {
        try await read { context throws(HealthError) in
            try context.queryAnchored(owner: owner.rawValue, types: types, predicate: predicate, anchor: anchor, limit: limit, scope: scope)
        }
    }

    public func streamAnchored(owner: OwnerID, types: [String], predicate: QueryPredicate?, anchor: Data?, limit: Int,
                               scope: ReadScope, partRows: Int) async throws -> AnchoredStream {
        guard limit == 0 else {
            // A limited answer is cut in anchor order across samples and deletions: read whole.
            let (answer, part) = try await read { context throws(HealthError) in
                try context.limitedAnchored(owner: owner.rawValue, types: types, predicate: predicate, anchor: anchor, limit: limit, scope: scope)
            }
            let head = AnchoredResult(samples: [], deleted: answer.deleted, newAnchor: answer.newAnchor, scannedThrough: answer.scannedThrough)
            return AnchoredStream(head: head, samples: AsyncThrowingStream { parts in
                if let part, !part.samples.isEmpty { parts.yield(part) }
                parts.finish()
            })
        }
        let (samples, parts) = AsyncThrowingStream.makeStream(of: AnchoredPart.self)
        let deliver = { @Sendable (table: AnchoredPart) -> Bool in
            if case .terminated = parts.yield(table) { return false }
            return true
        }
        let head = try await withCheckedThrowingContinuation { (started: CheckedContinuation<AnchoredResult, any Error>) in
            let accepted = readers.submit { [readers] context in
                var headSent = false
                do {
                    try context.snapshot { () throws(HealthError) in
                        let (head, rest) = try context.anchoredHead(owner: owner.rawValue, types: types, predicate: predicate, anchor: anchor,
                                                                    scope: scope, partRows: partRows, part: deliver)
                        headSent = true
                        started.resume(returning: head)
                        guard let rest else { return parts.finish() }
                        let scan = AnchoredScan(rest, partRows: partRows, deliver: deliver) { error in
                            if let error { parts.finish(throwing: error) } else { parts.finish() }
                        }
                        // Another reader thread, when free, reads ranges too, on its own connection;
                        // it leaves the rest to this one as soon as other reads wait for a thread.
                        if scan.rangeCount > 1 {
                            _ = readers.submit { other in other.help(scan) { readers.waiting == 0 } }
                        }
                        context.read(scan)
                    }
                } catch {
                    if headSent { parts.finish(throwing: error) } else { started.resume(throwing: error) }
                }
            }
            if !accepted { started.resume(throwing: Self.closedError) }
        }
        return AnchoredStream(head: head, samples: samples)
    }

    public func statisticsSamples<Sink: StatInputSink>(owner: OwnerID, type: String, predicate: QueryPredicate?, scope: ReadScope,
                                                       into sink: Sink) async throws -> Sink {
        try await read { context throws(HealthError) in
            var sink = sink
            try context.statisticsSamples(owner: owner.rawValue, type: type, predicate: predicate, scope: scope, into: &sink)
            return sink
        }
    }

    public func querySources(owner: OwnerID, type: String, predicate: QueryPredicate?, scope: ReadScope) async throws -> [Source] {
        try await read { context throws(HealthError) in
            try context.querySources(owner: owner.rawValue, type: type, predicate: predicate, scope: scope)
        }
    }

    public func queryDevices(owner: OwnerID, type: String?, scope: ReadScope) async throws -> [Device] {
        try await read { context throws(HealthError) in try context.queryDevices(owner: owner.rawValue, type: type, scope: scope) }
    }

    public func countSamples(owner: OwnerID, types: [String], predicate: QueryPredicate?, scope: ReadScope) async throws -> [SampleCount] {
        try await read { context throws(HealthError) in
            try context.countSamples(owner: owner.rawValue, types: types, predicate: predicate, scope: scope)
        }
    }

    public func currentAnchor(owner: OwnerID) async throws -> Data {
        try await read { context throws(HealthError) in
            AnchorToken(owner: owner.rawValue, sequence: try context.lastAnchor(owner: owner.rawValue), horizon: 0).encoded(key: context.anchorKey)
        }
    }

    // MARK: characteristics and source order

    public func characteristics(owner: OwnerID) async throws -> Characteristics {
        try await read { context throws(HealthError) in try context.characteristics(owner: owner) }
    }

    public func writeCharacteristics(owner: OwnerID, _ update: Characteristics) async throws {
        try await write { context throws(HealthError) in try context.writeCharacteristics(owner: owner, update) }
    }

    public func sourcePriority(owner: OwnerID, type: String) async throws -> [String] {
        try await read { context throws(HealthError) in try context.sourcePriority(owner: owner, type: type) }
    }

    public func setSourcePriority(owner: OwnerID, type: String, bundleIDs: [String]) async throws {
        try await write { context throws(HealthError) in try context.setSourcePriority(owner: owner, type: type, bundleIDs: bundleIDs) }
    }

    public func sourcesFirstSeen(owner: OwnerID, type: String) async throws -> [(Source, Microseconds)] {
        try await read { context throws(HealthError) in try context.sourcesFirstSeen(owner: owner, type: type) }
    }

    // MARK: change feed and lifecycle

    public func subscribe(_ handler: @escaping @Sendable (StoreEvent) -> Void) -> Int { feed.subscribe(handler) }

    public func unsubscribe(_ token: Int) { feed.unsubscribe(token) }

    public func close() async {
        writer.stop()
        readers.stop()
        await feed.flush()
    }
}

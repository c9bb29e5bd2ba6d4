import CSQLite
import Foundation
import HealthModel

/// The SQLite engine behind `Store`: one writer thread doing group commit and a small pool of reader
/// threads, all on one WAL-mode database file.
public final class SQLiteStore: Store {
    /// Tuning and durability knobs.
    public struct Options: Sendable {
        /// What an acknowledged save must survive.
        public enum Durability: String, Sendable, CaseIterable {
            /// `synchronous=FULL`: every commit is fsynced to the WAL file before `save` returns, so an
            /// acknowledged save survives an OS crash or power loss too. The default; group commit shares
            /// one fsync among every batch waiting for the writer.
            case powerLoss = "power-loss"
            /// `synchronous=NORMAL`: a commit is written to the WAL file (not fsynced) before `save`
            /// returns, so a killed process (kill -9, crash) loses nothing acknowledged, but an OS crash or
            /// power loss before the next checkpoint's fsync can lose the last transactions.
            case processCrash = "process-crash"

            /// The `PRAGMA synchronous` value it needs.
            public var synchronous: String { self == .powerLoss ? "FULL" : "NORMAL" }
        }

        public var durability = Durability.powerLoss
        /// Reader threads (each with its own connection).
        public var readerCount = 2
        /// How long tombstones are kept (docs/semantics.md decision 4); an anchor that would miss a purged tombstone its
        /// holder could have been shown expires.
        public var tombstoneRetention: Microseconds = 90 * 86_400_000_000
        /// Page size for new files: larger pages mean fewer pages rewritten per group commit.
        public var pageSize = 8192
        /// WAL pages between automatic checkpoints: fewer, larger checkpoints rewrite hot index pages less often.
        public var checkpointPages = 8000
        /// Page cache of the writer connection in MiB (keeps the random UUID index hot).
        public var writerCacheMiB = 128
        /// While saves keep arriving, how long the writer gathers more before it commits: lone saves
        /// from many devices then share one commit (and fsync). Zero commits every group at once.
        public var groupCommitWindow = Duration.milliseconds(2)
        /// A gathering group this large commits without waiting out the window.
        public var groupCommitWindowJobs = 64

        public init() {}
    }

    private let writer: WriterThread
    private let readers: ReaderPool
    private let feed: ChangeFeed
    private let options: Options
    /// Problems met at open that did not stop the store from serving, for the operator's log.
    public let openWarnings: [String]
    public let metrics: StoreMetrics?

    private init(writer: WriterThread, readers: ReaderPool, options: Options, feed: ChangeFeed, openWarnings: [String],
                 metrics: StoreMetrics) {
        self.metrics = metrics
        self.writer = writer
        self.readers = readers
        self.options = options
        self.feed = feed
        self.openWarnings = openWarnings
    }

    deinit {
        writer.requestStop()
        readers.stop()
    }

    /// Opens (creating and migrating as needed) the store at `path` and starts its threads. Opening an
    /// up-to-date store writes nothing, so it works on a full disk; the store then serves reads and
    /// answers saves with RESOURCE_EXHAUSTED until space is freed.
    public static func open(path: String, options: Options = Options()) throws -> SQLiteStore {
        let registry = Registry()
        let db = try SQLiteConnection(path: path, readOnly: false)
        try db.execute("PRAGMA page_size = \(options.pageSize)")
        try db.execute("PRAGMA journal_mode = WAL")
        try db.execute("PRAGMA synchronous = \(options.durability.synchronous)")
        try db.execute("PRAGMA wal_autocheckpoint = \(options.checkpointPages)")
        try db.execute("PRAGMA cache_size = -\(options.writerCacheMiB * 1024)")
        try db.execute("PRAGMA temp_store = MEMORY")
        try Schema.migrate(db)
        let warnings = try plannerStatisticsWarnings(db)
        let keyRow = try db.prepareOnce("SELECT anchor_key FROM store_info WHERE id = 1")
        guard try keyRow.step(), let anchorKey = keyRow.blob(0) else {
            throw HealthError(.databaseInaccessible, "store '\(path)' has no store_info row")
        }
        let context = try WriteContext(db: db, registry: registry)
        let readers = try ReaderPool(count: options.readerCount) { () throws(HealthError) -> ReadContext in
            let connection = try SQLiteConnection(path: path, readOnly: false)
            try connection.execute("PRAGMA query_only = 1")
            try connection.execute("PRAGMA temp_store = MEMORY")
            return ReadContext(db: connection, registry: registry, anchorKey: anchorKey)
        }
        let feed = ChangeFeed()
        let metrics = StoreMetrics(files: [path, path + "-wal"])
        let writer = try WriterThread(context: context, feed: feed, metrics: metrics, window: options.groupCommitWindow,
                                      windowJobs: options.groupCommitWindowJobs)
        let store = SQLiteStore(writer: writer, readers: readers, options: options, feed: feed, openWarnings: warnings,
                                metrics: metrics)
        writer.start()
        return store
    }

    /// Installs the planner statistics; a full disk only costs the rewrite (queries plan with the
    /// statistics already in the file), so it is a warning rather than a reason to stay down.
    private static func plannerStatisticsWarnings(_ db: SQLiteConnection) throws(HealthError) -> [String] {
        do {
            try PlannerStatistics.install(db)
            return []
        } catch where error.code == .resourceExhausted {
            return ["the query planner statistics were not rewritten: \(error.message)"]
        }
    }

    // MARK: plumbing

    /// Runs `body` as one job of the writer's next group commit and waits for the commit.
    func write<T: Sendable>(_ body: @escaping @Sendable (WriteContext) throws(HealthError) -> T) async throws -> T {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
            let box = ResultBox<T>()
            let job = WriteJob(perform: { context throws(HealthError) in box.value = try body(context) },
                               complete: { error in
                                   if let error { continuation.resume(throwing: error) } else { continuation.resume(returning: box.value!) }
                               })
            if !writer.submit(job) { continuation.resume(throwing: Self.closedError) }
        }
    }

    /// Runs `body` on a free reader thread, in one read transaction.
    private func read<T: Sendable>(_ body: @escaping @Sendable (ReadContext) throws(HealthError) -> T) async throws -> T {
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
        try await write { context throws(HealthError) in try context.save(batch) }
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
        let cutoff = now - options.tombstoneRetention
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

    public func statisticsSamples(owner: OwnerID, type: String, predicate: QueryPredicate?, scope: ReadScope) async throws -> [StatisticsSample] {
        try await read { context throws(HealthError) in
            try context.statisticsSamples(owner: owner.rawValue, type: type, predicate: predicate, scope: scope)
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

    public func subscribe(_ handler: @escaping @Sendable (ChangeEvent) -> Void) -> Int { feed.subscribe(handler) }

    public func unsubscribe(_ token: Int) { feed.unsubscribe(token) }

    public func close() async {
        writer.stop()
        readers.stop()
        await feed.flush()
    }
}

/// Carries a writer job's result from the writer thread to its continuation.
private final class ResultBox<T>: @unchecked Sendable {
    // Written by the writer thread before `complete`, read after: the job queue orders the two.
    var value: T?
}

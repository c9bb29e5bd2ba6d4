import CSQLite
import Foundation
import HealthModel

/// The engine over one WAL-mode SQLite file: the writer and every reader open their own connection to it.
public final class SQLiteStore: EngineStore, @unchecked Sendable {
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
        /// Page size for new files (an existing file keeps the one it was created with). 4 KiB pages
        /// wrote a fifth fewer bytes per sample at 2M samples but cost 9–12 % more CPU per sample.
        public var pageSize = 8192
        /// WAL pages between automatic checkpoints. 32,000 wrote a fifth fewer bytes per sample at 2M
        /// samples (a UUID-index leaf dirtied by many commits reaches the main file once per
        /// checkpoint) but left reads going through a larger WAL index, and the full sync's wall rate
        /// fell in two of three runs, so 8,000 (64 MiB of WAL at 8 KiB pages) stays.
        public var checkpointPages = 8000
        /// Page cache of the writer connection in MiB, a ceiling the cache grows to: every save seeks a
        /// random leaf of the UUID index (about 30 bytes a sample), and once that index outgrows the cache
        /// each seek reads a page back and saves slow down as the store grows. 512 MiB holds it for
        /// about 15 million samples.
        public var writerCacheMiB = 512
        /// While saves keep arriving, the least time between the beginnings of the writer's commits:
        /// saves arriving meanwhile gather and share the next commit (and its fsync, ≈0.5 ms of system
        /// time each). An idle writer commits at once, and one whose commit took longer waits for
        /// nothing. Zero commits every group at once. 10 ms: at most 100 commits a second while busy.
        public var groupCommitWindow = Duration.milliseconds(10)
        /// A gathering group this large commits without waiting out the window.
        public var groupCommitWindowJobs = 256
        /// Told how a schema migration at open goes (on the opening thread, before `open` returns):
        /// which step runs, how far a long one has come, and when each ends. Nothing for a new file.
        public var migrationProgress: (@Sendable (MigrationProgress) -> Void)?
        /// The least time between two reports of a running step (tests make it zero).
        var migrationProgressInterval = Duration.seconds(5)
        /// Runs on the UUID filter's build thread once it has read every level, before the writer may
        /// take the filter (tests hold the build there).
        var uuidFilterPause: (@Sendable () -> Void)?
        /// Whether the idle writer merges UUID runs a slice at a time (`WriteContext.mergesWhileIdle`; tests
        /// that count the slices commits carry turn it off).
        var mergesWhileIdle = true

        public init() {}
    }

    /// The writer's cache while migrating, which also bounds what the sorter holds in memory.
    static let migrationCacheMiB = 64

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
        // Migrations sort whole tables in SQLite (step 16: every UUID). The sorter holds up to the
        // cache's size in memory and spills the rest to temporary files, which with temp_store MEMORY
        // are memory too: a small cache and files on disk keep a first open's memory bounded whatever
        // the store's size (bench/README.md, "Memory of the UUID levels' migration").
        try db.execute("PRAGMA cache_size = -\(Self.migrationCacheMiB * 1024)")
        try db.execute("PRAGMA temp_store = FILE")
        try Schema.migrate(db, report: options.migrationProgress, interval: options.migrationProgressInterval)
        // Built while the store serves, from a connection of its own (4–6 s at 10M UUIDs).
        let context = WriteContext(db: db, registry: registry)
        context.mergesWhileIdle = options.mergesWhileIdle
        context.uuidFilterSource = UUIDFilterSource(connect: { () throws(HealthError) -> Database in try readConnection(path) },
                                                    pause: options.uuidFilterPause)
        try context.startUUIDFilterBuild()
        try db.execute("PRAGMA cache_size = -\(options.writerCacheMiB * 1024)")
        try db.execute("PRAGMA temp_store = MEMORY")
        let warnings = try plannerStatisticsWarnings(db)
        let keyRow = try db.prepareOnce("SELECT anchor_key FROM store_info WHERE id = 1")
        guard try keyRow.step(), let anchorKey = keyRow.blob(0) else {
            throw HealthError(.databaseInaccessible, "store '\(path)' has no store_info row")
        }
        let readers = try ReaderPool(count: options.readerCount) { () throws(HealthError) -> ReadContext in
            ReadContext(db: try readConnection(path), registry: registry, anchorKey: anchorKey)
        }
        let build = context.uuidFilterBuild
        return SQLiteStore(writer: context, readers: readers, tombstoneRetention: options.tombstoneRetention, openWarnings: warnings,
                           openFinished: { () async -> [String] in
                               guard let build else { return [] }
                               return [await build.finished()]
                           },
                           metrics: StoreMetrics(files: [path, path + "-wal"]), window: options.groupCommitWindow,
                           windowJobs: options.groupCommitWindowJobs)
    }

    /// One node per file: tokens change only through this store's writer.
    public override var credentialsChangeOnlyHere: Bool { true }

    /// A connection that only reads, as a reader thread or the UUID filter's build holds one.
    static func readConnection(_ path: String) throws(HealthError) -> SQLiteConnection {
        let connection = try SQLiteConnection(path: path, readOnly: false)
        try connection.execute("PRAGMA query_only = 1")
        try connection.execute("PRAGMA temp_store = MEMORY")
        return connection
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
}

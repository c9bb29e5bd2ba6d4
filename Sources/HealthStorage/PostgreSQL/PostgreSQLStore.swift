import Foundation
import HealthModel

/// The engine over a PostgreSQL database: the writer and every reader hold their own libpq session.
/// Everything a node needs to serve any client (token hashes, the anchor-sealing key) lives in the
/// database, so several nodes can share one.
public final class PostgreSQLStore: EngineStore, @unchecked Sendable {
    /// Hears what other nodes on the same store commit.
    private let peers: PeerListener
    /// The NOTIFY channel of this store's schema.
    let peerChannelName: String

    /// Tuning knobs.
    public struct Options: Sendable {
        /// Reader sessions (each with its own thread).
        public var readerCount = 2
        /// How long tombstones are kept (see `SQLiteStore.Options.tombstoneRetention`).
        public var tombstoneRetention: Microseconds = 90 * 86_400_000_000
        /// The schema holding the store's tables (created when missing); nil = the session's default
        /// search path. Lets several stores share one database.
        public var schema: String?
        /// The writer's group-commit window (see `SQLiteStore.Options.groupCommitWindow`).
        public var groupCommitWindow = Duration.milliseconds(10)
        /// A gathering group this large commits without waiting out the window.
        public var groupCommitWindowJobs = 256

        public init() {}
    }

    /// Connects to `conninfo` (a libpq URL or key=value string), refuses servers older than 13 and
    /// schemas newer than this binary, migrates, and starts the threads.
    public static func open(conninfo: String, options: Options = Options()) throws -> PostgreSQLStore {
        var setup = ""
        if let schema = options.schema {
            let quoted = "\"" + schema.replacingOccurrences(of: "\"", with: "\"\"") + "\""
            setup = "SET search_path TO \(quoted)"
        }
        let connect = { () throws(HealthError) -> PostgreSQLConnection in
            try PostgreSQLConnection(conninfo: conninfo, sessionSetup: setup)
        }
        let db = try connect()
        try createSearchPathSchema(db)
        try PostgreSQLSchema.migrate(db, anchorKey: try TokenCrypto.randomBytes(32))
        let schemaName = try db.prepareOnce("SELECT current_schema()")
        guard try schemaName.step(), let schema = schemaName.text(0) else {
            throw HealthError(.databaseInaccessible, "the PostgreSQL session at \(db.address) has no current schema")
        }
        let channel = PeerChannel(schema: schema)
        db.peerChannel = channel
        let keyRow = try db.prepareOnce("SELECT anchor_key FROM store_info WHERE id = 1")
        guard try keyRow.step(), let anchorKey = keyRow.blob(0) else {
            throw HealthError(.databaseInaccessible, "the PostgreSQL store at \(db.address) has no store_info row")
        }
        let registry = Registry()
        let context = WriteContext(db: db, registry: registry)
        let readers = try ReaderPool(count: options.readerCount) { () throws(HealthError) -> ReadContext in
            ReadContext(db: try connect(), registry: registry, anchorKey: anchorKey)
        }
        let feed = ChangeFeed()
        let peers = try PeerListener(conninfo: conninfo, channel: channel, feed: feed)
        let probe = SizeProbe(connect: connect)
        return PostgreSQLStore(peers: peers, channel: channel.name, writer: context, readers: readers, tombstoneRetention: options.tombstoneRetention,
                               openWarnings: [], metrics: StoreMetrics(size: probe.measure), window: options.groupCommitWindow,
                               windowJobs: options.groupCommitWindowJobs, feed: feed)
    }

    private init(peers: PeerListener, channel: String, writer: WriteContext, readers: ReaderPool, tombstoneRetention: Microseconds,
                 openWarnings: [String], metrics: StoreMetrics, window: Duration, windowJobs: Int, feed: ChangeFeed) {
        self.peers = peers
        peerChannelName = channel
        super.init(writer: writer, readers: readers, tombstoneRetention: tombstoneRetention, openWarnings: openWarnings,
                   metrics: metrics, window: window, windowJobs: windowJobs, feed: feed)
    }

    deinit { peers.stop() }

    public override func close() async {
        peers.stop()
        await super.close()
    }

    /// The schema named first in the session's search path (`Options.schema`, or the URL's
    /// `options=-csearch_path%3Dname`) is created when missing.
    private static func createSearchPathSchema(_ db: PostgreSQLConnection) throws(HealthError) {
        let current = try db.prepareOnce("SELECT current_schema(), current_setting('search_path')")
        guard try current.step(), current.isNull(0), let path = current.text(1),
              let first = path.split(separator: ",").first?.trimmingCharacters(in: .whitespaces), !first.isEmpty,
              !first.hasPrefix("$") else { return }
        let name = first.hasPrefix("\"") ? String(first.dropFirst().dropLast()).replacingOccurrences(of: "\"\"", with: "\"") : first
        try db.execute("CREATE SCHEMA IF NOT EXISTS \"" + name.replacingOccurrences(of: "\"", with: "\"\"") + "\"")
    }
}

/// Measures the store's tables on the server (a node has no file to stat), over a session of its own
/// opened at the first scrape; a failed measurement repeats the last one.
private final class SizeProbe: @unchecked Sendable {
    // `db` and `last` are touched only under `lock`.
    private let lock = NSLock()
    private let connect: () throws(HealthError) -> PostgreSQLConnection
    private var db: PostgreSQLConnection?
    private var last = 0

    init(connect: @escaping () throws(HealthError) -> PostgreSQLConnection) {
        self.connect = connect
    }

    @Sendable func measure() -> Int {
        lock.withLock {
            do {
                let db = try self.db ?? connect()
                self.db = db
                let statement = try db.prepare("""
                    SELECT COALESCE(SUM(pg_total_relation_size(c.oid)), 0)::bigint FROM pg_class c
                    JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = current_schema() AND c.relkind = 'r'
                    """)
                if try statement.step() { last = Int(statement.int(0)) }
            } catch {
                db = nil
            }
            return last
        }
    }
}

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
        public var groupCommitWindow = Duration.milliseconds(2)
        /// A gathering group this large commits without waiting out the window.
        public var groupCommitWindowJobs = 64

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
        let context = try WriteContext(db: db, registry: registry)
        let readers = try ReaderPool(count: options.readerCount) { () throws(HealthError) -> ReadContext in
            ReadContext(db: try connect(), registry: registry, anchorKey: anchorKey)
        }
        let feed = ChangeFeed()
        let peers = try PeerListener(conninfo: conninfo, channel: channel, feed: feed)
        // The database's size is the server's business (pg_database_size), not a file this node can stat.
        return PostgreSQLStore(peers: peers, channel: channel.name, writer: context, readers: readers, tombstoneRetention: options.tombstoneRetention,
                               openWarnings: [], metrics: StoreMetrics(files: []), window: options.groupCommitWindow,
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

import Foundation
import HealthModel

/// The one seam between the engine and a database: a connection that runs SQL written once for both
/// engines (`?` placeholders, `?N` for a repeated one) and says in its `dialect` what differs.
/// Used by exactly one thread at a time.
protocol Database: AnyObject {
    var dialect: SQLDialect { get }
    /// Runs one or more statements without results or parameters.
    func execute(_ sql: String) throws(HealthError)
    /// A cached prepared statement, reset and with bindings cleared.
    func prepare(_ sql: String) throws(HealthError) -> Statement
    /// A statement used once (dynamic SQL that would only pollute the cache).
    func prepareOnce(_ sql: String) throws(HealthError) -> Statement
    /// A statement used once whose answer may be any size: the engine holds a bounded number of its
    /// rows at a time (SQLite steps through rows anyway; PostgreSQL reads it through a cursor).
    func prepareStreamed(_ sql: String) throws(HealthError) -> Statement
    /// Starts the writer's transaction (taking the write lock up front where the engine has one).
    func beginWrite() throws(HealthError)
    /// Commits the writer's transaction.
    func commitWrite() throws(HealthError)
    /// Runs `body`, whose committed transactions a power cut may undo: housekeeping that is redone if
    /// lost, whose commits need not wait for the disk. Acknowledged writes keep the store's durability.
    func withoutSyncedCommits<T>(_ body: () throws(HealthError) -> T) throws(HealthError) -> T
    /// Opens the savepoint `job` around one job of a group (undone with `ROLLBACK TO job`).
    func savepoint() throws(HealthError)
    /// Releases the savepoint `job` once its job succeeded.
    func releaseSavepoint() throws(HealthError)
    /// Starts a read-only transaction in which every statement sees one snapshot.
    func beginRead() throws(HealthError)
    /// Resets every statement still holding a row, so none keeps a snapshot open after the transaction.
    func resetAll()
    /// Runs `body`, inside a transaction, with the planner kept from sorting: each of its statements
    /// then reads rows in the order of an index that gives its ORDER BY, whatever the statistics say
    /// (PostgreSQL; SQLite's statements name their index).
    func inIndexOrder<T>(_ body: () throws(HealthError) -> T) throws(HealthError) -> T
    /// False once the database has rolled back the open transaction (or none was open).
    var inTransaction: Bool { get }
    /// Rows changed by the last INSERT, UPDATE or DELETE.
    var changes: Int { get }
    /// Tells other nodes sharing the database what the writer's open transaction changed, delivered
    /// when (and only if) it commits; a no-op where no other node can share the database.
    func announce(_ events: [StoreEvent]) throws(HealthError)
    /// Called by the writer as it stops, for housekeeping a stopped store should not leave undone.
    func writerWillStop()
}

/// A prepared statement with 1-based binding and 0-based column access.
protocol Statement: AnyObject {
    /// Makes the statement ready to run again, its bindings cleared (unbound parameters are NULL).
    func reset()
    /// Makes the statement ready to run again, its bindings kept: for a user that binds every parameter
    /// anew, so that no pass clears them first (a 100-row insert has 2,000).
    func rewind()
    func bind(_ index: Int32, _ value: Int64?)
    func bind(_ index: Int32, _ value: Double?)
    func bind(_ index: Int32, _ value: String?)
    func bind(_ index: Int32, _ value: Data?)
    func bind(_ index: Int32, _ value: UUID)
    /// Binds `bytes` as a blob (`text`: as UTF-8 text) read where they are, not copied (SQLite reads
    /// them as the statement runs): the caller keeps them valid and unchanged until the next `reset()`.
    func bind(_ index: Int32, borrowing bytes: UnsafeRawBufferPointer, text: Bool)
    /// Advances; true while a row is available.
    func step() throws(HealthError) -> Bool
    /// Lets the database start on the bound statement before its first `step`, where it can work
    /// beside the caller (PostgreSQL runs it while the caller reads another statement's rows).
    func start()
    func isNull(_ column: Int32) -> Bool
    func int(_ column: Int32) -> Int64
    func double(_ column: Int32) -> Double
    func text(_ column: Int32) -> String?
    func blob(_ column: Int32) -> Data?
    func uuid(_ column: Int32) -> UUID
}

extension Statement {
    /// SQLite runs a statement only as it is stepped.
    func start() {}

    /// Steps through, for statements without results.
    func run() throws(HealthError) {
        while try step() {}
    }

    func optionalInt(_ column: Int32) -> Int64? { isNull(column) ? nil : int(column) }
    func optionalDouble(_ column: Int32) -> Double? { isNull(column) ? nil : double(column) }

    /// Binds positional values in order, starting at 1.
    func bind(all values: [SQLValue]) {
        for (offset, value) in values.enumerated() {
            let index = Int32(offset + 1)
            switch value {
            case .null: bind(index, nil as Int64?)
            case .int(let v): bind(index, v)
            case .double(let v): bind(index, v)
            case .text(let v): bind(index, v)
            case .blob(let v): bind(index, v)
            }
        }
    }

    /// Runs an `INSERT … RETURNING` of one value and returns it; nil when the insert was skipped
    /// (`ON CONFLICT DO NOTHING`).
    func insertReturning() throws(HealthError) -> Int64? {
        guard try step() else { return nil }
        let value = int(0)
        reset()
        return value
    }
}

/// The few places where the engines' SQL differs.
struct SQLDialect: Sendable {
    /// Forces an index SQLite's planner would otherwise pass over; PostgreSQL plans from its own statistics.
    let forcesIndexes: Bool
    /// `hs_meta` cannot convert units: the writer records every unit of a quantity stored in metadata
    /// (`metadata_units`), and quantity operands are converted into those before the query runs.
    let convertsMetadataUnitsBeforehand: Bool
    /// `INSERT` for a one-row insert whose failure must change nothing. SQLite's `OR FAIL` checks the
    /// row's constraints before writing any of it, so the insert needs no statement journal (ABORT
    /// would copy each page it touches); PostgreSQL has no such clause and needs none.
    let insertOrFail: String
    /// Rows of a save sent per INSERT: each statement costs PostgreSQL a round trip, and SQLite a
    /// reset, a step and its index cursors' setup, so plain samples go many to a statement.
    let samplesPerInsert: Int
    /// Reads an owner's committed anchor (one `?`: the owner) so that no other writer can move it
    /// until this transaction ends (`WriteContext.lockOwner`). PostgreSQL locks the row with an
    /// UPDATE; SQLite's writer holds the whole database from BEGIN IMMEDIATE on, so a read suffices
    /// (the UPDATE cost a lone save more than its sample's insert).
    let lockOwnerSQL: String
    /// Whether a sample's UUID lives in the UUID levels (`UUIDLevels`: a recent B-tree and sorted
    /// runs) rather than in a unique index on `samples`. SQLite's WAL copies each page a commit dirties, so one random-order index
    /// over every UUID cost a whole page per sample once it outgrew a commit; PostgreSQL logs rows,
    /// not pages, and keeps its unique index.
    let keepsUUIDLevels: Bool
    /// Whether `samples` has an (owner, anchor) index (`samples_by_anchor`, PostgreSQL's step 10): an
    /// anchored read of every stored type is then one scan of it, read in windows of anchors
    /// (`ReadContext.pages`), rather than one scan of the same heap pages per type.
    let readsSamplesByAnchor: Bool
    /// Whether a chunk of plain samples goes in as one array per column (`SampleRow.arraysSQL`,
    /// PostgreSQL) rather than as a `VALUES` row of parameters each, after the UUID claim (SQLite).
    let insertsSampleArrays: Bool

    static let sqlite = SQLDialect(forcesIndexes: true, convertsMetadataUnitsBeforehand: false, insertOrFail: "INSERT OR FAIL",
                                   samplesPerInsert: 100, lockOwnerSQL: "SELECT last_anchor FROM anchor_counters WHERE owner = ?",
                                   keepsUUIDLevels: true, readsSamplesByAnchor: false, insertsSampleArrays: false)
    static let postgreSQL = SQLDialect(forcesIndexes: false, convertsMetadataUnitsBeforehand: true, insertOrFail: "INSERT",
                                       samplesPerInsert: 500,
                                       lockOwnerSQL: "UPDATE anchor_counters SET last_anchor = last_anchor WHERE owner = ? RETURNING last_anchor",
                                       keepsUUIDLevels: false, readsSamplesByAnchor: true, insertsSampleArrays: true)

    /// The condition that a `samples` row aliased `alias` (with its dot, or "") is the owner's (`owner`,
    /// an SQL expression) row whose UUID is `uuid`, an SQL expression SQLite names twice: a numbered
    /// parameter (`?N`) or a column. Every lookup of one sample by UUID goes through it (or through
    /// `sampleByUUID(_:owner:heads:uuids:)`).
    func sampleByUUID(_ alias: String = "", owner: String = "?1", uuid: String = "?2") -> String {
        sampleByUUID(alias, owner: owner, heads: keepsUUIDLevels ? "= substr(\(uuid), 1, 8)" : nil, uuids: "= \(uuid)")
    }

    /// The condition that a `samples` row aliased `alias` is the owner's row whose UUID satisfies `uuids`
    /// ("= ?", "IN (…)"): SQLite finds the keys of the rows whose UUIDs begin so in the UUID levels
    /// (`uuid_keys`, one lookup a head), through `heads`, the same condition on the UUIDs' heads (`UUIDLevels.head`), and checks the
    /// row's own UUID (two UUIDs may share a head); PostgreSQL finds the row in its index (`heads`
    /// nil). Parameters in text order: `owner`'s, then `heads`', then `uuids`'.
    func sampleByUUID(_ alias: String, owner: String, heads: String?, uuids: String) -> String {
        guard let heads else { return "\(alias)owner = \(owner) AND \(alias)uuid \(uuids)" }
        return "(\(alias)owner, \(alias)type, \(alias)anchor) IN (SELECT owner, type, anchor FROM \(UUIDLevels.all) "
            + "WHERE owner = \(owner) AND head \(heads)) AND \(alias)uuid \(uuids)"
    }

    /// `INDEXED BY index` where the engine needs it, else nothing.
    func indexedBy(_ index: String) -> String { forcesIndexes ? "INDEXED BY \(index)" : "" }
    /// Reads a WITHOUT ROWID table through its primary key alone (`NOT INDEXED` leaves SQLite only
    /// the key), where the engine needs it, else nothing.
    var byPrimaryKey: String { forcesIndexes ? "NOT INDEXED" : "" }
}

extension Database {
    /// Commits as usual: where no housekeeping runs apart from saves (PostgreSQL), nothing gains.
    func withoutSyncedCommits<T>(_ body: () throws(HealthError) -> T) throws(HealthError) -> T { try body() }

    /// SQLite holds no answer: a statement steps through its rows.
    func prepareStreamed(_ sql: String) throws(HealthError) -> Statement { try prepareOnce(sql) }

    /// SQLite's statements that need an index's order name the index (`SQLDialect.indexedBy`).
    func inIndexOrder<T>(_ body: () throws(HealthError) -> T) throws(HealthError) -> T { try body() }

    /// The owner's metadata units when `predicate` needs them on this engine (see `PredicateSQL.metadataUnits`).
    func metadataUnits(owner: Int64, for predicate: QueryPredicate?) throws(HealthError) -> [String]? {
        guard dialect.convertsMetadataUnitsBeforehand, PredicateSQL.comparesQuantities(predicate) else { return nil }
        let units = try prepare("SELECT unit FROM metadata_units WHERE owner = ?")
        units.bind(1, owner)
        var result: [String] = []
        while try units.step() { result.append(units.text(0) ?? "") }
        return result
    }
}

/// A value bound into dynamically built SQL.
enum SQLValue {
    case null
    case int(Int64)
    case double(Double)
    case text(String)
    case blob(Data)

    static func uuid(_ uuid: UUID) -> SQLValue { .blob(uuid.bytes) }
}

extension UUID {
    /// The 16 raw bytes, as stored.
    var bytes: Data { withUnsafeBytes(of: uuid) { Data($0) } }
}

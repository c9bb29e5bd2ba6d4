import CSQLite
import Foundation
import HealthModel

/// SQLite asks for a copy of bound text and blobs with this destructor value (the C macro is not imported).
let sqliteTransient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

/// One SQLite connection with a prepared-statement cache; used by exactly one thread at a time.
final class SQLiteConnection: Database {
    let handle: OpaquePointer
    let path: String
    private var statements: [String: SQLiteStatement] = [:]
    var dialect: SQLDialect { .sqlite }
    /// Statements compiled on this connection so far, cached or for one use: each is a parse and a
    /// plan, which the writer's repeated statements must not pay per save (tests count them).
    private(set) var statementsCompiled = 0

    init(path: String, readOnly: Bool) throws(HealthError) {
        var db: OpaquePointer?
        let flags = (readOnly ? SQLITE_OPEN_READONLY : (SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE)) | SQLITE_OPEN_NOMUTEX
        let rc = sqlite3_open_v2(path, &db, flags, nil)
        guard rc == SQLITE_OK, let db else {
            let message = db.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
            let code = db.map { sqlite3_extended_errcode($0) } ?? rc
            if let db { sqlite3_close_v2(db) }
            throw SQLiteFailure(code: code, message: message, path: path, context: "opening").healthError
        }
        handle = db
        self.path = path
        sqlite3_extended_result_codes(db, 1)
        sqlite3_busy_timeout(db, 10_000)
        MetadataSQLFunctions.register(on: db)
        UUIDKeysTable.register(on: db)
    }

    deinit {
        // A statement still open elsewhere (none should be) would keep the connection open: then SQLite
        // closes it once the last such statement is finalized.
        if !closed, close() != SQLITE_OK { sqlite3_close_v2(handle) }
    }

    private var closed = false

    /// Finalizes the cached statements and closes the connection; SQLITE_BUSY, the connection left
    /// open, while any other statement on it is unfinalized (`uuid_keys` finalizes its own when SQLite
    /// disconnects it, which closing does first).
    func close() -> Int32 {
        statements.removeAll()
        let rc = sqlite3_close(handle)
        closed = rc == SQLITE_OK
        return rc
    }

    func execute(_ sql: String) throws(HealthError) {
        var errorMessage: UnsafeMutablePointer<CChar>?
        let rc = sqlite3_exec(handle, sql, nil, nil, &errorMessage)
        if rc != SQLITE_OK {
            let message = errorMessage.map { String(cString: $0) } ?? lastError
            sqlite3_free(errorMessage)
            throw SQLiteFailure(code: sqlite3_extended_errcode(handle), message: message, path: path,
                                context: "in \(sql.prefix(80))").healthError
        }
    }

    func prepare(_ sql: String) throws(HealthError) -> Statement {
        if let cached = statements[sql] {
            cached.reset()
            return cached
        }
        let statement = try SQLiteStatement(connection: self, sql: sql)
        statementsCompiled += 1
        statements[sql] = statement
        return statement
    }

    // The writer's transaction control runs from cached prepared statements: parsing it anew per
    // group cost more than a lone sample's insert.

    /// IMMEDIATE: the write lock is taken at BEGIN, so no statement of the group meets SQLITE_BUSY halfway.
    func beginWrite() throws(HealthError) { try prepare("BEGIN IMMEDIATE").run() }

    func commitWrite() throws(HealthError) { try prepare("COMMIT").run() }

    /// `synchronous = NORMAL` around `body` (SQLite refuses to change it inside a transaction): a WAL
    /// commit is then written but not fsynced; the next synced commit's fsync covers its frames too.
    func withoutSyncedCommits<T>(_ body: () throws(HealthError) -> T) throws(HealthError) -> T {
        let level = try prepare("PRAGMA synchronous")
        let synced = try level.step() ? level.int(0) : 1
        level.reset()
        guard synced > 1 else { return try body() }
        try execute("PRAGMA synchronous = NORMAL")
        defer {
            // Outside a transaction this does no I/O and cannot fail but by misuse; if it did, every later
            // save would be acknowledged less durably than configured, which stopping is better than.
            do { try execute("PRAGMA synchronous = \(synced)") } catch { fatalError("could not restore synchronous = \(synced): \(error)") }
        }
        return try body()
    }

    func savepoint() throws(HealthError) { try prepare("SAVEPOINT job").run() }

    func releaseSavepoint() throws(HealthError) { try prepare("RELEASE job").run() }

    /// A deferred transaction: the snapshot is taken by its first read and kept to the end.
    func beginRead() throws(HealthError) { try execute("BEGIN") }

    /// Leaves the data in the main file and an empty WAL: otherwise a stopped server keeps a WAL as
    /// large as its last checkpoint interval on disk (more than the samples' own size for 1M).
    /// A reader still in a query only makes this checkpoint partial; the next open finishes it.
    /// One node per database file: nobody else to tell.
    func announce(_ events: [StoreEvent]) {}

    func writerWillStop() { try? execute("PRAGMA wal_checkpoint(TRUNCATE)") }

    func resetAll() {
        var statement = sqlite3_next_stmt(handle, nil)
        while let current = statement {
            if sqlite3_stmt_busy(current) != 0 { sqlite3_reset(current) }
            statement = sqlite3_next_stmt(handle, current)
        }
    }

    func prepareOnce(_ sql: String) throws(HealthError) -> Statement {
        statementsCompiled += 1
        return try SQLiteStatement(connection: self, sql: sql)
    }

    private var lastError: String { String(cString: sqlite3_errmsg(handle)) }

    /// The last call's failure as a HealthError.
    func failure(_ context: String) -> HealthError {
        SQLiteFailure(code: sqlite3_extended_errcode(handle), message: lastError, path: path, context: context).healthError
    }

    var inTransaction: Bool { sqlite3_get_autocommit(handle) == 0 }

    var changes: Int { Int(sqlite3_changes64(handle)) }
}

/// An SQLite prepared statement.
final class SQLiteStatement: Statement {
    let pointer: OpaquePointer
    private unowned let connection: SQLiteConnection

    init(connection: SQLiteConnection, sql: String) throws(HealthError) {
        var statement: OpaquePointer?
        guard sqlite3_prepare_v3(connection.handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &statement, nil) == SQLITE_OK,
              let statement else {
            throw connection.failure("preparing \(sql.prefix(120))")
        }
        pointer = statement
        self.connection = connection
    }

    deinit { sqlite3_finalize(pointer) }

    func reset() {
        sqlite3_reset(pointer)
        sqlite3_clear_bindings(pointer)
    }

    func rewind() {
        sqlite3_reset(pointer)
    }

    // MARK: binding

    func bind(_ index: Int32, _ value: Int64?) {
        if let value { sqlite3_bind_int64(pointer, index, value) } else { sqlite3_bind_null(pointer, index) }
    }

    func bind(_ index: Int32, _ value: Double?) {
        if let value { sqlite3_bind_double(pointer, index, value) } else { sqlite3_bind_null(pointer, index) }
    }

    func bind(_ index: Int32, _ value: String?) {
        if let value { sqlite3_bind_text(pointer, index, value, -1, sqliteTransient) } else { sqlite3_bind_null(pointer, index) }
    }

    func bind(_ index: Int32, _ value: Data?) {
        guard let value else { sqlite3_bind_null(pointer, index); return }
        value.withUnsafeBytes { raw in
            // A zero-length blob needs a non-nil pointer to stay a blob rather than NULL.
            _ = sqlite3_bind_blob(pointer, index, raw.baseAddress ?? UnsafeRawPointer(bitPattern: 1), Int32(raw.count), sqliteTransient)
        }
    }

    func bind(_ index: Int32, _ value: UUID) {
        withUnsafeBytes(of: value.uuid) { raw in
            _ = sqlite3_bind_blob(pointer, index, raw.baseAddress, 16, sqliteTransient)
        }
    }

    func bind(_ index: Int32, borrowing bytes: UnsafeRawBufferPointer, text: Bool) {
        // A zero-length value needs a non-nil pointer to stay a value rather than NULL.
        let base = bytes.baseAddress ?? UnsafeRawPointer(bitPattern: 1)
        // No destructor (SQLITE_STATIC): SQLite neither copies nor frees them.
        if text {
            sqlite3_bind_text(pointer, index, base?.assumingMemoryBound(to: CChar.self), Int32(bytes.count), nil)
        } else {
            sqlite3_bind_blob(pointer, index, base, Int32(bytes.count), nil)
        }
    }

    // MARK: stepping

    func step() throws(HealthError) -> Bool {
        let rc = sqlite3_step(pointer)
        if rc == SQLITE_ROW { return true }
        if rc == SQLITE_DONE { return false }
        throw failure()
    }

    private func failure() -> HealthError {
        connection.failure("in \(String(cString: sqlite3_sql(pointer)).prefix(80))")
    }

    // MARK: columns

    func isNull(_ column: Int32) -> Bool { sqlite3_column_type(pointer, column) == SQLITE_NULL }
    func int(_ column: Int32) -> Int64 { sqlite3_column_int64(pointer, column) }
    func double(_ column: Int32) -> Double { sqlite3_column_double(pointer, column) }

    func text(_ column: Int32) -> String? {
        guard let c = sqlite3_column_text(pointer, column) else { return nil }
        return String(cString: c)
    }

    func blob(_ column: Int32) -> Data? {
        if isNull(column) { return nil }
        let count = Int(sqlite3_column_bytes(pointer, column))
        guard count > 0, let base = sqlite3_column_blob(pointer, column) else { return Data() }
        return Data(bytes: base, count: count)
    }

    func uuid(_ column: Int32) -> UUID {
        guard sqlite3_column_bytes(pointer, column) == 16, let base = sqlite3_column_blob(pointer, column) else {
            return UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0))
        }
        var raw: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        withUnsafeMutableBytes(of: &raw) { $0.copyMemory(from: UnsafeRawBufferPointer(start: base, count: 16)) }
        return UUID(uuid: raw)
    }
}

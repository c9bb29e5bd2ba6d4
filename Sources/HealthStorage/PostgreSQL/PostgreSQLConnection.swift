import CPQ
import Foundation
import HealthModel

/// One libpq session with a prepared-statement cache; used by exactly one thread at a time. The
/// engine's `?`/`?N` placeholders become `$N`; parameters go as text (bytea as binary), so the server
/// infers every parameter's type from the statement; results come back binary.
final class PostgreSQLConnection: Database {
    private let handle: OpaquePointer
    /// Where the session goes, for messages (never the password).
    let address: String
    /// Statements run right after connecting and after every reconnect (search path, etc.).
    private let sessionSetup: String
    private var statements: [String: PostgreSQLStatement] = [:]
    private var statementCount = 0
    private var cursorCount = 0
    /// The statement sent ahead (`PostgreSQLStatement.start`) whose answer has not been taken yet:
    /// libpq allows one query in flight, and every other use of the session takes it first (`settle`).
    private var sent: PostgreSQLStatement?
    /// Sees the SQL of every statement sent to the server, as it is sent; tests count a read's statements by it.
    var sending: ((String) -> Void)?
    /// Bumped when the session is re-established: statements prepared in an older session prepare again.
    private(set) var session = 0
    private(set) var changes = 0
    var dialect: SQLDialect { .postgreSQL }

    /// The oldest server the schema and SQL are written for (13: `gen_random_uuid`-era core features,
    /// stored generated columns, `ON CONFLICT`, `RETURNING` everywhere).
    static let minimumServerVersion: Int32 = 130000

    /// How long a session may sit idle inside a transaction before the server ends it. A node that
    /// stops answering mid-transaction (frozen, its machine or network gone) would otherwise hold its
    /// row locks, the owner's anchor counter among them, and stall every other node's saves of that
    /// owner until the server notices the dead peer: hours with default TCP keepalives, never while
    /// the socket stays open. Every transaction of ours runs its statements back to back, so a
    /// session idle this long in one belongs to a node that is gone; well under clients' deadlines.
    static let idleTransactionLimit = "10s"

    init(conninfo: String, sessionSetup: String = "") throws(HealthError) {
        guard let connection = PQconnectdb(conninfo) else {
            throw HealthError(.resourceExhausted, "cannot allocate a PostgreSQL connection")
        }
        address = Self.describe(connection)
        guard PQstatus(connection) == CONNECTION_OK else {
            let message = String(cString: PQerrorMessage(connection)).trimmingCharacters(in: .whitespacesAndNewlines)
            PQfinish(connection)
            throw HealthError(.unavailable, "cannot connect to the PostgreSQL store at \(address): \(message)")
        }
        handle = connection
        let version = PQserverVersion(connection)
        guard version >= Self.minimumServerVersion else {
            PQfinish(connection)
            throw HealthError(.databaseInaccessible, "the PostgreSQL server at \(address) is version \(version / 10000); "
                              + "HealthStore needs PostgreSQL 13 or newer")
        }
        self.sessionSetup = "SET client_min_messages = warning; "
            + "SET idle_in_transaction_session_timeout = '\(Self.idleTransactionLimit)'; " + sessionSetup
        try execute(self.sessionSetup)
    }

    deinit {
        settle()
        statements.removeAll()
        PQfinish(handle)
    }

    /// "host H port P database D user U" of a connection, tried or established.
    private static func describe(_ connection: OpaquePointer) -> String {
        func field(_ value: UnsafeMutablePointer<CChar>?) -> String { value.map { String(cString: $0) } ?? "" }
        let host = field(PQhost(connection))
        return "host \(host.isEmpty ? "(default socket)" : host) port \(field(PQport(connection))) "
            + "database \(field(PQdb(connection))) user \(field(PQuser(connection)))"
    }

    func execute(_ sql: String) throws(HealthError) {
        settle()
        try reconnectIfLost()
        sending?(sql)
        let result = PQexec(handle, sql)
        defer { PQclear(result) }
        try check(result, "in \(sql.prefix(80))")
    }

    func prepare(_ sql: String) throws(HealthError) -> Statement {
        if let cached = statements[sql] {
            cached.reset()
            return cached
        }
        statementCount += 1
        let statement = PostgreSQLStatement(connection: self, sql: sql, name: "hs\(statementCount)")
        statements[sql] = statement
        return statement
    }

    func prepareOnce(_ sql: String) throws(HealthError) -> Statement {
        PostgreSQLStatement(connection: self, sql: sql, name: nil)
    }

    /// Inside a transaction, a cursor fetched `PostgreSQLStatement.fetchRows` rows at a time, the
    /// next batch sent for while the caller reads the last: libpq would otherwise hold the whole answer.
    func prepareStreamed(_ sql: String) throws(HealthError) -> Statement {
        cursorCount += 1
        return PostgreSQLStatement(connection: self, sql: sql, name: nil, cursor: "hs_cursor\(cursorCount)")
    }

    /// READ COMMITTED: every statement sees what committed before it, and the owner's counter row
    /// (`WriteContext.nextAnchor`) serialises writers of one owner.
    func beginWrite() throws(HealthError) { try execute("BEGIN") }

    func beginRead() throws(HealthError) { try execute("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY") }

    func commitWrite() throws(HealthError) { try execute("COMMIT") }

    func savepoint() throws(HealthError) { try execute("SAVEPOINT job") }

    func releaseSavepoint() throws(HealthError) { try execute("RELEASE job") }

    /// Results are read whole into memory, so no statement holds anything open on the server once
    /// the answer of one sent ahead has been taken (cursors close with their transaction).
    func resetAll() { settle() }

    /// Sorts are turned off (`enable_sort`) for the transaction around `body` and back to the session's
    /// setting after it, so an ORDER BY that an index gives is read through that index. The window
    /// reads of a sync need it: on a table filled since its last ANALYZE the planner knows no
    /// statistics, costs the ordered scan of `samples_by_anchor` as a random heap read a row, and
    /// takes a bitmap scan and a sort of each window instead, which cost the server 0.3–0.5 µs more a
    /// row. With an abort the transaction's end undoes the setting.
    func inIndexOrder<T>(_ body: () throws(HealthError) -> T) throws(HealthError) -> T {
        try execute("SET LOCAL enable_sort = off")
        let result: T
        do {
            result = try body()
        } catch {
            try? execute("SET LOCAL enable_sort = DEFAULT")
            throw error
        }
        try execute("SET LOCAL enable_sort = DEFAULT")
        return result
    }

    var inTransaction: Bool {
        let status = PQtransactionStatus(handle)
        return status == PQTRANS_INTRANS || status == PQTRANS_INERROR || status == PQTRANS_ACTIVE
    }

    func writerWillStop() {}

    /// Where the writer announces its commits to other nodes (nil on reader sessions).
    var peerChannel: PeerChannel?

    /// One NOTIFY per event, sent in one round trip.
    func announce(_ events: [StoreEvent]) throws(HealthError) {
        guard let peerChannel, !events.isEmpty else { return }
        let payloads = peerChannel.payloads(for: events)
        guard !payloads.isEmpty else { return }
        let values = (2...payloads.count + 1).map { "(?\($0))" }.joined(separator: ", ")
        let notify = try prepareOnce("SELECT pg_notify(?1, payload) FROM (VALUES \(values)) AS announced(payload)")
        notify.bind(all: [.text(peerChannel.name)] + payloads.map(SQLValue.text))
        try notify.run()
    }

    /// A session lost between transactions (server restart, network) is re-established before the
    /// next one; a transaction it cut short has already failed with UNAVAILABLE.
    private func reconnectIfLost() throws(HealthError) {
        guard PQstatus(handle) != CONNECTION_OK, !inTransaction else { return }
        PQreset(handle)
        guard PQstatus(handle) == CONNECTION_OK else {
            throw HealthError(.unavailable, "the PostgreSQL store at \(address) is unreachable: "
                              + String(cString: PQerrorMessage(handle)).trimmingCharacters(in: .whitespacesAndNewlines))
        }
        session += 1
        let result = PQexec(handle, sessionSetup)
        defer { PQclear(result) }
        try check(result, "setting up the session")
    }

    // MARK: used by statements

    /// Prepares `sql` under `name` in the current session.
    func prepareOnServer(name: String, sql: String) throws(HealthError) {
        settle()
        let result = PQprepare(handle, name, sql, 0, nil)
        defer { PQclear(result) }
        try check(result, "preparing \(sql.prefix(120))")
    }

    /// Runs a prepared (`name`) or one-off statement; the caller owns the result.
    func run(name: String?, sql: String, values: [UnsafePointer<CChar>?], lengths: [Int32],
             formats: [Int32]) throws(HealthError) -> OpaquePointer {
        settle()
        sending?(sql)
        let result = name.map { PQexecPrepared(handle, $0, Int32(values.count), values, lengths, formats, 1) }
            ?? PQexecParams(handle, sql, Int32(values.count), nil, values, lengths, formats, 1)
        return try answer(result, sql)
    }

    /// Sends a prepared (`name`) or one-off statement for `statement` without waiting for its
    /// answer, which `settle` hands to it; false when it could not be sent (the statement then runs
    /// when stepped, and reports why).
    func send(_ statement: PostgreSQLStatement, name: String?, sql: String, values: [UnsafePointer<CChar>?], lengths: [Int32],
              formats: [Int32]) -> Bool {
        settle()
        guard PQstatus(handle) == CONNECTION_OK else { return false }
        sending?(sql)
        let queued = name.map { PQsendQueryPrepared(handle, $0, Int32(values.count), values, lengths, formats, 1) }
            ?? PQsendQueryParams(handle, sql, Int32(values.count), nil, values, lengths, formats, 1)
        guard queued == 1 else {
            // Nothing is in flight; whatever libpq holds of the failed attempt is dropped.
            while let stale = PQgetResult(handle) { PQclear(stale) }
            return false
        }
        sent = statement
        return true
    }

    /// Waits for the answer of the statement sent ahead, if any, and hands it (or its failure) to
    /// that statement, so the session is free for the next query.
    func settle() {
        guard let statement = sent else { return }
        sent = nil
        var first: OpaquePointer?
        while let result = PQgetResult(handle) {
            if first == nil { first = result } else { PQclear(result) }
        }
        statement.arrived(Result { () throws(HealthError) in try answer(first, statement.text) })
    }

    /// Reads data the server has sent for the statement sent ahead into libpq's buffer, without
    /// waiting: the server would stop once the socket's buffer is full, and wait for us.
    func receiveAhead() {
        if sent != nil { PQconsumeInput(handle) }
    }

    /// `result` when it succeeded (the caller owns it), else the failure it reports (and it is freed).
    private func answer(_ result: OpaquePointer?, _ sql: String) throws(HealthError) -> OpaquePointer {
        do {
            try check(result, "in \(sql.prefix(80))")
        } catch {
            PQclear(result)
            throw error
        }
        changes = Int(String(cString: PQcmdTuples(result))) ?? 0
        return result!
    }

    /// Throws the failure a result reports, as the HealthError a caller can act on.
    private func check(_ result: OpaquePointer?, _ context: String) throws(HealthError) {
        let status = result.map(PQresultStatus) ?? PGRES_FATAL_ERROR
        guard status != PGRES_COMMAND_OK, status != PGRES_TUPLES_OK else { return }
        let text = result.flatMap(PQresultErrorMessage) ?? PQerrorMessage(handle)
        let message = (text.map { String(cString: $0) } ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
        let state = result.flatMap { PQresultErrorField($0, Int32(UInt8(ascii: "C"))) }.map { String(cString: $0) } ?? ""
        throw PostgreSQLFailure(state: state, message: message, address: address, context: context,
                                connectionLost: PQstatus(handle) != CONNECTION_OK).healthError
    }
}

/// A PostgreSQL statement: bound values are kept until the first `step` (or `start`), which runs it
/// and buffers every row of the answer, or, for a cursor, one batch of them at a time.
final class PostgreSQLStatement: Statement {
    private unowned let connection: PostgreSQLConnection
    private let sql: String
    /// Server-side name for a cached statement; nil for one run once (unnamed, parsed per run).
    private let name: String?
    /// The cursor a streamed statement is read through inside a transaction (nil: read whole).
    private let cursor: String?
    /// Whether `result` is a batch fetched from `cursor`.
    private var fetching = false
    /// Cursors declared for this statement so far: a statement run again reads a new one.
    private var declarations = 0
    /// Sent to the server and not yet answered (the connection hands the answer to `arrived`).
    private var inFlight = false
    /// An answer that came for a statement sent ahead, not yet read.
    private var pending: Result<OpaquePointer, HealthError>?
    private var preparedSession = -1
    private var values: [Data?]
    private var binary: [Bool]
    private var result: OpaquePointer?
    /// Each column's type in `result`, read once per result: asking libpq per value cost a call on
    /// every number of every row.
    private var columnTypes: [Oid] = []
    private var row = -1
    private var rowCount = 0
    /// A value that cannot be sent (text with a NUL byte), reported by `step`.
    private var bindError: HealthError?

    /// Rows a cursor's FETCH brings at once: two batches are the most libpq holds for it.
    static let fetchRows = 4_096

    init(connection: PostgreSQLConnection, sql: String, name: String?, cursor: String? = nil) {
        self.connection = connection
        let (translated, count) = Self.numberPlaceholders(sql)
        self.sql = translated
        self.name = name
        self.cursor = cursor
        values = Array(repeating: nil, count: count)
        binary = Array(repeating: false, count: count)
    }

    deinit {
        PQclear(result)
        if case .success(let answer) = pending { PQclear(answer) }
    }

    /// The SQL sent, for messages.
    var text: String { sql }

    /// `?` → `$1, $2, …` in order, `?N` → `$N` (outside quoted text); returns the parameter count.
    static func numberPlaceholders(_ sql: String) -> (String, Int) {
        var out = "", next = 0, highest = 0, quoted = false
        var characters = sql.makeIterator()
        var pending = characters.next()
        while let c = pending {
            pending = characters.next()
            if c == "'" { quoted.toggle() }
            guard c == "?", !quoted else { out.append(c); continue }
            var digits = ""
            while let d = pending, d.isASCII, d.isNumber {
                digits.append(d)
                pending = characters.next()
            }
            let number: Int
            if let explicit = Int(digits) { number = explicit } else { next += 1; number = next }
            highest = max(highest, number)
            out += "$\(number)"
        }
        return (out, highest)
    }

    /// Every parameter is sent as bound at each run: nothing to gain from keeping them.
    func rewind() { reset() }

    func reset() {
        if inFlight { connection.settle() }
        if case .success(let answer) = pending { PQclear(answer) }
        pending = nil
        fetching = false
        PQclear(result)
        result = nil
        columnTypes = []
        row = -1
        bindError = nil
        for index in values.indices { values[index] = nil; binary[index] = false }
    }

    // MARK: binding

    private func set(_ index: Int32, _ value: Data?, binary isBinary: Bool = false) {
        let slot = Int(index) - 1
        guard values.indices.contains(slot) else { return }
        values[slot] = value
        binary[slot] = isBinary
    }

    func bind(_ index: Int32, _ value: Int64?) { set(index, value.map { Data(String($0).utf8) }) }

    func bind(_ index: Int32, _ value: Double?) {
        // Swift's description is the shortest text that reads back as the same double.
        set(index, value.map { Data(($0.isNaN ? "NaN" : $0.isInfinite ? ($0 < 0 ? "-Infinity" : "Infinity") : "\($0)").utf8) })
    }

    func bind(_ index: Int32, _ value: String?) {
        if let value, value.utf8.contains(0) {
            bindError = HealthError.invalid("text values may not contain NUL characters", field: nil)
        }
        set(index, value.map { Data($0.utf8) })
    }

    func bind(_ index: Int32, _ value: Data?) { set(index, value, binary: true) }

    func bind(_ index: Int32, _ value: UUID) { set(index, value.bytes, binary: true) }

    // Parameters are sent as copies anyway.
    func bind(_ index: Int32, borrowing bytes: UnsafeRawBufferPointer, text: Bool) {
        if text { bind(index, String(decoding: bytes, as: UTF8.self)) } else { set(index, Data(bytes), binary: true) }
    }

    // MARK: stepping

    func step() throws(HealthError) -> Bool {
        if result == nil { try execute() }
        row += 1
        if row == rowCount, fetching, rowCount == Self.fetchRows {
            try fetch()
            row = 0
        }
        // Now and then, what has come for a statement sent ahead is taken off the socket.
        if row & 255 == 255 { connection.receiveAhead() }
        return row < rowCount
    }

    /// Sends the statement now, unless it already ran, so the server works on it while the caller
    /// reads other rows; its first `step` takes the answer. A cursor's statement starts when stepped.
    func start() {
        guard result == nil, !inFlight, pending == nil, bindError == nil, cursor == nil else { return }
        if let name, preparedSession != connection.session {
            guard (try? connection.prepareOnServer(name: name, sql: sql)) != nil else { return }
            preparedSession = connection.session
        }
        inFlight = withParameters { buffers, lengths, formats in
            connection.send(self, name: name, sql: sql, values: buffers, lengths: lengths, formats: formats)
        }
    }

    /// The answer to the statement sent ahead, from the connection.
    func arrived(_ answer: Result<OpaquePointer, HealthError>) {
        inFlight = false
        pending = answer
    }

    private func execute() throws(HealthError) {
        if let bindError { throw bindError }
        if inFlight { connection.settle() }
        if let answer = pending {
            pending = nil
            return adopt(try answer.get())
        }
        if let name, preparedSession != connection.session {
            try connection.prepareOnServer(name: name, sql: sql)
            preparedSession = connection.session
        }
        if let cursor, connection.inTransaction {
            declarations += 1
            let declared = try withParameters { buffers, lengths, formats throws(HealthError) in
                try connection.run(name: nil, sql: "DECLARE \(cursor)_\(declarations) BINARY NO SCROLL CURSOR FOR \(sql)", values: buffers,
                                   lengths: lengths, formats: formats)
            }
            PQclear(declared)
            fetching = true
            return try fetch()
        }
        adopt(try withParameters { buffers, lengths, formats throws(HealthError) in
            try connection.run(name: name, sql: sql, values: buffers, lengths: lengths, formats: formats)
        })
    }

    /// The cursor's next batch in place of the last, the one after it sent for while the caller reads it.
    private func fetch() throws(HealthError) {
        guard let cursor else { return }
        let next = "FETCH FORWARD \(Self.fetchRows) FROM \(cursor)_\(declarations)"
        if inFlight { connection.settle() }
        if let answer = pending {
            pending = nil
            adopt(try answer.get())
        } else {
            adopt(try connection.run(name: nil, sql: next, values: [], lengths: [], formats: []))
        }
        if rowCount == Self.fetchRows {
            inFlight = connection.send(self, name: nil, sql: next, values: [], lengths: [], formats: [])
        }
    }

    private func adopt(_ answer: OpaquePointer) {
        PQclear(result)
        result = answer
        row = -1
        columnTypes = (0..<PQnfields(answer)).map { PQftype(answer, $0) }
        rowCount = Int(PQntuples(answer))
    }

    /// Calls `body` with the bound values as libpq takes them: copies that live until it returns, text
    /// NUL-terminated. A zero-length value still gets a buffer, or it would be sent as NULL.
    private func withParameters<T, E: Error>(_ body: ([UnsafePointer<CChar>?], [Int32], [Int32]) throws(E) -> T) throws(E) -> T {
        let buffers: [UnsafeMutablePointer<CChar>?] = values.enumerated().map { index, value in
            guard let value else { return nil }
            let terminated = binary[index] ? value : value + Data([0])
            let buffer = UnsafeMutablePointer<CChar>.allocate(capacity: max(1, terminated.count))
            terminated.withUnsafeBytes { raw in
                if let base = raw.baseAddress { UnsafeMutableRawPointer(buffer).copyMemory(from: base, byteCount: raw.count) }
            }
            return buffer
        }
        defer { buffers.forEach { $0?.deallocate() } }
        return try body(buffers.map { $0.map { UnsafePointer($0) } }, values.map { Int32($0?.count ?? 0) }, binary.map { Int32($0 ? 1 : 0) })
    }

    // MARK: columns

    func isNull(_ column: Int32) -> Bool { PQgetisnull(result, Int32(row), column) != 0 }

    private func bytes(_ column: Int32) -> UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(start: PQgetvalue(result, Int32(row), column), count: Int(PQgetlength(result, Int32(row), column)))
    }

    /// A big-endian integer column of any width (int2, int4, int8, bool); a float column truncated.
    func int(_ column: Int32) -> Int64 {
        if isNull(column) { return 0 }
        let type = columnTypes[Int(column)]
        if type == Self.float8 || type == Self.float4 { return Int64(double(column)) }
        let raw = bytes(column)
        // One load per common width: the byte-at-a-time loop was most of the sync's time in here.
        switch raw.count {
        case 8: return Int64(bigEndian: raw.loadUnaligned(as: Int64.self))
        case 4: return Int64(Int32(bigEndian: raw.loadUnaligned(as: Int32.self)))
        case 2: return Int64(Int16(bigEndian: raw.loadUnaligned(as: Int16.self)))
        default:
            var value: Int64 = raw.first.map { Int64(Int8(bitPattern: $0)) } ?? 0
            for byte in raw.dropFirst() { value = value << 8 | Int64(byte) }
            return value
        }
    }

    func double(_ column: Int32) -> Double {
        if isNull(column) { return 0 }
        let raw = bytes(column)
        switch columnTypes[Int(column)] {
        case Self.float8:
            return Double(bitPattern: raw.reduce(UInt64(0)) { $0 << 8 | UInt64($1) })
        case Self.float4:
            return Double(Float(bitPattern: raw.reduce(UInt32(0)) { $0 << 8 | UInt32($1) }))
        default:
            return Double(int(column))
        }
    }

    func text(_ column: Int32) -> String? {
        isNull(column) ? nil : String(decoding: bytes(column), as: UTF8.self)
    }

    func blob(_ column: Int32) -> Data? {
        isNull(column) ? nil : Data(bytes(column))
    }

    func uuid(_ column: Int32) -> UUID {
        var raw: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        let stored = bytes(column)
        if !isNull(column), stored.count == 16 { withUnsafeMutableBytes(of: &raw) { $0.copyMemory(from: stored) } }
        return UUID(uuid: raw)
    }

    private static let float4: Oid = 700, float8: Oid = 701
}

import CSQLite
import Foundation
import HealthModel

/// `uuid_keys (head, owner, type, anchor)`: every UUID level (`UUIDLevels`) as one eponymous virtual
/// table, so lookups by UUID stay SQL (`SQLDialect.sampleByUUID`, the `uuids` and `workout`
/// predicates). Given `head = ?` and `owner = ?` (an `IN` on either is one call per value, as SQLite
/// runs an IN on a virtual table) it reads the recent level's B-tree and one row of each run, the
/// entries bisected in place; without them it reads every entry (tests count them so). Its own
/// statements run on the connection that queries it, so it reads what that connection's transaction
/// sees.
enum UUIDKeysTable {
    static func register(on db: OpaquePointer) {
        sqlite3_create_module_v2(db, UUIDLevels.all, module, nil, nil)
    }

    /// Column numbers, as declared in `xConnect`.
    private static let headColumn: Int32 = 0, ownerColumn: Int32 = 1

    /// The connection's statements, prepared at first use (the tables appear with the schema).
    private final class Table {
        let db: OpaquePointer
        var statements: [String: OpaquePointer] = [:]

        init(db: OpaquePointer) { self.db = db }

        deinit { statements.values.forEach { sqlite3_finalize($0) } }

        func statement(_ sql: String) -> OpaquePointer? {
            if let cached = statements[sql] { return cached }
            var statement: OpaquePointer?
            guard sqlite3_prepare_v3(db, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &statement, nil) == SQLITE_OK, let statement else { return nil }
            statements[sql] = statement
            return statement
        }

        /// The entries of `head` and `owner`, or every entry when `head` is nil; nil when a statement failed.
        func entries(head: UInt64?, owner: Int64?) -> [UUIDEntry]? {
            var found: [UUIDEntry] = []
            let recentSQL = head == nil ? "SELECT head, owner, type, anchor FROM \(UUIDLevels.recent)"
                : "SELECT head, owner, type, anchor FROM \(UUIDLevels.recent) WHERE head = ?1 AND owner = ?2"
            let headBlob = head.map(UUIDEntry.blob) ?? Data()
            guard let recent = statement(recentSQL) else { return nil }
            defer { sqlite3_reset(recent) }
            if head != nil {
                bind(recent, 1, headBlob)
                sqlite3_bind_int64(recent, 2, owner ?? 0)
            }
            var rc = sqlite3_step(recent)
            while rc == SQLITE_ROW {
                if let entryHead = blob(recent, 0).flatMap(UUIDEntry.head) {
                    found.append(UUIDEntry(head: entryHead, owner: sqlite3_column_int64(recent, 1), type: sqlite3_column_int64(recent, 2),
                                           anchor: sqlite3_column_int64(recent, 3)))
                }
                rc = sqlite3_step(recent)
            }
            guard rc == SQLITE_DONE, let runs = statement(head == nil ? UUIDLevels.allRowsSQL : UUIDLevels.rowsMayHoldSQL) else { return nil }
            defer { sqlite3_reset(runs) }
            if head != nil { bind(runs, 1, headBlob) }
            rc = sqlite3_step(runs)
            while rc == SQLITE_ROW {
                // An input of a running merge: its output holds its entries up to the merge's cursor.
                let written = blob(runs, 2).flatMap(UUIDEntry.head)
                let bytes = UnsafeRawBufferPointer(start: sqlite3_column_blob(runs, 1), count: Int(sqlite3_column_bytes(runs, 1)))
                let entries = head.map { UUIDRunBlock.entries(head: $0, owner: owner, in: bytes) } ?? UUIDRunBlock.decode(bytes)
                found += written.map { cursor in entries.filter { $0.head > cursor } } ?? entries
                rc = sqlite3_step(runs)
            }
            return rc == SQLITE_DONE ? found : nil
        }

        private func bind(_ statement: OpaquePointer, _ index: Int32, _ data: Data) {
            data.withUnsafeBytes { _ = sqlite3_bind_blob(statement, index, $0.baseAddress, Int32($0.count), sqliteTransient) }
        }

        private func blob(_ statement: OpaquePointer, _ column: Int32) -> Data? {
            guard sqlite3_column_type(statement, column) == SQLITE_BLOB else { return nil }
            return Data(bytes: sqlite3_column_blob(statement, column), count: Int(sqlite3_column_bytes(statement, column)))
        }
    }

    /// A scan's entries.
    private final class Cursor {
        var entries: [UUIDEntry] = []
        var position = 0
    }

    /// A C struct SQLite allocates nothing of (`sqlite3_vtab`, `sqlite3_vtab_cursor`), followed by the
    /// Swift object it belongs to.
    private static func attach<Base>(_ base: Base, to object: AnyObject) -> UnsafeMutablePointer<Base> {
        let raw = UnsafeMutableRawPointer.allocate(byteCount: MemoryLayout<Base>.stride + MemoryLayout<UnsafeRawPointer>.size,
                                                   alignment: max(MemoryLayout<Base>.alignment, MemoryLayout<UnsafeRawPointer>.alignment))
        let pointer = raw.bindMemory(to: Base.self, capacity: 1)
        pointer.initialize(to: base)
        (raw + MemoryLayout<Base>.stride).storeBytes(of: Unmanaged.passRetained(object).toOpaque(), as: UnsafeMutableRawPointer.self)
        return pointer
    }

    private static func object<Base, Object: AnyObject>(_ pointer: UnsafeMutablePointer<Base>, as _: Object.Type) -> Object {
        let opaque = (UnsafeMutableRawPointer(pointer) + MemoryLayout<Base>.stride).load(as: UnsafeMutableRawPointer.self)
        return Unmanaged<Object>.fromOpaque(opaque).takeUnretainedValue()
    }

    private static func detach<Base>(_ pointer: UnsafeMutablePointer<Base>) {
        let opaque = (UnsafeMutableRawPointer(pointer) + MemoryLayout<Base>.stride).load(as: UnsafeMutableRawPointer.self)
        Unmanaged<AnyObject>.fromOpaque(opaque).release()
        pointer.deinitialize(count: 1)
        UnsafeMutableRawPointer(pointer).deallocate()
    }

    nonisolated(unsafe) private static let module: UnsafeMutablePointer<sqlite3_module> = {
        var module = sqlite3_module()
        // No xCreate: eponymous only, the table exists in every schema without CREATE VIRTUAL TABLE.
        module.xConnect = { db, _, _, _, table, _ in
            guard let db, let table else { return SQLITE_ERROR }
            let rc = sqlite3_declare_vtab(db, "CREATE TABLE x(head BLOB, owner INTEGER, type INTEGER, anchor INTEGER)")
            guard rc == SQLITE_OK else { return rc }
            table.pointee = UUIDKeysTable.attach(sqlite3_vtab(), to: Table(db: db))
            return SQLITE_OK
        }
        module.xDisconnect = { table in
            table.map(UUIDKeysTable.detach)
            return SQLITE_OK
        }
        module.xBestIndex = { _, info in
            guard let info else { return SQLITE_ERROR }
            var head: Int?, owner: Int?
            for index in 0..<Int(info.pointee.nConstraint) {
                let constraint = info.pointee.aConstraint[index]
                guard constraint.usable != 0, constraint.op == UInt8(SQLITE_INDEX_CONSTRAINT_EQ) else { continue }
                if constraint.iColumn == UUIDKeysTable.headColumn { head = index }
                if constraint.iColumn == UUIDKeysTable.ownerColumn { owner = index }
            }
            if let head, let owner {
                info.pointee.aConstraintUsage[head].argvIndex = 1
                info.pointee.aConstraintUsage[owner].argvIndex = 2
                info.pointee.idxNum = 1
                info.pointee.estimatedCost = 20
                info.pointee.estimatedRows = 1
            } else {
                info.pointee.idxNum = 0
                info.pointee.estimatedCost = 1e12
                info.pointee.estimatedRows = 10_000_000
            }
            return SQLITE_OK
        }
        module.xOpen = { _, cursor in
            guard let cursor else { return SQLITE_ERROR }
            cursor.pointee = UUIDKeysTable.attach(sqlite3_vtab_cursor(), to: Cursor())
            return SQLITE_OK
        }
        module.xClose = { cursor in
            cursor.map(UUIDKeysTable.detach)
            return SQLITE_OK
        }
        module.xFilter = { cursor, plan, _, count, arguments in
            guard let cursor, let vtab = cursor.pointee.pVtab else { return SQLITE_ERROR }
            let table = UUIDKeysTable.object(vtab, as: Table.self), scan = UUIDKeysTable.object(cursor, as: Cursor.self)
            scan.position = 0
            var head: UInt64?, owner: Int64?
            if plan == 1, count == 2, let arguments, let headValue = arguments[0], let ownerValue = arguments[1] {
                // A head that is not an 8-byte blob (NULL, say) matches nothing.
                guard sqlite3_value_type(headValue) == SQLITE_BLOB, sqlite3_value_bytes(headValue) == 8,
                      sqlite3_value_type(ownerValue) == SQLITE_INTEGER else {
                    scan.entries = []
                    return SQLITE_OK
                }
                head = UUIDEntry.head(UnsafeRawBufferPointer(start: sqlite3_value_blob(headValue), count: 8))
                owner = sqlite3_value_int64(ownerValue)
            }
            guard let entries = table.entries(head: head, owner: owner) else { return sqlite3_errcode(table.db) }
            scan.entries = entries
            return SQLITE_OK
        }
        module.xNext = { cursor in
            guard let cursor else { return SQLITE_ERROR }
            UUIDKeysTable.object(cursor, as: Cursor.self).position += 1
            return SQLITE_OK
        }
        module.xEof = { cursor in
            guard let cursor else { return 1 }
            let scan = UUIDKeysTable.object(cursor, as: Cursor.self)
            return scan.position >= scan.entries.count ? 1 : 0
        }
        module.xColumn = { cursor, context, column in
            guard let cursor else { return SQLITE_ERROR }
            let scan = UUIDKeysTable.object(cursor, as: Cursor.self)
            let entry = scan.entries[scan.position]
            switch column {
            case 0: UUIDEntry.blob(entry.head).withUnsafeBytes { sqlite3_result_blob(context, $0.baseAddress, 8, sqliteTransient) }
            case 1: sqlite3_result_int64(context, entry.owner)
            case 2: sqlite3_result_int64(context, entry.type)
            default: sqlite3_result_int64(context, entry.anchor)
            }
            return SQLITE_OK
        }
        module.xRowid = { cursor, rowid in
            guard let cursor, let rowid else { return SQLITE_ERROR }
            rowid.pointee = Int64(UUIDKeysTable.object(cursor, as: Cursor.self).position)
            return SQLITE_OK
        }
        let pointer = UnsafeMutablePointer<sqlite3_module>.allocate(capacity: 1)
        pointer.initialize(to: module)
        return pointer
    }()
}

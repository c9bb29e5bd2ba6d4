import CSQLite
import HealthModel

/// A failed SQLite call, turned into the HealthError a caller can act on: a full disk is not a
/// server fault, a busy file is worth retrying, a damaged file is not. The message keeps SQLite's
/// own text and extended result code so an operator can tell the causes apart.
struct SQLiteFailure {
    /// The extended result code (extended codes are enabled on every connection).
    let code: Int32
    /// `sqlite3_errmsg` at the time of the failure.
    let message: String
    /// The store file.
    let path: String
    /// What was being done, e.g. the statement.
    let context: String

    var healthError: HealthError {
        let detail = "\(message) (SQLite code \(code)\(Self.name(code).map { " \($0)" } ?? ""); \(context))"
        switch code & 0xff {
        case SQLITE_FULL:
            return HealthError(.resourceExhausted, "the store is full: \(detail); nothing of this call was saved, retry once disk space is freed")
        case SQLITE_BUSY, SQLITE_LOCKED:
            return HealthError(.unavailable, "the store is busy: \(detail); retry shortly")
        case SQLITE_NOMEM:
            return HealthError(.resourceExhausted, "the server is out of memory: \(detail); retry later")
        case SQLITE_TOOBIG:
            return HealthError(.dataSizeExceeded, "a value is too large for the store: \(detail)")
        case SQLITE_CORRUPT, SQLITE_NOTADB:
            return HealthError(.databaseInaccessible, "the store file '\(path)' is damaged or not a store: \(detail)")
        case SQLITE_READONLY:
            return HealthError(.databaseInaccessible, "the store file '\(path)' cannot be written: \(detail)")
        case SQLITE_CANTOPEN, SQLITE_PERM, SQLITE_AUTH:
            return HealthError(.databaseInaccessible, "cannot open the store file '\(path)': \(detail)")
        case SQLITE_IOERR:
            return HealthError(.internalError, "I/O error on the store file '\(path)': \(detail)")
        default:
            return HealthError(.internalError, "SQLite failed: \(detail)")
        }
    }

    /// The symbolic name of the codes an operator most likely meets (SQLite has no API for it).
    static func name(_ code: Int32) -> String? {
        let primary: String
        switch code & 0xff {
        case SQLITE_FULL: primary = "SQLITE_FULL"
        case SQLITE_BUSY: primary = "SQLITE_BUSY"
        case SQLITE_LOCKED: primary = "SQLITE_LOCKED"
        case SQLITE_NOMEM: primary = "SQLITE_NOMEM"
        case SQLITE_TOOBIG: primary = "SQLITE_TOOBIG"
        case SQLITE_CORRUPT: primary = "SQLITE_CORRUPT"
        case SQLITE_NOTADB: primary = "SQLITE_NOTADB"
        case SQLITE_READONLY: primary = "SQLITE_READONLY"
        case SQLITE_CANTOPEN: primary = "SQLITE_CANTOPEN"
        case SQLITE_PERM: primary = "SQLITE_PERM"
        case SQLITE_IOERR: primary = "SQLITE_IOERR"
        default: return nil
        }
        guard primary == "SQLITE_IOERR", let kind = ioErrorKinds[code >> 8] else { return primary }
        return primary + "_" + kind
    }

    /// The extended SQLITE_IOERR_… codes by their upper byte: which I/O operation failed.
    private static let ioErrorKinds: [Int32: String] = [
        1: "READ", 2: "SHORT_READ", 3: "WRITE", 4: "FSYNC", 5: "DIR_FSYNC", 6: "TRUNCATE", 7: "FSTAT", 10: "DELETE",
        15: "LOCK", 18: "SHMOPEN", 19: "SHMSIZE", 21: "SHMMAP", 24: "MMAP",
    ]
}

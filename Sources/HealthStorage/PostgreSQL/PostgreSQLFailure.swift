import HealthModel

/// A failed PostgreSQL call, turned into the HealthError a caller can act on (by SQLSTATE class):
/// a lost server or a serialisation conflict is worth retrying, a full disk is not a server fault.
/// The message keeps the server's own text and SQLSTATE so an operator can tell the causes apart.
struct PostgreSQLFailure {
    /// The five-character SQLSTATE, empty when the failure never reached the server.
    let state: String
    let message: String
    /// Where the session goes ("host … port … database …").
    let address: String
    /// What was being done, e.g. the statement.
    let context: String
    /// The session is gone (no SQLSTATE then, or class 08).
    let connectionLost: Bool

    var healthError: HealthError {
        let detail = "\(message) (SQLSTATE \(state.isEmpty ? "none" : state); \(context))"
        if connectionLost || state.hasPrefix("08") || state == "57P01" || state == "57P02" || state == "57P03" {
            return HealthError(.unavailable, "lost the PostgreSQL store at \(address): \(detail); nothing of this call "
                               + "was acknowledged, retry once it is back")
        }
        switch state {
        case "40001", "40P01", "55P03":
            return HealthError(.unavailable, "the store met a conflicting transaction: \(detail); retry shortly")
        case "53100":
            return HealthError(.resourceExhausted, "the store is full: \(detail); nothing of this call was saved, "
                               + "retry once disk space is freed")
        case "53200":
            return HealthError(.resourceExhausted, "the database server is out of memory: \(detail); retry later")
        case "54000":
            return HealthError(.dataSizeExceeded, "a value is too large for the store: \(detail)")
        case "25006":
            return HealthError(.databaseInaccessible, "the PostgreSQL store at \(address) cannot be written: \(detail)")
        case "28000", "28P01", "42501":
            return HealthError(.databaseInaccessible, "the PostgreSQL store at \(address) refused access: \(detail)")
        default:
            return HealthError(.internalError, "PostgreSQL failed: \(detail)")
        }
    }
}

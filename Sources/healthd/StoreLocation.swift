import Foundation
import HealthCLI
import HealthModel
import HealthStorage

/// Which store healthd opens: an SQLite file, or a PostgreSQL database that several nodes may share.
enum StoreLocation: Equatable, CustomStringConvertible {
    case sqlite(path: String)
    /// A libpq URL: postgresql://user@host:port/db, postgresql:///db?host=/run/postgresql, …
    case postgreSQL(url: String)

    /// `sqlite:PATH`, or a `postgresql://` / `postgres://` URL.
    init(parsing text: String) throws(UsageError) {
        if text.hasPrefix("sqlite:") {
            let path = String(text.dropFirst("sqlite:".count))
            guard !path.isEmpty else { throw UsageError("'sqlite:' needs a file path, e.g. sqlite:./data/healthstore.sqlite") }
            self = .sqlite(path: path)
        } else if text.hasPrefix("postgresql://") || text.hasPrefix("postgres://") {
            self = .postgreSQL(url: text)
        } else {
            throw UsageError("'\(text)' is neither sqlite:PATH nor a postgresql://user@host:port/db URL")
        }
    }

    var isSQLite: Bool {
        if case .sqlite = self { return true }
        return false
    }

    /// As shown in logs: a URL's password is left out.
    var description: String {
        switch self {
        case .sqlite(let path):
            return "sqlite:" + path
        case .postgreSQL(let url):
            guard let scheme = url.range(of: "://"), let at = url[scheme.upperBound...].firstIndex(of: "@"),
                  let colon = url[scheme.upperBound..<at].firstIndex(of: ":") else { return url }
            return String(url[..<colon]) + String(url[at...])
        }
    }

    /// Opens the store, creating or migrating its schema (an SQLite file's migration tells `log` how it
    /// goes); a nil group-commit setting keeps the store's default.
    func open(retention: Microseconds, durability: SQLiteStore.Options.Durability, groupCommitWindow: Duration?,
              groupCommitJobs: Int?, log: @escaping @Sendable (String) -> Void) throws -> EngineStore {
        switch self {
        case .sqlite(let path):
            var options = SQLiteStore.Options()
            options.tombstoneRetention = retention
            options.durability = durability
            options.groupCommitWindow = groupCommitWindow ?? options.groupCommitWindow
            options.groupCommitWindowJobs = groupCommitJobs ?? options.groupCommitWindowJobs
            options.migrationProgress = { log(MigrationLog.line($0)) }
            return try SQLiteStore.open(path: path, options: options)
        case .postgreSQL(let url):
            var options = PostgreSQLStore.Options()
            options.tombstoneRetention = retention
            options.groupCommitWindow = groupCommitWindow ?? options.groupCommitWindow
            options.groupCommitWindowJobs = groupCommitJobs ?? options.groupCommitWindowJobs
            return try PostgreSQLStore.open(conninfo: url, options: options)
        }
    }
}

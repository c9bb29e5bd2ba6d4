import CSQLite
import Foundation
import HealthModel

/// What a schema migration at open reports while it runs (`SQLiteStore.Options.migrationProgress`),
/// so that a long one is not a silent pause: a step that goes through every sample takes seconds at
/// 1M samples and minutes at 10M (bench/history 2026-12-03-migrateprogress).
public enum MigrationProgress: Sendable, Equatable {
    /// The file is at step `from`; the steps up to `to` run in one transaction, so an interruption
    /// leaves it at `from`.
    case began(from: Int, to: Int)
    /// A step starts; `summary` says what it does, in one phrase.
    case stepBegan(step: Int, summary: String)
    /// A step still runs (at most once per `SQLiteStore.Options.migrationProgressInterval`); `rows`
    /// says how far it has come when the step counts its rows.
    case stepRunning(step: Int, elapsed: Duration, rows: MigrationRows?)
    /// A step is done (not yet committed: the last step's end is followed by `ended`).
    case stepEnded(step: Int, elapsed: Duration)
    /// Every step is committed.
    case ended(to: Int, elapsed: Duration)
}

/// How far a step that goes through every row of a table has come (step 19 counts the rows as SQLite
/// reads and sorts them; the writing that follows is not counted).
public struct MigrationRows: Sendable, Equatable {
    /// What the step does to a row, e.g. "read and sorted".
    public let verb: String
    /// Rows the step has been through, of `total`.
    public let done: Int
    public let total: Int

    /// The step's share done, 0…1.
    public var fraction: Double { total > 0 ? min(1, Double(done) / Double(total)) : 1 }
}

/// Counts a migration's rows and calls its progress callback on the migrating thread: SQLite's
/// progress handler looks at the clock every few thousand instructions and reports when the interval
/// has passed, so the rate of reports is bounded however fast the rows go. A step's SQL counts each
/// row with `hs_migration_row(1)`, which returns 1 and does nothing else.
final class MigrationReporter {
    /// SQLite instructions between looks at the clock: a step's rows take about ten each.
    private static let instructionsPerCheck: Int32 = 10_000

    private let report: ((MigrationProgress) -> Void)?
    private let interval: Duration
    private var step = 0
    private var stepStart = ContinuousClock.now
    private var lastReport = ContinuousClock.now
    /// What the current step does to each row it counts; nil for a step that counts no rows.
    private var verb: String?
    /// The rows the current step goes through, once counted.
    var total: Int?
    /// Rows the current step has counted.
    private var rows = 0

    init(report: ((MigrationProgress) -> Void)?, interval: Duration) {
        self.report = report
        self.interval = interval
    }

    /// Registers `hs_migration_row` and, when there is someone to tell, the progress handler; `body`
    /// runs the migration, and both are gone when it returns.
    func attached<T>(to db: SQLiteConnection, _ body: () throws(HealthError) -> T) throws(HealthError) -> T {
        let context = Unmanaged.passUnretained(self).toOpaque()
        sqlite3_create_function_v2(db.handle, "hs_migration_row", 1, SQLITE_UTF8 | SQLITE_DIRECTONLY, context, { sqlite, count, arguments in
            if let context = sqlite3_user_data(sqlite) { Unmanaged<MigrationReporter>.fromOpaque(context).takeUnretainedValue().rows += 1 }
            sqlite3_result_int(sqlite, 1)
        }, nil, nil, nil)
        if report != nil {
            sqlite3_progress_handler(db.handle, Self.instructionsPerCheck, { context in
                if let context { Unmanaged<MigrationReporter>.fromOpaque(context).takeUnretainedValue().check() }
                return 0
            }, context)
        }
        defer {
            sqlite3_progress_handler(db.handle, 0, nil, nil)
            sqlite3_create_function_v2(db.handle, "hs_migration_row", 1, SQLITE_UTF8 | SQLITE_DIRECTONLY, nil, nil, nil, nil, nil)
        }
        return try body()
    }

    func began(from: Int, to: Int) { report?(.began(from: from, to: to)) }

    /// A step starts; `verb` says what it does to each row, if it counts them (`total` is set once
    /// they are counted).
    func stepBegan(_ step: Int, summary: String, verb: String?) {
        self.step = step
        self.verb = verb
        total = nil
        rows = 0
        stepStart = ContinuousClock.now
        lastReport = stepStart
        report?(.stepBegan(step: step, summary: summary))
    }

    func stepEnded() { report?(.stepEnded(step: step, elapsed: ContinuousClock.now - stepStart)) }

    func ended(to: Int, after began: ContinuousClock.Instant) { report?(.ended(to: to, elapsed: ContinuousClock.now - began)) }

    private func check() {
        let now = ContinuousClock.now
        guard now - lastReport >= interval, let report else { return }
        lastReport = now
        let counted = verb.flatMap { verb in total.map { MigrationRows(verb: verb, done: rows, total: $0) } }
        report(.stepRunning(step: step, elapsed: now - stepStart, rows: counted))
    }
}

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

/// How far a step that goes through every row of a table has come: it takes each row through one
/// pass or more (step 19 has one: it counts the rows as SQLite reads and sorts them; the writing
/// that follows is not counted).
public struct MigrationRows: Sendable, Equatable {
    /// What the current pass does to a row, e.g. "read and sorted".
    public let pass: String
    /// The current pass, from 1, of `passes`.
    public let passNumber: Int
    public let passes: Int
    /// Rows the current pass has been through, of `total`.
    public let done: Int
    public let total: Int

    /// The step's share done, 0…1, counting every pass as the same work.
    public var fraction: Double {
        guard total > 0, passes > 0 else { return 1 }
        return min(1, (Double(passNumber - 1) * Double(total) + Double(done)) / (Double(passes) * Double(total)))
    }
}

/// Counts a migration's rows and calls its progress callback on the migrating thread: SQLite's
/// progress handler looks at the clock every few thousand instructions and reports when the interval
/// has passed, so the rate of reports is bounded however fast the rows go. A step's SQL counts each
/// row of a pass with `hs_migration_row(pass)`, which returns 1 and does nothing else.
final class MigrationReporter {
    /// SQLite instructions between looks at the clock: a step's rows take about ten each.
    private static let instructionsPerCheck: Int32 = 10_000

    private let report: ((MigrationProgress) -> Void)?
    private let interval: Duration
    private var step = 0
    private var stepStart = ContinuousClock.now
    private var lastReport = ContinuousClock.now
    /// What each pass of the current step does to a row; empty for a step that counts no rows.
    private var passes: [String] = []
    /// The rows the current step goes through, once counted.
    var total: Int?
    /// Rows each pass of the current step has counted.
    private var rows: [Int] = []

    init(report: ((MigrationProgress) -> Void)?, interval: Duration) {
        self.report = report
        self.interval = interval
    }

    /// Registers `hs_migration_row` and, when there is someone to tell, the progress handler; `body`
    /// runs the migration, and both are gone when it returns.
    func attached<T>(to db: SQLiteConnection, _ body: () throws(HealthError) -> T) throws(HealthError) -> T {
        let context = Unmanaged.passUnretained(self).toOpaque()
        sqlite3_create_function_v2(db.handle, "hs_migration_row", 1, SQLITE_UTF8 | SQLITE_DIRECTONLY, context, { sqlite, count, arguments in
            if let context = sqlite3_user_data(sqlite), count == 1, let pass = arguments?[0] {
                Unmanaged<MigrationReporter>.fromOpaque(context).takeUnretainedValue().rowPassed(Int(sqlite3_value_int(pass)))
            }
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

    /// A step starts; `passes` says what each of its passes does to a row, if it counts them (`total`
    /// is set once they are counted).
    func stepBegan(_ step: Int, summary: String, passes: [String]) {
        self.step = step
        self.passes = passes
        total = nil
        rows = Array(repeating: 0, count: passes.count)
        stepStart = ContinuousClock.now
        lastReport = stepStart
        report?(.stepBegan(step: step, summary: summary))
    }

    func stepEnded() { report?(.stepEnded(step: step, elapsed: ContinuousClock.now - stepStart)) }

    func ended(to: Int, after began: ContinuousClock.Instant) { report?(.ended(to: to, elapsed: ContinuousClock.now - began)) }

    /// `hs_migration_row(pass)`: one more row through that pass (from 1) of the current step.
    private func rowPassed(_ pass: Int) {
        if rows.indices.contains(pass - 1) { rows[pass - 1] += 1 }
    }

    private func check() {
        let now = ContinuousClock.now
        guard now - lastReport >= interval, let report else { return }
        lastReport = now
        report(.stepRunning(step: step, elapsed: now - stepStart, rows: currentRows))
    }

    /// The last pass that has counted a row (the first before any has).
    private var currentRows: MigrationRows? {
        guard let total, !passes.isEmpty else { return nil }
        let pass = rows.lastIndex { $0 > 0 } ?? 0
        return MigrationRows(pass: passes[pass], passNumber: pass + 1, passes: passes.count, done: rows[pass], total: total)
    }
}

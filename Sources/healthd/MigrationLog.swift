import Foundation
import HealthStorage

/// healthd's log line for each report of a schema migration at open: which step runs and what it
/// does, how far a long step has come (rows, rate, time left), and how long each step took.
enum MigrationLog {
    static func line(_ event: MigrationProgress) -> String {
        switch event {
        case .began(let from, let to):
            return "store schema at step \(from): migrating to step \(to) in one transaction "
                + "(if stopped, the store stays at step \(from) and migrates at the next start)"
        case .stepBegan(let step, let summary):
            return "schema step \(step): \(summary)"
        case .stepRunning(let step, let elapsed, let rows?) where rows.done == rows.total:
            return "schema step \(step): all \(rows.total) rows \(rows.verb); finishing the step, \(Int(elapsed / .seconds(1))) s so far"
        case .stepRunning(let step, let elapsed, let rows?):
            let seconds = elapsed / .seconds(1)
            let left = rows.done > 0 ? seconds * Double(rows.total - rows.done) / Double(rows.done) : nil
            return "schema step \(step): \(rows.done) of \(rows.total) rows \(rows.verb), "
                + "\(Int(rows.fraction * 100)) % in \(Int(seconds)) s, \(Int(Double(rows.done) / max(seconds, 0.001))) rows/s, "
                + (left.map { "about \(Int($0.rounded(.up))) s until every row is \(rows.verb)" } ?? "time left not known yet")
        case .stepRunning(let step, let elapsed, nil):
            return "schema step \(step): still running after \(Int(elapsed / .seconds(1))) s"
        case .stepEnded(let step, let elapsed):
            return "schema step \(step): done in \(tenths(elapsed)) s"
        case .ended(let to, let elapsed):
            return "store schema migrated to step \(to) in \(tenths(elapsed)) s"
        }
    }

    private static func tenths(_ duration: Duration) -> String { String(format: "%.1f", duration / .seconds(1)) }
}

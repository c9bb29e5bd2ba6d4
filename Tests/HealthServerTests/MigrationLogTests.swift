@testable import HealthStorage
import XCTest
@testable import healthd

/// What healthd logs while its store migrates: the step and what it does, rows of total with the rate
/// and the time left, and each step's duration.
final class MigrationLogTests: XCTestCase {
    func testLinesNameTheStepItsRowsRateAndTimeLeft() {
        XCTAssertEqual(MigrationLog.line(.began(from: 18, to: 19)),
                       "store schema at step 18: migrating to step 19 in one transaction "
                       + "(if stopped, the store stays at step 18 and migrates at the next start)")
        XCTAssertEqual(MigrationLog.line(.stepBegan(step: 19, summary: "rebuilding the UUID levels")),
                       "schema step 19: rebuilding the UUID levels")
        // A quarter of the rows in 10 s: 30 s left.
        let rows = MigrationRows(verb: "read and sorted", done: 250_000, total: 1_000_000)
        XCTAssertEqual(MigrationLog.line(.stepRunning(step: 19, elapsed: .seconds(10), rows: rows)),
                       "schema step 19: 250000 of 1000000 rows read and sorted, 25 % in 10 s, 25000 rows/s, "
                       + "about 30 s until every row is read and sorted")
        let read = MigrationRows(verb: "read and sorted", done: 1_000_000, total: 1_000_000)
        XCTAssertEqual(MigrationLog.line(.stepRunning(step: 19, elapsed: .seconds(40), rows: read)),
                       "schema step 19: all 1000000 rows read and sorted; finishing the step, 40 s so far")
        let none = MigrationRows(verb: "read and sorted", done: 0, total: 1_000_000)
        XCTAssertTrue(MigrationLog.line(.stepRunning(step: 19, elapsed: .seconds(1), rows: none)).hasSuffix("time left not known yet"))
        XCTAssertEqual(MigrationLog.line(.stepRunning(step: 15, elapsed: .seconds(12), rows: nil)), "schema step 15: still running after 12 s")
        XCTAssertEqual(MigrationLog.line(.stepEnded(step: 19, elapsed: .milliseconds(41_240))), "schema step 19: done in 41.2 s")
        XCTAssertEqual(MigrationLog.line(.ended(to: 19, elapsed: .milliseconds(41_380))), "store schema migrated to step 19 in 41.4 s")
    }
}

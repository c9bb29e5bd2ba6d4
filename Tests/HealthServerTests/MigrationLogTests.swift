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
        // Pass 2 of 2 half done: three quarters of the step's work in 30 s, 10 s left.
        let rows = MigrationRows(pass: "written", passNumber: 2, passes: 2, done: 500_000, total: 1_000_000)
        XCTAssertEqual(MigrationLog.line(.stepRunning(step: 19, elapsed: .seconds(30), rows: rows)),
                       "schema step 19: 500000 of 1000000 rows written (pass 2 of 2), 75 % of the step in 30 s, 50000 rows/s, "
                       + "about 10 s until every row is written")
        let read = MigrationRows(pass: "read and sorted", passNumber: 1, passes: 1, done: 1_000_000, total: 1_000_000)
        XCTAssertEqual(MigrationLog.line(.stepRunning(step: 19, elapsed: .seconds(40), rows: read)),
                       "schema step 19: all 1000000 rows read and sorted; finishing the step, 40 s so far")
        let none = MigrationRows(pass: "read and sorted", passNumber: 1, passes: 1, done: 0, total: 1_000_000)
        XCTAssertTrue(MigrationLog.line(.stepRunning(step: 19, elapsed: .seconds(1), rows: none)).hasSuffix("time left not known yet"))
        XCTAssertEqual(MigrationLog.line(.stepRunning(step: 15, elapsed: .seconds(12), rows: nil)), "schema step 15: still running after 12 s")
        XCTAssertEqual(MigrationLog.line(.stepEnded(step: 19, elapsed: .milliseconds(41_240))), "schema step 19: done in 41.2 s")
        XCTAssertEqual(MigrationLog.line(.ended(to: 19, elapsed: .milliseconds(41_380))), "store schema migrated to step 19 in 41.4 s")
    }
}

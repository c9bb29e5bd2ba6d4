import HealthStorage
import XCTest
@testable import HealthServer

/// How a long-running call's pending changes merge while it is busy.
final class ChangesTests: XCTestCase {
    private let steps = "HKQuantityTypeIdentifierStepCount", hr = "HKQuantityTypeIdentifierHeartRate"

    func testSpansOfOneTypeMergeIntoTheSpanCoveringBoth() {
        var changes = Changes(spans: [steps: TimeSpan(start: 10, end: 20)])
        changes.formUnion(Changes(spans: [steps: TimeSpan(start: 50, end: 60), hr: TimeSpan(start: 0, end: 1)]))
        XCTAssertEqual(changes.types, [steps, hr])
        XCTAssertEqual(changes.span(of: steps), TimeSpan(start: 10, end: 60))
        XCTAssertEqual(changes.span(of: hr), TimeSpan(start: 0, end: 1))
    }

    /// A new source order changes a type anywhere; a save merged with it must not narrow that.
    func testAChangeAnywhereStaysAnywhereWhateverItMergesWith() {
        for (first, second) in [(Changes(types: [steps]), Changes(spans: [steps: TimeSpan(start: 10, end: 20)])),
                                (Changes(spans: [steps: TimeSpan(start: 10, end: 20)]), Changes(types: [steps]))] {
            var changes = first
            changes.formUnion(second)
            XCTAssertEqual(changes.types, [steps])
            XCTAssertNil(changes.span(of: steps))
        }
    }
}

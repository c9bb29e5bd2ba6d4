import Foundation
import HealthModel
import HealthWire
import XCTest
@testable import healthctl

/// `healthctl overview` built from the server's counts, and the units `healthctl stats` shows by default.
final class OverviewAndStatsUnitTests: XCTestCase {
    func testOverviewAddsUpCountsPerTypeSourceAndDevice() {
        let watch = Source(name: "Watch", bundleID: "com.example.watch"), scale = Source(name: "Scale", bundleID: "com.example.scale")
        let counts = OverviewCommand.Counts([
            SampleCount(type: "HKQuantityTypeIdentifierHeartRate", source: watch, device: Device(name: "W1"), count: 5),
            SampleCount(type: "HKQuantityTypeIdentifierHeartRate", source: watch, device: nil, count: 2),
            SampleCount(type: "HKQuantityTypeIdentifierBodyMass", source: scale, device: Device(model: "S1"), count: 1),
            SampleCount(type: "HKQuantityTypeIdentifierStepCount", source: watch, device: Device(name: "W1"), count: 3),
        ])
        let report = counts.report()
        XCTAssertEqual(report.table.columns, ["BY", "NAME", "SAMPLES"])
        XCTAssertEqual(report.table.rows, [
            ["type", "HeartRate", "7"], ["type", "StepCount", "3"], ["type", "BodyMass", "1"],
            ["source", "com.example.watch", "10"], ["source", "com.example.scale", "1"],
            ["device", "W1", "8"], ["device", "(none)", "2"], ["device", "S1", "1"],
        ])
        XCTAssertEqual(report.footer.last, "11 samples in 3 types from 2 sources and 3 devices")
    }

    func testStatsShowRatesPerSecondPerMinuteUnlessAUnitIsGiven() throws {
        XCTAssertEqual((try TypeCatalog.resolve("HeartRate")).displayUnit, "count/min")
        XCTAssertEqual((try TypeCatalog.resolve("RespiratoryRate")).displayUnit, "count/min")
        XCTAssertNil((try TypeCatalog.resolve("StepCount")).displayUnit)
        XCTAssertNil((try TypeCatalog.resolve("RestingHeartRate")).displayUnit, "already per minute")
    }
}

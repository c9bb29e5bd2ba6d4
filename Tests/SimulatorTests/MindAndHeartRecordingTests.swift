import HealthModel
import XCTest
@testable import HealthSimulator

/// The default fleet's watch records an occasional ECG, saved through the owner; the phone logs a
/// daily mood and a monthly PHQ-9 and GAD-7; every one passes the server's validation.
final class MindAndHeartRecordingTests: XCTestCase {
    /// 2025-03-10T00:00:00Z, and the 70 days from there (April 1 and May 1 in New York).
    let from: Microseconds = 1_741_564_800_000_000
    let to: Microseconds = 1_741_564_800_000_000 + 70 * 86_400_000_000

    func samples(_ id: String) throws -> [Sample] {
        let fleet = BuiltinFleet.fleet
        let profile = try XCTUnwrap(fleet.devices.first { $0.id == id })
        return try DeviceGenerator(profile: profile, person: XCTUnwrap(fleet.person(for: profile)), seed: 42).samples(from: from, to: to)
    }

    func testTheWatchRecordsOccasionalECGsSavedByTheOwner() throws {
        let ecgs = try samples("watch").filter { $0.type == HKType.electrocardiogram }
        XCTAssertTrue((3...25).contains(ecgs.count), "\(ecgs.count) ECGs in 70 days")
        try SampleValidator.validate(ecgs)
        guard case .electrocardiogram(let first)? = ecgs.first?.body else { return XCTFail("no ECG body") }
        XCTAssertEqual(first.voltages.count, 15_360)
        XCTAssertTrue(ecgs.allSatisfy(DeviceUplink.savedByOwner))
        XCTAssertFalse(try XCTUnwrap(BuiltinFleet.fleet.devices.first { $0.id == "watch" }).shareTypes.contains(HKType.electrocardiogram),
                       "no app may ask to share ECGs")
    }

    func testThePhoneLogsADailyMoodAndMonthlyAssessments() throws {
        let phone = try samples("phone")
        let moods = phone.filter { $0.type == HKType.stateOfMind }
        // One each local evening: the window's UTC edges cut New York days, so 70 or 71.
        XCTAssertTrue((70...71).contains(moods.count), "\(moods.count) moods")
        XCTAssertEqual(phone.filter { $0.type == HKType.phq9 }.count, 2)
        XCTAssertEqual(phone.filter { $0.type == HKType.gad7 }.count, 2)
        try SampleValidator.validate(phone.filter { [HKType.stateOfMind, HKType.phq9, HKType.gad7].contains($0.type) })
        XCTAssertGreaterThan(Set(moods.map { StateOfMind.valenceClassification(($0.body.stateOfMindValence)) }).count, 2)
    }
}

private extension SampleBody {
    var stateOfMindValence: Double {
        if case .stateOfMind(let m) = self { return m.valence }
        return .nan
    }
}

import Foundation
import HealthCLI
import HealthModel
import XCTest
@testable import HealthSimulator

/// The network flow against an in-memory store: enrollment, authorization, ordered upload, and
/// faults that lose nothing and duplicate nothing.
final class UploadFlowTests: XCTestCase {
    /// 2025-03-12T00:00:00Z.
    let now: Microseconds = 1_741_737_600_000_000

    func options(_ extra: [String]) throws -> RunOptions {
        var o = try RunOptions.parse(["--speed", "1000000000", "--days", "2", "--state-dir", "", "--drain-timeout", "60"] + extra)
        o.stateDirectory = ""
        return o
    }

    /// Every sample the fleet generated for the window, by UUID.
    func expected(_ fleet: FleetProfile, seed: UInt64) throws -> [UUID: Sample] {
        var all: [UUID: Sample] = [:]
        for device in fleet.devices {
            let generator = try DeviceGenerator(profile: device, person: fleet.person(for: device)!, seed: seed)
            for s in generator.samples(from: now - 2 * 86_400_000_000, to: now) where s.end <= now {
                all[s.uuid] = s
                // A workout's route and heart-rate series and an HRV reading's beats are built once their sample is acknowledged.
                for series in DerivedSeries.of(s, seed: seed) { all[series.id] = series.sample }
            }
        }
        return all
    }

    func testApprovedRunStoresEverySampleOnceWithCountsPerSourceAndDevice() async throws {
        let store = InMemoryStore()
        let stats = RunStats()
        let fleet = BuiltinFleet.fleet
        try await FleetRun(fleet: fleet, options: options(["--approve"]), connector: store, stats: stats).run(now: now)
        let wanted = try expected(fleet, seed: 42)
        let stored = store.objects
        XCTAssertEqual(stored.count, wanted.count)
        XCTAssertTrue(stored.allSatisfy { wanted[$0.sample.uuid] == $0.sample })
        let s = stats.snapshot
        XCTAssertEqual(s.acknowledged, wanted.count)
        XCTAssertEqual(s.rejectedTotal, 0)
        var bySource: [String: Int] = [:], byDevice: [String: Int] = [:]
        for (sample, bundle) in stored {
            for x in [sample] + (sample.correlationObjects ?? []) {
                bySource[bundle, default: 0] += 1
                byDevice[x.device?.name ?? "", default: 0] += 1
            }
        }
        XCTAssertEqual(s.bySource, bySource)
        XCTAssertEqual(s.byDevice, byDevice)
        XCTAssertEqual(Set(s.bySource.keys), Set(stored.map(\.bundleID)))
        XCTAssertGreaterThanOrEqual(s.bySource.count, 5)
    }

    func testARunWhoseSavesAreAllRefusedStopsWithTheReasonAndAHint() async throws {
        let store = InMemoryStore()
        let stats = RunStats()
        do {
            try await FleetRun(fleet: BuiltinFleet.fleet, options: options([]), connector: store, stats: stats).run(now: now)
            XCTFail("a run that stored nothing must not end as if it succeeded")
        } catch let refused as RunRefused {
            XCTAssertEqual(refused.code, "AUTHORIZATION_DENIED")
            XCTAssertTrue(refused.description.contains("--approve"), refused.description)
        }
        XCTAssertEqual(store.objects.count, 0)
        XCTAssertGreaterThanOrEqual(stats.snapshot.authorizationErrors.count, 1)
    }

    func testALoadRunWithoutPermissionStopsAfterTheFirstRefusals() async throws {
        let store = InMemoryStore()
        let stats = RunStats()
        // 20 devices × 50 samples/s × 30 s would send 30,000 samples; refused from the start, it stops.
        let o = try RunOptions.parse(["--mode", "load", "--devices", "20", "--rate", "50", "--duration", "30", "--state-dir", ""])
        await XCTAssertThrowsErrorAsync(try await LoadRun(options: o, connector: store, stats: stats).run(now: now)) { error in
            XCTAssertTrue(error is RunRefused, "\(error)")
        }
        XCTAssertLessThan(stats.snapshot.sent, 5_000, "stopped long before the end of the run")
    }

    func testFaultsLoseNothingAndDuplicateNothing() async throws {
        let store = InMemoryStore()
        let stats = RunStats()
        let fleet = BuiltinFleet.fleet
        let o = try options(["--approve", "--fault-rate", "0.3", "--batch", "50"])
        try await FleetRun(fleet: fleet, options: o, connector: store, stats: stats).run(now: now)
        let wanted = try expected(fleet, seed: 42)
        let stored = store.objects
        XCTAssertEqual(stored.count, wanted.count, "nothing lost, nothing stored twice")
        XCTAssertTrue(stored.allSatisfy { wanted[$0.sample.uuid] == $0.sample })
        let s = stats.snapshot
        XCTAssertEqual(s.acknowledged, wanted.count)
        let invalid = s.faults.filter { $0.key.hasPrefix("invalid.") }.values.reduce(0, +)
        XCTAssertGreaterThan(invalid, 0)
        XCTAssertEqual(s.rejected, ["INVALID_ARGUMENT": invalid])
        XCTAssertGreaterThan(s.faults["disconnects"] ?? 0, 0)
        XCTAssertGreaterThan(s.reconnects, 0)
        XCTAssertGreaterThan(s.faults["duplicateSends"] ?? 0, 0)
        XCTAssertGreaterThan(s.faults["outOfOrderBatches"] ?? 0, 0)
    }

    func testEnrollmentReusesAndRenewsTokens() async throws {
        let store = InMemoryStore()
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("healthsim-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let source = BuiltinFleet.fleet.devices[0].source
        let first = try await Enrollment(connector: store, stateDirectory: directory).token(for: source)
        let again = try await Enrollment(connector: store, stateDirectory: directory).token(for: source)
        XCTAssertEqual(first, again, "tokens are kept between runs")
        let fresh = try await Enrollment(connector: store, stateDirectory: nil).token(for: source)
        XCTAssertNotEqual(fresh, first, "an app registered elsewhere gets its token rotated")
        let renewed = try await Enrollment(connector: store, stateDirectory: directory).renew(source, refused: first)
        XCTAssertNotEqual(renewed, first)

        // A fresh server (new data directory) refuses every stored token: connecting enrols again.
        let freshServer = InMemoryStore()
        let (_, used) = try await Enrollment(connector: freshServer, stateDirectory: directory)
            .connect(source, device: Device(name: "Watch"))
        XCTAssertNotEqual(used, renewed)
        XCTAssertEqual(freshServer.state.withLock { $0.connects }, 1)
    }

    func testOptionsPickTheModeFromTheFlags() throws {
        XCTAssertEqual(try RunOptions.parse([]).mode, .accelerated)
        XCTAssertEqual(try RunOptions.parse(["--days", "30"]).mode, .backfill)
        XCTAssertEqual(try RunOptions.parse(["--days", "2", "--speed", "60"]).mode, .accelerated)
        XCTAssertEqual(try RunOptions.parse(["--devices", "100", "--rate", "5"]).mode, .load)
        XCTAssertEqual(try RunOptions.parse(["--realtime"]).mode, .realtime)
        XCTAssertEqual(try RunOptions.parse(["--faults"]).faultRate, 0.05)
        XCTAssertEqual(try RunOptions.parse(["--end", "2025-03-12T00:00:00Z"]).end, now)
        XCTAssertThrowsError(try RunOptions.parse(["--end", "someday"]))
        XCTAssertEqual(try RunOptions.parse(["--mode", "load", "--duration", "10s"]).duration, 10)
        XCTAssertEqual(try RunOptions.parse(["--duration=2m"]).duration, 120)
        XCTAssertEqual(try RunOptions.parse([], environment: ["HEALTHSTORE_SERVER": "unix:/run/h.sock"]).servers, ["unix:/run/h.sock"])
        XCTAssertThrowsError(try RunOptions.parse(["--devcies", "3"])) { error in
            XCTAssertEqual((error as? UsageError)?.message, "unknown option --devcies; did you mean --devices?")
        }
        XCTAssertEqual(try RunOptions.parse(["--profile", "a.json", "--profile", "b.json"]).profilePaths, ["a.json", "b.json"])
        XCTAssertThrowsError(try RunOptions.parse(["--mode", "warp"]))
        XCTAssertThrowsError(try RunOptions.parse(["--speed"]))
        XCTAssertThrowsError(try RunOptions.parse(["--bogus"]))
    }

    func testReportPercentiles() {
        let latency = RunReport.latency((1...100).map(Double.init))
        XCTAssertEqual(latency.p50, 50)
        XCTAssertEqual(latency.p90, 90)
        XCTAssertEqual(latency.p99, 99)
        XCTAssertEqual(latency.max, 100)
        XCTAssertEqual(RunReport.latency([]).count, 0)
    }
}

/// XCTAssertThrowsError for an async expression.
func XCTAssertThrowsErrorAsync(_ expression: @autoclosure () async throws -> Void, file: StaticString = #filePath, line: UInt = #line,
                               _ check: (any Error) -> Void) async {
    do {
        try await expression()
        XCTFail("expected an error", file: file, line: line)
    } catch {
        check(error)
    }
}

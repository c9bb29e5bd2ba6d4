import Foundation
import HealthClient
import HealthModel
import HealthWire
import XCTest

/// healthsim streaming to two healthd nodes, one of them killed with SIGKILL mid-run: every device
/// keeps streaming (those on the killed node move to the other) and nothing is refused. Each node
/// has its own SQLite store, copied from one where the simulator's app was already registered and
/// approved, so both accept the devices' tokens.
final class SimulatorFailoverTests: XCTestCase {
    func testDevicesStreamingToTwoNodesSurviveOneNodesKill() async throws {
        try XCTSkipIf(ServerProcess.sharesTestStore, "node B is a copy of node A's data directory, so on a shared "
                      + "HEALTHSTORE_TEST_STORE both see one store; FailoverSharedStoreTests covers that case")
        let state = FileManager.default.temporaryDirectory.appendingPathComponent("healthsim-failover-\(UUID().uuidString.prefix(8))")
        let seed = try ServerProcess()
        let enrolled = try ServerProcess.run("healthsim", Self.simulate(servers: ["127.0.0.1:\(seed.port)"], seed: seed,
                                                                          state: state, duration: "1s"))
        XCTAssertEqual(enrolled.status, 0, enrolled.errors)
        let token = seed.ownerToken
        _ = seed.terminate()  // only the files matter, copied once the process is gone
        let copy = FileManager.default.temporaryDirectory.appendingPathComponent("healthd-node-b-\(UUID().uuidString.prefix(8))")
        try FileManager.default.copyItem(at: seed.dataDirectory, to: copy)
        let a = try ServerProcess(dataDirectory: seed.dataDirectory), b = try ServerProcess(dataDirectory: copy)

        let started = Time.now()
        let report = state.appendingPathComponent("report.json")
        let simulator = Process()
        simulator.executableURL = try ServerProcess.binary("healthsim")
        simulator.arguments = Self.simulate(servers: ["127.0.0.1:\(a.port)", "127.0.0.1:\(b.port)"], seed: a, state: state,
                                            duration: "8s") + ["--report", report.path]
        simulator.standardOutput = FileHandle.nullDevice
        let log = state.appendingPathComponent("healthsim.log")
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        simulator.standardError = try FileHandle(forWritingTo: log)
        try simulator.run()

        // Once node A has stored something of this run from its devices, it dies.
        let deadline = ContinuousClock.now + .seconds(30)
        while try await Self.stored(on: a, token: token, since: started).isEmpty && ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(100))
        }
        let killedAt = Time.now()
        a.stopNow()
        simulator.waitUntilExit()
        XCTAssertEqual(simulator.terminationStatus, 0, (try? String(contentsOf: log, encoding: .utf8)) ?? "")

        let summary = try JSONDecoder().decode(RunSummary.self, from: Data(contentsOf: report))
        XCTAssertEqual(summary.samplesRejected, 0, "\(summary)")
        XCTAssertGreaterThan(summary.reconnects, 0, "the devices on node A reconnected")
        let afterKill = try await Self.stored(on: b, token: token, since: killedAt)
        XCTAssertEqual(Set(afterKill.compactMap { $0.device?.name }).count, 4,
                       "every device streamed to node B after node A died: \(Set(afterKill.compactMap { $0.device?.name }))")
    }

    private struct RunSummary: Decodable {
        let samplesRejected: Int
        let reconnects: Int
    }

    private static func simulate(servers: [String], seed: ServerProcess, state: URL, duration: String) -> [String] {
        servers.flatMap { ["--server", $0] } + ["--owner-token-file", seed.dataDirectory.appendingPathComponent("owner.token").path,
                                                  "--state-dir", state.path, "--approve", "--devices", "4", "--rate", "20",
                                                  "--duration", duration]
    }

    /// The heart-rate samples on `node` that ended at or after `since`.
    private static func stored(on node: ServerProcess, token: String, since: Microseconds) async throws -> [Sample] {
        let connection = try await HealthConnection.connect(to: .tcp(host: "127.0.0.1", port: node.port), hello: Hello(token: token))
        defer { connection.close() }
        return try await connection.samples(SampleQuery(types: [Fixtures.heartRate])).filter { $0.end >= since }
    }
}

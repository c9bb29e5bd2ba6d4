import Foundation
import HealthClient
import HealthModel
import HealthWire
import Synchronization
import XCTest

/// Two healthd nodes on one PostgreSQL database, devices streaming through both, one node killed
/// with SIGKILL: every acknowledged sample is stored exactly once. Runs when HEALTHSTORE_TEST_POSTGRES
/// names a server (scripts/test starts one) and this healthd has `--store postgresql://`.
final class FailoverSharedStoreTests: XCTestCase {
    func testEveryAcknowledgedSampleIsStoredOnceWhenANodeIsKilled() async throws {
        let database = try SharedDatabase()
        defer { database.drop() }
        let a = try ServerProcess(extraArguments: ["--store", database.url])
        let token = a.ownerToken
        guard !token.isEmpty else {
            throw XCTSkip("healthd on PostgreSQL wrote no owner.token on first start; this test needs the owner's token")
        }
        let b = try ServerProcess(extraArguments: ["--store", database.url])
        let nodes: [Endpoint] = [.tcp(host: "127.0.0.1", port: a.port), .tcp(host: "127.0.0.1", port: b.port)]

        let acknowledged = Acknowledged()
        let devices = (0..<4).map { device in
            Task {
                // Each device starts at another node, so both carry traffic when A dies.
                let client = try await ReconnectingClient.connect(to: ServerList(nodes, start: device), hello: Hello(token: token))
                for batch in 0..<20 {
                    let samples = (0..<50).map {
                        Fixtures.heartRateSample(Double(50 + device), minutesAgo: 1 + $0 + 50 * batch + 1000 * device)
                    }
                    let outcomes = try await client.save(samples)
                    XCTAssertTrue(outcomes.allSatisfy { $0 == .stored || $0 == .alreadyStored }, "\(outcomes)")
                    acknowledged.add(samples.map(\.uuid))
                }
                await client.close()
            }
        }
        let deadline = ContinuousClock.now + .seconds(60)
        while acknowledged.count < 1000 && ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(5)) }
        a.stopNow()
        for device in devices { try await device.value }

        let reader = try await HealthConnection.connect(to: nodes[1], hello: Hello(token: token))
        defer { reader.close() }
        let stored = try await reader.samples(SampleQuery(types: [Fixtures.heartRate])).map(\.uuid)
        XCTAssertEqual(acknowledged.count, 4 * 20 * 50)
        XCTAssertEqual(stored.count, Set(stored).count, "a sample is stored twice")
        XCTAssertEqual(Set(stored), acknowledged.all, "stored and acknowledged samples differ")
    }
}

/// A database of its own on the PostgreSQL server of HEALTHSTORE_TEST_POSTGRES, dropped at the end.
struct SharedDatabase {
    let url: String
    private let server: String
    private let name = "failover_\(UUID().uuidString.prefix(8).lowercased())"

    init() throws {
        guard let server = ProcessInfo.processInfo.environment["HEALTHSTORE_TEST_POSTGRES"], !server.isEmpty else {
            throw XCTSkip("HEALTHSTORE_TEST_POSTGRES is not set: scripts/test starts a PostgreSQL cluster and sets it")
        }
        let help = try ServerProcess.run("healthd", ["--help"])
        guard help.output.contains("--store") && help.output.contains("postgresql") else {
            throw XCTSkip("this healthd has no --store postgresql:// yet")
        }
        guard var components = URLComponents(string: server) else {
            throw TestFailure("HEALTHSTORE_TEST_POSTGRES '\(server)' is not a URL")
        }
        self.server = server
        components.path = "/" + name
        url = components.string ?? server
        try Self.psql(server, "CREATE DATABASE \(name)")
    }

    func drop() {
        _ = try? Self.psql(server, "DROP DATABASE IF EXISTS \(name) WITH (FORCE)")
    }

    /// Runs `statement` in the nodes' database; returns its rows, unaligned.
    @discardableResult
    func run(_ statement: String) throws -> String {
        try Self.psql(url, statement)
    }

    @discardableResult
    private static func psql(_ url: String, _ statement: String) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["psql", url, "--quiet", "--no-psqlrc", "--tuples-only", "--no-align", "--set", "ON_ERROR_STOP=1",
                             "--command", statement]
        let (output, errors) = (Pipe(), Pipe())
        process.standardError = errors
        process.standardOutput = output
        try process.run()
        let rows = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        let text = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw TestFailure("psql '\(statement)' failed: \(text)") }
        return rows.trimmingCharacters(in: .whitespacesAndNewlines)
    }
}

import Foundation
import HealthClient
import HealthModel
import HealthWire
import Synchronization
import XCTest

/// A client given two healthd nodes, one of them killed with SIGKILL. With SQLite each node keeps
/// its own store, so these tests assert where calls go and what the client answers, not shared data
/// (FailoverSharedStoreTests does that on one PostgreSQL database).
final class FailoverTests: XCTestCase {
    private let hr = Fixtures.heartRate
    private let fast = ReconnectingClient.Policy(initialDelay: .milliseconds(20), maxDelay: .milliseconds(200),
                                                 callDeadline: .seconds(30))

    /// Two nodes that accept the same owner token: B starts from a copy of A's data directory.
    private func twoNodes() throws -> (a: ServerProcess, b: ServerProcess, token: String) {
        let seed = try ServerProcess()
        let token = seed.ownerToken
        _ = seed.terminate()  // only the files matter, copied once the process is gone
        let copy = FileManager.default.temporaryDirectory.appendingPathComponent("healthd-node-b-\(UUID().uuidString.prefix(8))")
        try FileManager.default.copyItem(at: seed.dataDirectory, to: copy)
        return (try ServerProcess(dataDirectory: seed.dataDirectory), try ServerProcess(dataDirectory: copy), token)
    }

    private func endpoint(_ node: ServerProcess) -> Endpoint { .tcp(host: "127.0.0.1", port: node.port) }

    private func uuids(on node: ServerProcess, token: String) async throws -> Set<UUID> {
        let connection = try await HealthConnection.connect(to: endpoint(node), hello: Hello(token: token))
        defer { connection.close() }
        return Set(try await connection.samples(SampleQuery(types: [hr])).map(\.uuid))
    }

    func testCallsAfterTheNodeWasKilledGoToTheNextNode() async throws {
        try XCTSkipIf(ServerProcess.sharesTestStore, "node B is a copy of node A's data directory, so on a shared "
                      + "HEALTHSTORE_TEST_STORE both see one store; FailoverSharedStoreTests covers that case")
        let (a, b, token) = try twoNodes()
        let client = try await ReconnectingClient.connect(to: ServerList([endpoint(a), endpoint(b)]), hello: Hello(token: token),
                                                          policy: fast)
        let before = Fixtures.heartRateSample(61, minutesAgo: 2)
        let savedOnA = try await client.save([before])
        XCTAssertEqual(savedOnA, [.stored])
        let first = await client.server
        XCTAssertEqual(first, endpoint(a))

        a.stopNow()
        let after = Fixtures.heartRateSample(62, minutesAgo: 1)
        let savedOnB = try await client.save([after])
        XCTAssertEqual(savedOnB, [.stored])
        let second = await client.server
        XCTAssertEqual(second, endpoint(b))
        let onB = Set(try await client.samples(SampleQuery(types: [hr])).map(\.uuid))
        XCTAssertEqual(onB, [after.uuid], "node B keeps its own store: only the save made after the failover is there")
        await client.close()
    }

    func testSavesInFlightWhenTheNodeDiesAreAnsweredByTheNextOne() async throws {
        let (a, b, token) = try twoNodes()
        let client = try await ReconnectingClient.connect(to: ServerList([endpoint(a), endpoint(b)]), hello: Hello(token: token),
                                                          policy: fast)
        let acknowledged = Acknowledged()
        let writers = (0..<6).map { writer in
            Task {
                for batch in 0..<15 {
                    let samples = (0..<50).map { Fixtures.heartRateSample(Double(50 + writer + batch), minutesAgo: 1 + $0 + 50 * batch) }
                    let outcomes = try await client.save(samples)
                    XCTAssertTrue(outcomes.allSatisfy { $0 == .stored || $0 == .alreadyStored }, "\(outcomes)")
                    acknowledged.add(samples.map(\.uuid))
                }
            }
        }
        let deadline = ContinuousClock.now + .seconds(60)
        while acknowledged.count < 600 && ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(5)) }
        a.stopNow()
        for writer in writers { try await writer.value }
        let onB = await client.server
        XCTAssertEqual(onB, endpoint(b))
        await client.close()

        // Node A's store survives its SIGKILL: what it acknowledged is there, the rest is on B.
        let restartedA = try ServerProcess(dataDirectory: a.dataDirectory)
        let stored = try await uuids(on: restartedA, token: token).union(try await uuids(on: b, token: token))
        XCTAssertEqual(acknowledged.count, 6 * 15 * 50)
        XCTAssertTrue(acknowledged.all.isSubset(of: stored), "\(acknowledged.all.subtracting(stored).count) acknowledged samples are stored nowhere")
    }

    func testHealthctlMovesPastANodeThatRefusesConnections() throws {
        let node = try ServerProcess()
        let tokenFile = node.dataDirectory.appendingPathComponent("owner.token").path
        let gone = node.dataDirectory.appendingPathComponent("gone.sock").path
        let listed = try ServerProcess.run("healthctl", ["apps", "list", "--server", "unix:\(gone)", "--server",
                                                         "127.0.0.1:\(node.port)", "--token-file", tokenFile])
        XCTAssertEqual(listed.status, 0, listed.errors)
        let none = try ServerProcess.run("healthctl", ["apps", "list", "--server", "unix:\(gone),127.0.0.1:1",
                                                       "--token-file", tokenFile])
        XCTAssertEqual(none.status, 1)
        XCTAssertTrue(none.errors.contains("no server answered: cannot connect to unix:\(gone)"), none.errors)
        XCTAssertTrue(none.errors.contains("cannot connect to 127.0.0.1:1"), none.errors)
    }

    func testACredentialCallCutOffByTheNodesDeathIsReportedNotRepeated() async throws {
        let (a, b, token) = try twoNodes()
        let client = try await ReconnectingClient.connect(to: ServerList([endpoint(a), endpoint(b)]), hello: Hello(token: token),
                                                          policy: fast)
        // Stopped, node A holds the call unanswered in its socket buffer until it is killed.
        kill(a.process.processIdentifier, SIGSTOP)
        let register = Task { try await client.registerApp(bundleID: "com.example.band", name: "Band") }
        try await Task.sleep(for: .milliseconds(200))
        a.stopNow()
        do {
            _ = try await register.value
            XCTFail("RegisterApp cut off by the node's death must fail, not be sent again")
        } catch let error as HealthError {
            XCTAssertEqual(error.code, .unavailable)
        }
        let apps = try await client.listApps()
        XCTAssertEqual(apps.map(\.source.bundleID), [], "node B never got the RegisterApp")
        let onB = await client.server
        XCTAssertEqual(onB, endpoint(b))
        await client.close()
    }
}

/// UUIDs of acknowledged samples, added from several tasks.
final class Acknowledged: Sendable {
    private let uuids = Mutex<Set<UUID>>([])
    func add(_ more: [UUID]) { uuids.withLock { $0.formUnion(more) } }
    var count: Int { uuids.withLock { $0.count } }
    var all: Set<UUID> { uuids.withLock { $0 } }
}

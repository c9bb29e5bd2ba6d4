import Foundation
import HealthClient
import HealthModel
import HealthWire
import XCTest

/// HealthClient reads every connection on one shared queue and closes each socket once that queue
/// stopped watching it: rounds of connections opened, used and closed — by the client, or by the
/// server — leave every call answered and no descriptor behind.
final class ClientConnectionChurnTests: XCTestCase {
    func testConnectionsClosedByEitherSideLeaveNoDescriptorBehind() async throws {
        // Up to 100 connections from one address may be waiting for their Hello at once.
        let server = try ServerProcess(extraArguments: ["--max-connections", "400", "--idle-timeout", "2",
                                                        "--max-unauthenticated-per-address", "100"])
        let endpoint = Endpoint.tcp(host: "127.0.0.1", port: server.port)
        let hello = Hello(token: server.ownerToken)
        // Dispatch may open two descriptors of its own (epoll, eventfd) with the first read source.
        let baseline = Self.openDescriptors() + 2
        for round in 0..<4 {
            // Each connection is used at once, well within the idle timeout, however slow the machine.
            let connections = try await withThrowingTaskGroup(of: HealthConnection.self) { group in
                for _ in 0..<100 {
                    group.addTask {
                        let connection = try await HealthConnection.connect(to: endpoint, hello: hello)
                        _ = try await connection.ping(Data([UInt8(round)]))
                        return connection
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            if round % 2 == 0 {
                for connection in connections { connection.close() }
            } else {
                // Left idle, the server closes them; each client sees why.
                try await Self.waitUntil { connections.allSatisfy { $0.isClosed } }
                XCTAssertTrue(connections.allSatisfy { $0.closeReason?.code == .unavailable })
            }
        }
        // Sockets are closed on the reader queue, a moment after the connections end.
        try await Self.waitUntil { Self.openDescriptors() <= baseline }
        XCTAssertLessThanOrEqual(Self.openDescriptors(), baseline)
    }

    private static func openDescriptors() -> Int {
        (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count) ?? 0
    }

    /// Polls `condition` for up to 20 seconds; a failing test waits it out, a passing one does not.
    private static func waitUntil(_ condition: () -> Bool) async throws {
        let deadline = ContinuousClock.now + .seconds(20)
        while !condition() && ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(50)) }
    }
}

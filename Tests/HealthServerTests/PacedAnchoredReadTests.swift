import Foundation
import HealthClient
import HealthModel
import HealthWire
import XCTest

/// A paced anchored read over a real socket: a consumer that takes its pages slowly (and holds the
/// connection's reading back) still gets every sample in anchor order, and while it holds back,
/// the process's other connections, read on the same reader queue, are answered.
final class PacedAnchoredReadTests: XCTestCase {
    func testASlowConsumerGetsEverySampleAndOtherConnectionsAreReadMeanwhile() async throws {
        let server = try ServerProcess()
        let owner = try RawClient.session(server, token: server.ownerToken)
        let samples = (0..<6_000).map { i in
            Sample(type: Authz.heartRate, start: Authz.midnight - Int64(i) * 1_000_000, end: Authz.midnight - Int64(i) * 1_000_000,
                   body: .quantity(Quantity(Double(i % 90 + 40), "count/min"), count: 1))
        }
        for first in stride(from: 0, to: samples.count, by: 3_000) { try owner.save(Array(samples[first..<first + 3_000])) }

        let endpoint = Endpoint.tcp(host: "127.0.0.1", port: server.port)
        let reading = try await HealthConnection.connect(to: endpoint, hello: Hello(token: server.ownerToken))
        let other = try await HealthConnection.connect(to: endpoint, hello: Hello(token: server.ownerToken))
        var pages = reading.anchoredPages(AnchoredQuery(types: [Authz.heartRate]), waiting: 2).makeAsyncIterator()
        let first = try await pages.next()
        var received = try XCTUnwrap(first).samples
        // The server has sent more than two pages by now; the held connection must not hold the others up.
        try await Task.sleep(for: .milliseconds(200))
        let counts = try await other.countSamples(types: [Authz.heartRate], predicate: nil)
        XCTAssertEqual(counts.reduce(0) { $0 + Int($1.count) }, samples.count)
        while let page = try await pages.next() {
            received += page.samples
            try await Task.sleep(for: .milliseconds(1))
        }
        XCTAssertEqual(received.map(\.uuid), samples.map(\.uuid), "every sample once, in the order saved")
    }
}

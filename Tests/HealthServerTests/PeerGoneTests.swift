import Foundation
import HealthModel
import HealthWire
import XCTest

/// A client that goes away while healthd is writing its answers ends only its own connection: a
/// write to a socket whose peer is gone raises SIGPIPE, whose default action would end the server
/// (seen as an import killed mid-run taking healthd down with it).
final class PeerGoneTests: XCTestCase {
    func testClientsClosingMidAnswerLeaveTheServerServing() throws {
        let server = try ServerProcess()
        XCTAssertTrue(try Self.ignoresSIGPIPE(server), "healthd must ignore SIGPIPE")
        let other = try RawClient(port: server.port)
        other.hello(server.ownerToken)
        let batch = (0..<10_000).map { Fixtures.heartRateSample(Double(60 + $0 % 40), minutesAgo: 5) }
        guard case .saveObjects? = other.call(.saveObjects(batch)) else { return XCTFail("save failed") }

        for round in 0..<5 {
            let gone = try RawClient(port: server.port)
            gone.hello(server.ownerToken)
            var frames: [UInt8] = []
            for id in 0..<UInt64(8) {
                frames += WireCodec.encodeClientFrame(ClientMessage(callID: 100 + id, call: .querySamples(SampleQuery(types: [Fixtures.heartRate]))))
            }
            gone.sendRaw(frames)
            // Read one answer, so the server is surely writing, then leave with the rest unread: the
            // close resets the connection and the server's next writes fail.
            _ = gone.receive()
            var linger = linger(l_onoff: 1, l_linger: 0)
            setsockopt(gone.fd, SOL_SOCKET, SO_LINGER, &linger, socklen_t(MemoryLayout<linger>.size))
            withExtendedLifetime(gone) {}
            Thread.sleep(forTimeInterval: 0.2)
            XCTAssertTrue(server.process.isRunning, "healthd ended after client \(round) closed mid-answer:\n\(server.log.suffix(2000))")
            guard server.process.isRunning else { return }
        }
        guard case .samples(let page)? = other.call(.querySamples(SampleQuery(types: [Fixtures.heartRate], limit: 10))) else {
            return XCTFail("the other client was not served")
        }
        XCTAssertEqual(page.count, 10)
    }

    private static func ignoresSIGPIPE(_ server: ServerProcess) throws -> Bool {
        let status = try String(contentsOfFile: "/proc/\(server.process.processIdentifier)/status", encoding: .utf8)
        guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix("SigIgn:") }),
              let mask = UInt64(line.split(separator: "\t").last ?? "", radix: 16) else {
            throw TestFailure("no SigIgn in /proc status")
        }
        return mask & (1 << (UInt64(SIGPIPE) - 1)) != 0
    }
}

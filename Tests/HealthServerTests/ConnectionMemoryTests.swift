import Foundation
import HealthModel
import HealthWire
import XCTest

/// The server's memory stays bounded whatever a client does with its connection: not reading its
/// answers, announcing big frames before Hello, holding connections without Hello, or sending a
/// frame a byte at a time. Bounds are on the server's resident memory, with a generous margin.
final class ConnectionMemoryTests: XCTestCase {
    func testClientThatNeverReadsStopsItsAnswersBeingProducedWhileOthersAreServed() throws {
        try assertNonReaderStaysBounded { .querySamples(SampleQuery(types: [Fixtures.heartRate])) }
    }

    /// A full anchored sync is sent while the store reads it: a client that does not read it holds
    /// no more than its pages in production and its queued output, and others are served meanwhile.
    func testClientThatNeverReadsAnAnchoredSyncStopsItsPagesBeingProducedWhileOthersAreServed() throws {
        try assertNonReaderStaysBounded { .queryAnchored(AnchoredQuery(types: [Fixtures.heartRate])) }
    }

    /// 128 calls of `call` (each answering 20,000 samples) from a client that never reads: the
    /// server's memory stays within `outputBound` while another client's queries are answered.
    private func assertNonReaderStaysBounded(_ call: () -> ClientCall, file: StaticString = #filePath, line: UInt = #line) throws {
        let server = try ServerProcess()
        let other = try RawClient(port: server.port)
        other.hello(server.ownerToken)
        for round in 0..<2 {
            let batch = (0..<10_000).map { Fixtures.heartRateSample(Double(60 + $0 % 40), minutesAgo: 5 + round) }
            guard case .saveObjects? = other.call(.saveObjects(batch)) else { return XCTFail("save failed", file: file, line: line) }
        }
        let baseline = try Self.residentBytes(server)

        let slow = try RawClient(port: server.port)
        slow.shrinkReceiveBuffer()
        guard case .hello(let hello)? = slow.hello(server.ownerToken) else { return XCTFail("no hello", file: file, line: line) }
        XCTAssertEqual(hello.maxOutputBytes, 1 << 20, file: file, line: line)
        var frames: [UInt8] = []
        for id in 0..<UInt64(128) {
            frames += WireCodec.encodeClientFrame(ClientMessage(callID: 100 + id, call: call()))
        }
        // 128 calls each answering 20,000 samples: gigabytes if every answer were produced.
        slow.sendRaw(frames)

        var peak = baseline
        let until = Date().addingTimeInterval(4)
        while Date() < until && peak - baseline < Self.outputBound {
            guard case .samples(let page)? = other.call(.querySamples(SampleQuery(types: [Fixtures.heartRate], limit: 10))) else {
                return XCTFail("the other client was not served", file: file, line: line)
            }
            XCTAssertEqual(page.count, 10, file: file, line: line)
            peak = max(peak, try Self.residentBytes(server))
        }
        XCTAssertLessThan(peak - baseline, Self.outputBound, "resident memory grew by \((peak - baseline) >> 20) MiB", file: file, line: line)
    }

    func testConnectionsAnnouncingBigFramesBeforeHelloHoldNoMemoryAndAClientStillGetsIn() throws {
        let server = try ServerProcess()
        let baseline = try Self.residentBytes(server)
        let announced: [UInt8] = [0, 0x40, 0, 0]  // 4 MiB, the largest frame after Hello
        let body = [UInt8](repeating: 0x0A, count: 1 << 20)
        var floods: [RawClient] = []
        for _ in 0..<300 {
            let flood = try RawClient(port: server.port)
            flood.sendRaw(announced + body)
            floods.append(flood)
        }
        var peak = baseline
        for _ in 0..<10 {
            peak = max(peak, try Self.residentBytes(server))
            Thread.sleep(forTimeInterval: 0.1)
        }
        XCTAssertLessThan(peak - baseline, Self.preHelloBound, "resident memory grew by \((peak - baseline) >> 20) MiB")
        let good = try RawClient(port: server.port)
        guard case .hello? = good.hello(server.ownerToken) else { return XCTFail("a client with a valid token was kept out") }
        withExtendedLifetime(floods) {}
    }

    func testFirstFrameLargerThanAHelloIsRefused() throws {
        let server = try ServerProcess()
        let client = try RawClient(port: server.port)
        client.sendRaw([0, 1, 0, 1])  // 65,537 bytes announced
        XCTAssertEqual(try XCTUnwrap(client.messagesUntilClosed()).first?.result.errorCode, .frameTooLarge)
    }

    func testIdleConnectionsWithoutHelloCannotKeepAClientOut() throws {
        let server = try ServerProcess(extraArguments: ["--max-connections", "40"])
        var idle: [RawClient] = []
        for _ in 0..<40 { idle.append(try RawClient(port: server.port)) }
        let good = try RawClient(port: server.port)
        guard case .hello? = good.hello(server.ownerToken) else { return XCTFail("a client with a valid token was kept out") }
        // The oldest connection still waiting for its Hello made room, and was told why.
        XCTAssertEqual(try XCTUnwrap(idle[0].messagesUntilClosed()).first?.result.errorCode, .resourceExhausted)
        guard case .pong? = good.call(.ping(Data())) else { return XCTFail("no pong") }
    }

    func testManyConnectionsFromOneAddressDisplaceOnlyTheirOwnOldest() throws {
        let server = try ServerProcess(extraArguments: ["--max-unauthenticated-per-address", "4"])
        let first = try RawClient(port: server.port)
        var later: [RawClient] = []
        for _ in 0..<4 { later.append(try RawClient(port: server.port)) }
        XCTAssertEqual(try XCTUnwrap(first.messagesUntilClosed()).first?.result.errorCode, .resourceExhausted)
        guard case .hello? = later[0].hello(server.ownerToken) else { return XCTFail("a newer connection was dropped") }
    }

    func testFrameSentAByteAtATimeIsClosed() throws {
        let server = try ServerProcess(extraArguments: ["--frame-timeout", "1"])
        let client = try RawClient(port: server.port)
        guard case .hello(let hello)? = client.hello(server.ownerToken) else { return XCTFail("no hello") }
        XCTAssertEqual(hello.frameTimeoutMilliseconds, 1000)
        client.sendRaw([0, 0, 0, 100])
        // A byte every 200 ms keeps the connection active, but the frame never completes in time.
        // The trickle stops once the server has closed; the socket stays open until then.
        let fd = client.fd
        let trickleEnded = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            while [UInt8(0x5A)].withUnsafeBytes({ send(fd, $0.baseAddress, 1, Int32(MSG_NOSIGNAL)) }) == 1 {
                Thread.sleep(forTimeInterval: 0.2)
            }
            trickleEnded.signal()
        }
        let messages = client.messagesUntilClosed()
        if messages == nil { shutdown(fd, Int32(SHUT_WR)) }
        trickleEnded.wait()
        XCTAssertEqual(try XCTUnwrap(messages, "the connection was not closed").first?.result.errorCode, .unavailable)
    }

    /// Growth allowed while one client does not read: its answers in production and its queued output.
    private static let outputBound = 200 << 20
    /// Growth allowed for 300 connections before Hello: far below the 300 MiB their bodies would take.
    private static let preHelloBound = 100 << 20

    private static func residentBytes(_ server: ServerProcess) throws -> Int {
        let status = try String(contentsOfFile: "/proc/\(server.process.processIdentifier)/status", encoding: .utf8)
        guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }),
              let kilobytes = Int(line.split(separator: " ").dropFirst().first ?? "") else {
            throw TestFailure("no VmRSS in /proc status")
        }
        return kilobytes << 10
    }
}

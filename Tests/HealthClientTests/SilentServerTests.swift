import Foundation
@testable import HealthClient
import HealthModel
import HealthWire
import Synchronization
import TestSupport
import XCTest
@testable import healthctl

/// Servers that go silent, played by the test over real sockets, with short client timeouts: the
/// dial's deadline (name lookup, connection, Hello), the Ping that finds a server gone quiet under
/// waiting calls, and the slow or long-running call of a server that answers Pings, which is never
/// failed for being quiet.
final class SilentServerTests: XCTestCase {
    private static let timeout = Duration.milliseconds(300)
    private static let hello = Hello(token: "token")

    /// A listener whose backlog took the connection and that never answers (nothing accepts it)
    /// fails the Hello at the deadline, naming the address and the timeout.
    func testAListenerThatNeverAnswersFailsHelloAtTheDeadline() async throws {
        let (listener, port) = try TestSocket.listenLoopback()
        defer { close(listener) }
        do {
            _ = try await HealthConnection.connect(to: .tcp(host: "127.0.0.1", port: port), hello: Self.hello, timeout: Self.timeout)
            XCTFail("connected to a server that never answered")
        } catch let error as HealthError {
            XCTAssertEqual(error.code, .unavailable)
            XCTAssertEqual(error.message, "127.0.0.1:\(port) did not answer Hello within 0.3 s")
        }
    }

    /// A listener whose queue is full drops the SYN, as a host gone from the network does: the
    /// TCP connection itself fails at the deadline (a blocking connect waits minutes for it).
    func testAConnectionThatIsNeverEstablishedFailsAtTheDeadline() async throws {
        let (listener, port) = try TestSocket.listenLoopback(backlog: 0)
        defer { close(listener) }
        // Fills the queue nobody accepts from; their own SYNs, past the first, are dropped too.
        let fillers = try (0..<2).map { _ in try TestSocket.connect(loopbackPort: port, waiting: false) }
        defer { fillers.forEach { close($0) } }
        do {
            _ = try await HealthConnection.connect(to: .tcp(host: "127.0.0.1", port: port), hello: Self.hello, timeout: Self.timeout)
            XCTFail("connected through a full queue")
        } catch let error as HealthError {
            XCTAssertEqual(error.message, "cannot connect to 127.0.0.1:\(port) within 0.3 s")
        }
    }

    /// A name lookup that never answers (a hung resolver) fails the dial at the deadline, naming
    /// the host and the timeout; a numeric address asks no resolver at all.
    func testANameLookupThatNeverAnswersFailsTheDialAtTheDeadline() throws {
        let release = DispatchSemaphore(value: 0)
        // Blocks its thread until the test is over, as a hung getaddrinfo(3) does.
        let hung = Resolver { _, _ in
            release.wait()
            return .failure(HealthError(.unavailable, "released"))
        }
        defer { release.signal() }
        XCTAssertThrowsError(try Socket.connect(to: .tcp(host: "hung.resolver.test", port: 7420), before: Deadline(Self.timeout),
                                                resolver: hung)) { error in
            XCTAssertEqual((error as? HealthError)?.code, .unavailable)
            XCTAssertEqual((error as? HealthError)?.message, "cannot resolve hung.resolver.test:7420 within 0.3 s")
        }
        // Through the same hung resolver: asked, it would fail the dial.
        let (listener, port) = try TestSocket.listenLoopback()
        defer { close(listener) }
        try Socket.connect(to: .tcp(host: "127.0.0.1", port: port), before: Deadline(Self.timeout), resolver: hung).close()
    }

    /// A Unix listener whose backlog is full and that never accepts fails the dial at the deadline,
    /// naming the address and the timeout (a blocking connect waited for room with no bound).
    func testAUnixListenerWithAFullBacklogFailsTheDialAtTheDeadline() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("full-\(UUID().uuidString.prefix(8)).sock").path
        let listener = try TestSocket.listen(unix: path, backlog: 0)
        defer {
            close(listener)
            unlink(path)
        }
        let fillers = try TestSocket.fillBacklog(unix: path)
        defer { fillers.forEach { close($0) } }
        do {
            _ = try await HealthConnection.connect(to: .unix(path: path), hello: Self.hello, timeout: Self.timeout)
            XCTFail("connected through a full backlog")
        } catch let error as HealthError {
            XCTAssertEqual(error.code, .unavailable)
            XCTAssertEqual(error.message, "cannot connect to unix:\(path) within 0.3 s")
        }
    }

    /// healthctl's `--timeout` sets the deadline, and the error names the address and the timeout.
    func testHealthctlTimeoutOptionSetsTheHelloDeadline() async throws {
        let (listener, port) = try TestSocket.listenLoopback()
        defer { close(listener) }
        let tokenFile = FileManager.default.temporaryDirectory.appendingPathComponent("token-\(UUID().uuidString.prefix(8))").path
        try "token".write(toFile: tokenFile, atomically: true, encoding: .utf8)
        defer { unlink(tokenFile) }
        let errors = Mutex<[String]>([])
        let status = await HealthCtl.run(["overview", "--server", "127.0.0.1:\(port)", "--token-file", tokenFile, "--timeout", "300ms"],
                                         output: { _ in }, errors: { line in errors.withLock { $0.append(line) } })
        XCTAssertNotEqual(status, 0)
        let said = errors.withLock { $0 }.joined(separator: "\n")
        XCTAssertTrue(said.contains("127.0.0.1:\(port) did not answer Hello within 0.3 s"), said)
    }

    /// The same over a Unix socket, through a client that tries each node once: the silent node's
    /// failure is reported as its own.
    func testASilentUnixServerFailsTheDialOfAReconnectingClient() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("silent-\(UUID().uuidString.prefix(8)).sock").path
        let listener = try TestSocket.listen(unix: path)
        defer {
            close(listener)
            unlink(path)
        }
        do {
            _ = try await ReconnectingClient.connect(to: ServerList([.unix(path: path)]), hello: Self.hello,
                                                     policy: ReconnectingClient.Policy(timeout: Self.timeout))
            XCTFail("connected to a server that never answered")
        } catch let error as HealthError {
            XCTAssertEqual(error.message, "unix:\(path) did not answer Hello within 0.3 s")
        }
    }

    /// A server that stops answering mid-call (Pings included) fails the waiting call, and the
    /// connection reports itself closed, so a reconnecting client dials again.
    func testAServerThatStopsAnsweringMidCallFailsTheWaitingCall() async throws {
        let server = try PlayedServer(answersPings: false)
        let connection = try await HealthConnection.connect(to: server.endpoint, hello: Self.hello, timeout: Self.timeout)
        do {
            _ = try await connection.samples(SampleQuery(types: ["HKQuantityTypeIdentifierStepCount"]))
            XCTFail("a call to a silent server was answered")
        } catch let error as HealthError {
            XCTAssertEqual(error.code, .unavailable)
            XCTAssertTrue(error.message.hasPrefix("\(server.endpoint) stopped answering: nothing arrived for "), error.message)
            XCTAssertTrue(error.message.hasSuffix("while calls waited, and a Ping went unanswered within 0.3 s"), error.message)
        }
        XCTAssertTrue(connection.isClosed)
        XCTAssertGreaterThan(server.pings, 0, "the client asked with a Ping before giving up")
    }

    /// A server that stops reading leaves a send blocked on the full socket: the silence still
    /// fails the call, and closing the connection ends the blocked send (it does not wait for it).
    func testAServerThatStopsReadingFailsACallBlockedInItsSend() async throws {
        let server = try PlayedServer(answersPings: false, reads: false)
        let connection = try await HealthConnection.connect(to: server.endpoint, hello: Self.hello, timeout: Self.timeout)
        let failed = expectation(description: "the call failed")
        // Far more than the Unix socket's buffers hold: the send blocks until the connection closes.
        let call = Task {
            do {
                _ = try await connection.results(.ping(Data(count: 8 << 20)))
                XCTFail("a call to a server that stopped reading was answered")
            } catch let error as HealthError {
                XCTAssertTrue(error.message.contains("stopped answering"), error.message)
            }
            failed.fulfill()
        }
        await fulfillment(of: [failed], timeout: 30)
        call.cancel()
        XCTAssertTrue(connection.isClosed)
    }

    /// A long-running call on a server that answers Pings stays open however long it is quiet:
    /// the client pings again and again (each Ping answered), and the call is not failed.
    func testAQuietLongRunningCallOnALiveServerIsNotFailed() async throws {
        let server = try PlayedServer(answersPings: true)
        // Longer than the others: here each Ping's answer must beat it, on however loaded a machine.
        let connection = try await HealthConnection.connect(to: server.endpoint, hello: Self.hello, timeout: .seconds(1))
        let changes = connection.observe(types: ["HKQuantityTypeIdentifierStepCount"])
        let observing = Task {
            for try await _ in changes {}
        }
        // Every Ping after the first comes only after the one before was answered and the call
        // was quiet for the timeout again; a connection failed by its check sends no more.
        try await server.waitForPings(3)
        XCTAssertFalse(connection.isClosed, "\(connection.closeReason?.message ?? "")")
        connection.close()
        _ = await observing.result
    }

    /// A query that a live server answers only after a long while (several timeouts, each Ping
    /// answered at once) gets its answer: the check never fails a call of a server that answers.
    func testASlowQueryOnALiveServerIsAnswered() async throws {
        let server = try PlayedServer(answersPings: true, answersCallsAfterPings: 3)
        // Longer than the others: here each Ping's answer must beat it, on however loaded a machine.
        let connection = try await HealthConnection.connect(to: server.endpoint, hello: Self.hello, timeout: .seconds(1))
        let samples = try await connection.samples(SampleQuery(types: ["HKQuantityTypeIdentifierStepCount"]))
        XCTAssertTrue(samples.isEmpty)
        XCTAssertGreaterThanOrEqual(server.pings, 3, "the query was answered only after the third Ping")
        XCTAssertFalse(connection.isClosed, "\(connection.closeReason?.message ?? "")")
        connection.close()
    }

    /// Calls that are over leave a quiet connection alone: no Ping, nothing failed.
    func testAQuietConnectionWithoutCallsSendsNoPing() async throws {
        let server = try PlayedServer(answersPings: false)
        let connection = try await HealthConnection.connect(to: server.endpoint, hello: Self.hello, timeout: Self.timeout)
        try await Task.sleep(for: Self.timeout * 8)
        XCTAssertEqual(server.pings, 0)
        XCTAssertFalse(connection.isClosed)
        connection.close()
    }

    /// Silence while a paced stream's consumer is behind (reading held) is the client's own doing:
    /// the server, which never answers a Ping here, is not asked, and the call is not failed.
    func testSilenceWhileReadingIsHeldFailsNothing() async throws {
        let transport = FakeTransport()
        let connection = try await HealthConnection.connect(over: transport, hello: Self.hello, timeout: Self.timeout)
        let answers = connection.pacedStream(.ping(Data()), waiting: 2)
        let sent = await transport.sent.next()
        let call = try XCTUnwrap(sent)
        for _ in 0..<2 { transport.reply(call.callID, more: true, .pong(payload: Data(), serverTime: 0)) }
        XCTAssertEqual(transport.readingHolds, 1, "the consumer took nothing: reading is held")
        try await Task.sleep(for: Self.timeout * 8)
        XCTAssertFalse(connection.isClosed, "\(connection.closeReason?.message ?? "")")
        withExtendedLifetime(answers) {}
        connection.close()
    }

    /// A TCP connection asks the kernel to probe a silent peer after the timeout, three probes a
    /// third of it apart: a peer gone without a FIN is found with no call waiting too.
    func testATCPConnectionProbesASilentPeer() throws {
        let (listener, port) = try TestSocket.listenLoopback()
        defer { close(listener) }
        let socket = try Socket.connect(to: .tcp(host: "127.0.0.1", port: port), before: Deadline(.seconds(6)))
        defer { socket.close() }
        func option(_ level: Int32, _ name: Int32) -> Int32 {
            var value: Int32 = 0
            var size = socklen_t(MemoryLayout<Int32>.size)
            XCTAssertEqual(getsockopt(socket.fd, level, name, &value, &size), 0)
            return value
        }
        XCTAssertEqual(option(SOL_SOCKET, SO_KEEPALIVE), 1)
        XCTAssertEqual(option(Int32(IPPROTO_TCP), TCP_KEEPIDLE), 6)
        XCTAssertEqual(option(Int32(IPPROTO_TCP), TCP_KEEPINTVL), 2)
        XCTAssertEqual(option(Int32(IPPROTO_TCP), TCP_KEEPCNT), 3)
    }
}

/// A server played on a Unix socket: it accepts one connection, answers Hello, then answers
/// nothing but (when `answersPings`) Pings, counting them; when not `reads`, it reads nothing
/// after the Hello until the client hangs up. With `answersCallsAfterPings`, a query is answered
/// (no samples) once that many Pings arrived.
private final class PlayedServer: Sendable {
    let endpoint: Endpoint
    private let path: String
    private let listener: Int32
    private let pingCount = Mutex(0)

    init(answersPings: Bool, reads: Bool = true, answersCallsAfterPings: Int? = nil) throws {
        path = FileManager.default.temporaryDirectory.appendingPathComponent("played-\(UUID().uuidString.prefix(8)).sock").path
        listener = try TestSocket.listen(unix: path)
        endpoint = .unix(path: path)
        Thread { [self] in serve(answersPings: answersPings, reads: reads, answersCallsAfterPings: answersCallsAfterPings) }.start()
    }

    deinit {
        close(listener)
        unlink(path)
    }

    var pings: Int { pingCount.withLock { $0 } }

    /// Returns once `count` Pings arrived; fails the test when they did not within 30 s.
    func waitForPings(_ count: Int) async throws {
        let giveUp = ContinuousClock.now + .seconds(30)
        while pings < count {
            guard ContinuousClock.now < giveUp else { return XCTFail("only \(pings) of \(count) Pings arrived") }
            try await Task.sleep(for: .milliseconds(20))
        }
    }

    private func serve(answersPings: Bool, reads: Bool, answersCallsAfterPings: Int?) {
        let fd = accept(listener, nil, nil)
        guard fd >= 0 else { return }
        defer { close(fd) }
        var queries: [UInt64] = []
        var decoder = FrameDecoder()
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            guard count > 0 else { return }
            decoder.append(contentsOf: buffer[..<count])
            while let frame = try? decoder.nextFrame(), let message = try? WireCodec.decodeClientMessage(frame) {
                switch message.call {
                case .hello:
                    answer(fd, ServerMessage(callID: message.callID, more: false, result: .hello(Self.helloResult)))
                    if !reads {
                        // Asks for no event: poll returns on the hang-up (POLLHUP) or an error only.
                        var hangUp = pollfd(fd: fd, events: 0, revents: 0)
                        while poll(&hangUp, 1, -1) <= 0 {}
                        return
                    }
                case .ping(let payload):
                    let pings = pingCount.withLock { count in
                        count += 1
                        return count
                    }
                    if answersPings { answer(fd, ServerMessage(callID: message.callID, more: false, result: .pong(payload: payload, serverTime: 0))) }
                    if let answersCallsAfterPings, pings >= answersCallsAfterPings {
                        for query in queries { answer(fd, ServerMessage(callID: query, more: false, result: .samples([]))) }
                        queries = []
                    }
                default:
                    queries.append(message.callID)
                }
            }
        }
    }

    private func answer(_ fd: Int32, _ message: ServerMessage) {
        let frame = WireCodec.encodeServerFrame(message)
        _ = frame.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
    }

    private static let helloResult = HelloResult(serverVersion: "played", protocolVersion: 1, maxFrameBytes: 1 << 22,
                                                 maxCallsInFlight: 64, maxBatchObjects: 1000, serverTime: 0, role: .owner,
                                                 ownerName: "owner", source: nil)
}

import Foundation
import HealthModel
import HealthWire
import XCTest

/// The server as a process: sockets, pipelining, abusive clients, shutdown.
final class TransportTests: XCTestCase {
    func testSaveOverTCPQueryOverUnixSocket() throws {
        let server = try ServerProcess()
        let tcp = try RawClient(port: server.port)
        guard case .hello(let hello)? = tcp.hello(server.ownerToken, version: "7.1") else { return XCTFail("no hello") }
        XCTAssertEqual(hello.role, .owner)
        let sample = Fixtures.heartRateSample(71)
        XCTAssertEqual(tcp.call(.saveObjects([sample])), .saveObjects([.stored]))

        let unix = try RawClient(unixPath: server.unixPath)
        unix.hello(server.ownerToken)
        let found = Fixtures.samples(of: unix.collect(unix.submit(.querySamples(SampleQuery(types: [Fixtures.heartRate])))))
        XCTAssertEqual(found.map(\.uuid), [sample.uuid])
        // The revision comes from the saving connection's Hello, the source from its credential.
        XCTAssertEqual(found.first?.sourceRevision?.version, "7.1")
        XCTAssertEqual(found.first?.sourceRevision?.productType, "Test1,1")
        XCTAssertEqual(found.first?.sourceRevision?.source.bundleID, hello.source?.bundleID)
    }

    func testTwoHundredConnectionsEachPipeliningFiftyCalls() throws {
        // All 200 wait for their Hello at once, from one address.
        let server = try ServerProcess(extraArguments: ["--max-unauthenticated-per-address", "200"])
        let token = server.ownerToken
        var clients: [RawClient] = []
        for _ in 0..<200 { clients.append(try RawClient(port: server.port)) }
        for client in clients { client.submit(.hello(Hello(token: token))) }
        for client in clients {
            guard case .hello? = client.receive()?.result else { return XCTFail("hello failed") }
        }
        for (index, client) in clients.enumerated() {
            var frames: [UInt8] = []
            for call in 0..<50 {
                let id = UInt64(100 + call)
                let body: ClientCall = call % 10 == 0 ? .saveObjects([Fixtures.heartRateSample(Double(60 + index % 40))])
                    : .ping(Data("\(index)-\(call)".utf8))
                frames += WireCodec.encodeClientFrame(ClientMessage(callID: id, call: body))
            }
            client.sendRaw(frames)
        }
        for (index, client) in clients.enumerated() {
            var answered = Set<UInt64>()
            while answered.count < 50, let message = client.receive() {
                switch message.result {
                case .pong(let payload, _):
                    XCTAssertEqual(String(decoding: payload, as: UTF8.self), "\(index)-\(message.callID - 100)")
                case .saveObjects(let outcomes):
                    XCTAssertEqual(outcomes, [.stored])
                default:
                    XCTFail("unexpected answer \(message.result)")
                }
                answered.insert(message.callID)
            }
            XCTAssertEqual(answered.count, 50, "connection \(index) got \(answered.count) answers")
        }
    }

    /// Answers the socket cannot take at once: the server writes what it takes at once and queues the
    /// rest behind it (later answers wait their turn), stops reading above its output mark and goes
    /// on once the client reads. Every answer must arrive whole, once and in order.
    func testAnswersTheSocketCannotTakeAtOnceArriveWholeAndInOrder() throws {
        let server = try ServerProcess()
        // A Unix socket's buffers are small (a few hundred KiB), and a transfer over it is fast.
        let client = try RawClient(unixPath: server.unixPath)
        client.setTimeout(seconds: 20)
        guard case .hello? = client.hello(server.ownerToken) else { return XCTFail("no hello") }
        let calls = 160
        let payload = { (call: Int) in Data((0..<16_384).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ call) }) }
        let frames = (0..<calls).flatMap { WireCodec.encodeClientFrame(ClientMessage(callID: UInt64(1_000 + $0), call: .ping(payload($0)))) }
        // 2.5 MiB of answers, more than the server's output mark and than the socket takes before
        // this client reads: sent from another thread, since the server stops reading until this
        // one reads.
        let (fd, sent) = (client.fd, DispatchSemaphore(value: 0))
        Thread.detachNewThread {
            RawClient.sendAll(frames, to: fd)
            sent.signal()
        }
        // Not reading for a while fills the socket's buffers, so the server's writes come up short.
        Thread.sleep(forTimeInterval: 0.5)
        for call in 0..<calls {
            guard let message = client.receive() else { return XCTFail("no answer \(call)") }
            XCTAssertEqual(message.callID, UInt64(1_000 + call), "answer \(call) out of order")
            guard case .pong(let echoed, _) = message.result else { return XCTFail("answer \(call): \(message.result)") }
            XCTAssertTrue(echoed == payload(Int(message.callID) - 1_000), "answer \(call) damaged")
        }
        sent.wait()
        guard case .pong(let echoed, _)? = client.call(.ping(Data("after".utf8))) else { return XCTFail("no answer after them") }
        XCTAssertEqual(echoed, Data("after".utf8))
    }

    func testAbusiveClientsAreClosedAndTheServerKeepsServing() throws {
        let server = try ServerProcess(extraArguments: ["--hello-timeout", "1"])

        let garbage = try RawClient(port: server.port)
        garbage.sendRaw([0, 0, 0, 5, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF])
        let garbageAnswer = try XCTUnwrap(garbage.messagesUntilClosed())
        XCTAssertEqual(garbageAnswer.first?.callID, 0)
        XCTAssertEqual(garbageAnswer.first?.result.errorCode, .malformed)

        let huge = try RawClient(port: server.port)
        huge.sendRaw([0x40, 0, 0, 0])  // 1 GiB length prefix
        XCTAssertEqual(try XCTUnwrap(huge.messagesUntilClosed()).first?.result.errorCode, .frameTooLarge)

        let notHello = try RawClient(port: server.port)
        notHello.submit(.ping(Data()))
        XCTAssertEqual(try XCTUnwrap(notHello.messagesUntilClosed()).first?.result.errorCode, .malformed)

        let silent = try RawClient(port: server.port)
        XCTAssertEqual(try XCTUnwrap(silent.messagesUntilClosed()).first?.result.errorCode, .unauthenticated)

        let wrongToken = try RawClient(port: server.port)
        XCTAssertEqual(wrongToken.hello("not-a-token")?.errorCode, .unauthenticated)
        XCTAssertNotNil(wrongToken.messagesUntilClosed())

        let good = try RawClient(port: server.port)
        guard case .hello? = good.hello(server.ownerToken) else { return XCTFail("good client refused") }
        guard case .pong? = good.call(.ping(Data("ok".utf8))) else { return XCTFail("no pong") }
    }

    func testUnsupportedVersionAndCallLimits() throws {
        let server = try ServerProcess(extraArguments: ["--max-calls-in-flight", "4"])
        let old = try RawClient(port: server.port)
        XCTAssertEqual(old.call(.hello(Hello(protocolVersion: 99, token: server.ownerToken)))?.errorCode, .unsupportedVersion)

        let client = try RawClient(port: server.port)
        client.hello(server.ownerToken)
        // Long-running calls stay in flight: the fifth is refused with RESOURCE_EXHAUSTED.
        var ids: [UInt64] = []
        for _ in 0..<4 { ids.append(client.submit(.observe(types: [Fixtures.heartRate], predicate: nil, frequency: nil))) }
        for id in ids { guard case .observerEvent? = client.receive(callID: id)?.result else { return XCTFail("no registration") } }
        XCTAssertEqual(client.call(.querySamples(SampleQuery(types: [Fixtures.heartRate])))?.errorCode, .resourceExhausted)
        guard case .cancel(true)? = client.call(.cancel(targetCallID: ids[0])) else { return XCTFail("cancel failed") }
        XCTAssertEqual(client.receive(callID: ids[0])?.result, .callEnded(.cancelled))
        guard case .samples? = client.call(.querySamples(SampleQuery(types: [Fixtures.heartRate]))) else { return XCTFail("query refused") }
    }

    func testClientThatStopsReadingWhileSubscribedIsDropped() throws {
        let server = try ServerProcess(extraArguments: ["--slow-client-timeout", "1"])
        let slow = try RawClient(port: server.port)
        slow.shrinkReceiveBuffer()
        slow.hello(server.ownerToken)
        slow.submit(.queryAnchored(AnchoredQuery(types: [Fixtures.heartRate], updates: true)))
        // `slow` never reads again; a writer makes every save produce a large update for it.
        let writer = try RawClient(port: server.port)
        writer.hello(server.ownerToken)
        for round in 0..<60 where !server.log.contains("dropped") {
            let batch = (0..<1000).map { _ in Fixtures.heartRateSample(Double(60 + round % 30)) }
            guard case .saveObjects? = writer.call(.saveObjects(batch)) else { return XCTFail("save failed in round \(round)") }
        }
        let deadline = Date().addingTimeInterval(10)
        while !server.log.contains("dropped"), Date() < deadline { Thread.sleep(forTimeInterval: 0.1) }
        XCTAssertTrue(server.log.contains("dropped"), "the slow client was not dropped")
        guard case .pong? = writer.call(.ping(Data())) else { return XCTFail("server stopped serving") }
    }

    func testConnectionLimit() throws {
        let server = try ServerProcess(extraArguments: ["--max-connections", "2"])
        let first = try RawClient(port: server.port), second = try RawClient(port: server.port)
        first.hello(server.ownerToken)
        second.hello(server.ownerToken)
        let third = try RawClient(port: server.port)
        XCTAssertEqual(try XCTUnwrap(third.messagesUntilClosed()).first?.result.errorCode, .resourceExhausted)
        guard case .pong? = first.call(.ping(Data())) else { return XCTFail("an admitted client lost service") }
    }

    func testGracefulShutdownLosesNoAcknowledgedSave() throws {
        let server = try ServerProcess()
        let watcher = try RawClient(port: server.port)
        watcher.hello(server.ownerToken)
        let observer = watcher.submit(.observe(types: [Fixtures.heartRate], predicate: nil, frequency: nil))
        XCTAssertEqual(watcher.receive(callID: observer)?.result, .observerEvent(changedTypes: [], sequence: 0))
        let client = try RawClient(port: server.port)
        client.hello(server.ownerToken)
        var submitted: [UInt64: UUID] = [:]
        for _ in 0..<200 {
            let sample = Fixtures.heartRateSample(80)
            submitted[client.submit(.saveObjects([sample]))] = sample.uuid
        }
        kill(server.process.processIdentifier, SIGTERM)
        var acknowledged: [UUID] = []
        while let message = client.receive() {
            if case .saveObjects = message.result, let uuid = submitted[message.callID] { acknowledged.append(uuid) }
        }
        server.process.waitUntilExit()
        XCTAssertEqual(server.process.terminationStatus, 0)
        // Long-running calls end with a reason before the connection closes.
        XCTAssertTrue(try XCTUnwrap(watcher.messagesUntilClosed()).contains { $0.callID == observer && $0.result == .callEnded(.shutdown) })
        XCTAssertFalse(FileManager.default.fileExists(atPath: server.unixPath))

        let restarted = try ServerProcess(dataDirectory: server.dataDirectory)
        let reader = try RawClient(port: restarted.port)
        reader.hello(restarted.ownerToken)
        let stored = Set(Fixtures.samples(of: reader.collect(reader.submit(.querySamples(SampleQuery(types: [Fixtures.heartRate]))))).map(\.uuid))
        XCTAssertTrue(Set(acknowledged).isSubset(of: stored), "\(Set(acknowledged).subtracting(stored).count) acknowledged saves were lost")
    }
}

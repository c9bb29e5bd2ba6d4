import Foundation
import HealthClient
import HealthModel
import HealthWire
import XCTest

final class CallRoutingTests: XCTestCase {
    private func connected() async throws -> (HealthConnection, FakeTransport) {
        let transport = FakeTransport()
        let connection = try await HealthConnection.connect(over: transport, hello: Hello(token: "t"))
        return (connection, transport)
    }

    func testHelloResultIsAvailableAfterConnect() async throws {
        let (connection, _) = try await connected()
        XCTAssertEqual(connection.helloResult.ownerName, "owner")
    }

    func testPipelinedCallsAreMatchedByCallIDInAnyOrder() async throws {
        let (connection, transport) = try await connected()
        async let first = connection.ping(Data([1]))
        async let second = connection.ping(Data([2]))
        let a = await transport.sent.next()!
        let b = await transport.sent.next()!
        XCTAssertNotEqual(a.callID, b.callID)
        // Answer in reverse order; each answer carries the payload's first byte as server time.
        for message in [b, a] {
            guard case .ping(let payload) = message.call else { return XCTFail("expected ping") }
            transport.reply(message.callID, .pong(payload: payload, serverTime: Int64(payload[0])))
        }
        let (one, two) = try await (first, second)
        XCTAssertEqual(one, 1)
        XCTAssertEqual(two, 2)
    }

    func testSamplePagesAreConcatenated() async throws {
        let (connection, transport) = try await connected()
        async let result = connection.samples(SampleQuery(types: ["HKQuantityTypeIdentifierStepCount"]))
        let call = await transport.sent.next()!
        let samples = (0..<5).map { i in
            Sample(type: "HKQuantityTypeIdentifierStepCount", start: Int64(i), end: Int64(i),
                   body: .quantity(Quantity(Double(i), "count"), count: 1))
        }
        transport.reply(call.callID, more: true, .samples(Array(samples[0..<2])))
        transport.reply(call.callID, more: true, .samples(Array(samples[2..<4])))
        transport.reply(call.callID, .samples(Array(samples[4...])))
        let received = try await result
        XCTAssertEqual(received, samples)
    }

    func testAnchoredOneShotKeepsTheLastAnchor() async throws {
        let (connection, transport) = try await connected()
        async let result = connection.anchored(AnchoredQuery(types: ["t"], updates: true))
        let call = await transport.sent.next()!
        guard case .queryAnchored(let query) = call.call else { return XCTFail("expected anchored") }
        XCTAssertFalse(query.updates, "the one-shot form never asks for updates")
        let gone = DeletedObject(uuid: UUID(), type: "t")
        transport.reply(call.callID, more: true, .anchored(samples: [], deleted: [gone], newAnchor: Data([1]), initial: true))
        transport.reply(call.callID, .anchored(samples: [], deleted: [], newAnchor: Data([2]), initial: true))
        let batch = try await result
        XCTAssertEqual(batch.deleted, [gone])
        XCTAssertEqual(batch.anchor, Data([2]))
    }

    func testServerErrorIsThrownAsHealthError() async throws {
        let (connection, transport) = try await connected()
        async let result = connection.save([])
        let call = await transport.sent.next()!
        transport.reply(call.callID, .error(HealthError(.authorizationDenied, "no share permission", objectIndex: 3)))
        do {
            _ = try await result
            XCTFail("expected an error")
        } catch let error as HealthError {
            XCTAssertEqual(error.code, .authorizationDenied)
            XCTAssertEqual(error.objectIndex, 3)
        }
    }

    func testWrongAnswerKindIsMalformed() async throws {
        let (connection, transport) = try await connected()
        async let result = connection.listOwners()
        let call = await transport.sent.next()!
        transport.reply(call.callID, .listApps([]))
        do {
            _ = try await result
            XCTFail("expected an error")
        } catch let error as HealthError {
            XCTAssertEqual(error.code, .malformed)
        }
    }

    func testStoppingAStreamSendsCancel() async throws {
        let (connection, transport) = try await connected()
        // The stream lives only inside the consumer, so leaving the loop drops it, as in real use.
        let consumer = Task {
            for try await changed in connection.observe(types: ["t"]) { return changed }
            return []
        }
        let call = await transport.sent.next()!
        transport.reply(call.callID, more: true, .observerEvent(changedTypes: ["t"], sequence: 0))
        let firstEvent = try await consumer.value
        XCTAssertEqual(firstEvent, ["t"])
        let cancel = await transport.sent.next()!
        XCTAssertEqual(cancel.call, .cancel(targetCallID: call.callID))
    }

    func testAStreamKeepsItsConnectionOpen() async throws {
        let transport = FakeTransport()
        // Only the stream survives this scope, as in `for try await x in try await connect(…).observe(…)`.
        let events = try await HealthConnection.connect(over: transport, hello: Hello(token: "t")).observe(types: ["t"])
        let call = await transport.sent.next()!
        transport.reply(call.callID, more: true, .observerEvent(changedTypes: ["t"], sequence: 0))
        var iterator = events.makeAsyncIterator()
        let first = try await iterator.next()
        XCTAssertEqual(first, ["t"])
    }

    func testObserverEventsAreAcknowledgedAsTheyArrive() async throws {
        let (connection, transport) = try await connected()
        let events = connection.observe(types: ["t"])
        var iterator = events.makeAsyncIterator()
        let call = await transport.sent.next()!
        transport.reply(call.callID, more: true, .observerEvent(changedTypes: [], sequence: 0))
        transport.reply(call.callID, more: true, .observerEvent(changedTypes: ["t"], sequence: 1))
        _ = try await iterator.next()
        let second = try await iterator.next()
        XCTAssertEqual(second, ["t"])
        // Only the event is acknowledged; the registration answer needs none.
        let ack = await transport.sent.next()!
        XCTAssertEqual(ack.call, .ackObserverEvent(targetCallID: call.callID, sequence: 1))
    }

    func testServerEndingAStreamForShutdownIsUnavailable() async throws {
        let (connection, transport) = try await connected()
        let updates = connection.anchoredUpdates(AnchoredQuery(types: ["t"]))
        let consumer = Task {
            var batches: [AnchoredBatch] = []
            for try await batch in updates { batches.append(batch) }
            return batches
        }
        let call = await transport.sent.next()!
        transport.reply(call.callID, more: true, .anchored(samples: [], deleted: [], newAnchor: Data([9]), initial: true))
        transport.reply(call.callID, .callEnded(.shutdown))
        do {
            _ = try await consumer.value
            XCTFail("expected an error")
        } catch let error as HealthError {
            XCTAssertEqual(error.code, .unavailable)
        }
    }

    func testDroppedConnectionFailsPendingAndLaterCalls() async throws {
        let (connection, transport) = try await connected()
        let pending = Task { try await connection.listApps() }
        _ = await transport.sent.next()!
        transport.drop(HealthError(.unavailable, "peer reset"))
        await XCTAssertThrowsHealthError(try await pending.value, .unavailable)
        XCTAssertTrue(connection.isClosed)
        await XCTAssertThrowsHealthError(try await connection.listApps(), .unavailable)
    }

    func testConnectionLevelErrorIsTheCloseReason() async throws {
        let (connection, transport) = try await connected()
        let pending = Task { try await connection.listApps() }
        _ = await transport.sent.next()!
        transport.reply(0, .error(HealthError(.unauthenticated, "token revoked")))
        transport.drop()
        await XCTAssertThrowsHealthError(try await pending.value, .unauthenticated)
        XCTAssertEqual(connection.closeReason?.code, .unauthenticated)
    }
}

/// Asserts that `body` throws a HealthError with `code`.
func XCTAssertThrowsHealthError<T>(_ body: @autoclosure () async throws -> T, _ code: HealthErrorCode,
                                   file: StaticString = #filePath, line: UInt = #line) async {
    do {
        _ = try await body()
        XCTFail("expected \(code.name)", file: file, line: line)
    } catch let error as HealthError {
        XCTAssertEqual(error.code, code, "\(error)", file: file, line: line)
    } catch {
        XCTFail("expected HealthError, got \(error)", file: file, line: line)
    }
}

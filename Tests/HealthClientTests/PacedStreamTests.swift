import Foundation
import HealthClient
import HealthModel
import HealthWire
import XCTest

/// A paced stream keeps at most its number of answers waiting: the connection stops reading while
/// that many wait, reads again once half were taken, and a consumer that walks away releases it.
final class PacedStreamTests: XCTestCase {
    private static let page = ServerResult.anchored(samples: SampleTable(), deleted: [], newAnchor: Data([1]), initial: true)

    func testReadingIsHeldWhileTheAnswersWaitingReachTheBoundAndReleasedOnceHalfAreTaken() async throws {
        let transport = FakeTransport()
        let connection = try await HealthConnection.connect(over: transport, hello: Hello(token: "t"))
        let answers = connection.pacedStream(.queryAnchored(AnchoredQuery(types: ["HKQuantityTypeIdentifierHeartRate"])), waiting: 4)
        let sent = await transport.sent.next()
        let call = try XCTUnwrap(sent)
        for _ in 0..<3 { transport.reply(call.callID, more: true, Self.page) }
        XCTAssertEqual(transport.readingHolds, 0, "three answers wait")
        transport.reply(call.callID, more: true, Self.page)
        XCTAssertEqual(transport.readingHolds, 1, "four answers wait: the connection stops reading")

        var iterator = answers.makeAsyncIterator()
        _ = try await iterator.next()
        XCTAssertEqual(transport.readingHolds, 1, "three still wait")
        _ = try await iterator.next()
        XCTAssertEqual(transport.readingHolds, 0, "two wait: reading goes on")
        transport.reply(call.callID, more: false, Self.page)
        var rest = 0
        while try await iterator.next() != nil { rest += 1 }
        XCTAssertEqual(rest, 3, "every answer arrives")
        XCTAssertEqual(transport.readingHolds, 0)
    }

    func testAConsumerWalkingAwayReleasesReadingAndCancelsTheCall() async throws {
        let transport = FakeTransport()
        let connection = try await HealthConnection.connect(over: transport, hello: Hello(token: "t"))
        let callID = try await { () async throws -> UInt64 in
            let answers = connection.pacedStream(.queryAnchored(AnchoredQuery(types: ["HKQuantityTypeIdentifierHeartRate"])), waiting: 2)
            let sent = await transport.sent.next()
            let call = try XCTUnwrap(sent)
            for _ in 0..<3 { transport.reply(call.callID, more: true, Self.page) }
            XCTAssertEqual(transport.readingHolds, 1)
            var iterator = answers.makeAsyncIterator()
            _ = try await iterator.next()
            return call.callID
        }()
        XCTAssertEqual(transport.readingHolds, 0, "the answers left untaken no longer hold reading back")
        let next = await transport.sent.next()
        let cancel = try XCTUnwrap(next)
        guard case .cancel(let target) = cancel.call else { return XCTFail("expected Cancel, got \(cancel.call)") }
        XCTAssertEqual(target, callID)
    }
}

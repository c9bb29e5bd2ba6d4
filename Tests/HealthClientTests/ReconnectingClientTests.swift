import Foundation
import HealthClient
import HealthModel
import HealthWire
import Synchronization
import XCTest

final class ReconnectingClientTests: XCTestCase {
    /// Dials fake transports in order; a nil entry is a dial that fails as unreachable.
    private final class Dialer: Sendable {
        private let plan: Mutex<[FakeTransport?]>
        let dials = Mutex(0)

        init(_ plan: [FakeTransport?]) { self.plan = Mutex(plan) }

        func dial() async throws -> HealthConnection {
            dials.withLock { $0 += 1 }
            let next = plan.withLock { $0.isEmpty ? nil : $0.removeFirst() }
            guard let transport = next else { throw HealthError(.unavailable, "connection refused") }
            return try await HealthConnection.connect(over: transport, hello: Hello(token: "t"))
        }
    }

    private let fast = ReconnectingClient.Policy(initialDelay: .milliseconds(1), maxDelay: .milliseconds(2),
                                                 callDeadline: .seconds(30))

    func testDialsAgainUntilTheServerAnswers() async throws {
        let transport = FakeTransport()
        let dialer = Dialer([nil, nil, transport])
        let client = ReconnectingClient(policy: fast, dial: dialer.dial)
        async let time = client.ping()
        let call = await transport.sent.next()!
        transport.reply(call.callID, .pong(payload: Data(), serverTime: 42))
        let answered = try await time
        XCTAssertEqual(answered, 42)
        XCTAssertEqual(dialer.dials.withLock { $0 }, 3)
    }

    func testASaveInterruptedByADropIsSentAgainOnANewConnection() async throws {
        let first = FakeTransport(), second = FakeTransport()
        let client = ReconnectingClient(policy: fast, dial: Dialer([first, second]).dial)
        let sample = Sample(type: "HKQuantityTypeIdentifierStepCount", start: 0, end: 1,
                            body: .quantity(Quantity(3, "count"), count: 1))
        async let outcome = client.save([sample])
        _ = await first.sent.next()!
        first.drop()
        let retry = await second.sent.next()!
        XCTAssertEqual(retry.call, .saveObjects([sample]))
        second.reply(retry.callID, .saveObjects([.alreadyStored]))
        let outcomes = try await outcome
        XCTAssertEqual(outcomes, [.alreadyStored])
    }

    func testCredentialCallsAreNotRetried() async throws {
        let first = FakeTransport()
        let client = ReconnectingClient(policy: fast, dial: Dialer([first, FakeTransport()]).dial)
        let pending = Task { try await client.registerApp(bundleID: "com.a", name: "A") }
        _ = await first.sent.next()!
        first.drop()
        await XCTAssertThrowsHealthError(try await pending.value, .unavailable)
    }

    func testARefusedCredentialIsNotRetried() async throws {
        let dials = Mutex(0)
        let client = ReconnectingClient(policy: fast) {
            dials.withLock { $0 += 1 }
            throw HealthError(.unauthenticated, "bad token")
        }
        await XCTAssertThrowsHealthError(try await client.ping(), .unauthenticated)
        XCTAssertEqual(dials.withLock { $0 }, 1)
    }
}

import Foundation
import HealthModel
import HealthWire
import XCTest
@testable import HealthServer

/// The I/O loops' housekeeping: timeouts checked on sweeps of every connection, room every tick.
final class HousekeepingTests: XCTestCase {
    func testSweepsCheckEachTimeoutTenTimesWithinItsLengthAndAtLeastOnceASecond() {
        // The defaults' shortest timeout is the Hello's 10 s: a sweep a second, every fifth 200 ms tick.
        XCTAssertEqual(EventLoop.sweepEvery(intervalMilliseconds: 200, shortestTimeout: 10), 5)
        XCTAssertEqual(EventLoop.sweepEvery(intervalMilliseconds: 200, shortestTimeout: 300), 5)
        XCTAssertEqual(EventLoop.sweepEvery(intervalMilliseconds: 200, shortestTimeout: 5), 2)
        XCTAssertEqual(EventLoop.sweepEvery(intervalMilliseconds: 200, shortestTimeout: 1), 1)
        XCTAssertEqual(EventLoop.sweepEvery(intervalMilliseconds: 200, shortestTimeout: 0.1), 1)
    }

    func testAHelloTimeoutFiresWhenSweepsSkipTicks() throws {
        // 5 s: sweeps every other tick; the connection that never says Hello is still closed, told why.
        let server = try ServerProcess(extraArguments: ["--hello-timeout", "5"])
        let client = try RawClient(port: server.port)
        let messages = try XCTUnwrap(client.messagesUntilClosed(), "the connection was not closed")
        XCTAssertEqual(messages.first?.result.errorCode, .unauthenticated)
    }
}

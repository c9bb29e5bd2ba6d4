import Foundation
import HealthClient
import HealthModel
import HealthWire
import XCTest

/// The client's liveness check against a real server: healthd answers the client's Pings on its
/// loop, so an observer that stays quiet for many times the client's timeout is not failed, and
/// still gets the change that ends its quiet.
final class ClientLivenessTests: XCTestCase {
    func testAQuietObserverOnALiveServerOutlastsManyTimeouts() async throws {
        let server = try ServerProcess()
        let owner = try RawClient.session(server, token: server.ownerToken)
        let connection = try await HealthConnection.connect(to: .tcp(host: "127.0.0.1", port: server.port),
                                                            hello: Hello(token: server.ownerToken), timeout: .seconds(1))
        var changes = connection.observe(types: [Authz.heartRate]).makeAsyncIterator()
        let registered = try await changes.next()
        XCTAssertEqual(registered, [], "the observer's first event, as it starts")
        // Four timeouts of silence: without Pings answered, the check would have failed the call by
        // now. Each answer must beat the timeout, which is long for that, on however loaded a machine.
        try await Task.sleep(for: .seconds(4))
        XCTAssertFalse(connection.isClosed, "\(connection.closeReason?.message ?? "")")
        try owner.save([Sample(type: Authz.heartRate, start: Authz.midnight, end: Authz.midnight,
                               body: .quantity(Quantity(60, "count/min"), count: 1))])
        let changed = try await changes.next()
        XCTAssertEqual(changed, [Authz.heartRate])
        connection.close()
    }
}

import HealthCLI
import HealthClient
import HealthModel
import XCTest
@testable import healthctl

final class ServerListTests: XCTestCase {
    private let a = Endpoint.unix(path: "/run/a.sock"), b = Endpoint.tcp(host: "10.0.0.2", port: 7420),
                c = Endpoint.tcp(host: "::1", port: 7421)

    func testAddressListsAreRepeatedOrCommaSeparatedInOrder() throws {
        XCTAssertEqual(try Endpoint.list(["unix:/run/a.sock, 10.0.0.2:7420", "[::1]:7421"]), [a, b, c])
        XCTAssertEqual(try Endpoint.list(["unix:/run/a.sock,,"]), [a])
        XCTAssertEqual(try Endpoint.list(["tcp:10.0.0.2:7420"]), [b])
        XCTAssertThrowsError(try Endpoint.list([" , "])) { error in
            XCTAssertEqual((error as? HealthError)?.field, "server")
        }
        XCTAssertThrowsError(try Endpoint.list(["10.0.0.2:7420", "nowhere"])) { error in
            XCTAssertTrue((error as? HealthError)?.message.contains("'nowhere'") == true, "\(error)")
        }
    }

    func testHealthctlTakesARepeatedServerAndTheEnvironmentList() throws {
        let repeated = try ParsedArguments(["--server", "unix:/run/a.sock", "--server", "10.0.0.2:7420,[::1]:7421"],
                                           options: GlobalOptions.specs, environment: ["HEALTHSTORE_SERVER": "x:2"])
        XCTAssertEqual(try Invocation.endpoints(repeated), [a, b, c])
        let environment = try ParsedArguments([], options: GlobalOptions.specs,
                                              environment: ["HEALTHSTORE_SERVER": "unix:/run/a.sock,10.0.0.2:7420"])
        XCTAssertEqual(try Invocation.endpoints(environment), [a, b])
        XCTAssertEqual(try Invocation.endpoints(try ParsedArguments([], options: GlobalOptions.specs)), [.standard])
    }

    func testDialsStartAtTheFirstNodeAndStayOnTheOneThatAnswered() {
        var list = ServerList([a, b, c])
        XCTAssertEqual(list.dialOrder(), [a, b, c])
        // A refused and B answered: the connection is on B, and a dial that follows its loss starts at C.
        list.connected(to: b)
        XCTAssertEqual(list.dialOrder(), [c, a, b])
    }

    func testALostNodeIsTriedLastAndTheOrderWraps() {
        var list = ServerList([a, b, c])
        _ = list.dialOrder()
        list.connected(to: a)
        XCTAssertEqual(list.dialOrder(), [b, c, a], "A died: B first, A last in case it came back")
        list.connected(to: b)
        XCTAssertEqual(list.dialOrder(), [c, a, b])
        list.connected(to: c)
        XCTAssertEqual(list.dialOrder(), [a, b, c], "past the end the order wraps to the start")
    }

    func testDialsThatReachNothingKeepTheOrder() {
        var list = ServerList([a, b])
        XCTAssertEqual(list.dialOrder(), [a, b])
        XCTAssertEqual(list.dialOrder(), [a, b], "no connection was made, so no node counts as lost")
    }

    func testClientsSpreadByStartingAtAnotherNode() {
        var second = ServerList([a, b, c], start: 1), fifth = ServerList([a, b, c], start: 4)
        XCTAssertEqual(second.dialOrder(), [b, c, a])
        XCTAssertEqual(fifth.dialOrder(), [b, c, a])
    }

    func testASingleAddressIsAlwaysDialedAgain() {
        var list = ServerList([a])
        list.connected(to: a)
        XCTAssertEqual(list.dialOrder(), [a])
    }
}

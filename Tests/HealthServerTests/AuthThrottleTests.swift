import Foundation
import HealthModel
import HealthWire
import XCTest

/// Credential guessing: limited per peer and across all peers, counted by outcome (never timed);
/// valid tokens from other peers are never held back.
final class AuthThrottleTests: XCTestCase {
    private let guess = String(repeating: "a", count: 43)

    func testAPeerIsRefusedUncheckedAfterThreeWrongTokensWhileOtherPeersAreNot() throws {
        let server = try ServerProcess()
        for _ in 0..<3 {
            let client = try RawClient(port: server.port, from: "127.0.0.2")
            XCTAssertEqual(client.hello(guess)?.errorCode, .unauthenticated)
            XCTAssertNotNil(client.messagesUntilClosed(), "a refused Hello must close the connection")
        }
        // The fourth attempt from that address is not even checked, whatever its token.
        let fourth = try RawClient(port: server.port, from: "127.0.0.2")
        guard case .error(let error)? = fourth.hello(server.ownerToken) else { return XCTFail("the fourth Hello was accepted") }
        XCTAssertEqual(error.code, .resourceExhausted)
        XCTAssertEqual(error.field, "hello.token")
        XCTAssertNotNil(fourth.messagesUntilClosed())
        // Another address, and a local process over the Unix socket, are told apart from it.
        XCTAssertNoThrow(try RawClient.session(server, token: server.ownerToken))
        let local = try RawClient(unixPath: server.unixPath)
        guard case .hello? = local.hello(server.ownerToken) else { return XCTFail("the Unix-socket peer was held back") }
        let wrong = try RawClient(unixPath: server.unixPath)
        XCTAssertEqual(wrong.hello(guess)?.errorCode, .unauthenticated)
        XCTAssertNotNil(wrong.messagesUntilClosed())
        XCTAssertTrue(server.log.contains("from unix uid \(getuid()) pid \(getpid()): hello refused"),
                      "Unix peers are told apart by their credentials:\n\(server.log)")
    }

    /// 200 wrong tokens at once, five from each of 40 addresses: most are refused as throttled,
    /// by the per-address limit and by the global budget (which no spread of addresses escapes);
    /// an owner logging in from another address in the middle of it gets straight in.
    func testAGuessingStormIsThrottledGloballyAndALegitimateLoginStillSucceeds() throws {
        let server = try ServerProcess()
        var guessers: [RawClient] = []
        for address in 0..<40 {
            for _ in 0..<5 { guessers.append(try RawClient(port: server.port, from: "127.0.0.\(10 + address)")) }
        }
        for client in guessers { client.submit(.hello(Hello(token: guess))) }
        let owner = try RawClient(port: server.port, from: "127.0.0.1")
        guard case .hello? = owner.hello(server.ownerToken) else { return XCTFail("the owner was refused during the storm") }
        guard case .pong? = owner.call(.ping(Data())) else { return XCTFail("the owner's session does not work") }

        var outcomes: [HealthErrorCode: Int] = [:]
        for client in guessers {
            guard let code = client.receive()?.result.errorCode else { return XCTFail("a guess was accepted or not answered") }
            outcomes[code, default: 0] += 1
        }
        XCTAssertEqual(outcomes.values.reduce(0, +), 200)
        XCTAssertEqual(Set(outcomes.keys), [.unauthenticated, .resourceExhausted], "\(outcomes)")
        XCTAssertGreaterThan(outcomes[.resourceExhausted] ?? 0, 120, "most guesses must be throttled: \(outcomes)")
    }

    func testHelloWithAnotherAppsBundleIDIsRefused() throws {
        let server = try ServerProcess()
        let owner = try RawClient.session(server, token: server.ownerToken)
        let token = try owner.registerApp("com.example.band")
        func hello(claiming bundleID: String) throws -> ServerResult? {
            let revision = SourceRevision(source: Source(name: "Band", bundleID: bundleID), version: "1")
            return try RawClient(port: server.port).call(.hello(Hello(token: token, sourceRevision: revision)))
        }
        guard case .error(let error)? = try hello(claiming: "com.example.scale") else { return XCTFail("a foreign bundle id was accepted") }
        XCTAssertEqual(error.code, .unauthenticated)
        XCTAssertEqual(error.field, "hello.source_revision.source.bundle_id")
        guard case .hello(let result)? = try hello(claiming: "com.example.band") else { return XCTFail("the app's own bundle id was refused") }
        XCTAssertEqual(result.source?.bundleID, "com.example.band")
    }
}

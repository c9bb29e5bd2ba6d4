import Foundation
import HealthModel
import HealthStorage
import HealthWire
import XCTest
@testable import HealthServer

/// Hellos answered on the loop from a token the server checked before (`CredentialCache`): a revoked
/// or rotated token is refused although it was remembered, and a store other nodes may share
/// remembers nothing.
final class RememberedCredentialTests: XCTestCase {
    private let band = "com.example.band"

    func testARevokedTokenIsRefusedThoughItWasRemembered() throws {
        let server = try ServerProcess()
        let http = HTTPTestClient(server)
        let owner = try RawClient.session(server, token: server.ownerToken)
        let token = try owner.registerApp(band)
        let checked = try RawClient.session(server, token: token)
        let remembered = try RawClient.session(server, token: token)
        XCTAssertEqual(try Self.remembered(http), Self.remembersHere ? 1 : 0)
        XCTAssertEqual(remembered.call(.ping(Data([1]))).map(Self.isPong), true)

        XCTAssertEqual(owner.call(.revokeApp(bundleID: band)), .revokeApp(connectionsClosed: 2))
        for client in [checked, remembered] {
            XCTAssertEqual(try XCTUnwrap(client.messagesUntilClosed(), "connection stayed open").last?.result.errorCode, .unauthenticated)
        }
        let again = try RawClient(port: server.port)
        XCTAssertEqual(again.hello(token)?.errorCode, .unauthenticated)
        XCTAssertNotNil(again.messagesUntilClosed())
        XCTAssertEqual(try Self.remembered(http), Self.remembersHere ? 1 : 0, "the revoked token was taken from the cache")
    }

    func testARotatedTokenIsRefusedThoughItWasRememberedAndItsSuccessorIsRemembered() throws {
        let server = try ServerProcess()
        let http = HTTPTestClient(server)
        let owner = try RawClient.session(server, token: server.ownerToken)
        let token = try owner.registerApp(band)
        _ = try RawClient.session(server, token: token)
        _ = try RawClient.session(server, token: token)
        guard case .appCredential(_, let rotated)? = owner.call(.rotateAppToken(bundleID: band)) else { return XCTFail("no credential") }

        let old = try RawClient(port: server.port)
        XCTAssertEqual(old.hello(token)?.errorCode, .unauthenticated)
        _ = try RawClient.session(server, token: rotated)
        _ = try RawClient.session(server, token: rotated)
        XCTAssertEqual(try Self.remembered(http), Self.remembersHere ? 2 : 0)
    }

    /// A remembered token's Hello is refused as the store's check refuses it: another app's bundle id.
    func testARememberedTokenClaimingAnotherAppIsRefusedAsBefore() throws {
        let server = try ServerProcess()
        let owner = try RawClient.session(server, token: server.ownerToken)
        let token = try owner.registerApp(band)
        _ = try RawClient.session(server, token: token)
        let revision = SourceRevision(source: Source(name: "Scale", bundleID: "com.example.scale"), version: "1")
        guard case .error(let error)? = try RawClient(port: server.port).call(.hello(Hello(token: token, sourceRevision: revision))) else {
            return XCTFail("a foreign bundle id was accepted")
        }
        XCTAssertEqual(error.code, .unauthenticated)
        XCTAssertEqual(error.field, "hello.source_revision.source.bundle_id")
    }

    func testATokenIsRememberedOnlyWhenNoRevocationStartedSinceItsCheck() async throws {
        let registry = ConnectionRegistry()
        let cache = CredentialCache(registry: registry, enabled: true)
        let app = Principal(role: .app, owner: OwnerID(1), ownerName: "o", source: Source(name: "Band", bundleID: band))

        cache.remember(app, for: "a", checkedAfter: registry.revocationCount)
        XCTAssertEqual(cache.principal(for: "a")?.0, app)
        XCTAssertNil(cache.principal(for: "b"))

        // A check that began before a revocation (which may have committed after it read) is not remembered.
        let before = registry.revocationCount
        await cache.revoking {
            XCTAssertNil(cache.principal(for: "a"), "a remembered token outlived the start of a revocation")
            cache.remember(app, for: "b", checkedAfter: registry.revocationCount)
            XCTAssertNil(cache.principal(for: "b"), "a token was remembered while a revocation ran")
        }
        XCTAssertNil(cache.principal(for: "a"))
        XCTAssertNil(cache.principal(for: "b"))
        cache.remember(app, for: "a", checkedAfter: before)
        XCTAssertNil(cache.principal(for: "a"), "a check made before a revocation was remembered after it")

        // A Hello answered from the cache holds at the count its look-up read: one revocation later it moved.
        cache.remember(app, for: "a", checkedAfter: registry.revocationCount)
        let found = try XCTUnwrap(cache.principal(for: "a"))
        await cache.revoking {}
        XCTAssertNotEqual(registry.revocationCount, found.revocations)

        let off = CredentialCache(registry: registry, enabled: false)
        off.remember(app, for: "a", checkedAfter: registry.revocationCount)
        XCTAssertNil(off.principal(for: "a"))
    }

    /// False when HEALTHSTORE_TEST_STORE puts healthd on PostgreSQL, which other nodes may share.
    private static var remembersHere: Bool { !(ProcessInfo.processInfo.environment["HEALTHSTORE_TEST_STORE"] ?? "").hasPrefix("postgres") }

    private static func isPong(_ result: ServerResult) -> Bool {
        if case .pong = result { true } else { false }
    }

    private static func remembered(_ http: HTTPTestClient) throws -> Double? {
        let name = "healthstore_hellos_remembered_total "
        return try http.request("GET", "/metrics").body.split(separator: "\n").first { $0.hasPrefix(name) }.map { Double($0.dropFirst(name.count)) ?? -1 }
    }
}

import Foundation
import HealthModel
import HealthWire
import XCTest

/// ListPermissions says when each permission was last requested or decided (`healthctl authz show`).
final class PermissionTimeTests: XCTestCase {
    func testListPermissionsCarriesTheTimeOfTheLastRequestOrDecision() throws {
        let server = try ServerProcess()
        defer { withExtendedLifetime(server) {} }
        let owner = try RawClient.session(server, token: server.ownerToken)
        let app = "com.example.timed"
        let client = try RawClient.session(server, token: try owner.registerApp(app))
        let before = Time.now()
        XCTAssertEqual(client.call(.requestAuthorization(share: [Authz.steps], read: [Authz.heartRate])), .requestAuthorization)
        try owner.decide(app, [Authz.heartRate], .read, grant: true)
        let after = Time.now()
        guard case .listPermissions(let permissions)? = owner.call(.listPermissions(bundleID: app)) else {
            return XCTFail("ListPermissions failed")
        }
        XCTAssertEqual(permissions.map(\.state), [.granted, .pending])
        for permission in permissions {
            XCTAssertTrue((before...after).contains(permission.updatedTime), "\(permission.type) updated at \(permission.updatedTime)")
        }
    }
}

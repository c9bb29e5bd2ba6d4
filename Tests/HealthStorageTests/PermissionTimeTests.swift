import Foundation
import HealthModel
@testable import HealthStorage
import XCTest

/// Every permission reads back with the time of its last request or decision.
final class PermissionTimeTests: StoreTestCase {
    private let app = "com.example.app"

    private func record(_ f: StoreFixture, _ type: String, _ state: PermissionState) async throws -> ClosedRange<Microseconds> {
        let before = Time.now()
        try await f.store.setPermissions(owner: f.owner, [AuthorizationUpdate(bundleID: app, type: type, direction: .read, state: state)])
        return before...Time.now()
    }

    private func times(_ f: StoreFixture) async throws -> [String: Microseconds] {
        Dictionary(uniqueKeysWithValues: try await f.store.permissions(owner: f.owner, bundleID: app).map { ($0.type, $0.updatedTime) })
    }

    func testRequestsAndDecisionsAreStampedWithTheirTime() async throws {
        try await forEachEngine {
            let f = try await StoreFixture()
            let requested = try await record(f, StoreFixture.heartRate, .pending)
            let stepsRequested = try await record(f, StoreFixture.steps, .pending)
            var stamped = try await times(f)
            XCTAssertTrue(requested.contains(try XCTUnwrap(stamped[StoreFixture.heartRate])), "the store stamps the write, not the caller's time")
            XCTAssertTrue(stepsRequested.contains(try XCTUnwrap(stamped[StoreFixture.steps])))
            let decided = try await record(f, StoreFixture.heartRate, .denied)
            stamped = try await times(f)
            XCTAssertTrue(decided.contains(try XCTUnwrap(stamped[StoreFixture.heartRate])), "a decision restamps its permission")
            XCTAssertTrue(stepsRequested.contains(try XCTUnwrap(stamped[StoreFixture.steps])), "and leaves the others alone")
            try await f.reopen()
            try await expect(await times(f), stamped, "times are durable")
            await f.store.close()
        }
    }
}

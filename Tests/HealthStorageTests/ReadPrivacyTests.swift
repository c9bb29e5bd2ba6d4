import Foundation
import HealthModel
@testable import HealthStorage
import XCTest

/// Decision 7 at the storage layer: nothing a read-restricted caller gets back depends on data it
/// may not read.
final class ReadPrivacyTests: XCTestCase {
    func testDeletingAnotherSourcesObjectFailsLikeDeletingAnUnknownOne() async throws {
        let f = try await StoreFixture()
        let theirs = StoreFixture.heartRate(s(1))
        try await f.save([theirs], source: StoreFixture.scale)
        let app = Deleter(owner: f.owner, bundleID: StoreFixture.watch.bundleID, isOwner: false)
        var messages: [String] = []
        for uuid in [theirs.uuid, UUID()] {
            do {
                _ = try await f.store.deleteObjects(uuids: [uuid], by: app)
                XCTFail("deleting \(uuid) must fail")
            } catch let error as HealthError {
                XCTAssertEqual(error.code, .invalidArgument)
                messages.append(error.message.replacingOccurrences(of: uuid.uuidString, with: "<uuid>"))
            }
        }
        XCTAssertEqual(messages[0], messages[1])
        await f.store.close()
    }
}

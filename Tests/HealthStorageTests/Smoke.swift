import XCTest

final class HealthStorageTestsSmoke: XCTestCase {
    func testBuilds() {}
}

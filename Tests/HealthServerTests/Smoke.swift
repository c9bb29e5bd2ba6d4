import XCTest

final class HealthServerTestsSmoke: XCTestCase {
    func testBuilds() {}
}

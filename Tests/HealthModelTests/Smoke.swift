import XCTest

final class HealthModelTestsSmoke: XCTestCase {
    func testBuilds() {}
}

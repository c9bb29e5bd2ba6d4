import XCTest

final class HealthWireTestsSmoke: XCTestCase {
    func testBuilds() {}
}

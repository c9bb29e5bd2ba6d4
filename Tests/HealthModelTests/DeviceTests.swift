import HealthModel
import XCTest

/// `Device`'s `==` is written out (inlinable, so the writer compares devices in place); these keep
/// it equal to the field-by-field equality the derived one gave, and make a new field fail here
/// until `==` compares it too.
final class DeviceTests: XCTestCase {
    private func device(_ values: [String?]) -> Device {
        Device(name: values[0], manufacturer: values[1], model: values[2], hardwareVersion: values[3], firmwareVersion: values[4],
               softwareVersion: values[5], localIdentifier: values[6], udiDeviceIdentifier: values[7])
    }

    func testDevicesAreEqualWhenEveryFieldIs() {
        XCTAssertEqual(Mirror(reflecting: Device()).children.count, 8, "a field `==` does not compare")
        let values: [String?] = ["Watch", "Apple Inc.", "Watch6,1", "1.0", "10.1", "17.4", "A1B2C3D4-0000-4000-8000-000000000001", "00812345678901"]
        // Equal values in separate storage, as two decoded samples carry them.
        let copies = values.map { $0.map { String($0.utf8.map { Character(UnicodeScalar($0)) }) } }
        XCTAssertEqual(device(values), device(copies))
        XCTAssertEqual(device(values).hashValue, device(copies).hashValue)
        XCTAssertEqual(Device(), device(Array(repeating: nil, count: 8)))
        for field in values.indices {
            var other = values
            other[field] = (values[field] ?? "") + "x"
            XCTAssertNotEqual(device(values), device(other), "a device differing in field \(field)")
            other[field] = nil
            XCTAssertNotEqual(device(values), device(other), "a device missing field \(field)")
        }
    }
}

import Foundation
import HealthModel
import XCTest
@testable import AppleHealthImport

/// Attribute values kept as the bytes libxml2 read (dates, numbers, device descriptions) read the
/// same as strings, and the dates and devices taken from those bytes are what the strings gave.
final class ExportElementTests: XCTestCase {
    private let device = "&lt;&lt;HKDevice: 0x3012772a0&gt;, name:Apple Watch, manufacturer:Apple Inc., model:Watch, hardware:Watch6,7, software:10.2&gt;"

    /// The first element of an export holding `body`, as the reader hands it out.
    private func element(_ body: String) throws -> ExportElement {
        let path = try SyntheticExport.write(body, version: nil)
        let stream = try XMLElementStream(source: ByteSource.file(path), fileName: path, yieldDepth: 1)
        _ = try stream.next()  // ExportDate
        return try XCTUnwrap(try stream.next())
    }

    func testValuesKeptAsBytesReadAsTheirStrings() throws {
        let element = try element(SyntheticExport.record("HKQuantityTypeIdentifierHeartRate", value: "74.5", unit: "count/min",
                                                         start: "2024-01-01 01:01:36 +0200", device: device))
        XCTAssertEqual(element.attributes.map(\.name), ["type", "sourceName", "sourceVersion", "device", "unit", "creationDate",
                                                        "startDate", "endDate", "value"])
        XCTAssertEqual(element.attributes.map(\.value)[5...], ["2024-01-01 01:01:36 +0200", "2024-01-01 01:01:36 +0200",
                                                               "2024-01-01 01:01:36 +0200", "74.5"])
        XCTAssertEqual(element[.type], "HKQuantityTypeIdentifierHeartRate")
        XCTAssertEqual(element[.startDate], "2024-01-01 01:01:36 +0200")
        XCTAssertEqual(element[.value], "74.5")
        XCTAssertEqual(element["creationDate"], "2024-01-01 01:01:36 +0200")
        XCTAssertEqual(element[.device]?.hasPrefix("<<HKDevice: 0x3012772a0>, name:Apple Watch"), true)
        XCTAssertNil(element[.average])
        XCTAssertNil(element.withBytes(.average) { $0.count })
        XCTAssertEqual(element.withBytes(.value) { Array($0) }, Array("74.5".utf8))
        XCTAssertEqual(element.withBytes(.unit) { Array($0) }, Array("count/min".utf8))
    }

    func testDatesAndDevicesFromBytesEqualThoseFromStrings() throws {
        let element = try element(SyntheticExport.record("HKQuantityTypeIdentifierStepCount", value: "3", start: "20151107171924+0100",
                                                         end: "2015-11-07 17:20:24 -0500", device: device))
        let header = try SampleHeader(element)
        XCTAssertEqual(header.start, ExportDates.instant("20151107171924+0100"))
        XCTAssertEqual(header.startOffset, 3600)
        XCTAssertEqual(header.end, ExportDates.instant("2015-11-07 17:20:24 -0500"))
        XCTAssertEqual(header.device, DeviceDescription.parse(try XCTUnwrap(element[.device])))
        XCTAssertEqual(header.device?.hardwareVersion, "Watch6,7")
    }

    func testADescriptionDifferingAfterItsAddressIsParsedAgain() {
        let watch = DeviceDescription.parse("<<HKDevice: 0x1>, name:Apple Watch, hardware:Watch6,7, software:10.2>")
        let sameAtAnotherAddress = DeviceDescription.parse("<<HKDevice: 0x2>, name:Apple Watch, hardware:Watch6,7, software:10.2>")
        let updated = DeviceDescription.parse("<<HKDevice: 0x3>, name:Apple Watch, hardware:Watch6,7, software:10.3>")
        let shorter = DeviceDescription.parse("<<HKDevice: 0x4>, name:Apple Watch>")
        XCTAssertEqual(watch, sameAtAnotherAddress)
        XCTAssertEqual(updated?.softwareVersion, "10.3")
        XCTAssertEqual(shorter, Device(name: "Apple Watch"))
        XCTAssertEqual(DeviceDescription.parse("<<HKDevice: 0x5>>"), nil)
    }

    func testBadOrMissingDatesAreNamedWithTheirText() throws {
        for (start, reason) in [("2024-13-01 01:01:36 +0200", "startDate '2024-13-01 01:01:36 +0200' is not a date"),
                                ("", "Record has no startDate")] {
            let element = try element(SyntheticExport.record("HKQuantityTypeIdentifierStepCount", value: "3", start: start,
                                                             end: "2024-01-01 01:01:36 +0200"))
            XCTAssertThrowsError(try SampleHeader(element)) { error in
                XCTAssertEqual(error as? MappingFailure, .malformed(reason))
            }
        }
    }
}

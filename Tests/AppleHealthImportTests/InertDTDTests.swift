import Foundation
import HealthModel
import XCTest
@testable import AppleHealthImport

/// The Health app's DTD is left out of what libxml2 parses only when it cannot change what is read.
final class InertDTDTests: XCTestCase {
    private let healthAppDTD = """
        <?xml version="1.0" encoding="UTF-8"?>
        <!DOCTYPE HealthData [
        <!-- HealthKit Export Version: 11 -->
        <!ELEMENT HealthData (ExportDate,Me,(Record|Correlation)*)>
        <!ATTLIST HealthData
          locale CDATA #REQUIRED
        >
        <!ELEMENT Record ((MetadataEntry)*)>
        <!ATTLIST Record
          type          CDATA #REQUIRED
          unit          CDATA #IMPLIED
        >
        ]>
        <HealthData locale="en_US">

        """

    func testTheHealthAppsDTDBecomesItsNewlinesSoLinesKeepTheirNumbers() throws {
        let stripped = try XCTUnwrap(InertDTD.withoutDoctype(Array(healthAppDTD.utf8)))
        let text = String(decoding: stripped, as: UTF8.self)
        XCTAssertFalse(text.contains("DOCTYPE"))
        XCTAssertEqual(text.split(separator: "\n", omittingEmptySubsequences: false).count,
                       healthAppDTD.split(separator: "\n", omittingEmptySubsequences: false).count)
        XCTAssertTrue(text.hasSuffix("\n<HealthData locale=\"en_US\">\n"), text)
    }

    func testADTDThatChangesWhatIsReadIsKept() {
        for declaration in ["<!ENTITY watch \"Apple Watch\">", "<!ATTLIST Record unit CDATA \"count\">",
                            "<!ATTLIST Record type NMTOKEN #REQUIRED>", "<!ATTLIST Record type CDATA #FIXED \"x\">"] {
            let document = healthAppDTD.replacingOccurrences(of: "]>", with: declaration + "\n]>")
            XCTAssertNil(InertDTD.withoutDoctype(Array(document.utf8)), declaration)
        }
        XCTAssertNil(InertDTD.withoutDoctype(Array("<?xml version=\"1.0\"?>\n<HealthData/>".utf8)), "no DOCTYPE")
        XCTAssertNil(InertDTD.withoutDoctype(Array(healthAppDTD.utf8.prefix(200))), "the subset does not end in the prefix")
    }

    func testAnEntityTheDTDDeclaresIsStillReplaced() throws {
        let folder = try SyntheticExport.directory()
        let record = SyntheticExport.record("HKQuantityTypeIdentifierHeartRate", value: "74", unit: "count/min", source: "&watch;")
        let document = healthAppDTD.replacingOccurrences(of: "]>", with: "<!ENTITY watch \"Kim’s Apple Watch\">\n]>")
            + " <ExportDate value=\"2024-06-01 08:10:05 +0200\"/>\n\(record)\n</HealthData>\n"
        let path = folder.appendingPathComponent("export.xml").path
        try document.write(toFile: path, atomically: true, encoding: .utf8)
        let read = try SyntheticExport.read(path)
        XCTAssertEqual(read.samples.first?.sourceRevision?.source.name, "Kim’s Apple Watch", "\(read.summary)")
    }

    /// Past bad XML the importer reads the document again from mid-file: the entities the DTD declares
    /// must still be known there, before and after the bad line.
    func testSkipInvalidPastBadXMLKeepsEveryElementWhenTheDTDDeclaresEntities() throws {
        let folder = try SyntheticExport.directory()
        let records = (0..<3000).map { index in
            SyntheticExport.record("HKQuantityTypeIdentifierHeartRate", value: String(index), unit: "count/min",
                                   source: index % 3 == 0 ? "&watch;" : "Watch")
        }
        let bad = "<Record type=\"HKQuantityTypeIdentifierHeartRate\" sourceName=\"&watch;\" Withings Link=\"x\"/>"
        let document = healthAppDTD.replacingOccurrences(of: "]>", with: "<!ENTITY watch \"Kim’s Apple Watch\">\n]>")
            + " <ExportDate value=\"2024-06-01 08:10:05 +0200\"/>\n"
            + (records[..<1500] + [bad] + records[1500...]).joined(separator: "\n") + "\n</HealthData>\n"
        let path = folder.appendingPathComponent("export.xml").path
        try document.write(toFile: path, atomically: true, encoding: .utf8)
        let read = try SyntheticExport.read(path, skipInvalid: true)
        XCTAssertEqual(read.samples.map { $0.quantity?.value ?? -1 }.sorted(), (0..<3000).map(Double.init), "\(read.summary.invalid)")
        XCTAssertEqual(read.samples.filter { $0.sourceRevision?.source.name == "Kim’s Apple Watch" }.count, 1000)
        XCTAssertEqual(read.summary.invalidCount, 1, "\(read.summary.invalid)")
        XCTAssertEqual(read.summary.invalid.first?.contains("export.xml:\(17 + 1500):"), true, "\(read.summary.invalid)")
    }

    /// A DTD too long to be read ahead (the root does not start in the first 64 KB) is not put before
    /// a read again: an element there using its entity is counted as invalid with libxml2's reason,
    /// and every other element is still read.
    func testSkipInvalidCountsWhatItCannotReadAgainWithoutTheDTD() throws {
        let folder = try SyntheticExport.directory()
        let records = (0..<1600).map { index in
            SyntheticExport.record("HKQuantityTypeIdentifierHeartRate", value: String(index), unit: "count/min",
                                   source: (index < 1500 && index % 3 == 0) || index % 10 == 0 ? "&watch;" : "Watch")
        }
        let bad = "<Record type=\"HKQuantityTypeIdentifierHeartRate\" sourceName=\"Watch\" Withings Link=\"x\"/>"
        let longComment = "<!-- " + String(repeating: "x", count: 70_000) + " -->\n"
        let document = healthAppDTD.replacingOccurrences(of: "]>", with: longComment + "<!ENTITY watch \"Kim’s Apple Watch\">\n]>")
            + " <ExportDate value=\"2024-06-01 08:10:05 +0200\"/>\n"
            + (records[..<1500] + [bad] + records[1500...]).joined(separator: "\n") + "\n</HealthData>\n"
        let path = folder.appendingPathComponent("export.xml").path
        try document.write(toFile: path, atomically: true, encoding: .utf8)
        let read = try SyntheticExport.read(path, skipInvalid: true)
        let stored = read.samples.map { Int($0.quantity?.value ?? -1) }
        XCTAssertEqual(Set(stored).count, stored.count, "each stored once")
        XCTAssertEqual(stored.count + read.summary.invalidCount - 1, 1600, "every record stored or counted: \(read.summary.invalid)")
        XCTAssertTrue(Set(stored).isSuperset(of: (0..<1600).filter { $0 % 10 != 0 && ($0 >= 1500 || $0 % 3 != 0) }))
        XCTAssertGreaterThanOrEqual(read.summary.invalidCount, 11, "the bad line and the ten records after it using the entity")
        XCTAssertTrue(read.summary.invalid.dropFirst().allSatisfy { $0.contains("Entity 'watch' not defined") }, "\(read.summary.invalid)")
    }

    func testWithoutTheDTDTheSameLineIsReportedForABadElement() throws {
        let folder = try SyntheticExport.directory()
        let record = SyntheticExport.record("HKQuantityTypeIdentifierHeartRate", value: "74", unit: "count/min", source: "Watch")
        let path = folder.appendingPathComponent("export.xml").path
        try (healthAppDTD + " <ExportDate value=\"2024-06-01 08:10:05 +0200\"/>\n\(record)\n<Record bad</HealthData>\n")
            .write(toFile: path, atomically: true, encoding: .utf8)
        let read = try SyntheticExport.read(path, skipInvalid: true)
        XCTAssertEqual(read.samples.count, 1)
        XCTAssertEqual(read.summary.invalid.first?.contains("export.xml:17:"), true, "\(read.summary.invalid)")
    }
}

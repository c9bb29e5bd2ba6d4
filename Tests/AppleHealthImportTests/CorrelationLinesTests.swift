import XCTest
@testable import AppleHealthImport

/// The first pass's filter: the prologue, the correlations and the root's end, nothing else.
final class CorrelationLinesTests: XCTestCase {
    /// `text` through the filter, the underlying reads `chunk` bytes at a time.
    private func filtered(_ text: String, chunk: Int) -> String {
        var bytes = Array(text.utf8)[...]
        let document = ByteSource(totalBytes: Int64(bytes.count), read: { buffer, count in
            let n = min(count, chunk, bytes.count)
            bytes.prefix(n).withUnsafeBytes { buffer.copyMemory(from: $0.baseAddress!, byteCount: n) }
            bytes = bytes.dropFirst(n)
            return n
        }, close: {})
        let source = CorrelationLines.source(of: document)
        var out: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 5)
        while true {
            let n = buffer.withUnsafeMutableBytes { source.read(into: $0.baseAddress!, count: $0.count) }
            guard n > 0 else { break }
            out += buffer[..<n]
        }
        return String(decoding: out, as: UTF8.self)
    }

    func testOnlyThePrologueTheCorrelationsAndTheRootsEndAreKept() {
        let prologue = "<?xml version=\"1.0\"?>\n<!DOCTYPE HealthData [\n<!ATTLIST Correlation type CDATA #REQUIRED>\n]>\n<HealthData locale=\"en\">\n"
        let multiLine = " <Correlation type=\"A\">\n  <Record type=\"r\"/>\n  <MetadataEntry key=\"k\" value=\"v\"/>\n </Correlation>\n"
        let oneLine = " <Correlation type=\"B\"><Record type=\"r\"/></Correlation>\n"
        let empty = " <Correlation type=\"C\"/>\n"
        let document = prologue + " <ExportDate value=\"x\"/>\n <Record type=\"top\" value=\"" + String(repeating: "9", count: 300) + "\"/>\n"
            + multiLine + " <CorrelationLike type=\"no\"/>\n" + oneLine + " <Workout type=\"w\">\n  <WorkoutEvent type=\"e\"/>\n </Workout>\n"
            + empty + " <Record type=\"after\"/>\n</HealthData>"
        let expected = prologue + multiLine + oneLine + empty + "</HealthData>"
        for chunk in [1, 3, 7, 64, 1 << 16] {
            XCTAssertEqual(filtered(document, chunk: chunk), expected, "read \(chunk) bytes at a time")
        }
    }
}

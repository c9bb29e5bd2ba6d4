import XCTest
@testable import HealthWire

final class WireScanTests: XCTestCase {
    /// Varints of every length (1 to 10 bytes), read at once or byte by byte depending on the bytes
    /// left after them, give the value written; a truncated one, or one of more than 10 bytes, nothing.
    func testVarintsOfEveryLengthReadAsWritten() {
        var values: [UInt64] = [0, 1, 127, 128, 300, UInt64.max, UInt64(bitPattern: -5), 1_764_000_000_000_000]
        for bits in 1...64 {
            let top = bits == 64 ? UInt64.max : (1 << UInt64(bits)) - 1
            values += [top, top >> 1 | 1 << UInt64(bits - 1), 0x5555_5555_5555_5555 & top, 0xAAAA_AAAA_AAAA_AAAA & top]
        }
        var random = SystemRandomNumberGenerator()
        values += (0..<2000).map { _ in UInt64.random(in: 0...UInt64.max, using: &random) >> UInt64.random(in: 0...63, using: &random) }
        for value in values {
            let field = ProtoBytes().varint(3, value).bytes
            for padding in [0, 1, 7, 9] {
                // Another field after it, so that eight bytes or more may be left to read at once.
                let bytes = field + ProtoBytes().bytes(4, [UInt8](repeating: 0xFF, count: padding)).bytes
                bytes.withUnsafeBytes { bytes in
                    var offset = 0
                    let read = WireScan.next(bytes, &offset)
                    XCTAssertEqual(read?.tag, 3 << 3, "\(value)")
                    XCTAssertEqual(read?.number, value, "\(value) followed by \(padding) bytes")
                    XCTAssertEqual(offset, field.count, "\(value)")
                    XCTAssertEqual(WireScan.next(bytes, &offset)?.body?.count, padding)
                }
            }
            // Cut short: the varint runs off the end.
            let cut = Array(field.dropLast())
            cut.withUnsafeBytes { bytes in
                var offset = 0
                XCTAssertNil(WireScan.next(bytes, &offset), "\(value) cut")
            }
        }
        // Eleven bytes with the high bit set: no varint, whatever follows.
        let long = [3 << 3] + [UInt8](repeating: 0x80, count: 10) + [0x01] + [UInt8](repeating: 0, count: 8)
        long.withUnsafeBytes { bytes in
            var offset = 0
            XCTAssertNil(WireScan.next(bytes, &offset))
        }
    }
}

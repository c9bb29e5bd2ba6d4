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

    /// A field of each wire type reads back as written: its tag, its number (a varint's value, a
    /// fixed field's bits, a length-delimited field's length), where it ends, and a length-delimited
    /// field's body (the bytes before its end; none for the others), whatever field comes before it;
    /// a body running past the end, or a wire type protobuf-c has no use for, reads as nothing.
    func testFieldsOfEveryWireTypeReadBackWithTheirEndAndBody() {
        let payload: [UInt8] = Array(0..<200)
        let fixed32: [UInt8] = [(5 << 3) | 5, 0x78, 0x56, 0x34, 0x12]
        let fields: [(bytes: [UInt8], tag: UInt64, number: UInt64, body: [UInt8]?)] = [
            (ProtoBytes().varint(1, 1_764_000_000_000_000).bytes, 1 << 3, 1_764_000_000_000_000, nil),
            (ProtoBytes().fixed64(2, 0x0123_4567_89AB_CDEF).bytes, 2 << 3 | 1, 0x0123_4567_89AB_CDEF, nil),
            (ProtoBytes().bytes(3, payload).bytes, 3 << 3 | 2, 200, payload),
            (ProtoBytes().bytes(4, []).bytes, 4 << 3 | 2, 0, []),
            (fixed32, 5 << 3 | 5, 0x1234_5678, nil),
            (ProtoBytes().bytes(300, [7, 8, 9]).bytes, 300 << 3 | 2, 3, [7, 8, 9]),
        ]
        for (first, before) in fields.enumerated() {
            for field in fields {
                let bytes = before.bytes + field.bytes
                bytes.withUnsafeBytes { bytes in
                    var offset = 0
                    XCTAssertEqual(WireScan.next(bytes, &offset)?.end, before.bytes.count)
                    let read = WireScan.next(bytes, &offset)
                    XCTAssertEqual(read?.tag, field.tag, "after field \(first)")
                    XCTAssertEqual(read?.number, field.number, "after field \(first)")
                    XCTAssertEqual(read?.end, bytes.count)
                    XCTAssertEqual(offset, bytes.count)
                    XCTAssertEqual(read?.body.map { Array(bytes[$0]) }, field.body, "after field \(first)")
                    XCTAssertNil(WireScan.next(bytes, &offset))
                }
            }
        }
        let wrongs: [[UInt8]] = [Array(ProtoBytes().bytes(3, payload).bytes.dropLast()), [3 << 3 | 3, 0], [3 << 3 | 4], [3 << 3 | 6, 1], [3 << 3 | 7, 1]]
        for wrong in wrongs {
            wrong.withUnsafeBytes { bytes in
                var offset = 0
                XCTAssertNil(WireScan.next(bytes, &offset), "\(Array(wrong.prefix(4)))")
            }
        }
    }
}

import Foundation
import HealthModel
import XCTest
@testable import HealthWire

/// Pins the exact bytes of the frame docs/protocol.md walks through byte by byte.
final class GoldenFrameTests: XCTestCase {
    /// ClientMessage { call_id: 1, ping { payload: "hi" } }
    private let golden: [UInt8] = [
        0x00, 0x00, 0x00, 0x08, // length prefix: 8 payload bytes, big-endian
        0x08, 0x01,             // field 1 (call_id), varint: 1
        0x5a, 0x04,             // field 11 (ping), length-delimited: 4 bytes
        0x0a, 0x02, 0x68, 0x69, //   Ping field 1 (payload), length-delimited: 2 bytes "hi"
    ]

    func testPingFrameBytes() throws {
        let message = ClientMessage(callID: 1, call: .ping(Data("hi".utf8)))
        let frame = WireCodec.encodeClientFrame(message)
        let hex = frame.map { String(format: "%02x", $0) }.joined(separator: " ")
        XCTAssertEqual(frame, golden, "Ping frame is now: \(hex) — update docs/protocol.md if this change is intended")

        var decoder = FrameDecoder()
        decoder.append(contentsOf: golden)
        let payload = try XCTUnwrap(try decoder.nextFrame())
        XCTAssertEqual(try WireCodec.decodeClientMessage(payload), message)
    }
}

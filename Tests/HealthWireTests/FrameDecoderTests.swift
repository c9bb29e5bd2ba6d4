import HealthModel
import XCTest
@testable import HealthWire

/// Framing: any chunking yields the same frames; bad length prefixes fail at once.
final class FrameDecoderTests: XCTestCase {
    private let payloads: [[UInt8]] = [[1], [2, 3], Array(repeating: 0xab, count: 300), Array(0...255), [0]]

    private var stream: [UInt8] { payloads.flatMap { encodeFrame($0) } }

    private func drain(_ decoder: inout FrameDecoder) throws -> [[UInt8]] {
        var frames: [[UInt8]] = []
        while let frame = try decoder.nextFrame() { frames.append(frame) }
        return frames
    }

    func testFrameEncoderWritesBigEndianLength() {
        XCTAssertEqual(encodeFrame([9, 8]), [0, 0, 0, 2, 9, 8])
        XCTAssertEqual(encodeFrame(Array(repeating: UInt8(1), count: 0x010203)).prefix(4), [0, 1, 2, 3])
    }

    func testOneByteAtATime() throws {
        var decoder = FrameDecoder()
        var frames: [[UInt8]] = []
        for byte in stream {
            decoder.append(contentsOf: [byte])
            frames += try drain(&decoder)
        }
        XCTAssertEqual(frames, payloads)
        XCTAssertEqual(decoder.bufferedByteCount, 0)
    }

    func testFirstFrameHasItsOwnLimitAndLaterFramesTheGeneralOne() throws {
        var decoder = FrameDecoder(maxFrameBytes: 1000, maxFirstFrameBytes: 10)
        // The first frame's small limit does not apply to a large frame right behind it in the same chunk.
        let small = [UInt8](repeating: 1, count: 10), large = [UInt8](repeating: 2, count: 900)
        (encodeFrame(small) + encodeFrame(large)).withUnsafeBytes { decoder.append($0) }
        XCTAssertEqual(try drain(&decoder), [small, large])

        var stranger = FrameDecoder(maxFrameBytes: 1000, maxFirstFrameBytes: 10)
        stranger.append(contentsOf: [0, 0, 0, 11])
        XCTAssertEqual(stranger.error?.code, .frameTooLarge)
        XCTAssertEqual(stranger.error?.message, "frame length prefix is 11 bytes, above the maximum of 10 for the first frame")
        XCTAssertEqual(stranger.bufferedByteCount, 0)
    }

    func testManyFramesInOneChunk() throws {
        var decoder = FrameDecoder()
        stream.withUnsafeBytes { decoder.append($0) }
        XCTAssertEqual(try drain(&decoder), payloads)
        XCTAssertNil(try decoder.nextFrame())
    }

    func testFramesSplitAcrossChunksOfEverySize() throws {
        let bytes = stream
        for chunkSize in 1...bytes.count {
            var decoder = FrameDecoder()
            var frames: [[UInt8]] = []
            for start in stride(from: 0, to: bytes.count, by: chunkSize) {
                decoder.append(contentsOf: bytes[start..<min(start + chunkSize, bytes.count)])
                frames += try drain(&decoder)
            }
            XCTAssertEqual(frames, payloads, "chunk size \(chunkSize)")
        }
    }

    func testManyLargeFramesStayCorrectAcrossCompaction() throws {
        let big = (0..<50).map { i in [UInt8](repeating: UInt8(i), count: 10_000 + i) }
        let bytes = big.flatMap { encodeFrame($0) }
        var decoder = FrameDecoder()
        var frames: [[UInt8]] = []
        for start in stride(from: 0, to: bytes.count, by: 7_001) {
            decoder.append(contentsOf: bytes[start..<min(start + 7_001, bytes.count)])
            frames += try drain(&decoder)
        }
        XCTAssertEqual(frames, big)
    }

    func testZeroLengthIsAProtocolError() {
        var decoder = FrameDecoder()
        decoder.append(contentsOf: [0, 0, 0, 0, 1, 2, 3])
        XCTAssertThrowsError(try decoder.nextFrame()) { error in
            XCTAssertEqual((error as? HealthError)?.code, .frameTooLarge)
        }
        XCTAssertEqual(decoder.bufferedByteCount, 0, "nothing after a bad prefix is buffered")
    }

    func testOversizedLengthFailsAsSoonAsThePrefixArrives() {
        var decoder = FrameDecoder(maxFrameBytes: 100)
        decoder.append(contentsOf: [0, 0, 0])
        XCTAssertNil(try decoder.nextFrame())
        decoder.append(contentsOf: [101])
        XCTAssertThrowsError(try decoder.nextFrame()) { error in
            XCTAssertEqual((error as? HealthError)?.code, .frameTooLarge)
            XCTAssertTrue((error as? HealthError)?.message.contains("101") ?? false)
        }
        decoder.append(contentsOf: [UInt8](repeating: 1, count: 1000))
        XCTAssertEqual(decoder.bufferedByteCount, 0, "bytes after a bad prefix are dropped")
        XCTAssertNotNil(decoder.error)
    }

    func testHugeLengthPrefixIsRejectedWithoutWaiting() {
        var decoder = FrameDecoder()
        decoder.append(contentsOf: [0xff, 0xff, 0xff, 0xff])
        XCTAssertThrowsError(try decoder.nextFrame())
    }

    func testExactlyMaxIsAccepted() throws {
        var decoder = FrameDecoder(maxFrameBytes: 64)
        let payload = [UInt8](repeating: 7, count: 64)
        decoder.append(contentsOf: encodeFrame(payload))
        XCTAssertEqual(try decoder.nextFrame(), payload)
    }

    func testDefaultMaxIsTheProtocolDefault() throws {
        XCTAssertEqual(FrameDecoder().maxFrameBytes, WireLimits.defaultMaxFrameBytes)
        var decoder = FrameDecoder()
        let max = WireLimits.defaultMaxFrameBytes
        decoder.append(contentsOf: [UInt8(max >> 24), UInt8((max >> 16) & 0xff), UInt8((max >> 8) & 0xff), UInt8(max & 0xff)])
        XCTAssertNil(try decoder.nextFrame(), "exactly the maximum waits for its payload")
        var over = FrameDecoder()
        let tooBig = max + 1
        over.append(contentsOf: [UInt8(tooBig >> 24), UInt8((tooBig >> 16) & 0xff), UInt8((tooBig >> 8) & 0xff), UInt8(tooBig & 0xff)])
        XCTAssertThrowsError(try over.nextFrame())
    }

    func testFramesBeforeABadPrefixAreStillDelivered() throws {
        var decoder = FrameDecoder(maxFrameBytes: 10)
        decoder.append(contentsOf: encodeFrame([1, 2]) + encodeFrame([3]) + [0, 0, 0, 11, 9, 9])
        XCTAssertEqual(try decoder.nextFrame(), [1, 2])
        XCTAssertEqual(try decoder.nextFrame(), [3])
        XCTAssertThrowsError(try decoder.nextFrame())
        XCTAssertThrowsError(try decoder.nextFrame(), "the error is sticky")
    }
}

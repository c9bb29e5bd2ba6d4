import Foundation
import HealthModel
import HealthSimulator
import XCTest
@testable import HealthWire

/// 100k random, truncated and mutated frames through the frame decoder and both message decoders:
/// nothing crashes and every failure is a typed protocol error.
final class RandomInputTests: XCTestCase {
    /// Small valid payloads of both directions to truncate and mutate.
    private let seeds: [[UInt8]] = [
        WireCodec.encodeClientMessage(ClientMessage(callID: 1, call: .ping(Data([1, 2])))),
        WireCodec.encodeClientMessage(ClientMessage(callID: 2, call: .hello(Hello(token: "t", defaultDevice: Device(name: "d"))))),
        WireCodec.encodeClientMessage(ClientMessage(callID: 3, call: .saveObjects([Fixtures.sleep]))),
        WireCodec.encodeClientMessage(ClientMessage(callID: 4, call: .querySamples(SampleQuery(types: ["t"], predicate: .anyOf([
            .not(.metadataCompare(key: "k", .equal, .quantity(Quantity(1, "kg")))), .categoryValueIn([1]), .workout(Fixtures.uuid(1)),
        ]))))),
        WireCodec.encodeClientMessage(ClientMessage(callID: 5, call: .saveObjects([Sample(
            uuid: Fixtures.uuid(2), type: "w", start: 0, end: 1, metadata: ["k": .date(3)],
            body: .workout(Workout(activityType: 1, events: [WorkoutEvent(type: .lap, start: 0, end: 0)])))]))),
        WireCodec.encodeServerMessage(ServerMessage(callID: 6, result: .error(HealthError(.invalidArgument, "x", objectIndex: 1, field: "f")))),
        WireCodec.encodeServerMessage(ServerMessage(callID: 7, result: .statistics(Fixtures.emptyStatistics))),
        WireCodec.encodeServerMessage(ServerMessage(callID: 8, result: .saveObjects([.stored, .replaced]))),
        WireCodec.encodeServerMessage(ServerMessage(callID: 9, result: .anchored(samples: [], deleted: [DeletedObject(uuid: Fixtures.uuid(3), type: "t")],
                                                                                 newAnchor: Data([1]), initial: true))),
    ]

    private func payload(_ rng: inout SplitMix64) -> [UInt8] {
        switch rng.next() % 4 {
        case 0:
            return (0..<Int.random(in: 1...48, using: &rng)).map { _ in UInt8.random(in: 0...255, using: &rng) }
        case 1:
            let seed = seeds.randomElement(using: &rng)!
            return Array(seed.prefix(Int.random(in: 1...seed.count, using: &rng)))
        default:
            var bytes = seeds.randomElement(using: &rng)!
            for _ in 0..<Int.random(in: 1...3, using: &rng) {
                bytes[Int.random(in: 0..<bytes.count, using: &rng)] = UInt8.random(in: 0...255, using: &rng)
            }
            return bytes
        }
    }

    func testRandomTruncatedAndMutatedFrames() {
        var rng = SplitMix64(seed: 0x4845_414c_5448)
        var decoder = FrameDecoder(maxFrameBytes: 256)
        var frames = 0, decodedOK = 0, rejected = 0, protocolErrors = 0
        for _ in 0..<100_000 {
            var frame = encodeFrame(payload(&rng))
            if rng.next() % 32 == 0 {
                for i in 0..<4 { frame[i] = UInt8.random(in: 0...255, using: &rng) }
            }
            let cut = Int.random(in: 0...frame.count, using: &rng)
            decoder.append(contentsOf: frame[..<cut])
            decoder.append(contentsOf: frame[cut...])
            do throws(HealthError) {
                while let payload = try decoder.nextFrame() {
                    frames += 1
                    for asServer in [false, true] {
                        do throws(HealthError) {
                            if asServer {
                                _ = try WireCodec.decodeServerMessage(payload)
                            } else {
                                _ = try WireCodec.decodeClientMessage(payload)
                            }
                            decodedOK += 1
                        } catch {
                            XCTAssertEqual(error.code, .malformed, "\(error)")
                            rejected += 1
                        }
                    }
                }
            } catch {
                XCTAssertEqual(error.code, .frameTooLarge, "\(error)")
                protocolErrors += 1
                decoder = FrameDecoder(maxFrameBytes: 256)
            }
        }
        XCTAssertGreaterThan(frames, 90_000)
        XCTAssertGreaterThan(decodedOK, 1_000, "some mutations still decode")
        XCTAssertGreaterThan(rejected, 10_000)
        XCTAssertGreaterThan(protocolErrors, 100)
    }
}

import Foundation
import HealthModel
import XCTest
@testable import HealthWire

/// Input the encoder never produces is rejected with a typed `.malformed` error naming the field.
final class DecodingErrorTests: XCTestCase {
    private let uuid16 = [UInt8](repeating: 7, count: 16)

    private func assertMalformed(client bytes: ProtoBytes, field: String, objectIndex: Int? = nil,
                                 file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertThrowsError(try WireCodec.decodeClientMessage(bytes.bytes), file: file, line: line) { error in
            guard let error = error as? HealthError else { return XCTFail("untyped error \(error)", file: file, line: line) }
            XCTAssertEqual(error.code, .malformed, "\(error)", file: file, line: line)
            XCTAssertEqual(error.field, field, "\(error)", file: file, line: line)
            XCTAssertEqual(error.objectIndex, objectIndex, "\(error)", file: file, line: line)
        }
    }

    private func assertMalformed(server bytes: ProtoBytes, field: String, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertThrowsError(try WireCodec.decodeServerMessage(bytes.bytes), file: file, line: line) { error in
            guard let error = error as? HealthError else { return XCTFail("untyped error \(error)", file: file, line: line) }
            XCTAssertEqual(error.code, .malformed, "\(error)", file: file, line: line)
            XCTAssertEqual(error.field, field, "\(error)", file: file, line: line)
        }
    }

    /// ClientMessage { call_id: 1, save_objects { objects: [valid category sample, `sample`] } }.
    private func saving(_ sample: ProtoBytes) -> ProtoBytes {
        let valid = ProtoBytes().bytes(1, uuid16).string(2, "t").message(11, ProtoBytes().varint(1, 1))
        return ProtoBytes().varint(1, 1).message(30, ProtoBytes().message(1, valid).message(1, sample))
    }

    func testWrongUUIDLengthNamesFieldAndObject() {
        let sample = ProtoBytes().bytes(1, [1, 2, 3, 4, 5]).string(2, "t").message(11, ProtoBytes())
        assertMalformed(client: saving(sample), field: "uuid", objectIndex: 1)
        assertMalformed(client: saving(ProtoBytes().string(2, "t").message(11, ProtoBytes())), field: "uuid", objectIndex: 1)
        let seventeen = ProtoBytes().bytes(1, uuid16 + [0]).message(11, ProtoBytes())
        assertMalformed(client: saving(seventeen), field: "uuid", objectIndex: 1)
        let deleteBad = ProtoBytes().varint(1, 1).message(31, ProtoBytes().message(1, ProtoBytes().bytes(1, uuid16).bytes(1, [1])))
        assertMalformed(client: deleteBad, field: "uuids")
        let badWorkoutPredicate = ProtoBytes().varint(1, 1).message(40, ProtoBytes().message(2, ProtoBytes().message(15, ProtoBytes().bytes(1, [9]))))
        assertMalformed(client: badWorkoutPredicate, field: "predicate.workout.workout_uuid")
    }

    func testMissingOneofs() {
        assertMalformed(client: ProtoBytes().varint(1, 5), field: "call")
        assertMalformed(client: ProtoBytes(), field: "call")
        assertMalformed(client: saving(ProtoBytes().bytes(1, uuid16).string(2, "t")), field: "body", objectIndex: 1)
        assertMalformed(client: ProtoBytes().varint(1, 1).message(31, ProtoBytes()), field: "target")
        let emptyPredicate = ProtoBytes().varint(1, 1).message(40, ProtoBytes().message(2, ProtoBytes()))
        assertMalformed(client: emptyPredicate, field: "predicate")
        let metadataWithoutValue = ProtoBytes().bytes(1, uuid16).message(5, ProtoBytes().string(1, "k").message(2, ProtoBytes()))
            .message(11, ProtoBytes())
        assertMalformed(client: saving(metadataWithoutValue), field: "metadata.k", objectIndex: 1)
        assertMalformed(server: ProtoBytes().varint(1, 1).varint(2, 1), field: "result")
    }

    /// A series call whose fields stand for a oneof (the points' kind; a sample by uuid or samples by
    /// type) with two of them set, or none, breaks the contract as a missing oneof does (the fuzzer
    /// found these answered INVALID_ARGUMENT).
    func testSeriesCallsWithTwoOrNoneOfTheirAlternativesAreMalformed() {
        let insert = ProtoBytes().bytes(1, uuid16).string(2, "HKWorkoutRouteTypeIdentifier")
            .message(5, ProtoBytes().varint(1, 1)).message(6, ProtoBytes().varint(1, 1))
        assertMalformed(client: ProtoBytes().varint(1, 1).message(32, insert), field: "beats")
        let byBoth = ProtoBytes().bytes(1, uuid16).string(2, "HKQuantityTypeIdentifierHeartRate")
        assertMalformed(client: ProtoBytes().varint(1, 1).message(52, byBoth), field: "type")
        let withPredicate = ProtoBytes().bytes(1, uuid16).message(3, ProtoBytes().message(5, ProtoBytes().bytes(1, uuid16)))
        assertMalformed(client: ProtoBytes().varint(1, 1).message(52, withPredicate), field: "predicate")
        assertMalformed(client: ProtoBytes().varint(1, 1).message(52, ProtoBytes().varint(4, 10)), field: "uuid")
    }

    func testUnknownCallAndResultNumbersAreMalformed() {
        assertMalformed(client: ProtoBytes().varint(1, 1).message(99, ProtoBytes()), field: "call")
        assertMalformed(server: ProtoBytes().varint(1, 1).message(63, ProtoBytes()), field: "result")
    }

    func testMissingRequiredSubmessages() {
        let quantityWithoutValue = ProtoBytes().bytes(1, uuid16).message(10, ProtoBytes().varint(2, 3))
        assertMalformed(client: saving(quantityWithoutValue), field: "quantity.quantity", objectIndex: 1)
        let noInterval = ProtoBytes().varint(1, 1).message(43, ProtoBytes().string(1, "t"))
        assertMalformed(client: noInterval, field: "interval")
        assertMalformed(client: ProtoBytes().varint(1, 1).message(51, ProtoBytes()), field: "characteristics")
        assertMalformed(client: ProtoBytes().varint(1, 1).message(47, ProtoBytes()), field: "from_day")
        assertMalformed(server: ProtoBytes().message(42, ProtoBytes()), field: "statistics.statistics")
        assertMalformed(server: ProtoBytes().message(60, ProtoBytes().string(2, "tok")), field: "app_credential.app")
    }

    func testUnknownEnumValues() {
        let badEvent = ProtoBytes().bytes(1, uuid16).message(13, ProtoBytes().message(3, ProtoBytes().varint(1, 99)))
        assertMalformed(client: saving(badEvent), field: "workout.events.type", objectIndex: 1)
        let unspecifiedEvent = ProtoBytes().bytes(1, uuid16).message(13, ProtoBytes().message(3, ProtoBytes()))
        assertMalformed(client: saving(unspecifiedEvent), field: "workout.events.type", objectIndex: 1)
        assertMalformed(client: ProtoBytes().varint(1, 1).message(46, ProtoBytes().varint(3, 5)), field: "frequency")
        let badSort = ProtoBytes().varint(1, 1).message(40, ProtoBytes().message(3, ProtoBytes().varint(1, 4)))
        assertMalformed(client: badSort, field: "sort.key")
        let badOperator = ProtoBytes().varint(1, 1).message(40, ProtoBytes().message(2, ProtoBytes().message(16, ProtoBytes().varint(1, 7))))
        assertMalformed(client: badOperator, field: "predicate.workout_duration.comparison")
        let badMatch = ProtoBytes().varint(1, 1).message(40, ProtoBytes().message(2, ProtoBytes().message(10, ProtoBytes().string(1, "k"))))
        assertMalformed(client: badMatch, field: "predicate.metadata.match")
        let badSex = ProtoBytes().varint(1, 1).message(51, ProtoBytes().message(1, ProtoBytes().varint(1, 4)))
        assertMalformed(client: badSex, field: "characteristics.biological_sex")
        let badDirection = ProtoBytes().varint(1, 1).message(65, ProtoBytes().message(2, ProtoBytes().string(1, "t").varint(2, 3)))
        assertMalformed(client: badDirection, field: "decisions.direction")
        assertMalformed(server: ProtoBytes().message(3, ProtoBytes().varint(1, 42)), field: "error.code")
        assertMalformed(server: ProtoBytes().message(3, ProtoBytes()), field: "error.code")
        assertMalformed(server: ProtoBytes().message(10, ProtoBytes().varint(7, 9)), field: "hello.role")
        assertMalformed(server: ProtoBytes().message(30, ProtoBytes().varint(1, 0)), field: "outcomes")
        assertMalformed(server: ProtoBytes().message(13, ProtoBytes()), field: "call_ended.reason")
    }

    func testAmbiguousCategoryPredicate() {
        let both = ProtoBytes().varint(1, 1).message(40, ProtoBytes().message(2, ProtoBytes().message(12, ProtoBytes().varint(1, 5).varint(3, 1))))
        assertMalformed(client: both, field: "predicate.category_value.allowed_values")
    }

    func testDurationsMustBeInSeconds() {
        let statistics = ProtoBytes().string(1, "t").message(11, ProtoBytes().string(2, "min"))
        assertMalformed(server: ProtoBytes().message(42, ProtoBytes().message(1, statistics)), field: "statistics.duration.unit")
    }

    func testInvertedMostRecentIntervalIsRejected() {
        let statistics = ProtoBytes().string(1, "t").varint(9, 10).varint(10, 5)
        assertMalformed(server: ProtoBytes().message(42, ProtoBytes().message(1, statistics)), field: "statistics.most_recent_start_time")
    }

    func testInvalidUTF8IsRejected() {
        let badType = ProtoBytes().bytes(1, uuid16).bytes(2, [0x48, 0xff, 0xfe]).message(11, ProtoBytes())
        assertMalformed(client: saving(badType), field: "type", objectIndex: 1)
    }

    func testNestingBeyondTheLimitIsRejected() {
        var predicate = ProtoBytes().message(14, ProtoBytes())
        for _ in 0..<(WireLimits.maxNestingDepth + 5) { predicate = ProtoBytes().message(3, predicate) }
        assertMalformed(client: ProtoBytes().varint(1, 1).message(40, ProtoBytes().message(2, predicate)), field: "predicate")

        var sample = ProtoBytes().bytes(1, uuid16).message(11, ProtoBytes())
        for _ in 0..<(WireLimits.maxNestingDepth + 5) {
            sample = ProtoBytes().bytes(1, uuid16).message(12, ProtoBytes().message(1, sample))
        }
        XCTAssertThrowsError(try WireCodec.decodeClientMessage(saving(sample).bytes)) { error in
            let error = error as? HealthError
            XCTAssertEqual(error?.objectIndex, 1)
            XCTAssertTrue(error?.field?.hasSuffix("correlation.objects[0].correlation.objects") ?? false, "\(String(describing: error))")
        }
    }

    /// The refused call of a frame that decodes as a protobuf message.
    private func refusal(_ bytes: ProtoBytes, file: StaticString = #filePath, line: UInt = #line) throws -> (UInt64, HealthError?) {
        let frame = try WireCodec.decodeClientFrame(bytes.bytes)
        guard case .failure(let error) = frame.call else {
            XCTFail("the call was accepted", file: file, line: line)
            return (frame.callID, nil)
        }
        XCTAssertEqual(error.code, .malformed, file: file, line: line)
        return (frame.callID, error)
    }

    /// ClientMessage { call_id: 7, save_objects { objects: [three valid samples, `sample`] } }.
    private func savingFourth(_ sample: ProtoBytes) -> ProtoBytes {
        let valid = ProtoBytes().bytes(1, uuid16).string(2, "t").message(11, ProtoBytes().varint(1, 1))
        return ProtoBytes().varint(1, 7).message(30, ProtoBytes().message(1, valid).message(1, valid).message(1, valid).message(1, sample))
    }

    func testContractErrorsAreRefusedCallsUnderTheirCallID() throws {
        let (callID, error) = try refusal(savingFourth(ProtoBytes().bytes(1, [1, 2, 3, 4, 5]).string(2, "t").message(11, ProtoBytes())))
        XCTAssertEqual(callID, 7)
        XCTAssertEqual(error?.objectIndex, 3)
        XCTAssertEqual(error?.field, "uuid")
        XCTAssertEqual(error?.message, "objects[3].uuid must be 16 bytes, got 5")

        let noBody = try refusal(savingFourth(ProtoBytes().bytes(1, uuid16).string(2, "t"))).1
        XCTAssertEqual(noBody?.field, "body")
        XCTAssertEqual(noBody?.objectIndex, 3)
        XCTAssertTrue(noBody?.message.hasPrefix("objects[3].body is not set") ?? false, "\(String(describing: noBody))")

        let unspecified = ProtoBytes().bytes(1, uuid16).message(13, ProtoBytes().message(3, ProtoBytes()))
        XCTAssertEqual(try refusal(savingFourth(unspecified)).1?.field, "workout.events.type")

        let emptyValue = ProtoBytes().bytes(1, uuid16).message(5, ProtoBytes().string(1, "k").message(2, ProtoBytes()))
            .message(11, ProtoBytes())
        let metadata = try refusal(savingFourth(emptyValue)).1
        XCTAssertEqual(metadata?.field, "metadata.k")
        XCTAssertEqual(metadata?.message, "objects[3].metadata.k has no value set")

        let badUTF8 = try refusal(ProtoBytes().varint(1, 9).message(40, ProtoBytes().bytes(1, [0x48, 0xff])))
        XCTAssertEqual(badUTF8.0, 9)
        XCTAssertEqual(badUTF8.1?.field, "types")
    }

    func testAnEmptyUUIDIsRefusedNotInvented() throws {
        let error = try refusal(savingFourth(ProtoBytes().string(2, "t").message(11, ProtoBytes()))).1
        XCTAssertEqual(error?.message, "objects[3].uuid must be 16 bytes, got 0")
    }

    func testAnErrorInsideACorrelationNamesTheChild() throws {
        let child = ProtoBytes().bytes(1, uuid16).message(11, ProtoBytes())
        let badChild = ProtoBytes().bytes(1, [1]).message(11, ProtoBytes())
        let correlation = ProtoBytes().bytes(1, uuid16).message(12, ProtoBytes().message(1, child).message(1, badChild))
        let error = try refusal(savingFourth(correlation)).1
        XCTAssertEqual(error?.objectIndex, 3)
        XCTAssertEqual(error?.field, "correlation.objects[1].uuid")
        XCTAssertEqual(error?.message, "objects[3].correlation.objects[1].uuid must be 16 bytes, got 1")
    }

    /// protobuf-c reads strings as C strings: without the check "HeartRate\0xyz" would be "HeartRate".
    func testEmbeddedNULsAreRefusedWithTheirField() throws {
        let cut = Array("HKQuantityTypeIdentifierHeartRate".utf8) + [0] + Array("xyz".utf8)
        let type = try refusal(savingFourth(ProtoBytes().bytes(1, uuid16).bytes(2, cut).message(11, ProtoBytes())))
        XCTAssertEqual(type.0, 7)
        XCTAssertEqual(type.1?.objectIndex, 3)
        XCTAssertEqual(type.1?.field, "type")
        XCTAssertEqual(type.1?.message, "objects[3].type contains a NUL byte; strings must not contain NUL")

        let value = ProtoBytes().bytes(1, uuid16).message(11, ProtoBytes())
            .message(5, ProtoBytes().string(1, "a").message(2, ProtoBytes().string(1, "x")))
            .message(5, ProtoBytes().string(1, "b").message(2, ProtoBytes().bytes(1, [0x61, 0, 0x62])))
        let metadata = try refusal(savingFourth(value)).1
        XCTAssertEqual(metadata?.field, "metadata[1].value.string_value")

        let child = ProtoBytes().bytes(1, uuid16).bytes(2, [0x74, 0]).message(11, ProtoBytes())
        let correlation = ProtoBytes().bytes(1, uuid16).message(12, ProtoBytes().message(1, child))
        XCTAssertEqual(try refusal(savingFourth(correlation)).1?.field, "correlation.objects[0].type")

        let token = try refusal(ProtoBytes().varint(1, 1).message(10, ProtoBytes().varint(1, 1).bytes(2, [0x74, 0, 0x74])))
        XCTAssertEqual(token.1?.field, "token")
        let types = try refusal(ProtoBytes().varint(1, 4).message(40, ProtoBytes().string(1, "a").bytes(1, [0])))
        XCTAssertEqual(types.1?.field, "types[1]")

        XCTAssertThrowsError(try WireCodec.decodeServerMessage(ProtoBytes().varint(1, 1).message(46, ProtoBytes().bytes(1, [0])).bytes)) {
            XCTAssertEqual(($0 as? HealthError)?.field, "observer_event.changed_types[0]")
        }
    }

    /// The scan reads one-byte tags and lengths on a shortcut: a NUL is still found as a long
    /// string's last byte (a two-byte length), after empty strings, and in a field whose tag takes
    /// two bytes; a long string without one passes.
    func testNULsAreFoundWhateverTheLengthsAndTagsTakeOnTheWire() throws {
        let long = [UInt8](repeating: 0x61, count: 199) + [0]
        let metadata = { (value: [UInt8]) in
            ProtoBytes().bytes(1, self.uuid16).message(11, ProtoBytes())
                .message(5, ProtoBytes().string(1, "").message(2, ProtoBytes().string(1, "")))
                .message(5, ProtoBytes().string(1, "k").message(2, ProtoBytes().bytes(1, value)))
        }
        XCTAssertEqual(try refusal(savingFourth(metadata(long))).1?.field, "metadata[1].value.string_value")
        let frame = try WireCodec.decodeClientFrame(savingFourth(metadata(Array(long.dropLast()))).bytes)
        if case .failure(let error) = frame.call { XCTAssertFalse(error.message.contains("NUL"), "\(error)") }
        let types = try refusal(ProtoBytes().varint(1, 4).message(40, ProtoBytes().string(1, "").bytes(1, long)))
        XCTAssertEqual(types.1?.field, "types[1]")
    }

    /// An anchored page is decoded straight into a table that reads each device once; a NUL in
    /// the last sample's device is refused all the same, with its field.
    func testANulInAnAnchoredPageIsRefusedWithItsField() throws {
        let samples = (0..<10).map { n in
            Sample(type: "HKQuantityTypeIdentifierHeartRate", start: Int64(n), end: Int64(n),
                   device: Device(name: n == 9 ? "WatchXYZ" : "Watch"), body: .quantity(Quantity(60, "count/min"), count: 1))
        }
        var payload = WireCodec.encodeServerMessage(ServerMessage(callID: 3, result: .anchored(
            samples: SampleTable(samples), deleted: [], newAnchor: Data([1]), initial: true)))
        let marker = Array("WatchXYZ".utf8)
        let at = try XCTUnwrap((0...(payload.count - marker.count)).first { Array(payload[$0..<($0 + marker.count)]) == marker })
        payload[at + 5] = 0
        XCTAssertThrowsError(try WireCodec.decodeServerMessage(payload)) { error in
            XCTAssertEqual((error as? HealthError)?.field, "anchored.samples[9].device.name")
        }
    }

    func testOnlyUndecodableBytesFailTheWholeFrame() {
        XCTAssertThrowsError(try WireCodec.decodeClientFrame([0x0a, 0x05, 0x01])) { error in
            XCTAssertEqual((error as? HealthError)?.field, "frame")
        }
    }

    /// protobuf-c itself recurses without limit (200k nested negations, about 1 MB, overflow its
    /// stack), so nesting is rejected by the guard ("frame") before protobuf-c or the mapping run.
    func testHostileNestingIsRejectedBeforeProtobufC() {
        var predicate = ProtoBytes().message(14, ProtoBytes())
        for _ in 0..<5_000 { predicate = ProtoBytes().message(3, predicate) }
        let frame = ProtoBytes().varint(1, 1).message(40, ProtoBytes().message(2, predicate))
        assertMalformed(client: frame, field: "frame")
        var correlation = ProtoBytes()
        for _ in 0..<5_000 { correlation = ProtoBytes().message(12, ProtoBytes().message(1, correlation)) }
        assertMalformed(server: ProtoBytes().message(40, ProtoBytes().message(1, correlation)), field: "frame")
    }

    func testTruncatedProtobufNeverCrashes() throws {
        let payload = WireCodec.encodeClientMessage(ClientMessage(callID: 9, call: .saveObjects(Fixtures.allSamples)))
        var rejected = 0
        for length in 0..<payload.count {
            do throws(HealthError) {
                _ = try WireCodec.decodeClientMessage(payload[..<length])
            } catch {
                XCTAssertTrue(error.code == .malformed, "\(error)")
                rejected += 1
            }
        }
        XCTAssertGreaterThan(rejected, payload.count * 9 / 10, "nearly every truncation must be rejected")
        XCTAssertThrowsError(try WireCodec.decodeClientMessage(payload.dropLast())) { error in
            XCTAssertEqual((error as? HealthError)?.field, "frame")
        }
    }
}

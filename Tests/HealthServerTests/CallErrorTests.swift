import Foundation
import HealthModel
import HealthWire
import XCTest

/// A call that decodes as a protobuf message but breaks the contract fails alone, under its own
/// call_id: the connection, and every other call on it, carries on.
final class CallErrorTests: XCTestCase {
    private let uuid16 = [UInt8](repeating: 7, count: 16)

    /// One frame holding `message`'s bytes.
    private func frame(_ message: ProtoBytes) -> [UInt8] {
        let length = UInt32(message.bytes.count).bigEndian
        return withUnsafeBytes(of: length) { Array($0) } + message.bytes
    }

    /// SaveObjects { objects: [three well-formed samples, `bad`] } as call `callID`.
    private func saving(_ bad: ProtoBytes, callID: UInt64) -> [UInt8] {
        let wellFormed = ProtoBytes().bytes(1, uuid16).string(2, Fixtures.heartRate).message(11, ProtoBytes())
        let objects = ProtoBytes().message(1, wellFormed).message(1, wellFormed).message(1, wellFormed).message(1, bad)
        return frame(ProtoBytes().varint(1, callID).message(30, objects))
    }

    func testContractErrorsAreAnsweredUnderTheirCallIDAndTheConnectionCarriesOn() throws {
        let server = try ServerProcess()
        let client = try RawClient.session(server, token: server.ownerToken)
        let observer = client.submit(.observe(types: [Fixtures.heartRate], predicate: nil, frequency: nil))
        XCTAssertEqual(client.receive(callID: observer)?.result, .observerEvent(changedTypes: [], sequence: 0))

        let cut = Array(Fixtures.heartRate.utf8) + [0] + Array("xyz".utf8)
        let bad: [(UInt64, ProtoBytes, field: String, message: String)] = [
            (40, ProtoBytes().bytes(1, [1, 2, 3, 4, 5]).string(2, Fixtures.heartRate).message(11, ProtoBytes()),
             "uuid", "objects[3].uuid must be 16 bytes, got 5"),
            (41, ProtoBytes().string(2, Fixtures.heartRate).message(11, ProtoBytes()), "uuid", "objects[3].uuid must be 16 bytes, got 0"),
            (42, ProtoBytes().bytes(1, uuid16).string(2, Fixtures.heartRate), "body",
             "objects[3].body is not set: a sample needs a quantity, category, correlation, workout, electrocardiogram, "
                + "audiogram, state_of_mind or scored_assessment body"),
            (43, ProtoBytes().bytes(1, uuid16).bytes(2, cut).message(11, ProtoBytes()), "type",
             "objects[3].type contains a NUL byte; strings must not contain NUL"),
        ]
        var frames: [UInt8] = []
        for (callID, sample, _, _) in bad { frames += saving(sample, callID: callID) }
        // An UNSPECIFIED enum in a query, then a good call pipelined behind them all.
        frames += frame(ProtoBytes().varint(1, 44).message(40, ProtoBytes().string(1, Fixtures.heartRate).message(3, ProtoBytes())))
        let good = Fixtures.heartRateSample(61)
        frames += WireCodec.encodeClientFrame(ClientMessage(callID: 45, call: .saveObjects([good])))
        client.sendRaw(frames)

        for (callID, _, field, message) in bad {
            guard case .error(let error)? = client.receive(callID: callID)?.result else { return XCTFail("call \(callID) was not refused") }
            XCTAssertEqual(error.code, .malformed)
            XCTAssertEqual(error.objectIndex, 3)
            XCTAssertEqual(error.field, field)
            XCTAssertEqual(error.message, message)
        }
        guard case .error(let sortError)? = client.receive(callID: 44)?.result else { return XCTFail("call 44 was not refused") }
        XCTAssertEqual(sortError.field, "sort.key")
        XCTAssertEqual(client.receive(callID: 45)?.result, .saveObjects([.stored]))
        // Nothing of the refused batches was stored, and the observer saw the good save.
        let found = Fixtures.samples(of: client.collect(client.submit(.querySamples(SampleQuery(types: [Fixtures.heartRate])))))
        XCTAssertEqual(found.map(\.uuid), [good.uuid])
        guard case .observerEvent(let types, _)? = client.receive(callID: observer)?.result else { return XCTFail("the observer ended") }
        XCTAssertEqual(types, [Fixtures.heartRate])
    }

    func testOnlyUndecodableFramesCloseTheConnection() throws {
        let server = try ServerProcess()
        let client = try RawClient.session(server, token: server.ownerToken)
        client.sendRaw(frame(ProtoBytes().varint(1, 5).bytes(30, [0x0a, 0x09, 0x01])))
        let answers = try XCTUnwrap(client.messagesUntilClosed(), "an undecodable frame must close the connection")
        XCTAssertEqual(answers.first?.callID, 0)
        XCTAssertEqual(answers.first?.result.errorCode, .malformed)
    }
}

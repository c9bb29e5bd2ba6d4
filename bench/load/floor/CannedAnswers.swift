import HealthModel
import HealthWire

/// The floor's answers, packed once at start by HealthWire's encoders: each call the load generator makes
/// (its owner's and app's set-up, every device's Hello, the saves) gets the answer a healthd that accepted
/// it would give, less what varies (the server's time, a fresh token). Per frame only the call id is read
/// and written; nothing else of a call is decoded.
enum CannedAnswers {
    /// An answer's payload without its call id, by the call's field number in `ClientMessage` (an answer's
    /// result has its call's number).
    private static let byCall: [UInt64: [UInt8]] = {
        let source = Source(name: "Lean Load", bundleID: "com.bench.lean")
        let hello = HelloResult(serverVersion: "transport-floor", protocolVersion: WireLimits.protocolVersion,
                                maxFrameBytes: UInt32(WireLimits.defaultMaxFrameBytes), maxCallsInFlight: 64,
                                maxBatchObjects: 5_000, serverTime: 0, role: .app, ownerName: "floor", source: source)
        let results: [UInt64: ServerResult] = [
            10: .hello(hello),
            20: .requestAuthorization,
            30: .saveObjects([.stored]),
            60: .appCredential(app: source, token: "transport-floor"),
            65: .decideAuthorization(recorded: 1),
        ]
        return results.mapValues(payload)
    }()

    private static let unsupported = payload(.error(HealthError(.unavailable, "transport-floor answers only the load bench's calls")))

    /// `result` packed under call id 0, which proto3 leaves out: the call id written before it makes the
    /// whole answer (protobuf reads fields in any order; this is also the order packing gives).
    private static func payload(_ result: ServerResult) -> [UInt8] {
        let payload = WireCodec.encodeServerMessage(ServerMessage(callID: 0, result: result))
        precondition(payload.first != callIDTag, "a call id 0 was packed")
        return payload
    }

    private static let callIDTag: UInt8 = 1 << 3  // field 1, varint
    private static let prefixBytes = FrameEncoder.prefixBytes

    /// Answers every whole frame at the start of `bytes` into `answers`; returns how many bytes those
    /// frames took, or nil when a frame's length or head is not a client call's.
    static func answerFrames(in bytes: UnsafeRawBufferPointer, into answers: inout [UInt8]) -> Int? {
        var at = 0
        while bytes.count - at >= prefixBytes {
            let length = Int(bytes.loadUnaligned(fromByteOffset: at, as: UInt32.self).bigEndian)
            guard length > 0, length <= WireLimits.defaultMaxFrameBytes else { return nil }
            guard bytes.count - at - prefixBytes >= length else { break }
            let start = at + prefixBytes
            guard let (callID, call) = head(UnsafeRawBufferPointer(rebasing: bytes[start..<start + length])) else { return nil }
            append(callID, byCall[call] ?? unsupported, to: &answers)
            at = start + length
        }
        return at
    }

    private static func append(_ callID: UInt64, _ payload: [UInt8], to answers: inout [UInt8]) {
        let idBytes = max(1, (64 - callID.leadingZeroBitCount + 6) / 7)
        let length = 1 + idBytes + payload.count
        for shift in stride(from: 8 * (prefixBytes - 1), through: 0, by: -8) {
            answers.append(UInt8(truncatingIfNeeded: length >> shift))
        }
        answers.append(callIDTag)
        var rest = callID
        while rest >= 0x80 {
            answers.append(UInt8(truncatingIfNeeded: rest) | 0x80)
            rest >>= 7
        }
        answers.append(UInt8(rest))
        answers.append(contentsOf: payload)
    }

    /// The call id and the call's field number: protobuf packs a `ClientMessage`'s fields in number order,
    /// so `call_id` (field 1, absent when 0) comes first and the call (a field of the `call` oneof) next.
    private static func head(_ message: UnsafeRawBufferPointer) -> (callID: UInt64, call: UInt64)? {
        var at = 0
        func varint() -> UInt64? {
            var value: UInt64 = 0
            for shift in stride(from: UInt64(0), to: 64, by: 7) where at < message.count {
                let byte = message[at]
                at += 1
                value |= UInt64(byte & 0x7f) << shift
                if byte & 0x80 == 0 { return value }
            }
            return nil
        }
        guard var tag = varint() else { return nil }
        var callID: UInt64 = 0
        if tag == UInt64(callIDTag) {
            guard let id = varint(), let next = varint() else { return nil }
            (callID, tag) = (id, next)
        }
        return (callID, tag >> 3)
    }
}

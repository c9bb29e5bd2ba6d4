import CProtobufC
import Foundation
import HealthModel
import HealthProto

/// Encodes and decodes the v1 envelope messages. Decoding never trusts its input: anything that is
/// not a well-formed message of the contract is a `.malformed` `HealthError` naming the field.
/// No protobuf-c memory outlives a call: protobuf-c unpacks into a `WireArena` (its allocator), so
/// dropping the arena frees the whole unpacked tree at once — `…__free_unpacked` would only walk the
/// tree calling no-op frees, which cost 10 % of a 1000-sample decode.
public enum WireCodec {
    // MARK: Client → server

    /// Decodes one `ClientMessage` payload (no length prefix). Throws only when the bytes are not a
    /// `ClientMessage` protobuf at all (or nest too deeply); a message that decodes but breaks the
    /// contract — a missing field, a wrong UUID length, an unknown enum value, bad UTF-8, an
    /// embedded NUL — comes back as a refused call under its own `call_id`.
    public static func decodeClientFrame(_ bytes: UnsafeRawBufferPointer) throws(HealthError) -> ClientFrame {
        let nul = try WireScan.check(bytes, healthstore__v1__client_message__descriptor)
        return try WireArena.unpacking(bytes.count) { arena -> Result<ClientFrame, HealthError> in
            var allocator = arena.allocator
            guard let message = healthstore__v1__client_message__unpack(&allocator, bytes.count, bytes.baseAddress?.assumingMemoryBound(to: UInt8.self)) else {
                return .failure(unpackFailure(bytes.count, "ClientMessage"))
            }
            let call = Result { () throws(HealthError) in
                if let nul { throw nulInCall(nul) }
                return try WireDecode.clientCall(message.pointee)
            }
            return .success(ClientFrame(callID: message.pointee.call_id, call: call))
        }.get()
    }

    /// Decodes one `ClientMessage` payload (no length prefix); see `decodeClientFrame`.
    public static func decodeClientFrame(_ bytes: some Collection<UInt8>) throws(HealthError) -> ClientFrame {
        try withRawBytes(bytes) { (raw) throws(HealthError) in try decodeClientFrame(raw) }
    }

    /// Decodes one `ClientMessage` payload (no length prefix), throwing for any fault.
    public static func decodeClientMessage(_ bytes: some Collection<UInt8>) throws(HealthError) -> ClientMessage {
        let frame = try decodeClientFrame(bytes)
        return ClientMessage(callID: frame.callID, call: try frame.call.get())
    }

    /// The `ClientMessage` payload, without length prefix.
    public static func encodeClientMessage(_ message: ClientMessage) -> [UInt8] {
        pack(framed: false) { $0.clientMessage(message) }
    }

    /// The `ClientMessage` as a complete frame: length prefix and payload in one buffer.
    public static func encodeClientFrame(_ message: ClientMessage) -> [UInt8] {
        pack(framed: true) { $0.clientMessage(message) }
    }

    // MARK: Server → client

    /// Decodes one `ServerMessage` payload (no length prefix).
    public static func decodeServerMessage(_ bytes: UnsafeRawBufferPointer) throws(HealthError) -> ServerMessage {
        if let page = WireDecode.anchoredPage(bytes) { return page }
        let nul = try WireScan.check(bytes, healthstore__v1__server_message__descriptor)
        if let nul { throw nulError(WireScan.text(nul), objectIndex: nil, field: WireScan.text(nul)) }
        return try WireArena.unpacking(bytes.count) { arena -> Result<ServerMessage, HealthError> in
            var allocator = arena.allocator
            guard let message = healthstore__v1__server_message__unpack(&allocator, bytes.count, bytes.baseAddress?.assumingMemoryBound(to: UInt8.self)) else {
                return .failure(unpackFailure(bytes.count, "ServerMessage"))
            }
            return Result { () throws(HealthError) in try WireDecode.serverMessage(message.pointee) }
        }.get()
    }

    /// Decodes one `ServerMessage` payload (no length prefix).
    public static func decodeServerMessage(_ bytes: some Collection<UInt8>) throws(HealthError) -> ServerMessage {
        try withRawBytes(bytes) { (raw) throws(HealthError) in try decodeServerMessage(raw) }
    }

    /// The `ServerMessage` payload, without length prefix.
    public static func encodeServerMessage(_ message: ServerMessage) -> [UInt8] {
        pack(framed: false) { $0.serverMessage(message) }
    }

    /// The `ServerMessage` as a complete frame: length prefix and payload in one buffer.
    public static func encodeServerFrame(_ message: ServerMessage) -> [UInt8] {
        if case .saveObjects(let outcomes) = message.result, outcomes.count == 1 {
            var frame: [UInt8] = []
            withSaveAnswerFrame(callID: message.callID, more: message.more, outcomes[0]) { frame = Array($0) }
            return frame
        }
        return pack(framed: true) { $0.serverMessage(message) }
    }

    /// Runs `body` with the final answer to a SaveObjects call that saved: the bytes `encodeServerFrame`
    /// gives for that answer, made without building the `ServerMessage` first (the event loop answers
    /// every device's save with it). A one-object save's answer is made on the stack, not in an array
    /// of its own that the connection's output would copy and free. Not generic: called from the
    /// server's module, a generic one ran unspecialised (the runtime's metadata look-ups, value witnesses).
    public static func withSaveAnswerFrame(callID: UInt64, _ outcomes: [SaveOutcome], _ body: (UnsafeRawBufferPointer) -> Void) {
        guard outcomes.count == 1 else {
            return encodeServerFrame(ServerMessage(callID: callID, result: .saveObjects(outcomes))).withUnsafeBytes(body)
        }
        withSaveAnswerFrame(callID: callID, more: false, outcomes[0], body)
    }

    /// The answer to a one-object SaveObjects (what every device sends), byte for byte what packing
    /// it whole gives: protobuf-c packs the call id and `more` as a `ServerMessageHead`, then the
    /// result's bytes, packed once per outcome, follow. Fields pack in number order (`call_id` 1,
    /// `more` 2, `save_objects` 30), so the two parts side by side are the whole message's encoding.
    /// Packed whole, protobuf-c walked all of ServerMessage's fields twice (size, then bytes) for
    /// every answer: most of the answer's cost on the loop.
    private static func withSaveAnswerFrame(callID: UInt64, more: Bool, _ outcome: SaveOutcome,
                                            _ body: (UnsafeRawBufferPointer) -> Void) {
        var message = Healthstore__V1__ServerMessageHead()
        healthstore__v1__server_message_head__init(&message)
        message.call_id = callID
        message.more = more ? 1 : 0
        // Exhaustive, so an outcome added later cannot miss its bytes.
        let result = switch outcome {
        case .stored: saveResults[0]
        case .alreadyStored: saveResults[1]
        case .replaced: saveResults[2]
        case .keptExisting: saveResults[3]
        }
        withUnsafePointer(to: &message) { message in
            let head = UnsafeRawPointer(message).assumingMemoryBound(to: ProtobufCMessage.self)
            let size = protobuf_c_message_get_packed_size(head)
            let prefix = FrameEncoder.prefixBytes
            withUnsafeTemporaryAllocation(of: UInt8.self, capacity: prefix + size + result.count) { buffer in
                FrameEncoder.writePrefix(size + result.count, to: buffer.baseAddress!)
                let written = protobuf_c_message_pack(head, buffer.baseAddress! + prefix)
                precondition(written == size, "protobuf-c packed \(written) bytes, expected \(size)")
                result.withUnsafeBufferPointer { (buffer.baseAddress! + prefix + size).initialize(from: $0.baseAddress!, count: $0.count) }
                body(UnsafeRawBufferPointer(buffer))
            }
        }
    }

    /// A ServerMessage holding only `save_objects` with one outcome, for each outcome in
    /// `withSaveAnswerFrame`'s order: the part of a one-object save's answer that no call changes.
    private static let saveResults: [[UInt8]] = [SaveOutcome.stored, .alreadyStored, .replaced, .keptExisting].map { outcome in
        var outcome = Healthstore__V1__SaveOutcome(rawValue: UInt32(bitPattern: outcome.rawValue))
        var result = Healthstore__V1__SaveObjectsResult()
        healthstore__v1__save_objects_result__init(&result)
        var message = Healthstore__V1__ServerMessage()
        healthstore__v1__server_message__init(&message)
        message.result_case = HEALTHSTORE__V1__SERVER_MESSAGE__RESULT_SAVE_OBJECTS
        return withUnsafeMutablePointer(to: &outcome) { outcome in
            withUnsafeMutablePointer(to: &result) { result in
                (result.pointee.n_outcomes, result.pointee.outcomes) = (1, outcome)
                message.save_objects = result
                return withUnsafePointer(to: &message) { message in
                    packed(UnsafeRawPointer(message).assumingMemoryBound(to: ProtobufCMessage.self), framed: false)
                }
            }
        }
    }

    // MARK: Plumbing

    private static func unpackFailure(_ count: Int, _ name: String) -> HealthError {
        HealthError(.malformed, "\(count)-byte frame is not a valid \(name) protobuf", field: "frame")
    }

    /// A NUL inside a string of a call: named relative to the call, and under its object in a
    /// SaveObjects batch, like every other error about a call.
    private static func nulInCall(_ path: [WireScan.Step]) -> HealthError {
        let inCall = path.dropFirst()
        guard path.first?.name == "save_objects", let object = inCall.first, object.name == "objects", let index = object.index else {
            return nulError(WireScan.text(inCall), objectIndex: nil, field: WireScan.text(inCall))
        }
        return nulError(WireScan.text(inCall), objectIndex: index, field: WireScan.text(inCall.dropFirst()))
    }

    private static func nulError(_ location: String, objectIndex: Int?, field: String) -> HealthError {
        HealthError(.malformed, "\(location) contains a NUL byte; strings must not contain NUL", objectIndex: objectIndex, field: field)
    }

    private static func withRawBytes<R>(_ bytes: some Collection<UInt8>,
                                        _ body: (UnsafeRawBufferPointer) throws(HealthError) -> R) throws(HealthError) -> R {
        let contiguous = bytes.withContiguousStorageIfAvailable { buffer in
            Result { () throws(HealthError) in try body(UnsafeRawBufferPointer(buffer)) }
        }
        if let contiguous { return try contiguous.get() }
        return try Array(bytes).withUnsafeBytes { raw in
            Result { () throws(HealthError) in try body(raw) }
        }.get()
    }

    /// Builds the C message in an arena and packs it straight into the returned buffer, after a
    /// length prefix when `framed`.
    private static func pack<C>(framed: Bool, _ build: (WireArena) -> UnsafeMutablePointer<C>) -> [UInt8] {
        let arena = WireArena()
        return withExtendedLifetime(arena) {
            packed(UnsafeRawPointer(build(arena)).assumingMemoryBound(to: ProtobufCMessage.self), framed: framed)
        }
    }

    /// `message` packed by protobuf-c into the returned buffer, after a length prefix when `framed`.
    private static func packed(_ message: UnsafePointer<ProtobufCMessage>, framed: Bool) -> [UInt8] {
        let size = protobuf_c_message_get_packed_size(message)
        let prefix = framed ? FrameEncoder.prefixBytes : 0
        return [UInt8](unsafeUninitializedCapacity: prefix + size) { buffer, count in
            if framed { FrameEncoder.writePrefix(size, to: buffer.baseAddress!) }
            let written = protobuf_c_message_pack(message, buffer.baseAddress! + prefix)
            precondition(written == size, "protobuf-c packed \(written) bytes, expected \(size)")
            count = prefix + size
        }
    }
}

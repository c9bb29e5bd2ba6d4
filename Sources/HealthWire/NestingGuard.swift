import CProtobufC
import HealthModel

/// Rejects input whose submessages nest deeper than `WireLimits.maxMessageDepth` before protobuf-c
/// sees it. protobuf-c's unpack recurses once per nested message without any limit, so a single
/// 1 MB frame of nested predicates would overflow the stack and crash the process.
///
/// This only walks tags and lengths, guided by the generated descriptors, to find submessages;
/// decoding itself stays with protobuf-c. Anything else that is wrong with the bytes is left for
/// protobuf-c to reject.
enum NestingGuard {
    static func check(_ bytes: UnsafeRawBufferPointer, _ descriptor: ProtobufCMessageDescriptor) throws(HealthError) {
        try withUnsafePointer(to: descriptor) { (root) throws(HealthError) in try scan(bytes, root, depth: 1) }
    }

    private static func scan(_ bytes: UnsafeRawBufferPointer, _ descriptor: UnsafePointer<ProtobufCMessageDescriptor>,
                             depth: Int) throws(HealthError) {
        guard depth <= WireLimits.maxMessageDepth else {
            throw HealthError(.malformed, "messages nested deeper than \(WireLimits.maxMessageDepth) levels", field: "frame")
        }
        var offset = 0
        while offset < bytes.count {
            guard let tag = varint(bytes, &offset) else { return }
            switch tag & 7 {
            case 0:
                guard varint(bytes, &offset) != nil else { return }
            case 1:
                offset += 8
            case 5:
                offset += 4
            case 2:
                guard let length = varint(bytes, &offset), length <= UInt64(bytes.count - offset) else { return }
                let end = offset + Int(length)
                if let child = messageDescriptor(of: tag >> 3, in: descriptor) {
                    try scan(UnsafeRawBufferPointer(rebasing: bytes[offset..<end]), child, depth: depth + 1)
                }
                offset = end
            default:
                return
            }
        }
    }

    /// The descriptor of field `number` when it is a submessage field of `descriptor`.
    private static func messageDescriptor(of number: UInt64, in descriptor: UnsafePointer<ProtobufCMessageDescriptor>)
        -> UnsafePointer<ProtobufCMessageDescriptor>? {
        guard number <= UInt64(UInt32.max),
              let field = protobuf_c_message_descriptor_get_field(descriptor, UInt32(number)),
              field.pointee.type == PROTOBUF_C_TYPE_MESSAGE,
              let child = field.pointee.descriptor else { return nil }
        return child.assumingMemoryBound(to: ProtobufCMessageDescriptor.self)
    }

    /// A base-128 varint at `offset`, advancing past it; nil when truncated or longer than 10 bytes.
    private static func varint(_ bytes: UnsafeRawBufferPointer, _ offset: inout Int) -> UInt64? {
        var value: UInt64 = 0
        var shift: UInt64 = 0
        while offset < bytes.count && shift < 64 {
            let byte = bytes[offset]
            offset += 1
            value |= UInt64(byte & 0x7f) << shift
            if byte < 0x80 { return value }
            shift += 7
        }
        return nil
    }
}

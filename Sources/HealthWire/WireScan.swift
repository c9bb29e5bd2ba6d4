import CProtobufC
import Foundation
import HealthModel

/// Walks a payload's tags and lengths, guided by the generated descriptors, before protobuf-c
/// unpacks it, for two things protobuf-c cannot be trusted with:
///
/// - Nesting: protobuf-c's unpack recurses once per nested message without any limit, so a single
///   1 MB frame of nested predicates would overflow the stack and crash the process. Submessages
///   deeper than `WireLimits.maxMessageDepth` are rejected here (the whole frame).
/// - Embedded NULs: protobuf-c hands strings over as C strings, so `"HeartRate\0xyz"` would be read
///   as `"HeartRate"` and stored as something the client never sent. The lengths are gone after
///   unpacking; comparing the repacked size with the frame's would also flag legitimate
///   non-canonical encodings (explicit zeros, unpacked repeated scalars) without naming a field, so
///   the string bytes are checked here, on the wire, and the first offending field is reported.
///
/// Anything else that is wrong with the bytes is left for protobuf-c to reject.
enum WireScan {
    /// One step of a path into a message: a field name, and its position when the field repeats.
    struct Step: Sendable, Equatable {
        let name: String
        let index: Int?
    }

    /// Checks the nesting (throws for the whole frame) and returns the path of the first string
    /// field holding a NUL byte, if any. `depth` is the message's own: more than 1 for a part of a
    /// frame checked apart.
    static func check(_ bytes: UnsafeRawBufferPointer, _ descriptor: ProtobufCMessageDescriptor,
                      depth: Int = 1) throws(HealthError) -> [Step]? {
        var nul: [Step]?
        try withUnsafePointer(to: descriptor) { (root) throws(HealthError) in try scan(bytes, root, depth: depth, nul: &nul) }
        return nul
    }

    /// "objects[3].metadata[0].key" for a path.
    static func text(_ path: some Collection<Step>) -> String {
        path.map { step in step.index.map { "\(step.name)[\($0)]" } ?? step.name }.joined(separator: ".")
    }

    private static func scan(_ bytes: UnsafeRawBufferPointer, _ descriptor: UnsafePointer<ProtobufCMessageDescriptor>,
                             depth: Int, nul: inout [Step]?) throws(HealthError) {
        guard depth <= WireLimits.maxMessageDepth else {
            throw HealthError(.malformed, "messages nested deeper than \(WireLimits.maxMessageDepth) levels", field: "frame")
        }
        var offset = 0
        while true {
            let start = offset
            guard let next = next(bytes, &offset) else { break }
            guard let range = next.body, let field = field(next.tag >> 3, in: descriptor) else { continue }
            let type = field.pointee.type
            if type == PROTOBUF_C_TYPE_MESSAGE, let child = field.pointee.descriptor {
                let seenBefore = nul != nil
                let body = UnsafeRawBufferPointer(rebasing: bytes[range])
                try scan(body, child.assumingMemoryBound(to: ProtobufCMessageDescriptor.self), depth: depth + 1, nul: &nul)
                if !seenBefore, let inner = nul { nul = [step(field, tag: next.tag, at: start, in: bytes)] + inner }
            } else if type == PROTOBUF_C_TYPE_STRING, nul == nil, !range.isEmpty,
                      memchr(bytes.baseAddress! + range.lowerBound, 0, range.count) != nil {
                nul = [step(field, tag: next.tag, at: start, in: bytes)]
            }
        }
    }

    /// One field on the wire: its tag, where it ends, and its number (a varint's value, a fixed
    /// field's bits, a length-delimited field's length, its body the bytes before its end). Three
    /// plain integers, not ranges and optionals: this runs for every field of every frame, and a
    /// value of three words (and the optional's flag) comes back from `next` in registers, where
    /// one of five came back through memory and was read back at once (a store-to-load stall on
    /// every field, most of an export's decode).
    struct WireField {
        let tag: UInt64
        let number: UInt64
        let end: Int

        /// The body of a length-delimited field; nil for other fields.
        var body: Range<Int>? { tag & 7 == 2 ? end - Int(number)..<end : nil }
    }

    /// The field at `offset`, advancing past it; nil at the end or where the bytes stop making sense.
    @inline(__always)
    static func next(_ bytes: UnsafeRawBufferPointer, _ offset: inout Int) -> WireField? {
        guard offset < bytes.count, let tag = varint(bytes, &offset) else { return nil }
        let number: UInt64
        switch tag & 7 {
        case 0:
            guard let value = varint(bytes, &offset) else { return nil }
            number = value
        case 1:
            guard bytes.count - offset >= 8 else { return nil }
            number = UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
            offset += 8
        case 5:
            guard bytes.count - offset >= 4 else { return nil }
            number = UInt64(UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt32.self)))
            offset += 4
        case 2:
            guard let length = varint(bytes, &offset), length <= UInt64(bytes.count - offset) else { return nil }
            offset += Int(length)
            return WireField(tag: tag, number: length, end: offset)
        default:
            return nil
        }
        return WireField(tag: tag, number: number, end: offset)
    }

    /// The descriptor of field `number` of `descriptor`, when it has one. Most messages number their
    /// fields 1, 2, 3… and the descriptors list them by number, so the field is looked for at its
    /// number's place before protobuf-c's search: this runs for every field of every frame.
    private static func field(_ number: UInt64, in descriptor: UnsafePointer<ProtobufCMessageDescriptor>)
        -> UnsafePointer<ProtobufCFieldDescriptor>? {
        guard number <= UInt64(UInt32.max) else { return nil }
        if number >= 1, number <= UInt64(descriptor.pointee.n_fields), let fields = descriptor.pointee.fields {
            let place = fields + Int(number - 1)
            if UInt64(place.pointee.id) == number { return place }
        }
        return protobuf_c_message_descriptor_get_field(descriptor, UInt32(number))
    }

    /// The path step of `field`, met with `tag` at `start` in `bytes`; a repeated field's index
    /// counts its earlier occurrences (walked only once a NUL was found).
    private static func step(_ field: UnsafePointer<ProtobufCFieldDescriptor>, tag: UInt64, at start: Int,
                             in bytes: UnsafeRawBufferPointer) -> Step {
        let name = String(cString: field.pointee.name)
        guard field.pointee.label == PROTOBUF_C_LABEL_REPEATED else { return Step(name: name, index: nil) }
        var count = 0
        var offset = 0
        while offset < start, let earlier = next(bytes, &offset) {
            if earlier.tag == tag { count += 1 }
        }
        return Step(name: name, index: count)
    }

    /// A base-128 varint at `offset`, advancing past it; nil when truncated or longer than 10 bytes.
    @inline(__always)
    static func varint(_ bytes: UnsafeRawBufferPointer, _ offset: inout Int) -> UInt64? {
        // One byte: nearly every tag and length.
        if offset < bytes.count, case let byte = bytes[offset], byte < 0x80 {
            offset += 1
            return UInt64(byte)
        }
        // Up to eight bytes read at once where eight are left (a time's microseconds take eight): the
        // first byte without its high bit ends the varint, and the bytes' 7-bit groups are packed
        // together in three steps, instead of a round of the loop below for each byte.
        if bytes.count - offset >= 8 {
            let word = UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
            let ends = ~word & 0x8080_8080_8080_8080
            if ends != 0 {
                let length = (ends.trailingZeroBitCount + 1) / 8
                var value = (length == 8 ? word : word & ((1 &<< UInt64(length * 8)) &- 1)) & 0x7F7F_7F7F_7F7F_7F7F
                value = value & 0x007F_007F_007F_007F | (value & 0x7F00_7F00_7F00_7F00) >> 1
                value = value & 0x0000_3FFF_0000_3FFF | (value & 0x3FFF_0000_3FFF_0000) >> 2
                value = value & 0x0000_0000_0FFF_FFFF | (value & 0x0FFF_FFFF_0000_0000) >> 4
                offset += length
                return value
            }
        }
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

// Shared with HealthServerTests through a symbolic link.
/// Builds raw protobuf bytes field by field, so tests can craft messages the encoder never writes
/// (wrong UUID lengths, unknown enum values, missing oneofs).
struct ProtoBytes {
    private(set) var bytes: [UInt8] = []

    private mutating func appendVarint(_ value: UInt64) {
        var v = value
        while v >= 0x80 {
            bytes.append(UInt8(v & 0x7f) | 0x80)
            v >>= 7
        }
        bytes.append(UInt8(v))
    }

    /// A varint field (wire type 0).
    func varint(_ field: Int, _ value: UInt64) -> ProtoBytes {
        var copy = self
        copy.appendVarint(UInt64(field) << 3)
        copy.appendVarint(value)
        return copy
    }

    /// A length-delimited field (wire type 2).
    func bytes(_ field: Int, _ payload: [UInt8]) -> ProtoBytes {
        var copy = self
        copy.appendVarint(UInt64(field) << 3 | 2)
        copy.appendVarint(UInt64(payload.count))
        copy.bytes += payload
        return copy
    }

    /// A 64-bit field (wire type 1): a double's bits.
    func fixed64(_ field: Int, _ value: UInt64) -> ProtoBytes {
        var copy = self
        copy.appendVarint(UInt64(field) << 3 | 1)
        copy.bytes += withUnsafeBytes(of: value.littleEndian) { Array($0) }
        return copy
    }

    func string(_ field: Int, _ text: String) -> ProtoBytes { bytes(field, Array(text.utf8)) }

    func message(_ field: Int, _ inner: ProtoBytes) -> ProtoBytes { bytes(field, inner.bytes) }
}

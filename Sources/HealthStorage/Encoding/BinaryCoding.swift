import Foundation
import HealthModel

/// Appends a compact private binary format: varints, zigzag integers, raw doubles, length-prefixed strings.
/// Used for metadata and workout details stored as one BLOB (never parsed by SQL itself).
struct BinaryWriter {
    /// Built as bytes and made `Data` once: `Data.append` per byte and an array per string cost a
    /// metadata blob more than the row insert's share of it (every imported heart rate carries one).
    private var bytes: [UInt8] = []

    var data: Data { Data(bytes) }

    mutating func varint(_ value: UInt64) {
        var v = value
        while v >= 0x80 {
            bytes.append(UInt8(truncatingIfNeeded: v) | 0x80)
            v >>= 7
        }
        bytes.append(UInt8(v))
    }

    mutating func int(_ value: Int64) { varint(UInt64(bitPattern: (value << 1) ^ (value >> 63))) }

    mutating func byte(_ value: UInt8) { bytes.append(value) }

    mutating func double(_ value: Double) {
        withUnsafeBytes(of: value.bitPattern.littleEndian) { bytes.append(contentsOf: $0) }
    }

    mutating func string(_ value: String) {
        let utf8 = value.utf8
        varint(UInt64(utf8.count))
        bytes.append(contentsOf: utf8)
    }

    mutating func optionalString(_ value: String?) {
        if let value { byte(1); string(value) } else { byte(0) }
    }

    mutating func uuid(_ value: UUID) { bytes.append(contentsOf: value.bytes) }

    /// A length-prefixed byte string.
    mutating func lengthPrefixed(_ data: Data) {
        varint(UInt64(data.count))
        bytes.append(contentsOf: data)
    }
}

/// Reads what `BinaryWriter` wrote; any inconsistency is a corrupt store.
struct BinaryReader {
    private let bytes: [UInt8]
    private var position = 0

    init(_ data: Data) { bytes = [UInt8](data) }

    private static func corrupt() -> HealthError {
        HealthError(.internalError, "corrupt encoded value in the store")
    }

    mutating func byte() throws(HealthError) -> UInt8 {
        guard position < bytes.count else { throw Self.corrupt() }
        defer { position += 1 }
        return bytes[position]
    }

    mutating func varint() throws(HealthError) -> UInt64 {
        var result: UInt64 = 0
        var shift: UInt64 = 0
        while true {
            let b = try byte()
            result |= UInt64(b & 0x7f) << shift
            if b < 0x80 { return result }
            shift += 7
            if shift > 63 { throw Self.corrupt() }
        }
    }

    mutating func int() throws(HealthError) -> Int64 {
        let raw = try varint()
        return Int64(bitPattern: (raw >> 1) ^ (0 &- (raw & 1)))
    }

    mutating func count() throws(HealthError) -> Int {
        let n = try varint()
        guard n <= UInt64(bytes.count - position) * 8 + 8 else { throw Self.corrupt() }
        return Int(n)
    }

    mutating func double() throws(HealthError) -> Double {
        guard position + 8 <= bytes.count else { throw Self.corrupt() }
        var bits: UInt64 = 0
        for i in 0..<8 { bits |= UInt64(bytes[position + i]) << (8 * UInt64(i)) }
        position += 8
        return Double(bitPattern: bits)
    }

    mutating func string() throws(HealthError) -> String {
        let n = try count()
        guard position + n <= bytes.count else { throw Self.corrupt() }
        defer { position += n }
        return String(decoding: bytes[position..<position + n], as: UTF8.self)
    }

    mutating func lengthPrefixed() throws(HealthError) -> Data {
        let n = try count()
        guard position + n <= bytes.count else { throw Self.corrupt() }
        defer { position += n }
        return Data(bytes[position..<position + n])
    }

    mutating func optionalString() throws(HealthError) -> String? {
        try byte() == 0 ? nil : string()
    }

    mutating func uuid() throws(HealthError) -> UUID {
        guard position + 16 <= bytes.count else { throw Self.corrupt() }
        var raw: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        withUnsafeMutableBytes(of: &raw) { $0.copyBytes(from: bytes[position..<position + 16]) }
        position += 16
        return UUID(uuid: raw)
    }
}

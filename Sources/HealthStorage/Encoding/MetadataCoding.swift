import Foundation
import HealthModel

/// Metadata as one BLOB: count, then (key, tag, payload) sorted by key so equal metadata encodes to
/// equal bytes (idempotent-retry comparison and tombstone sync keys rely on that).
enum MetadataCoding {
    private enum Tag: UInt8 { case string = 1, double, int, bool, date, quantity }

    /// nil for empty metadata, so most samples store a NULL.
    static func encode(_ metadata: Metadata) -> Data? {
        guard !metadata.isEmpty else { return nil }
        var writer = BinaryWriter()
        writer.varint(UInt64(metadata.count))
        // Most metadata holds one key (an imported heart rate's motion context): nothing to sort, nor to look up again.
        if metadata.count == 1, let only = metadata.first {
            writer.string(only.key)
            encode(only.value, into: &writer)
            return writer.data
        }
        for (key, value) in metadata.sorted(by: { $0.key < $1.key }) {
            writer.string(key)
            encode(value, into: &writer)
        }
        return writer.data
    }

    static func encode(_ value: MetadataValue, into writer: inout BinaryWriter) {
        switch value {
        case .string(let s): writer.byte(Tag.string.rawValue); writer.string(s)
        case .double(let d): writer.byte(Tag.double.rawValue); writer.double(d)
        case .int(let i): writer.byte(Tag.int.rawValue); writer.int(i)
        case .bool(let b): writer.byte(Tag.bool.rawValue); writer.byte(b ? 1 : 0)
        case .date(let t): writer.byte(Tag.date.rawValue); writer.int(t)
        case .quantity(let q): writer.byte(Tag.quantity.rawValue); writer.double(q.value); writer.string(q.unit)
        }
    }

    static func decode(_ data: Data?) throws(HealthError) -> Metadata {
        guard let data, !data.isEmpty else { return [:] }
        var reader = BinaryReader(data)
        let count = try reader.count()
        var metadata = Metadata(minimumCapacity: count)
        for _ in 0..<count {
            let key = try reader.string()
            metadata[key] = try decodeValue(&reader)
        }
        return metadata
    }

    static func decodeValue(_ reader: inout BinaryReader) throws(HealthError) -> MetadataValue {
        switch Tag(rawValue: try reader.byte()) {
        case .string: return .string(try reader.string())
        case .double: return .double(try reader.double())
        case .int: return .int(try reader.int())
        case .bool: return .bool(try reader.byte() != 0)
        case .date: return .date(try reader.int())
        case .quantity:
            let value = try reader.double()
            return .quantity(Quantity(value, try reader.string()))
        case nil: throw HealthError(.internalError, "corrupt metadata value tag in the store")
        }
    }

    /// The value of one key, decoding only until it is found.
    static func value(forKey wanted: String, in data: Data) -> MetadataValue? {
        var reader = BinaryReader(data)
        guard let count = try? reader.count() else { return nil }
        for _ in 0..<count {
            guard let key = try? reader.string(), let value = try? decodeValue(&reader) else { return nil }
            if key == wanted { return value }
        }
        return nil
    }
}

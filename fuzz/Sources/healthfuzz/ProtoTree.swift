/// A protobuf message read without its schema, so mutations can change one field's value and
/// re-encode every enclosing length: the byte-level mutations alone mostly break lengths and never
/// get a well-formed message carrying INT64_MIN or NaN in the right field.
struct ProtoField {
    var number: UInt64
    var value: ProtoValue
}

/// A field value by wire type; a length-delimited value that parses completely is kept as a
/// nested message (strings sometimes do: mutating them as messages is still a fine mutation).
enum ProtoValue {
    case varint(UInt64)
    case fixed64(UInt64)
    case fixed32(UInt32)
    case bytes([UInt8])
    case message([ProtoField])
}

enum ProtoTree {
    /// The fields of `bytes`, nil when they are not a well-formed message.
    static func parse(_ bytes: ArraySlice<UInt8>, depth: Int = 0) -> [ProtoField]? {
        var fields: [ProtoField] = []
        var offset = bytes.startIndex
        while offset < bytes.endIndex {
            guard let tag = varint(bytes, &offset), tag >> 3 != 0 else { return nil }
            let value: ProtoValue
            switch tag & 7 {
            case 0:
                guard let v = varint(bytes, &offset) else { return nil }
                value = .varint(v)
            case 1:
                guard bytes.endIndex - offset >= 8 else { return nil }
                value = .fixed64(bytes[offset..<offset + 8].reversed().reduce(0) { $0 << 8 | UInt64($1) })
                offset += 8
            case 5:
                guard bytes.endIndex - offset >= 4 else { return nil }
                value = .fixed32(bytes[offset..<offset + 4].reversed().reduce(0) { $0 << 8 | UInt32($1) })
                offset += 4
            case 2:
                guard let length = varint(bytes, &offset), length <= UInt64(bytes.endIndex - offset) else { return nil }
                let body = bytes[offset..<offset + Int(length)]
                offset += Int(length)
                if depth < 40, !body.isEmpty, let nested = parse(body, depth: depth + 1) {
                    value = .message(nested)
                } else {
                    value = .bytes(Array(body))
                }
            default:
                return nil
            }
            fields.append(ProtoField(number: tag >> 3, value: value))
        }
        return fields
    }

    static func serialize(_ fields: [ProtoField]) -> [UInt8] {
        var out: [UInt8] = []
        append(fields, to: &out)
        return out
    }

    private static func append(_ fields: [ProtoField], to out: inout [UInt8]) {
        for field in fields {
            switch field.value {
            case .varint(let v):
                appendVarint(field.number << 3, to: &out)
                appendVarint(v, to: &out)
            case .fixed64(let v):
                appendVarint(field.number << 3 | 1, to: &out)
                for shift in stride(from: 0, to: 64, by: 8) { out.append(UInt8(truncatingIfNeeded: v >> UInt64(shift))) }
            case .fixed32(let v):
                appendVarint(field.number << 3 | 5, to: &out)
                for shift in stride(from: 0, to: 32, by: 8) { out.append(UInt8(truncatingIfNeeded: v >> UInt32(shift))) }
            case .bytes(let b):
                appendVarint(field.number << 3 | 2, to: &out)
                appendVarint(UInt64(b.count), to: &out)
                out.append(contentsOf: b)
            case .message(let nested):
                let body = serialize(nested)
                appendVarint(field.number << 3 | 2, to: &out)
                appendVarint(UInt64(body.count), to: &out)
                out.append(contentsOf: body)
            }
        }
    }

    static func appendVarint(_ value: UInt64, to out: inout [UInt8]) {
        var v = value
        while v >= 0x80 {
            out.append(UInt8(v & 0x7f) | 0x80)
            v >>= 7
        }
        out.append(UInt8(v))
    }

    private static func varint(_ bytes: ArraySlice<UInt8>, _ offset: inout Int) -> UInt64? {
        var result: UInt64 = 0
        var shift: UInt64 = 0
        while offset < bytes.endIndex, shift < 64 {
            let byte = bytes[offset]
            offset += 1
            result |= UInt64(byte & 0x7f) << shift
            if byte < 0x80 { return result }
            shift += 7
        }
        return nil
    }
}

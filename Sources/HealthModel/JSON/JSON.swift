import Foundation

/// A JSON value with stable output: keys sorted, integers without a fraction.
public enum JSON: Sendable, Hashable, Encodable {
    case null
    case bool(Bool)
    case int(Int64)
    case double(Double)
    case string(String)
    case array([JSON])
    case object([String: JSON])

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case .bool(let v): try container.encode(v)
        case .int(let v): try container.encode(v)
        case .double(let v): try v.isFinite ? container.encode(v) : container.encodeNil()
        case .string(let v): try container.encode(v)
        case .array(let v): try container.encode(v)
        case .object(let v): try container.encode(v)
        }
    }

    /// `.string`, or `.null` for nil.
    public static func optional(_ text: String?) -> JSON { text.map(JSON.string) ?? .null }

    /// The text: pretty-printed for documents, one line for streams (JSON Lines).
    public func text(pretty: Bool = true) -> String {
        guard pretty else {
            // Lines are written directly: exports print one per sample, where JSONEncoder's
            // per-value setup would cost more than the sample's whole trip from the server.
            var line: [UInt8] = []
            line.reserveCapacity(512)
            write(to: &line)
            return String(decoding: line, as: UTF8.self)
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes]
        return String(decoding: (try? encoder.encode(self)) ?? Data("null".utf8), as: UTF8.self)
    }

    /// Appends the one-line text, byte for byte what JSONEncoder writes with sorted keys and
    /// unescaped slashes.
    public func write(to out: inout [UInt8]) {
        switch self {
        case .null: out.append(contentsOf: "null".utf8)
        case .bool(let v): out.append(contentsOf: (v ? "true" : "false").utf8)
        case .int(let v): out.appendDecimal(v)
        case .double(let v):
            guard v.isFinite else { return out.append(contentsOf: "null".utf8) }
            // A whole number's ".0" is left out, looked for in the bytes: `String.hasSuffix` compares
            // by Unicode rules, which cost more than the number's digits (an export writes a value a line).
            var text = v.description
            text.withUTF8 { bytes in
                let whole = bytes.count >= 2 && bytes[bytes.count - 2] == UInt8(ascii: ".") && bytes[bytes.count - 1] == UInt8(ascii: "0")
                out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[..<(whole ? bytes.count - 2 : bytes.count)]))
            }
        case .string(let v): Self.write(string: v, to: &out)
        case .array(let items):
            out.append(UInt8(ascii: "["))
            for (i, item) in items.enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                item.write(to: &out)
            }
            out.append(UInt8(ascii: "]"))
        case .object(let fields):
            out.append(UInt8(ascii: "{"))
            for (i, key) in fields.keys.sorted().enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                Self.write(string: key, to: &out)
                out.append(UInt8(ascii: ":"))
                fields[key]!.write(to: &out)
            }
            out.append(UInt8(ascii: "}"))
        }
    }

    private static func write(string: String, to out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        // Most strings need no escape: copied whole instead of byte by byte.
        if !string.utf8.contains(where: { $0 < 0x20 || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") }) {
            out.append(contentsOf: string.utf8)
            return out.append(UInt8(ascii: "\""))
        }
        for byte in string.utf8 {
            switch byte {
            case UInt8(ascii: "\""): out.append(contentsOf: #"\""#.utf8)
            case UInt8(ascii: "\\"): out.append(contentsOf: #"\\"#.utf8)
            case 0x0A: out.append(contentsOf: #"\n"#.utf8)
            case 0x0D: out.append(contentsOf: #"\r"#.utf8)
            case 0x09: out.append(contentsOf: #"\t"#.utf8)
            case 0x08: out.append(contentsOf: #"\b"#.utf8)
            case 0x0C: out.append(contentsOf: #"\f"#.utf8)
            case ..<0x20:
                let hex = Array("0123456789abcdef".utf8)
                out.append(contentsOf: #"\u00"#.utf8)
                out.append(hex[Int(byte >> 4)])
                out.append(hex[Int(byte & 0xF)])
            default: out.append(byte)
            }
        }
        out.append(UInt8(ascii: "\""))
    }
}

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
            withUnsafeTemporaryAllocation(of: UInt8.self, capacity: Self.numberRoom) { text in
                out.append(contentsOf: UnsafeBufferPointer(rebasing: text[..<Self.write(number: v, to: text.baseAddress!)]))
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

    /// The most bytes `write(number:to:)` writes (`description` takes at most 24).
    static let numberRoom = 32

    /// Writes `.double(value)`'s text at `out` (room for `numberRoom` bytes) and returns its length:
    /// `value.description` without a whole number's ".0", or null when not finite.
    static func write(number value: Double, to out: UnsafeMutablePointer<UInt8>) -> Int {
        guard value.isFinite else {
            let null: StaticString = "null"
            out.update(from: null.utf8Start, count: null.utf8CodeUnitCount)
            return null.utf8CodeUnitCount
        }
        if let count = writeShort(value, to: out) { return count }
        var text = value.description
        // The ".0" looked for in the bytes: `String.hasSuffix` compares by Unicode rules.
        return text.withUTF8 { bytes in
            let whole = bytes.count >= 2 && bytes[bytes.count - 2] == UInt8(ascii: ".") && bytes[bytes.count - 1] == UInt8(ascii: "0")
            let count = whole ? bytes.count - 2 : bytes.count
            out.update(from: bytes.baseAddress!, count: count)
            return count
        }
    }

    /// `write(number:to:)` for a value of at most 15 significant digits from 0.001 to 10^15 (an
    /// export's are mostly a reading with a few decimals), nil for any other; `description`'s
    /// shortest round trip costs more than the rest of an export's line. For the least `places`
    /// whose scaled and rounded value `digits` divided back is `value` (both exact doubles, so the
    /// division rounds as reading the decimal text would), that text reads back as `value`. At most
    /// 15 significant digits, no other decimal as short does (any such one reads back unchanged when
    /// rounded to 15 digits), so it is the shortest `description` looks for; in this range
    /// `description` writes it without an exponent, and its last digit is not a 0 (one place
    /// fewer would have read back).
    private static func writeShort(_ value: Double, to out: UnsafeMutablePointer<UInt8>) -> Int? {
        let magnitude = value.magnitude
        guard magnitude == 0 || (magnitude >= 1e-3 && magnitude < 1e15) else { return nil }
        // Powers of ten are exact doubles up to 10^22; 10^18 is the most reached.
        var scale = 1.0
        var places = 0
        while true {
            let scaled = magnitude * scale
            guard scaled < 1e15 else { return nil }
            // Rounded by converting (no call to `round`): a decimal of these places that reads back
            // lies within 0.2 of `scaled`, so it is the one found.
            let digits = UInt64(scaled + 0.5)
            if Double(digits) / scale == magnitude {
                var at = out
                if value.sign == .minus {
                    at.pointee = UInt8(ascii: "-")
                    at += 1
                }
                // The whole part is `value`'s own, without a 64-bit division: `digits / 10^places` is
                // an integer (then exactly `magnitude`) or lies at least 10^-places from one, while
                // `magnitude`, its nearest double, lies within half an ulp of it, under 10^-places
                // where `digits` < 2^53; so both have the same integer part.
                let whole = UInt64(magnitude)
                let fraction = digits - whole * UInt64(scale)
                let wholeCount = whole.decimalDigitCount
                at.writeDigits(of: whole, count: wholeCount)
                at += wholeCount
                if places > 0 {
                    at.pointee = UInt8(ascii: ".")
                    (at + 1).writeDigits(of: fraction, count: places)
                    at += 1 + places
                }
                return at - out
            }
            scale *= 10
            places += 1
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

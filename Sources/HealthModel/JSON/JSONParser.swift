import Foundation

extension JSON {
    /// Parses one JSON text (a JSON Lines line). Numbers without a fraction or exponent that fit
    /// an Int64 become `.int`, all others `.double`; readers that expect a Double accept both.
    public static func parse(_ text: String) throws(HealthError) -> JSON {
        var text = text
        let parsed = text.withUTF8 { bytes -> Result<JSON, HealthError> in
            var parser = JSONParser(bytes: bytes)
            do throws(HealthError) {
                let value = try parser.value()
                parser.skipSpace()
                guard parser.at == bytes.count else { throw parser.failure("unexpected text after the value") }
                return .success(value)
            } catch {
                return .failure(error)
            }
        }
        return try parsed.get()
    }
}

/// A recursive-descent reader of one JSON text: imports parse one per line, where Foundation's
/// JSONDecoder (trying each kind of value in turn) cost more than the save itself.
private struct JSONParser {
    let bytes: UnsafeBufferPointer<UInt8>
    var at = 0
    /// Deep enough for any sample; bounds the recursion on hostile input.
    private static let maxDepth = 64
    private var depth = 0

    init(bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = bytes
    }

    func failure(_ what: String) -> HealthError {
        HealthError(.malformed, "not valid JSON: \(what) at byte \(at)")
    }

    mutating func skipSpace() {
        while at < bytes.count, bytes[at] == 0x20 || bytes[at] == 0x09 || bytes[at] == 0x0A || bytes[at] == 0x0D { at += 1 }
    }

    private mutating func expect(_ word: StaticString, _ result: JSON) throws(HealthError) -> JSON {
        let count = word.utf8CodeUnitCount
        guard at + count <= bytes.count, (0..<count).allSatisfy({ bytes[at + $0] == word.utf8Start[$0] }) else {
            throw failure("unexpected character")
        }
        at += count
        return result
    }

    mutating func value() throws(HealthError) -> JSON {
        skipSpace()
        guard at < bytes.count else { throw failure("unexpected end") }
        switch bytes[at] {
        case UInt8(ascii: "{"): return try nested { (p: inout JSONParser) throws(HealthError) in try p.object() }
        case UInt8(ascii: "["): return try nested { (p: inout JSONParser) throws(HealthError) in try p.array() }
        case UInt8(ascii: "\""): return .string(try string())
        case UInt8(ascii: "t"): return try expect("true", .bool(true))
        case UInt8(ascii: "f"): return try expect("false", .bool(false))
        case UInt8(ascii: "n"): return try expect("null", .null)
        default: return try number()
        }
    }

    private mutating func nested(_ body: (inout JSONParser) throws(HealthError) -> JSON) throws(HealthError) -> JSON {
        depth += 1
        defer { depth -= 1 }
        guard depth <= Self.maxDepth else { throw failure("nested too deeply") }
        return try body(&self)
    }

    private mutating func object() throws(HealthError) -> JSON {
        at += 1
        var fields: [String: JSON] = [:]
        skipSpace()
        if at < bytes.count, bytes[at] == UInt8(ascii: "}") { at += 1; return .object(fields) }
        while true {
            skipSpace()
            guard at < bytes.count, bytes[at] == UInt8(ascii: "\"") else { throw failure("expected a key") }
            let key = try string()
            skipSpace()
            guard at < bytes.count, bytes[at] == UInt8(ascii: ":") else { throw failure("expected ':'") }
            at += 1
            fields[key] = try value()
            skipSpace()
            guard at < bytes.count else { throw failure("unexpected end") }
            at += 1
            if bytes[at - 1] == UInt8(ascii: "}") { return .object(fields) }
            guard bytes[at - 1] == UInt8(ascii: ",") else { throw failure("expected ',' or '}'") }
        }
    }

    private mutating func array() throws(HealthError) -> JSON {
        at += 1
        var items: [JSON] = []
        skipSpace()
        if at < bytes.count, bytes[at] == UInt8(ascii: "]") { at += 1; return .array(items) }
        while true {
            items.append(try value())
            skipSpace()
            guard at < bytes.count else { throw failure("unexpected end") }
            at += 1
            if bytes[at - 1] == UInt8(ascii: "]") { return .array(items) }
            guard bytes[at - 1] == UInt8(ascii: ",") else { throw failure("expected ',' or ']'") }
        }
    }

    private mutating func string() throws(HealthError) -> String {
        at += 1
        let start = at
        // Fast path: no escapes, so the bytes are the string.
        while at < bytes.count, bytes[at] != UInt8(ascii: "\""), bytes[at] != UInt8(ascii: "\\"), bytes[at] >= 0x20 { at += 1 }
        guard at < bytes.count else { throw failure("unterminated string") }
        if bytes[at] == UInt8(ascii: "\"") {
            at += 1
            return String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<at - 1]), as: UTF8.self)
        }
        var text = Array(bytes[start..<at])
        while true {
            guard at < bytes.count else { throw failure("unterminated string") }
            let byte = bytes[at]
            at += 1
            switch byte {
            case UInt8(ascii: "\""): return String(decoding: text, as: UTF8.self)
            case ..<0x20: throw failure("control character in a string")
            case UInt8(ascii: "\\"):
                guard at < bytes.count else { throw failure("unterminated string") }
                let escaped = bytes[at]
                at += 1
                switch escaped {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): text.append(escaped)
                case UInt8(ascii: "b"): text.append(0x08)
                case UInt8(ascii: "f"): text.append(0x0C)
                case UInt8(ascii: "n"): text.append(0x0A)
                case UInt8(ascii: "r"): text.append(0x0D)
                case UInt8(ascii: "t"): text.append(0x09)
                case UInt8(ascii: "u"):
                    var scalar = try hex4()
                    if (0xD800..<0xDC00).contains(scalar) {
                        guard at + 1 < bytes.count, bytes[at] == UInt8(ascii: "\\"), bytes[at + 1] == UInt8(ascii: "u") else {
                            throw failure("unpaired surrogate")
                        }
                        at += 2
                        let low = try hex4()
                        guard (0xDC00..<0xE000).contains(low) else { throw failure("unpaired surrogate") }
                        scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                    }
                    guard let unicode = Unicode.Scalar(scalar) else { throw failure("invalid \\u escape") }
                    text.append(contentsOf: String(Character(unicode)).utf8)
                default: throw failure("invalid escape")
                }
            default: text.append(byte)
            }
        }
    }

    private mutating func hex4() throws(HealthError) -> UInt32 {
        guard at + 4 <= bytes.count else { throw failure("short \\u escape") }
        var value: UInt32 = 0
        for _ in 0..<4 {
            guard let digit = Character(Unicode.Scalar(bytes[at])).hexDigitValue else { throw failure("invalid \\u escape") }
            value = value << 4 | UInt32(digit)
            at += 1
        }
        return value
    }

    private mutating func number() throws(HealthError) -> JSON {
        let start = at
        var integral = true
        while at < bytes.count {
            let byte = bytes[at]
            if byte == UInt8(ascii: ".") || byte == UInt8(ascii: "e") || byte == UInt8(ascii: "E") {
                integral = false
            } else if !(UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) && byte != UInt8(ascii: "-") && byte != UInt8(ascii: "+") {
                break
            }
            at += 1
        }
        let token = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<at]), as: UTF8.self)
        if integral, let int = Int64(token) { return .int(int) }
        guard !token.isEmpty, token.first != "+", let double = Double(token), double.isFinite else {
            throw failure(token.isEmpty ? "unexpected character" : "invalid number '\(token)'")
        }
        return .double(double)
    }
}

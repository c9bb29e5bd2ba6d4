/// One factor of a unit string: a resolved symbol raised to an integer power.
struct UnitFactor: Sendable, Hashable {
    let symbol: UnitSymbol
    let exponent: Int
}

/// Recursive-descent parser for HealthKit's unit grammar (docs/semantics.md §5.1):
/// ```
/// unit    := product [ "/" product ]
/// product := factor { ("." | "*" | "·") factor }
/// factor  := atom [ "^" int ] | "(" product ")" [ "^" int ]
/// ```
/// Multiplication binds tighter than the single "/", so `kg/m.s^2` is `kg/(m.s^2)`.
struct UnitParser {
    /// Larger exponents are refused: no real unit needs them and they overflow scales.
    static let maximumExponent = 99

    private let text: String
    private let scalars: [Unicode.Scalar]
    private var position = 0

    private init(_ text: String) {
        self.text = text
        self.scalars = Array(text.unicodeScalars)
    }

    /// The factors of `text` in written order, exponents already signed by the "/".
    static func factors(of text: String) throws(HealthError) -> [UnitFactor] {
        var parser = UnitParser(text)
        return try parser.parseUnit()
    }

    static func error(_ text: String, _ reason: String) -> HealthError {
        HealthError.invalid("invalid unit string \"\(text)\": \(reason)", field: "unit")
    }

    private func fail(_ reason: String) -> HealthError { Self.error(text, reason) }

    private static func isMultiplication(_ c: Unicode.Scalar) -> Bool { c == "." || c == "*" || c == "·" }

    private static func endsAtom(_ c: Unicode.Scalar) -> Bool {
        isMultiplication(c) || c == "/" || c == "^" || c == "(" || c == ")"
    }

    private var current: Unicode.Scalar? { position < scalars.count ? scalars[position] : nil }

    private mutating func parseUnit() throws(HealthError) -> [UnitFactor] {
        if scalars.isEmpty { throw fail("a unit is required") }
        if scalars.contains(where: { $0.properties.isWhitespace }) { throw fail("spaces are not allowed") }
        if slashCount() > 1 { throw fail("only one \"/\" is allowed") }
        var factors = try parseProduct(sign: 1)
        if current == "/" {
            position += 1
            if current == nil { throw fail("missing unit after \"/\"") }
            factors += try parseProduct(sign: -1)
        }
        if let c = current { throw fail("unexpected \"\(c)\" at position \(position + 1)") }
        return factors
    }

    /// Slashes outside a molar mass's angle brackets.
    private func slashCount() -> Int {
        var inBrackets = false
        var count = 0
        for c in scalars {
            if c == "<" { inBrackets = true } else if c == ">" { inBrackets = false } else if c == "/" && !inBrackets { count += 1 }
        }
        return count
    }

    private mutating func parseProduct(sign: Int) throws(HealthError) -> [UnitFactor] {
        var factors = try parseFactor(sign: sign)
        while let c = current, Self.isMultiplication(c) {
            position += 1
            factors += try parseFactor(sign: sign)
        }
        return factors
    }

    private mutating func parseFactor(sign: Int) throws(HealthError) -> [UnitFactor] {
        if current == "(" {
            position += 1
            let inner = try parseProduct(sign: 1)
            if current == "/" { throw fail("\"/\" is not allowed inside parentheses") }
            guard current == ")" else { throw fail("missing \")\"") }
            position += 1
            let power = try parseExponent() * sign
            return inner.map { UnitFactor(symbol: $0.symbol, exponent: $0.exponent * power) }
        }
        let symbol = try parseAtom()
        return [UnitFactor(symbol: symbol, exponent: try parseExponent() * sign)]
    }

    private mutating func parseAtom() throws(HealthError) -> UnitSymbol {
        let start = position
        while let c = current, !Self.endsAtom(c) {
            if c == "<" {
                guard let close = scalars[position...].firstIndex(of: ">") else {
                    throw fail("missing \">\" after molar mass")
                }
                position = close
            }
            position += 1
        }
        guard position > start else {
            if let c = current { throw fail("expected a unit before \"\(c)\" at position \(position + 1)") }
            throw fail("missing unit at the end")
        }
        var atom = String.UnicodeScalarView()
        atom.append(contentsOf: scalars[start..<position])
        return try UnitSymbol.resolve(String(atom), in: text)
    }

    /// The optional `^ int` after a factor; 1 when absent.
    private mutating func parseExponent() throws(HealthError) -> Int {
        guard current == "^" else { return 1 }
        position += 1
        var digits = ""
        if current == "-" {
            digits.append("-")
            position += 1
        }
        while let c = current, c.properties.numericType == .decimal, c.isASCII {
            digits.unicodeScalars.append(c)
            position += 1
        }
        if current == ".", position + 1 < scalars.count, scalars[position + 1].properties.numericType == .decimal {
            throw fail("exponents must be integers")
        }
        guard let value = Int(digits) else { throw fail("\"^\" must be followed by an integer exponent") }
        guard abs(value) <= Self.maximumExponent else {
            throw fail("exponent \(value) is outside -\(Self.maximumExponent)…\(Self.maximumExponent)")
        }
        return value
    }
}

import Foundation

/// One unit symbol with its prefix applied, e.g. "mL", "kcal" or "mmol<180.15588000005408>".
struct UnitSymbol: Sendable, Hashable {
    /// Canonical spelling (aliases such as "l" are written as "L").
    let text: String
    let definition: UnitDefinition

    /// Resolves one atom of `unitString` the way HealthKit's tables do (docs/semantics.md §5.1): a whole
    /// non-SI token first (so "min", "mi", "mmHg", "cmAq", "kcal", "d" are never split), then a bare
    /// prefixable unit, then `[prefix]mol<M>`, then prefix + prefixable unit ("mm", "ms", "mcg", "dL").
    static func resolve(_ atom: String, in unitString: String) throws(HealthError) -> UnitSymbol {
        if let definition = UnitTables.nonSI[atom] { return UnitSymbol(text: atom, definition: definition) }
        if let symbol = prefixable(atom, prefix: "") { return symbol }
        if let range = atom.range(of: "mol") {
            return try molar(prefix: String(atom[..<range.lowerBound]), rest: String(atom[range.upperBound...]),
                             atom: atom, in: unitString)
        }
        var prefixedNonSI: (prefix: String, unit: String)?
        for prefix in UnitTables.prefixes.keys where atom.hasPrefix(prefix) {
            let rest = String(atom.dropFirst(prefix.count))
            if let symbol = prefixable(rest, prefix: prefix) { return symbol }
            if UnitTables.nonSI[rest] != nil { prefixedNonSI = (prefix, rest) }
        }
        if let (prefix, unit) = prefixedNonSI {
            throw UnitParser.error(unitString, "prefix \"\(prefix)\" cannot be applied to non-SI unit \"\(unit)\"")
        }
        if let first = atom.unicodeScalars.first, ["u", "µ", "μ"].contains(first),
           prefixable(String(atom.unicodeScalars.dropFirst()), prefix: "mc") != nil {
            throw UnitParser.error(unitString, "unknown unit \"\(atom)\" (micro is written \"mc\", e.g. \"mcg\")")
        }
        throw UnitParser.error(unitString, "unknown unit \"\(atom)\"")
    }

    private static func prefixable(_ name: String, prefix: String) -> UnitSymbol? {
        let canonical = UnitTables.prefixableAliases[name] ?? name
        guard let base = UnitTables.prefixable[canonical] else { return nil }
        let factor = prefix.isEmpty ? 1 : UnitTables.prefixes[prefix]!
        return UnitSymbol(text: prefix + canonical,
                          definition: UnitDefinition(factor * base.scale, base.dimension))
    }

    /// `[prefix]mol<M>`: a mole of a substance of molar mass M g/mol, which is M grams.
    private static func molar(prefix: String, rest: String, atom: String,
                              in unitString: String) throws(HealthError) -> UnitSymbol {
        guard prefix.isEmpty || UnitTables.prefixes[prefix] != nil else {
            throw UnitParser.error(unitString, "invalid prefix \"\(prefix)\" in \"\(atom)\"")
        }
        guard rest.hasPrefix("<"), rest.hasSuffix(">"), rest.count >= 2 else {
            throw UnitParser.error(unitString, "\"mol\" needs a molar mass in g/mol, e.g. \"mmol<180.15588000005408>\"")
        }
        let number = rest.dropFirst().dropLast()
        guard !number.isEmpty, number.allSatisfy({ $0.isASCII && ($0.isNumber || "+-.eE".contains($0)) }),
              let molarMass = Double(number), molarMass.isFinite, molarMass > 0 else {
            throw UnitParser.error(unitString, "molar mass \"\(number)\" must be a positive number of g/mol")
        }
        let factor = prefix.isEmpty ? 1 : UnitTables.prefixes[prefix]!
        return UnitSymbol(text: "\(prefix)mol<\(format(molarMass))>",
                          definition: UnitDefinition(factor * molarMass, UnitTables.mass))
    }

    /// Shortest text that parses back to the same Double, without a redundant ".0".
    private static func format(_ value: Double) -> String {
        let text = value.description
        return text.hasSuffix(".0") ? String(text.dropLast(2)) : text
    }
}

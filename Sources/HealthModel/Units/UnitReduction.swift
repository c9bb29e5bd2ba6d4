import Foundation

extension HealthUnit {
    /// Reduces parsed factors to canonical form: equal symbols merged, sorted by symbol, so the scale is
    /// always multiplied in the same order and parse(unitString) reproduces this unit bit for bit.
    init(factors: [UnitFactor], source: String) throws(HealthError) {
        var exponents: [UnitSymbol: Int] = [:]
        for factor in factors { exponents[factor.symbol, default: 0] += factor.exponent }
        let merged = exponents.map { UnitFactor(symbol: $0.key, exponent: $0.value) }
            .sorted { $0.symbol.text < $1.symbol.text }

        var scale = 1.0
        var dimension = UnitDimension.dimensionless
        for factor in merged {
            scale *= pow(factor.symbol.definition.scale, Double(factor.exponent))
            dimension = dimension * factor.symbol.definition.dimension.raised(to: factor.exponent)
        }
        guard scale.isFinite, scale > 0 else { throw UnitParser.error(source, "the unit's size is out of range") }

        let single = merged.count == 1 && merged[0].exponent == 1 ? merged[0].symbol.definition : nil
        if merged.contains(where: { $0.symbol.definition.isLogarithmic }) && single == nil {
            throw UnitParser.error(source, "dBASPL is a logarithmic level and cannot be combined with other units or powers")
        }
        self.unitString = Self.canonicalString(merged)
        self.scale = scale
        self.offset = single?.offset ?? 0
        self.dimension = dimension
        self.isLogarithmic = single?.isLogarithmic ?? false
    }

    /// "num/den" with positive exponents; several denominator factors are parenthesised; a factor whose
    /// exponents cancelled stays on both sides ("m.s/m") so the string keeps describing the same unit.
    private static func canonicalString(_ factors: [UnitFactor]) -> String {
        func term(_ symbol: UnitSymbol, _ power: Int) -> String { power == 1 ? symbol.text : "\(symbol.text)^\(power)" }
        let numerator = factors.filter { $0.exponent >= 0 }.map { term($0.symbol, max($0.exponent, 1)) }
        let denominator = factors.filter { $0.exponent <= 0 }.map { term($0.symbol, max(-$0.exponent, 1)) }
        if denominator.isEmpty { return numerator.joined(separator: ".") }
        if numerator.isEmpty { return factors.map { term($0.symbol, $0.exponent) }.joined(separator: ".") }
        let below = denominator.count == 1 ? denominator[0] : "(\(denominator.joined(separator: ".")))"
        return numerator.joined(separator: ".") + "/" + below
    }
}

import Foundation

/// A parsed HealthKit unit (HKUnit), reduced to a scale, an offset and an exponent map over base
/// dimensions (docs/semantics.md §5). Two units are equal when their canonical strings are equal.
public struct HealthUnit: Sendable, Hashable, CustomStringConvertible {
    /// Canonical unit string: factors merged and sorted, "l" written "L"; parse(unitString) == self.
    public let unitString: String
    /// Base units (g, m, s, K, A, rad, and one of each HealthKit scalar) per one of this unit.
    public let scale: Double
    /// Affine offset in this unit's own terms (base = (value + offset) × scale); non-zero only for
    /// degC and degF standing alone — inside compound units only the scale applies.
    public let offset: Double
    /// The exponent map that decides compatibility.
    public let dimension: UnitDimension
    /// True for dBASPL, a logarithmic sound pressure level.
    public let isLogarithmic: Bool

    /// Parses a HealthKit unit string. Results are cached, so hot paths never reparse a string.
    public static func parse(_ string: String) throws(HealthError) -> HealthUnit {
        if let cached = UnitCache.shared.unit(for: string) { return cached }
        let unit = try HealthUnit(factors: UnitParser.factors(of: string), source: string)
        UnitCache.shared.store(unit, for: string)
        return unit
    }

    /// True when both measure the same dimension (same exponent map; count and % differ).
    public func isCompatible(with other: HealthUnit) -> Bool { dimension == other.dimension }

    /// True when every dimension cancels, e.g. "dL/L" (HKUnit.isNull()).
    public var isNull: Bool { dimension.isNull }

    /// Converts a value in this unit to `target`. degC/degF convert affinely; dBASPL converts to a
    /// linear pressure unit through Pa = 10^(dB/20) × 2e-5 and back through 20·log10(Pa / 2e-5).
    public func convert(_ value: Double, to target: HealthUnit) throws(HealthError) -> Double {
        guard isCompatible(with: target) else {
            throw HealthError.invalid("unit \"\(unitString)\" (\(dimension)) is not compatible with \"\(target.unitString)\" (\(target.dimension))",
                                      field: "unit")
        }
        if self == target { return value }
        switch (isLogarithmic, target.isLogarithmic) {
        case (true, true):
            return value
        case (true, false):
            let pascals = pow(10, value / 20) * UnitTables.soundPressureReference
            return pascals * UnitTables.pascal / target.scale
        case (false, true):
            let pascals = value * scale / UnitTables.pascal
            guard pascals > 0 else {
                throw HealthError.invalid("pressure \(value) \(unitString) has no level in dBASPL: it must be positive",
                                          field: "unit")
            }
            return 20 * log10(pascals / UnitTables.soundPressureReference)
        case (false, false):
            if offset == 0 && target.offset == 0 { return value * (scale / target.scale) }
            return (value + offset) * scale / target.scale - target.offset
        }
    }

    public var description: String { unitString }

    public static func == (lhs: HealthUnit, rhs: HealthUnit) -> Bool { lhs.unitString == rhs.unitString }

    public func hash(into hasher: inout Hasher) { hasher.combine(unitString) }
}

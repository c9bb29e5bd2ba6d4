/// A parsed HealthKit unit (HKUnit).
/// PLACEHOLDER: the units work replaces this with the full grammar of SEMANTICS §5.
public struct HealthUnit: Sendable, Hashable {
    /// Canonical unit string (HKUnit.unitString).
    public let unitString: String

    /// Parses a HealthKit unit string; cached.
    public static func parse(_ string: String) throws(HealthError) -> HealthUnit {
        guard !string.isEmpty else { throw HealthError.invalid("empty unit string", field: "unit") }
        return HealthUnit(unitString: string)
    }

    /// True when both measure the same dimension (same exponent map; count and % differ).
    public func isCompatible(with other: HealthUnit) -> Bool { unitString == other.unitString }

    /// Converts a value in this unit to `target`.
    public func convert(_ value: Double, to target: HealthUnit) throws(HealthError) -> Double {
        guard isCompatible(with: target) else {
            throw HealthError.invalid("unit '\(unitString)' is not compatible with '\(target.unitString)'", field: "unit")
        }
        return value
    }
}

extension Quantity {
    /// This quantity's value expressed in `unit`.
    public func value(in unit: String) throws(HealthError) -> Double {
        try HealthUnit.parse(self.unit).convert(value, to: HealthUnit.parse(unit))
    }

    /// This quantity converted to `unit`.
    public func converted(to unit: String) throws(HealthError) -> Quantity {
        Quantity(try value(in: unit), unit)
    }

    /// True when the unit is compatible with `unit`.
    public func isCompatible(with unit: String) -> Bool {
        guard let a = try? HealthUnit.parse(self.unit), let b = try? HealthUnit.parse(unit) else { return false }
        return a.isCompatible(with: b)
    }
}

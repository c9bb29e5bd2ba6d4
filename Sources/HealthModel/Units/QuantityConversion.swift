extension Quantity {
    /// This quantity's value expressed in `unit`.
    public func value(in unit: String) throws(HealthError) -> Double {
        try value(in: HealthUnit.parse(unit))
    }

    /// This quantity's value expressed in `unit`, already parsed (a type's canonical `HealthType.unit`).
    public func value(in unit: HealthUnit) throws(HealthError) -> Double {
        try HealthUnit.parse(self.unit).convert(value, to: unit)
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

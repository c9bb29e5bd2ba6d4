/// Rules for quantity samples (docs/semantics.md §1.4, §8.1 item 6): a compatible unit, a positive count,
/// and a finite value inside the type's range (`HealthType.valueRange`).
enum QuantityRules {
    static func check(_ quantity: Quantity, count: Int64, type: HealthType, path: FieldPath) throws(HealthError) {
        guard let canonical = type.canonicalUnit else {
            throw path.invalid("type", "Data type \(type.identifier) has no canonical unit")
        }
        try checkFinite(quantity.value, field: "quantity.value", path: path)
        let unit = try Self.unit(of: quantity, for: type, canonical: canonical, subject: "HKQuantitySample \(type.identifier)",
                                 field: "quantity.unit", path: path)
        if count <= 0 {
            throw path.invalid("count", "HKQuantitySample \(type.identifier) count must be greater than 0; got \(count)")
        }
        try checkRange(quantity.value, in: unit, type: type, field: "quantity.value", path: path)
    }

    /// `quantity`'s unit, parsed once for the compatibility and range checks, when it measures the
    /// dimension of `type` (whose unit is `canonical`); `subject` names what requires it in the error,
    /// and is built only for the error (every saved quantity passes here).
    static func unit(of quantity: Quantity, for type: HealthType, canonical: String, subject: @autoclosure () -> String,
                     field: String, path: FieldPath) throws(HealthError) -> HealthUnit {
        // Most quantities come in the type's own unit, parsed with the type: no cache look-up.
        if quantity.unit == canonical, let unit = type.unit { return unit }
        // Or in the unit people read, parsed with the type too (heart rate per minute, what devices send).
        if let display = type.parsedDisplayUnit, quantity.unit == type.displayUnit { return display }
        let unit = try parsed(quantity.unit, field: field, path: path)
        guard let target = type.unit, unit.isCompatible(with: target) else {
            throw path.invalid(field, "\(subject()) requires unit of type \(canonical). Incompatible unit: \(quantity.unit)")
        }
        return unit
    }

    /// Throws unless `amount` (in `unit`, compatible with the type's) lies in the type's value range;
    /// `lowerBoundOnly` checks just the minimum (a workout's total may exceed what one sample holds).
    static func checkRange(_ amount: Double, in unit: HealthUnit, type: HealthType, lowerBoundOnly: Bool = false,
                           field: String, path: FieldPath) throws(HealthError) {
        guard let range = type.valueRange, let canonical = type.canonicalUnit, let target = type.unit else { return }
        let value: Double
        do {
            value = try unit.convert(amount, to: target)
        } catch {
            throw path.invalid(field, error.message)
        }
        guard value >= range.lowerBound, lowerBoundOnly || value <= range.upperBound else {
            throw path.invalid(field, "\(type.identifier) requires a value between \(plain(range.lowerBound)) and "
                + "\(plain(range.upperBound)) \(canonical); got \(plain(value)) \(canonical)")
        }
    }

    /// A bound as people write it: 10, not 10.0.
    private static func plain(_ value: Double) -> String {
        if let whole = Int64(exactly: value) { return "\(whole)" }
        return "\(value)"
    }

    /// docs/semantics.md decision 8: NaN and infinities are never stored.
    static func checkFinite(_ value: Double, field: String, path: FieldPath) throws(HealthError) {
        if !value.isFinite {
            throw path.invalid(field, "\(path(field)) must be a finite number; got \(value)")
        }
    }

    /// True when `unit` parses and measures the same dimension as `reference`; a unit that does not
    /// parse is reported with the parser's message under `field`.
    static func isCompatible(_ unit: String, with reference: String, field: String, path: FieldPath) throws(HealthError) -> Bool {
        let parsed = try parsed(unit, field: field, path: path)
        guard let target = try? HealthUnit.parse(reference) else { return false }
        return parsed.isCompatible(with: target)
    }

    private static func parsed(_ unit: String, field: String, path: FieldPath) throws(HealthError) -> HealthUnit {
        do {
            return try HealthUnit.parse(unit)
        } catch {
            throw path.invalid(field, "Invalid unit '\(unit)': \(error.message)")
        }
    }
}

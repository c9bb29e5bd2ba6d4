/// Rules for quantity samples (SEMANTICS §1.4, §8.1 item 6, decision 8).
enum QuantityRules {
    /// The unit HealthKit's effort-score types use; its values must lie in 0…10.
    static let effortScoreUnit = "appleEffortScore"

    static func check(_ quantity: Quantity, count: Int64, type: HealthType, path: FieldPath) throws(HealthError) {
        guard let canonical = type.canonicalUnit else {
            throw path.invalid("type", "Data type \(type.identifier) has no canonical unit")
        }
        try checkFinite(quantity.value, field: "quantity.value", path: path)
        guard try isCompatible(quantity.unit, with: canonical, field: "quantity.unit", path: path) else {
            throw path.invalid("quantity.unit", "HKQuantitySample \(type.identifier) requires unit of type \(canonical). "
                + "Incompatible unit: \(quantity.unit)")
        }
        if count <= 0 {
            throw path.invalid("count", "HKQuantitySample \(type.identifier) count must be greater than 0; got \(count)")
        }
        if canonical == effortScoreUnit {
            let score = try convert(quantity, to: canonical, field: "quantity.value", path: path)
            if !(0...10).contains(score) {
                throw path.invalid("quantity.value", "\(type.identifier) requires a value between 0 and 10; got \(score)")
            }
        }
    }

    /// Decision 8: NaN and infinities are never stored.
    static func checkFinite(_ value: Double, field: String, path: FieldPath) throws(HealthError) {
        if !value.isFinite {
            throw path.invalid(field, "\(path(field)) must be a finite number; got \(value)")
        }
    }

    /// True when `unit` parses and measures the same dimension as `reference`; a unit that does not
    /// parse is reported with the parser's message under `field`.
    static func isCompatible(_ unit: String, with reference: String, field: String, path: FieldPath) throws(HealthError) -> Bool {
        let parsed: HealthUnit
        do {
            parsed = try HealthUnit.parse(unit)
        } catch {
            throw path.invalid(field, "Invalid unit '\(unit)': \(error.message)")
        }
        guard let target = try? HealthUnit.parse(reference) else { return false }
        return parsed.isCompatible(with: target)
    }

    private static func convert(_ quantity: Quantity, to unit: String, field: String, path: FieldPath) throws(HealthError) -> Double {
        do {
            return try quantity.value(in: unit)
        } catch {
            throw path.invalid(field, error.message)
        }
    }
}

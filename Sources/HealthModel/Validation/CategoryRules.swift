/// Rules for category samples (docs/semantics.md §1.5, §4.3).
enum CategoryRules {
    static func check(_ value: Int64, type: HealthType, path: FieldPath) throws(HealthError) {
        // A category type without a value table accepts any value; every catalog entry has one.
        if let allowed = type.categoryValues, !allowed.contains(value) {
            throw path.invalid("category.value", "Value \(value) is not compatible with type \(type.identifier)")
        }
    }
}

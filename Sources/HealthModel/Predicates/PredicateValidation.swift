/// Checks that a predicate is well formed before it is evaluated or translated, so a bad request
/// is refused with INVALID_ARGUMENT instead of silently matching nothing.
extension QueryPredicate {
    /// Throws for an empty compound list, an empty metadata key, a non-finite operand, a date outside
    /// years 1 through 9999, a negative or over-long workout duration, an unparseable unit, a
    /// source-revision pattern without a bundle id or with a malformed OS version, or — when `types` is given — a leaf that cannot apply to one of the queried types
    /// (a quantity leaf on a non-quantity type or with an incompatible unit, a category leaf on a
    /// non-category type, a workout leaf on a non-workout type). Empty IN sets are allowed: they
    /// match nothing, as HealthKit's do.
    public func validate(forTypes types: [String] = []) throws(HealthError) {
        let known = types.compactMap(TypeCatalog.type)
        try check(known)
    }

    private func check(_ types: [HealthType]) throws(HealthError) {
        switch self {
        case .allOf(let children), .anyOf(let children):
            if children.isEmpty {
                throw HealthError.invalid("A compound predicate needs at least one child predicate", field: "predicate")
            }
            for child in children { try child.check(types) }
        case .not(let child):
            try child.check(types)
        case .dateRange(let range):
            for instant in [range.start, range.end].compactMap({ $0 }) {
                try TimeRules.checkInstant(instant, field: "predicate.date_range")
            }
        case .uuids, .sources, .devices, .deviceProperty, .noCorrelation, .workout:
            break
        case .sourceRevisions(let patterns):
            for pattern in patterns {
                if pattern.bundleID.isEmpty {
                    throw HealthError.invalid("A source revision in a predicate needs a bundle identifier",
                                              field: "predicate.source_revisions")
                }
                if let os = pattern.osVersion, os.count != 3 || os.contains(where: { $0 < 0 }) {
                    throw HealthError.invalid("A source revision's OS version must be (major, minor, patch) with "
                        + "non-negative parts; got \(os)", field: "predicate.source_revisions")
                }
            }
        case .metadataExists(let key):
            try Self.checkKey(key)
        case .metadataCompare(let key, _, let value):
            try Self.checkKey(key)
            try Self.checkOperand(value)
        case .metadataIn(let key, let values):
            try Self.checkKey(key)
            for value in values { try Self.checkOperand(value) }
        case .quantity(_, let operand):
            try Self.checkQuantity(operand, field: "predicate.quantity")
            for type in types {
                guard type.kind == .quantity, let canonical = type.canonicalUnit else {
                    throw Self.notApplicable("quantity", type)
                }
                if !operand.isCompatible(with: canonical) {
                    throw HealthError.invalid("Quantity predicate unit \(operand.unit) is not compatible with "
                        + "\(type.identifier), which requires unit of type \(canonical)", field: "predicate.quantity")
                }
            }
        case .categoryValue, .categoryValueIn:
            if let type = types.first(where: { $0.kind != .category }) {
                throw Self.notApplicable("category value", type)
            }
        case .workoutActivityType, .workoutDuration:
            if case .workoutDuration(_, let duration) = self, !(0...TimeRules.span).contains(duration) {
                throw HealthError.invalid("A workout duration predicate needs a duration between 0 and \(TimeRules.span) µs; "
                    + "got \(duration) µs", field: "predicate.workout_duration")
            }
            if let type = types.first(where: { $0.kind != .workout }) {
                throw Self.notApplicable("workout", type)
            }
        }
    }

    private static func checkKey(_ key: String) throws(HealthError) {
        if key.isEmpty {
            throw HealthError.invalid("A metadata predicate needs a non-empty key", field: "predicate.metadata.key")
        }
    }

    private static func checkOperand(_ value: MetadataValue) throws(HealthError) {
        switch value {
        case .double(let d) where !d.isFinite:
            throw HealthError.invalid("Metadata predicate values must be finite; got \(d)", field: "predicate.metadata.value")
        case .date(let instant):
            try TimeRules.checkInstant(instant, field: "predicate.metadata.value")
        case .quantity(let q):
            try checkQuantity(q, field: "predicate.metadata.value")
        default:
            break
        }
    }

    private static func checkQuantity(_ quantity: Quantity, field: String) throws(HealthError) {
        if !quantity.value.isFinite {
            throw HealthError.invalid("Predicate quantities must be finite; got \(quantity.value)", field: field)
        }
        do {
            _ = try HealthUnit.parse(quantity.unit)
        } catch {
            throw HealthError.invalid("Invalid unit '\(quantity.unit)' in predicate: \(error.message)", field: field)
        }
    }

    private static func notApplicable(_ leaf: String, _ type: HealthType) -> HealthError {
        HealthError.invalid("A \(leaf) predicate cannot apply to \(type.identifier)", field: "predicate")
    }
}

import Foundation

/// How metadata values compare in predicates, as NSPredicate compares NSNumber, NSString, NSDate
/// and HKQuantity values:
/// - numbers compare numerically across int, double and bool (false = 0, true = 1), exactly
///   (an int and a double are never rounded into each other);
/// - strings compare by Unicode code point (UTF-8 byte order), equal only when identical;
/// - dates compare as instants;
/// - quantities compare after converting the right-hand one to the left-hand one's unit, and are
///   incomparable when the units are incompatible;
/// - any other pair (a string and a number, …) is incomparable.
public enum MetadataOrdering {
    /// The order of `lhs` relative to `rhs`, or nil when the two cannot be compared.
    public static func compare(_ lhs: MetadataValue, _ rhs: MetadataValue) -> ComparisonResult? {
        switch (lhs, rhs) {
        case (.string(let a), .string(let b)):
            return a.utf8.elementsEqual(b.utf8) ? .orderedSame
                : (a.utf8.lexicographicallyPrecedes(b.utf8) ? .orderedAscending : .orderedDescending)
        case (.date(let a), .date(let b)):
            return order(a, b)
        case (.quantity(let a), .quantity(let b)):
            guard let converted = try? b.value(in: a.unit) else { return nil }
            return order(a.value, converted)
        default:
            guard let a = Number(lhs), let b = Number(rhs) else { return nil }
            return a.compare(b)
        }
    }

    /// True when `lhs <op> rhs`; incomparable values are only "not equal".
    public static func evaluate(_ lhs: MetadataValue, _ op: ComparisonOperator, _ rhs: MetadataValue) -> Bool {
        guard let order = compare(lhs, rhs) else { return op == .notEqual }
        switch op {
        case .lessThan: return order == .orderedAscending
        case .lessThanOrEqual: return order != .orderedDescending
        case .greaterThan: return order == .orderedDescending
        case .greaterThanOrEqual: return order != .orderedAscending
        case .equal: return order == .orderedSame
        case .notEqual: return order != .orderedSame
        }
    }

    private static func order<T: Comparable>(_ a: T, _ b: T) -> ComparisonResult? {
        if a < b { return .orderedAscending }
        if a > b { return .orderedDescending }
        if a == b { return .orderedSame }
        // Only NaN gets here; validated data holds none.
        return nil
    }

    /// An NSNumber's value: an exact integer or a double.
    private enum Number {
        case integer(Int64)
        case real(Double)

        init?(_ value: MetadataValue) {
            switch value {
            case .int(let n): self = .integer(n)
            case .bool(let b): self = .integer(b ? 1 : 0)
            case .double(let d): self = .real(d)
            default: return nil
            }
        }

        func compare(_ other: Number) -> ComparisonResult? {
            switch (self, other) {
            case (.integer(let a), .integer(let b)): return order(a, b)
            case (.real(let a), .real(let b)): return order(a, b)
            case (.integer(let a), .real(let b)): return Number.compare(a, b)
            case (.real(let a), .integer(let b)): return Number.compare(b, a).map(flipped)
            }
        }

        private func flipped(_ order: ComparisonResult) -> ComparisonResult {
            switch order {
            case .orderedAscending: .orderedDescending
            case .orderedDescending: .orderedAscending
            case .orderedSame: .orderedSame
            }
        }

        /// Exact comparison of an integer with a double (no rounding of either).
        private static func compare(_ a: Int64, _ b: Double) -> ComparisonResult? {
            if b.isNaN { return nil }
            if b >= 9_223_372_036_854_775_808.0 { return .orderedAscending }
            if b < -9_223_372_036_854_775_808.0 { return .orderedDescending }
            let floor = b.rounded(.down)
            let whole = Int64(floor)
            if a != whole { return a < whole ? .orderedAscending : .orderedDescending }
            return b > floor ? .orderedAscending : .orderedSame
        }
    }
}

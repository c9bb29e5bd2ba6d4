/// A base dimension that units reduce to (docs/semantics.md §5.4). HealthKit's own scalars (count, percent,
/// IU, hearing level, effort score) are separate dimensions so that they never convert into each other.
public enum BaseDimension: Int, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    case mass, length, time, temperature, current, angle, illuminance
    case count, percent, pharmacology, hearingLevel, effort

    public var description: String {
        switch self {
        case .mass: "mass"
        case .length: "length"
        case .time: "time"
        case .temperature: "temperature"
        case .current: "current"
        case .angle: "angle"
        case .illuminance: "illuminance"
        case .count: "count"
        case .percent: "percent"
        case .pharmacology: "pharmacology"
        case .hearingLevel: "hearing level"
        case .effort: "effort"
        }
    }
}

/// An exponent map over base dimensions; two units are compatible exactly when their maps are equal.
public struct UnitDimension: Sendable, Hashable, CustomStringConvertible {
    /// Exponents indexed by `BaseDimension.rawValue`.
    private var powers: [Int]

    /// The dimensionless map (a "null" unit such as dL/L).
    public static let dimensionless = UnitDimension(powers: Array(repeating: 0, count: BaseDimension.allCases.count))

    private init(powers: [Int]) { self.powers = powers }

    /// A map built from explicit exponents; zero entries may be omitted.
    public init(_ exponents: [BaseDimension: Int]) {
        self = .dimensionless
        for (base, power) in exponents { powers[base.rawValue] = power }
    }

    /// The exponent of `base` in this map.
    public subscript(base: BaseDimension) -> Int { powers[base.rawValue] }

    /// The non-zero exponents.
    public var exponents: [BaseDimension: Int] {
        var result: [BaseDimension: Int] = [:]
        for base in BaseDimension.allCases where powers[base.rawValue] != 0 { result[base] = powers[base.rawValue] }
        return result
    }

    /// True when every exponent is zero.
    public var isNull: Bool { powers.allSatisfy { $0 == 0 } }

    /// This map raised to an integer power (multiplies every exponent).
    public func raised(to exponent: Int) -> UnitDimension {
        UnitDimension(powers: powers.map { $0 * exponent })
    }

    /// The product of two maps (adds exponents).
    public static func * (lhs: UnitDimension, rhs: UnitDimension) -> UnitDimension {
        UnitDimension(powers: zip(lhs.powers, rhs.powers).map { $0 + $1 })
    }

    /// Readable form for error messages, e.g. "mass·length^-3"; "dimensionless" for the null map.
    public var description: String {
        let parts = BaseDimension.allCases.compactMap { base -> String? in
            let power = powers[base.rawValue]
            if power == 0 { return nil }
            return power == 1 ? base.description : "\(base.description)^\(power)"
        }
        return parts.isEmpty ? "dimensionless" : parts.joined(separator: "·")
    }
}

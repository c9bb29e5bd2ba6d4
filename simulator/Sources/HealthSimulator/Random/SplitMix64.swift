import Foundation

/// A small, fast, seedable generator (SplitMix64): the simulator's only source of randomness, so a
/// given `--seed` always produces the same data on every platform.
public struct SplitMix64: RandomNumberGenerator, Sendable {
    private var state: UInt64

    public init(seed: UInt64) {
        state = seed
    }

    /// A generator keyed by a seed and any number of labels (device, signal, day…), so every stream
    /// is independent of how many values other streams drew.
    public init(seed: UInt64, _ labels: StableHash.Label...) {
        state = StableHash.combine(seed, labels)
    }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        return StableHash.finalize(state)
    }

    /// A UUID of the next 128 bits (no version bits set): a seeded stream's UUIDs replay, and
    /// Foundation's `UUID()` opens /dev/urandom for each one.
    public mutating func uuid() -> UUID {
        let (a, b) = (next(), next())
        return withUnsafeBytes(of: (a.bigEndian, b.bigEndian)) { UUID(uuid: $0.load(as: uuid_t.self)) }
    }

    /// Uniform in [0, 1).
    public mutating func unit() -> Double {
        Double(next() >> 11) * 0x1.0p-53
    }

    /// Uniform in `range`.
    public mutating func uniform(_ range: ClosedRange<Double>) -> Double {
        range.lowerBound + unit() * (range.upperBound - range.lowerBound)
    }

    /// Normally distributed (Box–Muller).
    public mutating func normal(mean: Double = 0, sd: Double = 1) -> Double {
        let u1 = max(unit(), 1e-12)
        let u2 = unit()
        return mean + sd * (-2 * log(u1)).squareRoot() * cos(2 * Double.pi * u2)
    }

    /// True with probability `p`.
    public mutating func chance(_ p: Double) -> Bool {
        unit() < p
    }
}

/// Process-independent hashing (Swift's `Hasher` is randomly seeded per run, so it cannot key
/// deterministic streams).
public enum StableHash {
    /// A value that can key a stream.
    public enum Label: Sendable {
        case text(String)
        case number(Int64)
    }

    /// SplitMix64's output mix.
    public static func finalize(_ value: UInt64) -> UInt64 {
        var z = value
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// FNV-1a over UTF-8, then mixed.
    public static func text(_ s: String) -> UInt64 {
        var h: UInt64 = 0xCBF2_9CE4_8422_2325
        for byte in s.utf8 {
            h = (h ^ UInt64(byte)) &* 0x0000_0100_0000_01B3
        }
        return finalize(h)
    }

    /// Folds labels into a seed.
    public static func combine(_ seed: UInt64, _ labels: [Label]) -> UInt64 {
        var h = finalize(seed ^ 0x5851_F42D_4C95_7F2D)
        for label in labels {
            let v: UInt64
            switch label {
            case .text(let s): v = text(s)
            case .number(let n): v = finalize(UInt64(bitPattern: n) &+ 0x2545_F491_4F6C_DD1D)
            }
            h = finalize(h ^ v &+ 0x9E37_79B9_7F4A_7C15)
        }
        return h
    }
}

extension StableHash.Label: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral {
    public init(stringLiteral value: String) { self = .text(value) }
    public init(integerLiteral value: Int64) { self = .number(value) }
}

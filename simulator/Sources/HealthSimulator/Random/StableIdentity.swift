import Foundation
import HealthModel

/// Stable identities for generated objects: the same seed, device, type and time always give the
/// same UUID and sync identifier, so a re-run or a retry never creates a second copy.
public struct StableIdentity: Sendable {
    public let seed: UInt64
    /// The device's local identifier (or profile id): identities never collide across devices.
    public let deviceKey: String

    public init(seed: UInt64, deviceKey: String) {
        self.seed = seed
        self.deviceKey = deviceKey
    }

    /// A version-4-shaped UUID derived from the labels.
    public func uuid(type: String, start: Microseconds, ordinal: Int = 0) -> UUID {
        var rng = SplitMix64(seed: seed, "uuid", .text(deviceKey), .text(type), .number(start), .number(Int64(ordinal)))
        let hi = rng.next(), lo = rng.next()
        var bytes = [UInt8](repeating: 0, count: 16)
        for i in 0..<8 {
            bytes[i] = UInt8(truncatingIfNeeded: hi >> (56 - 8 * UInt64(i)))
            bytes[8 + i] = UInt8(truncatingIfNeeded: lo >> (56 - 8 * UInt64(i)))
        }
        bytes[6] = (bytes[6] & 0x0F) | 0x40
        bytes[8] = (bytes[8] & 0x3F) | 0x80
        return UUID(uuid: (bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7],
                           bytes[8], bytes[9], bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]))
    }

    /// "healthsim:<device>:<short type>:<start>:<ordinal>", the shape Apple Watch data uses.
    public func syncIdentifier(type: String, start: Microseconds, ordinal: Int = 0) -> String {
        // Prefix stripping, not a catalog lookup: identifiers must not change as the catalog grows.
        let prefix = TypeCatalog.identifierPrefixes.first { type.hasPrefix($0) } ?? ""
        let short = type.dropFirst(prefix.count)
        return "healthsim:\(deviceKey):\(short):\(start):\(ordinal)"
    }
}

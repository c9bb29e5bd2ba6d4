import Foundation
import HealthModel

/// Which faults a device injects, decided by its own seeded stream so a fault run is repeatable.
public struct FaultPlan: Sendable {
    /// Chance of each fault per batch; 0 turns faults off.
    public let rate: Double
    private var rng: SplitMix64
    private var invalidOrdinal = 0

    public init(rate: Double, seed: UInt64, deviceKey: String) {
        self.rate = rate
        rng = SplitMix64(seed: seed, "faults", .text(deviceKey))
    }

    /// Close the connection while this batch is in flight.
    public mutating func disconnectMidBatch() -> Bool { rate > 0 && rng.chance(rate) }
    /// Send this batch again after it was acknowledged.
    public mutating func duplicateSend() -> Bool { rate > 0 && rng.chance(rate) }
    /// Upload the next batch before this one.
    public mutating func outOfOrder() -> Bool { rate > 0 && rng.chance(rate) }

    /// Now and then, an invalid copy of `template` (bad unit, end before start, or unknown type)
    /// with its own UUID, to be sent alone so it cannot sink valid data.
    public mutating func invalidSample(like template: Sample) -> (kind: String, sample: Sample)? {
        guard rate > 0, rng.chance(rate), case .quantity(let q, let count) = template.body else { return nil }
        invalidOrdinal += 1
        let uuid = StableIdentity(seed: rng.next(), deviceKey: "invalid").uuid(type: template.type, start: template.start,
                                                                              ordinal: invalidOrdinal)
        var metadata = template.metadata
        metadata[MetadataKey.syncIdentifier] = .string("healthsim:invalid:\(uuid.uuidString)")
        func copy(type: String = template.type, start: Microseconds = template.start, end: Microseconds = template.end,
                  body: SampleBody = template.body) -> Sample {
            Sample(uuid: uuid, type: type, start: start, end: end, metadata: metadata, device: template.device, body: body)
        }
        switch rng.next() % 3 {
        case 0: return ("badUnit", copy(body: .quantity(Quantity(q.value, "furlong/fortnight^2"), count: count)))
        case 1: return ("endBeforeStart", copy(start: template.end + 60_000_000, end: template.end))
        default: return ("unknownType", copy(type: "HKQuantityTypeIdentifierHealthSimNoSuchType"))
        }
    }
}

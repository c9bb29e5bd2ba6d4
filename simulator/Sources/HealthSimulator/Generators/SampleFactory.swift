import Foundation
import HealthModel

/// Builds one device's samples: stable UUID and sync identifier, its HKDevice, the person's time
/// zone, values converted to the unit the device reports in.
public struct SampleFactory: Sendable {
    public let identity: StableIdentity
    public let device: Device
    public let timeZone: String

    public init(identity: StableIdentity, device: Device, timeZone: String) {
        self.identity = identity
        self.device = device
        self.timeZone = timeZone
    }

    /// Metadata every sample carries: sync identifier + version 1 (retries upsert, never duplicate)
    /// and the time zone it was recorded in.
    public func metadata(type: String, start: Microseconds, ordinal: Int, extra: Metadata = [:]) -> Metadata {
        var m = extra
        m[MetadataKey.syncIdentifier] = .string(identity.syncIdentifier(type: type, start: start, ordinal: ordinal))
        m[MetadataKey.syncVersion] = .int(1)
        m[MetadataKey.timeZone] = .string(timeZone)
        return m
    }

    /// A quantity sample; `value` is in `canonical` and is reported in `unit`.
    public func quantity(_ type: String, _ value: Double, canonical: String, unit: String?, start: Microseconds,
                         end: Microseconds, ordinal: Int = 0, metadata extra: Metadata = [:]) -> Sample {
        let q = Self.convert(Quantity(value, canonical), to: unit ?? canonical)
        return Sample(uuid: identity.uuid(type: type, start: start, ordinal: ordinal), type: type, start: start,
                      end: end, metadata: metadata(type: type, start: start, ordinal: ordinal, extra: extra),
                      device: device, body: .quantity(q, count: 1))
    }

    /// A category sample.
    public func category(_ type: String, _ value: Int64, start: Microseconds, end: Microseconds, ordinal: Int = 0) -> Sample {
        Sample(uuid: identity.uuid(type: type, start: start, ordinal: ordinal), type: type, start: start, end: end,
               metadata: metadata(type: type, start: start, ordinal: ordinal), device: device, body: .category(value))
    }

    /// A correlation holding `objects`.
    public func correlation(_ type: String, _ objects: [Sample], start: Microseconds, end: Microseconds) -> Sample {
        Sample(uuid: identity.uuid(type: type, start: start), type: type, start: start, end: end,
               metadata: metadata(type: type, start: start, ordinal: 0), device: device, body: .correlation(objects))
    }

    /// A workout sample.
    public func workout(_ workout: Workout, start: Microseconds, end: Microseconds, extra: Metadata) -> Sample {
        let type = HKType.workout
        return Sample(uuid: identity.uuid(type: type, start: start), type: type, start: start, end: end,
                      metadata: metadata(type: type, start: start, ordinal: 0, extra: extra), device: device,
                      body: .workout(workout))
    }

    /// A sample of any other kind (ECG, state of mind, scored assessment).
    public func sample(_ type: String, start: Microseconds, end: Microseconds, body: SampleBody) -> Sample {
        Sample(uuid: identity.uuid(type: type, start: start), type: type, start: start, end: end,
               metadata: metadata(type: type, start: start, ordinal: 0), device: device, body: body)
    }

    /// `q` in `unit`, rounded to what a device would display; a unit that cannot be converted to
    /// keeps the canonical unit, so the data stays right.
    static func convert(_ q: Quantity, to unit: String) -> Quantity {
        guard unit != q.unit, let v = try? q.value(in: unit) else { return Quantity(round4(q.value), q.unit) }
        return Quantity(round4(v), unit)
    }

    private static func round4(_ v: Double) -> Double { (v * 10_000).rounded() / 10_000 }
}

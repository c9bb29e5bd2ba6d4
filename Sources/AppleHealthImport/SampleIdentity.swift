import CCrypto
import Foundation
import HealthModel
import Synchronization

/// Deterministic UUIDs for exported objects, which carry none: the same object in any later export
/// of the same phone gets the same UUID, so a re-import stores nothing and a newer export stores
/// only what is new.
///
/// The UUID is SHA-256 over a canonical text of the object, truncated to 128 bits with the version
/// set to 8 and the RFC 9562 variant (a "name-based, SHA-256" UUIDv8). The text is the scheme name
/// `healthstore.apple-import.v1`, then each field as `label=` + length-prefixed UTF-8
/// (`<bytes>:<text>`, so no value can forge a separator): type, source name, every device field,
/// start and end in microseconds since the epoch (UTC, so the offset a date was written with does
/// not matter), the body (quantity value and unit as written; category raw value; a correlation's
/// children's UUIDs in order; a workout's activity type, duration, events, statistics and
/// activities) and the metadata sorted by key with each value's kind. Source version and creation
/// date are left out: an app update re-exports the same samples.
enum SampleIdentity {
    static func uuid(type: String, sourceName: String, device: Device?, start: Microseconds, end: Microseconds,
                     body: SampleBody, metadata: Metadata) -> UUID {
        var text = CanonicalText(bytes: prefix(type: type, sourceName: sourceName, device: device))
        text.bytes.reserveCapacity(512)
        text.field("start", start)
        text.field("end", end)
        text.body(body)
        text.metadata(metadata, label: "metadata")
        return digestUUID(text.bytes)
    }

    /// The text's fields before the times (scheme, type, source, device). An export writes a type's
    /// records together, from a few sources and devices taking turns (a phone's steps between a
    /// watch's), so the last few prefixes are kept and copied whole.
    private static func prefix(type: String, sourceName: String, device: Device?) -> [UInt8] {
        let kept = recentPrefixes.withLock { recent in
            recent.kept.firstIndex { $0.isFor(type: type, sourceName: sourceName, device: device) }.map { recent.kept[$0].bytes }
        }
        if let kept { return kept }
        var text = CanonicalText()
        text.field("scheme", "healthstore.apple-import.v1")
        text.field("type", type)
        text.field("source", sourceName)
        let fields = device ?? Device()
        text.field("device.name", fields.name ?? "")
        text.field("device.manufacturer", fields.manufacturer ?? "")
        text.field("device.model", fields.model ?? "")
        text.field("device.hardware", fields.hardwareVersion ?? "")
        text.field("device.firmware", fields.firmwareVersion ?? "")
        text.field("device.software", fields.softwareVersion ?? "")
        text.field("device.local", fields.localIdentifier ?? "")
        text.field("device.udi", fields.udiDeviceIdentifier ?? "")
        let made = Prefix(type: type, sourceName: sourceName, device: device, bytes: text.bytes)
        recentPrefixes.withLock { recent in
            if recent.kept.count < 8 { recent.kept.append(made) } else { recent.kept[recent.next] = made }
            recent.next = (recent.next + 1) % 8
        }
        return text.bytes
    }

    /// A prefix made and what it was made from.
    private struct Prefix {
        let type: String
        let sourceName: String
        let device: Device?
        let bytes: [UInt8]

        /// Compared as bytes: `==` holds for canonically equivalent strings, whose prefix would hash to another UUID.
        func isFor(type: String, sourceName: String, device: Device?) -> Bool {
            guard self.type.sameUTF8(type), self.sourceName.sameUTF8(sourceName) else { return false }
            guard let kept = self.device, let device else { return self.device == nil && device == nil }
            func same(_ a: String?, _ b: String?) -> Bool { a.map { b?.sameUTF8($0) ?? false } ?? (b == nil) }
            return same(kept.name, device.name) && same(kept.manufacturer, device.manufacturer) && same(kept.model, device.model)
                && same(kept.hardwareVersion, device.hardwareVersion) && same(kept.firmwareVersion, device.firmwareVersion)
                && same(kept.softwareVersion, device.softwareVersion) && same(kept.localIdentifier, device.localIdentifier)
                && same(kept.udiDeviceIdentifier, device.udiDeviceIdentifier)
        }
    }

    /// The prefixes made last, the oldest replaced first.
    private static let recentPrefixes = Mutex<(kept: [Prefix], next: Int)>(([], 0))

    /// A sub-object's UUID from its parent's UUID and its position: a workout activity's (no
    /// `part`), or a series' (`part` its type: a workout's routes, a record's beat series).
    static func uuid(within parent: UUID, index: Int, part: String? = nil) -> UUID {
        var text = CanonicalText()
        text.field("parent", parent.uuidString)
        text.field("index", String(index))
        if let part { text.field("part", part) }
        return digestUUID(text.bytes)
    }

    /// Fetched once: EVP_sha256() makes every EVP_Digest look the implementation up again.
    nonisolated(unsafe) private static let sha256: OpaquePointer? = EVP_MD_fetch(nil, "SHA256", nil)

    private static func digestUUID(_ bytes: [UInt8]) -> UUID {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: Int(EVP_MAX_MD_SIZE)) { digest in
            var length: UInt32 = 0
            let ok = EVP_Digest(bytes, bytes.count, digest.baseAddress, &length, sha256, nil)
            precondition(ok == 1, "EVP_Digest(SHA-256) failed")
            digest[6] = (digest[6] & 0x0F) | 0x80
            digest[8] = (digest[8] & 0x3F) | 0x80
            return UUID(uuid: (digest[0], digest[1], digest[2], digest[3], digest[4], digest[5], digest[6], digest[7],
                               digest[8], digest[9], digest[10], digest[11], digest[12], digest[13], digest[14], digest[15]))
        }
    }
}

/// The canonical text `SampleIdentity` hashes.
private struct CanonicalText {
    var bytes: [UInt8] = []

    mutating func field(_ label: String, _ value: String) {
        append(label)
        bytes.append(UInt8(ascii: "="))
        var value = value
        value.withUTF8 { value in
            decimal(Int64(value.count))
            bytes.append(UInt8(ascii: ":"))
            bytes.append(contentsOf: value)
        }
        bytes.append(10)
    }

    /// The same bytes as `field("\(label).\(key)", "\(kind):\(value)")`, without building either string.
    mutating func field(_ label: String, key: String, kind: Unicode.Scalar, _ value: String) {
        append(label)
        bytes.append(UInt8(ascii: "."))
        append(key)
        bytes.append(UInt8(ascii: "="))
        var value = value
        value.withUTF8 { value in
            decimal(Int64(value.count + 2))
            bytes.append(UInt8(ascii: ":"))
            bytes.append(UInt8(ascii: kind))
            bytes.append(UInt8(ascii: ":"))
            bytes.append(contentsOf: value)
        }
        bytes.append(10)
    }

    /// `text`'s UTF-8 as one copy: appending a `String.UTF8View` goes byte by byte.
    private mutating func append(_ text: String) {
        var text = text
        text.withUTF8 { bytes.append(contentsOf: $0) }
    }

    /// The same bytes as `field(label, String(value))`, without building the string.
    mutating func field(_ label: String, _ value: Int64) {
        append(label)
        bytes.append(UInt8(ascii: "="))
        Self.withDecimal(value) { digits in
            Self.withDecimal(Int64(digits.count)) { bytes.append(contentsOf: $0) }
            bytes.append(UInt8(ascii: ":"))
            bytes.append(contentsOf: digits)
        }
        bytes.append(10)
    }

    /// `value` in decimal, as `String(value)` writes it.
    private mutating func decimal(_ value: Int64) {
        Self.withDecimal(value) { bytes.append(contentsOf: $0) }
    }

    /// `body` over the decimal digits of `value` (and its sign), written backwards on the stack.
    private static func withDecimal(_ value: Int64, _ body: (UnsafeBufferPointer<UInt8>) -> Void) {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { buffer in
            var magnitude = value.magnitude
            var index = buffer.count
            repeat {
                index -= 1
                buffer[index] = UInt8(ascii: "0") + UInt8(magnitude % 10)
                magnitude /= 10
            } while magnitude > 0
            if value < 0 {
                index -= 1
                buffer[index] = UInt8(ascii: "-")
            }
            body(UnsafeBufferPointer(rebasing: buffer[index...]))
        }
    }

    mutating func quantity(_ label: String, _ quantity: Quantity?) {
        guard let quantity else { return }
        field(label, "\(quantity.value) \(quantity.unit)")
    }

    mutating func metadata(_ metadata: Metadata, label: String) {
        // Most samples hold one entry or none: no array of keys to sort.
        if metadata.count <= 1 {
            for (key, value) in metadata { entry(label, key: key, value) }
            return
        }
        // By Unicode scalar values (not String's order), compared in place.
        for key in metadata.keys.sorted(by: { $0.unicodeScalars.lexicographicallyPrecedes($1.unicodeScalars) }) {
            entry(label, key: key, metadata[key]!)
        }
    }

    private mutating func entry(_ label: String, key: String, _ value: MetadataValue) {
        switch value {
        case .string(let s): field(label, key: key, kind: "s", s)
        case .double(let d): field(label, key: key, kind: "d", "\(d)")
        case .int(let i): field(label, key: key, kind: "i", "\(i)")
        case .bool(let b): field(label, key: key, kind: "b", "\(b)")
        case .date(let t): field(label, key: key, kind: "t", "\(t)")
        case .quantity(let q): field(label, key: key, kind: "q", "\(q.value) \(q.unit)")
        }
    }

    mutating func body(_ body: SampleBody) {
        switch body {
        case .quantity(let quantity, let count):
            self.quantity("quantity", quantity)
            field("count", Int64(count))
        case .category(let value):
            field("category", Int64(value))
        case .series(let count):
            field("series", Int64(count))
        case .correlation(let children):
            for child in children { field("child", child.uuid.uuidString) }
        case .workout(let workout):
            field("activity", String(workout.activityType))
            field("duration", workout.duration.map { String($0) } ?? "")
            events(workout.events, label: "event")
            statistics(workout.statistics, label: "statistic")
            for (i, activity) in workout.activities.enumerated() {
                let label = "activity[\(i)]"
                field(label, "\(activity.activityType) \(activity.start) \(activity.end)")
                metadata(activity.metadata, label: label + ".metadata")
                events(activity.events, label: label + ".event")
                statistics(activity.statistics, label: label + ".statistic")
            }
        case .electrocardiogram, .audiogram, .stateOfMind, .scoredAssessment:
            field("detail", String(describing: body))
        }
    }

    private mutating func events(_ events: [WorkoutEvent], label: String) {
        for (i, event) in events.enumerated() {
            field("\(label)[\(i)]", "\(event.type.rawValue) \(event.start) \(event.end)")
            metadata(event.metadata, label: "\(label)[\(i)].metadata")
        }
    }

    private mutating func statistics(_ statistics: [WorkoutStatistic], label: String) {
        for statistic in statistics {
            let prefix = "\(label).\(statistic.quantityType)"
            quantity(prefix + ".sum", statistic.sum)
            quantity(prefix + ".average", statistic.average)
            quantity(prefix + ".minimum", statistic.minimum)
            quantity(prefix + ".maximum", statistic.maximum)
        }
    }
}

extension String {
    /// The same UTF-8 bytes: `==` holds for different bytes that are canonically equivalent ("é" and
    /// "e" + U+0301), which a digest over the bytes tells apart.
    func sameUTF8(_ other: String) -> Bool {
        let same = utf8.withContiguousStorageIfAvailable { a in
            other.utf8.withContiguousStorageIfAvailable { b in
                a.count == b.count && (a.isEmpty || memcmp(a.baseAddress!, b.baseAddress!, a.count) == 0)
            }
        }
        return (same ?? nil) ?? utf8.elementsEqual(other.utf8)
    }
}

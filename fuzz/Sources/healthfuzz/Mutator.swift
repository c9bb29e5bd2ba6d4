import HealthModel
import HealthSimulator
import HealthWire

/// Derives input `iteration` of run `seed` from the seed payloads alone, so any input can be
/// regenerated from (seed, iteration) without replaying the ones before it.
struct Mutator {
    let seeds: [[UInt8]]
    private let trees: [[ProtoField]]

    init(seeds: [[UInt8]]) {
        self.seeds = seeds
        trees = seeds.map { ProtoTree.parse($0[...]) ?? [] }
    }

    /// One complete input: usually a single frame with a correct length prefix, sometimes several
    /// frames or a damaged prefix, so the frame decoder sees every shape too.
    func input(seed: UInt64, iteration: UInt64) -> [UInt8] {
        var rng = SplitMix64(seed: seed, .number(Int64(bitPattern: iteration)))
        var out = frame(payload(&rng), &rng)
        while rng.next() % 20 == 0 { out += frame(payload(&rng), &rng) }
        return out
    }

    /// A seed payload after one to three stacked mutations, mostly structure-aware.
    func payload(_ rng: inout SplitMix64) -> [UInt8] {
        let pick = Int(rng.next() % UInt64(seeds.count))
        var tree = trees[pick]
        var bytes: [UInt8]? = nil
        for _ in 0..<Int.random(in: 1...3, using: &rng) {
            if bytes == nil, rng.next() % 10 < 8 {
                mutateTree(&tree, &rng)
            } else {
                var raw = bytes ?? ProtoTree.serialize(tree)
                mutateBytes(&raw, &rng)
                bytes = raw
            }
        }
        return bytes ?? ProtoTree.serialize(tree)
    }

    private func frame(_ payload: [UInt8], _ rng: inout SplitMix64) -> [UInt8] {
        var length = UInt32(truncatingIfNeeded: payload.count)
        switch rng.next() % 64 {
        case 0: length = 0
        case 1: length = UInt32.max
        case 2: length = UInt32(WireLimits.defaultMaxFrameBytes + 1)
        case 3: length = length > 0 ? UInt32.random(in: 0..<length, using: &rng) : 1
        case 4: length &+= UInt32.random(in: 1...16, using: &rng)
        default: break
        }
        return withUnsafeBytes(of: length.bigEndian, Array.init) + payload
    }

    // MARK: structure-aware

    private func mutateTree(_ fields: inout [ProtoField], _ rng: inout SplitMix64) {
        let count = Self.nodeCount(fields)
        guard count > 0 else {
            fields.append(ProtoField(number: UInt64.random(in: 1...40, using: &rng), value: .varint(Interesting.varint(&rng))))
            return
        }
        var target = Int(rng.next() % UInt64(count))
        mutateNode(&fields, &target, &rng)
    }

    private static func nodeCount(_ fields: [ProtoField]) -> Int {
        fields.reduce(fields.count) { total, field in
            if case .message(let nested) = field.value { return total + nodeCount(nested) }
            return total
        }
    }

    /// Mutates the `target`-th field in pre-order; returns true once done.
    @discardableResult
    private func mutateNode(_ fields: inout [ProtoField], _ target: inout Int, _ rng: inout SplitMix64) -> Bool {
        for i in fields.indices {
            if target == 0 {
                mutateField(in: &fields, at: i, &rng)
                return true
            }
            target -= 1
            if case .message(var nested) = fields[i].value {
                if mutateNode(&nested, &target, &rng) {
                    fields[i].value = .message(nested)
                    return true
                }
            }
        }
        return false
    }

    private func mutateField(in fields: inout [ProtoField], at i: Int, _ rng: inout SplitMix64) {
        // Changes that keep the wire type dominate: protobuf-c rejects a known field of the wrong type.
        switch rng.next() % 32 {
        case 0, 1: fields.remove(at: i)
        case 2, 3: fields.insert(fields[i], at: i)
        case 4: fields[i].number = UInt64.random(in: 1...40, using: &rng)
        case 5:
            // A field taken from another seed: values of the right wire type in new places.
            let donor = trees[Int(rng.next() % UInt64(trees.count))]
            if let field = donor.randomElement(using: &rng) { fields.insert(field, at: i) }
        case 6: fields[i].value = .varint(Interesting.varint(&rng))
        default: fields[i].value = mutatedValue(fields[i].value, &rng)
        }
    }

    private func mutatedValue(_ value: ProtoValue, _ rng: inout SplitMix64) -> ProtoValue {
        switch value {
        case .varint(let v):
            return .varint(rng.next() % 4 == 0 ? v &+ UInt64(bitPattern: Int64.random(in: -2...2, using: &rng)) : Interesting.varint(&rng))
        case .fixed64:
            return .fixed64(rng.next() % 4 == 0 ? rng.next() : Interesting.fixed64(&rng))
        case .fixed32:
            return .fixed32(rng.next() % 4 == 0 ? UInt32(truncatingIfNeeded: rng.next()) : Interesting.fixed32(&rng))
        case .bytes(var b):
            if rng.next() % 2 == 0 { return .bytes(Interesting.string(&rng)) }
            mutateBytes(&b, &rng)
            return .bytes(b)
        case .message(var nested):
            switch rng.next() % 4 {
            case 0: return .bytes(Interesting.string(&rng))
            case 1:
                // Repeats the message's own fields: long repeated lists and deeper trees.
                nested += nested.prefix(Int.random(in: 1...8, using: &rng))
                return .message(nested)
            default:
                mutateTree(&nested, &rng)
                return .message(nested)
            }
        }
    }

    // MARK: byte-level

    private func mutateBytes(_ bytes: inout [UInt8], _ rng: inout SplitMix64) {
        guard !bytes.isEmpty else {
            bytes = Interesting.string(&rng)
            return
        }
        let at = Int(rng.next() % UInt64(bytes.count))
        switch rng.next() % 9 {
        case 0: bytes[at] ^= 1 << UInt8(rng.next() % 8)
        case 1: bytes[at] = UInt8(truncatingIfNeeded: rng.next())
        case 2: bytes.insert(contentsOf: (0..<Int.random(in: 1...8, using: &rng)).map { _ in UInt8(truncatingIfNeeded: rng.next()) }, at: at)
        case 3: bytes.removeSubrange(at..<min(bytes.count, at + Int.random(in: 1...16, using: &rng)))
        case 4: bytes.insert(contentsOf: bytes[at..<min(bytes.count, at + Int.random(in: 1...32, using: &rng))], at: at)
        case 5:
            var encoded: [UInt8] = []
            ProtoTree.appendVarint(Interesting.varint(&rng), to: &encoded)
            bytes.replaceSubrange(at..<min(bytes.count, at + encoded.count), with: encoded)
        case 6:
            let bits = Interesting.fixed64(&rng)
            bytes.replaceSubrange(at..<min(bytes.count, at + 8), with: (0..<8).map { UInt8(truncatingIfNeeded: bits >> UInt64(8 * $0)) })
        case 7:
            let donor = seeds[Int(rng.next() % UInt64(seeds.count))]
            bytes = Array(bytes[..<at]) + donor[Int(rng.next() % UInt64(donor.count))...]
        default: bytes.removeSubrange(at...)
        }
    }
}

/// Values that break arithmetic, parsers and calendars more often than random ones.
enum Interesting {
    private static let varints: [UInt64] = [
        0, 1, 2, 7, 0x7f, 0x80, 0xff, 0x7fff, 0xffff, 0x7fff_ffff, 0x8000_0000, 0xffff_ffff, 0x1_0000_0000,
        UInt64(Int64.max), UInt64(bitPattern: Int64.min), UInt64.max, UInt64.max - 1,
        UInt64(bitPattern: Int64(Int32.min)), UInt64(bitPattern: Int64(Int32.min) - 1),
        1_700_000_000_000_000, 253_402_300_800_000_000, 64_092_211_200_000_000,
        UInt64(bitPattern: -62_135_596_800_000_000), 86_400_000_000, 10_000, 100_001,
    ]

    private static let doubles: [Double] = [
        .nan, -.nan, .signalingNaN, .infinity, -.infinity, -0.0, 0, 1, -1, .greatestFiniteMagnitude,
        -.greatestFiniteMagnitude, .leastNonzeroMagnitude, .ulpOfOne, 1e300, -1e300, 9.223372036854775807e18,
        -9.223372036854775808e18, 1.8446744073709552e19, 2147483648, 1e-300,
    ]

    private static let texts: [String] = [
        "", "\0", "a\0b", "HKQuantityTypeIdentifierHeartRate\0", "HKQuantityTypeIdentifierStepCount", "HKWorkoutTypeIdentifier",
        "HKCorrelationTypeIdentifierFood", "HKCharacteristicTypeIdentifierBloodType", "HKCategoryTypeIdentifierMindfulSession",
        "count", "count/min", "kg", "mmHg", "kcal", "min", "degF", "degC", "%", "mg/dL", "mmol<180.1558800000541>/L", "kg^2",
        "count/min/min", "1/0", "((((", "kg^-9999999999", "m^2147483647", "ft*ft/lb^3", "IU", "dBASPL",
        "UTC", "Europe/Berlin", "Pacific/Kiritimati", "America/St_Johns", "Asia/Kathmandu", "bogus/zone", "GMT+14", "+14:00",
        "gregorian", "iso8601", "buddhist", "japanese", "republicOfChina", "hebrew", "islamic", "persian", "indian", "chinese",
        "HKMetadataKeySyncIdentifier", "HKMetadataKeySyncVersion", "HKWasUserEntered", "HKTimeZone", "HKExternalUUID",
        "com.example.band", "com.apple.Health", "\u{202e}rtl", "🫀", String(repeating: "A", count: 5000),
    ]

    private static let rawStrings: [[UInt8]] = [[0xff, 0xfe, 0xfd], [0xc3], [0xed, 0xa0, 0x80], [0xf4, 0x90, 0x80, 0x80], [0xc0, 0x80]]

    static func varint(_ rng: inout SplitMix64) -> UInt64 {
        switch rng.next() % 8 {
        case 0: return rng.next()
        case 1: return rng.next() % 64
        default: return varints[Int(rng.next() % UInt64(varints.count))]
        }
    }

    static func fixed64(_ rng: inout SplitMix64) -> UInt64 {
        rng.next() % 5 == 0 ? varint(&rng) : doubles[Int(rng.next() % UInt64(doubles.count))].bitPattern
    }

    static func fixed32(_ rng: inout SplitMix64) -> UInt32 {
        rng.next() % 2 == 0 ? UInt32(truncatingIfNeeded: varint(&rng)) : Float(doubles[Int(rng.next() % UInt64(doubles.count))]).bitPattern
    }

    static func string(_ rng: inout SplitMix64) -> [UInt8] {
        switch rng.next() % 10 {
        case 0: return rawStrings[Int(rng.next() % UInt64(rawStrings.count))]
        case 1: return Array(TypeCatalog.all[Int(rng.next() % UInt64(TypeCatalog.all.count))].identifier.utf8)
        case 2: return (0..<Int.random(in: 0...16, using: &rng)).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
        default: return Array(texts[Int(rng.next() % UInt64(texts.count))].utf8)
        }
    }
}

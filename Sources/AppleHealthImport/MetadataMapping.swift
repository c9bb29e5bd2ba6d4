import HealthModel
import Synchronization

/// MetadataEntry key/value strings typed the way HealthKit stored them: HealthKit's known keys by
/// their types, quantities such as "56 degF", everything else kept as the string it was.
enum MetadataMapping {
    /// The typed metadata, and the entries HealthStore refuses to store with why.
    struct Mapped {
        var metadata: Metadata = [:]
        var dropped: [String] = []
    }

    /// Keys are kept exactly: "meal" and "Meal" stay two entries.
    static func map(_ entries: [(key: String, value: String)]) -> Mapped {
        guard !entries.isEmpty else { return Mapped() }
        // Exports repeat the same entries record after record (a heart rate's motion context): the
        // last mapping is handed out again, one dictionary shared instead of one built per record.
        let repeated = last.withLock { last -> Mapped? in
            guard let same = last?.entries.elementsEqual(entries, by: { $0.key.sameUTF8($1.key) && $0.value.sameUTF8($1.value) }), same else {
                return nil
            }
            return last?.mapped
        }
        if let repeated { return repeated }
        let mapped = mapEach(entries)
        last.withLock { $0 = (entries, mapped) }
        return mapped
    }

    private static let last = Mutex<(entries: [(key: String, value: String)], mapped: Mapped)?>(nil)

    private static func mapEach(_ entries: [(key: String, value: String)]) -> Mapped {
        var mapped = Mapped()
        for (key, text) in entries {
            if key.hasPrefix("_HKPrivate") {
                mapped.dropped.append("metadata key private to Apple (_HKPrivate…)")
            } else if PredefinedMetadataKeys.rules[key] == nil, key.hasPrefix("HK"), !PredefinedMetadataKeys.unchecked.contains(key) {
                mapped.dropped.append("HealthKit metadata key unknown to HealthStore (\(key))")
            } else {
                mapped.metadata[key] = value(text, key: key)
            }
        }
        return mapped
    }

    /// One value by its key's rule; a value that does not fit the rule stays a string, so the store
    /// refuses it with its own message rather than the importer guessing.
    static func value(_ text: String, key: String) -> MetadataValue {
        switch PredefinedMetadataKeys.rules[key] {
        case .bool?:
            switch text.lowercased() {
            case "1", "true", "yes": return .bool(true)
            case "0", "false", "no": return .bool(false)
            default: return .string(text)
            }
        case .number?:
            return Double(text).map(MetadataValue.double) ?? .string(text)
        case .integer?, .workoutActivityType?:
            if let integer = Int64(text) { return .int(integer) }
            if let number = Double(text), number == number.rounded(), abs(number) < 9e15 { return .int(Int64(number)) }
            return .string(text)
        case .quantity?:
            return quantity(text).map(MetadataValue.quantity) ?? .string(text)
        case .string?, .nonEmptyString?, .base64?, .timeZoneName?, nil:
            return .string(text)
        }
    }

    /// "56 degF", "96 %", "2.1 km/hr" as a quantity in a unit HealthStore parses.
    static func quantity(_ text: String) -> Quantity? {
        guard let space = text.lastIndex(of: " "), let value = Double(text[..<space]), value.isFinite else { return nil }
        let unit = String(text[text.index(after: space)...])
        guard (try? HealthUnit.parse(unit)) != nil else { return nil }
        return Quantity(value, unit)
    }
}

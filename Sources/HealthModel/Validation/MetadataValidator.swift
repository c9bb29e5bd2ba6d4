import Foundation

/// Metadata rules of docs/semantics.md §7.1–7.4: value kinds and constraints of the predefined keys, Apple's
/// private keys and reserved HK prefix, finite numbers and supported dates, sync identifier/version
/// pairing and per-type required keys.
enum MetadataValidator {
    static let privatePrefix = "_HKPrivate"
    /// HealthKit's own keys start with it; an app's keys must not.
    static let reservedPrefix = "HK"

    /// Checks every key and value of one metadata dictionary (a sample's, an event's or an activity's).
    static func checkEntries(_ metadata: Metadata, path: FieldPath) throws(HealthError) {
        // Sorted so the first error reported does not depend on dictionary order.
        for (key, value) in metadata.sorted(by: { $0.key < $1.key }) {
            let field = "metadata.\(key)"
            if key.isEmpty { throw path.invalid("metadata", "Metadata keys must not be empty") }
            if key.hasPrefix(privatePrefix) {
                throw path.invalid(field, "Metadata key '\(key)' is private to Apple and cannot be saved")
            }
            try checkWellFormed(value, field: field, path: path)
            if let rule = PredefinedMetadataKeys.rules[key] {
                try check(value, against: rule, key: key, field: field, path: path)
            } else if key.hasPrefix(reservedPrefix) && !PredefinedMetadataKeys.unchecked.contains(key) {
                throw path.invalid(field, "Metadata key '\(key)' is not a HealthKit key; the HK prefix is reserved for them")
            }
        }
    }

    /// The object-level rules: entries, sync pairing (docs/semantics.md §7.3) and the type's required keys (§7.4).
    static func checkObject(_ metadata: Metadata, type: HealthType, path: FieldPath) throws(HealthError) {
        try checkEntries(metadata, path: path)
        let hasIdentifier = metadata[MetadataKey.syncIdentifier] != nil
        let hasVersion = metadata[MetadataKey.syncVersion] != nil
        if hasIdentifier && !hasVersion {
            throw path.invalid("metadata.\(MetadataKey.syncVersion)",
                               "HKMetadataKeySyncVersion must be provided if HKMetadataKeySyncIdentifier is provided")
        }
        if hasVersion && !hasIdentifier {
            throw path.invalid("metadata.\(MetadataKey.syncVersion)",
                               "HKMetadataKeySyncVersion may not be provided if HKMetadataKeySyncIdentifier is not provided")
        }
        if let missing = type.requiredMetadataKeys.first(where: { metadata[$0] == nil }) {
            throw path.invalid("metadata.\(missing)", "Type \(type.identifier) is missing a required metadata key "
                + "(required keys: \(type.requiredMetadataKeys.joined(separator: ", ")))")
        }
    }

    /// Rules for any value under any key: finite numbers, supported dates and parseable quantity units.
    private static func checkWellFormed(_ value: MetadataValue, field: String, path: FieldPath) throws(HealthError) {
        switch value {
        case .double(let d):
            try QuantityRules.checkFinite(d, field: field, path: path)
        case .quantity(let q):
            try QuantityRules.checkFinite(q.value, field: field, path: path)
            do {
                _ = try HealthUnit.parse(q.unit)
            } catch {
                throw path.invalid(field, "Invalid unit '\(q.unit)' in \(field): \(error.message)")
            }
        case .date(let instant):
            try TimeRules.checkInstant(instant, field: path(field))
        case .string, .int, .bool:
            break
        }
    }

    private static func check(_ value: MetadataValue, against rule: MetadataValueRule, key: String,
                              field: String, path: FieldPath) throws(HealthError) {
        func wrongClass(_ expected: String) -> HealthError {
            path.invalid(field, "Invalid class \(className(value)) for metadata key: \(key). Expected \(expected).")
        }
        func invalidValue() -> HealthError {
            path.invalid(field, "Invalid metadata value for \(key): \(describe(value))")
        }
        switch rule {
        case .string, .nonEmptyString, .base64, .timeZoneName:
            guard case .string(let text) = value else { throw wrongClass("NSString") }
            switch rule {
            case .nonEmptyString where text.isEmpty:
                throw path.invalid(field, "\(key) must not be empty")
            case .base64 where Data(base64Encoded: text) == nil:
                throw path.invalid(field, "\(key) must be Base64-encoded; got '\(text)'")
            case .timeZoneName where TimeZone(identifier: text) == nil:
                throw path.invalid(field, "'\(text)' is not a valid time zone name string")
            default:
                break
            }
        case .bool:
            // NSNumber carries booleans; an integer 0 or 1 is the same NSNumber value.
            switch value {
            case .bool, .int(0), .int(1): break
            case .int, .double: throw invalidValue()
            default: throw wrongClass("NSNumber")
            }
        case .number:
            switch value {
            case .int, .double: break
            default: throw wrongClass("NSNumber")
            }
        case .integer(let range):
            guard isNumber(value) else { throw wrongClass("NSNumber") }
            guard let n = integralValue(value), range.contains(n) else { throw invalidValue() }
        case .workoutActivityType:
            guard isNumber(value) else { throw wrongClass("NSNumber") }
            guard let n = integralValue(value), let raw = Int32(exactly: n), WorkoutActivityTypes.all.contains(raw) else {
                throw invalidValue()
            }
        case .quantity(let reference):
            guard case .quantity(let q) = value else {
                throw path.invalid(field, "'\(key)' is not a quantity")
            }
            guard try QuantityRules.isCompatible(q.unit, with: reference, field: field, path: path) else {
                throw path.invalid(field, "\(key) has an incompatible unit: \(q.unit) (expected a unit compatible with \(reference))")
            }
        }
    }

    private static func isNumber(_ value: MetadataValue) -> Bool {
        switch value {
        case .int, .double: true
        default: false
        }
    }

    /// The exact integer an int or integral double holds, if any.
    static func integralValue(_ value: MetadataValue) -> Int64? {
        switch value {
        case .int(let n): n
        case .double(let d): Int64(exactly: d)
        default: nil
        }
    }

    private static func className(_ value: MetadataValue) -> String {
        switch value {
        case .string: "NSString"
        case .double, .int: "NSNumber"
        case .bool: "NSNumber (Bool)"
        case .date: "NSDate"
        case .quantity: "HKQuantity"
        }
    }

    private static func describe(_ value: MetadataValue) -> String {
        switch value {
        case .string(let s): "'\(s)'"
        case .double(let d): "\(d)"
        case .int(let n): "\(n)"
        case .bool(let b): "\(b)"
        case .date(let t): Time.iso8601(t)
        case .quantity(let q): "\(q.value) \(q.unit)"
        }
    }
}

import Foundation

/// Typed access to the fields of a JSON object, with errors naming the field path.
public struct JSONFields {
    public let fields: [String: JSON]
    /// Where this object sits, e.g. "workout.events[2]", for error messages.
    public let path: String

    public init(_ json: JSON, path: String) throws(HealthError) {
        guard case .object(let fields) = json else { throw HealthError.invalid("\(path.isEmpty ? "the line" : path) is not a JSON object", field: path) }
        self.fields = fields
        self.path = path
    }

    private func name(_ key: String) -> String { path.isEmpty ? key : "\(path).\(key)" }

    private func mismatch(_ key: String, _ expected: String) -> HealthError {
        HealthError.invalid("\(name(key)) must be \(expected), got \(fields[key].map { $0.text(pretty: false) } ?? "nothing")", field: name(key))
    }

    public func string(_ key: String) throws(HealthError) -> String {
        guard case .string(let v)? = fields[key] else { throw mismatch(key, "a string") }
        return v
    }

    public func optionalString(_ key: String) throws(HealthError) -> String? {
        if isNull(key) { return nil }
        return try string(key)
    }

    public func int(_ key: String) throws(HealthError) -> Int64 {
        switch fields[key] {
        case .int(let v)?: return v
        case .double(let v)? where v == v.rounded() && abs(v) < 9e18: return Int64(v)
        default: throw mismatch(key, "an integer")
        }
    }

    public func optionalInt(_ key: String) throws(HealthError) -> Int64? {
        if isNull(key) { return nil }
        return try int(key)
    }

    public func double(_ key: String) throws(HealthError) -> Double {
        switch fields[key] {
        case .double(let v)?: return v
        case .int(let v)?: return Double(v)
        default: throw mismatch(key, "a number")
        }
    }

    public func uuid(_ key: String) throws(HealthError) -> UUID {
        let text = try string(key)
        guard let uuid = UUID(uuidString: text) else { throw mismatch(key, "a UUID") }
        return uuid
    }

    /// The elements of an array field; a missing field is an empty array (older exports).
    public func array(_ key: String) throws(HealthError) -> [JSON] {
        switch fields[key] {
        case nil, .null?: return []
        case .array(let v)?: return v
        default: throw mismatch(key, "an array")
        }
    }

    public func object(_ key: String) throws(HealthError) -> JSONFields {
        try JSONFields(fields[key] ?? .null, path: name(key))
    }

    public func optionalObject(_ key: String) throws(HealthError) -> JSONFields? {
        isNull(key) ? nil : try object(key)
    }

    public func isNull(_ key: String) -> Bool {
        if case .null? = fields[key] { return true }
        return fields[key] == nil
    }

    /// The path of element `index` of array `key`.
    public func elementPath(_ key: String, _ index: Int) -> String { "\(name(key))[\(index)]" }
}

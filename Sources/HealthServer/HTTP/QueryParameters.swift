import HealthModel

/// A request's query parameters, read with errors that name the parameter.
struct QueryParameters {
    private let values: [String: String]

    init(_ values: [String: String]) {
        self.values = values
    }

    subscript(_ name: String) -> String? {
        values[name].flatMap { $0.isEmpty ? nil : $0 }
    }

    /// The `type` parameter as a full identifier (short names accepted).
    func type() throws(HealthError) -> String {
        guard let name = self["type"] else { throw HealthError.invalid("the type parameter is missing", field: "type") }
        return try Self.resolveType(name)
    }

    func optionalType() throws(HealthError) -> String? {
        try self["type"].map { name throws(HealthError) in try Self.resolveType(name) }
    }

    static func resolveType(_ name: String) throws(HealthError) -> String {
        try TypeCatalog.resolve(name).identifier
    }

    /// An instant in microseconds since 1970 UTC.
    func micros(_ name: String) throws(HealthError) -> Microseconds? {
        guard let text = self[name] else { return nil }
        guard let value = Int64(text) else {
            throw HealthError.invalid("\(name) '\(text)' is not an integer count of microseconds since 1970-01-01 UTC", field: name)
        }
        return value
    }

    /// `from`…`to` as a date-range predicate; nil when neither is given.
    func dateRange() throws(HealthError) -> QueryPredicate? {
        let (from, to) = (try micros("from"), try micros("to"))
        guard from != nil || to != nil else { return nil }
        if let from, let to, from > to { throw HealthError.invalid("from (\(from)) is after to (\(to))", field: "from") }
        return .dateRange(DateRange(start: from, end: to))
    }

    func integer(_ name: String, default value: Int, in range: ClosedRange<Int>) throws(HealthError) -> Int {
        guard let text = self[name] else { return value }
        guard let number = Int(text), range.contains(number) else {
            throw HealthError.invalid("\(name) '\(text)' must be an integer in \(range.lowerBound)…\(range.upperBound)", field: name)
        }
        return number
    }

    func choice(_ name: String, _ choices: [String], default value: String) throws(HealthError) -> String {
        guard let text = self[name] else { return value }
        guard choices.contains(text) else { throw HealthError.invalid("\(name) '\(text)' is not one of \(choices.joined(separator: ", "))", field: name) }
        return text
    }
}

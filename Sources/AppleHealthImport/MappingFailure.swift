/// Why one element was not turned into something to save.
enum MappingFailure: Error, Sendable, Hashable {
    /// The element breaks the format (a date or number that does not parse, a required attribute
    /// missing): the import stops here unless told to skip invalid elements.
    case malformed(String)
    /// A well-formed element HealthStore cannot or will not store: counted with the reason.
    case refused(String)

    var reason: String {
        switch self {
        case .malformed(let reason), .refused(let reason): return reason
        }
    }
}

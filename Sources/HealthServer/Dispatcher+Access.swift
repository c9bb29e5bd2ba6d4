import HealthModel
import HealthStorage

// Authorization checks shared by every call (SEMANTICS §3).
extension Dispatcher {
    /// What the caller may read: the owner everything; an app every type it holds read permission
    /// for, and otherwise only its own samples — the store applies this silently, so a denial
    /// looks exactly like an absence of data.
    func readScope(_ session: Session, owner: OwnerID) async throws -> ReadScope {
        if session.role == .owner { return .everything(callerBundleID: session.bundleID) }
        let states = try await permissions.states(owner: owner, bundleID: session.bundleID)
        let readable = Set(states.compactMap { $0.value[.read] == .granted ? $0.key : nil })
        return ReadScope(callerBundleID: session.bundleID, readableTypes: readable)
    }

    /// Throws AUTHORIZATION_DENIED or AUTHORIZATION_NOT_DETERMINED unless the caller holds share
    /// permission for every type; `index` names the offending object of a batch.
    func requireShare(_ types: [String], session: Session, owner: OwnerID, index: Int? = nil) async throws {
        guard session.role == .app else { return }
        let states = try await permissions.states(owner: owner, bundleID: session.bundleID)
        for type in types {
            let error: HealthError
            switch states[type]?[.share] {
            case .granted?:
                continue
            case .denied?:
                error = HealthError(.authorizationDenied, "'\(session.bundleID)' is not authorized to share \(type)", field: "type")
            case .pending?, nil:
                error = HealthError(.authorizationNotDetermined, "share authorization for \(type) has not been determined for '\(session.bundleID)'; call RequestAuthorization first", field: "type")
            }
            throw index.map { error.at(index: $0) } ?? error
        }
    }

    /// Throws AUTHORIZATION_NOT_DETERMINED when an app queries a type it never asked about
    /// (§3.5: "before requesting"), or with `oneSuffices`, none of `types` (a call reading several,
    /// like characteristics). Any request or decision, in either direction, counts: a write-only
    /// app reads its own data, and an undecided request reads like a denied one, so the error
    /// tells the app only what it did itself, never what the owner decided.
    func requireRequested(_ types: [String], oneSuffices: Bool = false, session: Session, owner: OwnerID) async throws {
        guard session.role == .app else { return }
        let states = try await permissions.states(owner: owner, bundleID: session.bundleID)
        // A correlation type is authorized through its contents (§3.6).
        let unasked = types.filter { type in !(TypeCatalog.type(type)?.correlationContents ?? [type]).contains { states[$0] != nil } }
        guard let first = unasked.first, !oneSuffices || unasked.count == types.count else { return }
        let what = oneSuffices ? "any of " + types.joined(separator: ", ") : first
        throw HealthError(.authorizationNotDetermined,
                          "'\(session.bundleID)' has not requested authorization to read \(what); call RequestAuthorization first",
                          field: "types")
    }

    /// The types a sample writes: a correlation writes its children's types (§3.6), anything else its own.
    func sharedTypes(of sample: Sample) -> [String] {
        if let children = sample.correlationObjects { return Array(Set(children.map(\.type))).sorted() }
        return [sample.type]
    }

    /// A known sample type, or INVALID_ARGUMENT naming the identifier.
    func sampleType(_ identifier: String, field: String = "type") throws(HealthError) -> HealthType {
        guard let type = TypeCatalog.type(identifier) else {
            throw TypeCatalog.unknownType(identifier, field: field)
        }
        guard type.isSampleType else {
            throw HealthError.invalid("\(identifier) is a characteristic type; it cannot be queried as samples (use ReadCharacteristics)", field: field)
        }
        return type
    }

    /// Checks query types and the predicate against them.
    func checkQuery(types: [String], predicate: QueryPredicate?) throws(HealthError) {
        guard !types.isEmpty else { throw HealthError.invalid("a query needs at least one type", field: "types") }
        for type in types { _ = try sampleType(type, field: "types") }
        try predicate?.validate(forTypes: types)
    }
}

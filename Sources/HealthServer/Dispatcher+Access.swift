import HealthModel
import HealthStorage

/// What the access guard established for one call; handlers start from it instead of checking again.
struct Access: Sendable {
    let session: Session
    /// The owner whose store the call reads and writes.
    let owner: OwnerID
    /// The app's permission states when the call was admitted (empty for the owner).
    let states: PermissionBook.States
    /// What the caller could read when the call was admitted; long-running calls read it anew per
    /// update (`currentScope`), so grants and revocations apply as they happen. Made when a
    /// handler asks: a save never does.
    var scope: ReadScope { Dispatcher.readScope(session, states: states) }
}

// The access guard: the checks every call shares, run once before its handler (docs/semantics.md §3).
extension Dispatcher {
    /// Admits a call to the owner's store, in a fixed order: the caller's role, the types the call
    /// touches, that an app asked about them, that an app may share what the call saves.
    func admit(_ kind: CallKind, session: Session) async throws -> Access {
        let owner = try admittedOwner(kind, session: session)
        let states = session.role == .app ? try await permissions.states(owner: owner, bundleID: session.bundleID) : [:]
        return try admit(kind, session: session, owner: owner, states: states)
    }

    /// The guard's first checks, which need nothing from the store: the caller's role and the
    /// types the call touches. Returns the owner whose store the call works in.
    func admittedOwner(_ kind: CallKind, session: Session) throws(HealthError) -> OwnerID {
        let owner = kind.caller == .owner ? try session.requireOwnerRole(kind.name) : try session.requireOwnerStore()
        if let types = kind.types { try checkTypes(types) }
        return owner
    }

    /// The guard's remaining checks, given the app's permission states (empty for the owner);
    /// `shared`, a type those states are known to let the app share, is not looked up again.
    func admit(_ kind: CallKind, session: Session, owner: OwnerID, states: PermissionBook.States,
               shared: String? = nil) throws(HealthError) -> Access {
        let access = Access(session: session, owner: owner, states: states)
        if let types = kind.types { try requireRequested(types, access) }
        for (index, object) in kind.saves.enumerated() {
            guard object.catalogType != nil else {
                throw TypeCatalog.unknownType(object.type).at(index: index)
            }
            // A lone type needs no array (most saves).
            if object.correlationObjects == nil {
                if object.type != shared { try requireShare(CollectionOfOne(object.type), access, index: index) }
            } else {
                try requireShare(sharedTypes(of: object), access, index: index)
            }
        }
        return access
    }

    /// What the caller may read now: see `readScope(_:states:)`.
    func currentScope(_ access: Access) async throws -> ReadScope {
        guard access.session.role == .app else { return access.scope }
        return Self.readScope(access.session, states: try await permissions.states(owner: access.owner, bundleID: access.session.bundleID))
    }

    /// What the caller may read: the owner everything; an app every type it holds read permission
    /// for, and otherwise only its own samples — the store applies this silently, so a denial
    /// looks exactly like an absence of data.
    fileprivate static func readScope(_ session: Session, states: PermissionBook.States) -> ReadScope {
        if session.role != .app { return .everything(callerBundleID: session.bundleID) }
        let readable = Set(states.compactMap { $0.value[.read] == .granted ? $0.key : nil })
        return ReadScope(callerBundleID: session.bundleID, readableTypes: readable)
    }

    /// Throws AUTHORIZATION_DENIED or AUTHORIZATION_NOT_DETERMINED unless the caller holds share
    /// permission for every type; `index` names the offending object of a batch.
    func requireShare(_ types: some Sequence<String>, _ access: Access, index: Int? = nil) throws(HealthError) {
        guard access.session.role == .app else { return }
        let bundleID = access.session.bundleID
        for type in types {
            let error: HealthError
            switch access.states[type]?[.share] {
            case .granted?:
                continue
            case .denied?:
                error = HealthError(.authorizationDenied, "'\(bundleID)' is not authorized to share \(type)", field: "type")
            case .pending?, nil:
                error = HealthError(.authorizationNotDetermined, "share authorization for \(type) has not been determined for '\(bundleID)'; call RequestAuthorization first", field: "type")
            }
            throw index.map { error.at(index: $0) } ?? error
        }
    }

    /// Throws AUTHORIZATION_NOT_DETERMINED when an app queries a type it never asked about
    /// (docs/semantics.md §3.5: "before requesting"), or for `anyOf`, none of the types (a call reading several,
    /// like characteristics). Any request or decision, in either direction, counts: a write-only
    /// app reads its own data, and an undecided request reads like a denied one, so the error
    /// tells the app only what it did itself, never what the owner decided.
    private func requireRequested(_ needed: CallKind.Types, _ access: Access) throws(HealthError) {
        guard access.session.role == .app else { return }
        let (types, oneSuffices) = switch needed {
        case .each(let types, _, _): (types, false)
        case .anyOf(let types): (types, true)
        }
        // A correlation type is authorized through its contents (docs/semantics.md §3.6).
        let unasked = types.filter { type in
            !(TypeCatalog.type(type)?.correlationContents ?? [type]).contains { access.states[$0] != nil }
        }
        guard let first = unasked.first, !oneSuffices || unasked.count == types.count else { return }
        // Long lists (every type with series points) are named by their first few.
        let named = types.count > 6 ? types.prefix(5).joined(separator: ", ") + " or \(types.count - 5) more" : types.joined(separator: ", ")
        let what = oneSuffices ? "any of " + named : first
        throw HealthError(.authorizationNotDetermined,
                          "'\(access.session.bundleID)' has not requested authorization to read \(what); call RequestAuthorization first",
                          field: "types")
    }

    /// Query types: at least one, each a known sample type, and the predicate valid for them.
    func checkTypes(_ needed: CallKind.Types) throws(HealthError) {
        guard case .each(let types, let predicate, let field) = needed else { return }
        guard !types.isEmpty else { throw HealthError.invalid("a query needs at least one type", field: field) }
        for type in types { _ = try sampleType(type, field: field) }
        try predicate?.validate(forTypes: types)
    }

    /// The types a sample writes: a correlation writes its children's types (docs/semantics.md §3.6), anything else its own.
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
}

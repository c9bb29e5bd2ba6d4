import HealthModel
import HealthStorage
import HealthWire

// RequestAuthorization, GetAuthorizationStatus, GetRequestStatusForAuthorization (docs/semantics.md §3.2–3.4).
extension Dispatcher {
    func requestAuthorization(share: [String], read: [String], _ access: Access) async throws -> ServerResult {
        let (session, owner, states) = (access.session, access.owner, access.states)
        let wanted = try requestedPermissions(share: share, read: read)
        // The owner is the Health app: it holds every permission already.
        guard session.role == .app else { return .requestAuthorization }
        var updates: [AuthorizationUpdate] = []
        for (type, direction) in wanted {
            let current = states[type]?[direction]
            guard current != .granted, current != .denied else { continue }
            let state: PermissionState
            switch config.authorizationPolicy {
            case .prompt:
                guard current == nil else { continue }
                state = .pending
            case .allowAll: state = .granted
            case .denyAll: state = .denied
            }
            updates.append(AuthorizationUpdate(bundleID: session.bundleID, type: type, direction: direction, state: state))
        }
        try await permissions.record(owner: owner, updates)
        if updates.contains(where: { $0.state == .pending }) {
            logger.info("'\(session.bundleID)' requested \(updates.count) permission(s) from \(owner)")
            hub.publish(owner: owner, topic: .authorizationRequests)
        }
        // docs/semantics.md decision 6: success says the request was recorded, never whether access was granted.
        return .requestAuthorization
    }

    func authorizationStatus(types: [String], _ access: Access) throws(HealthError) -> ServerResult {
        guard !types.isEmpty else { throw HealthError.invalid("GetAuthorizationStatus needs at least one type", field: "types") }
        for type in types { try knownType(type, field: "types") }
        return .authorizationStatus(types.map { type in
            let status: AuthorizationStatus
            if shareDisallowedReason(type) != nil {
                status = .sharingDenied
            } else if access.session.role == .owner {
                status = .sharingAuthorized
            } else {
                switch access.states[type]?[.share] {
                case .granted?: status = .sharingAuthorized
                case .denied?: status = .sharingDenied
                case .pending?, nil: status = .notDetermined
                }
            }
            return TypeAuthorizationStatus(type: type, status: status)
        })
    }

    func requestStatus(share: [String], read: [String], _ access: Access) throws(HealthError) -> ServerResult {
        let wanted = try requestedPermissions(share: share, read: read)
        guard access.session.role == .app else { return .requestStatus(.unnecessary) }
        let unasked = wanted.contains { access.states[$0.type]?[$0.direction] == nil }
        return .requestStatus(unasked ? .shouldRequest : .unnecessary)
    }

    /// Every (type, direction) of a request, after HealthKit's rules: at least one type; no
    /// correlation types; share only for types apps may write (no characteristics, no Apple-only types).
    func requestedPermissions(share: [String], read: [String]) throws(HealthError) -> [(type: String, direction: AccessDirection)] {
        guard !share.isEmpty || !read.isEmpty else {
            throw HealthError.invalid("Must specify types to share or read", field: "share_types")
        }
        var wanted: [(type: String, direction: AccessDirection)] = []
        for type in share {
            try knownType(type, field: "share_types")
            if let reason = shareDisallowedReason(type) {
                throw HealthError.invalid("Authorization to share the following types is disallowed: \(type) (\(reason))", field: "share_types")
            }
            wanted.append((type, .share))
        }
        for type in read {
            try knownType(type, field: "read_types")
            if TypeCatalog.type(type)?.kind == .correlation {
                throw HealthError.invalid("Authorization to read the following types is disallowed: \(type) (request its contained types instead)", field: "read_types")
            }
            wanted.append((type, .read))
        }
        return wanted
    }

    /// Why apps may not be granted share permission for a type, or nil when they may.
    func shareDisallowedReason(_ identifier: String) -> String? {
        guard let type = TypeCatalog.type(identifier) else { return "unknown type" }
        if type.kind == .correlation { return "request its contained types instead" }
        if type.kind == .characteristic { return "characteristics are read-only for apps" }
        if type.kind == .electrocardiogram { return "electrocardiograms are recorded by the ECG app and saved only by the Health app" }
        if type.appleOnlyWrite { return "only Apple may write this type" }
        return nil
    }

    private func knownType(_ identifier: String, field: String) throws(HealthError) {
        guard TypeCatalog.type(identifier) != nil else {
            throw TypeCatalog.unknownType(identifier, field: field)
        }
    }
}

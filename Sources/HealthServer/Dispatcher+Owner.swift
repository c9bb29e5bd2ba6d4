import Foundation
import HealthModel
import HealthStorage
import HealthWire

// Owner calls (apps, decisions, permissions, source priority) and operator calls (owners).
extension Dispatcher {
    func registerApp(bundleID: String, name: String, _ access: Access) async throws -> ServerResult {
        let owner = access.owner
        try SourceRules.checkBundleID(bundleID)
        guard !name.trimmingCharacters(in: .whitespaces).isEmpty else {
            throw HealthError.invalid("an app needs a display name", field: "name")
        }
        guard bundleID != Principal.healthApp.bundleID else {
            throw HealthError.invalid("bundle id '\(bundleID)' is reserved for the owner's Health app", field: "bundle_id")
        }
        let token = try await store.registerApp(owner: owner, bundleID: bundleID, name: name)
        logger.info("\(owner) registered app '\(bundleID)'")
        return .appCredential(app: Source(name: name, bundleID: bundleID), token: token)
    }

    func listApps(_ access: Access) async throws -> ServerResult {
        .listApps(try await store.listApps(owner: access.owner))
    }

    func revokeApp(bundleID: String, _ access: Access) async throws -> ServerResult {
        let owner = access.owner
        _ = try await registeredApp(bundleID, owner: owner)
        let closed = try await credentials.revoking {
            try await store.revokeApp(owner: owner, bundleID: bundleID)
            permissions.forget(owner: owner, bundleIDs: [bundleID])
            return registry.closeConnections(owner: owner, bundleID: bundleID)
        }
        logger.info("\(owner) revoked app '\(bundleID)'; closing \(closed) connection(s)")
        return .revokeApp(connectionsClosed: UInt32(closed))
    }

    func rotateAppToken(bundleID: String, _ access: Access) async throws -> ServerResult {
        let owner = access.owner
        let app = try await registeredApp(bundleID, owner: owner)
        let (token, closed) = try await credentials.revoking {
            let token = try await store.rotateAppToken(owner: owner, bundleID: bundleID)
            // Connections authenticated with the old token end with it.
            return (token, registry.closeConnections(owner: owner, bundleID: bundleID))
        }
        logger.info("\(owner) rotated the token of '\(bundleID)'; closing \(closed) connection(s)")
        return .appCredential(app: app, token: token)
    }

    func listAuthorizationRequests(bundleID: String?, updates: Bool, _ access: Access, reply: CallReplier) async throws -> ServerResult? {
        let owner = access.owner
        if let bundleID { _ = try await registeredApp(bundleID, owner: owner) }
        let pending = { () async throws -> ServerResult in
            let apps = try await self.store.listApps(owner: owner)
            let names = Dictionary(apps.map { ($0.source.bundleID, $0.source) }, uniquingKeysWith: { a, _ in a })
            let requests = try await self.store.pendingRequests(owner: owner, bundleID: bundleID)
            return .authorizationRequests(requests.map { update, time in
                AuthorizationRequest(app: names[update.bundleID] ?? Source(name: update.bundleID, bundleID: update.bundleID),
                                     type: update.type, direction: update.direction, requestedTime: time)
            })
        }
        guard updates else { return try await pending() }
        return try await hub.watching(owner: owner, .authorizationRequests) { signal in
            await reply.send(try await pending(), more: true)
            while await signal.next() != nil {
                try await reply.producing { await reply.send(try await pending(), more: true) }
            }
            throw CancellationError()
        }
    }

    func decideAuthorization(bundleID: String, decisions: [AuthorizationDecision], _ access: Access) async throws -> ServerResult {
        let owner = access.owner
        _ = try await registeredApp(bundleID, owner: owner)
        guard !decisions.isEmpty else { throw HealthError.invalid("DecideAuthorization needs at least one decision", field: "decisions") }
        var updates: [AuthorizationUpdate] = []
        for decision in decisions {
            if decision.direction == .share {
                _ = try requestedPermissions(share: [decision.type], read: [])
            } else {
                _ = try requestedPermissions(share: [], read: [decision.type])
            }
            updates.append(AuthorizationUpdate(bundleID: bundleID, type: decision.type, direction: decision.direction,
                                               state: decision.grant ? .granted : .denied))
        }
        try await permissions.record(owner: owner, updates)
        hub.publish(owner: owner, topic: .authorizationRequests)
        logger.info("\(owner) decided \(updates.count) permission(s) for '\(bundleID)'")
        return .decideAuthorization(recorded: UInt32(updates.count))
    }

    func listPermissions(bundleID: String, _ access: Access) async throws -> ServerResult {
        let owner = access.owner
        _ = try await registeredApp(bundleID, owner: owner)
        return .listPermissions(try await store.permissions(owner: owner, bundleID: bundleID))
    }

    func setSourcePriority(type: String, bundleIDs: [String], _ access: Access) async throws -> ServerResult {
        let owner = access.owner
        guard Set(bundleIDs).count == bundleIDs.count else {
            throw HealthError.invalid("the source order names a bundle id twice", field: "bundle_ids")
        }
        for bundleID in bundleIDs { try SourceRules.checkBundleID(bundleID) }
        try await store.setSourcePriority(owner: owner, type: type, bundleIDs: bundleIDs)
        hub.publish(owner: owner, topic: .sourcePriority, changes: Changes(types: [type]))
        return try await sourcePriority(type: type, access)
    }

    func sourcePriority(type: String, _ access: Access) async throws -> ServerResult {
        let owner = access.owner
        let order = try await priorityOrder(owner: owner, type: type)
        var names = Dictionary(try await store.sourcesFirstSeen(owner: owner, type: type).map { ($0.0.bundleID, $0.0) },
                               uniquingKeysWith: { a, _ in a })
        for app in try await store.listApps(owner: owner) where names[app.source.bundleID] == nil {
            names[app.source.bundleID] = app.source
        }
        names[Principal.healthApp.bundleID] = names[Principal.healthApp.bundleID] ?? Principal.healthApp
        return .sourcePriority(type: type, sources: order.bundleIDs.map { names[$0] ?? Source(name: $0, bundleID: $0) })
    }

    func addOwner(name: String) async throws -> ServerResult {
        guard !name.trimmingCharacters(in: .whitespaces).isEmpty else {
            throw HealthError.invalid("an owner needs a name", field: "name")
        }
        let (id, token) = try await store.addOwner(name: name)
        logger.info("operator added \(id) '\(name)'")
        return .ownerCredential(name: name, token: token)
    }

    func listOwners() async throws -> ServerResult {
        .listOwners(try await store.listOwners().map(\.name))
    }

    /// The owner's app with this bundle id, or NOT_FOUND.
    private func registeredApp(_ bundleID: String, owner: OwnerID) async throws -> Source {
        guard let app = try await store.listApps(owner: owner).first(where: { $0.source.bundleID == bundleID }) else {
            throw HealthError(.notFound, "no app with bundle id '\(bundleID)' is registered", field: "bundle_id")
        }
        return app.source
    }
}

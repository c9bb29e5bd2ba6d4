import HealthModel
import HealthStorage
import Synchronization

/// What a connection is bound to after Hello: one principal, one owner, one source revision.
/// A class, so the call path passes one reference per call instead of copying (and retaining) every
/// string of the principal, revision and device.
final class Session: Sendable {
    let principal: Principal
    /// The source everything saved over this connection is stamped with.
    let revision: SourceRevision
    /// Device for samples that carry none.
    let defaultDevice: Device?
    /// The store's ids for what this connection saves, kept across its saves.
    let shortcuts = SaveShortcuts()
    /// The app's permission states as this connection's last save on the loop found them.
    let permissionSnapshot = Mutex<PermissionBook.Snapshot?>(nil)

    init(principal: Principal, revision: SourceRevision, defaultDevice: Device?) {
        self.principal = principal
        self.revision = revision
        self.defaultDevice = defaultDevice
    }

    var role: Role { principal.role }
    var source: Source { revision.source }
    var bundleID: String { revision.source.bundleID }

    /// The owner whose store this connection reads and writes; throws for the operator.
    func requireOwnerStore() throws(HealthError) -> OwnerID {
        guard let owner = principal.owner, principal.role != .serverOperator else {
            throw HealthError(.permissionDenied, "the operator credential manages owners only; use an owner or app token for data calls")
        }
        return owner
    }

    /// Throws unless the caller is the owner (the Health app role).
    func requireOwnerRole(_ call: String) throws(HealthError) -> OwnerID {
        guard principal.role == .owner, let owner = principal.owner else {
            throw HealthError(.permissionDenied, "\(call) needs the owner credential; this connection is \(roleName)")
        }
        return owner
    }

    /// Throws unless the caller is the server operator.
    func requireOperator(_ call: String) throws(HealthError) {
        guard principal.role == .serverOperator else {
            throw HealthError(.permissionDenied, "\(call) needs the operator credential; this connection is \(roleName)")
        }
    }

    var roleName: String {
        switch principal.role {
        case .app: "the app '\(bundleID)'"
        case .owner: "the owner '\(principal.ownerName)'"
        case .serverOperator: "the operator"
        }
    }
}

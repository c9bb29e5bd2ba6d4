import HealthModel
import HealthStorage
import Synchronization

/// Server-wide connection bookkeeping: the connection limits, ids, which connections are still
/// before authentication, which app connections are live (so revoking an app closes them at once),
/// and the output queued on all connections together.
final class ConnectionRegistry: Sendable {
    private struct AppKey: Hashable {
        let owner: OwnerID
        let bundleID: String
    }

    private let open = Atomic<Int>(0)
    private let lastID = Atomic<UInt64>(0)
    /// Connections whose Hello was not yet accepted, by id (ids grow, so the smallest is the oldest).
    private let unauthenticated = Mutex<[UInt64: (peer: String, loop: EventLoop)]>([:])
    private let output = Atomic<Int>(0)
    /// A live app connection: its loop, and the credential it authenticated with (checked again
    /// when revocations on other nodes may have been missed).
    struct LiveApp: Sendable {
        let loop: EventLoop
        let token: String
        let principal: Principal
    }

    private let apps = Mutex<(byApp: [AppKey: [UInt64: LiveApp]], byConnection: [UInt64: AppKey])>(([:], [:]))
    /// Counts revocations and rotations, each as it starts (`CredentialCache.revoking`) and as it closes
    /// the app's connections: a Hello whose token was checked before one of them and registered after it
    /// checks its token again (see `SessionStage.authenticated`).
    private let revocations = Atomic<UInt64>(0)

    /// Connections currently open.
    var openCount: Int { open.load(ordering: .relaxed) }

    /// A connection admitted, and the unauthenticated one it displaces (to be closed on its loop).
    struct Admission {
        let id: UInt64
        let displaced: (id: UInt64, loop: EventLoop)?
    }

    /// Counts a new, unauthenticated connection from `peer` served by `loop`; nil when the
    /// connection limit is reached and no unauthenticated connection can make room. When a limit
    /// is reached, the oldest unauthenticated connection from the same peer (per-address limit) or
    /// overall gives way, so strangers that never say Hello cannot keep clients out.
    func admit(peer: String, loop: EventLoop, config: ServerConfiguration) -> Admission? {
        unauthenticated.withLock { waiting in
            let fromPeer = waiting.filter { $0.value.peer == peer }
            let oldest: [UInt64: (peer: String, loop: EventLoop)]? =
                if fromPeer.count >= config.maxUnauthenticatedPerAddress { fromPeer }
                else if waiting.count >= config.maxUnauthenticated || openCount >= config.maxConnections { waiting }
                else { nil }
            var displaced: (id: UInt64, loop: EventLoop)?
            if let oldest {
                guard let id = oldest.keys.min() else { return nil }
                displaced = (id, waiting.removeValue(forKey: id)!.loop)
            }
            open.wrappingAdd(1, ordering: .relaxed)
            let id = lastID.wrappingAdd(1, ordering: .relaxed).newValue
            waiting[id] = (peer, loop)
            return Admission(id: id, displaced: displaced)
        }
    }

    /// The connection's Hello was accepted: it no longer counts as unauthenticated.
    func helloAccepted(connection: UInt64) {
        unauthenticated.withLock { _ = $0.removeValue(forKey: connection) }
    }

    func connectionClosed(_ connection: UInt64) {
        helloAccepted(connection: connection)
        open.wrappingSubtract(1, ordering: .relaxed)
    }

    /// Output queued on all connections together, in bytes.
    var queuedOutput: Int { output.load(ordering: .relaxed) }

    /// A connection's queued output grew (positive) or shrank (negative) by `bytes`.
    func outputQueued(_ bytes: Int) {
        output.wrappingAdd(bytes, ordering: .relaxed)
    }

    /// Records an authenticated app connection.
    func bind(connection: UInt64, on loop: EventLoop, session: Session, token: String) {
        guard session.role == .app, let owner = session.principal.owner else { return }
        let key = AppKey(owner: owner, bundleID: session.bundleID)
        apps.withLock { apps in
            apps.byApp[key, default: [:]][connection] = LiveApp(loop: loop, token: token, principal: session.principal)
            apps.byConnection[connection] = key
        }
    }

    func unbind(connection: UInt64) {
        apps.withLock { apps in
            guard let key = apps.byConnection.removeValue(forKey: connection) else { return }
            apps.byApp[key]?.removeValue(forKey: connection)
            if apps.byApp[key]?.isEmpty == true { apps.byApp.removeValue(forKey: key) }
        }
    }

    /// Every live app connection, to check its credential again. Counts as a revocation first (see
    /// `closeConnections`), so a Hello that registers after this snapshot checks its token again.
    func appConnectionsToRecheck() -> [(id: UInt64, app: LiveApp)] {
        countRevocation()
        return apps.withLock { apps in apps.byApp.values.flatMap { $0.map { (id: $0.key, app: $0.value) } } }
    }

    /// Revocations so far; read before a Hello's token is checked.
    var revocationCount: UInt64 { revocations.load(ordering: .sequentiallyConsistent) }

    /// A revocation is about to be committed (see `CredentialCache.revoking`).
    func countRevocation() {
        revocations.wrappingAdd(1, ordering: .sequentiallyConsistent)
    }

    /// Closes every live connection of an app; returns how many. Called after the revocation was
    /// committed; it counts first, so a Hello that registers after the connections were collected
    /// here sees the count move and checks its token again.
    func closeConnections(owner: OwnerID, bundleID: String) -> Int {
        countRevocation()
        let targets = apps.withLock { $0.byApp[AppKey(owner: owner, bundleID: bundleID)] ?? [:] }
        for (connection, live) in targets { close(connection, on: live.loop) }
        return targets.count
    }

    /// Ends one connection whose credential was revoked or rotated.
    func close(_ connection: UInt64, on loop: EventLoop) {
        loop.post { loop.connections[connection]?.credentialRevoked() }
    }
}

import HealthModel
import HealthStorage
import Synchronization

/// Server-wide connection bookkeeping: the connection limit, ids, and which app connections are
/// live (so revoking an app closes them at once).
final class ConnectionRegistry: Sendable {
    private struct AppKey: Hashable {
        let owner: OwnerID
        let bundleID: String
    }

    private let open = Atomic<Int>(0)
    private let lastID = Atomic<UInt64>(0)
    private let apps = Mutex<(byApp: [AppKey: [UInt64: EventLoop]], byConnection: [UInt64: AppKey])>(([:], [:]))
    /// Counts revocations and rotations: a Hello whose token was checked before one of them and
    /// registered after it checks its token again (see `Connection.authenticated`).
    private let revocations = Atomic<UInt64>(0)

    /// Connections currently open.
    var openCount: Int { open.load(ordering: .relaxed) }

    /// Counts a new connection and returns its id, or nil when `limit` connections are open.
    func admit(limit: Int) -> UInt64? {
        let count = open.wrappingAdd(1, ordering: .relaxed).newValue
        if count > limit {
            open.wrappingSubtract(1, ordering: .relaxed)
            return nil
        }
        return lastID.wrappingAdd(1, ordering: .relaxed).newValue
    }

    func connectionClosed() {
        open.wrappingSubtract(1, ordering: .relaxed)
    }

    /// Records an authenticated app connection.
    func bind(connection: UInt64, on loop: EventLoop, session: Session) {
        guard session.role == .app, let owner = session.principal.owner else { return }
        let key = AppKey(owner: owner, bundleID: session.bundleID)
        apps.withLock { apps in
            apps.byApp[key, default: [:]][connection] = loop
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

    /// Revocations so far; read before a Hello's token is checked.
    var revocationCount: UInt64 { revocations.load(ordering: .sequentiallyConsistent) }

    /// Closes every live connection of an app; returns how many. Called after the revocation was
    /// committed; it counts first, so a Hello that registers after the connections were collected
    /// here sees the count move and checks its token again.
    func closeConnections(owner: OwnerID, bundleID: String) -> Int {
        revocations.wrappingAdd(1, ordering: .sequentiallyConsistent)
        let targets = apps.withLock { $0.byApp[AppKey(owner: owner, bundleID: bundleID)] ?? [:] }
        for (connection, loop) in targets {
            loop.post { loop.connections[connection]?.credentialRevoked() }
        }
        return targets.count
    }
}

import HealthClient
import HealthModel
import HealthSimulator
import HealthWire

/// Plugs HealthClient into the simulator: device connections say Hello with the device's app
/// token, revision and device; owner calls go over one owner connection, re-dialled when it drops.
final class ClientConnector: StoreConnector {
    private let endpoint: Endpoint
    private let tls: ClientTLS?
    private let owner: OwnerSession

    init(endpoint: Endpoint, tls: ClientTLS?, ownerTokenFile: String) {
        self.endpoint = endpoint
        self.tls = tls
        owner = OwnerSession(endpoint: endpoint, tls: tls, tokenFile: ownerTokenFile)
    }

    func connect(token: String, revision: SourceRevision, device: Device) async throws -> any StoreLink {
        let hello = Hello(token: token, sourceRevision: revision, defaultDevice: device)
        return ClientLink(connection: try await HealthConnection.connect(to: endpoint, hello: hello, tls: tls))
    }

    func registerApp(bundleID: String, name: String) async throws -> String {
        try await owner.connection().registerApp(bundleID: bundleID, name: name).token
    }

    func rotateAppToken(bundleID: String) async throws -> String {
        try await owner.connection().rotateAppToken(bundleID: bundleID).token
    }

    func approve(bundleID: String, share: [String], read: [String]) async throws {
        let decisions = share.map { AuthorizationDecision(type: $0, direction: .share, grant: true) }
            + read.map { AuthorizationDecision(type: $0, direction: .read, grant: true) }
        try await owner.connection().decideAuthorization(bundleID: bundleID, decisions: decisions)
    }
}

/// The owner's connection, opened on first use with the owner token file.
actor OwnerSession {
    private let endpoint: Endpoint
    private let tls: ClientTLS?
    private let tokenFile: String
    private var current: HealthConnection?

    init(endpoint: Endpoint, tls: ClientTLS?, tokenFile: String) {
        self.endpoint = endpoint
        self.tls = tls
        self.tokenFile = tokenFile
    }

    func connection() async throws -> HealthConnection {
        if let current, !current.isClosed { return current }
        let token = try TokenSource.read(tokenFile)
        let opened = try await HealthConnection.connect(to: endpoint, hello: Hello(token: token), tls: tls)
        current = opened
        return opened
    }
}

/// One device's connection.
struct ClientLink: StoreLink {
    let connection: HealthConnection

    func save(_ samples: [Sample]) async throws -> [SaveOutcome] {
        try await connection.save(samples)
    }

    func requestAuthorization(share: [String], read: [String]) async throws {
        try await connection.requestAuthorization(share: share, read: read)
    }

    func close() {
        connection.close()
    }
}

import Foundation
import HealthClient
import HealthModel
import HealthSimulator
import HealthWire
import Synchronization

/// Plugs HealthClient into the simulator: device connections say Hello with the device's app
/// token, revision and device; owner calls go over one owner connection, re-dialled when it drops.
/// Given several nodes, each device starts at the next one in turn (the fleet spreads over them)
/// and a device whose node dies reconnects to the node after it.
final class ClientConnector: StoreConnector {
    private let servers: [Endpoint]
    private let tls: ClientTLS?
    private let timeout: Duration
    private let owner: OwnerSession
    /// Each device's own place in the server list.
    private let rotations = Mutex<[Device: ServerRotation]>([:])

    init(servers: [Endpoint], tls: ClientTLS?, timeout: Duration, ownerTokenFile: String) {
        self.servers = servers
        self.tls = tls
        self.timeout = timeout
        owner = OwnerSession(servers: ServerList(servers), tls: tls, timeout: timeout, tokenFile: ownerTokenFile)
    }

    func connect(token: String, revision: SourceRevision, device: Device) async throws -> any StoreLink {
        let hello = Hello(token: token, sourceRevision: revision, defaultDevice: device)
        let rotation = rotations.withLock { rotations in
            if let known = rotations[device] { return known }
            let started = ServerRotation(ServerList(servers, start: rotations.count))
            rotations[device] = started
            return started
        }
        return ClientLink(connection: try await rotation.dial(hello: hello, tls: tls, timeout: timeout))
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

    func saveAsOwner(_ samples: [Sample]) async throws -> [SaveOutcome] {
        try await owner.connection().save(samples)
    }
}

/// The owner's client, made on first use with the owner token file: it fails over between the
/// nodes and repeats approvals cut off by a node's death (registrations are never repeated).
actor OwnerSession {
    private let servers: ServerList
    private let tls: ClientTLS?
    private let timeout: Duration
    private let tokenFile: String
    private var client: ReconnectingClient?

    init(servers: ServerList, tls: ClientTLS?, timeout: Duration, tokenFile: String) {
        self.servers = servers
        self.tls = tls
        self.timeout = timeout
        self.tokenFile = tokenFile
    }

    func connection() throws -> ReconnectingClient {
        if let client { return client }
        let made = ReconnectingClient(servers: servers, hello: Hello(token: try TokenSource.read(tokenFile)), tls: tls,
                                      policy: ReconnectingClient.Policy(timeout: timeout))
        client = made
        return made
    }
}

/// One device's connection.
struct ClientLink: StoreLink {
    let connection: HealthConnection

    func save(_ samples: [Sample]) async throws -> [SaveOutcome] {
        try await connection.save(samples)
    }

    func build(_ series: DerivedSeries) async throws -> SaveOutcome {
        let stored = try await connection.samples(SampleQuery(types: [series.type], predicate: .uuids([series.id])))
        if !stored.isEmpty { return .alreadyStored }
        let built: Sample?
        switch series.points {
        case .locations(let locations):
            built = try await connection.routeBuilder(id: series.id, device: series.device).build(locations, workout: series.workout)
        case .beats(let beats):
            built = try await connection.heartbeatSeriesBuilder(start: series.start, id: series.id, device: series.device).build(beats)
        case .quantities(let points):
            guard let type = TypeCatalog.type(series.type) else { throw TypeCatalog.unknownType(series.type) }
            built = try await connection.quantitySeriesBuilder(type: type, start: series.start, id: series.id, device: series.device)
                .build(points)
        case .voltages:
            throw HealthError(.invalidArgument, "electrocardiograms are saved whole, not built", field: "voltages")
        }
        return built == nil ? .keptExisting : .stored
    }

    func requestAuthorization(share: [String], read: [String]) async throws {
        try await connection.requestAuthorization(share: share, read: read)
    }

    func close() {
        connection.close()
    }
}

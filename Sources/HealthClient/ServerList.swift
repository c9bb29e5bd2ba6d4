import HealthModel
import HealthWire
import Synchronization

/// The addresses of several nodes serving one store, in the order a client dials them: from the
/// node that last worked; once its connection is lost, from the node after it, the lost node
/// last (it may be back by then).
public struct ServerList: Sendable, Hashable {
    public let endpoints: [Endpoint]
    private var start: Int
    private var current: Int?

    /// Nodes tried in the order given, from `endpoints[start % count]` (clients with many
    /// connections spread them by starting each at another node).
    public init(_ endpoints: [Endpoint], start: Int = 0) {
        precondition(!endpoints.isEmpty, "a server list needs at least one address")
        self.endpoints = endpoints
        self.start = start % endpoints.count
    }

    /// The order of the next dial. Dialing again after a connection was made means that
    /// connection was lost, so the node after it goes first.
    public mutating func dialOrder() -> [Endpoint] {
        if let current {
            start = (current + 1) % endpoints.count
            self.current = nil
        }
        return endpoints.indices.map { endpoints[(start + $0) % endpoints.count] }
    }

    /// Records the node a dial reached: the next dial after a loss starts past it.
    public mutating func connected(to endpoint: Endpoint) {
        let order = endpoints.indices.map { (start + $0) % endpoints.count }
        current = order.first { endpoints[$0] == endpoint }
        if let current { start = current }
    }
}

/// A `ServerList` shared by the dials of one logical client: each dial follows the list's order
/// and records the node it reached.
public final class ServerRotation: Sendable {
    private let list: Mutex<ServerList>

    public init(_ list: ServerList) { self.list = Mutex(list) }

    /// Connects to the first node in the list's order that answers within `timeout` (see
    /// `HealthConnection.connect(to:hello:tls:maxFrameBytes:timeout:)`).
    public func dial(hello: Hello, tls: ClientTLS?, timeout: Duration = HealthConnection.defaultTimeout) async throws -> HealthConnection {
        let order = list.withLock { $0.dialOrder() }
        let connection = try await HealthConnection.connect(to: order, hello: hello, tls: tls, timeout: timeout)
        if let endpoint = connection.endpoint { list.withLock { $0.connected(to: endpoint) } }
        return connection
    }
}

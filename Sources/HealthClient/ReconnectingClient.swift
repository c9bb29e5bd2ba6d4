import HealthModel
import HealthWire

/// A client that survives server restarts, network blips and, given several nodes of one store,
/// the death of a node: it dials lazily, re-dials and re-says Hello with exponential backoff after
/// the connection drops (moving on to the next node, see `ServerList`), and retries calls that are
/// safe to repeat until `Policy.callDeadline`.
///
/// Saves are retried too: objects carry their UUIDs, so a save that did reach the store before the
/// connection dropped is answered `alreadyStored` the second time. Calls that mint credentials
/// (RegisterApp, RotateAppToken, AddOwner) are never retried, since a lost answer would lose the
/// token. Long-running streams are not resumed: they end with `.unavailable` and the consumer
/// re-subscribes (for anchored queries, from the last anchor it saw).
public actor ReconnectingClient: HealthCalling {
    /// Backoff and deadline settings.
    public struct Policy: Sendable {
        /// First wait after a failed dial.
        public var initialDelay: Duration
        /// Longest wait between dials.
        public var maxDelay: Duration
        /// How long a call may wait for a usable connection before it fails with `.unavailable`.
        public var callDeadline: Duration
        /// How long a server may stay silent: each dial's connection and Hello, and a waiting call's
        /// Ping (see `HealthConnection.connect(to:hello:tls:maxFrameBytes:timeout:)`).
        public var timeout: Duration

        public init(initialDelay: Duration = .milliseconds(100), maxDelay: Duration = .seconds(5),
                    callDeadline: Duration = .seconds(30), timeout: Duration = HealthConnection.defaultTimeout) {
            self.initialDelay = initialDelay
            self.maxDelay = maxDelay
            self.callDeadline = callDeadline
            self.timeout = timeout
        }
    }

    public nonisolated let policy: Policy
    private let dial: @Sendable () async throws -> HealthConnection
    private var current: HealthConnection?
    private var dialing: Task<HealthConnection, any Error>?
    private var closed = false

    /// A client of the server at `endpoint` (over TLS when `tls` is given), saying `hello` on
    /// every (re)connection.
    public init(endpoint: Endpoint, hello: Hello, tls: ClientTLS? = nil, policy: Policy = Policy()) {
        self.init(servers: ServerList([endpoint]), hello: hello, tls: tls, policy: policy)
    }

    /// A client of several nodes serving one store, dialed in the order of `servers`.
    public init(servers: ServerList, hello: Hello, tls: ClientTLS? = nil, policy: Policy = Policy()) {
        let rotation = ServerRotation(servers)
        self.init(policy: policy) { try await rotation.dial(hello: hello, tls: tls, timeout: policy.timeout) }
    }

    /// Connects now, trying each node once (so an unreachable store or a refused credential is
    /// reported at once, as tools want), and afterwards behaves as `init(servers:hello:tls:policy:)`.
    public static func connect(to servers: ServerList, hello: Hello, tls: ClientTLS? = nil,
                               policy: Policy = Policy()) async throws -> ReconnectingClient {
        let rotation = ServerRotation(servers)
        let first = try await rotation.dial(hello: hello, tls: tls, timeout: policy.timeout)
        let client = ReconnectingClient(policy: policy) { try await rotation.dial(hello: hello, tls: tls, timeout: policy.timeout) }
        await client.adopt(first)
        return client
    }

    /// `connect(to:hello:tls:policy:)` as the holder of `token`, saving as `revision` (tools that
    /// need nothing else of Hello).
    public static func connect(to servers: ServerList, token: String, revision: SourceRevision,
                               tls: ClientTLS? = nil, policy: Policy = Policy()) async throws -> ReconnectingClient {
        try await connect(to: servers, hello: Hello(token: token, sourceRevision: revision), tls: tls, policy: policy)
    }

    /// A client that obtains each connection from `dial` (tests dial in-memory transports).
    public init(policy: Policy = Policy(), dial: @escaping @Sendable () async throws -> HealthConnection) {
        self.policy = policy
        self.dial = dial
    }

    /// A live connection: the current one, or a new one dialed with backoff until the deadline.
    public func connection() async throws -> HealthConnection {
        try await connection(before: .now + policy.callDeadline)
    }

    /// The address of the node the client is connected to; nil while disconnected.
    public var server: Endpoint? {
        guard let current, !current.isClosed else { return nil }
        return current.endpoint
    }

    private func adopt(_ connection: HealthConnection) { current = connection }

    /// Closes the current connection; later calls fail with `.unavailable`.
    public func close() {
        closed = true
        dialing?.cancel()
        current?.close()
        current = nil
    }

    public nonisolated func results(_ call: ClientCall) async throws -> [ServerResult] {
        let deadline = ContinuousClock.now + policy.callDeadline
        while true {
            let connection = try await connection(before: deadline)
            do {
                return try await connection.results(call)
            } catch let error as HealthError where error.code == .unavailable && connection.isClosed
                && call.isSafeToRetry && ContinuousClock.now < deadline {
                continue
            }
        }
    }

    public nonisolated func stream(_ call: ClientCall) -> AsyncThrowingStream<ServerResult, any Error> {
        let (output, continuation) = AsyncThrowingStream<ServerResult, any Error>.makeStream()
        let forwarder = Task {
            do {
                for try await answer in try await connection().stream(call) { continuation.yield(answer) }
                continuation.finish()
            } catch {
                continuation.finish(throwing: error)
            }
        }
        continuation.onTermination = { _ in forwarder.cancel() }
        return output
    }

    /// The current connection's paced stream, taken as it is (a forwarder would read ahead of the
    /// consumer); like `stream`, not resumed when the connection drops.
    public nonisolated func pacedStream(_ call: ClientCall, waiting: Int) -> AsyncThrowingStream<ServerResult, any Error> {
        AnswerRelay { try await self.connection().pacedStream(call, waiting: waiting) }.stream
    }

    private func connection(before deadline: ContinuousClock.Instant) async throws -> HealthConnection {
        if closed { throw HealthError(.unavailable, "the client was closed") }
        if let current, !current.isClosed { return current }
        // Concurrent callers during an outage share one dialing attempt.
        let task = dialing ?? Task { [dial, policy] in try await Self.dialWithBackoff(dial, policy, deadline) }
        dialing = task
        defer { if dialing == task { dialing = nil } }
        let connection = try await task.value
        if closed {
            connection.close()
            throw HealthError(.unavailable, "the client was closed")
        }
        current = connection
        return connection
    }

    /// Dials until it works, the deadline passes, or the server refuses for a reason other than
    /// being unreachable (a bad token does not get better by retrying).
    private static func dialWithBackoff(_ dial: @Sendable () async throws -> HealthConnection, _ policy: Policy,
                                        _ deadline: ContinuousClock.Instant) async throws -> HealthConnection {
        var delay = policy.initialDelay
        while true {
            do {
                return try await dial()
            } catch let error as HealthError where error.code == .unavailable {
                let jittered = delay * Double.random(in: 0.8...1.2)
                guard ContinuousClock.now + jittered < deadline else {
                    throw HealthError(.unavailable, "server unreachable until the call deadline: \(error.message)")
                }
                try await Task.sleep(for: jittered)
                delay = min(delay * 2, policy.maxDelay)
            }
        }
    }
}

extension ClientCall {
    /// True when sending the call twice does no harm: everything except the calls that mint
    /// credentials (a lost answer would lose the token) and the connection-level ones.
    var isSafeToRetry: Bool {
        switch self {
        case .hello, .cancel, .registerApp, .rotateAppToken, .addOwner: false
        default: true
        }
    }
}

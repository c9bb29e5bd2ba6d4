import HealthModel
import HealthWire

/// One authenticated connection to a HealthStore server.
///
/// A `final class` rather than an actor: every method is safe to call from any task, calls are
/// pipelined (each gets its own call id and answers are routed back by id), and nothing waits on
/// an actor hop. Errors thrown are always `HealthError`: the server's Error answers as sent, and
/// connection failures as `.unavailable`. A silent server fails the connection after `timeout`:
/// connecting and saying Hello must be over within it, and a connection with calls waiting checks
/// that the server still answers (`Liveness`).
public final class HealthConnection: HealthCalling {
    /// The server's answer to Hello.
    public let helloResult: HelloResult
    /// The address the connection was dialed at; nil over a transport given by the caller.
    public let endpoint: Endpoint?
    private let transport: any MessageTransport
    private let router: CallRouter
    private let liveness: Liveness

    /// How long a server may stay silent when nothing says otherwise.
    public static let defaultTimeout = Duration.seconds(10)

    private init(transport: any MessageTransport, router: CallRouter, helloResult: HelloResult, endpoint: Endpoint?,
                 timeout: Duration) {
        self.transport = transport
        self.router = router
        self.helloResult = helloResult
        self.endpoint = endpoint
        liveness = Liveness(router: router, transport: transport, timeout: timeout, endpoint: endpoint)
    }

    /// Dials `endpoint` (over TLS when `tls` is given) and says Hello; returns once the server
    /// accepted the credential. The TCP connection, the TLS handshake and the answer to Hello must
    /// all be over within `timeout`, or the dial fails with `.unavailable` naming the address and
    /// the timeout; afterwards, with calls waiting, `timeout` without a byte from the server sends
    /// a Ping, and the calls fail when it goes unanswered for `timeout` more.
    public static func connect(to endpoint: Endpoint, hello: Hello, tls: ClientTLS? = nil,
                               maxFrameBytes: Int = WireLimits.defaultMaxFrameBytes,
                               timeout: Duration = defaultTimeout) async throws -> HealthConnection {
        let deadline = Deadline(timeout)
        let transport = try SocketTransport(endpoint: endpoint, maxFrameBytes: maxFrameBytes, tls: tls, before: deadline)
        return try await connect(over: transport, hello: hello, endpoint: endpoint, before: deadline)
    }

    /// Connects to the first of `endpoints` that answers (a failed connection or an UNAVAILABLE
    /// answer moves on to the next); other errors, such as a refused token, end the attempt at once.
    public static func connect(to endpoints: [Endpoint], hello: Hello, tls: ClientTLS? = nil,
                               maxFrameBytes: Int = WireLimits.defaultMaxFrameBytes,
                               timeout: Duration = defaultTimeout) async throws -> HealthConnection {
        var failures: [String] = []
        for endpoint in endpoints {
            do {
                return try await connect(to: endpoint, hello: hello, tls: tls, maxFrameBytes: maxFrameBytes, timeout: timeout)
            } catch let error as HealthError where error.code == .unavailable {
                failures.append(error.message)
            }
        }
        guard !failures.isEmpty else { throw HealthError.invalid("no server address to connect to", field: "server") }
        let tried = failures.count == 1 ? failures[0] : "no server answered: " + failures.joined(separator: "; ")
        throw HealthError(.unavailable, tried)
    }

    /// Says Hello over an already open transport (tests use an in-memory one), with `timeout` as
    /// in `connect(to:hello:tls:maxFrameBytes:timeout:)`.
    public static func connect(over transport: any MessageTransport, hello: Hello, endpoint: Endpoint? = nil,
                               timeout: Duration = defaultTimeout) async throws -> HealthConnection {
        try await connect(over: transport, hello: hello, endpoint: endpoint, before: Deadline(timeout))
    }

    private static func connect(over transport: any MessageTransport, hello: Hello, endpoint: Endpoint?,
                                before deadline: Deadline) async throws -> HealthConnection {
        let router = CallRouter()
        transport.start(onMessage: { message in
            // Call id 0 carries connection-level errors: the server closes right after, and this
            // is the reason every pending call should report.
            if message.callID == 0, case .error(let error) = message.result {
                router.close(with: error)
                return
            }
            // The server holds an observer's next event until this one is acknowledged (docs/semantics.md §6.9).
            // Sent off the reader queue, which serves every connection and must never block on a
            // full send buffer; the answer arrives under an id nobody waits for and is dropped.
            if case .observerEvent(_, let sequence) = message.result, sequence > 0 {
                let ack = ClientMessage(callID: router.nextID(), call: .ackObserverEvent(targetCallID: message.callID, sequence: sequence))
                Task { try? transport.send(ack) }
            }
            router.deliver(message)
        }, onClose: { error in
            router.close(with: error)
        })
        // A server that accepted the connection and says nothing fails the Hello at the deadline.
        let expiry = Task {
            try await Task.sleep(until: deadline.end)
            router.close(with: deadline.missed("\(endpoint.map { "\($0)" } ?? "the server") did not answer Hello"))
        }
        defer { expiry.cancel() }
        do {
            let answers = try await collect(.hello(hello), router: router, transport: transport)
            guard case .hello(let result)? = answers.last else {
                throw unexpected(answers.last, for: "Hello")
            }
            return HealthConnection(transport: transport, router: router, helloResult: result, endpoint: endpoint,
                                    timeout: deadline.timeout)
        } catch {
            transport.close()
            throw error
        }
    }

    /// Every answer to `call` until its last one (pages of one result set, or a single answer).
    public func results(_ call: ClientCall) async throws -> [ServerResult] {
        try await Self.collect(call, router: router, transport: transport, keepingAlive: self)
    }

    /// The answers to `call` as they arrive. When the consumer stops iterating before the call
    /// ended, the client sends Cancel for it.
    public func stream(_ call: ClientCall) -> AsyncThrowingStream<ServerResult, any Error> {
        Self.open(call, router: router, transport: transport, keepingAlive: self)
    }

    /// `stream`, read only as fast as the consumer takes the answers: while `waiting` of them wait
    /// to be taken the connection stops reading its socket, so the server holds the rest back
    /// (its output bound), and a slow consumer keeps at most `waiting` answers in memory. Every
    /// other call on this connection waits with it: give such a call a connection of its own.
    public func pacedStream(_ call: ClientCall, waiting: Int) -> AsyncThrowingStream<ServerResult, any Error> {
        let pacing = AnswerPacing(limit: waiting, transport: transport)
        let answers = Self.open(call, router: router, transport: transport, keepingAlive: self, pacing: pacing)
        return AnswerRelay(pacing: pacing) { answers }.stream
    }

    /// True once the connection ended (closed, lost, or refused by the server).
    public var isClosed: Bool { router.closedBy != nil }

    /// Why the connection ended, once it has.
    public var closeReason: HealthError? { router.closedBy }

    /// Closes the connection; calls in flight fail with `.unavailable`.
    public func close() {
        router.close(with: HealthError(.unavailable, "connection closed by the client"))
        liveness.stop()
        transport.close()
    }

    deinit {
        liveness.stop()
        transport.close()
    }

    private static func collect(_ call: ClientCall, router: CallRouter, transport: any MessageTransport,
                                keepingAlive connection: HealthConnection? = nil) async throws -> [ServerResult] {
        var answers: [ServerResult] = []
        for try await answer in open(call, router: router, transport: transport, keepingAlive: connection) {
            answers.append(answer)
        }
        // A cancelled task's stream just ends (after telling the server): without this check a
        // cancelled call looked like an empty answer — a save "answered with no answer" (MALFORMED),
        // a paged query silently empty.
        try Task.checkCancellation()
        return answers
    }

    /// Registers and sends `call`. The stream holds `connection` until it ends, so a caller that
    /// keeps only the stream (`for try await x in try await connect(…).observe(…)`) does not
    /// close the connection under it.
    private static func open(_ call: ClientCall, router: CallRouter, transport: any MessageTransport,
                             keepingAlive connection: HealthConnection?, pacing: AnswerPacing? = nil) -> AsyncThrowingStream<ServerResult, any Error> {
        let (stream, continuation) = AsyncThrowingStream<ServerResult, any Error>.makeStream()
        let id: UInt64
        switch router.register(continuation, pacing: pacing) {
        case .failure(let error):
            continuation.finish(throwing: error)
            return stream
        case .success(let registered):
            id = registered
        }
        continuation.onTermination = { termination in
            withExtendedLifetime(connection) {}
            guard case .cancelled = termination, router.forget(id) else { return }
            // The consumer walked away from a call still running: tell the server. Its reply and
            // the call's CallEnded arrive under ids nobody waits for and are dropped.
            try? transport.send(ClientMessage(callID: router.nextID(), call: .cancel(targetCallID: id)))
        }
        do {
            try transport.send(ClientMessage(callID: id, call: call))
        } catch {
            router.forget(id)
            continuation.finish(throwing: error)
        }
        return stream
    }
}

/// The error for an answer of the wrong kind.
func unexpected(_ answer: ServerResult?, for call: String) -> HealthError {
    let what = answer.map { "\($0)".prefix(80) } ?? "no answer"
    return HealthError(.malformed, "the server answered \(call) with \(what)")
}

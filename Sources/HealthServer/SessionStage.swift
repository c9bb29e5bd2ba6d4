import HealthModel
import HealthWire

/// What the session stage needs from its connection (on the loop thread).
protocol SessionStageHost: AnyObject {
    /// False once the connection began closing: late outcomes are then ignored.
    var isOpen: Bool { get }
    /// Answers a call from the loop thread.
    func answer(_ callID: UInt64, _ result: ServerResult)
    /// Answers a connection error (call id 0) and closes.
    func fail(_ error: HealthError)
    func closeAfterFlush()
    func pauseInput()
    /// Resumes reading unless the connection is draining.
    func resumeInput()
    /// Hands a call of an accepted session to the call table.
    func dispatch(_ message: ClientMessage, session: Session)
}

/// The second stage of a connection: the Hello, its authentication, revocation, the Hello timeout
/// and the calls queued before the Hello is accepted. It never touches the socket.
///
/// Memory stays bounded before Hello: only a small first frame is accepted (see `FrameTransport`),
/// nothing is read while the Hello is checked, and at most `maxCallsInFlight` calls already
/// received are queued meanwhile.
final class SessionStage {
    private enum Phase {
        case awaitingHello, authenticating
        case ready(Session)
    }

    // `host` and `phase`, read for every call, are `@exclusivity(unchecked)`: confined to the loop's
    // thread, each access a plain read or assignment.

    /// Set by the owning `Connection` right after creating this stage.
    @exclusivity(unchecked) unowned var host: (any SessionStageHost)!
    private let id: UInt64
    private unowned let loop: EventLoop
    private let core: ServerCore
    private let peer: String
    private let openedAt: UInt64
    @exclusivity(unchecked) private var phase = Phase.awaitingHello
    private var queuedBeforeHello: [ClientMessage] = []

    private var config: ServerConfiguration { core.config }

    init(id: UInt64, loop: EventLoop, core: ServerCore, peer: String, openedAt: UInt64) {
        self.id = id
        self.loop = loop
        self.core = core
        self.peer = peer
        self.openedAt = openedAt
    }

    /// Whether input is welcome: not while the Hello is being checked.
    var wantsInput: Bool {
        if case .authenticating = phase { false } else { true }
    }

    var isReady: Bool {
        if case .ready = phase { true } else { false }
    }

    /// The accepted session; nil before the Hello is accepted.
    var session: Session? {
        if case .ready(let session) = phase { session } else { nil }
    }

    /// A call that decoded but breaks the contract fails alone; before Hello it still closes.
    func refused(_ callID: UInt64, _ error: HealthError) {
        host.answer(callID, .error(error))
        if case .awaitingHello = phase { host.closeAfterFlush() }
    }

    func received(_ message: ClientMessage) {
        switch phase {
        case .awaitingHello:
            guard case .hello(let hello) = message.call else {
                return host.fail(HealthError(.malformed, "the first call must be Hello, got \(message.call.name)"))
            }
            phase = .authenticating
            // A device connecting again with its token is answered here, without a reader's thread hops.
            if let (outcome, revocations) = core.dispatcher.rememberedHello(hello, peer: peer) {
                return authenticated(outcome, callID: message.callID, token: hello.token, revocationsBefore: revocations)
            }
            // Nothing more is read from a client until its Hello is accepted: only frames already
            // received are queued.
            host.pauseInput()
            authenticate(hello, callID: message.callID)
        case .authenticating:
            if queuedBeforeHello.count >= config.maxCallsInFlight {
                host.answer(message.callID, .error(.tooManyCalls(limit: config.maxCallsInFlight)))
            } else {
                queuedBeforeHello.append(message)
            }
        case .ready(let session):
            host.dispatch(message, session: session)
        }
    }

    private func authenticate(_ hello: Hello, callID: UInt64) {
        let (core, loop, id, peer) = (core, loop, id, peer)
        let revocations = core.registry.revocationCount
        Task {
            let outcome = await core.dispatcher.hello(hello, peer: peer)
            loop.post {
                loop.connections[id]?.sessionStage.authenticated(outcome, callID: callID, token: hello.token,
                                                                 revocationsBefore: revocations)
            }
        }
    }

    /// Registers the session before accepting it, so a revoke from now on finds this connection.
    /// A revoke that started after the token was checked (by the store, or in the `CredentialCache`)
    /// but collected the app's connections before this registration moved the revocation count: the
    /// token is then checked again by the store.
    private func authenticated(_ outcome: Result<(Session, HelloResult), HealthError>, callID: UInt64, token: String,
                               revocationsBefore: UInt64) {
        guard case .authenticating = phase, host.isOpen else { return }
        switch outcome {
        case .success(let (session, result)):
            core.registry.bind(connection: id, on: loop, session: session, token: token)
            guard core.registry.revocationCount != revocationsBefore else { return accept(session, result, callID: callID) }
            host.pauseInput()
            let (core, loop, id) = (core, loop, id)
            Task {
                let valid = await core.dispatcher.isStillValid(token: token, for: session.principal)
                loop.post { loop.connections[id]?.sessionStage.rechecked(valid: valid, session, result, callID: callID) }
            }
        case .failure(let error):
            refuse(error, callID: callID)
        }
    }

    private func rechecked(valid: Bool, _ session: Session, _ result: HelloResult, callID: UInt64) {
        guard case .authenticating = phase, host.isOpen else { return }
        guard valid else {
            return refuse(HealthError(.unauthenticated, "the token is not valid: unknown, revoked or rotated", field: "hello.token"),
                          callID: callID)
        }
        accept(session, result, callID: callID)
    }

    private func accept(_ session: Session, _ result: HelloResult, callID: UInt64) {
        phase = .ready(session)
        core.registry.helloAccepted(connection: id)
        core.metrics.connectionAuthenticated(as: session.role)
        host.resumeInput()
        core.logger.debug("connection \(id) from \(peer): hello as \(session.roleName)")
        host.answer(callID, .hello(result))
        let queued = queuedBeforeHello
        queuedBeforeHello = []
        for message in queued { host.dispatch(message, session: session) }
    }

    private func refuse(_ error: HealthError, callID: UInt64) {
        core.logger.info("connection \(id) from \(peer): hello refused: \(error)")
        host.answer(callID, .error(error))
        host.closeAfterFlush()
    }

    /// Newer connections needed this one's place while it was still before its Hello.
    func displacedBeforeHello() {
        guard !isReady, host.isOpen else { return }
        host.fail(HealthError(.resourceExhausted,
                              "closed before its Hello was accepted to make room for newer connections; connect again"))
    }

    /// The owner revoked this connection's credential: tell the client and close.
    func credentialRevoked() {
        host.fail(HealthError(.unauthenticated, "the credential of this connection was revoked or rotated by the owner"))
    }

    /// The Hello timeout, checked periodically.
    func tick(now: UInt64) {
        guard case .awaitingHello = phase, host.isOpen, Double(now - openedAt) > config.helloTimeout * 1000 else { return }
        host.fail(HealthError(.unauthenticated, "no Hello within \(config.helloTimeout) s"))
    }
}

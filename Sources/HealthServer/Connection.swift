import HealthModel
import HealthWire

/// One client connection: the owner of its three stages and of its lifecycle.
///
/// A call travels up through the stages, each its own type seeing only its neighbours through
/// this owner: `FrameTransport` (socket bytes ⇄ frames, TLS, output bounds) → `SessionStage`
/// (Hello, authentication, revocation) → `CallTable` (calls in flight, each answered by the
/// `Dispatcher` in its own task). Answers go back down the same way. The connection decides when
/// to close: idle timeout, protocol errors, shutdown drain, and the teardown of every stage.
/// Confined to its loop's thread (see `EventLoop`); tasks reach it only through `loop.post`.
final class Connection {
    let id: UInt64
    unowned let loop: EventLoop
    private let core: ServerCore
    let peer: String
    private let transport: FrameTransport
    let sessionStage: SessionStage
    let calls: CallTable
    /// When a call was last handed to the call table (the transport tracks input).
    private var lastCallAt: UInt64

    private var config: ServerConfiguration { core.config }

    /// Adopts an accepted socket on `loop`'s thread; nil (socket closed) when libuv refuses it.
    init?(fd: Int32, kind: TransportKind, peer: String, id: UInt64, loop: EventLoop, core: ServerCore) {
        self.id = id
        self.loop = loop
        self.core = core
        self.peer = peer
        do {
            transport = try FrameTransport(fd: fd, kind: kind, loop: loop, core: core)
        } catch {
            core.logger.warning("connection \(id) from \(peer): \(error)")
            core.registry.connectionClosed(id)
            return nil
        }
        lastCallAt = transport.now
        core.metrics.connectionOpened()
        sessionStage = SessionStage(id: id, loop: loop, core: core, peer: peer, openedAt: lastCallAt)
        calls = CallTable(id: id, loop: loop, core: core)
        transport.delegate = self
        sessionStage.host = self
        calls.host = self
        loop.connections[id] = self
        transport.startReading()
    }

    /// Sends what is queued, then closes; gives up after a short deadline.
    func closeAfterFlush() {
        transport.closeAfterFlush()
    }

    /// Closes at once, cancelling every call in flight.
    private func teardown(reason: String?, level: LogLevel = .info) {
        guard !transport.isClosed else { return }
        transport.close()
        if let reason { core.logger.log(level, "connection \(id) from \(peer): \(reason)") }
        calls.cancelAll()
        core.metrics.connectionClosed(role: sessionStage.session?.role)
        core.registry.unbind(connection: id)
        loop.connections.removeValue(forKey: id)
        core.registry.connectionClosed(id)
    }

    /// Newer connections needed this one's place while it was still before its Hello.
    func displacedBeforeHello() {
        sessionStage.displacedBeforeHello()
    }

    /// The owner revoked this connection's credential: tell the client and close.
    func credentialRevoked() {
        sessionStage.credentialRevoked()
    }

    /// Shutdown: stop reading, end long-running calls, close once the other calls are answered.
    func beginDrain() {
        guard !transport.isClosed else { return }
        calls.draining = true
        transport.stopReading()
        guard transport.isOpen, sessionStage.isReady else { return closeAfterFlush() }
        calls.endLongRunningCalls()
    }

    /// Periodic checks: the transport's timeouts, Hello timeout, idle timeout; and room freed by
    /// other connections' output draining.
    func tick() {
        guard transport.tick() else { return }
        calls.grantRoom()
        let now = transport.now
        sessionStage.tick(now: now)
        if transport.isOpen, sessionStage.isReady, calls.isEmpty,
           Double(now - max(lastCallAt, transport.lastInputAt)) > config.idleTimeout * 1000 {
            fail(HealthError(.unavailable, "idle for more than \(config.idleTimeout) s"))
        }
    }
}

extension Connection: FrameTransportDelegate, SessionStageHost, CallTableHost {
    func received(_ message: ClientMessage) {
        sessionStage.received(message)
    }

    func refused(_ callID: UInt64, _ error: HealthError) {
        sessionStage.refused(callID, error)
    }

    func broke(_ error: HealthError) {
        fail(error)
    }

    func ended(reason: String?, level: LogLevel) {
        teardown(reason: reason, level: level)
    }

    var wantsInput: Bool { sessionStage.wantsInput && !calls.draining }

    func outputWritten() {
        calls.grantRoom()
    }

    var isOpen: Bool { transport.isOpen }
    var isClosed: Bool { transport.isClosed }
    var hasOutputRoom: Bool { transport.hasOutputRoom }

    func answer(_ callID: UInt64, _ result: ServerResult) {
        transport.send(ServerMessage(callID: callID, result: result))
    }

    func send(_ frame: UnsafeRawBufferPointer) {
        transport.send(frame)
    }

    /// A connection error: answered under call id 0, then the connection closes.
    func fail(_ error: HealthError) {
        core.logger.info("connection \(id) from \(peer): protocol error: \(error)")
        answer(0, .error(error))
        closeAfterFlush()
    }

    func pauseInput() {
        transport.stopReading()
    }

    func resumeInput() {
        if !calls.draining { transport.startReading() }
    }

    func dispatch(_ message: ClientMessage, session: Session) {
        lastCallAt = transport.now
        calls.dispatch(message, session: session)
    }

    func allCallsEnded() {
        closeAfterFlush()
    }
}

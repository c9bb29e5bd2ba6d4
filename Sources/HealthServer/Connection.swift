import CLibUV
import Foundation
import HealthModel
import HealthWire

/// How a connection arrived.
enum TransportKind: Sendable {
    case tcp, unix
}

/// One client connection: framing, session state, calls in flight and bounded output.
///
/// Memory stays bounded in every phase: before Hello only a small first frame is accepted and
/// nothing is read while the Hello is checked; afterwards calls reading stored data produce an
/// answer only while the connection's (and the server's) queued output is below its bound, and at
/// most `answersInProduction` of them at once, so a client that does not read stops its answers
/// being produced, not only being sent. A frame must arrive within `frameTimeout` once begun.
/// Confined to its loop's thread (see `EventLoop`); tasks reach it only through `loop.post`.
final class Connection {
    private enum Phase {
        case awaitingHello, authenticating, ready, closing, closed
    }

    private struct CallEntry {
        let serial: UInt64
        let task: Task<Void, Never>
        let longRunning: Bool
    }

    let id: UInt64
    unowned let loop: EventLoop
    private let core: ServerCore
    let peer: String
    /// Storage for a uv_tcp_t or uv_pipe_t; freed by the close callback.
    private let handle: UnsafeMutableRawPointer
    private var reader: FrameDecoder
    /// Set on a TCP connection when the listener serves TLS.
    private let tls: ConnectionTLS?
    private var phase = Phase.awaitingHello
    private var session: Session?
    private var calls: [UInt64: CallEntry] = [:]
    private var nextSerial: UInt64 = 1
    private var queuedBeforeHello: [ClientMessage] = []
    private var output: [UInt8] = []
    private var flushScheduled = false
    /// Sizes of uv_write requests not yet completed, oldest first (libuv completes them in order).
    private var writesInFlight: [Int] = []
    private var writeBytesInFlight = 0
    private var reading = false
    private var draining = false
    /// Calls holding a turn to produce answers (serials); a turn ends with the answer (or page run).
    private var producing: Set<UInt64> = []
    /// Calls waiting for output room (see `requestRoom`), oldest first.
    private var waiters: [(serial: UInt64, room: CheckedContinuation<Void, Never>)] = []
    /// When the frame now arriving got its first bytes; nil between frames.
    private var frameStartedAt: UInt64?
    private let openedAt: UInt64
    private var lastActivity: UInt64
    private var aboveHighWaterSince: UInt64?
    private var closeDeadline: UInt64?

    private var stream: UnsafeMutablePointer<uv_stream_t> { handle.assumingMemoryBound(to: uv_stream_t.self) }
    private var config: ServerConfiguration { core.config }
    private var buffered: Int { output.count + writeBytesInFlight }
    private var now: UInt64 { uv_now(loop.loop) }

    private static let handleBytes = max(MemoryLayout<uv_tcp_t>.size, MemoryLayout<uv_pipe_t>.size)

    /// Adopts an accepted socket on `loop`'s thread; nil (socket closed) when libuv refuses it.
    init?(fd: Int32, kind: TransportKind, peer: String, id: UInt64, loop: EventLoop, core: ServerCore) {
        self.id = id
        self.loop = loop
        self.core = core
        self.peer = peer
        reader = FrameDecoder(maxFrameBytes: core.config.maxFrameBytes,
                              maxFirstFrameBytes: min(core.config.maxHelloFrameBytes, core.config.maxFrameBytes))
        handle = UnsafeMutableRawPointer.allocate(byteCount: Connection.handleBytes, alignment: 16)
        openedAt = uv_now(loop.loop)
        lastActivity = openedAt
        tls = kind == .tcp ? core.tls?.context.map(ConnectionTLS.init) : nil
        let status: Int32
        switch kind {
        case .tcp:
            let tcp = handle.bindMemory(to: uv_tcp_t.self, capacity: 1)
            uv_tcp_init(loop.loop, tcp)
            status = uv_tcp_open(tcp, fd)
            if status == 0 { uv_tcp_nodelay(tcp, 1) }
        case .unix:
            let pipe = handle.bindMemory(to: uv_pipe_t.self, capacity: 1)
            uv_pipe_init(loop.loop, pipe, 0)
            status = uv_pipe_open(pipe, fd)
        }
        handle.assumingMemoryBound(to: uv_handle_t.self).pointee.data = Unmanaged.passRetained(self).toOpaque()
        if status != 0 {
            core.logger.warning("connection \(id) from \(peer): cannot adopt socket: \(String(cString: uv_strerror(status)))")
            Foundation.close(fd)
            phase = .closing
            teardown(reason: nil)
            return nil
        }
        loop.connections[id] = self
        startReading()
    }

    private static func from(_ stream: UnsafeMutablePointer<uv_stream_t>) -> Connection {
        Unmanaged<Connection>.fromOpaque(stream.pointee.data).takeUnretainedValue()
    }

    // MARK: reading

    private func startReading() {
        guard !reading else { return }
        reading = true
        // The client could not send while nothing was read: its frame's time starts again.
        if frameStartedAt != nil { frameStartedAt = now }
        uv_read_start(stream, { handle, _, buf in
            let loop = EventLoop.owning(handle!.pointee.loop)
            buf!.pointee = uv_buf_init(loop.readBuffer, UInt32(EventLoop.readBufferSize))
        }, { stream, nread, buf in
            Connection.from(stream!).didRead(nread, buf!.pointee)
            EventLoop.owning(stream!.pointee.loop).flushPending()
        })
    }

    private func stopReading() {
        guard reading else { return }
        reading = false
        uv_read_stop(stream)
    }

    private func didRead(_ nread: Int, _ buf: uv_buf_t) {
        if nread < 0 {
            if nread == Int(UV_EOF.rawValue) {
                teardown(reason: "closed by peer", level: .debug)
            } else {
                teardown(reason: String(cString: uv_strerror(Int32(nread))))
            }
            return
        }
        guard nread > 0, phase != .closing, phase != .closed else { return }
        lastActivity = now
        defer { frameStartedAt = reader.bufferedByteCount == 0 ? nil : frameStartedAt ?? now }
        let bytes = UnsafeRawBufferPointer(start: buf.base, count: nread)
        if let tls {
            do {
                reader.append(contentsOf: try tls.open(bytes))
            } catch {
                return protocolError(error)
            }
            // Handshake records to answer with: have them flushed like a frame.
            if tls.hasOutput { enqueue([]) }
        } else {
            reader.append(bytes)
        }
        while phase != .closing && phase != .closed {
            let payload: [UInt8]?
            do {
                payload = try reader.nextFrame()
            } catch {
                return protocolError(error)
            }
            guard let payload else { return }
            let frame: ClientFrame
            do {
                frame = try WireCodec.decodeClientFrame(payload)
            } catch {
                return protocolError(HealthError(.malformed, "undecodable frame: \(error.message)"))
            }
            switch frame.call {
            case .success(let call): received(ClientMessage(callID: frame.callID, call: call))
            case .failure(let error): refused(frame.callID, error)
            }
        }
    }

    /// A call that decoded but breaks the contract fails alone; before Hello it still closes.
    private func refused(_ callID: UInt64, _ error: HealthError) {
        answer(callID, .error(error))
        if phase == .awaitingHello { closeAfterFlush() }
    }

    private func received(_ message: ClientMessage) {
        frameStartedAt = nil
        switch phase {
        case .awaitingHello:
            guard case .hello(let hello) = message.call else {
                return protocolError(HealthError(.malformed, "the first call must be Hello, got \(message.call.name)"))
            }
            phase = .authenticating
            // Nothing more is read from a client until its Hello is accepted: only frames already
            // received are queued.
            stopReading()
            authenticate(hello, callID: message.callID)
        case .authenticating:
            if queuedBeforeHello.count >= config.maxCallsInFlight {
                answer(message.callID, .error(tooManyCalls))
            } else {
                queuedBeforeHello.append(message)
            }
        case .ready:
            dispatch(message)
        case .closing, .closed:
            break
        }
    }

    // MARK: session

    private func authenticate(_ hello: Hello, callID: UInt64) {
        let (core, loop, id, peer) = (core, loop, id, peer)
        let revocations = core.registry.revocationCount
        Task {
            let outcome = await core.dispatcher.hello(hello, peer: peer)
            loop.post { loop.connections[id]?.authenticated(outcome, callID: callID, token: hello.token, revocationsBefore: revocations) }
        }
    }

    /// Registers the session before accepting it, so a revoke from now on finds this connection.
    /// A revoke that committed after the token was checked but collected the app's connections
    /// before this registration moved the revocation count: the token is then checked again.
    private func authenticated(_ outcome: Result<(Session, HelloResult), HealthError>, callID: UInt64, token: String,
                               revocationsBefore: UInt64) {
        guard phase == .authenticating else { return }
        switch outcome {
        case .success(let (session, result)):
            core.registry.bind(connection: id, on: loop, session: session)
            guard core.registry.revocationCount != revocationsBefore else { return accept(session, result, callID: callID) }
            let (core, loop, id) = (core, loop, id)
            Task {
                let valid = await core.dispatcher.isStillValid(token: token, for: session.principal)
                loop.post { loop.connections[id]?.rechecked(valid: valid, session, result, callID: callID) }
            }
        case .failure(let error):
            refuse(error, callID: callID)
        }
    }

    private func rechecked(valid: Bool, _ session: Session, _ result: HelloResult, callID: UInt64) {
        guard phase == .authenticating else { return }
        guard valid else {
            return refuse(HealthError(.unauthenticated, "the token is not valid: unknown, revoked or rotated", field: "hello.token"),
                          callID: callID)
        }
        accept(session, result, callID: callID)
    }

    private func accept(_ session: Session, _ result: HelloResult, callID: UInt64) {
        self.session = session
        phase = .ready
        core.registry.helloAccepted(connection: id)
        if !draining { startReading() }
        core.logger.debug("connection \(id) from \(peer): hello as \(session.roleName)")
        answer(callID, .hello(result))
        let queued = queuedBeforeHello
        queuedBeforeHello = []
        for message in queued { dispatch(message) }
    }

    private func refuse(_ error: HealthError, callID: UInt64) {
        core.logger.info("connection \(id) from \(peer): hello refused: \(error)")
        answer(callID, .error(error))
        closeAfterFlush()
    }

    // MARK: calls

    private var tooManyCalls: HealthError {
        HealthError(.resourceExhausted, "more than \(config.maxCallsInFlight) calls in flight on this connection")
    }

    private func dispatch(_ message: ClientMessage) {
        guard let session, phase == .ready else { return }
        lastActivity = now
        let callID = message.callID
        switch message.call {
        case .hello:
            answer(callID, .error(HealthError.invalid("Hello was already accepted on this connection", field: "hello")))
        case .ping(let payload):
            answer(callID, .pong(payload: payload, serverTime: Time.now()))
        case .cancel(let target):
            cancel(target, callID: callID)
        case .ackObserverEvent(let target, let sequence):
            let acknowledged = calls[target].map {
                core.dispatcher.acknowledgeObserverEvent(connection: id, call: target, serial: $0.serial, sequence: sequence)
            } ?? false
            answer(callID, .ackObserverEvent(acknowledged: acknowledged))
        default:
            if draining {
                return answer(callID, .error(HealthError(.unavailable, "the server is shutting down")))
            }
            guard calls[callID] == nil else {
                return answer(callID, .error(HealthError.invalid("call_id \(callID) is already in flight on this connection", field: "call_id")))
            }
            guard calls.count < config.maxCallsInFlight else { return answer(callID, .error(tooManyCalls)) }
            let serial = nextSerial
            nextSerial += 1
            let reply = CallReplier(loop: loop, connectionID: id, callID: callID, serial: serial, maxFrameBytes: config.maxFrameBytes)
            let (dispatcher, call) = (core.dispatcher, message.call)
            let task = Task { await dispatcher.handle(call, session: session, reply: reply) }
            calls[callID] = CallEntry(serial: serial, task: task, longRunning: call.isLongRunning)
        }
    }

    private func cancel(_ target: UInt64, callID: UInt64) {
        guard let entry = calls.removeValue(forKey: target) else {
            return answer(callID, .cancel(cancelled: false))
        }
        stop(entry)
        answer(target, .callEnded(.cancelled))
        answer(callID, .cancel(cancelled: true))
        callFinished()
    }

    /// Stops a call's task; its turn and its waits for room end with it.
    private func stop(_ entry: CallEntry) {
        entry.task.cancel()
        endTurn(serial: entry.serial)
        resumeWaiters(serial: entry.serial)
    }

    /// An answer from a call's task; `endsTurn` = the call produces nothing more for now.
    func deliver(_ frame: [UInt8], callID: UInt64, serial: UInt64, final: Bool, endsTurn: Bool) {
        guard let entry = calls[callID], entry.serial == serial, phase != .closed else { return }
        enqueue(frame)
        if final {
            calls.removeValue(forKey: callID)
            callFinished()
        }
        if final || endsTurn { endTurn(serial: serial) }
    }

    /// A call's task asks to produce its next answer (see `CallReplier.room`). A call holding a
    /// turn waits only for room; another also for a turn, so at most `answersInProduction` calls
    /// hold query results at once.
    func requestRoom(callID: UInt64, serial: UInt64, room: CheckedContinuation<Void, Never>) {
        guard let entry = calls[callID], entry.serial == serial, phase != .closed else { return room.resume() }
        waiters.append((serial, room))
        grantRoom()
    }

    func endTurn(serial: UInt64) {
        guard producing.remove(serial) != nil else { return }
        grantRoom()
    }

    /// Below this connection's output bound and the server's.
    private var hasRoom: Bool {
        phase != .closed && buffered < config.outputHighWater && core.registry.queuedOutput < config.totalOutputBytes
    }

    /// Resumes waiting calls while there is room: those holding a turn first, then new ones while turns are free.
    private func grantRoom() {
        while hasRoom, let index = waiters.firstIndex(where: { producing.contains($0.serial) })
                ?? (producing.count < config.answersInProduction ? waiters.indices.first : nil) {
            let waiter = waiters.remove(at: index)
            producing.insert(waiter.serial)
            waiter.room.resume()
        }
    }

    private func callFinished() {
        if draining && calls.isEmpty { closeAfterFlush() }
    }

    /// Answers on the loop thread (calls answered without a task, and connection errors).
    private func answer(_ callID: UInt64, _ result: ServerResult) {
        enqueue(WireCodec.encodeServerFrame(ServerMessage(callID: callID, result: result)))
    }

    // MARK: writing and back-pressure

    private func enqueue(_ frame: [UInt8]) {
        guard phase != .closed else { return }
        output.append(contentsOf: frame)
        core.registry.outputQueued(frame.count)
        if !flushScheduled {
            flushScheduled = true
            loop.scheduleFlush(self)
        }
        if buffered > config.outputHardLimit {
            return teardown(reason: "dropped: \(buffered) bytes of unread output exceed the \(config.outputHardLimit)-byte limit")
        }
        if buffered > config.outputHighWater {
            if aboveHighWaterSince == nil { aboveHighWaterSince = now }
            stopReading()
        }
    }

    /// Writes everything queued with one uv_write.
    func flush() {
        flushScheduled = false
        guard phase != .closed else { return }
        if let tls { output = tls.seal(output) }
        guard !output.isEmpty else {
            // Sealing may leave nothing to write (an answer to a failed handshake is dropped).
            if phase == .closing && buffered == 0 { teardown(reason: nil) }
            return
        }
        let count = output.count
        let headerBytes = MemoryLayout<uv_write_t>.stride
        let request = UnsafeMutableRawPointer.allocate(byteCount: headerBytes + count, alignment: 16)
        let bytes = request + headerBytes
        output.withUnsafeBytes { bytes.copyMemory(from: $0.baseAddress!, byteCount: count) }
        output.removeAll(keepingCapacity: count <= 1 << 20)
        writesInFlight.append(count)
        writeBytesInFlight += count
        var buf = uv_buf_init(bytes.assumingMemoryBound(to: CChar.self), UInt32(count))
        let status = uv_write(request.bindMemory(to: uv_write_t.self, capacity: 1), stream, &buf, 1) { request, status in
            let stream = request!.pointee.handle!
            // Write callbacks (ECANCELED after uv_close too) run before the close callback,
            // so the connection is still retained here.
            let connection = Connection.from(stream)
            UnsafeMutableRawPointer(request!).deallocate()
            connection.wrote(status: status)
            EventLoop.owning(stream.pointee.loop).flushPending()
        }
        if status != 0 {
            writesInFlight.removeLast()
            writeBytesInFlight -= count
            core.registry.outputQueued(-count)
            request.deallocate()
            teardown(reason: "write failed: \(String(cString: uv_strerror(status)))")
        }
    }

    private func wrote(status: Int32) {
        let count = writesInFlight.removeFirst()
        writeBytesInFlight -= count
        core.registry.outputQueued(-count)
        guard phase != .closed else { return }
        if status < 0 { return teardown(reason: "write failed: \(String(cString: uv_strerror(status)))") }
        if buffered <= config.outputHighWater / 2 {
            aboveHighWaterSince = nil
            if (phase == .awaitingHello || phase == .ready) && !draining { startReading() }
        }
        grantRoom()
        if phase == .closing && buffered == 0 { teardown(reason: nil) }
    }

    /// Resumes waiting tasks: those of one call, or all.
    private func resumeWaiters(serial: UInt64?) {
        let (release, keep) = waiters.partitioned { serial == nil || $0.serial == serial }
        waiters = keep
        for waiter in release { waiter.room.resume() }
    }

    // MARK: closing

    private func protocolError(_ error: HealthError) {
        core.logger.info("connection \(id) from \(peer): protocol error: \(error)")
        answer(0, .error(error))
        closeAfterFlush()
    }

    /// Sends what is queued, then closes; gives up after a short deadline.
    private func closeAfterFlush() {
        guard phase != .closing, phase != .closed else { return }
        phase = .closing
        stopReading()
        closeDeadline = now + 2_000
        if buffered == 0 { teardown(reason: nil) }
    }

    /// Closes at once, cancelling every call in flight.
    func teardown(reason: String?, level: LogLevel = .info) {
        guard phase != .closed else { return }
        phase = .closed
        if let reason { core.logger.log(level, "connection \(id) from \(peer): \(reason)") }
        for entry in calls.values { entry.task.cancel() }
        calls.removeAll()
        producing.removeAll()
        resumeWaiters(serial: nil)
        core.registry.outputQueued(-output.count)
        output.removeAll()
        core.registry.unbind(connection: id)
        loop.connections.removeValue(forKey: id)
        core.registry.connectionClosed(id)
        uv_close(handle.assumingMemoryBound(to: uv_handle_t.self)) { handle in
            Unmanaged<Connection>.fromOpaque(handle!.pointee.data).release()
            UnsafeMutableRawPointer(handle!).deallocate()
        }
    }

    /// Newer connections needed this one's place while it was still before its Hello.
    func displacedBeforeHello() {
        guard phase == .awaitingHello || phase == .authenticating else { return }
        protocolError(HealthError(.resourceExhausted,
                                  "closed before its Hello was accepted to make room for newer connections; connect again"))
    }

    /// The owner revoked this connection's credential: tell the client and close.
    func credentialRevoked() {
        protocolError(HealthError(.unauthenticated, "the credential of this connection was revoked or rotated by the owner"))
    }

    /// Shutdown: stop reading, end long-running calls, close once the other calls are answered.
    func beginDrain() {
        guard phase != .closed else { return }
        draining = true
        stopReading()
        guard phase == .ready else { return closeAfterFlush() }
        for (callID, entry) in calls where entry.longRunning {
            calls.removeValue(forKey: callID)
            stop(entry)
            answer(callID, .callEnded(.shutdown))
        }
        callFinished()
    }

    /// Periodic checks: Hello timeout, idle timeout, frame timeout, slow reader, close deadline;
    /// and room freed by other connections' output draining.
    func tick() {
        let now = self.now
        if reading, let started = frameStartedAt, Double(now - started) > config.frameTimeout * 1000 {
            return protocolError(HealthError(.unavailable, "a frame took more than \(config.frameTimeout) s to arrive"))
        }
        grantRoom()
        switch phase {
        case .awaitingHello where Double(now - openedAt) > config.helloTimeout * 1000:
            protocolError(HealthError(.unauthenticated, "no Hello within \(config.helloTimeout) s"))
        case .ready where calls.isEmpty && Double(now - lastActivity) > config.idleTimeout * 1000:
            protocolError(HealthError(.unavailable, "idle for more than \(config.idleTimeout) s"))
        case .closing where closeDeadline.map { now > $0 } ?? false:
            teardown(reason: "closed before its output drained")
        default:
            break
        }
        if let since = aboveHighWaterSince, phase != .closed, Double(now - since) > config.slowClientTimeout * 1000 {
            teardown(reason: "dropped: not reading its output for \(config.slowClientTimeout) s")
        }
    }
}

extension Array {
    /// (elements matching, elements not matching), each in order.
    fileprivate func partitioned(_ matches: (Element) -> Bool) -> ([Element], [Element]) {
        var yes: [Element] = [], no: [Element] = []
        for element in self {
            if matches(element) { yes.append(element) } else { no.append(element) }
        }
        return (yes, no)
    }
}

import CLibUV
import Foundation
import HealthModel
import HealthWire

/// How a connection arrived.
enum TransportKind: Sendable {
    case tcp, unix
}

/// What a `FrameTransport` reports to the stage above it (on the loop thread).
protocol FrameTransportDelegate: AnyObject {
    /// A whole frame arrived and decoded into a message.
    func received(_ message: ClientMessage)
    /// A whole frame decoded, but its call breaks the contract.
    func refused(_ callID: UInt64, _ error: HealthError)
    /// The byte stream broke the protocol (undecodable, too large, TLS, too slow to arrive).
    func broke(_ error: HealthError)
    /// The transport cannot go on (peer closed, write failed, output limits, close done): tear down.
    func ended(reason: String?, level: LogLevel)
    /// Whether the stages above accept more input once output has drained.
    var wantsInput: Bool { get }
    /// Written output freed room.
    func outputWritten()
}

/// The first stage of a connection: libuv bytes ⇄ frames, TLS, output buffering, back-pressure and
/// the frame timeout. It never interprets a call.
///
/// Output stays bounded: above `outputHighWater` queued bytes nothing more is read until the output
/// drains to half the mark; above `outputHardLimit`, or not reading for `slowClientTimeout`, the
/// connection is dropped. A frame must arrive within `frameTimeout` once begun.
/// Confined to its loop's thread, like its `Connection`.
final class FrameTransport {
    private enum State {
        case open
        /// Sends what is queued, then ends; gives up at the deadline.
        case closing(deadline: UInt64)
        case closed
    }

    /// Held until the socket's close completes, so the stages above outlive every libuv callback.
    var delegate: (any FrameTransportDelegate)?
    private unowned let loop: EventLoop
    private let config: ServerConfiguration
    private let registry: ConnectionRegistry
    /// Storage for a uv_tcp_t or uv_pipe_t; freed by the close callback.
    private let handle: UnsafeMutableRawPointer
    // `reader` and `output`, touched for every frame, are `@exclusivity(unchecked)`: confined to the
    // loop's thread, and no access to them spans a call that could reach them again (a decode, a write).
    @exclusivity(unchecked) private var reader: FrameDecoder
    /// Set on a TCP connection when the listener serves TLS.
    private let tls: ConnectionTLS?
    private var state = State.open
    @exclusivity(unchecked) private var output: [UInt8] = []
    private var flushScheduled = false
    /// Sizes of uv_write requests not yet completed, oldest first (libuv completes them in order).
    private var writesInFlight: [Int] = []
    private var writeBytesInFlight = 0
    private var reading = false
    /// When the frame now arriving got its first bytes; nil between frames.
    private var frameStartedAt: UInt64?
    private var aboveHighWaterSince: UInt64?
    /// When bytes last arrived (or the socket was adopted).
    private(set) var lastInputAt: UInt64

    private var stream: UnsafeMutablePointer<uv_stream_t> { handle.assumingMemoryBound(to: uv_stream_t.self) }
    private var buffered: Int { output.count + writeBytesInFlight }
    var now: UInt64 { uv_now(loop.loop) }

    var isOpen: Bool {
        if case .open = state { true } else { false }
    }

    var isClosed: Bool {
        if case .closed = state { true } else { false }
    }

    /// Below this connection's output bound and the server's.
    var hasOutputRoom: Bool {
        !isClosed && buffered < config.outputHighWater && registry.queuedOutput < config.totalOutputBytes
    }

    private static let handleBytes = max(MemoryLayout<uv_tcp_t>.size, MemoryLayout<uv_pipe_t>.size)

    /// libuv refused an accepted socket.
    struct AdoptionFailed: Error, CustomStringConvertible {
        let status: Int32
        var description: String { "cannot adopt socket: \(String(cString: uv_strerror(status)))" }
    }

    /// Adopts an accepted socket on `loop`'s thread; throws (socket closed) when libuv refuses it.
    init(fd: Int32, kind: TransportKind, loop: EventLoop, core: ServerCore) throws(AdoptionFailed) {
        self.loop = loop
        config = core.config
        registry = core.registry
        reader = FrameDecoder(maxFrameBytes: config.maxFrameBytes,
                              maxFirstFrameBytes: min(config.maxHelloFrameBytes, config.maxFrameBytes))
        handle = UnsafeMutableRawPointer.allocate(byteCount: FrameTransport.handleBytes, alignment: 16)
        lastInputAt = uv_now(loop.loop)
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
            Foundation.close(fd)
            close()
            throw AdoptionFailed(status: status)
        }
    }

    private static func from(_ stream: UnsafeMutablePointer<uv_stream_t>) -> FrameTransport {
        Unmanaged<FrameTransport>.fromOpaque(stream.pointee.data).takeUnretainedValue()
    }

    // MARK: reading

    func startReading() {
        guard !reading else { return }
        reading = true
        // The client could not send while nothing was read: its frame's time starts again.
        if frameStartedAt != nil { frameStartedAt = now }
        uv_read_start(stream, { handle, _, buf in
            let loop = EventLoop.owning(handle!.pointee.loop)
            buf!.pointee = uv_buf_init(loop.readBuffer, UInt32(EventLoop.readBufferSize))
        }, { stream, nread, buf in
            FrameTransport.from(stream!).didRead(nread, buf!.pointee)
            EventLoop.owning(stream!.pointee.loop).flushPending()
        })
    }

    func stopReading() {
        guard reading else { return }
        reading = false
        uv_read_stop(stream)
    }

    private func didRead(_ nread: Int, _ buf: uv_buf_t) {
        if nread < 0 {
            if nread == Int(UV_EOF.rawValue) {
                end(reason: "closed by peer", level: .debug)
            } else {
                end(reason: String(cString: uv_strerror(Int32(nread))))
            }
            return
        }
        guard nread > 0, isOpen else { return }
        lastInputAt = now
        defer { frameStartedAt = reader.bufferedByteCount == 0 ? nil : frameStartedAt ?? now }
        let bytes = UnsafeRawBufferPointer(start: buf.base, count: nread)
        if let tls {
            do {
                reader.append(contentsOf: try tls.open(bytes))
            } catch {
                return broke(error)
            }
            // Handshake records to answer with: have them flushed like a frame.
            if tls.hasOutput { send([]) }
        } else {
            reader.append(bytes)
        }
        while isOpen {
            // Decoded where it arrived: the payload is not copied out of the reader's buffer first.
            let decoded: Result<ClientFrame, HealthError>?
            do {
                decoded = try reader.nextClientFrame()
            } catch {
                return broke(error)
            }
            guard let decoded else { return }
            frameStartedAt = nil
            let frame: ClientFrame
            do {
                frame = try decoded.get()
            } catch {
                return broke(HealthError(.malformed, "undecodable frame: \(error.message)"))
            }
            switch frame.call {
            case .success(let call): delegate?.received(ClientMessage(callID: frame.callID, call: call))
            case .failure(let error): delegate?.refused(frame.callID, error)
            }
        }
    }

    // MARK: writing and back-pressure

    /// Queues an answer made on the loop thread.
    func send(_ message: ServerMessage) {
        send(WireCodec.encodeServerFrame(message))
    }

    /// Queues an encoded frame; it is written at the end of this loop turn.
    func send(_ frame: [UInt8]) {
        frame.withUnsafeBytes(send)
    }

    /// `send` of a frame the caller keeps (a save's answer is made on the stack).
    func send(_ frame: UnsafeRawBufferPointer) {
        guard !isClosed else { return }
        output.append(contentsOf: frame)
        registry.outputQueued(frame.count)
        if !flushScheduled {
            flushScheduled = true
            loop.scheduleFlush(self)
        }
        if buffered > config.outputHardLimit {
            return end(reason: "dropped: \(buffered) bytes of unread output exceed the \(config.outputHardLimit)-byte limit")
        }
        if buffered > config.outputHighWater {
            if aboveHighWaterSince == nil { aboveHighWaterSince = now }
            stopReading()
        }
    }

    /// Writes everything queued: at once when the socket takes it all (nearly always), the rest
    /// with one uv_write. A write done at once needs no request, no copy of the bytes and no write
    /// callback, whose end in libuv 1.44 (`uv__drain` stopping POLLOUT) re-registers the socket with
    /// epoll: one `epoll_ctl` a write.
    func flush() {
        flushScheduled = false
        guard !isClosed else { return }
        if let tls { output = tls.seal(output) }
        guard !output.isEmpty else {
            // Sealing may leave nothing to write (an answer to a failed handshake is dropped).
            endIfFlushed()
            return
        }
        // uv_try_write writes nothing while an earlier uv_write is still queued (UV_EAGAIN), so
        // bytes always leave in order.
        let written = output.withUnsafeMutableBytes { bytes in
            var buf = uv_buf_init(bytes.baseAddress!.assumingMemoryBound(to: CChar.self), UInt32(bytes.count))
            return uv_try_write(stream, &buf, 1)
        }
        if written < 0 && written != UV_EAGAIN.rawValue {
            return end(reason: "write failed: \(String(cString: uv_strerror(written)))")
        }
        let sent = max(0, Int(written))
        registry.outputQueued(-sent)
        let count = output.count - sent
        guard count > 0 else {
            output.removeAll(keepingCapacity: sent <= 1 << 20)
            return outputDrained()
        }
        let headerBytes = MemoryLayout<uv_write_t>.stride
        let request = UnsafeMutableRawPointer.allocate(byteCount: headerBytes + count, alignment: 16)
        let bytes = request + headerBytes
        output.withUnsafeBytes { bytes.copyMemory(from: $0.baseAddress! + sent, byteCount: count) }
        output.removeAll(keepingCapacity: count + sent <= 1 << 20)
        writesInFlight.append(count)
        writeBytesInFlight += count
        var buf = uv_buf_init(bytes.assumingMemoryBound(to: CChar.self), UInt32(count))
        let status = uv_write(request.bindMemory(to: uv_write_t.self, capacity: 1), stream, &buf, 1) { request, status in
            let stream = request!.pointee.handle!
            // Write callbacks (ECANCELED after uv_close too) run before the close callback,
            // so the transport is still retained here.
            let transport = FrameTransport.from(stream)
            UnsafeMutableRawPointer(request!).deallocate()
            transport.wrote(status: status)
            EventLoop.owning(stream.pointee.loop).flushPending()
        }
        if status != 0 {
            writesInFlight.removeLast()
            writeBytesInFlight -= count
            registry.outputQueued(-count)
            request.deallocate()
            end(reason: "write failed: \(String(cString: uv_strerror(status)))")
        }
    }

    private func wrote(status: Int32) {
        let count = writesInFlight.removeFirst()
        writeBytesInFlight -= count
        registry.outputQueued(-count)
        guard !isClosed else { return }
        if status < 0 { return end(reason: "write failed: \(String(cString: uv_strerror(status)))") }
        outputDrained()
    }

    /// Written output freed room: reading resumes below half the high-water mark, waiting calls
    /// get their room, and a closing connection ends once nothing is left.
    private func outputDrained() {
        if buffered <= config.outputHighWater / 2 {
            aboveHighWaterSince = nil
            if isOpen && delegate?.wantsInput == true { startReading() }
        }
        delegate?.outputWritten()
        endIfFlushed()
    }

    // MARK: closing

    private func broke(_ error: HealthError) {
        delegate?.broke(error)
    }

    private func end(reason: String?, level: LogLevel = .info) {
        delegate?.ended(reason: reason, level: level)
    }

    /// Stops reading and ends once what is queued is written; gives up after a short deadline.
    func closeAfterFlush() {
        guard isOpen else { return }
        state = .closing(deadline: now + 2_000)
        stopReading()
        endIfFlushed()
    }

    private func endIfFlushed() {
        if case .closing = state, buffered == 0 { end(reason: nil) }
    }

    /// Closes the socket at once, dropping queued output.
    func close() {
        guard !isClosed else { return }
        state = .closed
        registry.outputQueued(-output.count)
        output.removeAll()
        uv_close(handle.assumingMemoryBound(to: uv_handle_t.self)) { handle in
            Unmanaged<FrameTransport>.fromOpaque(handle!.pointee.data).takeRetainedValue().delegate = nil
            UnsafeMutableRawPointer(handle!).deallocate()
        }
    }

    /// Periodic checks: frame timeout, close deadline, slow reader. Returns false when the
    /// connection broke or ended.
    func tick() -> Bool {
        let now = self.now
        if reading, let started = frameStartedAt, Double(now - started) > config.frameTimeout * 1000 {
            broke(HealthError(.unavailable, "a frame took more than \(config.frameTimeout) s to arrive"))
            return false
        }
        if case .closing(let deadline) = state, now > deadline {
            end(reason: "closed before its output drained")
        }
        if let since = aboveHighWaterSince, !isClosed, Double(now - since) > config.slowClientTimeout * 1000 {
            end(reason: "dropped: not reading its output for \(config.slowClientTimeout) s")
        }
        return !isClosed
    }
}

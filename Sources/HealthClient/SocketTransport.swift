import Foundation
import HealthModel
import HealthWire
import Synchronization

/// The protocol over a POSIX socket: the process's shared reader queue (`ReadinessLoop`) splits
/// frames (HealthWire's FrameDecoder) and decodes server messages in order; senders write whole
/// frames under a lock so frames of concurrent calls never interleave. With TLS, both sides pass
/// through the connection's `ClientTLSChannel`.
final class SocketTransport: MessageTransport {
    private let socket: Socket
    private let tls: ClientTLSChannel?
    private let maxFrameBytes: Int
    /// Guards writes.
    private let writer = Mutex(())
    /// Set by `close`, which must not wait for the write lock: a write blocked on a peer that stopped
    /// reading holds it, and only the shutdown that `close` does ends that write.
    private let closed = Atomic(false)
    /// Bytes received so far (`MessageTransport.received`).
    private let receivedBytes = Atomic<UInt64>(0)
    /// Set once `start` handed the socket to the reader queue, which then closes it.
    private let watch = Mutex<SocketWatch?>(nil)

    /// Connects to `endpoint`, with the TLS handshake done, before `deadline`.
    init(endpoint: Endpoint, maxFrameBytes: Int, tls: ClientTLS? = nil, before deadline: Deadline) throws(HealthError) {
        let socket = try Socket.connect(to: endpoint, before: deadline)
        do {
            self.tls = try tls.map { tls throws(HealthError) in
                try ClientTLSChannel.handshake(over: socket, endpoint: endpoint, tls: tls, before: deadline)
            }
        } catch {
            socket.close()
            throw error
        }
        self.socket = socket
        self.maxFrameBytes = maxFrameBytes
    }

    func start(onMessage: @escaping @Sendable (ServerMessage) -> Void,
               onClose: @escaping @Sendable (HealthError) -> Void) {
        let reader = FrameReader(transport: self, socket: socket, tls: tls, maxFrameBytes: maxFrameBytes, onMessage: onMessage,
                                 onClose: onClose)
        watch.withLock { $0 = ReadinessLoop.shared.watch(socket) { buffer in reader.read(into: buffer) } }
    }

    func holdReading() { watch.withLock { $0 }?.hold() }

    func releaseReading() { watch.withLock { $0 }?.release() }

    var isReadingHeld: Bool { watch.withLock { $0 }?.isHeld ?? false }

    var received: UInt64 { receivedBytes.load(ordering: .relaxed) }

    /// Counts bytes the reader queue received.
    fileprivate func noteReceived(_ count: Int) { receivedBytes.add(UInt64(count), ordering: .relaxed) }

    func send(_ message: ClientMessage) throws(HealthError) {
        let frame = WireCodec.encodeClientFrame(message)
        try writer.withLock { (_: inout Void) throws(HealthError) in
            if closed.load(ordering: .acquiring) { throw HealthError(.unavailable, "connection is closed") }
            // Sealed under the write lock: records must reach the socket in the order they were made.
            try socket.write(try tls?.seal(frame) ?? frame)
        }
    }

    func close() {
        if !closed.exchange(true, ordering: .acquiringAndReleasing) { socket.shutdown() }
        watch.withLock { $0 }?.end()
    }

    deinit {
        // Once started, the reader holds this transport until the end of the stream and closes the socket itself.
        if watch.withLock({ $0 }) == nil { socket.close() }
    }
}

/// One connection's frame decoding, run only on the reader queue.
private final class FrameReader: @unchecked Sendable {
    private let transport: SocketTransport
    private let socket: Socket
    private let tls: ClientTLSChannel?
    private var decoder: FrameDecoder
    private let onMessage: @Sendable (ServerMessage) -> Void
    private let onClose: @Sendable (HealthError) -> Void

    init(transport: SocketTransport, socket: Socket, tls: ClientTLSChannel?, maxFrameBytes: Int,
         onMessage: @escaping @Sendable (ServerMessage) -> Void, onClose: @escaping @Sendable (HealthError) -> Void) {
        self.transport = transport
        self.socket = socket
        self.tls = tls
        decoder = FrameDecoder(maxFrameBytes: maxFrameBytes)
        self.onMessage = onMessage
        self.onClose = onClose
    }

    /// Delivers every whole message that arrived; `.done` (after `onClose`) once the stream ended.
    func read(into buffer: UnsafeMutableRawBufferPointer) -> ReadinessLoop.Read {
        do {
            guard let count = try socket.readAvailable(into: buffer) else { return .drained }
            guard count > 0 else { return finish(HealthError(.unavailable, "the server closed the connection")) }
            transport.noteReceived(count)
            let received = UnsafeRawBufferPointer(rebasing: buffer[..<count])
            if let tls {
                // A TLS failure (the server refused this client's certificate) keeps its own code:
                // dialing again would not help.
                do {
                    decoder.append(contentsOf: try tls.open(received))
                } catch {
                    return finish(error)
                }
            } else {
                decoder.append(received)
            }
            // Each frame is decoded where it lies in the decoder's buffer, without a copy of its own.
            while let message = try decoder.withNextFrame({ payload in
                Result { () throws(HealthError) in try WireCodec.decodeServerMessage(payload) }
            }) {
                onMessage(try message.get())
            }
            return .more
        } catch {
            return finish(error.code == .unavailable ? error : HealthError(.unavailable, "connection dropped: \(error)"))
        }
    }

    private func finish(_ reason: HealthError) -> ReadinessLoop.Read {
        // The calls learn of the end before a send can fail on the closed transport: a send failing
        // first ("connection is closed") found the connection not yet closed, so a reconnecting
        // client did not dial the next node for a call it would have retried.
        onClose(reason)
        transport.close()
        return .done
    }
}

import Foundation
import HealthModel
import HealthWire
import Synchronization

/// The protocol over a blocking POSIX socket: one reader thread splits frames (HealthWire's
/// FrameDecoder) and decodes server messages in order; senders write whole frames under a lock so
/// frames of concurrent calls never interleave.
final class SocketTransport: MessageTransport {
    private let socket: Socket
    private let maxFrameBytes: Int
    /// Guards writes; true once closed.
    private let writer = Mutex(false)

    init(endpoint: Endpoint, maxFrameBytes: Int) throws(HealthError) {
        socket = try Socket.connect(to: endpoint)
        self.maxFrameBytes = maxFrameBytes
    }

    func start(onMessage: @escaping @Sendable (ServerMessage) -> Void,
               onClose: @escaping @Sendable (HealthError) -> Void) {
        let thread = Thread { [self] in onClose(readUntilClosed(onMessage)) }
        thread.name = "HealthClient.reader"
        thread.start()
    }

    func send(_ message: ClientMessage) throws(HealthError) {
        let frame = WireCodec.encodeClientFrame(message)
        try writer.withLock { (closed: inout Bool) throws(HealthError) in
            if closed { throw HealthError(.unavailable, "connection is closed") }
            try socket.write(frame)
        }
    }

    func close() {
        let wasClosed = writer.withLock { closed in
            defer { closed = true }
            return closed
        }
        if !wasClosed { socket.shutdown() }
    }

    deinit { socket.close() }

    /// Reads and delivers messages until the stream ends; returns why it ended.
    private func readUntilClosed(_ onMessage: @Sendable (ServerMessage) -> Void) -> HealthError {
        var decoder = FrameDecoder(maxFrameBytes: maxFrameBytes)
        let chunk = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 * 1024, alignment: 1)
        defer { chunk.deallocate() }
        do {
            while true {
                let count = try socket.read(into: chunk)
                if count == 0 { return HealthError(.unavailable, "the server closed the connection") }
                decoder.append(UnsafeRawBufferPointer(rebasing: chunk[..<count]))
                while let payload = try decoder.nextFrame() {
                    onMessage(try WireCodec.decodeServerMessage(payload))
                }
            }
        } catch {
            close()
            return error.code == .unavailable ? error : HealthError(.unavailable, "connection dropped: \(error)")
        }
    }
}

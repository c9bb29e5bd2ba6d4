import Dispatch
import HealthModel

/// Reads every client socket of the process on one serial queue, woken by Dispatch read sources
/// (epoll underneath), so a process with thousands of connections (healthsim's load mode) needs
/// no blocked thread per connection.
final class ReadinessLoop: Sendable {
    /// Reads what arrived on its socket into the shared buffer; false once the socket is done.
    typealias Reader = @Sendable (UnsafeMutableRawBufferPointer) -> Bool

    static let shared = ReadinessLoop()

    private let queue = DispatchQueue(label: "HealthClient.reader")
    private let buffer = ReadBuffer()

    /// Calls `read` on the reader queue whenever `socket` has data or reached its end, until it
    /// returns false; then closes the socket, once Dispatch no longer watches it (so the
    /// descriptor cannot be reused under a live watch).
    func watch(_ socket: Socket, read: @escaping Reader) {
        let source = DispatchSource.makeReadSource(fileDescriptor: socket.fd, queue: queue)
        let buffer = buffer
        // The handler holds the source until cancelled; Dispatch drops both handlers then.
        source.setEventHandler {
            if !read(buffer.bytes) { source.cancel() }
        }
        source.setCancelHandler { socket.close() }
        source.resume()
    }
}

/// The reader queue's one receive buffer, touched only on that queue.
private final class ReadBuffer: @unchecked Sendable {
    let bytes = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 * 1024, alignment: 16)
}

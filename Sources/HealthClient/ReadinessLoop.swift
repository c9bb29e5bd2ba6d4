import Dispatch
import HealthModel
import Synchronization

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
    /// descriptor cannot be reused under a live watch). The watch returned holds reading back.
    func watch(_ socket: Socket, read: @escaping Reader) -> SocketWatch {
        let source = DispatchSource.makeReadSource(fileDescriptor: socket.fd, queue: queue)
        let buffer = buffer
        // The handler holds the source until cancelled; Dispatch drops both handlers then.
        source.setEventHandler {
            if !read(buffer.bytes) { source.cancel() }
        }
        source.setCancelHandler { socket.close() }
        source.resume()
        return SocketWatch(source)
    }
}

/// One socket's watch on the reader queue. While anyone holds it, the socket is not read: what
/// the server sends waits in the kernel's buffers and then in the server (TCP back-pressure).
final class SocketWatch: @unchecked Sendable {
    // The source is only suspended and resumed, under `holds`.
    private let source: any DispatchSourceRead
    /// Holds taken and not released; `ended` once reading must go on to the end (the socket closes).
    private let holds = Mutex((count: 0, ended: false))

    fileprivate init(_ source: any DispatchSourceRead) { self.source = source }

    /// Stops reading until every hold is released.
    func hold() {
        holds.withLock { holds in
            guard !holds.ended else { return }
            if holds.count == 0 { source.suspend() }
            holds.count += 1
        }
    }

    /// Releases one hold taken with `hold`.
    func release() {
        holds.withLock { holds in
            guard !holds.ended, holds.count > 0 else { return }
            holds.count -= 1
            if holds.count == 0 { source.resume() }
        }
    }

    /// Reading goes on whatever is held, so the reader sees the socket's end (Dispatch must not
    /// drop a suspended source) and the calls waiting on it end.
    func end() {
        holds.withLock { holds in
            guard !holds.ended else { return }
            holds.ended = true
            if holds.count > 0 { source.resume() }
        }
    }
}

/// The reader queue's one receive buffer, touched only on that queue.
private final class ReadBuffer: @unchecked Sendable {
    let bytes = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 * 1024, alignment: 16)
}

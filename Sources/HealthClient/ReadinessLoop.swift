import Dispatch
import HealthModel
import Synchronization

/// Reads every client socket of the process on one serial queue, woken by Dispatch read sources
/// (epoll underneath), so a process with thousands of connections (healthsim's load mode) needs
/// no blocked thread per connection.
final class ReadinessLoop: Sendable {
    /// What a read of a socket left behind.
    enum Read {
        /// Something was read: more, or the socket's end, may be waiting.
        case more
        /// Nothing more has arrived.
        case drained
        /// The socket is done with.
        case done
    }

    /// Reads what arrived on its socket into the shared buffer.
    typealias Reader = @Sendable (UnsafeMutableRawBufferPointer) -> Read

    static let shared = ReadinessLoop()

    private let queue = DispatchQueue(label: "HealthClient.reader")
    private let buffer = ReadBuffer()

    /// Calls `read` on the reader queue whenever `socket` has data or reached its end, until it
    /// returns `.done`; then closes the socket, once Dispatch no longer watches it (so the
    /// descriptor cannot be reused under a live watch). The watch returned holds reading back.
    func watch(_ socket: Socket, read: @escaping Reader) -> SocketWatch {
        let source = DispatchSource.makeReadSource(fileDescriptor: socket.fd, queue: queue)
        let watch = SocketWatch(source, queue: queue, buffer: buffer, read: read)
        // The handler holds the watch, and so the source, until cancelled; Dispatch drops both handlers then.
        source.setEventHandler { watch.readWhileUnheld() }
        source.setCancelHandler { socket.close() }
        source.resume()
        return watch
    }
}

/// One socket's watch on the reader queue. While anyone holds it, the socket is not read: what
/// the server sends waits in the kernel's buffers and then in the server (TCP back-pressure).
final class SocketWatch: @unchecked Sendable {
    // The source is only suspended and resumed, under `holds`; `read` and `buffer` are used on `queue` only.
    private let source: any DispatchSourceRead
    private let queue: DispatchQueue
    private let buffer: ReadBuffer
    private let read: ReadinessLoop.Reader
    /// Holds taken and not released; `ended` once reading must go on to the end (the socket closes).
    private let holds = Mutex((count: 0, ended: false))

    fileprivate init(_ source: any DispatchSourceRead, queue: DispatchQueue, buffer: ReadBuffer, read: @escaping ReadinessLoop.Reader) {
        (self.source, self.queue, self.buffer, self.read) = (source, queue, buffer, read)
    }

    /// Buffers read from one socket in a row before the other sockets' reports waiting on the queue.
    static let readsInARow = 16

    /// Reads until nothing more has arrived, the socket is done, or reading is held (on the reader
    /// queue). Dispatch reports a peer's hang-up once and then stops watching the descriptor: a
    /// read that stopped short of the end would never be called again, and the connection would
    /// wait forever on a peer that is gone. A socket that still has more after `readsInARow`
    /// buffers is read on behind the others, so a server sending without pause starves none of them.
    fileprivate func readWhileUnheld() {
        for _ in 0..<Self.readsInARow {
            guard !source.isCancelled, !isHeld else { return }
            switch read(buffer.bytes) {
            case .more: continue
            case .drained: return
            case .done:
                source.cancel()
                return
            }
        }
        queue.async { self.readWhileUnheld() }
    }

    /// True while a hold stops reading.
    var isHeld: Bool { holds.withLock { $0.count > 0 && !$0.ended } }

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
        let unheld = holds.withLock { holds in
            guard !holds.ended, holds.count > 0 else { return false }
            holds.count -= 1
            if holds.count == 0 { source.resume() }
            return holds.count == 0
        }
        // Dispatch does not report again what it reported while reading was held (the peer's hang-up).
        if unheld { queue.async { self.readWhileUnheld() } }
    }

    /// Reading goes on whatever is held, so the reader sees the socket's end (Dispatch must not
    /// drop a suspended source) and the calls waiting on it end.
    func end() {
        let held = holds.withLock { holds in
            guard !holds.ended else { return false }
            holds.ended = true
            if holds.count > 0 { source.resume() }
            return holds.count > 0
        }
        if held { queue.async { self.readWhileUnheld() } }
    }
}

/// The reader queue's one receive buffer, touched only on that queue.
private final class ReadBuffer: @unchecked Sendable {
    let bytes = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 * 1024, alignment: 16)
}

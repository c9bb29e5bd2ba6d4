import CMicroHTTPD
import HealthModel

/// A Server-Sent Events answer that stays open. A producer task (any thread) sends events; they are
/// queued on the HTTP loop, and libmicrohttpd pulls them through `read` — which suspends the
/// connection while nothing is queued, and `append` resumes it.
///
/// Confinement: everything but `send`/`finish` runs on the HTTP loop's thread.
final class EventStream: @unchecked Sendable {
    /// Queued output above which the reader is too slow: the stream ends and the page reconnects.
    static let maxPending = 4 << 20

    private let loop: EventLoop
    private let producer: @Sendable (EventStream) async -> Void
    private var pending: [UInt8] = []
    private var ended = false
    private var suspended = false
    private var connection: OpaquePointer?
    private var task: Task<Void, Never>?
    /// The listener serving the stream: it runs libmicrohttpd again after a resume.
    weak var listener: HTTPListener?

    init(loop: EventLoop, producer: @escaping @Sendable (EventStream) async -> Void) {
        self.loop = loop
        self.producer = producer
    }

    /// Sends one event. Safe from any thread.
    func send(_ event: String, _ data: JSON) {
        var bytes = Array("event: \(event)\ndata: ".utf8)
        data.write(to: &bytes)
        bytes += Array("\n\n".utf8)
        let event = bytes
        loop.post { self.append(event) }
    }

    /// Ends the stream after what is queued. Safe from any thread.
    func finish() {
        loop.post {
            self.ended = true
            self.wake()
        }
    }

    // MARK: HTTP loop

    /// The answer was queued on `connection`: the producer starts.
    func start(on connection: OpaquePointer) {
        self.connection = connection
        task = Task { [producer] in await producer(self) }
    }

    /// A comment line that keeps proxies and the browser from timing the stream out.
    func keepAlive() {
        append(Array(": keep-alive\n\n".utf8))
    }

    private func append(_ bytes: [UInt8]) {
        guard !ended else { return }
        if pending.count + bytes.count > Self.maxPending {
            ended = true
            pending.removeAll()
        } else {
            pending += bytes
        }
        wake()
    }

    private func wake() {
        guard suspended, let connection else { return }
        suspended = false
        MHD_resume_connection(connection)
        listener?.runSoon()
    }

    /// libmicrohttpd's content reader: bytes copied, or -1 at the end of the stream.
    func read(into buffer: UnsafeMutablePointer<CChar>, max: Int) -> Int {
        if !pending.isEmpty {
            let count = min(max, pending.count)
            pending.withUnsafeBufferPointer { bytes in
                UnsafeMutableRawPointer(buffer).copyMemory(from: bytes.baseAddress!, byteCount: count)
            }
            pending.removeFirst(count)
            return count
        }
        if ended { return -1 }
        if let connection {
            suspended = true
            MHD_suspend_connection(connection)
        }
        return 0
    }

    /// The connection is gone: the producer stops.
    func closed() {
        ended = true
        connection = nil
        task?.cancel()
        task = nil
    }
}

import CLibUV
import Foundation
import HealthStorage  // Thread(named:)
import Synchronization

/// One I/O thread's libuv loop, serving the sockets the listener hands it: each frame is answered in the
/// read callback that completes it, and one read's answers leave in one write.
///
/// Confinement (why `@unchecked Sendable` is sound), as in healthd's `EventLoop`: every handle is made,
/// used and closed on the loop's thread; the listener's thread only appends to `arrivals` under its lock
/// and calls `uv_async_send`, which libuv allows from any thread.
final class FloorLoop: @unchecked Sendable {
    let loop = UnsafeMutablePointer<uv_loop_t>.allocate(capacity: 1)
    private let wakeup = UnsafeMutablePointer<uv_async_t>.allocate(capacity: 1)
    private let arrivals = Mutex<[Int32]>([])
    /// Reads land here: a loop's read callbacks never overlap.
    let readBuffer = UnsafeMutablePointer<CChar>.allocate(capacity: FloorLoop.readBufferSize)
    static let readBufferSize = 64 * 1024
    /// The answers to the frames of one read, reused from read to read.
    var answers: [UInt8] = []

    init() {
        uv_loop_init(loop)
        loop.pointee.data = Unmanaged.passUnretained(self).toOpaque()
        uv_async_init(loop, wakeup) { FloorLoop.of($0!.pointee.loop).adoptArrivals() }
    }

    static func of(_ loop: UnsafeMutablePointer<uv_loop_t>) -> FloorLoop {
        Unmanaged.fromOpaque(loop.pointee.data!).takeUnretainedValue()
    }

    func start(named name: String) {
        Thread(named: name) { [self] in _ = uv_run(loop, UV_RUN_DEFAULT) }.start()
    }

    /// Hands an accepted socket to this loop. Safe from any thread.
    func adopt(_ fd: Int32) {
        arrivals.withLock { $0.append(fd) }
        uv_async_send(wakeup)
    }

    private func adoptArrivals() {
        let fds = arrivals.withLock { fds in
            defer { fds.removeAll() }
            return fds
        }
        for fd in fds { FloorConnection.open(fd, on: self) }
    }
}

/// One client socket and the start of a frame not yet whole.
final class FloorConnection {
    private let tcp = UnsafeMutablePointer<uv_tcp_t>.allocate(capacity: 1)
    private var partial: [UInt8] = []
    private var stream: UnsafeMutablePointer<uv_stream_t> { UnsafeMutableRawPointer(tcp).assumingMemoryBound(to: uv_stream_t.self) }
    private var handle: UnsafeMutablePointer<uv_handle_t> { UnsafeMutableRawPointer(tcp).assumingMemoryBound(to: uv_handle_t.self) }

    deinit { tcp.deallocate() }

    /// Adopts an accepted socket on `loop`'s thread; the handle holds the connection until it closes.
    static func open(_ fd: Int32, on loop: FloorLoop) {
        let connection = FloorConnection()
        uv_tcp_init(loop.loop, connection.tcp)
        connection.tcp.pointee.data = Unmanaged.passRetained(connection).toOpaque()
        guard uv_tcp_open(connection.tcp, fd) == 0 else {
            Foundation.close(fd)
            return connection.close()
        }
        uv_tcp_nodelay(connection.tcp, 1)
        uv_read_start(connection.stream, { handle, _, buf in
            buf!.pointee = uv_buf_init(FloorLoop.of(handle!.pointee.loop).readBuffer, UInt32(FloorLoop.readBufferSize))
        }, { stream, nread, buf in
            let connection = Unmanaged<FloorConnection>.fromOpaque(stream!.pointee.data!).takeUnretainedValue()
            guard nread >= 0 else { return connection.close() }  // end of stream or an error
            connection.received(UnsafeRawBufferPointer(start: buf!.pointee.base, count: nread), on: FloorLoop.of(stream!.pointee.loop))
        })
    }

    private func received(_ bytes: UnsafeRawBufferPointer, on loop: FloorLoop) {
        let used: Int?
        if partial.isEmpty {
            used = CannedAnswers.answerFrames(in: bytes, into: &loop.answers)
            if let used { partial.append(contentsOf: bytes[used...]) }
        } else {
            partial.append(contentsOf: bytes)
            used = partial.withUnsafeBytes { CannedAnswers.answerFrames(in: $0, into: &loop.answers) }
            if let used { partial.removeFirst(used) }
        }
        write(&loop.answers)
        if used == nil { close() }
    }

    /// Writes `answers` at once when the socket takes them (nearly always), the rest with a uv_write
    /// that owns a copy; leaves `answers` empty.
    private func write(_ answers: inout [UInt8]) {
        guard !answers.isEmpty else { return }
        defer { answers.removeAll(keepingCapacity: true) }
        // uv_try_write writes nothing while an earlier uv_write is queued, so answers leave in order.
        let written = answers.withUnsafeMutableBytes { bytes in
            var buf = uv_buf_init(bytes.baseAddress!.assumingMemoryBound(to: CChar.self), UInt32(bytes.count))
            return uv_try_write(stream, &buf, 1)
        }
        if written < 0 && written != UV_EAGAIN.rawValue { return close() }
        let sent = max(0, Int(written))
        let count = answers.count - sent
        guard count > 0 else { return }
        let headerBytes = MemoryLayout<uv_write_t>.stride
        let request = UnsafeMutableRawPointer.allocate(byteCount: headerBytes + count, alignment: 16)
        answers.withUnsafeBytes { (request + headerBytes).copyMemory(from: $0.baseAddress! + sent, byteCount: count) }
        var buf = uv_buf_init((request + headerBytes).assumingMemoryBound(to: CChar.self), UInt32(count))
        let status = uv_write(request.bindMemory(to: uv_write_t.self, capacity: 1), stream, &buf, 1) { request, _ in
            UnsafeMutableRawPointer(request!).deallocate()
        }
        if status != 0 {
            request.deallocate()
            close()
        }
    }

    private func close() {
        guard uv_is_closing(handle) == 0 else { return }
        uv_close(handle) { handle in
            Unmanaged<FloorConnection>.fromOpaque(handle!.pointee.data!).release()
        }
    }
}

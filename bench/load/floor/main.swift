// transport-floor: the load bench's raw limit (bench/load/run.sh FLOOR=1). It listens like healthd, spreads
// its connections over as many libuv I/O loops as healthd's default, and answers every length-prefixed frame
// at once with a reply packed at start (CannedAnswers): no storage, no decoding beyond a frame's length and
// its call's field number. Its CPU a call is what the transport alone costs on this machine.
//   transport-floor [--listen HOST:PORT] [--threads N]     (default 127.0.0.1:0, one thread a core)
import CLibUV
import Foundation

/// Accepts on the main thread's loop and hands each socket to the next I/O loop, as healthd's `Acceptor`:
/// a libuv handle cannot move between loops, so the socket's descriptor is duplicated and its handle closed.
final class FloorListener {
    private let tcp = UnsafeMutablePointer<uv_tcp_t>.allocate(capacity: 1)
    private let loops: [FloorLoop]
    private var next = 0

    init(loops: [FloorLoop]) {
        self.loops = loops
    }

    /// Listens on `host:port`; returns the bound port.
    func listen(host: String, port: Int32) -> Int {
        uv_tcp_init(uv_default_loop(), tcp)
        tcp.pointee.data = Unmanaged.passUnretained(self).toOpaque()
        var address = sockaddr_in()
        let stream = UnsafeMutableRawPointer(tcp).assumingMemoryBound(to: uv_stream_t.self)
        var status = uv_ip4_addr(host, port, &address)
        if status == 0 {
            status = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { uv_tcp_bind(tcp, $0, 0) } }
        }
        if status == 0 {
            status = uv_listen(stream, 1024) { server, status in
                guard status == 0 else { return }
                Unmanaged<FloorListener>.fromOpaque(server!.pointee.data!).takeUnretainedValue().accept(server!)
            }
        }
        guard status == 0 else { fail("cannot listen on \(host):\(port): \(String(cString: uv_strerror(status)))") }
        var bound = sockaddr_in()
        var length = Int32(MemoryLayout<sockaddr_in>.size)
        withUnsafeMutablePointer(to: &bound) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { _ = uv_tcp_getsockname(tcp, $0, &length) } }
        return Int(UInt16(bigEndian: bound.sin_port))
    }

    private func accept(_ server: UnsafeMutablePointer<uv_stream_t>) {
        let client = UnsafeMutablePointer<uv_tcp_t>.allocate(capacity: 1)
        uv_tcp_init(uv_default_loop(), client)
        let handle = UnsafeMutableRawPointer(client).assumingMemoryBound(to: uv_handle_t.self)
        defer { uv_close(handle) { UnsafeMutableRawPointer($0!).deallocate() } }
        var fd: uv_os_fd_t = -1
        guard uv_accept(server, UnsafeMutableRawPointer(client).assumingMemoryBound(to: uv_stream_t.self)) == 0,
              uv_fileno(handle, &fd) == 0 else { return }
        let own = fcntl(fd, F_DUPFD_CLOEXEC, 0)
        guard own >= 0 else { return }
        loops[next % loops.count].adopt(own)
        next &+= 1
    }
}

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("transport-floor: \(message)\n".utf8))
    exit(2)
}

var (host, port, threads) = ("127.0.0.1", Int32(0), ProcessInfo.processInfo.activeProcessorCount)
var arguments = CommandLine.arguments.dropFirst()
while let flag = arguments.popFirst() {
    guard let value = arguments.popFirst() else { fail("\(flag) needs a value") }
    switch flag {
    case "--listen":
        guard let colon = value.lastIndex(of: ":"), let number = Int32(value[value.index(after: colon)...]) else {
            fail("--listen takes HOST:PORT, not \(value)")
        }
        (host, port) = (String(value[..<colon]), number)
    case "--threads":
        guard let count = Int(value), (1...256).contains(count) else { fail("--threads takes 1 to 256, not \(value)") }
        threads = count
    default:
        fail("unknown option \(flag); usage: transport-floor [--listen HOST:PORT] [--threads N]")
    }
}
let loops = (0..<threads).map { _ in FloorLoop() }
for (index, loop) in loops.enumerated() { loop.start(named: "floor-io-\(index)") }
let listener = FloorListener(loops: loops)
let bound = listener.listen(host: host, port: port)
FileHandle.standardError.write(Data("transport-floor: listening on tcp \(host):\(bound); \(threads) I/O thread(s)\n".utf8))
_ = uv_run(uv_default_loop(), UV_RUN_DEFAULT)

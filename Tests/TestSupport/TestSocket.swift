#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Sockets for tests that play a server or a raw client, shared by the test targets: Unix-domain
/// listeners and connections, and loopback TCP listeners on an ephemeral port.
public enum TestSocket {
    /// A socket listening at the Unix socket `path` (a file left there is removed first).
    public static func listen(unix path: String, backlog: Int32 = 16) throws -> Int32 {
        unlink(path)
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        let bound = withAddress(path) { bind(fd, $0, $1) }
        guard bound == 0, Glibc.listen(fd, backlog) == 0 else { throw failure("listen on \(path)", closing: fd) }
        return fd
    }

    /// A socket connected to the Unix socket at `path`.
    public static func connect(unix path: String) throws -> Int32 {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        guard withAddress(path, { Glibc.connect(fd, $0, $1) }) == 0 else { throw failure("connect to \(path)", closing: fd) }
        return fd
    }

    /// Connections queued at the Unix listener at `path` (which accepts none) until its backlog is
    /// full: a blocking connect then waits for room, a non-blocking one is refused with EAGAIN.
    public static func fillBacklog(unix path: String) throws -> [Int32] {
        var queued: [Int32] = []
        while queued.count < 4096 {
            let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
            guard withAddress(path, { Glibc.connect(fd, $0, $1) }) == 0 else {
                if errno == EAGAIN {
                    close(fd)
                    return queued
                }
                let error = failure("connect to \(path)", closing: fd)
                queued.forEach { close($0) }
                throw error
            }
            queued.append(fd)
        }
        queued.forEach { close($0) }
        throw TestSocketError(description: "the backlog of \(path) took 4096 connections and was not full")
    }

    /// A socket listening on 127.0.0.1 at a port the kernel chose, and that port.
    public static func listenLoopback(backlog: Int32 = 16) throws -> (fd: Int32, port: UInt16) {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = loopback("127.0.0.1", port: 0)
        var size = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, size) == 0 && getsockname(fd, $0, &size) == 0 }
        }
        guard bound, Glibc.listen(fd, backlog) == 0 else { throw failure("listen on 127.0.0.1", closing: fd) }
        return (fd, UInt16(bigEndian: address.sin_port))
    }

    /// A socket connecting to 127.0.0.1:`port`, from the loopback address `source` (e.g.
    /// "127.0.0.7") when given; without `waiting`, the connection is left under way (non-blocking).
    public static func connect(loopbackPort port: UInt16, from source: String? = nil, waiting: Bool = true) throws -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        if let source {
            var local = loopback(source, port: 0)
            let bound = withUnsafePointer(to: &local) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            guard bound == 0 else { throw failure("bind to \(source)", closing: fd) }
        }
        if !waiting { _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK) }
        var address = loopback("127.0.0.1", port: port)
        let status = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard status == 0 || (!waiting && errno == EINPROGRESS) else { throw failure("connect to port \(port)", closing: fd) }
        return fd
    }

    private static func loopback(_ host: String, port: UInt16) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr(host)
        return address
    }

    /// Calls `body` with the address of the Unix socket `path` (cut to what `sun_path` holds).
    private static func withAddress<T>(_ path: String, _ body: (UnsafePointer<sockaddr>, socklen_t) -> T) -> T {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (i, byte) in path.utf8.prefix(raw.count - 1).enumerated() { raw[i] = byte }
        }
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
    }

    private static func failure(_ what: String, closing fd: Int32) -> TestSocketError {
        let error = TestSocketError(description: "\(what) failed: errno \(errno)")
        if fd >= 0 { close(fd) }
        return error
    }
}

/// A test socket that could not be set up.
public struct TestSocketError: Error, CustomStringConvertible {
    public let description: String

    public init(description: String) { self.description = description }
}

import CLibUV
import Foundation
import HealthModel
import HealthWire

/// The listeners (TCP and Unix socket) on the main loop, handing accepted sockets to I/O loops.
///
/// Distribution: libuv handles cannot move between loops, so the acceptor takes each connection
/// with `uv_accept` on the main loop, duplicates its file descriptor, closes its own handle, and
/// posts the duplicate to the next I/O loop (round robin), which adopts it with `uv_tcp_open` /
/// `uv_pipe_open`. This works the same for TCP and Unix sockets (SO_REUSEPORT would cover TCP
/// only) and keeps the connection limit in one place.
final class Acceptor {
    private let mainLoop: EventLoop
    private let ioLoops: [EventLoop]
    private let core: ServerCore
    private var listeners: [(handle: UnsafeMutableRawPointer, kind: TransportKind)] = []
    private var nextLoop = 0
    /// The Unix socket file, removed when the acceptor closes.
    private var unixPath: String?

    init(mainLoop: EventLoop, ioLoops: [EventLoop], core: ServerCore) {
        self.mainLoop = mainLoop
        self.ioLoops = ioLoops
        self.core = core
    }

    /// Listens on TCP; returns "host:port" with the bound port.
    func listenTCP(host: String, port: Int) throws(HealthError) -> String {
        let tcp = UnsafeMutablePointer<uv_tcp_t>.allocate(capacity: 1)
        uv_tcp_init(mainLoop.loop, tcp)
        var storage = try Self.address(host: host, port: port, field: "listen")
        let bound = withUnsafePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { uv_tcp_bind(tcp, $0, 0) }
        }
        try check(bound, "bind \(host):\(port)")
        try listen(UnsafeMutableRawPointer(tcp), kind: .tcp, what: "\(host):\(port)")
        var name = sockaddr_storage()
        var length = Int32(MemoryLayout<sockaddr_storage>.size)
        withUnsafeMutablePointer(to: &name) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { _ = uv_tcp_getsockname(tcp, $0, &length) }
        }
        let actualPort = Self.port(of: name)
        return host.contains(":") ? "[\(host)]:\(actualPort)" : "\(host):\(actualPort)"
    }

    /// An IPv4 or IPv6 literal address and port as a socket address.
    static func address(host: String, port: Int, field: String) throws(HealthError) -> sockaddr_storage {
        var storage = sockaddr_storage()
        let parsed = withUnsafeMutablePointer(to: &storage) { pointer in
            pointer.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { uv_ip4_addr(host, Int32(port), $0) } == 0
                || pointer.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { uv_ip6_addr(host, Int32(port), $0) } == 0
        }
        guard parsed else { throw HealthError.invalid("cannot parse listen host '\(host)'", field: field) }
        return storage
    }

    /// Listens on a Unix domain socket, replacing a stale socket file.
    func listenUnix(path: String) throws(HealthError) {
        var info = stat()
        if lstat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFSOCK { unlink(path) }
        let pipe = UnsafeMutablePointer<uv_pipe_t>.allocate(capacity: 1)
        uv_pipe_init(mainLoop.loop, pipe, 0)
        try check(uv_pipe_bind(pipe, path), "bind unix socket \(path)")
        try listen(UnsafeMutableRawPointer(pipe), kind: .unix, what: path)
        unixPath = path
    }

    /// Stops accepting: closes every listener.
    func close() {
        for listener in listeners {
            uv_close(listener.handle.assumingMemoryBound(to: uv_handle_t.self), nil)
        }
        listeners.removeAll()
        if let unixPath { unlink(unixPath) }
        unixPath = nil
    }

    private func listen(_ handle: UnsafeMutableRawPointer, kind: TransportKind, what: String) throws(HealthError) {
        let stream = handle.assumingMemoryBound(to: uv_stream_t.self)
        stream.pointee.data = Unmanaged.passUnretained(self).toOpaque()
        let status: Int32
        switch kind {
        case .tcp:
            status = uv_listen(stream, 1024) { server, status in
                guard status == 0 else { return }
                Unmanaged<Acceptor>.fromOpaque(server!.pointee.data).takeUnretainedValue().accept(server!, kind: .tcp)
            }
        case .unix:
            status = uv_listen(stream, 1024) { server, status in
                guard status == 0 else { return }
                Unmanaged<Acceptor>.fromOpaque(server!.pointee.data).takeUnretainedValue().accept(server!, kind: .unix)
            }
        }
        try check(status, "listen on \(what)")
        listeners.append((handle, kind))
    }

    private func check(_ status: Int32, _ what: String) throws(HealthError) {
        guard status == 0 else {
            throw HealthError(.unavailable, "cannot \(what): \(String(cString: uv_strerror(status)))")
        }
    }

    private func accept(_ server: UnsafeMutablePointer<uv_stream_t>, kind: TransportKind) {
        let bytes = max(MemoryLayout<uv_tcp_t>.size, MemoryLayout<uv_pipe_t>.size)
        let client = UnsafeMutableRawPointer.allocate(byteCount: bytes, alignment: 16)
        switch kind {
        case .tcp: uv_tcp_init(mainLoop.loop, client.bindMemory(to: uv_tcp_t.self, capacity: 1))
        case .unix: uv_pipe_init(mainLoop.loop, client.bindMemory(to: uv_pipe_t.self, capacity: 1), 0)
        }
        let handle = client.assumingMemoryBound(to: uv_handle_t.self)
        defer {
            uv_close(handle) { UnsafeMutableRawPointer($0!).deallocate() }
        }
        guard uv_accept(server, client.assumingMemoryBound(to: uv_stream_t.self)) == 0 else { return }
        var original: uv_os_fd_t = -1
        guard uv_fileno(handle, &original) == 0 else { return }
        let fd = fcntl(original, F_DUPFD_CLOEXEC, 0)
        guard fd >= 0 else {
            core.logger.warning("cannot take over an accepted socket: \(String(cString: strerror(errno)))")
            return
        }
        let peer = kind == .unix ? Self.unixPeer(fd) : Self.peerAddress(fd)
        let loop = ioLoops[nextLoop % ioLoops.count]
        guard let admission = core.registry.admit(peer: peer, loop: loop, config: core.config) else {
            core.logger.warning("refused a connection from \(peer): \(core.config.maxConnections) connections are open")
            refuse(fd)
            return
        }
        nextLoop &+= 1
        let (core, id) = (core, admission.id)
        if let displaced = admission.displaced {
            displaced.loop.post { displaced.loop.connections[displaced.id]?.displacedBeforeHello() }
        }
        core.logger.debug("connection \(id) from \(peer) accepted on \(loop.name)")
        let posted = loop.post {
            _ = Connection(fd: fd, kind: kind, peer: peer, id: id, loop: loop, core: core)
        }
        if !posted {
            Foundation.close(fd)
            core.registry.connectionClosed(id)
        }
    }

    /// Tells a client over the connection limit why, then closes its socket.
    private func refuse(_ fd: Int32) {
        let error = HealthError(.resourceExhausted, "the server has \(core.config.maxConnections) connections open; try again later")
        let frame = WireCodec.encodeServerFrame(ServerMessage(callID: 0, result: .error(error)))
        _ = frame.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL | MSG_DONTWAIT)) }
        Foundation.close(fd)
    }

    /// A Unix-socket client named by its credentials, so the authentication throttle tells local
    /// processes apart instead of counting them all as one address.
    private static func unixPeer(_ fd: Int32) -> String {
        // Linux's `struct ucred` (pid, uid, gid), which Glibc only declares under _GNU_SOURCE.
        var credentials: (pid: pid_t, uid: uid_t, gid: gid_t) = (0, 0, 0)
        var length = socklen_t(MemoryLayout.size(ofValue: credentials))
        guard getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &credentials, &length) == 0 else { return "unix" }
        return "unix uid \(credentials.uid) pid \(credentials.pid)"
    }

    private static func peerAddress(_ fd: Int32) -> String {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let status = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getpeername(fd, $0, &length) }
        }
        guard status == 0 else { return "unknown" }
        return withUnsafePointer(to: &storage) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { hostText($0) } }
    }

    /// The numeric host of an IPv4 or IPv6 socket address.
    static func hostText(_ address: UnsafePointer<sockaddr>) -> String {
        var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN) + 1)
        if Int32(address.pointee.sa_family) == AF_INET {
            address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { address in
                var raw = address.pointee.sin_addr
                _ = inet_ntop(AF_INET, &raw, &text, socklen_t(text.count))
            }
        } else {
            address.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { address in
                var raw = address.pointee.sin6_addr
                _ = inet_ntop(AF_INET6, &raw, &text, socklen_t(text.count))
            }
        }
        return String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    static func port(of storage: sockaddr_storage) -> Int {
        var storage = storage
        let family = Int32(storage.ss_family)
        return withUnsafePointer(to: &storage) { pointer in
            if family == AF_INET6 {
                return pointer.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { Int(UInt16(bigEndian: $0.pointee.sin6_port)) }
            }
            return pointer.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { Int(UInt16(bigEndian: $0.pointee.sin_port)) }
        }
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import HealthModel

/// A connected stream socket (TCP or Unix): blocking writes, serialized by the caller; reads
/// without waiting on the shared reader queue; `shutdown()` makes that reader see the end.
final class Socket: @unchecked Sendable {
    // Immutable after init; the descriptor is closed exactly once, by `close()`.
    let fd: Int32

    private init(fd: Int32) { self.fd = fd }

    /// Connects to `endpoint`, failing with `.unavailable` naming the address and the OS reason, or
    /// the timeout when the name's lookup, a TCP peer (a dropped SYN waits minutes) or a Unix listener
    /// whose backlog is full has not let it through by `deadline`. `resolver` looks host names up.
    static func connect(to endpoint: Endpoint, before deadline: Deadline, resolver: Resolver = .system) throws(HealthError) -> Socket {
        let addresses = switch endpoint {
        case .tcp(let host, let port): try resolver.addresses(of: host, port: port, before: deadline)
        case .unix(let path): [try unixAddress(path)]
        }
        var lastErrno: Int32 = 0
        for address in addresses {
            let fd = socket(address.family, address.type, address.proto)
            guard fd >= 0 else {
                lastErrno = errno
                continue
            }
            switch connect(fd, to: address, before: deadline) {
            case 0:
                if address.family != AF_UNIX {
                    var one: Int32 = 1
                    setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
                    keepAlive(fd, probingAfter: deadline.timeout)
                }
                return Socket(fd: fd)
            case ETIMEDOUT where deadline.millisecondsLeft == 0:
                Glibc.close(fd)
                throw deadline.missed("cannot connect to \(endpoint)")
            case let failed:
                lastErrno = failed
                Glibc.close(fd)
            }
        }
        throw HealthError(.unavailable, "cannot connect to \(endpoint): \(String(cString: strerror(lastErrno)))")
    }

    /// Connects `fd` to `address` without blocking past `deadline`: 0, or the errno that failed it
    /// (ETIMEDOUT once the deadline passed). A TCP connection under way is waited for with poll(2);
    /// a Unix listener whose backlog is full refuses with EAGAIN and offers nothing to wait on, so
    /// the connect is tried again every few milliseconds (a blocking one waited with no bound).
    private static func connect(_ fd: Int32, to address: SocketAddress, before deadline: Deadline) -> Int32 {
        let flags = fcntl(fd, F_GETFL)
        _ = fcntl(fd, F_SETFL, flags | O_NONBLOCK)
        defer { _ = fcntl(fd, F_SETFL, flags) }
        while true {
            let rc = address.bytes.withUnsafeBytes { bytes in
                Glibc.connect(fd, bytes.baseAddress!.assumingMemoryBound(to: sockaddr.self), socklen_t(bytes.count))
            }
            guard rc != 0 else { return 0 }
            switch errno {
            case EINPROGRESS:
                return established(fd, before: deadline)
            case EAGAIN:
                let left = deadline.millisecondsLeft
                guard left > 0 else { return ETIMEDOUT }
                usleep(UInt32(min(left, 10)) * 1000)
            case let failed:
                return failed
            }
        }
    }

    /// Waits until the connection under way on `fd` is established: 0, or the errno that failed it.
    private static func established(_ fd: Int32, before deadline: Deadline) -> Int32 {
        var watch = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
        while true {
            let ready = poll(&watch, 1, deadline.millisecondsLeft)
            if ready > 0 { break }
            if ready == 0 { return ETIMEDOUT }
            if errno != EINTR { return errno }
        }
        var failure: Int32 = 0
        var size = socklen_t(MemoryLayout<Int32>.size)
        guard getsockopt(fd, SOL_SOCKET, SO_ERROR, &failure, &size) == 0 else { return errno }
        return failure
    }

    /// Probes the peer after `timeout` of silence, three times `timeout / 3` apart, so the kernel
    /// ends a connection whose peer vanished without a FIN (a network cut) in about twice the
    /// timeout, even while no call waits or reading is held (the Ping of `Liveness` needs both).
    private static func keepAlive(_ fd: Int32, probingAfter timeout: Duration) {
        let idle = max(1, Int32(clamping: timeout.components.seconds))
        for (level, option, value) in [(SOL_SOCKET, SO_KEEPALIVE, 1), (Int32(IPPROTO_TCP), TCP_KEEPIDLE, idle),
                                       (Int32(IPPROTO_TCP), TCP_KEEPINTVL, max(1, idle / 3)), (Int32(IPPROTO_TCP), TCP_KEEPCNT, 3)] {
            var value = value
            setsockopt(fd, level, option, &value, socklen_t(MemoryLayout<Int32>.size))
        }
    }

    /// The address of the Unix socket at `path`.
    private static func unixAddress(_ path: String) throws(HealthError) -> SocketAddress {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        let capacity = MemoryLayout.size(ofValue: address.sun_path)
        guard bytes.count < capacity else {
            throw HealthError.invalid("unix socket path '\(path)' is longer than \(capacity - 1) bytes", field: "unix")
        }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: bytes)
            raw[bytes.count] = 0
        }
        return SocketAddress(family: AF_UNIX, type: Int32(SOCK_STREAM.rawValue), proto: 0,
                             bytes: withUnsafeBytes(of: &address) { Array($0) })
    }

    /// Writes every byte; a peer that went away is `.unavailable` (never SIGPIPE).
    func write(_ bytes: [UInt8]) throws(HealthError) {
        var offset = 0
        while offset < bytes.count {
            let n = bytes.withUnsafeBytes { raw in
                send(fd, raw.baseAddress! + offset, raw.count - offset, Int32(MSG_NOSIGNAL))
            }
            if n < 0 {
                if errno == EINTR { continue }
                throw HealthError(.unavailable, "connection lost while sending: \(String(cString: strerror(errno)))")
            }
            offset += n
        }
    }

    /// Reads what has arrived into `buffer` without waiting: nil when nothing has, 0 at end of stream.
    func readAvailable(into buffer: UnsafeMutableRawBufferPointer) throws(HealthError) -> Int? {
        while true {
            let n = recv(fd, buffer.baseAddress, buffer.count, Int32(MSG_DONTWAIT))
            if n >= 0 { return n }
            if errno == EAGAIN || errno == EWOULDBLOCK { return nil }
            if errno != EINTR {
                throw HealthError(.unavailable, "connection lost while receiving: \(String(cString: strerror(errno)))")
            }
        }
    }

    /// Waits for data until `deadline`, then reads what arrived: empty at end of stream. Used
    /// before the socket is handed to the reader queue (the TLS handshake); `what` names the step
    /// in the error for a missed deadline ("127.0.0.1:7420 did not finish the TLS handshake").
    func read(before deadline: Deadline, missing what: @autoclosure () -> String) throws(HealthError) -> [UInt8] {
        var watch = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        while true {
            let ready = poll(&watch, 1, deadline.millisecondsLeft)
            if ready > 0 { break }
            if ready == 0 { throw deadline.missed(what()) }
            if errno != EINTR { throw HealthError(.unavailable, "cannot wait for the server: \(String(cString: strerror(errno)))") }
        }
        var bytes = [UInt8](repeating: 0, count: 16 * 1024)
        let count = try bytes.withUnsafeMutableBytes { buffer in Result { () throws(HealthError) in try readAvailable(into: buffer) } }
            .get() ?? 0
        return Array(bytes[..<count])
    }

    /// Ends both directions; the reader then sees the end of the stream.
    func shutdown() {
        _ = Glibc.shutdown(fd, Int32(SHUT_RDWR))
    }

    /// Releases the descriptor; call once: the reader queue does, once it stopped watching.
    func close() {
        Glibc.close(fd)
    }
}

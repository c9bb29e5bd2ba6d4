import Foundation
import HealthCLI

/// Checks, before anything is created, that the TCP address can be bound, so a taken port is
/// reported before a data directory or tokens exist.
enum ListenCheck {
    /// Nil when `host:port` can be bound (or port 0 picks its own), else why not in plain words.
    static func problem(host: String, port: Int) -> String? {
        guard port != 0 else { return nil }
        var hints = addrinfo()
        hints.ai_flags = AI_NUMERICSERV
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var found: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, String(port), &hints, &found) == 0, let address = found else {
            return "cannot listen on \(host):\(port): '\(host)' is not an address of this machine"
        }
        defer { freeaddrinfo(found) }
        let fd = socket(address.pointee.ai_family, address.pointee.ai_socktype, address.pointee.ai_protocol)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var on: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, socklen_t(MemoryLayout<Int32>.size))
        guard bind(fd, address.pointee.ai_addr, address.pointee.ai_addrlen) != 0 else { return nil }
        let reason = errno == EADDRINUSE ? "the port is in use (is another healthd running? pick another with --listen)"
            : errno == EADDRNOTAVAIL ? "'\(host)' is not an address of this machine"
            : errno == EACCES ? "permission denied (ports below 1024 need privileges)"
            : String(cString: strerror(errno))
        return "cannot listen on \(host):\(port): \(reason)"
    }
}

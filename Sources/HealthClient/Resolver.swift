#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import Dispatch
import Foundation
import HealthModel
import Synchronization

/// One address to connect to, copied out of getaddrinfo(3)'s list (or made from a Unix path): what
/// socket(2) and connect(2) take.
struct SocketAddress: Sendable {
    let family: Int32
    let type: Int32
    let proto: Int32
    /// The `sockaddr` itself.
    let bytes: [UInt8]
}

/// Turns a host name into addresses within the dial's deadline. getaddrinfo(3) cannot be bounded
/// (a resolver that never answers holds it for as long as resolv.conf's attempts take, or forever
/// behind a hung NSS module), so a name is looked up on a thread of its own, and the dial stops
/// waiting for it at the deadline; the thread ends whenever the lookup does. Numeric addresses never
/// reach `lookUp`: parsing one asks nothing of the resolver, and the dial starts no thread for it.
struct Resolver: Sendable {
    /// Looks a host name up, blocking: getaddrinfo(3) in `system`, a stand-in in tests.
    let lookUp: @Sendable (_ host: String, _ port: UInt16) -> Result<[SocketAddress], HealthError>

    /// The system's resolver.
    static let system = Resolver { host, port in
        addresses(host, port, flags: 0).mapError { reason in
            HealthError(.unavailable, "cannot resolve \(Endpoint.tcp(host: host, port: port)): \(reason)")
        }
    }

    /// The addresses of `host`, or `.unavailable` naming the host and the timeout when the lookup has
    /// not answered by `deadline`.
    func addresses(of host: String, port: UInt16, before deadline: Deadline) throws(HealthError) -> [SocketAddress] {
        if case .success(let numeric) = Self.addresses(host, port, flags: AI_NUMERICHOST) { return numeric }
        let answer = Answer()
        Thread { [lookUp] in answer.give(lookUp(host, port)) }.start()
        guard let result = answer.wait(until: deadline) else {
            throw deadline.missed("cannot resolve \(Endpoint.tcp(host: host, port: port))")
        }
        return try result.get()
    }

    /// getaddrinfo(3) for stream sockets: the addresses, or the resolver's reason.
    private static func addresses(_ host: String, _ port: UInt16, flags: Int32) -> Result<[SocketAddress], GAIFailure> {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_flags = flags
        var list: UnsafeMutablePointer<addrinfo>?
        let rc = getaddrinfo(host, String(port), &hints, &list)
        guard rc == 0 else { return .failure(GAIFailure(code: rc)) }
        defer { freeaddrinfo(list) }
        var addresses: [SocketAddress] = []
        var entry = list
        while let info = entry?.pointee {
            addresses.append(SocketAddress(family: info.ai_family, type: info.ai_socktype, proto: info.ai_protocol,
                                           bytes: Array(UnsafeRawBufferPointer(start: info.ai_addr, count: Int(info.ai_addrlen)))))
            entry = info.ai_next
        }
        return .success(addresses)
    }
}

/// A getaddrinfo(3) error code, printed as gai_strerror(3) says it.
private struct GAIFailure: Error, CustomStringConvertible {
    let code: Int32
    var description: String { String(cString: gai_strerror(code)) }
}

/// The lookup's result, handed from its thread to the dial, which may have stopped waiting.
private final class Answer: Sendable {
    private let result = Mutex<Result<[SocketAddress], HealthError>?>(nil)
    private let given = DispatchSemaphore(value: 0)

    func give(_ answer: Result<[SocketAddress], HealthError>) {
        result.withLock { $0 = answer }
        given.signal()
    }

    /// The result, or nil when none was given by `deadline`.
    func wait(until deadline: Deadline) -> Result<[SocketAddress], HealthError>? {
        guard given.wait(timeout: .now() + deadline.left.dispatch) == .success else { return nil }
        return result.withLock { $0 }
    }
}

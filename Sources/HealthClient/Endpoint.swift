import HealthModel

/// Where a HealthStore server listens: a TCP host and port, or a Unix domain socket path.
public enum Endpoint: Sendable, Hashable, CustomStringConvertible {
    case tcp(host: String, port: UInt16)
    case unix(path: String)

    /// The server's default address (127.0.0.1:7420).
    public static let standard = Endpoint.tcp(host: "127.0.0.1", port: 7420)

    /// Parses "HOST:PORT", "[IPv6]:PORT" or ":PORT" (host 127.0.0.1).
    public static func parse(hostPort text: String) throws(HealthError) -> Endpoint {
        guard let colon = text.lastIndex(of: ":"),
              let port = UInt16(text[text.index(after: colon)...]), port > 0 else {
            throw HealthError.invalid("server address '\(text)' is not HOST:PORT with a port in 1…65535", field: "server")
        }
        var host = String(text[..<colon])
        if host.hasPrefix("[") && host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        return .tcp(host: host.isEmpty ? "127.0.0.1" : host, port: port)
    }

    public var description: String {
        switch self {
        case .tcp(let host, let port): host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
        case .unix(let path): "unix:\(path)"
        }
    }
}

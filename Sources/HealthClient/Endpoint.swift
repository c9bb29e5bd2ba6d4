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

    /// Parses "unix:PATH", or a TCP address as `parse(hostPort:)` does, optionally written "tcp:HOST:PORT".
    public static func parse(_ text: String) throws(HealthError) -> Endpoint {
        if text.hasPrefix("tcp:") { return try parse(hostPort: String(text.dropFirst(4))) }
        if text.hasPrefix("unix:") {
            let path = String(text.dropFirst(5))
            guard !path.isEmpty else { throw HealthError.invalid("'\(text)' names no socket path after unix:", field: "server") }
            return .unix(path: path)
        }
        return try parse(hostPort: text)
    }

    /// The addresses of several nodes of one store, in order: each text one address or a
    /// comma-separated list (a repeated `--server`, or `HEALTHSTORE_SERVER=a,b`).
    public static func list(_ texts: [String]) throws(HealthError) -> [Endpoint] {
        let parts = texts.flatMap { $0.split(separator: ",") }.map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        guard !parts.isEmpty else {
            throw HealthError.invalid("no server address in '\(texts.joined(separator: ","))'", field: "server")
        }
        return try parts.map { text throws(HealthError) in try parse(text) }
    }

    /// The environment variable every client reads its server address (or list) from.
    public static let environmentVariable = "HEALTHSTORE_SERVER"

    public var description: String {
        switch self {
        case .tcp(let host, let port): host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
        case .unix(let path): "unix:\(path)"
        }
    }
}

import Foundation
import HealthWire

/// How RequestAuthorization decides types nobody has decided yet (docs/semantics.md decision 6).
public enum AuthorizationPolicy: String, Sendable, CaseIterable {
    /// Requests wait for the owner's decision.
    case prompt
    /// Every request is granted at once (development and tests).
    case allowAll = "allow-all"
    /// Every request is denied at once (development and tests).
    case denyAll = "deny-all"
}

/// Where the server listens and the limits that protect it.
public struct ServerConfiguration: Sendable {
    /// TCP listen host and port; nil = no TCP listener. Port 0 picks an ephemeral port.
    public var tcpHost: String? = "127.0.0.1"
    public var tcpPort: Int = 7420
    /// Unix domain socket path; nil = none.
    public var unixPath: String?
    /// I/O threads, each running one libuv loop.
    public var ioThreads: Int = max(1, ProcessInfo.processInfo.activeProcessorCount)
    public var maxConnections: Int = 1024
    public var maxFrameBytes: Int = WireLimits.defaultMaxFrameBytes
    public var maxCallsInFlight: Int = 128
    public var maxBatchObjects: Int = 10_000
    /// Seconds a new connection has to complete Hello.
    public var helloTimeout: Double = 10
    /// Largest first frame (the Hello) of a new connection: a stranger gets no more buffer than that.
    public var maxHelloFrameBytes: Int = 64 * 1024
    /// Connections still before their Hello was accepted; beyond it (or when `maxConnections` is
    /// reached) the oldest of them is dropped to make room for the new one.
    public var maxUnauthenticated: Int = 256
    /// The same per peer address; beyond it the oldest from that address is dropped.
    public var maxUnauthenticatedPerAddress: Int = 64
    /// Seconds a frame may take to arrive once its first byte did.
    public var frameTimeout: Double = 60
    /// Seconds without frames and without calls in flight before a connection is closed.
    public var idleTimeout: Double = 300
    /// Queued output above which the server stops reading from the client and producing its answers.
    public var outputHighWater: Int = 1 << 20
    /// Queued output of all connections together above which no connection's answers are produced.
    public var totalOutputBytes: Int = 256 << 20
    /// Calls of one connection that may be producing an answer at once; each holds its query result.
    public var answersInProduction: Int = 2
    /// Queued output above which the client is dropped at once.
    public var outputHardLimit: Int = 64 << 20
    /// Seconds a client may stay above the high-water mark before it is dropped.
    public var slowClientTimeout: Double = 30
    /// Seconds an observer event waits for its acknowledgement before it counts as missed (docs/semantics.md §6.9).
    public var observerAckTimeout: Double = 30
    /// Seconds SIGTERM waits for calls in flight before closing anyway.
    public var shutdownGrace: Double = 20
    public var authorizationPolicy: AuthorizationPolicy = .prompt
    /// TLS on the TCP listener; nil = plaintext. The Unix socket is always plaintext.
    public var tls: TLSFiles?
    /// The HTTP listener (dashboard and operator endpoints); nil = none.
    public var http: HTTPSettings? = HTTPSettings()

    public init() {}
}

/// The PEM files of the server's TLS identity, read at start and again on SIGHUP.
public struct TLSFiles: Sendable, Equatable {
    /// The server's certificate, followed by any intermediates.
    public var certificate: String
    public var privateKey: String
    /// When set, clients must present a certificate signed by a CA in this file.
    public var clientCA: String?

    public init(certificate: String, privateKey: String, clientCA: String? = nil) {
        self.certificate = certificate
        self.privateKey = privateKey
        self.clientCA = clientCA
    }
}

/// The HTTP listener's address and options. It serves HTTPS with the TCP listener's `tls` files.
public struct HTTPSettings: Sendable, Equatable {
    public var host = "127.0.0.1"
    /// 0 picks an ephemeral port.
    public var port = 7480
    /// True when the address is the default rather than the operator's choice: then a busy port
    /// only costs the HTTP listener (with a warning), not the server.
    public var isDefault = true
    /// Serves the dashboard's files from this directory instead of the bundled ones.
    public var assetsDirectory: String?
    /// /metrics answers only with `Authorization: Bearer <operator token>`.
    public var metricsTokenRequired = false
    /// Largest request body accepted; larger ones get 413.
    public var maxBodyBytes = 64 * 1024
    /// Largest Apple Health export upload (streamed to a temporary file, never held in memory).
    public var maxUploadBytes: Int64 = 4 << 30
    /// Where uploads are streamed, each in a directory of its own; those a killed server left here
    /// are removed at start. Nil: the system's temporary directory, never cleaned by us.
    public var uploadDirectory: String?
    /// A browser session lasts this long after sign-in.
    public var sessionSeconds: Double = 12 * 3600

    public init() {}
}

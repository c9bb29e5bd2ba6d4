import Foundation
import HealthCLI
import HealthServer
import HealthStorage

/// healthd's configuration: defaults, then a config file, then HEALTHD_* environment variables,
/// then flags — each later source overriding the earlier ones.
struct Options {
    var configuration = ServerConfiguration()
    var dataDirectory = "./data"
    var logLevel = LogLevel.info
    var tombstoneRetentionDays = 90.0
    var durability = SQLiteStore.Options.Durability.powerLoss
    /// nil = the store's default (`SQLiteStore.Options.groupCommitWindow`, `groupCommitWindowJobs`).
    var groupCommitWindow: Duration?
    var groupCommitJobs: Int?
    /// nil = the SQLite file in the data directory.
    var store: StoreLocation?

    /// The store to open.
    var storeLocation: StoreLocation { store ?? .sqlite(path: DataDirectory(path: dataDirectory).storePath) }

    private static func option(_ name: String, _ value: String, _ help: String, section: String) -> OptionSpec {
        .value(name, value, help, environment: "HEALTHD_" + name.uppercased().replacingOccurrences(of: "-", with: "_"),
               section: section)
    }

    /// Every option; each can also come from HEALTHD_<NAME> and from the config file.
    static let specs: [OptionSpec] = [
        option("listen", "HOST:PORT", "TCP address (default 127.0.0.1:7420; port 0 picks one; \"none\" = no TCP)", section: "listening"),
        option("unix", "PATH", "also listen on a Unix domain socket (always plaintext)", section: "listening"),
        option("tls-cert", "FILE", "serve TLS (1.2 or later) on the TCP listener with this PEM certificate (leaf first, "
            + "then intermediates); needs --tls-key. SIGHUP reloads certificate and key for new connections", section: "listening"),
        option("tls-key", "FILE", "the certificate's PEM private key", section: "listening"),
        option("tls-client-ca", "FILE", "with TLS, require client certificates signed by a CA in FILE", section: "listening"),
        option("http", "HOST:PORT", "the owner's dashboard, its JSON API and the operator endpoints (/healthz, /readyz, "
            + "/metrics) over HTTP (default 127.0.0.1:7480; port 0 picks one; \"off\" = none); HTTPS with --tls-cert and "
            + "--tls-key. See docs/http.md", section: "http"),
        option("http-assets", "DIR", "serve the dashboard's files from DIR instead of the bundled ones", section: "http"),
        option("http-upload-limit", "SIZE", "largest Apple Health export the dashboard may upload (default 4GiB; streamed "
            + "to the data directory's uploads/, cleared of leftovers at start)", section: "http"),
        option("metrics-auth", "MODE", "none | operator (default none): with operator, /metrics needs "
            + "Authorization: Bearer <operator token>", section: "http"),
        option("threads", "N", "I/O threads, each with its own event loop (default: one per core)", section: "listening"),
        option("data", "DIR", "data directory (default ./data; the store is DIR/healthstore.sqlite unless --store says "
            + "otherwise; first start writes the owner's and operator's tokens here)", section: "store"),
        option("store", "LOCATION", "sqlite:PATH (default sqlite:DIR/healthstore.sqlite) or a PostgreSQL URL "
            + "postgresql://user@host:port/db (also postgresql:///db?host=/socket/dir); PostgreSQL 13 or newer. Tokens "
            + "and anchor keys live in the store, so several healthd nodes can share one PostgreSQL database", section: "store"),
        option("tombstone-retention-days", "N", "keep deletion records this long (default 90); an anchor that would "
            + "miss a purged one gets ANCHOR_EXPIRED and must resync", section: "store"),
        option("durability", "MODE", "power-loss | process-crash (default power-loss): what an acknowledged save "
            + "survives. power-loss fsyncs every commit; process-crash does not, so saves survive healthd being killed "
            + "but not an OS crash or power loss (SQLite only; PostgreSQL's own settings decide there)", section: "store"),
        option("group-commit-window", "DURATION", "while saves keep arriving, the least time between the beginnings "
            + "of the writer's commits: saves arriving meanwhile share the next commit and its fsync (default 10ms; 0 = "
            + "commit at once). An idle writer commits at once; a save waits at most this much longer", section: "store"),
        option("group-commit-jobs", "N", "a gathering group this large commits without waiting out the window "
            + "(default 256)", section: "store"),
        option("authorization-policy", "POLICY", "prompt | allow-all | deny-all (default prompt)", section: "store"),
        option("max-connections", "N", "connection limit (default 1024)", section: "limits"),
        option("max-calls-in-flight", "N", "calls one connection may have in flight (default 128)", section: "limits"),
        option("hello-timeout", "DURATION", "time a new connection has to send Hello (default 10s)", section: "limits"),
        option("max-hello-frame-bytes", "SIZE", "largest first frame (the Hello) of a new connection (default 64KiB)", section: "limits"),
        option("max-unauthenticated", "N", "connections still before their Hello; beyond it, or at the connection "
            + "limit, the oldest of them is closed for the new one (default 256)", section: "limits"),
        option("max-unauthenticated-per-address", "N", "the same per peer address (default 64)", section: "limits"),
        option("frame-timeout", "DURATION", "a frame must arrive within this once begun (default 60s)", section: "limits"),
        option("idle-timeout", "DURATION", "idle connections are closed after this (default 5m)", section: "limits"),
        option("slow-client-timeout", "DURATION", "clients not reading their output are dropped after this (default 30s)", section: "limits"),
        option("max-output-bytes", "SIZE", "unread output queued per connection before its answers stop being "
            + "produced and its calls read (default 1MiB; at most 16MiB)", section: "limits"),
        option("total-output-bytes", "SIZE", "the same for all connections together (default 256MiB)", section: "limits"),
        option("observer-ack-timeout", "DURATION", "time an observer event waits for its acknowledgement (default "
            + "30s); three missed in a row end the observer", section: "limits"),
        option("log-level", "LEVEL", "debug | info | warning | error (default info)", section: "logging"),
    ]

    /// --config names the file the other options fall back to.
    static let configSpec = OptionSpec.value("config", "FILE", "read options from FILE: one \"name = value\" per line "
        + "(names as the options without dashes; # starts a comment)", environment: "HEALTHD_CONFIG", section: "configuration")

    static let help = HelpText(
        usage: ["healthd [options]"],
        summary: "The HealthStore server: the binary protocol on TCP and optionally a Unix socket, the store in one SQLite "
            + "file or in PostgreSQL.",
        options: specs + [configSpec] + ToolMain.standardOptions.map { $0.inSection("configuration") },
        footer: "Every option can also come from the environment as HEALTHD_<NAME> (HEALTHD_LISTEN, HEALTHD_LOG_LEVEL, …) "
            + "or from the config file; flags override the environment, which overrides the file. Durations take 500ms, 10s, 5m, "
            + "2h, 1d; sizes 65536, 64KiB, 4MiB.")

    /// The command line read with the environment and the config file behind it.
    static func parse(_ words: [String], environment: [String: String]) throws(UsageError) -> ParsedArguments {
        let all = specs + [configSpec] + ToolMain.standardOptions
        let first = try ParsedArguments(words, options: all, environment: environment)
        guard let path = first.value("config") else { return first }
        return try ParsedArguments(words, options: all, environment: environment,
                                   fallback: try ConfigFile.values(at: path, options: specs))
    }

    /// Parses and checks a command line (tests and main).
    init(arguments: [String], environment: [String: String]) throws(UsageError) {
        try self.init(try Self.parse(arguments, environment: environment))
    }

    /// Who may read /metrics.
    enum MetricsAuth: String, CaseIterable {
        case none, `operator`
    }

    /// Checks every value and builds the configuration.
    init(_ arguments: ParsedArguments) throws(UsageError) {
        _ = try arguments.positionals()
        if let listen = arguments.value("listen") {
            if listen == "none" {
                configuration.tcpHost = nil
            } else {
                let (host, port) = try arguments.parse("listen") { text throws(UsageError) in try Values.hostPort(text, allowEphemeral: true) }!
                configuration.tcpHost = host
                configuration.tcpPort = Int(port)
            }
        }
        func set<T>(_ name: String, _ grammar: (String) throws(UsageError) -> T, _ apply: (T) -> Void) throws(UsageError) {
            if let value = try arguments.parse(name, grammar) { apply(value) }
        }
        func count(_ range: ClosedRange<Int>) -> (String) throws(UsageError) -> Int {
            { text throws(UsageError) in try Values.integer(text, in: range) }
        }
        func seconds(_ range: ClosedRange<Double>) -> (String) throws(UsageError) -> Double {
            { text throws(UsageError) in try Values.duration(text, in: range) }
        }
        func bytes(_ range: ClosedRange<Int>) -> (String) throws(UsageError) -> Int {
            { text throws(UsageError) in try Values.size(text, in: range) }
        }
        if let http = arguments.value("http") {
            if http == "off" {
                configuration.http = nil
            } else {
                let (host, port) = try arguments.parse("http") { text throws(UsageError) in try Values.hostPort(text, allowEphemeral: true) }!
                configuration.http?.host = host
                configuration.http?.port = Int(port)
                configuration.http?.isDefault = false
            }
        }
        configuration.http?.assetsDirectory = arguments.value("http-assets")
        try set("http-upload-limit", bytes(1...Int.max)) { configuration.http?.maxUploadBytes = Int64($0) }
        try set("metrics-auth", { text throws(UsageError) in try Values.choice(text, MetricsAuth.self) }) {
            configuration.http?.metricsTokenRequired = $0 == .operator
        }
        configuration.unixPath = arguments.value("unix") ?? configuration.unixPath
        dataDirectory = arguments.value("data") ?? dataDirectory
        configuration.http?.uploadDirectory = DataDirectory(path: dataDirectory).uploadsPath
        try set("store", { text throws(UsageError) in try StoreLocation(parsing: text) }) { store = $0 }
        try set("threads", count(1...256)) { configuration.ioThreads = $0 }
        try set("max-connections", count(1...1_000_000)) { configuration.maxConnections = $0 }
        try set("max-calls-in-flight", count(1...100_000)) { configuration.maxCallsInFlight = $0 }
        try set("hello-timeout", seconds(0.1...3600)) { configuration.helloTimeout = $0 }
        try set("max-hello-frame-bytes", bytes(1024...configuration.maxFrameBytes)) { configuration.maxHelloFrameBytes = $0 }
        try set("max-unauthenticated", count(1...1_000_000)) { configuration.maxUnauthenticated = $0 }
        try set("max-unauthenticated-per-address", count(1...1_000_000)) { configuration.maxUnauthenticatedPerAddress = $0 }
        try set("frame-timeout", seconds(0.1...3600)) { configuration.frameTimeout = $0 }
        try set("idle-timeout", seconds(0.1...864_000)) { configuration.idleTimeout = $0 }
        try set("slow-client-timeout", seconds(0.1...3600)) { configuration.slowClientTimeout = $0 }
        try set("max-output-bytes", bytes(65_536...16_777_216)) { configuration.outputHighWater = $0 }
        try set("total-output-bytes", bytes(1_048_576...68_719_476_736)) { configuration.totalOutputBytes = $0 }
        try set("observer-ack-timeout", seconds(0.05...86_400)) { configuration.observerAckTimeout = $0 }
        try set("authorization-policy", { text throws(UsageError) in try Values.choice(text, AuthorizationPolicy.self) }) {
            configuration.authorizationPolicy = $0
        }
        try set("tombstone-retention-days", { text throws(UsageError) in try Values.number(text, in: 1...36_500) }) {
            tombstoneRetentionDays = $0
        }
        try set("durability", { text throws(UsageError) in try Values.choice(text, SQLiteStore.Options.Durability.self) }) {
            durability = $0
        }
        try set("group-commit-window", seconds(0...1)) { groupCommitWindow = .microseconds(Int64(($0 * 1e6).rounded())) }
        try set("group-commit-jobs", count(1...100_000)) { groupCommitJobs = $0 }
        try set("log-level", { text throws(UsageError) in
            guard let level = LogLevel(name: text) else { throw UsageError("'\(text)' is not one of debug, info, warning, error") }
            return level
        }) { logLevel = $0 }
        switch (arguments.value("tls-cert"), arguments.value("tls-key")) {
        case (let certificate?, let key?):
            configuration.tls = TLSFiles(certificate: certificate, privateKey: key, clientCA: arguments.value("tls-client-ca"))
        case (nil, nil):
            if arguments.value("tls-client-ca") != nil {
                throw UsageError("--tls-client-ca needs --tls-cert and --tls-key", option: "tls-client-ca")
            }
        default:
            throw UsageError("--tls-cert and --tls-key go together", option: "tls-cert")
        }
    }
}

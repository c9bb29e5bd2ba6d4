import Foundation
import HealthCLI
import HealthModel

/// Everything `healthsim` can be told on the command line.
public struct RunOptions: Sendable, Equatable {
    /// How simulated time relates to wall time.
    public enum Mode: String, Sendable, CaseIterable {
        /// Simulated time is wall time.
        case realtime
        /// `speed` simulated seconds per wall second, over the last `days` days.
        case accelerated
        /// The last `days` days as fast as the server accepts.
        case backfill
        /// `devices` connections each saving `rate` samples/s for `duration` seconds.
        case load
    }

    public var mode: Mode = .accelerated
    public var seed: UInt64 = 42
    public var speed: Double = 3600
    /// Simulated days (accelerated, backfill); nil = 1 for accelerated, 30 for backfill.
    public var days: Double?
    /// Wall seconds to run (realtime: nil = until interrupted; load: nil = 10).
    public var duration: Double?
    /// End of the simulated window (accelerated, backfill); nil = now. Pinning it makes re-runs
    /// cover exactly the same samples.
    public var end: Microseconds?
    public var devices = 10
    public var rate = 10.0
    public var batchSize = 200
    /// Load: every device sends in the same tick (the worst case) instead of at its own phase.
    public var burst = false
    public var faultRate = 0.0
    public var approve = false
    /// The nodes to upload to, in order; each device starts at another one and fails over to the next.
    public var servers = ["127.0.0.1:7420"]
    /// TLS to the server: on when asked, or when a CA or client certificate is given.
    public var tls = false
    /// PEM CAs to verify the server against; nil = the system's.
    public var caFile: String?
    /// PEM client certificate and key, for servers that require one.
    public var tlsCertificateFile: String?
    public var tlsKeyFile: String?
    /// Seconds a server may stay silent (`--timeout`); nil = the client's default.
    public var timeout: Double?
    public var ownerTokenFile = "data/owner.token"
    /// Empty = keep app tokens in memory only.
    public var stateDirectory = "data/healthsim"
    public var reportPath: String?
    public var profilePaths: [String] = []
    public var printProfiles = false
    /// Seconds to wait for buffered samples after the simulation ends.
    public var drainTimeout = 60.0

    public init() {}

    /// Simulated days for the time-window modes.
    public var simulatedDays: Double { days ?? (mode == .backfill ? 30 : 1) }

    /// Every option healthsim accepts, by help section.
    public static let specs: [OptionSpec] = [
        .value("mode", "MODE", "realtime | accelerated | backfill | load", section: "modes"),
        .flag("realtime", "simulated time = wall time (runs until --duration or interrupted)", section: "modes"),
        .value("speed", "X", "accelerated: X simulated seconds per wall second (default 3600)", section: "modes"),
        .value("days", "D", "accelerated/backfill: simulate the last D days (alone: backfill, default 30)", section: "modes"),
        .value("devices", "N", "load: N connections (sets --mode load)", section: "modes"),
        .value("rate", "R", "load: samples per second per device (default 10)", section: "modes"),
        .value("duration", "DURATION", "wall time to run: 10s, 5m, 1h (load default 10s)", section: "modes"),
        .flag("burst", "load: all devices send in the same tick (worst case; default: each device at its own seeded "
            + "phase of the period, as real devices do)", section: "modes"),
        .value("end", "TIME", "accelerated/backfill window ends at this time: ISO 8601 or relative like -1d (default now)",
               section: "modes"),
        .value("profile", "FILE", "fleet JSON, one device JSON or a list of devices (repeatable)", section: "devices"),
        .flag("print-profiles", "print the built-in fleet JSON and exit", section: "devices"),
        .value("seed", "N", "signals and UUIDs are a function of the seed (default 42)", section: "devices"),
        .server(section: "server"),
        .flag("tls", "connect with TLS, verifying the server's certificate and name", section: "server"),
        .value("ca", "FILE", "TLS: trust the CAs in this PEM file instead of the system's (implies --tls)", section: "server"),
        .value("tls-cert", "FILE", "TLS: client certificate (PEM) for servers that require one (implies --tls)", section: "server"),
        .value("tls-key", "FILE", "TLS: the client certificate's private key (PEM)", section: "server"),
        .timeout(section: "server"),
        .value("owner-token-file", "FILE", "owner token used to register apps (default data/owner.token)",
               environment: "HEALTHSTORE_TOKEN_FILE", section: "server"),
        .value("state-dir", "DIR", "where app tokens are kept between runs (default data/healthsim; \"\" = memory only)",
               section: "server"),
        .flag("approve", "grant every requested permission as the owner", section: "server"),
        .value("batch", "N", "objects per save (default 200)", section: "upload"),
        .flag("faults", "inject disconnects, duplicate sends, out-of-order and invalid batches (5%)", section: "upload"),
        .value("fault-rate", "P", "chance of each fault per batch (0…1)", section: "upload"),
        .value("drain-timeout", "DURATION", "time to wait for buffered samples at the end (default 60s)", section: "upload"),
        .value("report", "FILE", "JSON: sent, acknowledged, rejected by code, reconnects, throughput, latency "
            + "p50/p90/p99/max, acknowledged per source, device and type", section: "output"),
    ]

    /// `--help` text.
    public static let help = HelpText(
        usage: ["healthsim [options]"],
        summary: "Simulated watches, bands, phones, scales, cuffs and thermometers streaming into healthd. With no options: "
            + "the default fleet, accelerated: the last simulated day at 3600× (about 24 s).",
        options: specs + ToolMain.standardOptions.map { $0.inSection("output") })

    /// Parses arguments (without the program name); the environment supplies HEALTHSTORE_SERVER and
    /// HEALTHSTORE_TOKEN_FILE.
    public static func parse(_ words: [String], environment: [String: String] = [:]) throws(UsageError) -> RunOptions {
        try RunOptions(try ParsedArguments(words, options: specs + ToolMain.standardOptions, environment: environment))
    }

    /// Checks every value of parsed arguments.
    public init(_ arguments: ParsedArguments) throws(UsageError) {
        _ = try arguments.positionals()
        func number(_ name: String, _ range: ClosedRange<Double>) throws(UsageError) -> Double? {
            try arguments.parse(name) { text throws(UsageError) in try Values.number(text, in: range) }
        }
        func seconds(_ name: String, _ range: ClosedRange<Double>) throws(UsageError) -> Double? {
            try arguments.parse(name) { text throws(UsageError) in try Values.duration(text, in: range) }
        }
        func count(_ name: String, _ range: ClosedRange<Int>) throws(UsageError) -> Int? {
            try arguments.parse(name) { text throws(UsageError) in try Values.integer(text, in: range) }
        }
        let named = try arguments.parse("mode") { text throws(UsageError) in try Values.choice(text, Mode.self) }
            ?? (arguments.has("realtime") ? .realtime : nil)
        if let text = arguments.value("seed") {
            guard let seed = UInt64(text) else { throw UsageError("--seed: '\(text)' is not a whole number ≥ 0", option: "seed") }
            self.seed = seed
        }
        speed = try number("speed", 1...1e9) ?? speed
        days = try number("days", 0.001...3650)
        duration = try seconds("duration", 0.001...1e9)
        end = try arguments.value("end").map { text throws(UsageError) in try TimeParser().instant(text, field: "end") }
        devices = try count("devices", 1...1_000_000) ?? devices
        rate = try number("rate", 0.001...1e6) ?? rate
        batchSize = try count("batch", 1...100_000) ?? batchSize
        burst = arguments.has("burst")
        faultRate = try number("fault-rate", 0...1) ?? (arguments.has("faults") ? 0.05 : 0)
        approve = arguments.has("approve")
        let servers = arguments.list("server")
        if !servers.isEmpty { self.servers = servers }
        caFile = arguments.value("ca")
        tlsCertificateFile = arguments.value("tls-cert")
        tlsKeyFile = arguments.value("tls-key")
        tls = arguments.has("tls") || caFile != nil || tlsCertificateFile != nil || tlsKeyFile != nil
        timeout = try arguments.timeout()
        ownerTokenFile = arguments.value("owner-token-file") ?? ownerTokenFile
        stateDirectory = arguments.value("state-dir") ?? stateDirectory
        reportPath = arguments.value("report")
        profilePaths = arguments.list("profile")
        printProfiles = arguments.has("print-profiles")
        drainTimeout = try seconds("drain-timeout", 0...86_400) ?? drainTimeout
        // Mode follows the flags when not named: --devices means load, --days alone means backfill.
        mode = named ?? (arguments.given("devices") ? .load : days != nil && !arguments.given("speed") ? .backfill : .accelerated)
    }
}

import Foundation
import HealthCLI
import HealthClient
import HealthModel

/// One healthctl command: its words, help, accepted options and what it does.
struct Command: Sendable {
    let words: [String]
    let usage: String
    let summary: String
    /// Valued options: name → help (name may carry a value hint after a space, e.g. "type T").
    let options: [(String, String)]
    /// Boolean flags: name → help.
    let flags: [(String, String)]
    let run: @Sendable (Invocation) async throws -> Void

    init(_ words: [String], usage: String, summary: String, options: [(String, String)] = [],
         flags: [(String, String)] = [], run: @escaping @Sendable (Invocation) async throws -> Void) {
        self.words = words
        self.usage = usage
        self.summary = summary
        self.options = options
        self.flags = flags
        self.run = run
    }

    /// Every option the command accepts: its own, then the global ones.
    var specs: [OptionSpec] {
        options.map { Self.spec($0, section: "") } + flags.map { OptionSpec.flag($0.0, $0.1) } + GlobalOptions.specs
    }

    /// "type T" → a valued option named "type" shown as "--type T".
    static func spec(_ option: (String, String), section: String) -> OptionSpec {
        let parts = option.0.split(separator: " ", maxSplits: 1).map(String.init)
        return .value(parts[0], parts.count > 1 ? parts[1] : "VALUE", option.1, section: section)
    }

    /// The --help text.
    var help: String {
        HelpText(usage: ["healthctl \(usage)"], summary: summary, options: specs).rendered
    }
}

/// Options every command accepts.
enum GlobalOptions {
    static let specs: [OptionSpec] = [
        .server(section: "global options"),
        .value("unix", "PATH", "connect over a Unix domain socket (the same as --server unix:PATH)", section: "global options"),
        .value("token-file", "PATH", "credential file (default: $HEALTHSTORE_TOKEN_FILE, then the token in "
            + "$HEALTHSTORE_TOKEN, then ./data/owner.token)", section: "global options"),
        .value("format", "FORMAT", "table (default), json or csv", section: "global options"),
        .value("tz", "ZONE", "IANA time zone for times printed and for days and times given without an offset (default UTC)",
               section: "global options"),
        .flag("tls", "connect with TLS, verifying the server's certificate and name", section: "global options"),
        .value("ca", "FILE", "TLS: trust the CAs in this PEM file instead of the system's (implies --tls)", section: "global options"),
        .value("tls-cert", "FILE", "TLS: client certificate (PEM) for servers that require one (implies --tls)",
               section: "global options"),
        .value("tls-key", "FILE", "TLS: the client certificate's private key (PEM)", section: "global options"),
        .timeout(section: "global options"),
        .flag("help", "show this help", section: "global options"),
    ]

    /// The TLS settings the options ask for; nil for plaintext.
    static func tls(_ arguments: ParsedArguments) throws(HealthError) -> ClientTLS? {
        let (ca, certificate, key) = (arguments.value("ca"), arguments.value("tls-cert"), arguments.value("tls-key"))
        guard arguments.has("tls") || ca != nil || certificate != nil || key != nil else { return nil }
        return try ClientTLS(caFile: ca, certificateFile: certificate, keyFile: key)
    }
}

/// What a running command gets: its arguments, the output, and a connection on demand.
struct Invocation: Sendable {
    let arguments: ParsedArguments
    let format: OutputFormat
    /// The zone of --tz: times print at its offset; nil prints UTC.
    let zone: TimeZone?
    let output: @Sendable (String) -> Void
    let connect: @Sendable () async throws -> any HealthCalling

    init(arguments: ParsedArguments, output: @escaping @Sendable (String) -> Void,
         connect: (@Sendable (ParsedArguments) async throws -> any HealthCalling)? = nil) throws(UsageError) {
        self.arguments = arguments
        self.output = output
        format = try arguments.parse("format") { text throws(UsageError) in try Values.choice(text, OutputFormat.self) } ?? .table
        zone = try arguments.value("tz").map { name throws(UsageError) in try TimeParser.zone(name) }
        let dial = connect ?? Self.dial
        self.connect = { try await dial(arguments) }
    }

    /// Prints a report in the chosen format.
    func print(_ report: Report) { output(report.render(format)) }

    /// A short type name or identifier resolved through the catalog.
    func type(_ option: String = "type") throws -> HealthType {
        try TypeCatalog.resolve(try arguments.required(option))
    }

    /// A parser for time options in the zone of --tz (UTC without it).
    func timeParser() -> TimeParser {
        zone.map { TimeParser(timeZone: $0) } ?? TimeParser()
    }

    /// An instant as printed: ISO 8601 at the offset of --tz, else UTC.
    func time(_ micros: Microseconds) -> String { Time.iso8601(micros, in: zone) }

    /// The server addresses to try, in order: --unix, else every --server (or HEALTHSTORE_SERVER), else the default.
    static func endpoints(_ arguments: ParsedArguments) throws(UsageError) -> [Endpoint] {
        if let path = arguments.value("unix") { return [.unix(path: path)] }
        let given = arguments.list("server")
        guard !given.isEmpty else { return [.standard] }
        do throws(HealthError) {
            return try Endpoint.list(given)
        } catch {
            throw UsageError.value("server", error.message)
        }
    }

    /// Connects to the first node that answers; a call cut off by the node's death is retried on
    /// the next one when it is safe to repeat.
    private static func dial(_ arguments: ParsedArguments) async throws -> any HealthCalling {
        let servers = ServerList(try endpoints(arguments))
        let token = try TokenSource.resolve(file: arguments.value("token-file"))
        let revision = SourceRevision(source: Source(name: "healthctl", bundleID: "org.healthstore.healthctl"),
                                      version: HealthStoreVersion.string)
        var policy = ReconnectingClient.Policy()
        if let seconds = try arguments.timeout() { policy.timeout = .seconds(seconds) }
        return try await ReconnectingClient.connect(to: servers, token: token, revision: revision,
                                                    tls: try GlobalOptions.tls(arguments), policy: policy)
    }
}

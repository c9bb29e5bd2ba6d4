import Foundation
import HealthClient
import HealthModel
import HealthWire

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

    var valuedNames: Set<String> { Set((options + GlobalOptions.help).map { String($0.0.split(separator: " ")[0]) }) }
    var flagNames: Set<String> { Set((flags + GlobalOptions.flags).map(\.0) + ["help"]) }

    /// The --help text.
    var help: String {
        var lines = ["usage: healthctl \(usage)", "", summary, ""]
        let all = options + flags.map { ($0.0, $0.1) }
        if !all.isEmpty {
            lines.append("options:")
            lines += all.map { "  --\($0.0.padding(toLength: 24, withPad: " ", startingAt: 0)) \($0.1)" }
            lines.append("")
        }
        lines.append("global options:")
        lines += GlobalOptions.all.map { "  --\($0.0.padding(toLength: 24, withPad: " ", startingAt: 0)) \($0.1)" }
        return lines.joined(separator: "\n")
    }
}

/// Options every command accepts.
enum GlobalOptions {
    static let help: [(String, String)] = [
        ("server HOST:PORT", "server address (default 127.0.0.1:7420)"),
        ("unix PATH", "connect over a Unix domain socket instead"),
        ("token-file PATH", "credential file (default: $HEALTHSTORE_TOKEN, then ./data/owner.token)"),
        ("format FORMAT", "table (default), json or csv"),
        ("tz ZONE", "IANA time zone for times printed and for days and times given without an offset (default UTC)"),
        ("ca FILE", "TLS: trust the CAs in this PEM file instead of the system's (implies --tls)"),
        ("tls-cert FILE", "TLS: client certificate (PEM) for servers that require one (implies --tls)"),
        ("tls-key FILE", "TLS: the client certificate's private key (PEM)"),
    ]
    /// Boolean options every command accepts.
    static let flags: [(String, String)] = [
        ("tls", "connect with TLS, verifying the server's certificate and name"),
    ]
    static var all: [(String, String)] { help + flags }

    /// The TLS settings the options ask for; nil for plaintext.
    static func tls(_ arguments: Arguments) throws(HealthError) -> ClientTLS? {
        let (ca, certificate, key) = (arguments.value("ca"), arguments.value("tls-cert"), arguments.value("tls-key"))
        guard arguments.has("tls") || ca != nil || certificate != nil || key != nil else { return nil }
        return try ClientTLS(caFile: ca, certificateFile: certificate, keyFile: key)
    }
}

/// What a running command gets: its arguments, the output, and a connection on demand.
struct Invocation: Sendable {
    let arguments: Arguments
    let format: OutputFormat
    /// The zone of --tz: times print at its offset; nil prints UTC.
    let zone: TimeZone?
    let output: @Sendable (String) -> Void
    let connect: @Sendable () async throws -> HealthConnection

    init(arguments: Arguments, output: @escaping @Sendable (String) -> Void,
         connect: (@Sendable (Arguments) async throws -> HealthConnection)? = nil) throws(HealthError) {
        self.arguments = arguments
        self.output = output
        let formatName = arguments.value("format") ?? "table"
        guard let format = OutputFormat(rawValue: formatName) else {
            throw HealthError.invalid("unknown format '\(formatName)': use table, json or csv", field: "format")
        }
        self.format = format
        zone = try arguments.value("tz").map { name throws(HealthError) in try TimeParser.zone(name) }
        let dial = connect ?? Self.dial
        self.connect = { try await dial(arguments) }
    }

    /// Prints a report in the chosen format.
    func print(_ report: Report) { output(report.render(format)) }

    /// A short type name or identifier resolved through the catalog.
    func type(_ option: String = "type") throws(HealthError) -> HealthType {
        try TypeCatalog.resolve(try arguments.required(option))
    }

    /// A parser for time options in the zone of --tz (UTC without it).
    func timeParser() -> TimeParser {
        zone.map { TimeParser(timeZone: $0) } ?? TimeParser()
    }

    /// An instant as printed: ISO 8601 at the offset of --tz, else UTC.
    func time(_ micros: Microseconds) -> String { Time.iso8601(micros, in: zone) }

    private static func dial(_ arguments: Arguments) async throws -> HealthConnection {
        let endpoint: Endpoint
        if let path = arguments.value("unix") {
            endpoint = .unix(path: path)
        } else {
            endpoint = try arguments.value("server").map { text throws(HealthError) in try Endpoint.parse(hostPort: text) } ?? .standard
        }
        let token = try TokenSource.resolve(file: arguments.value("token-file"))
        let revision = SourceRevision(source: Source(name: "healthctl", bundleID: "org.healthstore.healthctl"), version: "1")
        return try await HealthConnection.connect(to: endpoint, hello: Hello(token: token, sourceRevision: revision),
                                                  tls: try GlobalOptions.tls(arguments))
    }
}

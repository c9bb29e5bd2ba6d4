import Foundation
import HealthServer

/// healthd's configuration: defaults, then a config file, then HEALTHD_* environment variables,
/// then flags — each later source overriding the earlier ones.
struct Options {
    var configuration = ServerConfiguration()
    var dataDirectory = "./data"
    var logLevel = LogLevel.info
    var tombstoneRetentionDays = 90.0

    static let usage = """
    usage: healthd [options]
      --listen HOST:PORT            TCP address (default 127.0.0.1:7420; port 0 = ephemeral; "none" = no TCP)
      --unix PATH                   also listen on a Unix domain socket
      --data DIR                    data directory (default ./data; store file DIR/healthstore.sqlite)
      --threads N                   I/O threads, each with its own event loop (default: one per core)
      --max-connections N           connection limit (default 1024)
      --max-calls-in-flight N       calls one connection may have in flight (default 128)
      --hello-timeout SECONDS       time a new connection has to send Hello (default 10)
      --max-hello-frame-bytes N     largest first frame (the Hello) of a new connection (default 65536)
      --max-unauthenticated N       connections still before their Hello; beyond it, or at the
                                    connection limit, the oldest of them is closed for the new one (default 256)
      --max-unauthenticated-per-address N
                                    the same per peer address (default 64)
      --frame-timeout SECONDS       a frame must arrive within this once begun (default 60)
      --idle-timeout SECONDS        idle connections are closed after this (default 300)
      --slow-client-timeout SECONDS clients not reading their output are dropped after this (default 30)
      --max-output-bytes N          unread output queued per connection before its answers stop being
                                    produced and its calls read (default 1048576; at most 16777216)
      --total-output-bytes N        the same for all connections together (default 268435456)
      --observer-ack-timeout SECONDS
                                    time an observer event waits for its acknowledgement (default 30);
                                    three missed in a row end the observer
      --authorization-policy P      prompt | allow-all | deny-all (default prompt)
      --log-level LEVEL             debug | info | warning | error (default info)
      --tombstone-retention-days N  keep deletion records this long (default 90); an anchor that
                                    would miss a purged one gets ANCHOR_EXPIRED and must resync
      --config FILE                 read options from FILE first: one "name = value" per line
                                    (names as the flags without "--"; # starts a comment)
      --help                        show this help
    Every option can also come from the environment as HEALTHD_<NAME>, e.g. HEALTHD_LISTEN or
    HEALTHD_LOG_LEVEL; flags override the environment, which overrides the config file.
    """

    /// Options that take a value; the names a config file and HEALTHD_* variables may set.
    static let valued = ["listen", "unix", "data", "threads", "max-connections", "max-calls-in-flight", "hello-timeout",
                         "max-hello-frame-bytes", "max-unauthenticated", "max-unauthenticated-per-address", "frame-timeout",
                         "idle-timeout", "slow-client-timeout", "max-output-bytes", "total-output-bytes", "observer-ack-timeout",
                         "authorization-policy", "log-level", "tombstone-retention-days"]

    /// Reads the config file (from --config or HEALTHD_CONFIG) and the environment, then the flags.
    init(arguments: [String], environment: [String: String]) throws(OptionError) {
        var configPath = environment["HEALTHD_CONFIG"]
        var flags: [String] = []
        var rest = arguments[...]
        while let word = rest.popFirst() {
            if word == "--config" {
                guard let path = rest.popFirst() else { throw OptionError("--config needs a file") }
                configPath = path
            } else {
                flags.append(word)
            }
        }
        var words: [String] = []
        if let configPath { words += try Self.configFileArguments(configPath) }
        for name in Self.valued {
            let variable = "HEALTHD_" + name.uppercased().replacingOccurrences(of: "-", with: "_")
            if let value = environment[variable] { words += ["--\(name)", value] }
        }
        try self.init(arguments: words + flags)
    }

    /// "name = value" lines as flags.
    static func configFileArguments(_ path: String) throws(OptionError) -> [String] {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else {
            throw OptionError("cannot read config file \(path)")
        }
        var words: [String] = []
        for (number, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = raw.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false)[0]
                .trimmingCharacters(in: .whitespaces)
            if line.isEmpty { continue }
            let parts = line.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            guard parts.count == 2, valued.contains(parts[0]), !parts[1].isEmpty else {
                throw OptionError("\(path):\(number + 1): expected 'name = value' with a known option name, got '\(line)'")
            }
            words += ["--\(parts[0])", parts[1]]
        }
        return words
    }

    /// Parses arguments; throws a message for bad input.
    init(arguments: [String]) throws(OptionError) {
        var rest = arguments[...]
        func value(_ flag: String) throws(OptionError) -> String {
            guard let next = rest.popFirst() else { throw OptionError("\(flag) needs a value") }
            return next
        }
        func number(_ flag: String, _ range: ClosedRange<Double>) throws(OptionError) -> Double {
            let text = try value(flag)
            guard let n = Double(text), range.contains(n) else {
                throw OptionError("\(flag) must be a number in \(range.lowerBound)...\(range.upperBound), got '\(text)'")
            }
            return n
        }
        while let flag = rest.popFirst() {
            switch flag {
            case "--help", "-h":
                throw OptionError(nil)
            case "--listen":
                let text = try value(flag)
                if text == "none" {
                    configuration.tcpHost = nil
                } else {
                    guard let colon = text.lastIndex(of: ":"), let port = Int(text[text.index(after: colon)...]), (0...65535).contains(port) else {
                        throw OptionError("--listen needs HOST:PORT, got '\(text)'")
                    }
                    configuration.tcpHost = String(text[..<colon]).trimmingCharacters(in: CharacterSet(charactersIn: "[]"))
                    configuration.tcpPort = port
                }
            case "--unix": configuration.unixPath = try value(flag)
            case "--data": dataDirectory = try value(flag)
            case "--threads": configuration.ioThreads = Int(try number(flag, 1...256))
            case "--max-connections": configuration.maxConnections = Int(try number(flag, 1...1_000_000))
            case "--max-calls-in-flight": configuration.maxCallsInFlight = Int(try number(flag, 1...100_000))
            case "--hello-timeout": configuration.helloTimeout = try number(flag, 0.1...3600)
            case "--max-hello-frame-bytes": configuration.maxHelloFrameBytes = Int(try number(flag, 1024...Double(configuration.maxFrameBytes)))
            case "--max-unauthenticated": configuration.maxUnauthenticated = Int(try number(flag, 1...1_000_000))
            case "--max-unauthenticated-per-address": configuration.maxUnauthenticatedPerAddress = Int(try number(flag, 1...1_000_000))
            case "--frame-timeout": configuration.frameTimeout = try number(flag, 0.1...3600)
            case "--idle-timeout": configuration.idleTimeout = try number(flag, 0.1...864_000)
            case "--slow-client-timeout": configuration.slowClientTimeout = try number(flag, 0.1...3600)
            case "--max-output-bytes": configuration.outputHighWater = Int(try number(flag, 65_536...16_777_216))
            case "--total-output-bytes": configuration.totalOutputBytes = Int(try number(flag, 1_048_576...68_719_476_736))
            case "--observer-ack-timeout": configuration.observerAckTimeout = try number(flag, 0.05...86_400)
            case "--authorization-policy":
                let text = try value(flag)
                guard let policy = AuthorizationPolicy(rawValue: text) else {
                    throw OptionError("--authorization-policy must be prompt, allow-all or deny-all, got '\(text)'")
                }
                configuration.authorizationPolicy = policy
            case "--tombstone-retention-days": tombstoneRetentionDays = try number(flag, 1...36_500)
            case "--log-level":
                let text = try value(flag)
                guard let level = LogLevel(name: text) else {
                    throw OptionError("--log-level must be debug, info, warning or error, got '\(text)'")
                }
                logLevel = level
            default:
                throw OptionError("unknown option '\(flag)'")
            }
        }
    }
}

/// A bad command line (nil message = help was asked for).
struct OptionError: Error {
    let message: String?
    init(_ message: String?) { self.message = message }
}

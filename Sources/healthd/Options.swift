import Foundation
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

    static let usage = """
    usage: healthd [options]
      --listen HOST:PORT            TCP address (default 127.0.0.1:7420; port 0 = ephemeral; "none" = no TCP)
      --unix PATH                   also listen on a Unix domain socket
      --data DIR                    data directory (default ./data; store file DIR/healthstore.sqlite)
      --threads N                   I/O threads, each with its own event loop (default: one per core)
      --max-connections N           connection limit (default 1024)
      --max-calls-in-flight N       calls one connection may have in flight (default 128)
      --hello-timeout SECONDS       time a new connection has to send Hello (default 10)
      --idle-timeout SECONDS        idle connections are closed after this (default 300)
      --slow-client-timeout SECONDS clients not reading their output are dropped after this (default 30)
      --observer-ack-timeout SECONDS
                                    time an observer event waits for its acknowledgement (default 30);
                                    three missed in a row end the observer
      --authorization-policy P      prompt | allow-all | deny-all (default prompt)
      --log-level LEVEL             debug | info | warning | error (default info)
      --tombstone-retention-days N  keep deletion records this long (default 90); an anchor that
                                    would miss a purged one gets ANCHOR_EXPIRED and must resync
      --durability D                power-loss | process-crash (default power-loss): what an acknowledged
                                    save survives. power-loss fsyncs every commit; process-crash does not,
                                    so saves survive healthd being killed but not an OS crash or power loss
      --config FILE                 read options from FILE first: one "name = value" per line
                                    (names as the flags without "--"; # starts a comment)
      --help                        show this help
    Every option can also come from the environment as HEALTHD_<NAME>, e.g. HEALTHD_LISTEN or
    HEALTHD_LOG_LEVEL; flags override the environment, which overrides the config file.
    """

    /// Options that take a value; the names a config file and HEALTHD_* variables may set.
    static let valued = ["listen", "unix", "data", "threads", "max-connections", "max-calls-in-flight", "hello-timeout",
                         "idle-timeout", "slow-client-timeout", "observer-ack-timeout", "authorization-policy", "log-level",
                         "tombstone-retention-days", "durability"]

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
            case "--idle-timeout": configuration.idleTimeout = try number(flag, 0.1...864_000)
            case "--slow-client-timeout": configuration.slowClientTimeout = try number(flag, 0.1...3600)
            case "--observer-ack-timeout": configuration.observerAckTimeout = try number(flag, 0.05...86_400)
            case "--authorization-policy":
                let text = try value(flag)
                guard let policy = AuthorizationPolicy(rawValue: text) else {
                    throw OptionError("--authorization-policy must be prompt, allow-all or deny-all, got '\(text)'")
                }
                configuration.authorizationPolicy = policy
            case "--tombstone-retention-days": tombstoneRetentionDays = try number(flag, 1...36_500)
            case "--durability":
                let text = try value(flag)
                guard let mode = SQLiteStore.Options.Durability(rawValue: text) else {
                    throw OptionError("--durability must be power-loss or process-crash, got '\(text)'")
                }
                durability = mode
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

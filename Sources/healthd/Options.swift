import Foundation
import HealthServer

/// healthd's command line.
struct Options {
    var configuration = ServerConfiguration()
    var dataDirectory = "./data"
    var logLevel = LogLevel.info

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
      --authorization-policy P      prompt | allow-all | deny-all (default prompt)
      --log-level LEVEL             debug | info | warning | error (default info)
      --help                        show this help
    """

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
            case "--authorization-policy":
                let text = try value(flag)
                guard let policy = AuthorizationPolicy(rawValue: text) else {
                    throw OptionError("--authorization-policy must be prompt, allow-all or deny-all, got '\(text)'")
                }
                configuration.authorizationPolicy = policy
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

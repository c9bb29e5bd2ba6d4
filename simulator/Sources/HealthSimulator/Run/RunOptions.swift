import Foundation
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
    public var server = "127.0.0.1:7420"
    /// TLS to the server: on when asked, or when a CA or client certificate is given.
    public var tls = false
    /// PEM CAs to verify the server against; nil = the system's.
    public var caFile: String?
    /// PEM client certificate and key, for servers that require one.
    public var tlsCertificateFile: String?
    public var tlsKeyFile: String?
    public var ownerTokenFile = "data/owner.token"
    /// Empty = keep app tokens in memory only.
    public var stateDirectory = "data/healthsim"
    public var reportPath: String?
    public var profilePaths: [String] = []
    public var printProfiles = false
    /// Seconds to wait for buffered samples after the simulation ends.
    public var drainTimeout = 60.0
    public var showHelp = false

    public init() {}

    /// Simulated days for the time-window modes.
    public var simulatedDays: Double { days ?? (mode == .backfill ? 30 : 1) }

    /// Parses arguments (without the program name).
    public static func parse(_ arguments: [String]) throws -> RunOptions {
        var o = RunOptions()
        var rest = arguments[...]
        // Mode follows the flags when not named: --devices means load, --days alone means backfill.
        var named: Mode?, sawSpeed = false, sawDevices = false
        func value(_ flag: String) throws -> String {
            guard let v = rest.popFirst() else { throw HealthError.invalid("\(flag) needs a value", field: flag) }
            return v
        }
        func number(_ flag: String, _ range: ClosedRange<Double>) throws -> Double {
            let text = try value(flag)
            guard let v = Double(text), range.contains(v) else {
                throw HealthError.invalid("\(flag) must be a number in \(range.lowerBound)…\(range.upperBound), got '\(text)'", field: flag)
            }
            return v
        }
        while let flag = rest.popFirst() {
            switch flag {
            case "--mode":
                let text = try value(flag)
                guard let m = Mode(rawValue: text) else {
                    throw HealthError.invalid("--mode must be one of \(Mode.allCases.map(\.rawValue).joined(separator: ", ")), got '\(text)'", field: flag)
                }
                named = m
            case "--realtime": named = .realtime
            case "--seed":
                let text = try value(flag)
                guard let s = UInt64(text) else { throw HealthError.invalid("--seed must be a non-negative integer, got '\(text)'", field: flag) }
                o.seed = s
            case "--speed": o.speed = try number(flag, 1...1e9); sawSpeed = true
            case "--days": o.days = try number(flag, 0.001...3650)
            case "--duration": o.duration = try number(flag, 0.001...1e9)
            case "--end":
                let text = try value(flag)
                guard let date = ISO8601DateFormatter().date(from: text) else {
                    throw HealthError.invalid("--end must be an ISO 8601 time like 2025-03-12T00:00:00Z, got '\(text)'", field: flag)
                }
                o.end = Time.micros(date)
            case "--devices": o.devices = Int(try number(flag, 1...1_000_000)); sawDevices = true
            case "--rate": o.rate = try number(flag, 0.001...1e6)
            case "--batch": o.batchSize = Int(try number(flag, 1...100_000))
            case "--burst": o.burst = true
            case "--faults": o.faultRate = max(o.faultRate, 0.05)
            case "--fault-rate": o.faultRate = try number(flag, 0...1)
            case "--approve": o.approve = true
            case "--server": o.server = try value(flag)
            case "--tls": o.tls = true
            case "--ca": o.caFile = try value(flag); o.tls = true
            case "--tls-cert": o.tlsCertificateFile = try value(flag); o.tls = true
            case "--tls-key": o.tlsKeyFile = try value(flag); o.tls = true
            case "--owner-token-file": o.ownerTokenFile = try value(flag)
            case "--state-dir": o.stateDirectory = try value(flag)
            case "--report": o.reportPath = try value(flag)
            case "--profile": o.profilePaths.append(try value(flag))
            case "--print-profiles": o.printProfiles = true
            case "--drain-timeout": o.drainTimeout = try number(flag, 0...86_400)
            case "-h", "--help": o.showHelp = true
            default: throw HealthError.invalid("unknown option '\(flag)' (see --help)", field: flag)
            }
        }
        o.mode = named ?? (sawDevices ? .load : o.days != nil && !sawSpeed ? .backfill : .accelerated)
        return o
    }

    /// `--help` text.
    public static let help = """
    healthsim — simulated watches, bands, phones, scales, cuffs and thermometers streaming into healthd

    Usage: healthsim [options]
      (no options)            the default fleet, accelerated: the last simulated day at 3600× (~24 s)
    Modes:
      --mode M                realtime | accelerated | backfill | load
      --realtime              simulated time = wall time (runs until --duration or interrupted)
      --speed X               accelerated: X simulated seconds per wall second (default 3600)
      --days D                accelerated/backfill: simulate the last D days (alone: backfill, default 30)
      --devices N --rate R    load: N connections each saving R samples/s (sets --mode load)
      --duration S            wall seconds to run (load default 10)
      --burst                 load: all devices send in the same tick (worst case; default: each
                              device at its own seeded phase of the period, as real devices do)
      --end TIME              accelerated/backfill window ends at this ISO 8601 time (default now)
    Devices:
      --profile FILE          fleet JSON, one device JSON or a list of devices (repeatable)
      --print-profiles        print the built-in fleet JSON and exit
      --seed N                signals and UUIDs are a function of the seed (default 42)
    Server:
      --server HOST:PORT      default 127.0.0.1:7420
      --tls                   connect with TLS, verifying the server's certificate and name
      --ca FILE               TLS: trust the CAs in this PEM file instead of the system's (implies --tls)
      --tls-cert FILE         TLS: client certificate (PEM) for servers that require one (implies --tls)
      --tls-key FILE          TLS: the client certificate's private key (PEM)
      --owner-token-file F    owner token used to register apps (default data/owner.token)
      --state-dir DIR         where app tokens are kept between runs (default data/healthsim)
      --approve               grant every requested permission as the owner
    Upload:
      --batch N               objects per save (default 200)
      --faults                inject disconnects, duplicate sends, out-of-order and invalid batches (5%)
      --fault-rate P          chance of each fault per batch
      --drain-timeout S       seconds to wait for buffered samples at the end (default 60)
    Output:
      --report FILE           JSON: sent, acknowledged, rejected by code, reconnects, throughput,
                              latency p50/p90/p99/max, acknowledged per source, device and type
    """
}

import Foundation

/// The value grammar every tool shares: durations, sizes, counts and choices. Each parser throws
/// a plain-words problem; `ParsedArguments.parse` prefixes the option's name.
public enum Values {
    /// Seconds of "250ms", "10s", "5m", "2h", "1d", "1w" or combinations like "1h30m"; a bare
    /// number is seconds.
    public static func duration(_ text: String) throws(UsageError) -> Double {
        if let seconds = Double(text), seconds.isFinite, seconds >= 0 { return seconds }
        var total = 0.0
        var rest = Substring(text)
        while !rest.isEmpty {
            guard let match = rest.prefixMatch(of: /(\d+(?:\.\d+)?)(ms|s|m|h|d|w)/), let amount = Double(match.1) else {
                throw UsageError("'\(text)' is not a duration (use e.g. 500ms, 10s, 5m, 2h, 1d)")
            }
            let unit: Double = switch match.2 {
            case "ms": 0.001
            case "s": 1
            case "m": 60
            case "h": 3600
            case "d": 86_400
            default: 604_800
            }
            total += amount * unit
            rest = rest[match.range.upperBound...]
        }
        guard !text.isEmpty else { throw UsageError("an empty duration (use e.g. 10s, 5m, 1d)") }
        return total
    }

    /// A duration within `range` seconds.
    public static func duration(_ text: String, in range: ClosedRange<Double>) throws(UsageError) -> Double {
        let seconds = try duration(text)
        guard range.contains(seconds) else {
            throw UsageError("\(text) is outside \(describe(seconds: range.lowerBound))…\(describe(seconds: range.upperBound))")
        }
        return seconds
    }

    /// Bytes of "65536", "64KiB", "4MiB", "1GiB" (also KB/MB/GB as powers of 1000).
    public static func size(_ text: String, in range: ClosedRange<Int> = 0...Int.max) throws(UsageError) -> Int {
        guard let match = text.wholeMatch(of: /(\d+)\s*(B|KiB|MiB|GiB|KB|MB|GB|k|K|M|G)?/), let amount = Int(match.1) else {
            throw UsageError("'\(text)' is not a size (use e.g. 65536, 64KiB, 4MiB)")
        }
        let unit = switch match.2.map(String.init) ?? "B" {
        case "KiB", "k", "K": 1 << 10
        case "MiB", "M": 1 << 20
        case "GiB", "G": 1 << 30
        case "KB": 1000
        case "MB": 1_000_000
        case "GB": 1_000_000_000
        default: 1
        }
        let (bytes, overflow) = amount.multipliedReportingOverflow(by: unit)
        guard !overflow, range.contains(bytes) else { throw UsageError("\(text) is outside \(range.lowerBound)…\(range.upperBound) bytes") }
        return bytes
    }

    /// A whole number within `range`.
    public static func integer(_ text: String, in range: ClosedRange<Int>) throws(UsageError) -> Int {
        guard let value = Int(text.replacingOccurrences(of: "_", with: "")) else {
            throw UsageError("'\(text)' is not a whole number")
        }
        guard range.contains(value) else { throw UsageError("\(value) is outside \(range.lowerBound)…\(range.upperBound)") }
        return value
    }

    /// A number within `range`.
    public static func number(_ text: String, in range: ClosedRange<Double>) throws(UsageError) -> Double {
        guard let value = Double(text), value.isFinite else { throw UsageError("'\(text)' is not a number") }
        guard range.contains(value) else {
            throw UsageError("\(text) is outside \(format(range.lowerBound))…\(format(range.upperBound))")
        }
        return value
    }

    /// One of `choices`, with a suggestion for a near miss.
    public static func choice(_ text: String, _ choices: [String]) throws(UsageError) -> String {
        guard choices.contains(text) else {
            let hint = Suggestion.nearest(to: text, in: choices).map { "; did you mean \($0)?" } ?? ""
            throw UsageError("'\(text)' is not one of \(choices.joined(separator: ", "))\(hint)")
        }
        return text
    }

    /// A case of a string-backed enum, with a suggestion for a near miss.
    public static func choice<T: RawRepresentable & CaseIterable>(_ text: String, _: T.Type) throws(UsageError) -> T
    where T.RawValue == String {
        T(rawValue: try choice(text, T.allCases.map(\.rawValue)))!
    }

    /// "HOST:PORT", "[IPv6]:PORT" or ":PORT" (host 127.0.0.1) split into host and port; port 0 allowed
    /// only when `allowEphemeral` (a listener picking its own port).
    public static func hostPort(_ text: String, allowEphemeral: Bool = false) throws(UsageError) -> (host: String, port: UInt16) {
        guard let colon = text.lastIndex(of: ":"), let port = UInt16(text[text.index(after: colon)...]),
              port > 0 || allowEphemeral else {
            throw UsageError("'\(text)' is not HOST:PORT with a port in \(allowEphemeral ? 0 : 1)…65535")
        }
        var host = String(text[..<colon])
        if host.hasPrefix("[") && host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        return (host.isEmpty ? "127.0.0.1" : host, port)
    }

    private static func format(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : String(value)
    }

    private static func describe(seconds: Double) -> String {
        seconds >= 86_400 && seconds.truncatingRemainder(dividingBy: 86_400) == 0 ? "\(format(seconds / 86_400))d"
            : seconds >= 1 || seconds == 0 ? "\(format(seconds))s" : "\(format(seconds * 1000))ms"
    }
}

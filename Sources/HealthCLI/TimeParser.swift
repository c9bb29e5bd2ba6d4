import Foundation
import HealthModel

/// People-facing time input shared by every tool: ISO-8601 instants and days, and relative
/// offsets from now. Errors name the option (`field`) they came from.
public struct TimeParser: Sendable {
    /// Zone for inputs without an offset and for day boundaries.
    public let timeZone: TimeZone
    /// "Now", fixed for one command so every relative input agrees.
    public let now: Microseconds

    public init(timeZone: TimeZone = TimeZone(identifier: "UTC")!, now: Microseconds = Time.now()) {
        self.timeZone = timeZone
        self.now = now
    }

    /// The zone named by `--tz` (IANA), or UTC.
    public static func zone(_ name: String?) throws(UsageError) -> TimeZone {
        guard let name else { return TimeZone(identifier: "UTC")! }
        guard let zone = TimeZone(identifier: name) else {
            throw UsageError.value("tz", "unknown time zone '\(name)' (use an IANA name like Europe/Berlin)")
        }
        return zone
    }

    private var calendar: Calendar {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        return calendar
    }

    /// "now", "today", "yesterday", a relative offset ("-1d", "-90m", "+2h", "-1w"), a day
    /// ("2026-03-29", midnight in the zone) or an instant ("2026-03-29T10:15:00Z", "…+02:00",
    /// "2026-03-29T10:15", fractional seconds allowed).
    public func instant(_ text: String, field: String) throws(UsageError) -> Microseconds {
        switch text.lowercased() {
        case "now": return now
        case "today": return startOfDay(now)
        case "yesterday": return startOfDay(now - TimeParser.day)
        default: break
        }
        if let offset = relativeOffset(text) { return now + offset }
        if let micros = absolute(text) { return micros }
        throw UsageError.value(field, "'\(text)' is not a time: use ISO-8601 (2026-03-29, 2026-03-29T10:15:00Z) "
            + "or a relative offset like -1d, -6h, -30m")
    }

    /// A local calendar day: "2026-03-29", "today", "yesterday" or a relative offset in days.
    public func day(_ text: String, field: String) throws(UsageError) -> CalendarDay {
        let parts = calendar.dateComponents([.year, .month, .day], from: Time.date(try instant(text, field: field)))
        return CalendarDay(year: parts.year!, month: parts.month!, day: parts.day!)
    }

    /// Midnight of the local day containing `micros`.
    public func startOfDay(_ micros: Microseconds) -> Microseconds {
        Time.micros(calendar.startOfDay(for: Time.date(micros)))
    }

    public static let day: Microseconds = 86_400_000_000

    /// Microseconds of "-1d", "+2h", "30m" (sign optional, default back in time when "-" given).
    private func relativeOffset(_ text: String) -> Microseconds? {
        guard let match = text.wholeMatch(of: /([+-])?(\d+)(s|m|h|d|w)/), let amount = Int64(match.2) else { return nil }
        let unit: Microseconds = switch match.3 {
        case "s": 1_000_000
        case "m": 60_000_000
        case "h": 3_600_000_000
        case "d": TimeParser.day
        default: 7 * TimeParser.day
        }
        return (match.1 == "-" ? -1 : 1) * amount * unit
    }

    private func absolute(_ text: String) -> Microseconds? {
        let pattern = /(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(\.\d{1,6})?)?)?(Z|[+-]\d{2}:?\d{2})?/
        guard let m = text.wholeMatch(of: pattern) else { return nil }
        var parts = DateComponents()
        parts.year = Int(m.1)
        parts.month = Int(m.2)
        parts.day = Int(m.3)
        parts.hour = m.4.flatMap { Int($0) } ?? 0
        parts.minute = m.5.flatMap { Int($0) } ?? 0
        parts.second = m.6.flatMap { Int($0) } ?? 0
        var zonedCalendar = calendar
        if let zone = m.8 { zonedCalendar.timeZone = Self.fixedZone(String(zone)) ?? timeZone }
        guard let month = parts.month, (1...12).contains(month), let d = parts.day, (1...31).contains(d),
              let date = zonedCalendar.date(from: parts) else { return nil }
        let fraction = m.7.map { Int64(($0.dropFirst() + "000000").prefix(6))! } ?? 0
        return Time.micros(date) + fraction
    }

    private static func fixedZone(_ text: String) -> TimeZone? {
        if text == "Z" { return TimeZone(identifier: "UTC") }
        let digits = text.dropFirst().filter(\.isNumber)
        guard digits.count == 4, let hours = Int(digits.prefix(2)), let minutes = Int(digits.suffix(2)) else { return nil }
        return TimeZone(secondsFromGMT: (text.hasPrefix("-") ? -1 : 1) * (hours * 3600 + minutes * 60))
    }

    /// "1d", "6h", "15m", "30s", "1w", "1mo", "1y" as calendar components.
    public static func interval(_ text: String) throws(UsageError) -> IntervalComponents {
        guard let interval = IntervalComponents(text: text) else {
            throw UsageError("'\(text)' is not an interval: use a count and unit like 1d, 6h, 15m, 1w, 1mo, 1y")
        }
        return interval
    }
}

import Foundation

/// Instants on the wire and in the store: microseconds since 1970-01-01T00:00:00Z.
public typealias Microseconds = Int64

/// Conversions between `Microseconds`, `Date` and text, and the clock.
public enum Time {
    public static let microsPerSecond: Int64 = 1_000_000

    /// The current time in microseconds since the Unix epoch.
    public static func now() -> Microseconds {
        Microseconds((Date().timeIntervalSince1970 * 1_000_000).rounded())
    }

    public static func date(_ micros: Microseconds) -> Date {
        Date(timeIntervalSince1970: Double(micros) / 1_000_000)
    }

    public static func micros(_ date: Date) -> Microseconds {
        Microseconds((date.timeIntervalSince1970 * 1_000_000).rounded())
    }

    /// `Date.distantFuture` in microseconds: an end at or after it means "undetermined duration".
    public static let distantFuture: Microseconds = micros(Date.distantFuture)

    /// ISO 8601 text of an instant with millisecond precision, for people-facing output: in UTC
    /// ("…Z"), or at the offset `zone` has at that instant ("…+02:00"). Computed arithmetically:
    /// exports print millions of timestamps, and building a date formatter per call dominated them.
    public static func iso8601(_ micros: Microseconds, in zone: TimeZone? = nil) -> String {
        var text: [UInt8] = []
        text.reserveCapacity(32)
        appendISO8601(micros, in: zone, to: &text)
        return String(decoding: text, as: UTF8.self)
    }

    /// Appends `iso8601(micros, in: zone)`'s UTF-8 bytes to `text`: an export writes two per line
    /// into one buffer.
    public static func appendISO8601(_ micros: Microseconds, in zone: TimeZone? = nil, to text: inout [UInt8]) {
        let offset = zone.map { $0.secondsFromGMT(for: date(micros)) } ?? 0
        let local = micros.addingReportingOverflow(Int64(offset) * microsPerSecond)
        let shifted = local.overflow ? micros : local.partialValue
        let (days, inDay) = floorDivision(shifted, 86_400 * microsPerSecond)
        let (year, month, day) = civilDate(daysSinceEpoch: days)
        let millis = inDay / 1000
        // Every field goes into one stack buffer, appended at once: an export writes two timestamps
        // a line. 40 bytes hold the longest (a year of Int64 microseconds has at most 6 digits).
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 40) { buffer in
            var at = 0
            func field(_ value: Int64, _ width: Int, then separator: Unicode.Scalar?) {
                at = buffer.writeDecimal(value, width: width, at: at)
                if let separator {
                    buffer[at] = UInt8(ascii: separator)
                    at += 1
                }
            }
            field(year, 4, then: "-")
            field(month, 2, then: "-")
            field(day, 2, then: "T")
            field(millis / 3_600_000, 2, then: ":")
            field(millis / 60_000 % 60, 2, then: ":")
            field(millis / 1000 % 60, 2, then: ".")
            if offset == 0 || local.overflow {
                field(millis % 1000, 3, then: "Z")
            } else {
                let minutes = abs(offset) / 60
                field(millis % 1000, 3, then: offset < 0 ? "-" : "+")
                field(Int64(minutes / 60), 2, then: ":")
                field(Int64(minutes % 60), 2, then: nil)
            }
            text.append(contentsOf: UnsafeBufferPointer(rebasing: buffer[..<at]))
        }
    }

    /// (quotient, remainder) rounding toward negative infinity, so instants before 1970 format too.
    private static func floorDivision(_ value: Int64, _ divisor: Int64) -> (Int64, Int64) {
        let remainder = value % divisor
        return remainder < 0 ? (value / divisor - 1, remainder + divisor) : (value / divisor, remainder)
    }

    /// The proleptic Gregorian (year, month, day) of a day count since 1970-01-01 (Howard Hinnant's
    /// days-to-civil algorithm over 400-year eras).
    private static func civilDate(daysSinceEpoch: Int64) -> (Int64, Int64, Int64) {
        let z = daysSinceEpoch + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
        let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }
}

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

    /// Appends `iso8601(micros, in: zone)`'s UTF-8 bytes to `text`.
    public static func appendISO8601(_ micros: Microseconds, in zone: TimeZone? = nil, to text: inout [UInt8]) {
        var writer = ISO8601Writer()
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: ISO8601Writer.maxCount) { buffer in
            let count = writer.write(micros, in: zone, to: buffer.baseAddress!)
            text.append(contentsOf: UnsafeBufferPointer(rebasing: buffer[..<count]))
        }
    }

    /// (quotient, remainder) rounding toward negative infinity, so instants before 1970 format too.
    fileprivate static func floorDivision(_ value: Int64, _ divisor: Int64) -> (Int64, Int64) {
        let remainder = value % divisor
        return remainder < 0 ? (value / divisor - 1, remainder + divisor) : (value / divisor, remainder)
    }

    /// The proleptic Gregorian (year, month, day) of a day count since 1970-01-01 (Howard Hinnant's
    /// days-to-civil algorithm over 400-year eras).
    fileprivate static func civilDate(daysSinceEpoch: Int64) -> (Int64, Int64, Int64) {
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

/// `Time.iso8601`'s text for many instants in a row, the text of the last one's local hour and offset
/// kept: an export writes two timestamps a line, and consecutive lines mostly share their date and
/// hour, so only minutes, seconds and milliseconds are made again. The text depends on nothing but
/// the local time and the offset, so neither the zone nor the order of the instants matters.
public struct ISO8601Writer: Sendable {
    /// The most bytes one instant's text takes (a year of Int64 microseconds has at most 6 digits).
    public static let maxCount = 40

    /// Hours since the epoch in local time, and the offset in seconds, that `head` and `tail` are of.
    private var hour = Int64.min
    private var offset = 0
    /// "YYYY-MM-DDTHH:" (at most 17 bytes) and "Z" or "+HH:MM", held without an allocation.
    private var head: (UInt64, UInt64, UInt64) = (0, 0, 0)
    private var headCount = 0
    private var tail: UInt64 = 0
    private var tailCount = 0

    public init() {}

    /// Writes the text of `micros` at `out` (room for `maxCount` bytes, any of which it may set) and
    /// returns its length.
    public mutating func write(_ micros: Microseconds, in zone: TimeZone?, to out: UnsafeMutablePointer<UInt8>) -> Int {
        let zoneOffset = zone.map { $0.secondsFromGMT(for: Time.date(micros)) } ?? 0
        let local = micros.addingReportingOverflow(Int64(zoneOffset) * Time.microsPerSecond)
        // Shifted past Int64's range, the instant is written in UTC.
        let (shifted, offset) = local.overflow ? (micros, 0) : (local.partialValue, zoneOffset)
        let (hour, inHour) = Time.floorDivision(shifted, 3_600 * Time.microsPerSecond)
        if hour != self.hour || offset != self.offset { remember(hour: hour, offset: offset) }
        // Head and tail are stored whole, whatever their counts: stores of known size, not calls; what
        // lies past a count is written over next (17 + 9 + 8 bytes at most).
        UnsafeMutableRawPointer(out).storeBytes(of: head, as: (UInt64, UInt64, UInt64).self)
        let millis = Int(inHour / 1000)
        let (minutes, seconds, milli) = (millis / 60_000, millis / 1000 % 60, millis % 1000)
        let at = out + headCount
        func digit(_ i: Int, _ value: Int) { at[i] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: value) }
        digit(0, minutes / 10)
        digit(1, minutes % 10)
        at[2] = UInt8(ascii: ":")
        digit(3, seconds / 10)
        digit(4, seconds % 10)
        at[5] = UInt8(ascii: ".")
        digit(6, milli / 100)
        digit(7, milli / 10 % 10)
        digit(8, milli % 10)
        UnsafeMutableRawPointer(at + 9).storeBytes(of: tail, as: UInt64.self)
        return headCount + 9 + tailCount
    }

    private mutating func remember(hour: Int64, offset: Int) {
        (self.hour, self.offset) = (hour, offset)
        let (days, hourOfDay) = Time.floorDivision(hour, 24)
        let (year, month, day) = Time.civilDate(daysSinceEpoch: days)
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 24) { buffer in
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
            field(hourOfDay, 2, then: ":")
            headCount = at
            withUnsafeMutableBytes(of: &head) { $0.copyMemory(from: UnsafeRawBufferPointer(start: buffer.baseAddress, count: at)) }
            buffer[0] = UInt8(ascii: offset == 0 ? "Z" : offset < 0 ? "-" : "+")
            at = 1
            if offset != 0 {
                let minutes = Int64(abs(offset) / 60)
                field(minutes / 60, 2, then: ":")
                field(minutes % 60, 2, then: nil)
            }
            tailCount = at
            withUnsafeMutableBytes(of: &tail) { $0.copyMemory(from: UnsafeRawBufferPointer(start: buffer.baseAddress, count: at)) }
        }
    }
}

import HealthModel

/// The date forms exports use, parsed arithmetically (millions per export): each carries its own
/// UTC offset, so no time-zone database is consulted and DST transitions need no special case.
enum ExportDates {
    /// "2024-01-01 01:01:36 +0200" (every export since iOS 10), the legacy compact
    /// "20151107171924+0100" (iOS 8/9), or GPX's "2019-06-11T22:00:42Z" / "…T22:00:42.5+02:00".
    static func instant(_ text: String) -> Microseconds? { instantAndOffset(text)?.instant }

    /// The instant and the UTC offset (seconds east) it was written with.
    static func instantAndOffset(_ text: String) -> (instant: Microseconds, offset: Int)? {
        DigitScanner.scan(text) { scanner in instantAndOffset(&scanner) }
    }

    /// The same from the text's UTF-8 as the XML reader holds it, without making a string.
    static func instantAndOffset(_ bytes: UnsafeBufferPointer<UInt8>) -> (instant: Microseconds, offset: Int)? {
        DigitScanner.scan(bytes) { scanner in instantAndOffset(&scanner) }
    }

    private static func instantAndOffset(_ scanner: inout DigitScanner) -> (instant: Microseconds, offset: Int)? {
        guard let year = scanner.number(4) else { return nil }
        let compact = scanner.peek != UInt8(ascii: "-")
        if !compact { _ = scanner.skip(UInt8(ascii: "-")) }
        guard let month = scanner.number(2), compact || scanner.skip(UInt8(ascii: "-")), let day = scanner.number(2) else { return nil }
        if !compact { guard scanner.skip(UInt8(ascii: " ")) || scanner.skip(UInt8(ascii: "T")) else { return nil } }
        guard let hour = scanner.number(2), compact || scanner.skip(UInt8(ascii: ":")), let minute = scanner.number(2),
              compact || scanner.skip(UInt8(ascii: ":")), let second = scanner.number(2) else { return nil }
        let fraction = scanner.fraction()
        _ = scanner.skip(UInt8(ascii: " "))
        guard let offset = scanner.offset(), scanner.atEnd, (1...12).contains(month), (1...31).contains(day),
              hour < 24, minute < 60, second < 61 else { return nil }
        let days = daysFromCivil(year: year, month: month, day: day)
        let seconds = Int64(days) * 86_400 + Int64(hour * 3600 + minute * 60 + second) - Int64(offset)
        return (seconds * Time.microsPerSecond + fraction, offset)
    }

    /// The UTC offset in seconds a date string was written with.
    static func offset(_ text: String) -> Int? { instantAndOffset(text)?.offset }

    /// A beat's time of day ("08:33:44,67" in French exports, "08:33:44.67", "8:33:44.67 AM" in US
    /// ones), as the first such instant at or after `start` in the offset of `start`'s date string.
    static func timeOfDay(_ text: String, onOrAfter start: Microseconds, offset: Int) -> Microseconds? {
        // Foundation's replacing costs more than the whole scan: only texts with a non-ASCII byte can hold U+202F.
        let text = text.utf8.contains { $0 >= 0x80 } ? text.replacingOccurrences(of: "\u{202F}", with: " ") : text
        return DigitScanner.scan(text) { scanner in timeOfDay(&scanner, onOrAfter: start, offset: offset) }
    }

    private static func timeOfDay(_ scanner: inout DigitScanner, onOrAfter start: Microseconds, offset: Int) -> Microseconds? {
        guard var hour = scanner.number(2, minimumDigits: 1), scanner.skip(UInt8(ascii: ":")), let minute = scanner.number(2),
              scanner.skip(UInt8(ascii: ":")), let second = scanner.number(2) else { return nil }
        let fraction = scanner.fraction()
        _ = scanner.skip(UInt8(ascii: " "))
        if scanner.skip("PM") || scanner.skip("pm") {
            if hour < 12 { hour += 12 }
        } else if scanner.skip("AM") || scanner.skip("am") {
            if hour == 12 { hour = 0 }
        }
        guard scanner.atEnd, hour < 24, minute < 60, second < 61 else { return nil }
        let day: Int64 = 86_400 * Time.microsPerSecond
        let local = start + Int64(offset) * Time.microsPerSecond
        let midnight = local - ((local % day) + day) % day
        var instant = midnight + Int64(hour * 3600 + minute * 60 + second) * Time.microsPerSecond + fraction
            - Int64(offset) * Time.microsPerSecond
        // Within the record's second the beat may be written before its start; a smaller time of day is the next day.
        if instant + Time.microsPerSecond <= start { instant += day }
        return instant
    }

    /// "2016-11-15" (ActivitySummary's dateComponents, Me's date of birth).
    static func day(_ text: String) -> CalendarDay? {
        DigitScanner.scan(text) { scanner in
            guard let year = scanner.number(4), scanner.skip(UInt8(ascii: "-")), let month = scanner.number(2), scanner.skip(UInt8(ascii: "-")),
                  let day = scanner.number(2), scanner.atEnd, (1...12).contains(month), (1...31).contains(day) else { return nil }
            return CalendarDay(year: year, month: month, day: day)
        }
    }

    /// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's days_from_civil).
    static func daysFromCivil(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }
}

/// Reads fixed-width digit fields and separators from ASCII text, in place (millions of dates).
private struct DigitScanner {
    private let bytes: UnsafeBufferPointer<UInt8>
    private var position = 0

    /// `body`'s result, with a scanner over `text`'s UTF-8 that lives only during the call.
    static func scan<Result>(_ text: String, _ body: (inout DigitScanner) -> Result) -> Result {
        var text = text
        return text.withUTF8 { bytes in scan(bytes, body) }
    }

    static func scan<Result>(_ bytes: UnsafeBufferPointer<UInt8>, _ body: (inout DigitScanner) -> Result) -> Result {
        var scanner = DigitScanner(bytes: bytes)
        return body(&scanner)
    }

    var atEnd: Bool { position == bytes.count }
    var peek: UInt8? { position < bytes.count ? bytes[position] : nil }

    mutating func number(_ digits: Int, minimumDigits: Int? = nil) -> Int? {
        var value = 0
        var count = 0
        while count < digits, let byte = peek, byte >= 48, byte <= 57 {
            value = value * 10 + Int(byte - 48)
            position += 1
            count += 1
        }
        return count >= (minimumDigits ?? digits) ? value : nil
    }

    mutating func skip(_ byte: UInt8) -> Bool {
        guard peek == byte else { return false }
        position += 1
        return true
    }

    mutating func skip(_ literal: String) -> Bool {
        let count = literal.utf8.count
        guard bytes.count - position >= count, bytes[position..<position + count].elementsEqual(literal.utf8) else { return false }
        position += count
        return true
    }

    /// ".67" or ",67" as microseconds; 0 when there is none.
    mutating func fraction() -> Int64 {
        guard let separator = peek, separator == UInt8(ascii: ".") || separator == UInt8(ascii: ",") else { return 0 }
        position += 1
        var micros: Int64 = 0
        var scale: Int64 = 100_000
        while let byte = peek, byte >= 48, byte <= 57 {
            micros += Int64(byte - 48) * scale
            scale /= 10
            position += 1
        }
        return micros
    }

    /// "+0200", "-0700", "+02:00" or "Z" as seconds east of UTC.
    mutating func offset() -> Int? {
        if skip(UInt8(ascii: "Z")) { return 0 }
        guard let sign = peek, sign == UInt8(ascii: "+") || sign == UInt8(ascii: "-") else { return nil }
        position += 1
        guard let hours = number(2) else { return nil }
        _ = skip(UInt8(ascii: ":"))
        guard let minutes = number(2), hours <= 14, minutes < 60 else { return nil }
        return (sign == UInt8(ascii: "-") ? -1 : 1) * (hours * 3600 + minutes * 60)
    }
}

import Foundation

/// HealthKit's date range, years 1 through 9999 (UTC). Every instant and calendar day a client sends
/// is checked against it where it enters, so later arithmetic on instants (durations, calendar
/// steps, bucket bounds) stays far inside Int64.
public enum TimeRules {
    /// 0001-01-01T00:00:00Z.
    public static let earliest: Microseconds = -62_135_596_800 * Time.microsPerSecond
    /// 9999-12-31T23:59:59.999999Z.
    public static let latest: Microseconds = 253_402_300_800 * Time.microsPerSecond - 1
    /// Every instant a client may send.
    public static let supported = earliest...latest
    /// The longest duration two supported instants can span.
    public static let span: Microseconds = latest - earliest

    /// Throws INVALID_ARGUMENT naming `field` unless `instant` lies in years 1 through 9999
    /// (`field` is built only for the error: every saved sample checks two instants).
    public static func checkInstant(_ instant: Microseconds, field: @autoclosure () -> String) throws(HealthError) {
        guard supported.contains(instant) else {
            let field = field()
            throw HealthError.invalid("\(field) (\(instant) µs since 1970) is outside the supported dates: "
                + "years 1 through 9999", field: field)
        }
    }

    /// Throws INVALID_ARGUMENT naming `field` unless `day` is a real Gregorian date in years 1 through 9999.
    public static func checkDay(_ day: CalendarDay, field: String) throws(HealthError) {
        guard (1...9999).contains(day.year) else {
            throw HealthError.invalid("\(field) year \(day.year) is outside the supported dates: years 1 through 9999",
                                      field: field)
        }
        var components = DateComponents()
        (components.year, components.month, components.day) = (day.year, day.month, day.day)
        guard components.isValidDate(in: utcGregorian) else {
            throw HealthError.invalid("\(field) \(day.year)-\(day.month)-\(day.day) is not a calendar date", field: field)
        }
    }

    /// The Gregorian calendar in UTC, for checking and reading calendar days.
    public static let utcGregorian: Calendar = {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        return calendar
    }()
}

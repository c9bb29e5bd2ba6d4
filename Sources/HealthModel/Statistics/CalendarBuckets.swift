import Foundation

/// One interval of a statistics collection: [start, end), numbered from the anchor's bucket (0).
public struct CalendarBucket: Sendable, Hashable {
    public let index: Int
    public let start: Microseconds
    public let end: Microseconds

    /// The bucket as a half-open range.
    public var range: Range<Microseconds> { start..<end }
}

/// HKStatisticsCollectionQuery's buckets (docs/semantics.md §6.6): bucket i spans
/// [anchor + components×i, anchor + components×(i+1)) by calendar arithmetic in the given time zone,
/// always computed from the anchor, so days last 23 or 25 hours across DST and a Jan 31 anchor with
/// one-month buckets starts buckets on Feb 28/29, Mar 31, Apr 30…
public struct CalendarBuckets: Sendable {
    /// Calendar identifiers accepted on the wire.
    static let calendars: [String: Calendar.Identifier] = [
        "gregorian": .gregorian, "iso8601": .iso8601, "buddhist": .buddhist, "japanese": .japanese,
        "republicOfChina": .republicOfChina, "hebrew": .hebrew, "islamic": .islamic, "persian": .persian,
        "indian": .indian, "chinese": .chinese,
    ]


    public let anchor: Microseconds
    public let components: IntervalComponents
    private let calendar: Calendar
    /// Whole seconds when the interval has only hours, minutes and seconds: those are absolute time, so
    /// buckets are fixed-length and need no calendar.
    private let fixedSeconds: Int64?
    /// Approximate bucket length, to jump near the right index before stepping exactly.
    private let nominalMicros: Double

    /// - Parameters:
    ///   - timeZone: IANA identifier; nil = UTC.
    ///   - calendar: calendar identifier ("gregorian", "iso8601", …); nil = gregorian.
    public init(anchor: Microseconds, components: IntervalComponents, timeZone: String?, calendar: String?) throws(HealthError) {
        try StatisticsCollectionRules.checkInterval(components)
        try TimeRules.checkInstant(anchor, field: "anchor")
        guard let identifier = Self.calendars[calendar ?? "gregorian"] else {
            throw HealthError.invalid("unknown calendar '\(calendar ?? "")'; known: \(Self.calendars.keys.sorted().joined(separator: ", "))", field: "calendar")
        }
        guard let zone = TimeZone(identifier: timeZone ?? "UTC") else {
            throw HealthError.invalid("unknown IANA time zone '\(timeZone ?? "")'", field: "time_zone")
        }
        var cal = Calendar(identifier: identifier)
        cal.timeZone = zone
        self.init(anchor: anchor, components: components, calendar: cal)
    }

    private init(anchor: Microseconds, components: IntervalComponents, calendar: Calendar) {
        self.calendar = calendar
        self.anchor = anchor
        self.components = components
        let clockSeconds = Int64(components.hours) * 3600 + Int64(components.minutes) * 60 + Int64(components.seconds)
        let hasCalendarPart = components.days != 0 || components.weeks != 0 || components.months != 0 || components.years != 0
        fixedSeconds = hasCalendarPart ? nil : clockSeconds
        nominalMicros = components.nominalSeconds * 1_000_000
    }

    /// Local-day buckets in `timeZone` (nil = UTC), bucket 0 being `day`: each runs midnight to midnight.
    public static func days(startingAt day: CalendarDay, timeZone: String?) throws(HealthError) -> CalendarBuckets {
        let probe = try CalendarBuckets(anchor: 0, components: IntervalComponents(days: 1), timeZone: timeZone, calendar: nil)
        let cal = probe.calendar
        // Noon always exists; startOfDay then finds midnight even where a DST change skips 00:00.
        guard let noon = cal.date(from: DateComponents(year: day.year, month: day.month, day: day.day, hour: 12)),
              cal.component(.day, from: noon) == day.day else {
            throw HealthError.invalid("no such day \(day.isoString)", field: "day")
        }
        return CalendarBuckets(anchor: Time.micros(cal.startOfDay(for: noon)), components: probe.components, calendar: cal)
    }

    /// Start of bucket i (may be negative: buckets before the anchor).
    public func start(of index: Int) -> Microseconds {
        if let fixedSeconds { return anchor + Int64(index) * fixedSeconds * Time.microsPerSecond }
        // Calendar arithmetic on whole seconds; the sub-second part of the anchor is carried over
        // unchanged (every zone offset is whole seconds).
        let fraction = ((anchor % Time.microsPerSecond) + Time.microsPerSecond) % Time.microsPerSecond
        let wholeSeconds = (anchor - fraction) / Time.microsPerSecond
        var step = DateComponents()
        step.second = components.seconds * index
        step.minute = components.minutes * index
        step.hour = components.hours * index
        step.day = (components.days + 7 * components.weeks) * index
        step.month = components.months * index
        step.year = components.years * index
        let base = Date(timeIntervalSince1970: Double(wholeSeconds))
        guard let date = calendar.date(byAdding: step, to: base) else {
            preconditionFailure("calendar arithmetic failed for bucket \(index) of \(components)")
        }
        return Int64(date.timeIntervalSince1970.rounded()) * Time.microsPerSecond + fraction
    }

    /// Bucket i.
    public func bucket(at index: Int) -> CalendarBucket {
        CalendarBucket(index: index, start: start(of: index), end: start(of: index + 1))
    }

    /// Index of the bucket with start ≤ instant < end; `instant` must lie in `TimeRules.supported`.
    public func bucketIndex(containing instant: Microseconds) -> Int {
        var index = Int((Double(instant - anchor) / nominalMicros).rounded(.down))
        while start(of: index) > instant { index -= 1 }
        while start(of: index + 1) <= instant { index += 1 }
        return index
    }

    /// The bucket containing `instant`.
    public func bucket(containing instant: Microseconds) -> CalendarBucket {
        bucket(at: bucketIndex(containing: instant))
    }

    /// The local calendar day of an instant in this calendar and time zone.
    public func day(containing instant: Microseconds) -> CalendarDay {
        let parts = calendar.dateComponents([.year, .month, .day], from: Time.date(instant))
        return CalendarDay(year: parts.year ?? 0, month: parts.month ?? 0, day: parts.day ?? 0)
    }

    /// Every bucket from the one containing `from` to the one containing `to`, in order.
    /// - Parameter limit: most buckets allowed, so a tiny interval over a long range cannot exhaust memory.
    public func buckets(from: Microseconds, to: Microseconds, limit: Int = 100_000) throws(HealthError) -> [CalendarBucket] {
        try TimeRules.checkInstant(from, field: "from_time")
        try TimeRules.checkInstant(to, field: "to_time")
        guard from <= to else {
            throw HealthError.invalid("enumeration range start \(Time.iso8601(from)) is after its end \(Time.iso8601(to))", field: "from_time")
        }
        let first = bucketIndex(containing: from), last = bucketIndex(containing: to)
        guard last - first < limit else {
            throw HealthError.invalid("the range holds \(last - first + 1) buckets; at most \(limit) are allowed", field: "interval")
        }
        let starts = (first...last + 1).map(start(of:))
        return (first...last).map { CalendarBucket(index: $0, start: starts[$0 - first], end: starts[$0 - first + 1]) }
    }
}

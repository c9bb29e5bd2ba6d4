/// Which statistics to compute (HKStatisticsOptions).
public struct StatisticsOptions: OptionSet, Sendable, Hashable {
    public let rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }

    public static let separateBySource = StatisticsOptions(rawValue: 1 << 0)
    public static let discreteAverage = StatisticsOptions(rawValue: 1 << 1)
    public static let discreteMin = StatisticsOptions(rawValue: 1 << 2)
    public static let discreteMax = StatisticsOptions(rawValue: 1 << 3)
    public static let cumulativeSum = StatisticsOptions(rawValue: 1 << 4)
    public static let mostRecent = StatisticsOptions(rawValue: 1 << 5)
    public static let duration = StatisticsOptions(rawValue: 1 << 6)

    /// What people ask of a type by default: a cumulative type's sum, a discrete type's average, minimum and maximum.
    public static func natural(for type: HealthType) -> StatisticsOptions {
        type.aggregation == .cumulative ? .cumulativeSum : [.discreteAverage, .discreteMin, .discreteMax]
    }
}

/// Calendar interval of a statistics collection (DateComponents).
public struct IntervalComponents: Sendable, Hashable {
    public var seconds = 0, minutes = 0, hours = 0, days = 0, weeks = 0, months = 0, years = 0

    /// A count and unit: 30s, 15m, 6h, 1d, 1w, 1mo, 1y; nil for anything else.
    public init?(text: String) {
        guard let m = text.wholeMatch(of: /(\d+)(s|m|h|d|w|mo|y)/), let n = Int(m.1), n > 0 else { return nil }
        switch m.2 {
        case "s": self.init(seconds: n)
        case "m": self.init(minutes: n)
        case "h": self.init(hours: n)
        case "d": self.init(days: n)
        case "w": self.init(weeks: n)
        case "mo": self.init(months: n)
        default: self.init(years: n)
        }
    }

    public init(seconds: Int = 0, minutes: Int = 0, hours: Int = 0, days: Int = 0, weeks: Int = 0,
                months: Int = 0, years: Int = 0) {
        self.seconds = seconds
        self.minutes = minutes
        self.hours = hours
        self.days = days
        self.weeks = weeks
        self.months = months
        self.years = years
    }

    /// True when no component is positive.
    public var isEmpty: Bool { seconds <= 0 && minutes <= 0 && hours <= 0 && days <= 0 && weeks <= 0 && months <= 0 && years <= 0 }
}

/// Statistics of one source (separateBySource).
public struct SourceStatistics: Sendable, Hashable {
    public let source: Source
    public let sum: Quantity?
    public let average: Quantity?
    public let minimum: Quantity?
    public let maximum: Quantity?
    public let mostRecent: Quantity?
    /// Seconds covered by samples.
    public let duration: Double?

    public init(source: Source, sum: Quantity? = nil, average: Quantity? = nil, minimum: Quantity? = nil,
                maximum: Quantity? = nil, mostRecent: Quantity? = nil, duration: Double? = nil) {
        self.source = source
        self.sum = sum
        self.average = average
        self.minimum = minimum
        self.maximum = maximum
        self.mostRecent = mostRecent
        self.duration = duration
    }
}

/// HKStatistics for one interval: nil quantities were not requested or have no data.
public struct Statistics: Sendable, Hashable {
    public let type: String
    public let start: Microseconds
    public let end: Microseconds
    public let sum: Quantity?
    public let average: Quantity?
    public let minimum: Quantity?
    public let maximum: Quantity?
    public let mostRecent: Quantity?
    /// (start, end) of the most recent sample.
    public let mostRecentInterval: ClosedRange<Microseconds>?
    /// Seconds covered by the union of sample intervals.
    public let duration: Double?
    public let bySource: [SourceStatistics]

    public init(type: String, start: Microseconds, end: Microseconds, sum: Quantity? = nil,
                average: Quantity? = nil, minimum: Quantity? = nil, maximum: Quantity? = nil,
                mostRecent: Quantity? = nil, mostRecentInterval: ClosedRange<Microseconds>? = nil,
                duration: Double? = nil, bySource: [SourceStatistics] = []) {
        self.type = type
        self.start = start
        self.end = end
        self.sum = sum
        self.average = average
        self.minimum = minimum
        self.maximum = maximum
        self.mostRecent = mostRecent
        self.mostRecentInterval = mostRecentInterval
        self.duration = duration
        self.bySource = bySource
    }

    /// True when no statistic has a value.
    public var isEmpty: Bool {
        sum == nil && average == nil && minimum == nil && maximum == nil && mostRecent == nil && duration == nil
    }
}

/// One day's activity (HKActivitySummary), derived from stored samples.
public struct ActivitySummary: Sendable, Hashable {
    public let day: CalendarDay
    /// kcal.
    public let activeEnergyBurned: Quantity
    /// min.
    public let exerciseTime: Quantity
    /// count.
    public let standHours: Quantity

    public init(day: CalendarDay, activeEnergyBurned: Quantity, exerciseTime: Quantity, standHours: Quantity) {
        self.day = day
        self.activeEnergyBurned = activeEnergyBurned
        self.exerciseTime = exerciseTime
        self.standHours = standHours
    }
}

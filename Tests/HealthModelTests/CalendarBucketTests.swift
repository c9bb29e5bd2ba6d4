import Foundation
import XCTest
@testable import HealthModel

/// Instant of a UTC wall-clock time, computed independently of the code under test.
func utc(_ year: Int, _ month: Int, _ day: Int, _ hour: Int = 0, _ minute: Int = 0) -> Microseconds {
    var cal = Calendar(identifier: .gregorian)
    cal.timeZone = TimeZone(identifier: "UTC")!
    return Time.micros(cal.date(from: DateComponents(year: year, month: month, day: day, hour: hour, minute: minute))!)
}

let hourMicros: Microseconds = 3_600_000_000

final class CalendarBucketTests: XCTestCase {
    private func daily(_ zone: String, anchor: Microseconds) throws -> CalendarBuckets {
        try CalendarBuckets(anchor: anchor, components: IntervalComponents(days: 1), timeZone: zone, calendar: "gregorian")
    }

    func testBerlinSpringForwardDayLasts23Hours() throws {
        // Anchor: 2026-03-01 00:00 CET = 2026-02-28 23:00Z.
        let buckets = try daily("Europe/Berlin", anchor: utc(2026, 2, 28, 23))
        let day = buckets.bucket(containing: utc(2026, 3, 29, 12))
        XCTAssertEqual(day.start, utc(2026, 3, 28, 23))
        XCTAssertEqual(day.end, utc(2026, 3, 29, 22))
        XCTAssertEqual(day.end - day.start, 23 * hourMicros)
        XCTAssertEqual(day.index, 28)
    }

    func testBerlinFallBackDayLasts25Hours() throws {
        let buckets = try daily("Europe/Berlin", anchor: utc(2026, 2, 28, 23))
        let day = buckets.bucket(containing: utc(2026, 10, 25, 12))
        XCTAssertEqual(day.start, utc(2026, 10, 24, 22))
        XCTAssertEqual(day.end, utc(2026, 10, 25, 23))
        XCTAssertEqual(day.end - day.start, 25 * hourMicros)
    }

    func testNewYorkDSTDaysFromAnAnchorAfterThem() throws {
        // Anchor 2026-12-01 00:00 EST = 05:00Z: both DST days are at negative indices.
        let buckets = try daily("America/New_York", anchor: utc(2026, 12, 1, 5))
        let spring = buckets.bucket(containing: utc(2026, 3, 8, 12))
        XCTAssertEqual(spring.start, utc(2026, 3, 8, 5))
        XCTAssertEqual(spring.end, utc(2026, 3, 9, 4))
        XCTAssertLessThan(spring.index, 0)
        let fall = buckets.bucket(containing: utc(2026, 11, 1, 12))
        XCTAssertEqual(fall.start, utc(2026, 11, 1, 4))
        XCTAssertEqual(fall.end, utc(2026, 11, 2, 5))
        XCTAssertEqual(fall.end - fall.start, 25 * hourMicros)
        XCTAssertEqual(fall.index, -30)
    }

    func testEnumerationAcrossDSTGivesContiguousLocalDays() throws {
        let buckets = try daily("Europe/Berlin", anchor: utc(2026, 2, 28, 23))
        let list = try buckets.buckets(from: utc(2026, 3, 27, 12), to: utc(2026, 3, 31, 12))
        XCTAssertEqual(list.map { ($0.end - $0.start) / hourMicros }, [24, 24, 23, 24, 24])
        XCTAssertEqual(list.map(\.index), Array(26...30))
        for (a, b) in zip(list, list.dropFirst()) { XCTAssertEqual(a.end, b.start) }
    }

    func testMonthBucketsFromJanuary31AreComputedFromTheAnchor() throws {
        let buckets = try CalendarBuckets(anchor: utc(2026, 1, 31), components: IntervalComponents(months: 1),
                                          timeZone: "UTC", calendar: nil)
        XCTAssertEqual((-2...4).map(buckets.start(of:)),
                       [utc(2025, 11, 30), utc(2025, 12, 31), utc(2026, 1, 31), utc(2026, 2, 28),
                        utc(2026, 3, 31), utc(2026, 4, 30), utc(2026, 5, 31)])
        XCTAssertEqual(buckets.bucketIndex(containing: utc(2026, 3, 30)), 1)
        XCTAssertEqual(buckets.bucketIndex(containing: utc(2026, 3, 31)), 2)
        let leap = try CalendarBuckets(anchor: utc(2028, 1, 31), components: IntervalComponents(months: 1),
                                       timeZone: "UTC", calendar: nil)
        XCTAssertEqual(leap.start(of: 1), utc(2028, 2, 29))
    }

    func testHourBucketsAreAbsoluteHoursAcrossDST() throws {
        let buckets = try CalendarBuckets(anchor: utc(2026, 3, 28, 23), components: IntervalComponents(hours: 1),
                                          timeZone: "Europe/Berlin", calendar: nil)
        let list = try buckets.buckets(from: utc(2026, 3, 28, 23), to: utc(2026, 3, 29, 21, 59))
        XCTAssertEqual(list.count, 23)
        XCTAssertTrue(list.allSatisfy { $0.end - $0.start == hourMicros })
        XCTAssertEqual(buckets.bucketIndex(containing: utc(2026, 3, 28, 22, 30)), -1)
    }

    func testWeekBucketsAndBoundaryMembership() throws {
        let buckets = try CalendarBuckets(anchor: utc(2026, 1, 5), components: IntervalComponents(weeks: 1),
                                          timeZone: "UTC", calendar: "iso8601")
        XCTAssertEqual(buckets.bucketIndex(containing: utc(2026, 1, 12)), 1)
        XCTAssertEqual(buckets.bucketIndex(containing: utc(2026, 1, 12) - 1), 0)
        XCTAssertEqual(buckets.start(of: -1), utc(2025, 12, 29))
    }

    func testSubSecondAnchorIsKept() throws {
        let anchor = utc(2026, 1, 1) + 250_000
        let buckets = try daily("Europe/Berlin", anchor: anchor)
        XCTAssertEqual(buckets.start(of: 3), anchor + 72 * hourMicros)
        XCTAssertEqual(buckets.start(of: -1), anchor - 24 * hourMicros)
    }

    func testLocalDays() throws {
        let days = try CalendarBuckets.days(startingAt: CalendarDay(year: 2026, month: 11, day: 1), timeZone: "America/New_York")
        XCTAssertEqual(days.anchor, utc(2026, 11, 1, 4))
        XCTAssertEqual(days.bucket(at: 0).end, utc(2026, 11, 2, 5))
        XCTAssertEqual(days.day(containing: utc(2026, 11, 2, 4, 59)), CalendarDay(year: 2026, month: 11, day: 1))
        XCTAssertThrowsError(try CalendarBuckets.days(startingAt: CalendarDay(year: 2026, month: 2, day: 30), timeZone: nil))
    }

    func testInvalidRequestsAreInvalidArgument() {
        func code(_ body: () throws -> Void) -> HealthErrorCode? {
            do { try body(); return nil } catch let error as HealthError { return error.code } catch { return nil }
        }
        XCTAssertEqual(code { _ = try CalendarBuckets(anchor: 0, components: IntervalComponents(days: 1), timeZone: "Mars/Olympus", calendar: nil) }, .invalidArgument)
        XCTAssertEqual(code { _ = try CalendarBuckets(anchor: 0, components: IntervalComponents(), timeZone: nil, calendar: nil) }, .invalidArgument)
        XCTAssertEqual(code { _ = try CalendarBuckets(anchor: 0, components: IntervalComponents(days: 1, months: -1), timeZone: nil, calendar: nil) }, .invalidArgument)
        XCTAssertEqual(code { _ = try CalendarBuckets(anchor: 0, components: IntervalComponents(days: 1), timeZone: nil, calendar: "klingon") }, .invalidArgument)
        XCTAssertEqual(code {
            let b = try CalendarBuckets(anchor: 0, components: IntervalComponents(seconds: 1), timeZone: nil, calendar: nil)
            _ = try b.buckets(from: 0, to: 10 * hourMicros, limit: 1000)
        }, .invalidArgument)
        XCTAssertEqual(code {
            let b = try CalendarBuckets(anchor: 0, components: IntervalComponents(days: 1), timeZone: nil, calendar: nil)
            _ = try b.buckets(from: 10, to: 0)
        }, .invalidArgument)
        XCTAssertEqual(code {
            let b = try CalendarBuckets(anchor: 0, components: IntervalComponents(years: 1), timeZone: nil, calendar: nil)
            _ = try b.buckets(from: 0, to: .max)
        }, .invalidArgument)
    }
}

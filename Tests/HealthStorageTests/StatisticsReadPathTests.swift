import Foundation
import HealthModel
@testable import HealthStorage
import XCTest

/// A statistics read covering most of a type scans the type's rows in key order and sorts them; a
/// narrower one reads them through `samples_by_source`, its sources merged. On every engine both hand the math the same
/// rows in the same order, so discrete collections (average, minimum, maximum, most recent, duration,
/// per source) over a DST day from three sources, with instants, user entries, samples ending on a
/// bucket boundary, samples spanning several buckets and deleted samples, equal the math over the
/// samples saved and not deleted.
final class StatisticsReadPathTests: StoreTestCase {
    private let heartRate = StoreFixture.heartRate
    private let sources = [StoreFixture.watch, StoreFixture.scale, Source(name: "Phone", bundleID: "com.example.phone")]
    private let zone = "America/New_York"
    /// 2024-03-10 00:00 in New York (EST), the day clocks skip from 02:00 to 03:00.
    private let dstDay: Microseconds = 1_710_046_800_000_000
    private let minute: Microseconds = 60_000_000

    /// Heart rates of source `k` from 6 hours before the DST day to 6 hours after it: scattered
    /// starts, some instants, some 5 minutes long ending on the hour, some spanning two or three
    /// hours, some user-entered; several share a start with another source's.
    private func readings(_ k: Int) -> [Sample] {
        (0..<150).map { i in
            let start = dstDay - 360 * minute + Int64((i * 211 + k * 97) % 1_800) * minute
            let length: Microseconds = switch (i + k) % 6 {
            case 0: 0
            case 1: 60 * minute - start % (60 * minute) // to the next hour
            case 2: Int64(70 + (i * 7) % 120) * minute
            default: Int64(1 + (i * 3 + k) % 20) * minute
            }
            let metadata: Metadata = (i + k) % 11 == 0 ? ["HKWasUserEntered": .bool(true)] : [:]
            return Sample(type: heartRate, start: start, end: start + length, metadata: metadata,
                          body: .quantity(Quantity(Double(50 + (i * 37 + k * 11) % 90) / 60, "count/s"), count: 1))
        }
    }

    /// `saved` (in save order) as the fetch hands them on: in start order, ties in save (anchor) order.
    private func inputs(_ saved: [(sample: Sample, source: Source)]) -> [StatInput] {
        saved.enumerated().sorted { ($0.element.sample.start, $0.offset) < ($1.element.sample.start, $1.offset) }
            .map { _, pair in
                let (sample, source) = pair
                guard case .quantity(let quantity, _) = sample.body else { preconditionFailure("a quantity sample") }
                return StatInput(start: sample.start, end: sample.end, value: quantity.value,
                                 sourceBundleID: source.bundleID, sourceName: source.name,
                                 wasUserEntered: sample.metadata["HKWasUserEntered"] == .bool(true))
            }
    }

    func testDiscreteCollectionsOverADSTDayEqualTheMathThroughEitherRead() async throws {
        try await forEachEngine {
            let f = try await StoreFixture()
            var saved: [(sample: Sample, source: Source)] = []
            for (k, source) in sources.enumerated() {
                let samples = readings(k)
                try await f.save(samples, source: source)
                saved += samples.map { ($0, source) }
            }
            // Deleted readings count nowhere.
            let deleted = Set(saved.prefix(150).enumerated().filter { $0.offset % 17 == 0 }.map(\.element.sample.uuid))
            _ = try await f.store.deleteObjects(uuids: Array(deleted), by: Deleter(owner: f.owner, bundleID: sources[0].bundleID, isOwner: false))
            saved.removeAll { deleted.contains($0.sample.uuid) }
            let expected = inputs(saved)
            let order = SourcePriorityOrder(ordered: [], firstSeen: Dictionary(try await f.store.sourcesFirstSeen(owner: f.owner, type: heartRate)
                .map { ($0.0.bundleID, $0.1) }, uniquingKeysWith: min))
            let type = try XCTUnwrap(TypeCatalog.type(heartRate))
            let options: StatisticsOptions = [.discreteAverage, .discreteMin, .discreteMax, .mostRecent, .duration, .separateBySource]
            let context = ReadContext(db: try f.connect(), registry: Registry(), anchorKey: Data())
            let typeID = try XCTUnwrap(try context.resolve([heartRate], owner: f.owner.rawValue).first?.id)
            let everything = ReadScope.everything(callerBundleID: "com.apple.Health")
            // Hours and local days (the DST day lasts 23 hours), over the whole span (scanned) and
            // over two hours around the skipped one (through the index).
            let cases: [(IntervalComponents, from: Microseconds, to: Microseconds, scans: Bool)] = [
                (IntervalComponents(hours: 1), dstDay - 360 * minute, dstDay + 1_800 * minute, true),
                (IntervalComponents(days: 1), dstDay - 360 * minute, dstDay + 1_800 * minute, true),
                (IntervalComponents(hours: 1), dstDay + 90 * minute, dstDay + 200 * minute, false),
            ]
            for (interval, from, to, scans) in cases {
                let buckets = try CalendarBuckets(anchor: dstDay, components: interval, timeZone: zone, calendar: nil)
                let span = try buckets.buckets(from: from, to: to)
                let range = QueryPredicate.dateRange(DateRange(start: span[0].start, end: span[span.count - 1].end))
                XCTAssertEqual(try context.coversMostOf(typeID, owner: f.owner.rawValue, predicate: range), scans, "\(interval)")
                let (streamed, math) = try await f.collections(type, buckets: buckets, from: from, to: to, options: options,
                                                               priority: order, scope: everything, samples: expected)
                XCTAssertEqual(streamed, math, "\(interval) from \(from)")
                XCTAssertGreaterThan(streamed.filter { $0.bySource.count > 1 }.count, 0)
            }
            // The DST day's local-day bucket is 23 hours long.
            let days = try CalendarBuckets(anchor: dstDay, components: IntervalComponents(days: 1), timeZone: zone, calendar: nil)
            XCTAssertEqual(days.bucket(at: 0).end - days.bucket(at: 0).start, 23 * 60 * minute)
            // Unfiltered, the scan hands on every row in the index's order.
            XCTAssertTrue(try context.coversMostOf(typeID, owner: f.owner.rawValue, predicate: nil))
            try await expect(await f.store.statisticsSamples(owner: f.owner, type: heartRate, predicate: nil, scope: everything), expected)
            await f.store.close()
        }
    }

    /// A read in key order holds at most `statisticsSortRows` rows at once: with a cap of 7 over 360
    /// rows saved in time order (three sources in turns of five, two sharing every start, their
    /// first hours backfilled last), it cuts the type into slices and hands on exactly what the index would; with
    /// rows saved in no order the slices' key ranges overlap, and it reads through the index instead.
    func testKeyOrderReadSortsNoMoreThanItsCap() async throws {
        try await forEachEngine {
            let f = try await StoreFixture()
            let cap = 7
            func inTimeOrder(_ k: Int) -> [Sample] {
                (0..<120).map { i in
                    let start = dstDay + Int64(i * 7 + (k == 1 ? 0 : k)) * minute
                    return Sample(type: heartRate, start: start, end: start + Int64(i % 4) * minute,
                                  metadata: (i + k) % 11 == 0 ? ["HKWasUserEntered": .bool(true)] : [:],
                                  body: .quantity(Quantity(Double(50 + (i * 37 + k * 11) % 90) / 60, "count/s"), count: 1))
                }
            }
            var saved: [(sample: Sample, source: Source)] = []
            let turns = (4..<24).flatMap { part in (0..<3).map { k in (part, k) } } + (0..<4).flatMap { part in [(part, 2), (part, 0), (part, 1)] }
            for (part, k) in turns {
                let samples = Array(inTimeOrder(k)[part * 5..<(part + 1) * 5])
                try await f.save(samples, source: sources[k])
                saved += samples.map { ($0, sources[k]) }
            }
            var context = ReadContext(db: try f.connect(), registry: Registry(), anchorKey: Data())
            context.statisticsSortRows = cap
            let typeID = try XCTUnwrap(try context.resolve([heartRate], owner: f.owner.rawValue).first?.id)
            let everything = ReadScope.everything(callerBundleID: "com.apple.Health")
            let plan = try context.keyOrderPlan(owner: f.owner.rawValue, typeID: typeID, rows: cap)
            XCTAssertEqual(plan.slices.count, (saved.count + cap - 1) / cap)
            XCTAssertEqual(plan.rows, saved.count)
            XCTAssertTrue(plan.keyRangesWin, "\(plan.visits) visits")
            var read: [StatInput] = []
            let sorted = try context.statisticsSamples(owner: f.owner.rawValue, type: heartRate, predicate: nil, scope: everything, into: &read)
            XCTAssertEqual(read, inputs(saved))
            XCTAssertEqual(sorted.sortedRows, cap)
            // A date range over most of the span reads the same way, its clause applied in every slice.
            let range = DateRange(start: dstDay + 100 * minute, end: dstDay + 900 * minute)
            let most = QueryPredicate.dateRange(range)
            XCTAssertTrue(try context.coversMostOf(typeID, owner: f.owner.rawValue, predicate: most))
            read = []
            XCTAssertGreaterThan(try context.statisticsSamples(owner: f.owner.rawValue, type: heartRate, predicate: most, scope: everything, into: &read).sortedRows, 0)
            XCTAssertEqual(read, inputs(saved.filter { range.matches(start: $0.sample.start, end: $0.sample.end) }))
            // Scattered starts: every slice's key range spans nearly the whole type.
            let scattered = try await StoreFixture()
            let samples = readings(0)
            try await scattered.save(samples, source: sources[0])
            var other = ReadContext(db: try scattered.connect(), registry: Registry(), anchorKey: Data())
            other.statisticsSortRows = cap
            let otherType = try XCTUnwrap(try other.resolve([heartRate], owner: scattered.owner.rawValue).first?.id)
            XCTAssertFalse(try other.keyOrderPlan(owner: scattered.owner.rawValue, typeID: otherType, rows: cap).keyRangesWin)
            read = []
            XCTAssertEqual(try other.statisticsSamples(owner: scattered.owner.rawValue, type: heartRate, predicate: nil, scope: everything, into: &read).sortedRows, 0)
            XCTAssertEqual(read, inputs(samples.map { ($0, sources[0]) }))
            await f.store.close()
            await scattered.store.close()
        }
    }

    /// A slice's clause leaves out the date bounds its rows meet by their starts alone (a start at or
    /// after the range's start, before its end) and keeps the others; a strict end compares ends.
    func testASliceClauseLeavesOutTheDatesItsStartsMeet() throws {
        func clause(_ range: DateRange, startsWithin: ClosedRange<Microseconds>) throws -> String {
            var builder = PredicateSQL(table: .samples, dialect: .sqlite, owner: 1, types: [], timeIndexed: false, startsWithin: startsWithin)
            return try builder.clause(.dateRange(range))
        }
        let range = DateRange(start: 100, end: 200)
        XCTAssertEqual(try clause(range, startsWithin: 100...199), "TRUE")
        XCTAssertEqual(try clause(range, startsWithin: 99...199), "(+s.end_time >= ?)")
        XCTAssertEqual(try clause(range, startsWithin: 100...200), "(+s.start_time < ?)")
        XCTAssertEqual(try clause(DateRange(start: 100, end: 200, strictStart: true, strictEnd: true), startsWithin: 120...150),
                       "(+s.end_time < ?)")
    }

    /// Two sources saved one after another, each in time order (a device's first sync of its
    /// history): every slice's rows lie in two runs of anchors with the other slices' rows between
    /// them, so each slice reads its two runs — visiting no row of another slice — and the read
    /// stays in key order rather than falling back to the index.
    func testSlicesReadOnlyTheRunsOfAnchorsTheirRowsLieIn() async throws {
        try await forEachEngine {
            let f = try await StoreFixture()
            let cap = 7
            var saved: [(sample: Sample, source: Source)] = []
            for k in 0..<2 {
                let samples = (0..<63).map { i in
                    let start = dstDay + Int64(2 * i + k) * minute
                    return Sample(type: heartRate, start: start, end: start + minute,
                                  body: .quantity(Quantity(Double(60 + (i * 7 + k) % 40) / 60, "count/s"), count: 1))
                }
                try await f.save(samples, source: sources[k])
                saved += samples.map { ($0, sources[k]) }
            }
            var context = ReadContext(db: try f.connect(), registry: Registry(), anchorKey: Data())
            context.statisticsSortRows = cap
            let typeID = try XCTUnwrap(try context.resolve([heartRate], owner: f.owner.rawValue).first?.id)
            let plan = try context.keyOrderPlan(owner: f.owner.rawValue, typeID: typeID, rows: cap)
            XCTAssertEqual(plan.visits, plan.rows)
            XCTAssertEqual(plan.ranges, 2 * plan.slices.count)
            XCTAssertTrue(plan.keyRangesWin)
            var read: [StatInput] = []
            let held = try context.statisticsSamples(owner: f.owner.rawValue, type: heartRate, predicate: nil,
                                                     scope: .everything(callerBundleID: "com.apple.Health"), into: &read)
            XCTAssertEqual(read, inputs(saved))
            XCTAssertEqual(held.sortedRows, cap)
            await f.store.close()
        }
    }
}

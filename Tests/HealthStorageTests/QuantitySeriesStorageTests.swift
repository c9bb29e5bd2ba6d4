import Foundation
import HealthModel
@testable import HealthStorage
import XCTest

/// Quantity series on every engine: a builder's points are appended under the builder id, finishing
/// stores one quantity sample with that UUID (sum, or average with minimum/maximum/most recent), the
/// points are read back per sample, statistics count the points rather than the sample, and deleting
/// the sample drops its points.
final class QuantitySeriesStorageTests: StoreTestCase {
    private let t0: Microseconds = 1_700_000_000_000_000
    private let hour: Microseconds = 3_600_000_000
    private static let revision = SourceRevision(source: StoreFixture.watch, version: "1.0", productType: "Watch6,1",
                                                 osMajor: 10, osMinor: 1, osPatch: 0)

    private func bpm(_ value: Double, at offset: Microseconds) -> QuantitySeriesPoint {
        QuantitySeriesPoint(Quantity(value, "count/min"), start: t0 + offset)
    }

    private func finish(_ f: StoreFixture, _ builder: UUID, type: String, end: Microseconds? = nil,
                        metadata: Metadata = [:]) async throws -> Sample {
        try await f.store.finishQuantitySeries(owner: f.owner, builder: builder, type: type, start: t0, end: end, metadata: metadata,
                                               device: StoreFixture.watchDevice, revision: Self.revision)
    }

    @discardableResult
    private func append(_ f: StoreFixture, _ builder: UUID, type: String = StoreFixture.heartRate,
                        _ points: [QuantitySeriesPoint]) async throws -> Int {
        try await f.store.appendQuantityPoints(owner: f.owner, builder: builder, type: type, start: t0, points)
    }

    private func statInputs(_ f: StoreFixture, _ type: String) async throws -> [StatInput] {
        try await f.store.statisticsSamples(owner: f.owner, type: type, predicate: nil, scope: .everything(callerBundleID: "x"))
    }

    /// A two-hour step series whose points all lie in the first hour: hourly statistics put every step
    /// in the first hour (spreading the sample over its interval would put half in each).
    func testAStepSeriesSumsItsPointsAndStatisticsSplitByThem() async throws {
        try await forEachEngine {
            let f = try await StoreFixture()
            let builder = UUID()
            let points = (0..<120).map { i in
                QuantitySeriesPoint(Quantity(10, "count"), start: t0 + Int64(i) * 30_000_000, end: t0 + Int64(i + 1) * 30_000_000)
            }
            try await append(f, builder, type: StoreFixture.steps, Array(points[..<50]))
            let count = try await append(f, builder, type: StoreFixture.steps, Array(points[50...]))
            XCTAssertEqual(count, 120)
            let sample = try await finish(f, builder, type: StoreFixture.steps, end: t0 + 2 * hour)
            XCTAssertEqual(sample.uuid, builder)
            XCTAssertEqual(sample.body, .quantity(Quantity(1_200, "count"), count: 120))
            let storedSamples = try await f.query([StoreFixture.steps])
            let stored = try XCTUnwrap(storedSamples.first)
            XCTAssertEqual(stored, sample)
            XCTAssertEqual(stored.sourceRevision?.source, StoreFixture.watch)
            XCTAssertEqual(stored.start...stored.end, t0...t0 + 2 * hour)

            let type = try XCTUnwrap(TypeCatalog.type(StoreFixture.steps))
            let inputs = try await statInputs(f, StoreFixture.steps)
            XCTAssertEqual(inputs.count, 120, "statistics see the points, not the sample")
            let hourly = try CalendarBuckets(anchor: t0, components: IntervalComponents(hours: 1), timeZone: "UTC", calendar: nil)
            let hours = try StatisticsCalculator.collection(type: type, samples: inputs, options: .cumulativeSum, buckets: hourly,
                                                            from: t0, to: t0 + 2 * hour - 1, priority: SourcePriorityOrder())
            XCTAssertEqual(hours.map(\.sum), [Quantity(1_200, "count"), nil], "spread over the sample, each hour would get 600")

            var read: [QuantitySeriesPoint] = []
            while true {
                let page = try await f.store.quantitySeriesPoints(owner: f.owner, of: stored, from: read.count, limit: 47)
                if page.isEmpty { break }
                read += page
            }
            XCTAssertEqual(read, points)
        }
    }

    func testADiscreteSeriesKeepsAverageMinimumMaximumAndMostRecent() async throws {
        try await forEachEngine {
            let f = try await StoreFixture()
            let builder = UUID()
            try await append(f, builder, [bpm(60, at: 0), bpm(90, at: 5_000_000)])
            // Same start as the last stored point: it replaces it (HealthKit's insert rule).
            let count = try await append(f, builder, [bpm(80, at: 5_000_000), bpm(70, at: 9_000_000)])
            XCTAssertEqual(count, 3)
            let sample = try await finish(f, builder, type: StoreFixture.heartRate)
            let summary = DiscreteSeriesSummary(minimum: Quantity(60, "count/min"), maximum: Quantity(80, "count/min"),
                                                mostRecent: Quantity(70, "count/min"), mostRecentStart: t0 + 9_000_000,
                                                mostRecentEnd: t0 + 9_000_000)
            XCTAssertEqual(sample.discreteSeries, summary)
            let storedSamples = try await f.query()
            let stored = try XCTUnwrap(storedSamples.first)
            XCTAssertEqual(stored.body, .quantity(Quantity(70, "count/min"), count: 3))
            XCTAssertEqual(stored.discreteSeries, summary)
            XCTAssertEqual(stored.end, t0 + 9_000_000)

            let type = try XCTUnwrap(TypeCatalog.type(StoreFixture.heartRate))
            let statistics = try StatisticsCalculator.compute(type: type, samples: try await statInputs(f, StoreFixture.heartRate),
                                                              options: [.discreteMin, .discreteMax], priority: SourcePriorityOrder(),
                                                              unit: "count/min")
            XCTAssertEqual(try XCTUnwrap(statistics.minimum?.value), 60, accuracy: 1e-9, "the sample's average alone would give 70")
            XCTAssertEqual(try XCTUnwrap(statistics.maximum?.value), 80, accuracy: 1e-9)
        }
    }

    /// Statistics hold a page of each series whose points are still to come, not the series nor the
    /// rows after them: with pages of 3 points, two overlapping 40-point series among plain readings
    /// (some starting with a point, some before, between and after the series) reach the math in
    /// start order — a row before the points starting with it, the first series' points before the
    /// second's — through the key-order read and through the index, holding at most 6 points.
    func testStatisticsHoldAPageOfEachOpenSeries() async throws {
        try await forEachEngine {
            let f = try await StoreFixture()
            let minute: Microseconds = 60_000_000
            let canonical = try XCTUnwrap(TypeCatalog.type(StoreFixture.heartRate)?.canonicalUnit)
            let plain = (0..<30).map { k in
                let start = t0 - 10 * minute + Int64(k) * 5 * minute / 2
                return Sample(type: StoreFixture.heartRate, start: start, end: start + Int64(k % 3) * minute,
                              body: .quantity(Quantity(Double(70 + k), "count/min"), count: 1))
            }
            try await f.save(Array(plain.prefix(12)))
            let (first, second) = (UUID(), UUID())
            let firstPoints = (0..<40).map { bpm(Double(80 + $0 % 7), at: Int64($0) * minute) }
            let secondPoints = (0..<40).map { bpm(Double(90 + $0 % 5), at: Int64($0) * 3 * minute / 2) }
            try await append(f, first, firstPoints)
            try await append(f, second, secondPoints)
            _ = try await finish(f, first, type: StoreFixture.heartRate, end: t0 + hour)
            _ = try await finish(f, second, type: StoreFixture.heartRate, end: t0 + hour)
            try await f.save(Array(plain.dropFirst(12)))
            func input(_ start: Microseconds, _ end: Microseconds, _ quantity: Quantity) throws -> StatInput {
                StatInput(start: start, end: end, value: try quantity.value(in: canonical), sourceBundleID: StoreFixture.watch.bundleID,
                          sourceName: StoreFixture.watch.name, wasUserEntered: false)
            }
            let rows = try plain.map { sample in
                guard case .quantity(let quantity, _) = sample.body else { preconditionFailure("a quantity sample") }
                return try input(sample.start, sample.end, quantity)
            }
            let points = try (firstPoints + secondPoints).map { try input($0.start, $0.end, $0.quantity) }
            let expected = (rows + points).enumerated().sorted { ($0.element.start, $0.offset) < ($1.element.start, $1.offset) }.map(\.element)
            XCTAssertTrue(points.contains { point in rows.contains { $0.start == point.start } }, "a row starts with a point")

            var context = ReadContext(db: try f.connect(), registry: Registry(), anchorKey: Data())
            context.statisticsSeriesPoints = 3
            let own = ReadScope(callerBundleID: StoreFixture.watch.bundleID, readableTypes: [])
            for (scope, sorts) in [(ReadScope.everything(callerBundleID: "com.apple.Health"), true), (own, false)] {
                var read: [StatInput] = []
                let held = try context.statisticsSamples(owner: f.owner.rawValue, type: StoreFixture.heartRate, predicate: nil,
                                                         scope: scope, into: &read)
                XCTAssertEqual(read, expected, "\(scope)")
                XCTAssertEqual(held.sortedRows > 0, sorts)
                XCTAssertEqual(held.seriesPoints, 6, "a page of each series at most")
            }
            await f.store.close()
        }
    }

    func testReplacingAPointAloneInTheLastChunkKeepsTheChunksFull() async throws {
        try await forEachEngine {
            let f = try await StoreFixture()
            let builder = UUID()
            let points = (0...SeriesChunks.chunkSize).map { bpm(Double(60 + $0 % 50), at: Int64($0) * 1_000_000) }
            try await append(f, builder, points)
            let last = SeriesChunks.chunkSize * 1_000_000
            let count = try await append(f, builder, [bpm(99, at: Int64(last)), bpm(98, at: Int64(last) + 1)])
            XCTAssertEqual(count, points.count + 1)
            let read: [QuantitySeriesPoint] = try await f.store.seriesPoints(owner: f.owner, series: builder, from: 0, limit: 5_000)
            XCTAssertEqual(read, points.dropLast() + [bpm(99, at: Int64(last)), bpm(98, at: Int64(last) + 1)])
        }
    }

    func testASyncVersionReplacingASeriesDropsTheOldPoints() async throws {
        try await forEachEngine {
            let f = try await StoreFixture()
            let (old, new) = (UUID(), UUID())
            try await append(f, old, [bpm(60, at: 0), bpm(61, at: 1)])
            _ = try await finish(f, old, type: StoreFixture.heartRate, metadata: [MetadataKey.syncIdentifier: .string("hr-1"),
                                                                                  MetadataKey.syncVersion: .int(1)])
            try await append(f, new, [bpm(70, at: 0), bpm(72, at: 1), bpm(74, at: 2)])
            _ = try await finish(f, new, type: StoreFixture.heartRate, metadata: [MetadataKey.syncIdentifier: .string("hr-1"),
                                                                                  MetadataKey.syncVersion: .int(2)])
            let stored = try await f.query()
            XCTAssertEqual(stored.map(\.uuid), [new])
            let oldPoints: [QuantitySeriesPoint] = try await f.store.seriesPoints(owner: f.owner, series: old, from: 0, limit: 10)
            XCTAssertEqual(oldPoints, [])
            XCTAssertEqual(try f.count("discrete_series"), 1)
        }
    }

    func testBadPointsAreRefusedAndStoreNothing() async throws {
        try await forEachEngine {
            let f = try await StoreFixture()
            let builder = UUID()
            try await append(f, builder, [bpm(60, at: 10)])
            for (points, field) in [([bpm(61, at: 20), bpm(62, at: 5)], "quantities[1].start_time"),
                                    ([QuantitySeriesPoint(Quantity(1, "kg"), start: t0 + 30)], "quantities[0].quantity.unit")] {
                do {
                    try await append(f, builder, points)
                    XCTFail("\(field) was accepted")
                } catch let error as HealthError {
                    XCTAssertEqual(error.field, field)
                }
            }
            let points: [QuantitySeriesPoint] = try await f.store.seriesPoints(owner: f.owner, series: builder, from: 0, limit: 10)
            XCTAssertEqual(points, [bpm(60, at: 10)])
            do {
                _ = try await finish(f, UUID(), type: StoreFixture.heartRate)
                XCTFail("a builder without points finished")
            } catch let error as HealthError {
                XCTAssertEqual(error.field, "builder_id")
            }
            try await expect(try await f.query().count, 0)
        }
    }

    func testDeletingASeriesSampleDropsItsPoints() async throws {
        try await forEachEngine {
            let f = try await StoreFixture()
            let builder = UUID()
            try await append(f, builder, [bpm(60, at: 0), bpm(62, at: 1_000_000)])
            _ = try await finish(f, builder, type: StoreFixture.heartRate)
            XCTAssertEqual(try f.count("discrete_series"), 1)
            let deleted = try await f.store.deleteObjects(uuids: [builder], by: Deleter(owner: f.owner, bundleID: "", isOwner: true))
            XCTAssertEqual(deleted, 1)
            XCTAssertEqual(try f.count("series_chunks"), 0)
            XCTAssertEqual(try f.count("discrete_series"), 0)
        }
    }

    func testAStoreFromStep11OpensAndStoresADiscreteSeries() async throws {
        let f = try await StoreFixture()
        try await f.reopenFromStep(11)
        let builder = UUID()
        try await append(f, builder, [bpm(60, at: 0), bpm(70, at: 1)])
        let sample = try await finish(f, builder, type: StoreFixture.heartRate)
        let stored = try await f.query()
        XCTAssertEqual(stored.map(\.discreteSeries), [sample.discreteSeries])
        await f.store.close()
    }

    func testAnOrdinarySampleReadsAsOnePoint() async throws {
        try await forEachEngine {
            let f = try await StoreFixture()
            try await f.save([StoreFixture.heartRate(t0, t0 + 5, bpm: 64)])
            let samples = try await f.query()
            let sample = try XCTUnwrap(samples.first)
            let points = try await f.store.quantitySeriesPoints(owner: f.owner, of: sample, from: 0, limit: 10)
            XCTAssertEqual(points, [QuantitySeriesPoint(Quantity(64, "count/min"), start: t0, end: t0 + 5)])
            try await expect(try await f.store.quantitySeriesPoints(owner: f.owner, of: sample, from: 1, limit: 10), [])
            XCTAssertNil(sample.discreteSeries)
        }
    }
}

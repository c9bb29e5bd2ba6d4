import Foundation
import HealthModel
@testable import HealthStorage
import XCTest

/// The statistics fetch hands rows to the math as it reads them: on every engine, a collection built
/// from the fetch's buckets equals one computed from the saved samples themselves, merged by source
/// priority with user entries, instants and a quantity series' points, and a read-restricted caller's
/// buckets hold only its own rows.
final class StatisticsFetchTests: StoreTestCase {
    private let t0: Microseconds = 1_700_000_000_000_000
    private let minute: Microseconds = 60_000_000
    private let steps = StoreFixture.steps
    private let sources = [StoreFixture.watch, StoreFixture.scale, Source(name: "Phone", bundleID: "com.example.phone")]

    /// 120 scattered step samples of source `k` over six hours: overlapping, some instants, some user-entered.
    private func scatteredSteps(_ k: Int) -> [Sample] {
        (0..<120).map { i in
            let start = t0 + Int64((i * 7_919 + k * 104_729) % 21_600) * 1_000_000
            let length = (i + k) % 5 == 0 ? 0 : Int64((i * 13 + k) % 90 + 1) * 20_000_000
            let metadata: Metadata = (i + 2 * k) % 9 == 0 ? ["HKWasUserEntered": .bool(true)] : [:]
            return Sample(type: steps, start: start, end: start + length, metadata: metadata,
                          body: .quantity(Quantity(Double((i * 37 + k) % 400 + 1), "count"), count: 1))
        }
    }

    /// What the fetch must hand on: the readable samples in start order (ties in save order), a
    /// series as its points after the rows starting with them.
    private func reference(_ saved: [(Sample, Source)], points: [StatInput]) -> [StatInput] {
        let rows = saved.enumerated().sorted { ($0.element.0.start, $0.offset) < ($1.element.0.start, $1.offset) }.map { _, pair in
            let (sample, source) = pair
            guard case .quantity(let quantity, _) = sample.body else { preconditionFailure("a quantity sample") }
            return StatInput(start: sample.start, end: sample.end, value: quantity.value, sourceBundleID: source.bundleID,
                             sourceName: source.name, wasUserEntered: sample.metadata["HKWasUserEntered"] == .bool(true))
        }
        return (rows + points).enumerated().sorted { ($0.element.start, $0.offset) < ($1.element.start, $1.offset) }.map(\.element)
    }

    func testCollectionsFromTheStreamedFetchEqualTheSavedSamplesMath() async throws {
        try await forEachEngine {
            let f = try await StoreFixture()
            var saved: [(Sample, Source)] = []
            for (k, source) in sources.enumerated() {
                let samples = scatteredSteps(k)
                try await f.save(samples, source: source)
                saved += samples.map { ($0, source) }
            }
            // A series from the watch (minute points over the second and third hour): the rows after
            // its start are held back and merged with its points.
            let builder = UUID()
            let points = (0..<120).map { i in
                QuantitySeriesPoint(Quantity(Double(10 + i % 7), "count"), start: t0 + (60 + Int64(i)) * minute,
                                    end: t0 + (61 + Int64(i)) * minute)
            }
            _ = try await f.store.appendQuantityPoints(owner: f.owner, builder: builder, type: steps, start: t0 + 60 * minute, points)
            _ = try await f.store.finishQuantitySeries(owner: f.owner, builder: builder, type: steps, start: t0 + 60 * minute,
                                                       end: t0 + 180 * minute, metadata: [:], device: nil,
                                                       revision: f.batch([]).revision)
            let pointInputs = points.map {
                StatInput(start: $0.start, end: $0.end, value: $0.quantity.value, sourceBundleID: StoreFixture.watch.bundleID,
                          sourceName: StoreFixture.watch.name)
            }
            try await f.store.setSourcePriority(owner: f.owner, type: steps, bundleIDs: [sources[2].bundleID, sources[0].bundleID])
            let order = SourcePriorityOrder(ordered: try await f.store.sourcePriority(owner: f.owner, type: steps),
                                            firstSeen: Dictionary(try await f.store.sourcesFirstSeen(owner: f.owner, type: steps)
                                                .map { ($0.0.bundleID, $0.1) }, uniquingKeysWith: min))
            let type = try XCTUnwrap(TypeCatalog.type(steps))
            let everything = ReadScope.everything(callerBundleID: "com.apple.Health")
            let expected = reference(saved, points: pointInputs)
            try await expect(await f.store.statisticsSamples(owner: f.owner, type: steps, predicate: nil, scope: everything), expected)

            let options: StatisticsOptions = [.cumulativeSum, .separateBySource]
            for minutes in [10, 60] {
                let buckets = try CalendarBuckets(anchor: t0, components: IntervalComponents(minutes: minutes), timeZone: "UTC", calendar: nil)
                let (from, to) = (t0 + 5 * minute, t0 + 400 * minute)
                let (streamed, math) = try await f.collections(type, buckets: buckets, from: from, to: to, options: options,
                                                               priority: order, scope: everything, samples: expected)
                XCTAssertEqual(streamed, math, "\(minutes)-minute buckets")
                XCTAssertGreaterThan(streamed.compactMap(\.sum).count, streamed.count / 2)

                // A caller that may not read steps sees its own rows only.
                let phone = ReadScope(callerBundleID: sources[2].bundleID, readableTypes: [])
                let own = try await f.collections(type, buckets: buckets, from: from, to: to, options: options, priority: order, scope: phone,
                                                  samples: expected.filter { $0.sourceBundleID == sources[2].bundleID })
                XCTAssertEqual(own.fetched, own.math)
            }
            await f.store.close()
        }
    }
}

extension StoreFixture {
    /// A collection of `type` over `from`…`to` built from the store's streamed fetch as `scope` reads
    /// it, and the same collection computed by the math from `samples` (what the fetch must hand on).
    func collections(_ type: HealthType, buckets: CalendarBuckets, from: Microseconds, to: Microseconds, options: StatisticsOptions,
                     priority: SourcePriorityOrder, scope: ReadScope, samples: [StatInput]) async throws -> (fetched: [Statistics], math: [Statistics]) {
        let span = try buckets.buckets(from: from, to: to)
        let range = QueryPredicate.dateRange(DateRange(start: span[0].start, end: span[span.count - 1].end))
        let grouped = try await store.statisticsSamples(owner: owner, type: type.identifier, predicate: range, scope: scope,
                                                        into: BucketedStatInputs(span))
        return (try StatisticsCalculator.collection(type: type, grouped: grouped, options: options, priority: priority),
                try StatisticsCalculator.collection(type: type, samples: samples, options: options, buckets: buckets, from: from, to: to,
                                                    priority: priority))
    }
}

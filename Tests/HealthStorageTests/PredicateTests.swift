import Foundation
import HealthModel
@testable import HealthStorage
import XCTest

/// Every predicate leaf and date-range strictness combination, on boundary cases, against HealthModel's
/// in-memory evaluator (the reference semantics).
final class PredicateTests: StoreTestCase {
    static let bandDevice = Device(name: "Band", manufacturer: "Other", model: "B2", localIdentifier: "L1")

    /// Intervals around S = 100 s and E = 200 s: touching, inside, instantaneous at each edge, spanning, outside.
    static let intervals: [(Int64, Int64)] = [(90, 100), (90, 99), (100, 100), (100, 150), (150, 200), (199, 200),
                                              (200, 200), (200, 210), (90, 210), (50, 60), (250, 300), (101, 199)]

    private func makeStore() async throws -> (StoreFixture, [Sample]) {
        let f = try await StoreFixture()
        var watchSamples: [Sample] = [], bandSamples: [Sample] = []
        for (index, (start, end)) in Self.intervals.enumerated() {
            let metadata: Metadata = [
                "i": .int(Int64(index)),
                "name": .string(index % 2 == 0 ? "even" : "odd"),
                "when": .date(s(Int64(index) * 10)),
                "dose": .quantity(Quantity(Double(index) * 100, "count/min")),
            ].filter { _ in index % 4 != 3 }
            watchSamples.append(StoreFixture.heartRate(s(start), s(end), bpm: Double(40 + index * 10), metadata: metadata))
            bandSamples.append(Sample(type: StoreFixture.sleep, start: s(start), end: s(end), metadata: ["i": .double(Double(index) + 0.5)],
                                      device: index % 3 == 0 ? Self.bandDevice : nil, body: .category(Int64(index % 6))))
        }
        try await f.save(watchSamples)
        _ = try await f.store.save(f.batch(bandSamples, source: StoreFixture.scale, version: "2.0", device: nil))
        let stored = try await f.query([StoreFixture.heartRate, StoreFixture.sleep])
        XCTAssertEqual(stored.count, Self.intervals.count * 2)
        return (f, stored)
    }

    static var leaves: [QueryPredicate] {
        var leaves: [QueryPredicate] = []
        for start in [nil, s(100)] as [Int64?] {
            for end in [nil, s(200)] as [Int64?] {
                for strictStart in [false, true] {
                    for strictEnd in [false, true] {
                        leaves.append(.dateRange(DateRange(start: start, end: end, strictStart: strictStart, strictEnd: strictEnd)))
                    }
                }
            }
        }
        leaves += [
            .sources([StoreFixture.scale.bundleID]), .sources([]), .sources(["nobody"]),
            .sourceRevisions([SourceRevisionPattern(bundleID: StoreFixture.watch.bundleID)]),
            .sourceRevisions([SourceRevisionPattern(bundleID: StoreFixture.scale.bundleID, version: "1.0")]),
            .sourceRevisions([SourceRevisionPattern(bundleID: StoreFixture.watch.bundleID, version: "1.0", productType: "Watch6,1", osVersion: [10, 1, 0])]),
            .sourceRevisions([SourceRevisionPattern(bundleID: StoreFixture.watch.bundleID, osVersion: [10, 2, 0])]),
            .devices([Device(model: "W1")]), .devices([Device()]), .devices([Device(model: "B2", localIdentifier: "L1"), Device(name: "none")]),
            .deviceProperty(.manufacturer, ["Other"]), .deviceProperty(.localIdentifier, ["L1", "x"]), .deviceProperty(.firmwareVersion, ["1"]),
            .metadataExists(key: "i"), .metadataExists(key: "dose"), .metadataExists(key: "absent"),
            .metadataIn(key: "name", [.string("odd"), .int(3)]), .metadataIn(key: "i", [.int(2), .double(4.5), .double(5)]),
            .noCorrelation,
            .categoryValueIn([0, 2, 9]),
        ]
        for op in ComparisonOperator.allCases {
            leaves += [
                .metadataCompare(key: "i", op, .int(5)),
                .metadataCompare(key: "i", op, .double(5.5)),
                .metadataCompare(key: "name", op, .string("even")),
                .metadataCompare(key: "when", op, .date(s(50))),
                .metadataCompare(key: "dose", op, .quantity(Quantity(5, "count/s"))),
                .metadataCompare(key: "name", op, .int(1)),
                .quantity(op, Quantity(100, "count/min")),
                .quantity(op, Quantity(1.5, "count/s")),
                .quantity(op, Quantity(3, "kg")),
                .categoryValue(op, 2),
            ]
        }
        return leaves
    }

    func testEveryLeafMatchesTheEvaluator() async throws {
        try await forEachEngine {
            let (f, stored) = try await makeStore()
            for leaf in Self.leaves {
                try await assertSameAsEvaluator(leaf, f, stored)
            }
            await f.store.close()
        }
    }

    func testCompoundsAndNegationsMatchTheEvaluator() async throws {
        try await forEachEngine {
            let (f, stored) = try await makeStore()
            let leaves = Self.leaves
            for (index, leaf) in leaves.enumerated() {
                let other = leaves[(index * 7 + 3) % leaves.count]
                try await assertSameAsEvaluator(.not(leaf), f, stored)
                try await assertSameAsEvaluator(.allOf([leaf, other]), f, stored)
                try await assertSameAsEvaluator(.anyOf([leaf, .not(other)]), f, stored)
            }
            try await assertSameAsEvaluator(.allOf([]), f, stored)
            try await assertSameAsEvaluator(.anyOf([]), f, stored)
            await f.store.close()
        }
    }

    func testUUIDPredicate() async throws {
        try await forEachEngine {
            let (f, stored) = try await makeStore()
            let some = Set(stored.prefix(5).map(\.uuid) + [UUID()])
            try await assertSameAsEvaluator(.uuids(some), f, stored)
            try await assertSameAsEvaluator(.uuids([]), f, stored)
            await f.store.close()
        }
    }

    func testSortAndLimit() async throws {
        try await forEachEngine {
            let (f, stored) = try await makeStore()
            let types = [StoreFixture.heartRate, StoreFixture.sleep]
            for descriptor in [SampleSortDescriptor(.startDate), SampleSortDescriptor(.startDate, descending: true),
                               SampleSortDescriptor(.endDate), SampleSortDescriptor(.endDate, descending: true)] {
                func key(_ sample: Sample) -> Int64 { descriptor.key == .startDate ? sample.start : sample.end }
                // Ties keep store order (the order saved).
                let expected = stored.enumerated().sorted { a, b in
                    key(a.element) != key(b.element) ? (descriptor.descending ? key(a.element) > key(b.element) : key(a.element) < key(b.element))
                        : a.offset < b.offset
                }.map(\.element.uuid)
                for limit in [0, 1, 5] {
                    let found = try await f.query(types, sort: [descriptor], limit: limit).map(\.uuid)
                    XCTAssertEqual(found, limit == 0 ? expected : Array(expected.prefix(limit)), "\(descriptor) limit \(limit)")
                }
            }
            // The latest sample: limit 1, end date descending, within a range.
            let range = QueryPredicate.dateRange(DateRange(start: s(100), end: s(200)))
            let latest = try await f.query([StoreFixture.heartRate], range, sort: [SampleSortDescriptor(.endDate, descending: true)], limit: 1)
            XCTAssertEqual(latest.first?.end, s(210))
            await f.store.close()
        }
    }

    private func assertSameAsEvaluator(_ predicate: QueryPredicate, _ f: StoreFixture, _ stored: [Sample],
                                       line: UInt = #line) async throws {
        let expected = stored.filter { predicate.matches($0) }.map(\.uuid)
        let found = try await f.query([StoreFixture.heartRate, StoreFixture.sleep], predicate).map(\.uuid)
        XCTAssertEqual(Set(found), Set(expected), "\(predicate)", line: line)
        XCTAssertEqual(found.count, expected.count, "duplicates for \(predicate)", line: line)
    }
}

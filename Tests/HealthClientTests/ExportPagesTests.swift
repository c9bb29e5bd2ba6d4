import Foundation
import HealthClient
import HealthModel
import Synchronization
import XCTest
@testable import healthctl

/// ExportPages reads several types and pages ahead of the writer; what it hands on must still be every
/// page, type by type in the order asked and each type's pages in anchor order, with bounded look-ahead.
final class ExportPagesTests: XCTestCase {
    /// A store of `counts[type]` samples per type, read in pages of `pageSize` after an anchor that is
    /// the position reached; each read takes a random while, so answers arrive out of order.
    private final class PagedStore: Sendable {
        let pageSize: Int
        let counts: [String: Int]
        let samples: [String: [Sample]]
        /// Pages read and not yet handed on by ExportPages, and the most there ever were.
        let held = Mutex((now: 0, most: 0))
        let reads = Mutex<[String: [Int]]>([:])

        init(pageSize: Int, counts: [String: Int]) {
            self.pageSize = pageSize
            self.counts = counts
            samples = counts.mapValues { count in
                (0..<count).map { i in
                    Sample(type: "HKQuantityTypeIdentifierHeartRate", start: Microseconds(i), end: Microseconds(i),
                           body: .quantity(Quantity(Double(i), "count/min"), count: 1))
                }
            }
        }

        func fetch(_ type: String, _ anchor: Data?) async throws -> AnchoredBatch {
            try await Task.sleep(for: .milliseconds(Int.random(in: 0...5)))
            let from = anchor.map { Int(String(decoding: $0, as: UTF8.self))! } ?? 0
            reads.withLock { $0[type, default: []].append(from) }
            held.withLock { $0.now += 1; $0.most = max($0.most, $0.now) }
            let page = Array(samples[type]![from..<min(from + pageSize, counts[type]!)])
            return AnchoredBatch(samples: page, anchor: Data(String(from + page.count).utf8))
        }

        func handedOn() { held.withLock { $0.now -= 1 } }
    }

    func testEveryPageComesOutTypeByTypeInAnchorOrderWhileReadsRunAhead() async throws {
        let types = ["a", "b", "c", "d", "e"]
        // A type of exactly one full page ends with an empty page; an empty type with one empty page.
        let store = PagedStore(pageSize: 3, counts: ["a": 10, "b": 0, "c": 3, "d": 7, "e": 1])
        var pages = ExportPages(types: types, pageSize: store.pageSize, depth: 2, types: 2, fetch: store.fetch)
        var handed: [String: [Sample]] = [:]
        var order: [String] = []
        while let page = try await pages.next() {
            store.handedOn()
            handed[page.type, default: []] += page.batch.samples
            if order.last != page.type { order.append(page.type) }
            // The writer is slow: the reads run ahead meanwhile.
            try await Task.sleep(for: .milliseconds(2))
        }
        XCTAssertEqual(order, types, "each type once, in the order asked")
        XCTAssertEqual(handed, store.samples, "every sample, in anchor order")
        XCTAssertEqual(store.reads.withLock { $0 }, ["a": [0, 3, 6, 9], "b": [0], "c": [0, 3], "d": [0, 3, 6], "e": [0]],
                       "each page read once, nothing past a type's last page")
        XCTAssertLessThanOrEqual(store.held.withLock { $0.most }, 2 * (2 + 1), "at most depth pages ahead of the one handed on, for each of two types")
        XCTAssertGreaterThan(store.held.withLock { $0.most }, 1, "pages were read ahead of the writer")
    }

    func testAFailedReadIsThrownInItsPlace() async throws {
        struct Refused: Error {}
        var pages = ExportPages(types: ["a", "b"], pageSize: 2, depth: 2, types: 2) { type, anchor in
            if type == "b" { throw Refused() }
            return AnchoredBatch(samples: [], anchor: Data([1]))
        }
        let first = try await pages.next()
        XCTAssertEqual(first?.type, "a")
        XCTAssertEqual(first?.last, true)
        do {
            _ = try await pages.next()
            XCTFail("the read of b failed")
        } catch {
            XCTAssertTrue(error is Refused)
        }
    }
}

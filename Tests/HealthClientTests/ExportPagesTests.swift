import Foundation
import HealthClient
import HealthModel
import Synchronization
import XCTest
@testable import healthctl

/// ExportPages reads every type in one streamed anchored answer: what it hands on must be every
/// sample once in anchor order, also when the read is cut off by a lost connection and goes on from
/// the last sample handed on.
final class ExportPagesTests: XCTestCase {
    private static func samples(_ count: Int) -> [Sample] {
        (0..<count).map { i in
            Sample(type: "HKQuantityTypeIdentifierHeartRate", start: Microseconds(i), end: Microseconds(i),
                   body: .quantity(Quantity(Double(i), "count/min"), count: 1))
        }
    }

    /// `samples` after the one whose anchor is `anchor` (its index; nil: from the first) in pages of
    /// `pageSize`, each carrying its last sample's anchor; with `failingAfter`, the connection is lost
    /// after that many pages.
    private static func answer(_ samples: [Sample], after anchor: Data? = nil, pageSize: Int,
                               failingAfter: Int? = nil) -> AsyncThrowingStream<AnchoredBatch, any Error> {
        let start = anchor.map { Int(String(decoding: $0, as: UTF8.self))! + 1 } ?? 0
        let pages = stride(from: start, to: max(samples.count, start + 1), by: pageSize).map { first in
            let end = min(first + pageSize, samples.count)
            return AnchoredBatch(samples: Array(samples[first..<end]), lastSampleAnchor: end > first ? Data(String(end - 1).utf8) : Data())
        }
        return AsyncThrowingStream { continuation in
            for (index, page) in pages.enumerated() {
                if index == failingAfter { return continuation.finish(throwing: HealthError(.unavailable, "connection lost")) }
                continuation.yield(page)
            }
            continuation.finish()
        }
    }

    /// Every sample `pages` hands on, in order, with whether its page was resumed.
    private static func handedOn(_ pages: inout ExportPages) async throws -> [(sample: Sample, resumed: Bool)] {
        var handed: [(sample: Sample, resumed: Bool)] = []
        while let page = try await pages.next() { handed += page.batch.samples.map { ($0, page.resumed) } }
        return handed
    }

    func testEveryPageIsHandedOnOnceInAnchorOrderFromOneRead() async throws {
        let stored = Self.samples(10)
        let reads = Mutex<[Data?]>([])
        var pages = ExportPages { anchor in
            reads.withLock { $0.append(anchor) }
            return AsyncThrowingStream { continuation in
                // An empty page (a part of the read with nothing of the types asked) is passed over.
                continuation.yield(AnchoredBatch(samples: Array(stored[0..<4]), lastSampleAnchor: Data("3".utf8)))
                continuation.yield(AnchoredBatch())
                continuation.yield(AnchoredBatch(samples: Array(stored[4...]), lastSampleAnchor: Data("9".utf8)))
                continuation.finish()
            }
        }
        let handed = try await Self.handedOn(&pages)
        XCTAssertEqual(handed.map(\.sample.uuid), stored.map(\.uuid), "every sample once, in anchor order")
        XCTAssertFalse(handed.contains { $0.resumed })
        XCTAssertEqual(reads.withLock { $0 }, [nil], "one read of every type")
        let after = try await pages.next()
        XCTAssertNil(after, "done stays done")
    }

    func testAReadCutOffByALostConnectionGoesOnFromTheLastSampleHandedOn() async throws {
        let stored = Self.samples(10)
        let reads = Mutex<[String?]>([])
        var pages = ExportPages { anchor in
            let n = reads.withLock { $0.append(anchor.map { String(decoding: $0, as: UTF8.self) }); return $0.count }
            // Cut off after 2 pages (6 samples), then within the first page of the read again.
            return n == 1 ? Self.answer(stored, pageSize: 3, failingAfter: 2)
                : Self.answer(stored, after: anchor, pageSize: 2, failingAfter: n == 2 ? 1 : nil)
        }
        let handed = try await Self.handedOn(&pages)
        XCTAssertEqual(handed.map(\.sample.uuid), stored.map(\.uuid), "every sample once, in anchor order")
        XCTAssertEqual(handed.map(\.resumed), Array(repeating: false, count: 6) + Array(repeating: true, count: 4),
                       "the pages of a read again are marked resumed")
        XCTAssertEqual(reads.withLock { $0 }, [nil, "5", "7"], "each read again goes on after the last sample handed on")
    }

    func testAReadCutOffAfterPagesThatDoNotSayWhereTheyEndFails() async throws {
        let reads = Mutex(0)
        var pages = ExportPages { _ in
            reads.withLock { $0 += 1 }
            return AsyncThrowingStream { continuation in
                continuation.yield(AnchoredBatch(samples: Self.samples(3)))
                continuation.finish(throwing: HealthError(.unavailable, "connection lost"))
            }
        }
        do {
            _ = try await Self.handedOn(&pages)
            XCTFail("an older server's read cannot go on where it stopped")
        } catch let error as HealthError {
            XCTAssertEqual(error.code, .unavailable)
            XCTAssertTrue(error.message.contains("export again"), error.message)
        }
        XCTAssertEqual(reads.withLock { $0 }, 1, "not read again from the start")
    }

    func testAConnectionLostAgainAndAgainWithoutAPageEndsTheExport() async throws {
        let reads = Mutex(0)
        var pages = ExportPages { _ in
            reads.withLock { $0 += 1 }
            return Self.answer(Self.samples(3), pageSize: 3, failingAfter: 0)
        }
        do {
            _ = try await Self.handedOn(&pages)
            XCTFail("every read failed")
        } catch let error as HealthError {
            XCTAssertEqual(error.code, .unavailable)
        }
        XCTAssertEqual(reads.withLock { $0 }, 1 + ExportPages.rereads)
    }

    func testAnotherFailureIsThrownInItsPlace() async throws {
        struct Refused: Error {}
        var pages = ExportPages { _ in
            AsyncThrowingStream { continuation in
                continuation.yield(AnchoredBatch(samples: Self.samples(1), lastSampleAnchor: Data("0".utf8)))
                continuation.finish(throwing: Refused())
            }
        }
        let first = try await pages.next()
        XCTAssertEqual(first?.batch.samples.count, 1)
        do {
            _ = try await pages.next()
            XCTFail("the read failed")
        } catch {
            XCTAssertTrue(error is Refused)
        }
    }

    /// After a cut, a sample written before it and saved again meanwhile (its app's sync identifier
    /// under a new UUID) and a workout or correlation written before it and changed meanwhile (its
    /// UUID) are not written again, as an uninterrupted export would not; samples first met after the
    /// cut are.
    func testAResumedReadLeavesOutWhatWasWrittenBeforeTheCut() throws {
        func reading(_ identifier: String, version: Int64) -> Sample {
            Sample(type: "HKQuantityTypeIdentifierHeartRate", start: 0, end: 0,
                   metadata: [MetadataKey.syncIdentifier: .string(identifier), MetadataKey.syncVersion: .int(version)],
                   body: .quantity(Quantity(60, "count/min"), count: 1))
        }
        func workout(_ uuid: UUID, activity: Int32) -> Sample {
            Sample(uuid: uuid, type: "HKWorkoutTypeIdentifier", start: 0, end: 1, body: .workout(Workout(activityType: activity)))
        }
        func pressure(_ uuid: UUID, systolic: Double) -> Sample {
            let child = Sample(type: "HKQuantityTypeIdentifierBloodPressureSystolic", start: 0, end: 0,
                               body: .quantity(Quantity(systolic, "mmHg"), count: 1))
            return Sample(uuid: uuid, type: "HKCorrelationTypeIdentifierBloodPressure", start: 0, end: 0, body: .correlation([child]))
        }
        func page(resumed: Bool) -> ExportPages.Page { ExportPages.Page(batch: AnchoredBatch(), resumed: resumed) }
        let plain = Self.samples(2)
        let (run, measured) = (UUID(), UUID())
        var once = WrittenOnce()
        for sample in [reading("a", version: 1), workout(run, activity: 37), pressure(measured, systolic: 120), plain[0]] {
            XCTAssertTrue(try once.admit(sample, from: page(resumed: false)))
        }
        XCTAssertFalse(try once.admit(reading("a", version: 2), from: page(resumed: true)), "saved again with a greater sync version")
        XCTAssertFalse(try once.admit(workout(run, activity: 52), from: page(resumed: true)), "a workout changed")
        XCTAssertFalse(try once.admit(pressure(measured, systolic: 130), from: page(resumed: true)), "a correlation changed")
        XCTAssertTrue(try once.admit(reading("b", version: 1), from: page(resumed: true)), "first met after the cut")
        XCTAssertTrue(try once.admit(workout(UUID(), activity: 37), from: page(resumed: true)), "first met after the cut")
        XCTAssertTrue(try once.admit(plain[1], from: page(resumed: true)), "a plain sample")
    }

    /// What is remembered stays within the limit however many samples could come again;
    /// past it a resumed read cannot tell a sample written already from one first met, so the
    /// export stops at the first such sample rather than write one twice (plain samples still pass).
    func testWhatIsRememberedIsBoundedAndAResumedReadPastTheBoundStops() throws {
        func reading(_ identifier: String) -> Sample {
            Sample(type: "HKQuantityTypeIdentifierHeartRate", start: 0, end: 0,
                   metadata: [MetadataKey.syncIdentifier: .string(identifier), MetadataKey.syncVersion: .int(1)],
                   body: .quantity(Quantity(60, "count/min"), count: 1))
        }
        func page(resumed: Bool) -> ExportPages.Page { ExportPages.Page(batch: AnchoredBatch(), resumed: resumed) }
        var once = WrittenOnce(limit: 3)
        for i in 0..<10 {
            XCTAssertTrue(try once.admit(reading("r\(i)"), from: page(resumed: false)))
            XCTAssertLessThanOrEqual(once.remembered, 3)
        }
        XCTAssertTrue(try once.admit(Self.samples(1)[0], from: page(resumed: true)), "a plain sample cannot come again")
        XCTAssertThrowsError(try once.admit(reading("r0"), from: page(resumed: true))) { error in
            XCTAssertEqual((error as? HealthError)?.code, .unavailable)
        }
        XCTAssertThrowsError(try once.admit(reading("r9"), from: page(resumed: true)), "not remembered: it may have been written")
    }
}

import Foundation
import HealthModel
@testable import HealthStorage
import Synchronization
import XCTest

/// A streamed anchored read cut into ranges of anchors that two reader threads read, each on its
/// own connection: the answer is still one snapshot's, in anchor order, with its deletions and only
/// what the caller may see.
final class AnchoredScanTests: StoreTestCase {
    private let everything = ReadScope.everything(callerBundleID: "x")
    private let types = [StoreFixture.heartRate, StoreFixture.sleep, StoreFixture.bloodPressure, StoreFixture.steps]

    /// 300 samples of four types from two sources, a correlation and rows with metadata among them,
    /// 40 of them deleted.
    private func fill(_ f: StoreFixture) async throws {
        var samples: [Sample] = []
        for i in 0..<150 {
            samples.append(StoreFixture.heartRate(s(Int64(i) * 10), bpm: Double(60 + i % 30),
                                                  metadata: i % 37 == 0 ? ["note": .string("n\(i)")] : [:]))
            samples.append(i % 2 == 0 ? StoreFixture.sleep(s(Int64(i) * 10), s(Int64(i) * 10 + 5), value: Int64(i % 3))
                           : Sample(type: StoreFixture.steps, start: s(Int64(i) * 10), end: s(Int64(i) * 10 + 9), body: .quantity(Quantity(Double(i), "count"), count: 1)))
        }
        samples.insert(Sample(type: StoreFixture.bloodPressure, start: s(77), end: s(77), body: .correlation([
            Sample(type: StoreFixture.systolic, start: s(77), end: s(77), body: .quantity(Quantity(120, "mmHg"), count: 1)),
            Sample(type: StoreFixture.diastolic, start: s(77), end: s(77), body: .quantity(Quantity(80, "mmHg"), count: 1)),
        ])), at: 100)
        try await f.save(Array(samples[..<200]))
        try await f.save(Array(samples[200...]), source: StoreFixture.scale)
        let gone = stride(from: 3, to: 300, by: 7).map { samples[$0].uuid }.prefix(40)
        _ = try await f.store.deleteObjects(uuids: Array(gone), by: Deleter(owner: f.owner, bundleID: "x", isOwner: true))
    }

    func testStreamedSyncInRangesEqualsQuerySamplesForEveryCaller() async throws {
        try await checkStreamedSync(types)
    }

    /// Every stored type (the readings too) asked for: on PostgreSQL one statement reads them all in
    /// anchor order through `samples_by_anchor`, in pages of the part's rows.
    func testStreamedSyncOfEveryStoredTypeEqualsQuerySamplesForEveryCaller() async throws {
        try await checkStreamedSync(types + [StoreFixture.systolic, StoreFixture.diastolic])
    }

    private func checkStreamedSync(_ types: [String]) async throws {
        try await forEachEngine {
            let f = try await StoreFixture()
            try await fill(f)
            let middle = try await f.store.queryAnchored(owner: f.owner, types: types, predicate: nil, anchor: nil, limit: 120, scope: everything)
            let ownOnly = ReadScope(callerBundleID: StoreFixture.scale.bundleID, readableTypes: [StoreFixture.sleep])
            for (scope, anchor) in [(everything, nil), (everything, middle.newAnchor), (ownOnly, nil)] {
                let whole = try await f.store.queryAnchored(owner: f.owner, types: types, predicate: nil, anchor: anchor, limit: 0, scope: scope)
                if anchor == nil {
                    let queried = try await f.store.querySamples(owner: f.owner, types: types, predicate: nil, sort: [], limit: 0, scope: scope)
                    XCTAssertEqual(Array(whole.samples), queried)
                    if scope.readableTypes == nil {
                        // A page cut by the limit and the rest after its anchor make the whole.
                        let rest = try await f.store.queryAnchored(owner: f.owner, types: types, predicate: nil, anchor: middle.newAnchor,
                                                                   limit: 0, scope: scope)
                        XCTAssertEqual(Array(middle.samples) + Array(rest.samples), Array(whole.samples))
                    }
                }
                // Parts of 1 and 3 rows make ranges of 16 and 48 anchors: many ranges for two threads.
                for partRows in [1, 3, 2048] {
                    let stream = try await f.store.streamAnchored(owner: f.owner, types: types, predicate: nil, anchor: anchor, limit: 0,
                                                                  scope: scope, partRows: partRows)
                    var streamed: [Sample] = []
                    var resumeAt: [(row: Int, anchor: Data)] = []
                    for try await part in stream.samples {
                        resumeAt += [0, part.samples.count - 1].map { (streamed.count + $0, part.anchor(ofRow: $0)) }
                        streamed += Array(part.samples)
                    }
                    XCTAssertEqual(streamed, Array(whole.samples), "parts of \(partRows), \(scope)")
                    // A read from a row's anchor goes on with the samples after it, whichever part it ends or starts.
                    for (row, anchor) in resumeAt where partRows > 1 || row % 50 == 0 {
                        let rest = try await f.store.queryAnchored(owner: f.owner, types: types, predicate: nil, anchor: anchor, limit: 0, scope: scope)
                        XCTAssertEqual(rest.samples.map(\.uuid), streamed[(row + 1)...].map(\.uuid), "after row \(row), parts of \(partRows)")
                    }
                    // A limited answer is one part, its rows' anchors alike.
                    let limited = try await f.store.streamAnchored(owner: f.owner, types: types, predicate: nil, anchor: anchor, limit: 120,
                                                                   scope: scope, partRows: partRows)
                    for try await part in limited.samples {
                        let row = part.samples.count - 1
                        let rest = try await f.store.queryAnchored(owner: f.owner, types: types, predicate: nil, anchor: part.anchor(ofRow: row),
                                                                   limit: 0, scope: scope)
                        XCTAssertEqual(rest.samples.map(\.uuid), streamed[(row + 1)...].map(\.uuid), "after the limited answer's last sample")
                    }
                    XCTAssertEqual(stream.head.deleted.map(\.uuid), whole.deleted.map(\.uuid))
                    XCTAssertEqual(stream.head.newAnchor, whole.newAnchor)
                }
            }
            await f.store.close()
        }
    }

    /// A second connection reads ranges only while its snapshot is the head's: opened after a
    /// commit to the owner, it reads nothing, and the answer is still the head's snapshot. A purge of
    /// tombstones between leaves the last anchor, and the samples, as they were: it helps, and the
    /// answer is the same.
    func testAHelperReadsOnlyInTheHeadsSnapshot() async throws {
        try await forEachEngine {
            let f = try await StoreFixture()
            try await fill(f)
            let key = try f.anchorKey()
            let first = ReadContext(db: try f.connect(), registry: Registry(), anchorKey: key)
            for between in [nil, "a commit", "a purge"] {
                let commitBetween = between == "a commit"
                let before = try await f.store.queryAnchored(owner: f.owner, types: types, predicate: nil, anchor: nil, limit: 0, scope: everything)
                let delivered = Mutex<[Sample]>([])
                let ended = Mutex<Int>(0)
                // One read transaction on the first connection, held open across the commit.
                try first.db.beginRead()
                let (head, rest) = try first.anchoredHead(owner: f.owner.rawValue, types: types, predicate: nil, anchor: nil,
                                                          scope: everything, partRows: 1) { _ in true }
                XCTAssertEqual(head.newAnchor, before.newAnchor)
                let scan = AnchoredScan(try XCTUnwrap(rest), partRows: 1, deliver: { table in
                    delivered.withLock { $0 += Array(table.samples) }
                    return true
                }, end: { error in
                    XCTAssertNil(error)
                    ended.withLock { $0 += 1 }
                })
                XCTAssertGreaterThan(scan.rangeCount, 10)
                if commitBetween {
                    _ = try await f.store.deleteObjects(uuids: [before.samples[5].uuid], by: Deleter(owner: f.owner, bundleID: "x", isOwner: true))
                    try await f.save([StoreFixture.heartRate(s(9_999))])
                } else if between != nil {
                    let purged = try await f.store.purgeExpiredTombstones(now: Int64.max / 2)
                    XCTAssertGreaterThan(purged, 0)
                }
                // The second connection reads two ranges, the first the rest.
                let second = ReadContext(db: try f.connect(), registry: Registry(), anchorKey: key)
                var ranges = 0
                let helped = second.help(scan) { ranges += 1; return ranges < 2 }
                first.read(scan)
                first.db.resetAll()
                try first.db.execute("COMMIT")
                XCTAssertEqual(helped, commitBetween ? 0 : 2)
                XCTAssertEqual(delivered.withLock { $0 }, Array(before.samples), between ?? "one snapshot")
                XCTAssertEqual(ended.withLock { $0 }, 1)
            }
            await f.store.close()
        }
    }

    /// `noCorrelation` alone (an export's predicate) is read in ranges, as the read without a predicate:
    /// the head finds only the last anchor it keeps and leaves the samples to the ranges (read by two
    /// threads and sent as they are read, not all read before the first page), also with a type a
    /// correlation holds, whose readings the MAX steps back past; with only such a type, whose every
    /// row here is a reading, nothing is left to read; every stored type asked for is one part on
    /// PostgreSQL (`samples_by_anchor`). Either way the stream is what a query with the predicate finds.
    func testNoCorrelationAloneIsReadInRanges() async throws {
        try await forEachEngine {
            let f = try await StoreFixture()
            try await fill(f)
            // A correlation saved last: the store's last rows are it and its readings.
            try await f.save([Sample(type: StoreFixture.bloodPressure, start: s(5_000), end: s(5_000), body: .correlation([
                Sample(type: StoreFixture.systolic, start: s(5_000), end: s(5_000), body: .quantity(Quantity(118, "mmHg"), count: 1)),
                Sample(type: StoreFixture.diastolic, start: s(5_000), end: s(5_000), body: .quantity(Quantity(79, "mmHg"), count: 1)),
            ]))])
            let context = ReadContext(db: try f.connect(), registry: Registry(), anchorKey: try f.anchorKey())
            let predicate = QueryPredicate.allOf([.noCorrelation])
            let everyStoredType = types + [StoreFixture.systolic, StoreFixture.diastolic]
            for (types, left) in [([StoreFixture.heartRate, StoreFixture.steps], true), ([StoreFixture.systolic, StoreFixture.heartRate], true),
                                  ([StoreFixture.systolic], false), (everyStoredType, true)] {
                var readAtHead = 0
                try context.db.beginRead()
                let (_, rest) = try context.anchoredHead(owner: f.owner.rawValue, types: types, predicate: predicate, anchor: nil,
                                                         scope: everything, partRows: 1) { part in
                    readAtHead += part.samples.count
                    return true
                }
                context.db.resetAll()
                try context.db.execute("COMMIT")
                XCTAssertEqual(rest != nil, left, "\(types)")
                XCTAssertEqual(readAtHead, 0, "\(types)")

                let queried = try await f.store.querySamples(owner: f.owner, types: types, predicate: predicate, sort: [], limit: 0, scope: everything)
                XCTAssertEqual(queried.filter { $0.type == StoreFixture.systolic }, [], "the correlation's reading is left out")
                let stream = try await f.store.streamAnchored(owner: f.owner, types: types, predicate: predicate, anchor: nil, limit: 0,
                                                              scope: everything, partRows: 3)
                var streamed: [Sample] = []
                for try await part in stream.samples { streamed += Array(part.samples) }
                XCTAssertEqual(streamed, queried, "\(types)")
            }
            await f.store.close()
        }
    }

    /// Ranges read out of turn are held and handed over in anchor order; the stream ends once, after the last.
    func testRangesAreHandedOverInOrderWhateverOrderTheyAreReadIn() {
        let samples = AnchoredSamples(owner: 1, types: [], predicate: nil, scope: everything, after: 0, last: 64, storeAnchor: 64,
                                      horizon: 0, key: Data())
        let delivered = Mutex<[Microseconds]>([])
        let ended = Mutex<Int>(0)
        let scan = AnchoredScan(samples, partRows: 1, deliver: { table in
            delivered.withLock { $0 += table.samples.map(\.start) }
            return true
        }, end: { _ in ended.withLock { $0 += 1 } })
        XCTAssertEqual(scan.rangeCount, 4)
        func table(_ start: Int64) -> AnchoredPart { samples.part([StoreFixture.heartRate(start)], anchors: [start]) }
        let ranges = (0..<4).compactMap { _ in scan.claim() }
        XCTAssertEqual(ranges.map(\.after), [0, 16, 32, 48])
        XCTAssertEqual(ranges.map(\.through), [16, 32, 48, 64])
        XCTAssertNil(scan.claim())
        XCTAssertTrue(scan.hand(table(3), of: 2))
        XCTAssertTrue(scan.hand(table(1), of: 1))
        scan.finish(2)
        XCTAssertTrue(scan.hand(table(0), of: 0))
        XCTAssertEqual(delivered.withLock { $0 }, [0])
        scan.finish(0)
        XCTAssertEqual(delivered.withLock { $0 }, [0, 1])
        XCTAssertTrue(scan.hand(table(2), of: 1))
        scan.finish(1)
        XCTAssertEqual(delivered.withLock { $0 }, [0, 1, 2, 3])
        XCTAssertEqual(ended.withLock { $0 }, 0)
        XCTAssertTrue(scan.hand(table(4), of: 3))
        scan.finish(3)
        XCTAssertEqual(delivered.withLock { $0 }, [0, 1, 2, 3, 4])
        XCTAssertEqual(ended.withLock { $0 }, 1)
        XCTAssertFalse(scan.hand(table(5), of: 3))
    }
}

import CSQLite
import Foundation
import HealthModel
import XCTest
@testable import HealthStorage

/// Every query reads only the rows it needs, found through an index. docs/semantics.md decision 7, timing class: a
/// read-restricted query (the caller's own rows of a type it may not read) reads those rows
/// through the source index, so the work it does cannot tell the caller how much other sources
/// stored. And with the planner's statistics pinned, no query walks rows of types it does not
/// read (correlation readings, UUID lookups). Work is counted in pages fetched, never timed.
final class ReadCostTests: XCTestCase {
    private let app = Source(name: "App", bundleID: "com.example.app")

    func testQueriesDoNotGrowWithDataTheyDoNotRead() async throws {
        let f = try await StoreFixture()
        let own = (0..<5).map { StoreFixture.heartRate(s(Int64($0) * 60), device: StoreFixture.watchDevice) }
        try await f.save(own, source: app)
        let systolic = Sample(type: StoreFixture.systolic, start: s(40), end: s(40), body: .quantity(Quantity(120, "mmHg"), count: 1))
        let diastolic = Sample(type: StoreFixture.diastolic, start: s(40), end: s(40), body: .quantity(Quantity(80, "mmHg"), count: 1))
        try await f.save([Sample(type: StoreFixture.steps, start: s(30), end: s(90), body: .quantity(Quantity(120, "count"), count: 1)),
                          Sample(type: StoreFixture.bloodPressure, start: s(40), end: s(40), body: .correlation([systolic, diastolic]))])
        let alone = try pagesFetched(f, ownUUID: own[0].uuid)
        // Another source's 20,000 heart rates and 2,000 deletions.
        var others: [Sample] = []
        for batch in 0..<20 {
            let samples = (0..<1_000).map { StoreFixture.heartRate(s(Int64(batch * 1_000 + $0) * 10), bpm: 70) }
            try await f.save(samples)
            others += samples
        }
        // And 1,000 blood pressures with no systolic reading (invisible to a systolic-only reader).
        let pressures = (0..<1_000).map { i in
            let at = s(100_000 + Int64(i) * 10)
            return Sample(type: StoreFixture.bloodPressure, start: at, end: at, body: .correlation([
                Sample(type: StoreFixture.diastolic, start: at, end: at, body: .quantity(Quantity(80, "mmHg"), count: 1)),
            ]))
        }
        try await f.save(pressures)
        let deleted = try await f.store.deleteObjects(uuids: others.prefix(2_000).map(\.uuid) + pressures.prefix(200).map(\.uuid),
                                                      by: Deleter(owner: f.owner, bundleID: StoreFixture.watch.bundleID, isOwner: false))
        XCTAssertEqual(deleted, 2_200)
        let crowded = try pagesFetched(f, ownUUID: own[0].uuid)
        // Deeper B-trees cost a few pages per row read (logarithmic); scanning the others' rows
        // would cost tens of thousands.
        for (query, pages) in alone {
            XCTAssertLessThanOrEqual(try XCTUnwrap(crowded[query]), 3 * pages + 20, "\(query): \(pages) pages alone")
        }
        await f.store.close()
    }

    /// An anchored read with a predicate finds its anchor from the rows it reads rather than by a
    /// MAX stepping back through them before the read: it fetches no more pages than the same read
    /// cut by a limit, which reads its rows once.
    func testAnchoredReadWithAPredicateVisitsItsRowsOnce() async throws {
        let (f, db, context) = try await heartRatesEveryTenSeconds()
        // Only the first ten of the 20,000 match: a MAX would step back over all the others.
        let firstTen = QueryPredicate.dateRange(DateRange(start: 0, end: s(100)))
        var pages: [Int] = [], found: [Int] = []
        for limit in [0, 1_000_000] {
            _ = takePageFetches(db)
            let answer = try context.snapshot { () throws(HealthError) in
                try context.queryAnchored(owner: f.owner.rawValue, types: [StoreFixture.heartRate], predicate: firstTen, anchor: nil,
                                          limit: limit, scope: .everything(callerBundleID: "x"))
            }
            pages.append(takePageFetches(db))
            found.append(answer.samples.count)
        }
        XCTAssertEqual(found, [10, 10])
        XCTAssertLessThanOrEqual(pages[0], pages[1] + 10, "pages with no limit against with one")
        await f.store.close()
    }

    /// Cutting a type into key-order slices walks `samples_by_source`'s entries and reads no row of the
    /// table: it fetches no more pages than that walk (finding the type's lowest and highest anchor
    /// with both aggregates in one SELECT stepped through every row of the type).
    func testKeyOrderSlicesAreCutFromTheSourceIndexAlone() async throws {
        let (f, db, context) = try await heartRatesEveryTenSeconds()
        let typeID = try XCTUnwrap(try context.resolve([StoreFixture.heartRate], owner: f.owner.rawValue).first?.id)
        let walk = try db.prepareOnce("SELECT start_time, anchor FROM samples INDEXED BY samples_by_source WHERE owner = ? AND type = ?")
        walk.bind(all: [.int(f.owner.rawValue), .int(typeID)])
        _ = takePageFetches(db)
        var entries = 0
        while try walk.step() { entries += 1 }
        let walked = takePageFetches(db)
        let plan = try context.keyOrderPlan(owner: f.owner.rawValue, typeID: typeID, rows: 4_096)
        XCTAssertEqual([entries, plan.rows], [20_000, 20_000])
        XCTAssertLessThanOrEqual(takePageFetches(db), walked + 10, "pages of the walk alone: \(walked)")
        await f.store.close()
    }

    /// With no index of (owner, type, start), a read of a type in start order cut by a limit merges
    /// its sources' ranges of `samples_by_source`, one seek a source: its statements take a few
    /// hundred steps of SQLite's machine, where sorting the type (or a date range of it) steps at
    /// least once through each of its 21,000 rows. Both orders, with and without dates, three sources
    /// interleaved in time.
    func testLimitedReadsInStartOrderDoNotSortTheType() async throws {
        let f = try await StoreFixture()
        let sources = [StoreFixture.watch, StoreFixture.scale, app]
        // Source k's n-th row starts at (3n + k) × 10 s: every 10 s one source's row, 21,000 in all.
        for batch in 0..<21 {
            try await f.save((0..<1_000).map { StoreFixture.heartRate(s(Int64(((batch / 3) * 1_000 + $0) * 3 + batch % 3) * 10)) },
                             source: sources[batch % 3])
        }
        let db = try SQLiteConnection(path: f.path, readOnly: true)
        let context = ReadContext(db: db, registry: Registry(), anchorKey: try f.anchorKey())
        let everything = ReadScope.everything(callerBundleID: "x")
        let steps = StepCount(db)
        let starts = (0..<21_000).map { s(Int64($0) * 10) }
        let laterHalf = QueryPredicate.dateRange(DateRange(start: starts[10_500], end: nil))
        let first = Array(starts.prefix(10)), last = Array(starts.suffix(10).reversed())
        for (predicate, descending, expected) in [(nil, false, first), (nil, true, last), (laterHalf, false, Array(starts[10_500..<10_510])),
                                                  (laterHalf, true, last)] as [(QueryPredicate?, Bool, [Microseconds])] {
            steps.steps = 0
            let answer = try context.snapshot { () throws(HealthError) in
                try context.querySamples(owner: f.owner.rawValue, types: [StoreFixture.heartRate], predicate: predicate,
                                         sort: [SampleSortDescriptor(.startDate, descending: descending)], limit: 10, scope: everything)
            }
            XCTAssertEqual(answer.map { $0.start }, expected, "\(String(describing: predicate)), descending \(descending)")
            XCTAssertLessThanOrEqual(steps.steps, 2_000, "\(String(describing: predicate)), descending \(descending)")
        }
        await f.store.close()
    }

    /// A type with more sources than a read merges (`mergedSourcesAtMost`) is read whole and sorted
    /// instead: the same rows in the same order. 501 sources: one arm a source would pass the 500 arms
    /// SQLite allows a compound and fail the read.
    func testATypeWithMoreSourcesThanAReadMergesIsStillReadInStartOrder() async throws {
        let f = try await StoreFixture()
        let sources = 501
        // Source k's rows start at k × 10 s and (sources + k) × 10 s.
        for k in 0..<sources {
            try await f.save([StoreFixture.heartRate(s(Int64(k) * 10)), StoreFixture.heartRate(s(Int64(sources + k) * 10))],
                             source: Source(name: "App \(k)", bundleID: "com.example.app\(k)"))
        }
        let db = try SQLiteConnection(path: f.path, readOnly: true)
        let context = ReadContext(db: db, registry: Registry(), anchorKey: try f.anchorKey())
        let starts = (0..<2 * sources).map { s(Int64($0) * 10) }
        let laterHalf = QueryPredicate.dateRange(DateRange(start: starts[sources], end: nil))
        for (predicate, descending, expected) in [(nil, false, Array(starts.prefix(10))), (nil, true, Array(starts.suffix(10).reversed())),
                                                  (laterHalf, false, Array(starts[sources..<sources + 10]))] as [(QueryPredicate?, Bool, [Microseconds])] {
            let answer = try context.snapshot { () throws(HealthError) in
                try context.querySamples(owner: f.owner.rawValue, types: [StoreFixture.heartRate], predicate: predicate,
                                         sort: [SampleSortDescriptor(.startDate, descending: descending)], limit: 10,
                                         scope: .everything(callerBundleID: "x"))
            }
            XCTAssertEqual(answer.map { $0.start }, expected, "\(String(describing: predicate)), descending \(descending)")
        }
        let typeID = try XCTUnwrap(try context.resolve([StoreFixture.heartRate], owner: f.owner.rawValue).first?.id)
        let plan = try context.keyOrderPlan(owner: f.owner.rawValue, typeID: typeID, rows: 16)
        XCTAssertEqual(plan.rows, 2 * sources)
        XCTAssertEqual(plan.slices.map(\.first.start), stride(from: 0, to: 2 * sources, by: 16).map { starts[$0] })
        await f.store.close()
    }

    /// Steps of SQLite's virtual machine that the statements of a connection took, each counted when
    /// it finishes (`SQLITE_TRACE_PROFILE`).
    private final class StepCount {
        var steps = 0

        init(_ db: SQLiteConnection) {
            sqlite3_trace_v2(db.handle, UInt32(SQLITE_TRACE_PROFILE), { _, context, statement, _ in
                guard let context, let statement else { return 0 }
                Unmanaged<StepCount>.fromOpaque(context).takeUnretainedValue().steps
                    += Int(sqlite3_stmt_status(OpaquePointer(statement), SQLITE_STMTSTATUS_VM_STEP, 1))
                return 0
            }, Unmanaged.passUnretained(self).toOpaque())
        }
    }

    /// A store of 20,000 heart rates ten seconds apart, saved 1,000 at a time, and a read context
    /// over a connection of its own.
    private func heartRatesEveryTenSeconds() async throws -> (StoreFixture, SQLiteConnection, ReadContext) {
        let f = try await StoreFixture()
        for batch in 0..<20 {
            try await f.save((0..<1_000).map { StoreFixture.heartRate(s(Int64(batch * 1_000 + $0) * 10)) })
        }
        let db = try SQLiteConnection(path: f.path, readOnly: true)
        return (f, db, ReadContext(db: db, registry: Registry(), anchorKey: try f.anchorKey()))
    }

    /// Pages each query fetches, through a connection of its own.
    private func pagesFetched(_ f: StoreFixture, ownUUID: UUID) throws -> [String: Int] {
        let db = try SQLiteConnection(path: f.path, readOnly: true)
        let context = ReadContext(db: db, registry: Registry(), anchorKey: try f.anchorKey())
        let (owner, hr) = (f.owner.rawValue, StoreFixture.heartRate)
        let scope = ReadScope(callerBundleID: app.bundleID, readableTypes: [])
        // Steps may be read in full; heart rate still only in part, even in one query with steps, and
        // an anchored query of steps alone walks no heart rate.
        let mixed = ReadScope(callerBundleID: app.bundleID, readableTypes: [StoreFixture.steps])
        let both = [hr, StoreFixture.steps]
        // Another source's blood pressures are visible only with a systolic reading (docs/semantics.md §3.6).
        let systolicOnly = ReadScope(callerBundleID: app.bundleID, readableTypes: [StoreFixture.systolic])
        let firstHours = QueryPredicate.dateRange(DateRange(start: 0, end: s(3_600)))
        let queries: [(String, () throws(HealthError) -> Void)] = [
            ("samples", { () throws(HealthError) in _ = try context.querySamples(owner: owner, types: [hr], predicate: nil, sort: [], limit: 0, scope: scope) }),
            ("samples in a range", { () throws(HealthError) in _ = try context.querySamples(owner: owner, types: [hr], predicate: firstHours, sort: [], limit: 0, scope: scope) }),
            ("anchored", { () throws(HealthError) in _ = try context.queryAnchored(owner: owner, types: [hr], predicate: nil, anchor: nil, limit: 0, scope: scope) }),
            ("statistics", { () throws(HealthError) in
                var inputs: [StatInput] = []
                try context.statisticsSamples(owner: owner, type: hr, predicate: firstHours, scope: scope, into: &inputs)
            }),
            ("counts", { () throws(HealthError) in _ = try context.countSamples(owner: owner, types: [hr], predicate: nil, scope: scope) }),
            ("sources", { () throws(HealthError) in _ = try context.querySources(owner: owner, type: hr, predicate: nil, scope: scope) }),
            ("devices", { () throws(HealthError) in _ = try context.queryDevices(owner: owner, type: hr, scope: scope) }),
            ("partly readable correlations", { () throws(HealthError) in
                _ = try context.querySamples(owner: owner, types: [StoreFixture.bloodPressure], predicate: nil, sort: [], limit: 0, scope: systolicOnly)
            }),
            ("partly readable correlations, anchored", { () throws(HealthError) in
                _ = try context.queryAnchored(owner: owner, types: [StoreFixture.bloodPressure], predicate: nil, anchor: nil, limit: 0, scope: systolicOnly)
            }),
            ("owner: steps", { () throws(HealthError) in
                _ = try context.querySamples(owner: owner, types: [StoreFixture.steps], predicate: nil, sort: [], limit: 0, scope: .everything(callerBundleID: "x"))
            }),
            ("owner: blood pressure with its readings", { () throws(HealthError) in
                _ = try context.querySamples(owner: owner, types: [StoreFixture.bloodPressure], predicate: firstHours, sort: [], limit: 0,
                                             scope: .everything(callerBundleID: "x"))
            }),
            ("owner: heart rate by UUID", { () throws(HealthError) in
                _ = try context.querySamples(owner: owner, types: [hr], predicate: .uuids([ownUUID]), sort: [], limit: 0, scope: .everything(callerBundleID: "x"))
            }),
            ("devices of every type", { () throws(HealthError) in _ = try context.queryDevices(owner: owner, type: nil, scope: mixed) }),
            ("mixed samples", { () throws(HealthError) in
                _ = try context.querySamples(owner: owner, types: both, predicate: nil, sort: [SampleSortDescriptor(.startDate, descending: true)],
                                             limit: 3, scope: mixed)
            }),
            ("mixed anchored", { () throws(HealthError) in
                _ = try context.queryAnchored(owner: owner, types: both, predicate: nil, anchor: nil, limit: 0, scope: mixed)
            }),
            ("readable anchored", { () throws(HealthError) in
                _ = try context.queryAnchored(owner: owner, types: [StoreFixture.steps], predicate: nil, anchor: nil, limit: 0, scope: mixed)
            }),
            ("mixed counts", { () throws(HealthError) in _ = try context.countSamples(owner: owner, types: both, predicate: firstHours, scope: mixed) }),
        ]
        var pages: [String: Int] = [:]
        for (name, run) in queries {
            _ = takePageFetches(db)
            try context.snapshot { () throws(HealthError) in try run() }
            pages[name] = takePageFetches(db)
        }
        return pages
    }

    /// Pages the connection fetched (pager cache hits and misses) since the last call.
    private func takePageFetches(_ db: SQLiteConnection) -> Int {
        [SQLITE_DBSTATUS_CACHE_HIT, SQLITE_DBSTATUS_CACHE_MISS].reduce(0) { total, counter in
            var current: Int32 = 0, highwater: Int32 = 0
            sqlite3_db_status(db.handle, counter, &current, &highwater, 1)
            return total + Int(current)
        }
    }
}

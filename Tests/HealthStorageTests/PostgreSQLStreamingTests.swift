import Foundation
import HealthModel
@testable import HealthStorage
import Synchronization
import XCTest

/// How PostgreSQL's long reads reach the server: a full sync of every type one statement a window,
/// each sent before the last window's rows are read; statistics through a cursor a batch at a time;
/// and a statement sent ahead that fails, or is never read, leaving the session usable. Needs
/// HEALTHSTORE_TEST_POSTGRES.
final class PostgreSQLStreamingTests: XCTestCase {
    private let everything = ReadScope.everything(callerBundleID: "x")

    /// What a test saw happen, in order: each statement's SQL as it was sent, and the test's own notes.
    private final class Log {
        var lines: [String] = []
    }

    /// A fixture on PostgreSQL, and a private connection to it whose statements `log` records.
    private func fixture() async throws -> (StoreFixture, PostgreSQLConnection, Log) {
        let conninfo = try conninfo()
        StoreEngine.current.withLock { $0 = .postgreSQL(conninfo: conninfo) }
        defer { StoreEngine.current.withLock { $0 = .sqlite } }
        let f = try await StoreFixture()
        let db = try XCTUnwrap(try f.connect() as? PostgreSQLConnection)
        let log = Log()
        db.sending = { sql in log.lines.append(sql) }
        return (f, db, log)
    }

    /// 200 samples of three types saved in one batch (anchors 1 to 200, the types interleaved) are
    /// read in parts of 10 rows: each window of 10 anchors is one statement over every type (no type
    /// condition: a per-type read would name the type), and the next window is sent before the
    /// current one's rows are handed over, so the server runs it meanwhile.
    func testFullSyncOfEveryTypeIsOneStatementPerWindowEachSentBeforeTheLastIsRead() async throws {
        let (f, db, log) = try await fixture()
        let types = [StoreFixture.heartRate, StoreFixture.steps, StoreFixture.sleep]
        try await f.save((0..<200).map { i -> Sample in
            let start = s(Int64(i) * 10)
            switch i % 3 {
            case 0: return StoreFixture.heartRate(start, bpm: Double(60 + i % 40))
            case 1: return Sample(type: StoreFixture.steps, start: start, end: start + s(9), body: .quantity(Quantity(Double(i), "count"), count: 1))
            default: return StoreFixture.sleep(start, start + s(5), value: Int64(i % 3))
            }
        })
        let expected = try await f.store.queryAnchored(owner: f.owner, types: types, predicate: nil, anchor: nil, limit: 0, scope: everything)
        let reader = ReadContext(db: db, registry: Registry(), anchorKey: try f.anchorKey())
        // Twice: the first read fills the registry, so the second sends only the read's own statements.
        for pass in 0..<2 {
            let delivered = Mutex<[Sample]>([])
            try db.beginRead()
            let (_, rest) = try reader.anchoredHead(owner: f.owner.rawValue, types: types, predicate: nil, anchor: nil, scope: everything,
                                                    partRows: 10) { _ in true }
            let samples = try XCTUnwrap(rest)
            XCTAssertEqual([samples.after, samples.last], [0, 200])
            let scan = AnchoredScan(samples, partRows: 10, deliver: { part in
                delivered.withLock { $0 += Array(part.samples) }
                log.lines.append("part of \(part.samples.count)")
                return true
            }, end: { XCTAssertNil($0) })
            log.lines.removeAll()
            XCTAssertEqual(reader.read(scan), scan.rangeCount)
            db.resetAll()
            try db.execute("COMMIT")
            XCTAssertEqual(delivered.withLock { $0 }, Array(expected.samples))
            guard pass == 1 else { continue }
            // The read's own statements over samples (beside them, one look at the owner's types a range).
            let reads = log.lines.filter { $0.contains("FROM samples") || $0.hasPrefix("part") }
            let sent = reads.filter { !$0.hasPrefix("part") }
            // Ranges of 160 anchors (`AnchoredScan.rangeAnchors`), each read in windows of 10.
            let windows = stride(from: 0, to: 200, by: 160).map { (min($0 + 160, 200) - $0 + 9) / 10 }
            XCTAssertEqual(windows, [16, 4])
            XCTAssertEqual(sent.count, windows.reduce(0, +), "\(sent)")
            for sql in sent {
                XCTAssertTrue(sql.contains("FROM samples s WHERE s.owner = $1 AND s.anchor > $2"), sql)
                XCTAssertFalse(sql.contains("s.type IN") || sql.contains("s.type ="), sql)
            }
            // S: a window's statement sent; P: a part of 10 rows handed over. Within a range, every
            // window but the first is sent before the part of the window before it.
            let order = reads.map { $0.hasPrefix("part") ? "P" : "S" }.joined()
            XCTAssertEqual(order, windows.map { "S" + String(repeating: "SP", count: $0 - 1) + "P" }.joined())
        }
        await f.store.close()
    }

    /// A window's rows come from `samples_by_anchor` in anchor order, never sorted, whatever the
    /// table's statistics: each range's windows are sent with sorts off and the session's setting back
    /// after them. On a large table without statistics (one just filled, until ANALYZE runs) the
    /// planner's own plan for a window is a bitmap scan and a sort; the planner is shown such a table
    /// here by its row count in `pg_class` (set in a transaction rolled back), and with sorts off it
    /// reads the index in order instead.
    func testWindowsReadTheAnchorIndexInOrderWithoutASort() async throws {
        let (f, db, log) = try await fixture()
        try await f.save((0..<200).map { StoreFixture.heartRate(s(Int64($0) * 10)) })
        let reader = ReadContext(db: db, registry: Registry(), anchorKey: try f.anchorKey())
        let types = [StoreFixture.heartRate]
        let read = try reader.snapshot { () throws(HealthError) -> [Sample] in
            let (_, rest) = try reader.anchoredHead(owner: f.owner.rawValue, types: types, predicate: nil, anchor: nil, scope: everything,
                                                    partRows: 10) { _ in true }
            var samples: [Sample] = []
            let scan = AnchoredScan(rest!, partRows: 10, deliver: { samples += Array($0.samples); return true }, end: { XCTAssertNil($0) })
            log.lines.removeAll()
            reader.read(scan)
            return samples
        }
        XCTAssertEqual(read.map(\.start), (0..<200).map { s(Int64($0) * 10) })
        // H: sorts held off; W: a window's statement; R: the session's setting back. Ranges of 160
        // anchors (16 windows), then 40 (4).
        let setting = ["SET LOCAL enable_sort = off": "H", "SET LOCAL enable_sort = DEFAULT": "R"]
        let order = log.lines.compactMap { setting[$0] ?? ($0.contains("FROM samples s WHERE") ? "W" : nil) }.joined()
        XCTAssertEqual(order, "H" + String(repeating: "W", count: 16) + "R" + "H" + String(repeating: "W", count: 4) + "R")

        let window = try XCTUnwrap(log.lines.first { $0.contains("FROM samples s WHERE") })
        func plan(sortsOff: Bool) throws -> String {
            try db.execute("BEGIN")
            defer { try? db.execute("ROLLBACK") }
            // A million rows on its first page: ~5 million on its pages, as the planner estimates them.
            try db.execute("UPDATE pg_class SET reltuples = 1e6, relpages = 1 WHERE oid = 'samples'::regclass")
            if sortsOff { try db.execute("SET LOCAL enable_sort = off") }
            try db.execute("PREPARE window_plan AS \(window)")
            defer { try? db.execute("DEALLOCATE window_plan") }
            let explain = try db.prepareOnce("EXPLAIN EXECUTE window_plan(\(f.owner.rawValue), 0, 160, 0, 10)")
            var lines: [String] = []
            while try explain.step() { lines.append(explain.text(0) ?? "") }
            return lines.joined(separator: "\n")
        }
        let held = try plan(sortsOff: true)
        XCTAssertTrue(held.hasPrefix("Index Scan using samples_by_anchor on samples"), held)
        XCTAssertFalse(held.contains("Sort"), held)
        let own = try plan(sortsOff: false)
        XCTAssertTrue(own.hasPrefix("Sort"), "the planner's own choice does not sort here, so this test shows nothing: \(own)")
        await f.store.close()
    }

    /// A reader that stops after its first part leaves the next window's statement sent and unread:
    /// the transaction still ends cleanly, and the session's next read answers in full.
    func testAWindowSentAheadAndNeverReadLeavesTheSessionUsable() async throws {
        let (f, db, _) = try await fixture()
        try await f.save((0..<100).map { StoreFixture.heartRate(s(Int64($0) * 10)) })
        let reader = ReadContext(db: db, registry: Registry(), anchorKey: try f.anchorKey())
        let types = [StoreFixture.heartRate]
        let parts = Mutex(0)
        try reader.snapshot { () throws(HealthError) in
            let (_, rest) = try reader.anchoredHead(owner: f.owner.rawValue, types: types, predicate: nil, anchor: nil, scope: everything,
                                                    partRows: 10) { _ in true }
            let scan = AnchoredScan(rest!, partRows: 10, deliver: { _ in parts.withLock { $0 += 1 }; return false }, end: { _ in })
            reader.read(scan)
        }
        XCTAssertEqual(parts.withLock { $0 }, 1)
        let again = try reader.snapshot { () throws(HealthError) in
            try reader.queryAnchored(owner: f.owner.rawValue, types: types, predicate: nil, anchor: nil, limit: 0, scope: everything)
        }
        XCTAssertEqual(again.samples.count, 100)
        await f.store.close()
    }

    /// A statement sent ahead that fails partway through its rows reports the server's error when
    /// stepped; one that fails unread leaves the transaction to end; either way the session goes on.
    func testAFailureOfAStatementSentAheadIsReportedAndTheSessionGoesOn() throws {
        let db = try PostgreSQLConnection(conninfo: try conninfo())
        for stepped in [true, false] {
            try db.beginRead()
            let failing = try db.prepareOnce("SELECT 1 / (x - 3) FROM generate_series(1, 5) AS x")
            failing.start()
            if stepped {
                XCTAssertThrowsError(try failing.step()) { error in
                    XCTAssertTrue((error as? HealthError)?.message.contains("division by zero") ?? false, "\(error)")
                }
            }
            try db.execute("ROLLBACK")
            let after = try db.prepareOnce("SELECT 7")
            XCTAssertTrue(try after.step())
            XCTAssertEqual(after.int(0), 7)
        }
    }

    /// 12,000 heart rates: the statistics read's first pass over `samples_by_source` (no predicate) and its
    /// read through that index (a predicate over 40 % of the span) each go through a cursor, at most
    /// `fetchRows` rows at a time, and hand on every row in start order.
    func testStatisticsReadsGoThroughACursorABatchAtATime() async throws {
        let (f, db, log) = try await fixture()
        let count = 12_000, some = 4_800
        for batch in 0..<12 {
            try await f.save((0..<1_000).map { StoreFixture.heartRate(s(Int64(batch * 1_000 + $0 + 1) * 10), bpm: Double(50 + $0 % 90)) })
        }
        let reader = ReadContext(db: db, registry: Registry(), anchorKey: try f.anchorKey())
        let part = QueryPredicate.dateRange(DateRange(start: 0, end: s(Int64(some) * 10 + 5)))
        for (predicate, rows) in [(nil, count), (part, some)] as [(QueryPredicate?, Int)] {
            log.lines.removeAll()
            var inputs: [StatInput] = []
            _ = try reader.snapshot { () throws(HealthError) in
                try reader.statisticsSamples(owner: f.owner.rawValue, type: StoreFixture.heartRate, predicate: predicate, scope: everything,
                                             into: &inputs)
            }
            XCTAssertEqual(inputs.count, rows)
            XCTAssertEqual(inputs.map(\.start), (1...rows).map { s(Int64($0) * 10) }, "out of order")
            let sent = log.lines
            let declared = sent.filter { $0.hasPrefix("DECLARE") }
            let fetches = sent.filter { $0.hasPrefix("FETCH FORWARD \(PostgreSQLStatement.fetchRows) ") }
            // Without a predicate the first pass over the source index (the rows are then read by key);
            // with it, the rows through that index.
            XCTAssertEqual(declared.count, 1, "\(sent)")
            let read = predicate == nil ? "SELECT s.start_time, s.anchor FROM (SELECT * FROM samples s" : "s.value IS NOT NULL ORDER BY s.start_time, s.anchor"
            XCTAssertTrue(declared.first?.contains(read) ?? false, "\(declared)")
            XCTAssertEqual(fetches.count, rows / PostgreSQLStatement.fetchRows + 1, "\(sent)")
        }
        await f.store.close()
    }
}

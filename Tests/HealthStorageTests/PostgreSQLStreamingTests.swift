import Foundation
import HealthModel
@testable import HealthStorage
import Synchronization
import XCTest

/// How PostgreSQL's long reads reach the server: a full sync of every type one binary COPY a window,
/// its rows handed over as they come; statistics through a cursor a batch at a time; and a COPY
/// that fails, or is left partway, leaving the session usable. Needs HEALTHSTORE_TEST_POSTGRES.
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
    /// read in parts of 10 rows: each window of 10 anchors is one COPY over every type (no type
    /// condition: a per-type read would name the type), its anchors written into it, and each part
    /// is handed over before the next window is asked for. The first read's registry look-ups run
    /// while a window's COPY is still sending, and every row still arrives once, in order.
    func testFullSyncOfEveryTypeIsOneCopyPerWindow() async throws {
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
            if pass == 0 {
                // A look-up sent after a window's COPY started and before its part was handed over.
                let copy = try XCTUnwrap(log.lines.firstIndex { $0.hasPrefix("COPY") })
                let part = try XCTUnwrap(log.lines.firstIndex { $0.hasPrefix("part") })
                XCTAssertTrue(log.lines[copy + 1..<part].contains { !$0.hasPrefix("COPY") }, "\(log.lines)")
                continue
            }
            // The read's own statements over samples (beside them, one look at the owner's types a range).
            let reads = log.lines.filter { $0.contains("FROM samples") || $0.hasPrefix("part") }
            let sent = reads.filter { !$0.hasPrefix("part") }
            // Ranges of 160 anchors (`AnchoredScan.rangeAnchors`), each read in windows of 10.
            let windows = stride(from: 0, to: 200, by: 160).map { (min($0 + 160, 200) - $0 + 9) / 10 }
            XCTAssertEqual(windows, [16, 4])
            XCTAssertEqual(sent.count, windows.reduce(0, +), "\(sent)")
            // Each window's anchors, the last of a range open above (its range's bound is in the part's SQL).
            let lows = [(0, 160), (160, 200)].flatMap { range in stride(from: range.0, to: range.1, by: 10).map { ($0, $0 + 10 >= range.1) } }
            XCTAssertEqual(lows.count, sent.count)
            for ((low, open), sql) in zip(lows, sent) {
                XCTAssertTrue(sql.hasPrefix("COPY (SELECT s.owner, s.anchor"), sql)
                XCTAssertTrue(sql.contains("FROM samples s WHERE s.owner = \(f.owner.rawValue)::int8 AND s.anchor > "), sql)
                XCTAssertTrue(sql.contains("AND s.anchor > \(low)::int8" + (open ? " ORDER BY" : " AND s.anchor <= \(low + 10)::int8 ORDER BY")), sql)
                XCTAssertTrue(sql.hasSuffix(") TO STDOUT (FORMAT binary)"), sql)
                XCTAssertFalse(sql.contains("s.type IN") || sql.contains("s.type ="), sql)
            }
            // S: a window's COPY; P: a part of 10 rows handed over.
            XCTAssertEqual(reads.map { $0.hasPrefix("part") ? "P" : "S" }.joined(), String(repeating: "SP", count: 20))
        }
        await f.store.close()
    }

    /// Five of the first ten samples deleted, so the first part of 10 rows ends halfway through the
    /// second window: a reader that stops there leaves that window's COPY partway, and the
    /// transaction still ends cleanly and the session's next read answers in full.
    func testACopyLeftPartwayLeavesTheSessionUsable() async throws {
        let (f, db, log) = try await fixture()
        let saved = (0..<100).map { StoreFixture.heartRate(s(Int64($0) * 10)) }
        try await f.save(saved)
        _ = try await f.store.deleteObjects(uuids: saved[0..<10].filter { $0.start % s(20) == 0 }.map(\.uuid),
                                            by: Deleter(owner: f.owner, bundleID: "x", isOwner: true))
        let reader = ReadContext(db: db, registry: Registry(), anchorKey: try f.anchorKey())
        let types = [StoreFixture.heartRate]
        let parts = Mutex<[Int]>([])
        try reader.snapshot { () throws(HealthError) in
            let (_, rest) = try reader.anchoredHead(owner: f.owner.rawValue, types: types, predicate: nil, anchor: nil, scope: everything,
                                                    partRows: 10) { _ in true }
            let scan = AnchoredScan(rest!, partRows: 10, deliver: { part in parts.withLock { $0.append(part.samples.count) }; return false },
                                    end: { _ in })
            log.lines.removeAll()
            reader.read(scan)
        }
        XCTAssertEqual(parts.withLock { $0 }, [10])
        XCTAssertEqual(log.lines.filter { $0.hasPrefix("COPY") }.count, 2, "\(log.lines)")
        let again = try reader.snapshot { () throws(HealthError) in
            try reader.queryAnchored(owner: f.owner.rawValue, types: types, predicate: nil, anchor: nil, limit: 0, scope: everything)
        }
        XCTAssertEqual(again.samples.map(\.uuid), saved.filter { !($0.start < s(100) && $0.start % s(20) == 0) }.map(\.uuid))
        await f.store.close()
    }

    /// A copied statement reads each column as its type (a float8 and an int8 are both 8 bytes in a
    /// binary COPY); one whose COPY fails partway hands over the rows before the failure, then
    /// reports the server's error when stepped, or, left unread, leaves the transaction to end;
    /// either way the session goes on. One with a value other than an integer runs as a query.
    func testACopiedStatementReadsItsColumnsAndReportsItsFailure() throws {
        let db = try PostgreSQLConnection(conninfo: try conninfo())
        let log = Log()
        db.sending = { sql in log.lines.append(sql) }
        let typed = try db.prepareCopied("SELECT x / 4.0::float8, x, 'n' || x, NULL::bigint FROM generate_series(1, ?) AS x")
        typed.bind(1, Int64(3))
        var rows: [String] = []
        while try typed.step() {
            rows.append("\(typed.double(0)) \(typed.int(0)) \(typed.int(1)) \(typed.double(1)) \(typed.text(2) ?? "-") \(typed.isNull(3))")
        }
        XCTAssertEqual(rows, ["0.25 0 1 1.0 n1 true", "0.5 0 2 2.0 n2 true", "0.75 0 3 3.0 n3 true"])
        XCTAssertTrue(log.lines.last?.hasPrefix("COPY (SELECT x / 4.0::float8, x, 'n' || x, NULL::bigint FROM generate_series(1, 3::int8)") ?? false,
                      "\(log.lines)")
        for stepped in [true, false] {
            try db.beginRead()
            let failing = try db.prepareCopied("SELECT 1 / (x - ?) FROM generate_series(1, 5) AS x")
            failing.bind(1, Int64(3))
            XCTAssertTrue(try failing.step())
            XCTAssertEqual(failing.int(0), 0)
            if stepped {
                XCTAssertTrue(try failing.step())
                XCTAssertEqual(failing.int(0), -1)
                XCTAssertThrowsError(try failing.step()) { error in
                    XCTAssertTrue((error as? HealthError)?.message.contains("division by zero") ?? false, "\(error)")
                }
            }
            try db.execute("ROLLBACK")
            let after = try db.prepareOnce("SELECT 7")
            XCTAssertTrue(try after.step())
            XCTAssertEqual(after.int(0), 7)
        }
        let texts = try db.prepareCopied("SELECT ?::text || 'b'")
        texts.bind(1, "a")
        XCTAssertTrue(try texts.step())
        XCTAssertEqual(texts.text(0), "ab")
        XCTAssertEqual(log.lines.last, "SELECT $1::text || 'b'")
    }

    /// 12,000 heart rates: the statistics read's first pass over the time index (no predicate) and its
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
            // Without a predicate the first pass over the time index (the rows are then read by key);
            // with it, the rows through that index.
            XCTAssertEqual(declared.count, 1, "\(sent)")
            let read = predicate == nil ? "SELECT s.start_time, s.anchor FROM samples s" : "s.value IS NOT NULL ORDER BY s.start_time, s.anchor"
            XCTAssertTrue(declared.first?.contains(read) ?? false, "\(declared)")
            XCTAssertEqual(fetches.count, rows / PostgreSQLStatement.fetchRows + 1, "\(sent)")
        }
        await f.store.close()
    }
}

import Foundation
import HealthModel
@testable import HealthStorage
import Synchronization
import XCTest

/// What only the PostgreSQL engine has: refusals at open and several nodes on one database. Needs
/// HEALTHSTORE_TEST_POSTGRES except where it says otherwise.
extension XCTestCase {
    /// HEALTHSTORE_TEST_POSTGRES; the test is skipped when it is not set.
    func conninfo() throws -> String {
        guard let conninfo = ProcessInfo.processInfo.environment["HEALTHSTORE_TEST_POSTGRES"], !conninfo.isEmpty else {
            throw XCTSkip("HEALTHSTORE_TEST_POSTGRES is not set")
        }
        return conninfo
    }

    /// `count` stores ("nodes") on one fresh schema; the schema is dropped afterwards.
    func nodes(_ count: Int) throws -> [PostgreSQLStore] {
        try nodesAndSchema(count).stores
    }

    /// `nodes`, and the schema's name (for checks beside the stores).
    func nodesAndSchema(_ count: Int) throws -> (stores: [PostgreSQLStore], schema: String) {
        let conninfo = try conninfo()
        let schema = "hs_test_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
        var options = PostgreSQLStore.Options()
        options.schema = schema
        addTeardownBlock {
            let db = try PostgreSQLConnection(conninfo: conninfo)
            try db.execute("DROP SCHEMA IF EXISTS \(schema) CASCADE")
        }
        return (try (0..<count).map { _ in try PostgreSQLStore.open(conninfo: conninfo, options: options) }, schema)
    }
}

final class PostgreSQLStoreTests: XCTestCase {
    func testUnreachableServerIsNamedInTheError() {
        XCTAssertThrowsError(try PostgreSQLStore.open(conninfo: "postgresql://health@127.0.0.1:1/health?connect_timeout=2")) { error in
            let error = error as? HealthError
            XCTAssertEqual(error?.code, .unavailable)
            XCTAssertTrue(error?.message.contains("host 127.0.0.1 port 1 database health user health") ?? false, "\(String(describing: error))")
        }
    }

    func testSchemaNewerThanTheBinaryIsRefused() async throws {
        let conninfo = try conninfo()
        let store = try nodes(1)[0]
        await store.close()
        let schema = try XCTUnwrap(try currentSchemas(conninfo).first { $0.hasPrefix("hs_test_") })
        let db = try PostgreSQLConnection(conninfo: conninfo, sessionSetup: "SET search_path TO \(schema)")
        try db.execute("UPDATE schema_version SET version = 99")
        var options = PostgreSQLStore.Options()
        options.schema = schema
        XCTAssertThrowsError(try PostgreSQLStore.open(conninfo: conninfo, options: options)) { error in
            XCTAssertEqual((error as? HealthError)?.code, .databaseInaccessible)
            XCTAssertTrue((error as? HealthError)?.message.contains("schema version 99, newer than this server's") ?? false, "\(error)")
        }
    }

    /// A node that stops answering in the middle of a write transaction (frozen, its machine or
    /// network gone) holds the owner's anchor counter; the server ends that session, so another
    /// node's save of the owner completes, and the frozen node's transaction is undone.
    func testASessionFrozenInsideAWriteTransactionDoesNotStallAnotherNodesSaves() async throws {
        let conninfo = try conninfo()
        let store = try nodes(1)[0]
        let (owner, _) = try await store.addOwner(name: "alice")
        let schema = try XCTUnwrap(try currentSchemas(conninfo).first { $0.hasPrefix("hs_test_") })
        // A session as a node opens it, which takes the owner's counter row and then goes silent.
        let frozen = try PostgreSQLConnection(conninfo: conninfo, sessionSetup: "SET search_path TO \(schema)")
        try frozen.beginWrite()
        try frozen.execute("UPDATE anchor_counters SET last_anchor = last_anchor + 1 WHERE owner = \(owner.rawValue)")
        let revision = SourceRevision(source: StoreFixture.watch, version: "1", productType: nil, osMajor: 1, osMinor: 0, osPatch: 0)
        let saved = Mutex(false)
        let save = Task {
            _ = try await store.save(SaveBatch(owner: owner, revision: revision, defaultDevice: nil, objects: [StoreFixture.heartRate(s(1))]))
            saved.withLock { $0 = true }
        }
        try await waitFor(within: .seconds(90)) { saved.withLock { $0 } }
        XCTAssertTrue(saved.withLock { $0 }, "the save is still waiting for the frozen session's lock")
        XCTAssertThrowsError(try frozen.commitWrite()) { error in
            XCTAssertEqual((error as? HealthError)?.code, .unavailable, "\(error)")
        }
        try? frozen.execute("ROLLBACK")
        try await save.value
        await store.close()
    }

    private func currentSchemas(_ conninfo: String) throws -> [String] {
        let db = try PostgreSQLConnection(conninfo: conninfo)
        let names = try db.prepareOnce("SELECT nspname FROM pg_namespace ORDER BY oid DESC")
        var result: [String] = []
        while try names.step() { result.append(names.text(0) ?? "") }
        return result
    }

    func testTokensAndAnchorsIssuedByOneNodeWorkOnAnother() async throws {
        let stores = try nodes(2)
        let (owner, token) = try await stores[0].addOwner(name: "alice")
        try await expect(await stores[1].authenticate(token: token)?.owner, owner)
        let scope = ReadScope.everything(callerBundleID: Principal.healthApp.bundleID)
        let batch = SaveBatch(owner: owner, revision: SourceRevision(source: StoreFixture.watch, version: "1", productType: nil,
                                                                    osMajor: 1, osMinor: 0, osPatch: 0),
                              defaultDevice: nil, objects: [StoreFixture.heartRate(s(1))])
        _ = try await stores[0].save(batch)
        let first = try await stores[0].queryAnchored(owner: owner, types: [StoreFixture.heartRate], predicate: nil, anchor: nil, limit: 0, scope: scope)
        let next = try await stores[1].queryAnchored(owner: owner, types: [StoreFixture.heartRate], predicate: nil, anchor: first.newAnchor,
                                                     limit: 0, scope: scope)
        XCTAssertEqual(first.samples.count, 1)
        XCTAssertEqual(next.samples.count, 0, "the other node accepts the anchor and has nothing newer")
        for store in stores { await store.close() }
    }

    /// One node's commits reach the other's change feed (data with its spans, permission, source
    /// order and credential changes), never its own twice; a listener whose session was cut says
    /// events may have been missed and hears the next ones.
    func testCommitsOfOneNodeReachTheOthersFeedAndALostListenerReportsMissedEvents() async throws {
        let stores = try nodes(2)
        let heardByA = Mutex<[StoreEvent]>([]), heardByB = Mutex<[StoreEvent]>([])
        _ = stores[0].subscribe { event in heardByA.withLock { $0.append(event) } }
        _ = stores[1].subscribe { event in heardByB.withLock { $0.append(event) } }
        let (owner, _) = try await stores[0].addOwner(name: "alice")
        let revision = SourceRevision(source: StoreFixture.watch, version: "1", productType: nil, osMajor: 1, osMinor: 0, osPatch: 0)
        let sample = StoreFixture.heartRate(s(1), s(2))
        _ = try await stores[0].save(SaveBatch(owner: owner, revision: revision, defaultDevice: nil, objects: [sample]))
        let bundleID = StoreFixture.watch.bundleID
        _ = try await stores[0].registerApp(owner: owner, bundleID: bundleID, name: "Watch")
        try await stores[0].setPermissions(owner: owner, [AuthorizationUpdate(bundleID: bundleID, type: StoreFixture.heartRate,
                                                                              direction: .share, state: .pending)])
        try await stores[0].setSourcePriority(owner: owner, type: StoreFixture.heartRate, bundleIDs: [bundleID])
        try await stores[0].revokeApp(owner: owner, bundleID: bundleID)
        let expected: [StoreEvent] = [
            .data(ChangeEvent(owner: owner, spans: [StoreFixture.heartRate: TimeSpan(start: s(1), end: s(2))], sources: [bundleID])),
            .permissions(owner: owner, bundleIDs: [bundleID]), .sourcePriority(owner: owner, type: StoreFixture.heartRate),
            .credentials(owner: owner, bundleID: bundleID),
        ]
        try await waitFor { heardByB.withLock { $0 } == expected }
        XCTAssertEqual(heardByB.withLock { $0 }, expected)
        XCTAssertEqual(heardByA.withLock { $0 }, [expected[0]], "a node hears its own data change once, and none of its other events")

        let db = try PostgreSQLConnection(conninfo: try conninfo())
        let channel = try XCTUnwrap(stores[1].peerChannelName)
        try db.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE pid <> pg_backend_pid() AND query LIKE '%LISTEN \"\(channel)\"%'")
        try await waitFor { heardByB.withLock { $0.last } == .missed }
        let later = StoreFixture.heartRate(s(3), s(4))
        _ = try await stores[0].save(SaveBatch(owner: owner, revision: revision, defaultDevice: nil, objects: [later]))
        try await waitFor { heardByB.withLock { $0.count } == expected.count + 2 }
        XCTAssertEqual(heardByB.withLock { $0.last }, .data(ChangeEvent(owner: owner, spans: [StoreFixture.heartRate: TimeSpan(start: s(3), end: s(4))],
                                                                        sources: [bundleID])))
        for store in stores { await store.close() }
    }

    /// A change too large for one NOTIFY payload goes out coarse (no spans, no sources: "something
    /// changed"), never failing the commit; a node ignores its own payloads. Needs no server.
    func testOversizedAnnouncementsGoOutCoarse() throws {
        let (sender, receiver) = (PeerChannel(schema: "s"), PeerChannel(schema: "s"))
        let owner = OwnerID(7)
        let sources = Set((0..<400).map { "com.example.app-number-\($0)" })
        let big = StoreEvent.data(ChangeEvent(owner: owner, spans: [StoreFixture.heartRate: TimeSpan(start: 1, end: 2)], sources: sources))
        let many = StoreEvent.permissions(owner: owner, bundleIDs: sources)
        let payloads = sender.payloads(for: [big, many])
        XCTAssertEqual(payloads.count, 2)
        XCTAssertTrue(payloads.allSatisfy { $0.utf8.count <= PeerChannel.payloadLimit })
        XCTAssertEqual(payloads.map(receiver.event(from:)),
                       [.data(ChangeEvent(owner: owner, spans: [:], sources: [])), .permissions(owner: owner, bundleIDs: [])])
        XCTAssertNil(sender.event(from: payloads[0]))
        XCTAssertEqual(sender.name, receiver.name)
        XCTAssertLessThanOrEqual(PeerChannel(schema: String(repeating: "x", count: 100)).name.utf8.count, 63)
    }

    /// Numbers read back by their column's type (int2, int4, int8, bool, float4, float8, NULL) through
    /// `int` and `double`, row after row and across runs of one cached statement, whose column types
    /// are read once per answer.
    func testNumericColumnsOfEveryTypeReadBackThroughIntAndDouble() throws {
        let db = try PostgreSQLConnection(conninfo: try conninfo())
        let statement = try db.prepare("SELECT ?::int8 * n, (n * -2)::int2, n * -3, n = 2, ?::float8 * n, n::float4 / 4::float4, NULL::int8 "
                                       + "FROM generate_series(1, 3) AS n ORDER BY n")
        for (big, fraction) in [(Int64(1) << 40, 1.5), (-7, -0.5)] {
            statement.reset()
            statement.bind(1, big)
            statement.bind(2, fraction)
            var rows: [[Int64]] = [], doubles: [[Double]] = []
            while try statement.step() {
                rows.append((0..<6).map { statement.int($0) })
                doubles.append((0..<6).map { statement.double($0) })
                XCTAssertTrue(statement.isNull(6))
                XCTAssertEqual(statement.int(6), 0)
                XCTAssertEqual(statement.double(6), 0)
            }
            XCTAssertEqual(rows, (1...3).map { n in [big * n, -2 * n, -3 * n, n == 2 ? 1 : 0, Int64(fraction * Double(n)), 0] })
            XCTAssertEqual(doubles, (1...3).map { n in
                [Double(big * n), Double(-2 * n), Double(-3 * n), n == 2 ? 1 : 0, fraction * Double(n), Double(n) / 4]
            })
        }
    }

    /// Waits until `condition` holds (events cross nodes asynchronously), at most 20 seconds.
    private func waitFor(within limit: Duration = .seconds(20), _ condition: () -> Bool) async throws {
        let deadline = ContinuousClock.now + limit
        while !condition() && ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(10)) }
    }

    /// Writers on two nodes commit concurrently while an anchored reader pages along: every saved
    /// sample is seen exactly once. With anchors from a sequence, a transaction holding a lower anchor
    /// can commit after the reader has paged past it, and that sample would be skipped.
    func testConcurrentWritersOnTwoNodesNeverMakeAnAnchoredReaderSkipOrRepeat() async throws {
        let stores = try nodes(3)
        let (owner, _) = try await stores[0].addOwner(name: "alice")
        let scope = ReadScope.everything(callerBundleID: Principal.healthApp.bundleID)
        let rounds = 40, perBatch = 5
        let reader = Task { () throws -> [UUID] in
            var anchor: Data?
            var seen: [UUID] = []
            var idle = 0
            while idle < 20 {
                let page = try await stores[2].queryAnchored(owner: owner, types: [StoreFixture.heartRate], predicate: nil, anchor: anchor,
                                                             limit: 7, scope: scope)
                seen += page.samples.map(\.uuid)
                anchor = page.newAnchor
                idle = seen.count >= 2 * rounds * perBatch && page.samples.isEmpty ? idle + 1 : 0
                try await Task.sleep(for: .milliseconds(2))
            }
            return seen
        }
        var saved: [UUID] = []
        try await withThrowingTaskGroup(of: [UUID].self) { group in
            for node in 0..<2 {
                group.addTask {
                    var uuids: [UUID] = []
                    for round in 0..<rounds {
                        let samples = (0..<perBatch).map { StoreFixture.heartRate(s(Int64(node * 100_000 + round * perBatch + $0))) }
                        let batch = SaveBatch(owner: owner, revision: SourceRevision(source: StoreFixture.watch, version: "1", productType: nil,
                                                                                    osMajor: 1, osMinor: 0, osPatch: 0),
                                              defaultDevice: nil, objects: samples)
                        _ = try await stores[node].save(batch)
                        uuids += samples.map(\.uuid)
                    }
                    return uuids
                }
            }
            for try await uuids in group { saved += uuids }
        }
        let seen = try await reader.value
        XCTAssertEqual(seen.count, Set(seen).count, "no sample is handed out twice")
        XCTAssertEqual(Set(seen), Set(saved), "no sample is skipped")
        for store in stores { await store.close() }
    }
}

import Foundation
import HealthModel
@testable import HealthStorage
import XCTest

/// Two nodes saving the same samples into one PostgreSQL database at once (DESIGN.md, scale-out):
/// each UUID is stored once, and every save succeeds as a first save or a retry. Needs
/// HEALTHSTORE_TEST_POSTGRES.
final class PostgreSQLConcurrentSaveTests: XCTestCase {
    private static func batch(_ owner: OwnerID, _ samples: [Sample]) -> SaveBatch {
        let revision = SourceRevision(source: StoreFixture.watch, version: "1", productType: nil, osMajor: 1, osMinor: 0, osPatch: 0)
        return SaveBatch(owner: owner, revision: revision, defaultDevice: nil, objects: samples)
    }

    /// A session on the test's schema, beside the stores.
    private func session(_ schema: String) throws -> PostgreSQLConnection {
        try PostgreSQLConnection(conninfo: try conninfo(), sessionSetup: "SET search_path TO \(schema)")
    }

    private func waitUntil(_ store: PostgreSQLStore, queued: Int) async throws {
        let deadline = ContinuousClock.now + .seconds(60)
        while store.queuedWrites < queued && ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(5)) }
        XCTAssertEqual(store.queuedWrites, queued, "saves queued behind the held writer")
    }

    private func count(_ sql: String, _ db: PostgreSQLConnection) throws -> Int {
        let statement = try db.prepareOnce(sql)
        _ = try statement.step()
        return Int(statement.int(0))
    }

    func testTwoNodesSavingTheSameUUIDsAtOnceStoreEachOnceAndBothSucceed() async throws {
        let (stores, schema) = try nodesAndSchema(2)
        let (owner, _) = try await stores[0].addOwner(name: "alice")
        let rounds = 12, perBatch = 300
        for round in 0..<rounds {
            let samples = (0..<perBatch).map { StoreFixture.heartRate(s(Int64(round * perBatch + $0)), bpm: Double(60 + $0 % 40)) }
            let batch = Self.batch(owner, samples)
            let saves = stores.map { store in Task { try await store.save(batch) } }
            var outcomes: [[SaveOutcome]] = []
            for save in saves { outcomes.append(try await save.value) }
            for index in 0..<perBatch {
                XCTAssertEqual(Set(outcomes.map { $0[index] }), [.stored, .alreadyStored], "round \(round), sample \(index): one node stores it, the other finds it")
            }
        }
        let db = try session(schema)
        XCTAssertEqual(try count("SELECT count(*) FROM samples WHERE owner = \(owner.rawValue)", db), rounds * perBatch)
        XCTAssertEqual(try count("SELECT count(DISTINCT anchor) FROM samples WHERE owner = \(owner.rawValue)", db), rounds * perBatch)
        for store in stores { await store.close() }
    }

    /// A job that fails after taking its owner's counter row is undone to its savepoint, which releases
    /// the row on PostgreSQL; the next job of the same owner in that transaction must take it again.
    /// Held without it, another node saves the same UUIDs and hands out the same anchors meanwhile.
    func testAJobFailingAfterTakingTheOwnersCounterLeavesTheNextJobOfTheOwnerHoldingIt() async throws {
        let (stores, schema) = try nodesAndSchema(2)
        let (node, other) = (stores[0], stores[1])
        let (alice, _) = try await node.addOwner(name: "alice")
        let (bob, _) = try await node.addOwner(name: "bob")
        // Bob's counter held by a session outside, so the node's group stops at its job for bob, after alice's.
        let blocker = try session(schema)
        try blocker.execute("BEGIN; UPDATE anchor_counters SET last_anchor = last_anchor WHERE owner = \(bob.rawValue)")
        let unstorable = Sample(type: StoreFixture.heartRate, start: .min / 2 - 1, end: .max / 2 + 1,
                                body: .quantity(Quantity(60, "count/min"), count: 1))
        let samples = (0..<40).map { StoreFixture.heartRate(s(Int64(100 + $0))) }
        // Queued while the writer is held, the three saves run as one group in this order.
        let hold = try await WriterHold(node)
        let (failingBatch, aliceBatch) = (Self.batch(alice, [StoreFixture.heartRate(s(1)), unstorable]), Self.batch(alice, samples))
        let bobBatch = Self.batch(bob, [StoreFixture.heartRate(s(2))])
        let failing = Task { try await node.save(failingBatch) }
        try await waitUntil(node, queued: 1)
        let first = Task { try await node.save(aliceBatch) }
        try await waitUntil(node, queued: 2)
        let bobs = Task { try await node.save(bobBatch) }
        try await waitUntil(node, queued: 3)
        try await hold.release()
        let probe = try session(schema)
        let waiting = "SELECT count(*) FROM pg_locks WHERE NOT granted AND pid <> pg_backend_pid()"
        let deadline = ContinuousClock.now + .seconds(60)
        while try count(waiting, probe) == 0 && ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(20)) }
        XCTAssertGreaterThan(try count(waiting, probe), 0, "the node's group never reached its job for bob")

        try probe.execute("BEGIN")
        XCTAssertThrowsError(try probe.execute("SELECT 1 FROM anchor_counters WHERE owner = \(alice.rawValue) FOR UPDATE NOWAIT"),
                             "alice's counter is free while the node's transaction holds her new samples")
        try? probe.execute("ROLLBACK")
        // The other node's save of the same UUIDs waits too (for alice's counter) before the node goes on.
        let second = Task { try await other.save(aliceBatch) }
        while try count(waiting, probe) < 2 && ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(20)) }
        XCTAssertEqual(try count(waiting, probe), 2, "the other node's save does not wait")
        try blocker.execute("ROLLBACK")

        do {
            _ = try await failing.value
            XCTFail("a sample whose times cannot be stored was saved")
        } catch {
            XCTAssertEqual((error as? HealthError)?.code, .invalidArgument, "\(error)")
        }
        let (firstOutcomes, bobsOutcomes, secondOutcomes) = (try await first.value, try await bobs.value, try await second.value)
        XCTAssertEqual(firstOutcomes, Array(repeating: .stored, count: samples.count))
        XCTAssertEqual(bobsOutcomes, [.stored])
        XCTAssertEqual(secondOutcomes, Array(repeating: .alreadyStored, count: samples.count), "the other node's save waited for the first")
        XCTAssertEqual(try count("SELECT count(*) FROM samples WHERE owner = \(alice.rawValue)", probe), samples.count)
        XCTAssertEqual(try count("SELECT count(DISTINCT anchor) FROM samples WHERE owner = \(alice.rawValue)", probe), samples.count)
        for store in stores { await store.close() }
    }
}

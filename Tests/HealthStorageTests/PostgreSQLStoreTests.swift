import Foundation
import HealthModel
@testable import HealthStorage
import XCTest

/// What only the PostgreSQL engine has: refusals at open and several nodes on one database. Needs
/// HEALTHSTORE_TEST_POSTGRES except where it says otherwise.
final class PostgreSQLStoreTests: XCTestCase {
    private func conninfo() throws -> String {
        guard let conninfo = ProcessInfo.processInfo.environment["HEALTHSTORE_TEST_POSTGRES"], !conninfo.isEmpty else {
            throw XCTSkip("HEALTHSTORE_TEST_POSTGRES is not set")
        }
        return conninfo
    }

    /// Two stores ("nodes") on one fresh schema; the schema is dropped afterwards.
    private func nodes(_ count: Int) throws -> [PostgreSQLStore] {
        let conninfo = try conninfo()
        let schema = "hs_test_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
        var options = PostgreSQLStore.Options()
        options.schema = schema
        addTeardownBlock {
            let db = try PostgreSQLConnection(conninfo: conninfo)
            try db.execute("DROP SCHEMA IF EXISTS \(schema) CASCADE")
        }
        return try (0..<count).map { _ in try PostgreSQLStore.open(conninfo: conninfo, options: options) }
    }

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

import Foundation
import HealthModel
@testable import HealthStorage
import XCTest

/// The PostgreSQL schema can be distributed by owner (Citus-style `create_distributed_table(…,
/// 'owner')`), and writers of different owners never wait for each other. Needs HEALTHSTORE_TEST_POSTGRES.
final class DistributionTests: XCTestCase {
    /// The tables without an owner column, each with why it is global (reference tables in a
    /// distributed deployment; none is written by a save).
    static let globalTables: [String: String] = [
        "schema_version": "one row: the schema's migration step",
        "store_info": "one row: the store's anchor key, shared by every node",
        "owners": "the directory of owners (id and name), read when an owner is created, listed or authenticated",
        "tokens": "found by the hash of the token a client presents, before its owner is known",
    ]


    private func rows(_ db: PostgreSQLConnection, _ sql: String) throws -> [[String]] {
        let statement = try db.prepareOnce(sql)
        var rows: [[String]] = []
        while try statement.step() { rows.append((0..<3).map { statement.isNull(Int32($0)) ? "" : statement.text(Int32($0)) ?? "" }) }
        return rows
    }

    /// Every table but the global ones has a primary key, and every index (primary keys and unique
    /// constraints included) of those tables leads with `owner`; no foreign key and no sequence exists.
    func testEveryKeyAndIndexLeadsWithTheOwner() async throws {
        let (stores, schema) = try nodesAndSchema(1)
        await stores[0].close()
        let catalog = try PostgreSQLConnection(conninfo: try conninfo(), sessionSetup: "SET search_path TO \(schema)")
        let tables = try rows(catalog, """
            SELECT c.relname, '', '' FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
            WHERE n.nspname = current_schema() AND c.relkind IN ('r', 'p') ORDER BY 1
            """).map { $0[0] }
        XCTAssertTrue(tables.contains("samples") && tables.contains("types") && tables.contains("anchor_counters"), "\(tables)")
        XCTAssertEqual(Set(Self.globalTables.keys).subtracting(tables), [], "every global table listed exists")
        let indexes = try rows(catalog, """
            SELECT t.relname, i.relname, a.attname FROM pg_index x
            JOIN pg_class i ON i.oid = x.indexrelid JOIN pg_class t ON t.oid = x.indrelid
            JOIN pg_namespace n ON n.oid = t.relnamespace
            LEFT JOIN pg_attribute a ON a.attrelid = t.oid AND a.attnum = x.indkey[0]
            WHERE n.nspname = current_schema() ORDER BY 1, 2
            """)
        XCTAssertTrue(indexes.contains { $0[1] == "samples_by_uuid" }, "\(indexes)")
        for index in indexes where Self.globalTables[index[0]] == nil {
            XCTAssertEqual(index[2], "owner", "index \(index[1]) of \(index[0]) leads with \(index[2].isEmpty ? "an expression" : index[2])")
        }
        let withoutKey = try rows(catalog, """
            SELECT c.relname, '', '' FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
            WHERE n.nspname = current_schema() AND c.relkind IN ('r', 'p')
              AND NOT EXISTS (SELECT 1 FROM pg_index x WHERE x.indrelid = c.oid AND x.indisprimary)
            """).map { $0[0] }
        XCTAssertEqual(withoutKey, [], "every table has a primary key")
        let foreignKeys = try rows(catalog, """
            SELECT table_name, constraint_name, '' FROM information_schema.table_constraints
            WHERE table_schema = current_schema() AND constraint_type = 'FOREIGN KEY'
            """)
        XCTAssertEqual(foreignKeys, [], "no foreign key ties rows together")
        let sequences = try rows(catalog, """
            SELECT c.relname, '', '' FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
            WHERE n.nspname = current_schema() AND c.relkind = 'S'
            """)
        XCTAssertEqual(sequences, [], "no sequence hands out values across owners")
    }

    /// Writers on two nodes, each saving for its own owner, add new sources, revisions and devices in
    /// every batch at the same time: no batch fails (with lookup rows shared by every owner, both
    /// took the same next ids and could wait on each other's rows, one of them answered UNAVAILABLE).
    func testWritersOfDifferentOwnersAddingLookupRowsConcurrentlyNeverFail() async throws {
        let stores = try nodes(2)
        var owners: [OwnerID] = []
        for name in ["alice", "bob"] { owners.append(try await stores[0].addOwner(name: name).0) }
        let rounds = 40
        try await withThrowingTaskGroup(of: Void.self) { group in
            for node in 0..<2 {
                let (store, owner) = (stores[node], owners[node])
                group.addTask {
                    for round in 0..<rounds {
                        let source = Source(name: "App \(round)", bundleID: "com.example.app\(round)")
                        let device = Device(name: "Sensor \(round)", manufacturer: "Example", model: "S\(round)")
                        let revision = SourceRevision(source: source, version: "\(round)", productType: nil, osMajor: 1, osMinor: 0, osPatch: 0)
                        let samples = (0..<3).map { StoreFixture.heartRate(s(Int64(round * 10 + $0))) }
                        let outcomes = try await store.save(SaveBatch(owner: owner, revision: revision, defaultDevice: device, objects: samples))
                        XCTAssertEqual(outcomes, [.stored, .stored, .stored])
                    }
                }
            }
            try await group.waitForAll()
        }
        let scope = ReadScope.everything(callerBundleID: Principal.healthApp.bundleID)
        for owner in owners {
            let stored = try await stores[1].querySamples(owner: owner, types: [StoreFixture.heartRate], predicate: nil, sort: [],
                                                          limit: 0, scope: scope)
            XCTAssertEqual(stored.count, 3 * rounds)
            XCTAssertEqual(Set(stored.compactMap { $0.sourceRevision?.source.bundleID }).count, rounds)
            XCTAssertEqual(Set(stored.compactMap(\.device)).count, rounds)
        }
        for store in stores { await store.close() }
    }
}

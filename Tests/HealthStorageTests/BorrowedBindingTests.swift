import Foundation
import HealthModel
@testable import HealthStorage
import XCTest

/// The writer binds its rows' UUIDs, heads and units in place (`Statement.bind(_:borrowing:text:)`,
/// `BindingBytes`) instead of as copies, and rebinds its multi-row statements after `rewind()` rather
/// than `reset()`: what is stored must be exactly what was bound, and the bytes need live only until
/// the statement is reset.
final class BorrowedBindingTests: StoreTestCase {
    private func connection() throws -> (SQLiteConnection, URL) {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("borrowed-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let db = try SQLiteConnection(path: directory.appendingPathComponent("db.sqlite").path, readOnly: false)
        try db.execute("CREATE TABLE t (b BLOB, x TEXT, n INTEGER)")
        return (db, directory)
    }

    private func rows(_ db: SQLiteConnection) throws -> [(blob: Data?, text: String?, n: Int64?)] {
        let read = try db.prepare("SELECT b, x, n FROM t ORDER BY rowid")
        var rows: [(Data?, String?, Int64?)] = []
        while try read.step() { rows.append((read.blob(0), read.text(1), read.optionalInt(2))) }
        read.reset()
        return rows
    }

    /// Bytes bound in place are stored as they were at the run, not as they are once overwritten and
    /// freed after the reset; empty ones stay an empty blob and an empty text, not NULL.
    func testBytesBoundInPlaceAreStoredAsBoundAndNeedLiveOnlyUntilTheReset() throws {
        let (db, directory) = try connection()
        defer { try? FileManager.default.removeItem(at: directory) }
        let uuid = UUID()
        for unit in ["count/min", ""] {
            var bytes = BindingBytes(uuids: 1, textBytes: unit.utf8.count)
            let insert = try db.prepare("INSERT INTO t (b, x, n) VALUES (?, ?, ?)")
            insert.rewind()
            let blob = bytes.copy(uuid)
            insert.bind(1, borrowing: unit.isEmpty ? UnsafeRawBufferPointer(rebasing: blob.prefix(0)) : blob, text: false)
            insert.bind(2, borrowing: bytes.copy(unit), text: true)
            insert.bind(3, 7 as Int64?)
            try insert.run()
            insert.reset()
            // Overwritten, then freed: the statement no longer points at them.
            UnsafeMutableRawBufferPointer(mutating: blob).initializeMemory(as: UInt8.self, repeating: 0xAB)
            bytes.deallocate()
        }
        let stored = try rows(db)
        XCTAssertEqual(stored.count, 2)
        XCTAssertEqual(stored[0].blob, withUnsafeBytes(of: uuid.uuid) { Data($0) })
        XCTAssertEqual(stored[0].text, "count/min")
        XCTAssertEqual(stored[1].blob, Data(), "an empty blob bound in place is not NULL")
        XCTAssertEqual(stored[1].text, "", "an empty text bound in place is not NULL")
    }

    /// `rewind()` keeps the bindings (the statement runs again with the same values); `reset()` clears
    /// them (unbound parameters are NULL).
    func testRewindKeepsBindingsAndResetClearsThem() throws {
        let (db, directory) = try connection()
        defer { try? FileManager.default.removeItem(at: directory) }
        let insert = try db.prepare("INSERT INTO t (b, x, n) VALUES (?, ?, ?)")
        insert.bind(1, Data([1, 2]) as Data?)
        insert.bind(2, "kept" as String?)
        insert.bind(3, 5 as Int64?)
        try insert.run()
        insert.rewind()
        try insert.run()
        insert.reset()
        try insert.run()
        insert.reset()
        let stored = try rows(db)
        XCTAssertEqual(stored.map(\.text), ["kept", "kept", nil])
        XCTAssertEqual(stored.map(\.n), [5, 5, nil])
        XCTAssertEqual(stored.map(\.blob), [Data([1, 2]), Data([1, 2]), nil])
    }

    /// Units of several lengths, and UUIDs, go through the writer's multi-row insert (a batch, and a
    /// group of lone saves), its one-row insert (a correlation's readings) and its claim, bound in
    /// place, and read back exactly as saved; saved again they are retries.
    func testSavedUnitsAndUUIDsReadBackExactly() async throws {
        try await forEachEngine {
            let f = try await StoreFixture()
            func quantity(_ at: Int64, _ type: String, _ value: Double, _ unit: String) -> Sample {
                Sample(type: type, start: s(at), end: s(at), body: .quantity(Quantity(value, unit), count: 1))
            }
            var samples: [Sample] = []
            for index in 0..<37 {
                let at = Int64(index), unit = index % 2 == 0 ? "count/min" : "count/s"
                samples.append(quantity(at, StoreFixture.heartRate, 60 + Double(index), unit))
                samples.append(quantity(at, StoreFixture.steps, Double(index), "count"))
            }
            let pressure = Sample(type: StoreFixture.bloodPressure, start: s(100), end: s(100), body: .correlation([
                quantity(100, StoreFixture.systolic, 120, "mmHg"), quantity(100, StoreFixture.diastolic, 80, "mmHg"),
            ]))
            let lone = (0..<5).map { quantity(200 + Int64($0), StoreFixture.heartRate, 70, "count/min") }
            try await f.save(samples + [pressure])
            for sample in lone { try await f.save([sample]) }
            let read = try await f.query([StoreFixture.heartRate, StoreFixture.steps, StoreFixture.bloodPressure])
            let byUUID = Dictionary(uniqueKeysWithValues: read.map { ($0.uuid, $0) })
            XCTAssertEqual(read.count, samples.count + lone.count + 1)
            for sample in samples + lone { XCTAssertEqual(byUUID[sample.uuid]?.body, sample.body) }
            guard case .correlation(let saved) = pressure.body, case .correlation(let children)? = byUUID[pressure.uuid]?.body else {
                return XCTFail("the correlation was not read back")
            }
            XCTAssertEqual(Dictionary(uniqueKeysWithValues: children.map { ($0.uuid, $0.body) }),
                           Dictionary(uniqueKeysWithValues: saved.map { ($0.uuid, $0.body) }))
            let again = try await f.save(samples)
            XCTAssertEqual(again, Array(repeating: .alreadyStored, count: samples.count))
        }
    }
}

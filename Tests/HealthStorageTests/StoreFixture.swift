import XCTest
import Foundation
import HealthModel
@testable import HealthStorage

/// A fresh store in a temporary directory with one owner and helpers to build samples.
final class StoreFixture {
    let directory: URL
    let path: String
    var store: SQLiteStore
    let owner: OwnerID

    static let heartRate = "HKQuantityTypeIdentifierHeartRate"
    static let steps = "HKQuantityTypeIdentifierStepCount"
    static let sleep = "HKCategoryTypeIdentifierSleepAnalysis"
    static let bloodPressure = "HKCorrelationTypeIdentifierBloodPressure"
    static let systolic = "HKQuantityTypeIdentifierBloodPressureSystolic"
    static let diastolic = "HKQuantityTypeIdentifierBloodPressureDiastolic"
    static let workout = "HKWorkoutTypeIdentifier"

    static let watch = Source(name: "Watch", bundleID: "com.example.watch")
    static let scale = Source(name: "Scale", bundleID: "com.example.scale")
    static let watchDevice = Device(name: "Watch", manufacturer: "Example", model: "W1")

    init(options: SQLiteStore.Options = SQLiteStore.Options()) async throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("hs-storage-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        path = directory.appendingPathComponent("store.sqlite").path
        store = try SQLiteStore.open(path: path, options: options)
        owner = try await store.addOwner(name: "alice").0
    }

    deinit { try? FileManager.default.removeItem(at: directory) }

    func reopen() async throws {
        await store.close()
        store = try SQLiteStore.open(path: path)
    }

    func batch(_ objects: [Sample], source: Source = StoreFixture.watch, owner: OwnerID? = nil, version: String = "1.0",
               device: Device? = StoreFixture.watchDevice) -> SaveBatch {
        SaveBatch(owner: owner ?? self.owner, revision: SourceRevision(source: source, version: version, productType: "Watch6,1",
                                                                      osMajor: 10, osMinor: 1, osPatch: 0),
                  defaultDevice: device, objects: objects)
    }

    @discardableResult
    func save(_ objects: [Sample], source: Source = StoreFixture.watch, owner: OwnerID? = nil) async throws -> [SaveOutcome] {
        try await store.save(batch(objects, source: source, owner: owner))
    }

    func query(_ types: [String] = [StoreFixture.heartRate], _ predicate: QueryPredicate? = nil, sort: [SampleSortDescriptor] = [],
               limit: Int = 0, scope: ReadScope? = nil, owner: OwnerID? = nil) async throws -> [Sample] {
        try await store.querySamples(owner: owner ?? self.owner, types: types, predicate: predicate, sort: sort, limit: limit,
                                     scope: scope ?? .everything(callerBundleID: Principal.healthApp.bundleID))
    }

    /// The owner's current anchor: an anchored query from here sees only later changes.
    func anchor() async throws -> Data {
        try await store.currentAnchor(owner: owner)
    }

    /// The store's anchor-sealing key, read through a private connection.
    func anchorKey() throws -> Data {
        let db = try SQLiteConnection(path: path, readOnly: true)
        let statement = try db.prepareOnce("SELECT anchor_key FROM store_info WHERE id = 1")
        _ = try statement.step()
        return try XCTUnwrap(statement.blob(0))
    }

    /// Row count of a table, read through a private connection.
    func count(_ table: String) throws -> Int {
        let db = try SQLiteConnection(path: path, readOnly: true)
        let statement = try db.prepareOnce("SELECT COUNT(*) FROM \(table)")
        _ = try statement.step()
        return Int(statement.int(0))
    }

    static func heartRate(_ start: Microseconds, _ end: Microseconds? = nil, bpm: Double = 60, uuid: UUID = UUID(),
                          metadata: Metadata = [:], device: Device? = nil) -> Sample {
        Sample(uuid: uuid, type: heartRate, start: start, end: end ?? start, metadata: metadata, device: device,
               body: .quantity(Quantity(bpm, "count/min"), count: 1))
    }

    static func sleep(_ start: Microseconds, _ end: Microseconds, value: Int64) -> Sample {
        Sample(type: sleep, start: start, end: end, body: .category(value))
    }
}

/// Seconds → microseconds, for readable test times.
func s(_ seconds: Int64) -> Microseconds { seconds * 1_000_000 }

/// XCTAssertEqual for async expressions (XCTest's autoclosures cannot await).
func expect<T: Equatable>(_ actual: @autoclosure () async throws -> T, _ expected: T, _ message: String = "",
                          file: StaticString = #filePath, line: UInt = #line) async throws {
    let value = try await actual()
    XCTAssertEqual(value, expected, message, file: file, line: line)
}

import XCTest
import Foundation
import HealthModel
@testable import HealthStorage
import Synchronization

/// The engines storage tests run against: SQLite always, PostgreSQL too when HEALTHSTORE_TEST_POSTGRES
/// holds a libpq conninfo or URL (each PostgreSQL fixture gets a fresh schema of its own).
enum StoreEngine: Sendable, Equatable, CustomStringConvertible {
    case sqlite
    case postgreSQL(conninfo: String)

    static var available: [StoreEngine] {
        let conninfo = ProcessInfo.processInfo.environment["HEALTHSTORE_TEST_POSTGRES"] ?? ""
        return conninfo.isEmpty ? [.sqlite] : [.sqlite, .postgreSQL(conninfo: conninfo)]
    }

    /// The engine `StoreFixture()` opens; `StoreTestCase` sets it around each run of a test.
    static let current = Mutex(StoreEngine.sqlite)

    var description: String {
        switch self {
        case .sqlite: "sqlite"
        case .postgreSQL: "postgresql"
        }
    }
}

/// A storage test case whose tests run their body once per engine in `StoreEngine.available`
/// (`forEachEngine`). Test classes that check SQLite's own files (durability, disk full, page
/// counts, schema steps of the file) derive from XCTestCase instead and run on SQLite only.
class StoreTestCase: XCTestCase {
    /// Runs `body` once per engine; every `StoreFixture()` made inside opens that engine. An error
    /// fails the test naming the engine it came from.
    func forEachEngine(_ body: () async throws -> Void) async throws {
        defer { StoreEngine.current.withLock { $0 = .sqlite } }
        for engine in StoreEngine.available {
            StoreEngine.current.withLock { $0 = engine }
            do {
                try await body()
            } catch {
                XCTFail("threw \(error)")
                return
            }
        }
    }

    /// Failures name the engine they happened on.
    override func recordFailure(withDescription description: String, inFile filePath: String, atLine lineNumber: Int, expected: Bool) {
        let engine = StoreEngine.current.withLock { $0 }
        super.recordFailure(withDescription: "[\(engine)] \(description)", inFile: filePath, atLine: lineNumber, expected: expected)
    }
}

/// A fresh store (a temporary SQLite file, or a fresh PostgreSQL schema) with one owner and helpers
/// to build samples.
final class StoreFixture {
    let engine: StoreEngine
    let directory: URL
    /// The SQLite file (SQLite-only tests use it; nothing is there on PostgreSQL).
    let path: String
    /// The PostgreSQL schema of this fixture.
    private let schema = "hs_test_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
    var store: EngineStore
    let owner: OwnerID
    /// What the store opens with, reopened too.
    let options: SQLiteStore.Options

    var isSQLite: Bool { engine == .sqlite }

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

    /// SQLite `options` apply to SQLite stores only.
    init(options: SQLiteStore.Options = SQLiteStore.Options()) async throws {
        engine = StoreEngine.current.withLock { $0 }
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("hs-storage-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        path = directory.appendingPathComponent("store.sqlite").path
        self.options = options
        store = try Self.open(engine, path: path, schema: schema, options: options)
        owner = try await store.addOwner(name: "alice").0
    }

    private static func open(_ engine: StoreEngine, path: String, schema: String,
                             options: SQLiteStore.Options = SQLiteStore.Options()) throws -> EngineStore {
        switch engine {
        case .sqlite:
            return try SQLiteStore.open(path: path, options: options)
        case .postgreSQL(let conninfo):
            var pgOptions = PostgreSQLStore.Options()
            pgOptions.schema = schema
            pgOptions.tombstoneRetention = options.tombstoneRetention
            return try PostgreSQLStore.open(conninfo: conninfo, options: pgOptions)
        }
    }

    deinit {
        try? FileManager.default.removeItem(at: directory)
        if case .postgreSQL(let conninfo) = engine, let db = try? PostgreSQLConnection(conninfo: conninfo) {
            try? db.execute("DROP SCHEMA IF EXISTS \(schema) CASCADE")
        }
    }

    func reopen() async throws {
        await store.close()
        store = try Self.open(engine, path: path, schema: schema, options: options)
    }

    /// Replaces the (SQLite) store by an empty one as schema step `step` left it, holding only the
    /// fixture's owner, and opens it (migrating it to the current step).
    func reopenFromStep(_ step: Int) async throws {
        await store.close()
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
        do {
            let db = try SQLiteConnection(path: path, readOnly: false)
            try Schema.migrate(db, to: step)
            try db.execute("INSERT INTO owners (id, name, created) VALUES (\(owner.rawValue), 'alice', 0)")
            // Since step 13 the owner's anchor counter has a table of its own.
            if step >= 13 { try db.execute("INSERT INTO anchor_counters (owner, last_anchor) VALUES (\(owner.rawValue), 0)") }
        }
        store = try Self.open(engine, path: path, schema: schema, options: options)
    }

    /// A private connection to the fixture's database, for checks beside the store.
    func connect() throws -> Database {
        switch engine {
        case .sqlite:
            return try SQLiteConnection(path: path, readOnly: true)
        case .postgreSQL(let conninfo):
            return try PostgreSQLConnection(conninfo: conninfo, sessionSetup: "SET search_path TO \(schema)")
        }
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
        let db = try connect()
        let statement = try db.prepareOnce("SELECT anchor_key FROM store_info WHERE id = 1")
        _ = try statement.step()
        return try XCTUnwrap(statement.blob(0))
    }

    /// Row count of a table, read through a private connection.
    func count(_ table: String) throws -> Int {
        let db = try connect()
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

/// Holds the writer in a job until `release`; returns once the writer runs it.
final class WriterHold: Sendable {
    private final class Signals: Sendable {
        let gate = DispatchSemaphore(value: 0)
        let running = Atomic<Bool>(false)
    }

    private let signals = Signals()
    private let task: Task<Void, any Error>

    init(_ store: EngineStore) async throws {
        let signals = signals
        task = Task { try await store.write { _ in signals.running.store(true, ordering: .relaxed); signals.gate.wait() } }
        while !signals.running.load(ordering: .relaxed) { try await Task.sleep(nanoseconds: 1_000_000) }
    }

    func release() async throws {
        signals.gate.signal()
        try await task.value
    }
}

/// Takes what the writer posts and runs it only when the test says.
final class HeldQueue: CompletionQueue {
    private let posts = Mutex<[@Sendable () -> Void]>([])

    func post(_ work: @escaping @Sendable () -> Void) -> Bool {
        posts.withLock { $0.append(work) }
        return true
    }

    var postCount: Int { posts.withLock { $0.count } }

    func runPosted() {
        let taken = posts.withLock { posts in
            defer { posts.removeAll() }
            return posts
        }
        taken.forEach { $0() }
    }
}

/// A save's result, once its completion ran.
final class Outcome: Sendable {
    let result = Mutex<Result<[SaveOutcome], any Error>?>(nil)
    var ran: Bool { result.withLock { $0 != nil } }
    func get() throws -> [SaveOutcome]? { try result.withLock { try $0?.get() } }
}

/// Polls until `condition` holds (the writer is observed, never timed).
func waitUntil(_ condition: () -> Bool) async throws {
    while !condition() { try await Task.sleep(nanoseconds: 1_000_000) }
}

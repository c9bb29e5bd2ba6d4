// Storage benchmark: SQLiteStore saves (batch sizes 1, 100, 1000, many concurrent batches so group
// commit kicks in) in each durability mode, beside a raw-SQLite baseline inserting the same rows with
// one prepared statement into the same schema at the same `synchronous` setting; then time-range
// query latency over the stored heart-rate samples.
import CSQLite
import Foundation
import HealthModel
import HealthStorage

let arguments = CommandLine.arguments
func option(_ name: String, _ fallback: Int) -> Int {
    guard let index = arguments.firstIndex(of: name), index + 1 < arguments.count, let value = Int(arguments[index + 1]) else { return fallback }
    return value
}
let total = option("--samples", 200_000)
let concurrency = option("--concurrency", 64)
let directory = FileManager.default.temporaryDirectory.appendingPathComponent("storage-bench-\(getpid())")
try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(at: directory) }

let heartRate = "HKQuantityTypeIdentifierHeartRate"
let revision = SourceRevision(source: Source(name: "Watch", bundleID: "com.example.watch"), version: "1.0", productType: "Watch6,1",
                              osMajor: 10, osMinor: 1, osPatch: 0)
let device = Device(name: "Watch", manufacturer: "Example", model: "W1")
let epochStart: Microseconds = 1_700_000_000_000_000
let spacing: Microseconds = 5_000_000

/// Heart-rate sample number `i`: one every 5 s, 40–180 bpm.
func sample(_ i: Int) -> Sample {
    let start = epochStart + Microseconds(i) * spacing
    return Sample(type: heartRate, start: start, end: start, body: .quantity(Quantity(Double(40 + i % 140), "count/min"), count: 1))
}

/// Saves samples [from, from + count) in batches of `batchSize` from `concurrency` concurrent tasks.
func timedSaves(_ store: SQLiteStore, owner: OwnerID, from: Int, count: Int, batchSize: Int) async throws -> Double {
    let batches = (count + batchSize - 1) / batchSize
    let started = Date()
    try await withThrowingTaskGroup(of: Void.self) { group in
        for worker in 0..<concurrency {
            group.addTask {
                var batch = worker
                while batch < batches {
                    let lower = from + batch * batchSize, upper = min(from + count, lower + batchSize)
                    _ = try await store.save(SaveBatch(owner: owner, revision: revision, defaultDevice: device,
                                                       objects: (lower..<upper).map(sample)))
                    batch += concurrency
                }
            }
        }
        try await group.waitForAll()
    }
    return Date().timeIntervalSince(started)
}

/// The same rows through one prepared statement, `perTransaction` rows per transaction, into a fresh
/// file with the store's schema and settings for `durability`.
func rawBaseline(rows: Int, perTransaction: Int, durability: SQLiteStore.Options.Durability) async throws -> Double {
    let path = directory.appendingPathComponent("raw-\(durability.rawValue)-\(perTransaction).sqlite").path
    let store = try SQLiteStore.open(path: path)
    _ = try await store.addOwner(name: "raw")
    await store.close()
    var db: OpaquePointer?
    guard sqlite3_open(path, &db) == SQLITE_OK, let db else { fatalError("cannot open \(path)") }
    defer { sqlite3_close(db) }
    let options = SQLiteStore.Options()
    for pragma in ["journal_mode = WAL", "synchronous = \(durability.synchronous)", "wal_autocheckpoint = \(options.checkpointPages)",
                   "cache_size = -\(options.writerCacheMiB * 1024)"] {
        sqlite3_exec(db, "PRAGMA \(pragma)", nil, nil, nil)
    }
    sqlite3_exec(db, "INSERT INTO types (id, identifier) VALUES (1, '\(heartRate)'); INSERT INTO sources (id, bundle_id) VALUES (1, 'b')", nil, nil, nil)
    var statement: OpaquePointer?
    sqlite3_prepare_v2(db, """
        INSERT INTO samples (owner, anchor, uuid, type, start_time, end_time, value, unit, raw_value, count, category, source,
                             revision, device, created, flags, sync_id, sync_version, parent, metadata)
        VALUES (1, ?, ?, 1, ?, ?, ?, 'count/min', ?, NULL, NULL, 1, 1, 1, ?, 0, NULL, NULL, NULL, NULL)
        """, -1, &statement, nil)
    let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
    let started = Date()
    for i in 0..<rows {
        if i % perTransaction == 0 { sqlite3_exec(db, "BEGIN", nil, nil, nil) }
        let s = sample(i)
        sqlite3_reset(statement)
        sqlite3_bind_int64(statement, 1, Int64(i + 1))
        withUnsafeBytes(of: s.uuid.uuid) { _ = sqlite3_bind_blob(statement, 2, $0.baseAddress, 16, transient) }
        sqlite3_bind_int64(statement, 3, s.start)
        sqlite3_bind_int64(statement, 4, s.end)
        sqlite3_bind_double(statement, 5, (s.quantity?.value ?? 0) / 60)
        sqlite3_bind_double(statement, 6, s.quantity?.value ?? 0)
        sqlite3_bind_int64(statement, 7, s.start)
        guard sqlite3_step(statement) == SQLITE_DONE else { fatalError(String(cString: sqlite3_errmsg(db))) }
        if i % perTransaction == perTransaction - 1 || i == rows - 1 { sqlite3_exec(db, "COMMIT", nil, nil, nil) }
    }
    sqlite3_finalize(statement)
    return Date().timeIntervalSince(started)
}


/// Rows of figures, one column per durability mode.
var table: [(label: String, rates: [Double])] = []
@MainActor func record(_ label: String, _ count: Int, _ seconds: Double) {
    if let row = table.firstIndex(where: { $0.label == label }) {
        table[row].rates.append(Double(count) / seconds)
    } else {
        table.append((label, [Double(count) / seconds]))
    }
}
@MainActor func rates(_ label: String) -> [Double] { table.first { $0.label == label }?.rates ?? [] }

let modes: [SQLiteStore.Options.Durability] = [.powerLoss, .processCrash]
let singles = min(20_000, total / 50), hundreds = min(200_000, total / 5)
print("""
    storage bench: \(total) heart-rate samples per durability mode (\(singles) in batches of 1, \(hundreds) of 100, the rest of 1000), \
    \(concurrency) concurrent savers, \(ProcessInfo.processInfo.activeProcessorCount) cores; raw SQLite: \(singles) rows 1 per transaction, \
    \(total) rows 1000 and 20000 per transaction
    """)
var queryStore: (store: SQLiteStore, owner: OwnerID)?
for durability in modes {
    var options = SQLiteStore.Options()
    options.durability = durability
    let store = try SQLiteStore.open(path: directory.appendingPathComponent("store-\(durability.rawValue).sqlite").path, options: options)
    let (owner, _) = try await store.addOwner(name: "bench")
    var saved = 0
    for (batchSize, count) in [(1, singles), (100, hundreds), (1000, total - singles - hundreds)] {
        record("save, batch \(batchSize)", count,
               try await timedSaves(store, owner: owner, from: saved, count: count, batchSize: batchSize))
        saved += count
    }
    for (perTransaction, count) in [(1, singles), (1_000, total), (20_000, total)] {
        record("raw, \(perTransaction) rows/txn", count,
               try await rawBaseline(rows: count, perTransaction: perTransaction, durability: durability))
    }
    if queryStore == nil { queryStore = (store, owner) } else { await store.close() }
}

func column(_ text: String) -> String { text.padding(toLength: 32, withPad: " ", startingAt: 0) }
func line(_ label: String, _ cells: [String]) { print(label.padding(toLength: 38, withPad: " ", startingAt: 0) + cells.map(column).joined()) }
line("", modes.map { "\($0.rawValue) (synchronous=\($0.synchronous))" })
for row in table { line(row.label, row.rates.map { String(format: "%9.0f /s", $0) }) }
for (store, raw) in [("save, batch 1", "raw, 1 rows/txn"), ("save, batch 1000", "raw, 1000 rows/txn"),
                     ("save, batch 1000", "raw, 20000 rows/txn")] {
    line("\(store) / \(raw)", zip(rates(store), rates(raw)).map { String(format: "%8.0f %%", $0 / $1 * 100) })
}

// Time-range queries at random positions: one hour (720 samples) and one day (17,280 samples).
let (store, owner) = queryStore!
var generator = SystemRandomNumberGenerator()
let scope = ReadScope.everything(callerBundleID: "bench")
for (label, window) in [("1 hour", Microseconds(3_600_000_000)), ("1 day ", Microseconds(86_400_000_000))] {
    var latencies: [Double] = []
    var returned = 0
    for _ in 0..<30 {
        let start = epochStart + Microseconds.random(in: 0...(Microseconds(total) * spacing - window), using: &generator)
        let began = Date()
        let found = try await store.querySamples(owner: owner, types: [heartRate], predicate: .dateRange(DateRange(start: start, end: start + window)),
                                                 sort: [SampleSortDescriptor(.startDate)], limit: 0, scope: scope)
        latencies.append(Date().timeIntervalSince(began) * 1000)
        returned = found.count
    }
    latencies.sort()
    print(String(format: "query %@ range: median %7.2f ms, p90 %7.2f ms (%d samples each)", label, latencies[latencies.count / 2],
                 latencies[latencies.count * 9 / 10], returned))
}
await store.close()

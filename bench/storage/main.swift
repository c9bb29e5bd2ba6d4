// Storage benchmark: SQLiteStore saves (batch sizes 1, 100, 1000, many concurrent batches so group
// commit kicks in) in each durability mode, beside a raw-SQLite baseline inserting the same rows with
// one prepared statement into the same schema at the same `synchronous` setting; then time-range
// query latency over the stored heart-rate samples.
// With --stream, the peer benchmark's stream instead (see streamRun); --postgres URL runs it on PostgreSQL;
// with --series, bytes per series point.
import CSQLite
import Foundation
import HealthModel
import HealthSimulator
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
/// Removes the scratch stores and exits: `exit` skips the `defer` above, and a 3M stream leaves 470 MB.
func finish() -> Never {
    try? FileManager.default.removeItem(at: directory)
    exit(0)
}

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
        INSERT INTO samples (owner, anchor, uuid, type, start_time, duration, value, unit, raw_value, count, category, source,
                             revision, device, created_offset, flags, sync_id, sync_version, parent, metadata)
        VALUES (1, ?, ?, 1, ?, ?, ?, NULL, NULL, NULL, NULL, 1, 1, 1, ?, 0, NULL, NULL, NULL, NULL)
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
        sqlite3_bind_int64(statement, 4, s.end - s.start)
        sqlite3_bind_double(statement, 5, s.quantity?.value ?? 0)
        sqlite3_bind_int64(statement, 6, Time.now() - s.start)
        guard sqlite3_step(statement) == SQLITE_DONE else { fatalError(String(cString: sqlite3_errmsg(db))) }
        if i % perTransaction == perTransaction - 1 || i == rows - 1 { sqlite3_exec(db, "COMMIT", nil, nil, nil) }
    }
    sqlite3_finalize(statement)
    return Date().timeIntervalSince(started)
}

func rate(_ count: Int, _ seconds: Double) -> String { String(format: "%9.0f samples/s", Double(count) / seconds) }

/// User and system CPU time of this process: on a shared machine a steadier figure than wall time.
func cpuSeconds() -> Double {
    var usage = rusage()
    getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
    return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
}

/// Bytes this process has handed to write(2) so far (`wchar` in /proc/self/io): SQLite's WAL frames and
/// checkpoint copies, the I/O that grows with the number of index pages a commit dirties.
func bytesWritten() -> Double {
    guard let text = try? String(contentsOfFile: "/proc/self/io", encoding: .utf8),
          let line = text.split(separator: "\n").first(where: { $0.hasPrefix("wchar:") }) else { return 0 }
    return Double(line.dropFirst(6).trimmingCharacters(in: .whitespaces)) ?? 0
}

/// The peer benchmark's stream at the storage level: 8 quantity types, 20 devices, one reading per device
/// and type per second, random UUIDs, 4 concurrent savers of 5,000 samples. Prints the rate, CPU time and
/// bytes written per sample of each tenth of the run (a store that slows as it grows shows it here) and,
/// on SQLite, the settled bytes per sample.
func streamRun(postgres: String?) async throws {
    let types: [(String, String, Double)] = [
        ("HKQuantityTypeIdentifierHeartRate", "count/min", 70), ("HKQuantityTypeIdentifierStepCount", "count", 12),
        ("HKQuantityTypeIdentifierActiveEnergyBurned", "kcal", 0.8), ("HKQuantityTypeIdentifierDistanceWalkingRunning", "m", 1.2),
        ("HKQuantityTypeIdentifierOxygenSaturation", "%", 0.97), ("HKQuantityTypeIdentifierRespiratoryRate", "count/min", 15),
        ("HKQuantityTypeIdentifierBodyTemperature", "degC", 36.8), ("HKQuantityTypeIdentifierHeartRateVariabilitySDNN", "ms", 45),
    ]
    let devices = (0..<20).map { Device(name: "Bench Watch \($0)", manufacturer: "HealthStore", model: "BW-1") }
    let perSecond = types.count * devices.count
    // The sample's UUID from a seeded stream, fresh per run: Foundation's `UUID()` opened /dev/urandom
    // for every sample, about 1 µs each charged to the store's CPU per sample.
    let seed = UInt64.random(in: 0...UInt64.max)
    func reading(_ i: Int) -> Sample {
        var random = SplitMix64(seed: seed, .number(Int64(i)))
        let (type, unit, mean) = types[i % types.count]
        let start = epochStart + Microseconds(i / perSecond) * 1_000_000
        let value = (mean * (0.9 + Double((i &* 2_654_435_761) % 1000) / 5000) * 1000).rounded() / 1000
        return Sample(uuid: random.uuid(), type: type, start: start, end: start, device: devices[(i / types.count) % devices.count],
                      body: .quantity(Quantity(value, unit), count: 1))
    }
    let batch = 5_000, writers = 4, tenth = max(batch, total / 10 / batch * batch)
    let path = directory.appendingPathComponent("stream.sqlite").path
    var options = SQLiteStore.Options()
    options.pageSize = option("--page-size", options.pageSize)
    options.checkpointPages = option("--checkpoint-pages", options.checkpointPages)
    options.writerCacheMiB = option("--cache-mib", options.writerCacheMiB)
    if let index = arguments.firstIndex(of: "--durability"), index + 1 < arguments.count {
        guard let durability = SQLiteStore.Options.Durability(rawValue: arguments[index + 1]) else { fatalError("--durability power-loss|process-crash") }
        options.durability = durability
    }
    let store: EngineStore = try postgres.map { try PostgreSQLStore.open(conninfo: $0) } ?? SQLiteStore.open(path: path, options: options)
    let (owner, _) = try await store.addOwner(name: "stream")
    print("stream on \(postgres == nil ? "SQLite (\(options.durability.rawValue))" : "PostgreSQL"): \(total) samples, 8 types, 20 devices, random UUIDs, \(writers) savers × \(batch) per save")
    var done = 0
    let started = Date(), startCPU = cpuSeconds()
    while done < total {
        let count = min(tenth, total - done)
        let sliceStart = Date(), sliceCPU = cpuSeconds(), sliceWritten = bytesWritten()
        let from = done
        try await withThrowingTaskGroup(of: Void.self) { group in
            for worker in 0..<writers {
                group.addTask {
                    var lower = from + worker * batch
                    while lower < from + count {
                        let objects = (lower..<min(from + count, lower + batch)).map(reading)
                        _ = try await store.save(SaveBatch(owner: owner, revision: revision, defaultDevice: nil, objects: objects))
                        lower += writers * batch
                    }
                }
            }
            try await group.waitForAll()
        }
        done += count
        let cpu = cpuSeconds() - sliceCPU
        print("  to \(String(done).padding(toLength: 9, withPad: " ", startingAt: 0)) \(rate(count, Date().timeIntervalSince(sliceStart)))"
              + String(format: "  %5.1f µs CPU per sample  %6.0f bytes written per sample", cpu / Double(count) * 1e6,
                       (bytesWritten() - sliceWritten) / Double(count)))
    }
    print("stream total       \(rate(total, Date().timeIntervalSince(started)))"
          + String(format: "  %5.1f µs CPU per sample", (cpuSeconds() - startCPU) / Double(total) * 1e6))
    await store.close()
    guard postgres == nil else { return }
    // Opening the full store again builds its UUID filter from every stored UUID, while it serves.
    let opened = Date()
    let reopened = try SQLiteStore.open(path: path, options: options)
    print(String(format: "reopened in %.2f s; ", Date().timeIntervalSince(opened)) + (await reopened.openFinished()).joined(separator: "; "))
    await reopened.close()
    let bytes = try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int ?? 0
    let wal = (try? FileManager.default.attributesOfItem(atPath: path + "-wal")[.size] as? Int) ?? 0
    print(String(format: "stream file size: %.1f bytes per sample, and %.1f in the WAL left after close",
                 Double(bytes) / Double(total), Double(wal) / Double(total)))
    var db: OpaquePointer?
    guard sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, nil) == SQLITE_OK, let db else { return }
    defer { sqlite3_close(db) }
    // dbstat is optional in SQLite builds: without it only the total above is printed. Per table and
    // index, each entry's share: its record (header and columns), its cell's overhead (length varint,
    // cell pointer, the page headers), the unused space of its leaves, and the interior pages.
    let free = Double(sqliteInt(db, "PRAGMA freelist_count") * sqliteInt(db, "PRAGMA page_size")) / Double(total)
    print("  " + "(free pages)".padding(toLength: 18, withPad: " ", startingAt: 0) + String(format: "%5.1f bytes per sample", free))
    var statement: OpaquePointer?
    guard sqlite3_prepare_v2(db, """
        SELECT name, SUM(pgsize), SUM(ncell), SUM(CASE WHEN pagetype = 'leaf' THEN payload END),
               SUM(CASE WHEN pagetype = 'leaf' THEN pgsize - payload - unused END), SUM(CASE WHEN pagetype = 'leaf' THEN unused END),
               SUM(CASE WHEN pagetype != 'leaf' THEN pgsize END), SUM(CASE WHEN pagetype = 'leaf' THEN ncell END)
        FROM dbstat GROUP BY name HAVING SUM(pgsize) > \(total) ORDER BY 2 DESC
        """, -1, &statement, nil) == SQLITE_OK else { return }
    defer { sqlite3_finalize(statement) }
    while sqlite3_step(statement) == SQLITE_ROW {
        let leafEntries = Double(max(sqlite3_column_int64(statement, 7), 1))
        func each(_ column: Int32) -> Double { Double(sqlite3_column_int64(statement, column)) / leafEntries }
        let name = String(cString: sqlite3_column_text(statement, 0)).padding(toLength: 18, withPad: " ", startingAt: 0)
        print("  " + name + String(format: "%5.1f bytes per sample: %.2f entries a sample, each %.1f record + %.1f cell + %.1f unused + %.1f interior",
                     Double(sqlite3_column_int64(statement, 1)) / Double(total),
                     Double(sqlite3_column_int64(statement, 2)) / Double(total), each(3), each(4), each(5), each(6)))
    }
}

/// The first column of `sql`'s first row as an integer (0 when it fails).
func sqliteInt(_ db: OpaquePointer, _ sql: String) -> Int64 {
    var statement: OpaquePointer?
    guard sqlite3_prepare_v2(db, sql, -1, &statement, nil) == SQLITE_OK else { return 0 }
    defer { sqlite3_finalize(statement) }
    return sqlite3_step(statement) == SQLITE_ROW ? sqlite3_column_int64(statement, 0) : 0
}

if arguments.contains("--stream") {
    let postgres = arguments.firstIndex(of: "--postgres").flatMap { $0 + 1 < arguments.count ? arguments[$0 + 1] : nil }
    try await streamRun(postgres: postgres)
    finish()
}
if arguments.contains("--series") {
    try await seriesSizeRun()
    try await voltageSizeRun()
    finish()
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

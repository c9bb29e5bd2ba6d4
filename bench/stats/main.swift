// Statistics benchmark: loads a year of step samples from three overlapping sources (≈1M rows) and
// 30 days of heart rate into a fresh SQLiteStore, then times what the server does for
//   (a) a daily step-count collection over the year, merged by source priority, and
//   (b) an hourly heart-rate average over 30 days,
// each next to a plain SQL GROUP BY of the same rows without merging (the lower bound). Days and hours
// are UTC in both, so the SQL groups are the same buckets.
import CSQLite
import Foundation
import HealthModel
import HealthStorage

let arguments = CommandLine.arguments
func option(_ name: String, _ fallback: Int) -> Int {
    guard let index = arguments.firstIndex(of: name), index + 1 < arguments.count, let value = Int(arguments[index + 1]) else { return fallback }
    return value
}
let stepPeriodSeconds = Int64(option("--step-period", 90))
let repeats = option("--repeats", 3)
let directory = FileManager.default.temporaryDirectory.appendingPathComponent("stats-bench-\(getpid())")
try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(at: directory) }
let path = directory.appendingPathComponent("store.sqlite").path

let steps = "HKQuantityTypeIdentifierStepCount", heartRate = "HKQuantityTypeIdentifierHeartRate"
let second: Int64 = 1_000_000, hour = 3600 * second, day = 24 * hour
let yearStart = Time.micros(ISO8601DateFormatter().date(from: "2024-01-01T00:00:00Z")!)
let yearEnd = yearStart + 366 * day
let hrStart = yearEnd - 30 * day

/// One simulated source: what it measures steps with and how (period, length, phase in seconds).
struct Feed {
    let revision: SourceRevision
    let stepLength: Int64
    let stepPhase: Int64
    /// Seconds between heart-rate readings; 0 = none.
    let heartEvery: Int64
}
func revision(_ bundle: String, _ name: String) -> SourceRevision {
    SourceRevision(source: Source(name: name, bundleID: bundle), version: "1.0", productType: name, osMajor: 1, osMinor: 0, osPatch: 0)
}
let feeds = [
    Feed(revision: revision("com.example.watch", "Watch"), stepLength: 60, stepPhase: 0, heartEvery: 15),
    Feed(revision: revision("com.example.phone", "Phone"), stepLength: 90, stepPhase: 30, heartEvery: 0),
    Feed(revision: revision("com.example.band", "Band"), stepLength: 45, stepPhase: 15, heartEvery: 60),
]

/// The samples of one feed in [from, to), every `every` seconds.
func samples(_ feed: Feed, type: String, every: Int64, length: Int64, phase: Int64, from: Int64, to: Int64) -> [Sample] {
    stride(from: from + phase * second, to: to, by: Int(every * second)).enumerated().map { i, start in
        let value = type == steps ? Double(40 + (i * 37) % 120) : Double(55 + (i * 13) % 90)
        return Sample(type: type, start: start, end: start + length * second,
                      body: .quantity(Quantity(value, type == steps ? "count" : "count/min"), count: 1))
    }
}

func seconds(_ since: Date) -> Double { Date().timeIntervalSince(since) }
func ms(_ s: Double) -> String { String(format: "%10.1f", s * 1000) }
func grouped(_ n: Int) -> String {
    let formatter = NumberFormatter()
    formatter.numberStyle = .decimal
    formatter.groupingSeparator = ","
    return formatter.string(from: NSNumber(value: n)) ?? "\(n)"
}
/// Best of `repeats` runs.
@MainActor func best<T>(_ body: () async throws -> T) async rethrows -> (T, Double) {
    var fastest = Double.infinity
    var result: T?
    for _ in 0..<max(1, repeats) {
        let started = Date()
        result = try await body()
        fastest = min(fastest, seconds(started))
    }
    return (result!, fastest)
}

// MARK: load

let store = try SQLiteStore.open(path: path)
let (owner, _) = try await store.addOwner(name: "bench")
var loaded = 0
let loadStarted = Date()
try await withThrowingTaskGroup(of: Int.self) { group in
    for feed in feeds {
        group.addTask {
            var all = samples(feed, type: steps, every: stepPeriodSeconds, length: feed.stepLength, phase: feed.stepPhase, from: yearStart, to: yearEnd)
            if feed.heartEvery > 0 {
                all += samples(feed, type: heartRate, every: feed.heartEvery, length: feed.heartEvery, phase: 0, from: hrStart, to: yearEnd)
            }
            for lower in stride(from: 0, to: all.count, by: 2000) {
                _ = try await store.save(SaveBatch(owner: owner, revision: feed.revision, defaultDevice: nil,
                                                   objects: Array(all[lower..<min(all.count, lower + 2000)])))
            }
            return all.count
        }
    }
    for try await count in group { loaded += count }
}
let loadSeconds = seconds(loadStarted)
try await store.setSourcePriority(owner: owner, type: steps, bundleIDs: ["com.example.watch", "com.example.phone"])

// MARK: the server's path (store read + HealthModel math, as Dispatcher+Statistics does it)

let everything = ReadScope.everything(callerBundleID: "com.apple.Health")
@MainActor func priority(_ type: String) async throws -> SourcePriorityOrder {
    let ordered = try await store.sourcePriority(owner: owner, type: type)
    let seen = try await store.sourcesFirstSeen(owner: owner, type: type)
    return SourcePriorityOrder(ordered: ordered, firstSeen: Dictionary(seen.map { ($0.0.bundleID, $0.1) }, uniquingKeysWith: min))
}
@MainActor func inputs(_ type: String, _ predicate: QueryPredicate?) async throws -> [StatInput] {
    try await store.statisticsSamples(owner: owner, type: type, predicate: predicate, scope: everything).map {
        StatInput(start: $0.start, end: $0.end, value: $0.value, sourceBundleID: $0.source.bundleID, sourceName: $0.source.name,
                  wasUserEntered: $0.wasUserEntered)
    }
}

struct Row {
    let name: String
    let rows: Int
    let buckets: Int
    let fetch: Double?
    let compute: Double?
    let total: Double
    let check: String
}
var table: [Row] = []

@MainActor func served(_ name: String, type: String, options: StatisticsOptions, interval: IntervalComponents, from: Int64, to: Int64,
            check: ([Statistics]) -> String) async throws -> Row {
    let healthType = TypeCatalog.type(type)!
    let predicate = QueryPredicate.dateRange(DateRange(start: from, end: to))
    let buckets = try CalendarBuckets(anchor: from, components: interval, timeZone: "UTC", calendar: nil)
    let order = try await priority(type)
    let (fetched, fetch) = try await best { try await inputs(type, predicate) }
    let (result, compute) = try await best {
        try StatisticsCalculator.collection(type: healthType, samples: fetched, options: options, buckets: buckets,
                                            from: from, to: to - 1, priority: order)
    }
    return Row(name: name, rows: fetched.count, buckets: result.count, fetch: fetch, compute: compute, total: fetch + compute,
               check: check(result))
}

table.append(try await served("daily steps, 1 year, merged", type: steps, options: .cumulativeSum, interval: IntervalComponents(days: 1),
                 from: yearStart, to: yearEnd) { buckets in
    "merged total \(grouped(Int(buckets.compactMap { try? $0.sum?.value(in: "count") }.reduce(0, +))))"
})
table.append(try await served("hourly HR average, 30 days", type: heartRate, options: .discreteAverage, interval: IntervalComponents(hours: 1),
                 from: hrStart, to: yearEnd) { buckets in
    let averages = buckets.compactMap { try? $0.average?.value(in: "count/min") }
    return String(format: "mean of hours %.2f /min", averages.reduce(0, +) / Double(max(1, averages.count)))
})
// What a long-running daily collection over the year redoes after a save to its last day: only the
// buckets the change touches are recomputed (before, the whole year was).
table.append(try await served("daily steps, live update of the last day", type: steps, options: .cumulativeSum,
                              interval: IntervalComponents(days: 1), from: yearEnd - day, to: yearEnd) { buckets in
    "day total \(grouped(Int(buckets.compactMap { try? $0.sum?.value(in: "count") }.reduce(0, +))))"
})
await store.close()

// MARK: the lower bound: one GROUP BY over the same rows, no merging

@MainActor func sqlGroupBy(_ name: String, type: String, width: Int64, aggregate: String, from: Int64, to: Int64, scale: Double) async throws -> Row {
    var db: OpaquePointer?
    guard sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, nil) == SQLITE_OK, let db else { fatalError("cannot open \(path)") }
    defer { sqlite3_close(db) }
    var statement: OpaquePointer?
    let sql = """
        SELECT (s.start_time - ?1) / ?2 AS bucket, \(aggregate)(s.value), COUNT(*) FROM samples s
        WHERE s.owner = ?3 AND s.type = (SELECT id FROM types WHERE identifier = ?4) AND s.start_time >= ?1 AND s.start_time < ?5
        GROUP BY bucket ORDER BY bucket
        """
    guard sqlite3_prepare_v2(db, sql, -1, &statement, nil) == SQLITE_OK, let statement else {
        fatalError("prepare failed: \(String(cString: sqlite3_errmsg(db)))")
    }
    defer { sqlite3_finalize(statement) }
    let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
    let ((buckets, rows, total), elapsed) = await best { () -> (Int, Int, Double) in
        sqlite3_reset(statement)
        sqlite3_bind_int64(statement, 1, from)
        sqlite3_bind_int64(statement, 2, width)
        sqlite3_bind_int64(statement, 3, owner.rawValue)
        sqlite3_bind_text(statement, 4, type, -1, transient)
        sqlite3_bind_int64(statement, 5, to)
        var buckets = 0, rows = 0, total = 0.0
        while sqlite3_step(statement) == SQLITE_ROW {
            buckets += 1
            total += sqlite3_column_double(statement, 1)
            rows += Int(sqlite3_column_int64(statement, 2))
        }
        return (buckets, rows, total)
    }
    let check = aggregate == "SUM" ? "plain total \(grouped(Int(total * scale)))"
                                   : String(format: "mean of hours %.2f /min", total * scale / Double(max(1, buckets)))
    return Row(name: name, rows: rows, buckets: buckets, fetch: nil, compute: nil, total: elapsed, check: check)
}
table.append(try await sqlGroupBy("daily steps, 1 year, SQL GROUP BY", type: steps, width: day, aggregate: "SUM", from: yearStart, to: yearEnd, scale: 1))
table.append(try await sqlGroupBy("hourly HR average, 30 days, SQL GROUP BY", type: heartRate, width: hour, aggregate: "AVG", from: hrStart, to: yearEnd, scale: 60))

// MARK: report

print("stats-bench: \(grouped(loaded)) samples loaded in \(String(format: "%.1f", loadSeconds)) s "
      + "(\(grouped(Int(Double(loaded) / loadSeconds))) samples/s); steps every \(stepPeriodSeconds) s from 3 overlapping sources over 2024, "
      + "heart rate for the last 30 days; best of \(repeats)")
let header = ["query", "rows", "buckets", "fetch ms", "merge ms", "total ms", "check"]
let lines = table.map { row in
    [row.name, grouped(row.rows), grouped(row.buckets), row.fetch.map(ms) ?? "-", row.compute.map(ms) ?? "-", ms(row.total), row.check]
}
let widths = header.indices.map { column in ([header] + lines).map { $0[column].trimmingCharacters(in: .whitespaces).count }.max() ?? 0 }
for line in [header] + lines {
    print(line.enumerated().map { column, cell in
        let text = cell.trimmingCharacters(in: .whitespaces)
        let pad = String(repeating: " ", count: widths[column] - text.count)
        if column == line.count - 1 { return text }
        return column == 0 ? text + pad : pad + text
    }.joined(separator: "  "))
}
let ratio = { (merged: Row, plain: Row) in String(format: "%.1fx", merged.total / plain.total) }
print("merged / GROUP BY: daily steps \(ratio(table[0], table[3])), hourly heart rate \(ratio(table[1], table[4]))")

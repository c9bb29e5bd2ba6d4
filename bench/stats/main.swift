// Statistics benchmark: loads a year of step samples from three overlapping sources (≈1M rows) and a
// year of heart rate from two into a fresh SQLiteStore, then times what the server does for
//   (a) a daily step-count collection over the year, merged by source priority, and
//   (b) an hourly heart-rate average over the year (and over its last 30 days),
// each next to a plain SQL GROUP BY of the same rows without merging (the lower bound), once through
// `samples_by_source` and once through the table's primary key (the path the server takes for a range
// covering most of a type, so the lower bound of that path). Days and hours
// are UTC in both, so the SQL groups are the same buckets. Each repeat times every query's server
// path and then its GROUP BY, back to back in this process, so both sides share the machine's load
// of that moment; the table shows medians, the ratio is the median of the per-repeat ratios.
import CSQLite
import Foundation
import HealthModel
import HealthStorage

let arguments = CommandLine.arguments
func option(_ name: String) -> String? {
    arguments.firstIndex(of: name).flatMap { $0 + 1 < arguments.count ? arguments[$0 + 1] : nil }
}
func option(_ name: String, _ fallback: Int) -> Int { option(name).flatMap { Int($0) } ?? fallback }
let stepPeriodSeconds = Int64(option("--step-period", 90))
let repeats = max(1, option("--repeats", 5))
let heartPeriodSeconds = Int64(option("--heart-period", 60))
// `--store PATH` keeps the store at PATH and, when it already holds the bench's samples, reads those
// instead of loading again: two builds alternated over one file read the same rows laid out the same
// way (a fresh load lays out the three sources' batches in whatever order the writer took them).
let keptStore = option("--store")
let directory = FileManager.default.temporaryDirectory.appendingPathComponent("stats-bench-\(getpid())")
try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(at: directory) }
let path = keptStore ?? directory.appendingPathComponent("store.sqlite").path

let steps = "HKQuantityTypeIdentifierStepCount", heartRate = "HKQuantityTypeIdentifierHeartRate"
let second: Int64 = 1_000_000, hour = 3600 * second, day = 24 * hour
let yearStart = Time.micros(ISO8601DateFormatter().date(from: "2024-01-01T00:00:00Z")!)
let yearEnd = yearStart + 366 * day
let monthStart = yearEnd - 30 * day

/// One simulated source: what it measures steps with and how (period, length, phase in seconds).
struct Feed {
    let revision: SourceRevision
    let stepLength: Int64
    let stepPhase: Int64
    /// Heart-rate readings every `heartEvery` × `--heart-period` seconds; 0 = none.
    let heartEvery: Int64
}
func revision(_ bundle: String, _ name: String) -> SourceRevision {
    SourceRevision(source: Source(name: name, bundleID: bundle), version: "1.0", productType: name, osMajor: 1, osMinor: 0, osPatch: 0)
}
let feeds = [
    Feed(revision: revision("com.example.watch", "Watch"), stepLength: 60, stepPhase: 0, heartEvery: 1),
    Feed(revision: revision("com.example.phone", "Phone"), stepLength: 90, stepPhase: 30, heartEvery: 0),
    Feed(revision: revision("com.example.band", "Band"), stepLength: 45, stepPhase: 15, heartEvery: 5),
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
func median(_ values: [Double]) -> Double {
    let sorted = values.sorted()
    return sorted.count % 2 == 1 ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
}

// MARK: load

let store = try SQLiteStore.open(path: path)
_ = await store.openFinished()
let reused = try await store.listOwners().first { $0.name == "bench" }?.0
let owner = if let reused { reused } else { try await store.addOwner(name: "bench").0 }
var loaded = 0
let loadStarted = Date()
if reused == nil {
    try await withThrowingTaskGroup(of: Int.self) { group in
        for feed in feeds {
            group.addTask {
                var all = samples(feed, type: steps, every: stepPeriodSeconds, length: feed.stepLength, phase: feed.stepPhase, from: yearStart, to: yearEnd)
                if feed.heartEvery > 0 {
                    let every = feed.heartEvery * heartPeriodSeconds
                    all += samples(feed, type: heartRate, every: every, length: every, phase: 0, from: yearStart, to: yearEnd)
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

/// One statistics collection the server answers, and the GROUP BY that is its lower bound (none for
/// the live update, which has no plain counterpart).
struct Query {
    let name: String
    let type: String
    let options: StatisticsOptions
    let interval: IntervalComponents
    let from: Int64
    let to: Int64
    /// The GROUP BY's bucket width, aggregate and the factor turning its canonical values into the check's unit.
    let plain: (width: Int64, aggregate: String, scale: Double)?
    let check: ([Statistics]) -> String
}
func stepTotal(_ label: String) -> ([Statistics]) -> String {
    { buckets in "\(label) \(grouped(Int(buckets.compactMap { try? $0.sum?.value(in: "count") }.reduce(0, +))))" }
}
func meanOfHours(_ buckets: [Statistics]) -> String {
    let averages = buckets.compactMap { try? $0.average?.value(in: "count/min") }
    return String(format: "mean of hours %.2f /min", averages.reduce(0, +) / Double(max(1, averages.count)))
}
let allQueries = [
    Query(name: "daily steps, 1 year, merged", type: steps, options: .cumulativeSum, interval: IntervalComponents(days: 1),
          from: yearStart, to: yearEnd, plain: (day, "SUM", 1), check: stepTotal("merged total")),
    Query(name: "hourly HR average, 1 year", type: heartRate, options: .discreteAverage, interval: IntervalComponents(hours: 1),
          from: yearStart, to: yearEnd, plain: (hour, "AVG", 60), check: meanOfHours),
    Query(name: "hourly HR average, last 30 days", type: heartRate, options: .discreteAverage, interval: IntervalComponents(hours: 1),
          from: monthStart, to: yearEnd, plain: (hour, "AVG", 60), check: meanOfHours),
    // What a long-running daily collection over the year redoes after a save to its last day: only the
    // buckets the change touches are recomputed (before, the whole year was).
    Query(name: "daily steps, live update of the last day", type: steps, options: .cumulativeSum, interval: IntervalComponents(days: 1),
          from: yearEnd - day, to: yearEnd, plain: nil, check: stepTotal("day total")),
]
// `--only TEXT` times only the queries whose name holds TEXT (to profile one of them).
let queries = option("--only").map { only in allQueries.filter { $0.name.contains(only) } } ?? allQueries

/// The server's answer to `query`: rows read, buckets, the check, and the fetch and merge times.
@MainActor func served(_ query: Query) async throws -> (rows: Int, buckets: Int, check: String, fetch: Double, merge: Double) {
    let started = Date()
    let healthType = TypeCatalog.type(query.type)!
    let predicate = QueryPredicate.dateRange(DateRange(start: query.from, end: query.to))
    let buckets = try CalendarBuckets(anchor: query.from, components: query.interval, timeZone: "UTC", calendar: nil)
    let order = try await priority(query.type)
    let grouped = try await store.statisticsSamples(owner: owner, type: query.type, predicate: predicate, scope: everything,
                                                    into: BucketedStatInputs(try buckets.buckets(from: query.from, to: query.to - 1)))
    let fetched = Date()
    let result = try StatisticsCalculator.collection(type: healthType, grouped: grouped, options: query.options, priority: order)
    return (grouped.count, result.count, query.check(result), fetched.timeIntervalSince(started), seconds(fetched))
}

// MARK: the lower bound: one GROUP BY over the same rows, no merging, on its own connection

var connection: OpaquePointer?
guard sqlite3_open_v2(path, &connection, SQLITE_OPEN_READONLY, nil) == SQLITE_OK, let db = connection else { fatalError("cannot open \(path)") }
/// How the GROUP BY reaches the rows: through `samples_by_source` (what a range query uses: each of
/// the type's sources' range of entries), or the type's range of the table's primary key in key order, as the
/// server reads a range covering most of a type (`+` keeps SQLite off the source index).
enum Access: CaseIterable {
    case sourceIndex, primaryKey

    var from: String { self == .sourceIndex ? "samples s INDEXED BY samples_by_source" : "samples s NOT INDEXED" }
    var start: String { self == .sourceIndex ? "s.start_time" : "+s.start_time" }
    /// A range of the key, or each source's range of `samples_by_source` (an IN over the type's sources).
    var keyBound: String {
        self == .sourceIndex ? "AND s.source IN (SELECT source FROM type_sources WHERE owner = ?3 AND type = (SELECT id FROM types WHERE identifier = ?4))"
            : "AND s.anchor > 0"
    }
    var label: String { self == .sourceIndex ? "  SQL GROUP BY (samples_by_source)" : "  SQL GROUP BY (primary key)" }
}
/// The GROUP BY of `query`'s rows: rows, buckets and the check in the same terms as the server's.
@MainActor func plainGroupBy(_ query: Query, width: Int64, aggregate: String, scale: Double, access: Access) -> (rows: Int, buckets: Int, check: String) {
    var statement: OpaquePointer?
    let sql = """
        SELECT (s.start_time - ?1) / ?2 AS bucket, \(aggregate)(s.value), COUNT(*) FROM \(access.from)
        WHERE s.owner = ?3 AND s.type = (SELECT id FROM types WHERE identifier = ?4) \(access.keyBound)
          AND \(access.start) >= ?1 AND \(access.start) < ?5
        GROUP BY bucket ORDER BY bucket
        """
    guard sqlite3_prepare_v2(db, sql, -1, &statement, nil) == SQLITE_OK, let statement else {
        fatalError("prepare failed: \(String(cString: sqlite3_errmsg(db)))")
    }
    defer { sqlite3_finalize(statement) }
    let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
    sqlite3_bind_int64(statement, 1, query.from)
    sqlite3_bind_int64(statement, 2, width)
    sqlite3_bind_int64(statement, 3, owner.rawValue)
    sqlite3_bind_text(statement, 4, query.type, -1, transient)
    sqlite3_bind_int64(statement, 5, query.to)
    var buckets = 0, rows = 0, total = 0.0
    while sqlite3_step(statement) == SQLITE_ROW {
        buckets += 1
        total += sqlite3_column_double(statement, 1)
        rows += Int(sqlite3_column_int64(statement, 2))
    }
    let check = aggregate == "SUM" ? "plain total \(grouped(Int(total * scale)))"
                                   : String(format: "mean of hours %.2f /min", total * scale / Double(max(1, buckets)))
    return (rows, buckets, check)
}

// MARK: repeats: each query's server path, then its GROUP BY, back to back

struct Timings {
    var fetch: [Double] = [], merge: [Double] = [], total: [Double] = []
    /// Per access path: the GROUP BY's times and the server's time over it in the same repeat.
    var plain: [Access: [Double]] = [:], ratio: [Access: [Double]] = [:]
}
var timings = [Timings](repeating: Timings(), count: queries.count)
var servedShape: [(rows: Int, buckets: Int, check: String)] = []
var plainShape: [[Access: (rows: Int, buckets: Int, check: String)]?] = []
for run in 0..<repeats {
    for (index, query) in queries.enumerated() {
        let answer = try await served(query)
        timings[index].fetch.append(answer.fetch)
        timings[index].merge.append(answer.merge)
        timings[index].total.append(answer.fetch + answer.merge)
        if run == 0 { servedShape.append((answer.rows, answer.buckets, answer.check)) }
        guard let plain = query.plain else {
            if run == 0 { plainShape.append(nil) }
            continue
        }
        var shapes: [Access: (rows: Int, buckets: Int, check: String)] = [:]
        for access in Access.allCases {
            let started = Date()
            shapes[access] = plainGroupBy(query, width: plain.width, aggregate: plain.aggregate, scale: plain.scale, access: access)
            let elapsed = seconds(started)
            timings[index].plain[access, default: []].append(elapsed)
            timings[index].ratio[access, default: []].append((answer.fetch + answer.merge) / elapsed)
        }
        if run == 0 { plainShape.append(shapes) }
    }
}
sqlite3_close(db)
await store.close()

// MARK: report

print("stats-bench: " + (reused != nil ? "the samples in \(path) read again" : "\(grouped(loaded)) samples loaded in \(String(format: "%.1f", loadSeconds)) s "
      + "(\(grouped(Int(Double(loaded) / loadSeconds))) samples/s)") + "; steps every \(stepPeriodSeconds) s from 3 overlapping sources, "
      + "heart rate every \(heartPeriodSeconds) s and \(5 * heartPeriodSeconds) s from 2, over 2024; medians of \(repeats) repeats")
let header = ["query", "rows", "buckets", "fetch ms", "merge ms", "total ms", "check"]
var lines: [[String]] = []
for (index, query) in queries.enumerated() {
    let t = timings[index], shape = servedShape[index]
    lines.append([query.name, grouped(shape.rows), grouped(shape.buckets), ms(median(t.fetch)), ms(median(t.merge)), ms(median(t.total)), shape.check])
    for access in Access.allCases {
        guard let plain = plainShape[index]?[access] else { continue }
        lines.append([access.label, grouped(plain.rows), grouped(plain.buckets), "-", "-", ms(median(t.plain[access] ?? [])), plain.check])
    }
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
for access in Access.allCases {
    let ratios = queries.indices.filter { queries[$0].plain != nil }.map { index in
        let r = timings[index].ratio[access] ?? []
        return "\(queries[index].name) " + String(format: "%.2fx (repeats %.2f–%.2fx)", median(r), r.min() ?? 0, r.max() ?? 0)
    }
    print("server / GROUP BY through \(access == .sourceIndex ? "samples_by_source" : "the primary key"), median of the per-repeat ratios: "
          + ratios.joined(separator: "; "))
}

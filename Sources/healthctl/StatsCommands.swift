import HealthCLI
import Foundation
import HealthClient
import HealthModel

/// `stats` and `summary`: statistics, collections and activity summaries.
enum StatsCommands {
    static let all: [Command] = [
        Command(["stats"], usage: "stats --type T [--interval 1d] [--from T] [--to T] [--tz Z] [--by-source] [--unit U] [--chart]",
                summary: "statistics over a range, or per calendar bucket with --interval",
                options: [("type T", "quantity type"), ("interval I", "bucket size: 15m, 1h, 1d, 1w, 1mo, 1y"),
                          ("from TIME", "start (default: 7 days before --to)"), ("to TIME", "end (default: now)"),
                          ("unit U", "result unit (default: the type's unit; count/min for rates per second)"),
                          ("stat S", "sum, avg, min, max, recent, duration (repeatable; default by type)")],
                flags: [("by-source", "also break results down per source"), ("chart", "draw the collection as a chart")]) { inv in
            _ = try inv.arguments.positionals()
            try await stats(inv)
        },
        Command(["summary"], usage: "summary [--day D] [--to D] [--tz Z]", summary: "activity summary per local day",
                options: [("day D", "day (ISO date, today, yesterday, -1d; default today)"), ("to D", "last day of a range")]) { inv in
            _ = try inv.arguments.positionals()
            let parser = inv.timeParser()
            let from = try parser.day(inv.arguments.value("day") ?? "today", field: "day")
            let to = try inv.arguments.value("to").map { text throws(UsageError) in try parser.day(text, field: "to") } ?? from
            let summaries = try await inv.connect().activitySummaries(from: from, to: to, timeZone: parser.timeZone.identifier)
            inv.print(Report(table: Table(columns: ["DAY", "ACTIVE ENERGY", "EXERCISE", "STAND HOURS"], rows: summaries.map {
                [$0.day.isoString, "\(formatNumber($0.activeEnergyBurned.value)) \($0.activeEnergyBurned.unit)",
                 "\(formatNumber($0.exerciseTime.value)) \($0.exerciseTime.unit)", formatNumber($0.standHours.value)]
            })))
        },
    ]

    /// The statistics the command line asks for, else the natural ones for the type.
    static func options(_ arguments: ParsedArguments, type: HealthType) throws -> StatisticsOptions {
        var options: StatisticsOptions = arguments.has("by-source") ? .separateBySource : []
        let names = arguments.list("stat")
        if names.isEmpty {
            return options.union(.natural(for: type))
        }
        let known: [String: StatisticsOptions] = ["sum": .cumulativeSum, "avg": .discreteAverage, "min": .discreteMin,
                                                  "max": .discreteMax, "recent": .mostRecent, "duration": .duration]
        for name in names {
            guard let option = known[name] else {
                throw UsageError("--stat: unknown statistic '\(name)': use \(known.keys.sorted().joined(separator: ", "))", option: "stat")
            }
            options.insert(option)
        }
        return options
    }

    private static func stats(_ inv: Invocation) async throws {
        let type = try inv.type()
        let parser = inv.timeParser()
        let to = try inv.arguments.value("to").map { text throws(UsageError) in try parser.instant(text, field: "to") } ?? parser.now
        let from = try inv.arguments.value("from").map { text throws(UsageError) in try parser.instant(text, field: "from") }
            ?? parser.startOfDay(to - 7 * TimeParser.day)
        guard from < to else { throw UsageError("--from (\(inv.time(from))) is not before --to (\(inv.time(to)))", option: "from") }
        let options = try options(inv.arguments, type: type)
        let unit = inv.arguments.value("unit") ?? type.displayUnit
        let interval = try inv.arguments.parse("interval") { text throws(UsageError) in try TimeParser.interval(text) }
        let connection = try await inv.connect()
        guard let interval else {
            let predicate = QueryPredicate.dateRange(DateRange(start: from, end: to))
            let result = try await connection.statistics(StatisticsQuery(type: type.identifier, predicate: predicate,
                                                                           options: options, unit: unit))
            return inv.print(StatisticsReport.make([result], chart: false, zone: inv.zone))
        }
        let query = StatisticsCollectionQuery(type: type.identifier, options: options, unit: unit, anchor: parser.startOfDay(from),
                                              interval: interval,
                                              timeZone: parser.timeZone.identifier, from: from, to: to)
        let buckets = try await connection.statisticsCollection(query)
        inv.print(StatisticsReport.make(buckets, chart: inv.arguments.has("chart"), zone: inv.zone))
    }
}

/// Statistics as rows: one per bucket, plus one per source and bucket when separated by source.
enum StatisticsReport {
    static func make(_ buckets: [Statistics], chart: Bool, zone: TimeZone? = nil) -> Report {
        func time(_ micros: Microseconds) -> String { Time.iso8601(micros, in: zone) }
        let columns: [(String, (Statistics) -> Quantity?)] = [("SUM", \.sum), ("AVG", \.average), ("MIN", \.minimum),
                                                               ("MAX", \.maximum), ("RECENT", \.mostRecent)]
        let shown = columns.filter { column in buckets.contains { column.1($0) != nil } }
        let showDuration = buckets.contains { $0.duration != nil }
        let bySource = buckets.contains { !$0.bySource.isEmpty }
        let unit = buckets.lazy.compactMap { s in shown.lazy.compactMap { $0.1(s)?.unit }.first }.first ?? ""
        var rows: [[String]] = []
        for bucket in buckets {
            rows.append([time(bucket.start), time(bucket.end)] + (bySource ? [""] : [])
                + shown.map { $0.1(bucket).map { formatNumber($0.value) } ?? "" }
                + (showDuration ? [bucket.duration.map(formatNumber) ?? ""] : []) + [unit])
            for source in bucket.bySource {
                let values: [Quantity?] = shown.map { column in
                    switch column.0 {
                    case "SUM": source.sum
                    case "AVG": source.average
                    case "MIN": source.minimum
                    case "MAX": source.maximum
                    default: source.mostRecent
                    }
                }
                rows.append([time(bucket.start), time(bucket.end), source.source.bundleID]
                    + values.map { $0.map { formatNumber($0.value) } ?? "" }
                    + (showDuration ? [source.duration.map(formatNumber) ?? ""] : []) + [unit])
            }
        }
        let header = ["START", "END"] + (bySource ? ["SOURCE"] : []) + shown.map(\.0) + (showDuration ? ["DURATION S"] : []) + ["UNIT"]
        var footer: [String] = []
        if chart, let main = shown.first {
            let values = buckets.map { main.1($0)?.value }
            footer = ["", "\(main.0.lowercased()) per bucket: \(Chart.sparkline(values))", ""]
                + Chart.bars(buckets.map { (label: time($0.start).prefix(16).description, value: main.1($0)?.value) })
        }
        return Report(table: Table(columns: header, rows: rows), json: .array(buckets.map { json($0, zone: zone) }), footer: footer)
    }

    static func json(_ s: Statistics, zone: TimeZone? = nil) -> JSON {
        func q(_ quantity: Quantity?) -> JSON {
            quantity.map { .object(["value": .double($0.value), "unit": .string($0.unit)]) } ?? .null
        }
        return .object([
            "type": .string(s.type), "start": .string(Time.iso8601(s.start, in: zone)), "end": .string(Time.iso8601(s.end, in: zone)),
            "start_micros": .int(s.start), "end_micros": .int(s.end),
            "sum": q(s.sum), "average": q(s.average), "minimum": q(s.minimum), "maximum": q(s.maximum),
            "most_recent": q(s.mostRecent), "duration_seconds": s.duration.map(JSON.double) ?? .null,
            "by_source": .array(s.bySource.map {
                .object(["bundle_id": .string($0.source.bundleID), "name": .string($0.source.name), "sum": q($0.sum),
                         "average": q($0.average), "minimum": q($0.minimum), "maximum": q($0.maximum),
                         "most_recent": q($0.mostRecent), "duration_seconds": $0.duration.map(JSON.double) ?? .null])
            }),
        ])
    }
}

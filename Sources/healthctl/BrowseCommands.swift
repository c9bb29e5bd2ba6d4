import HealthCLI
import Foundation
import HealthClient
import HealthModel

/// Reading what is stored: samples, sources, devices, correlations, live updates.
enum BrowseCommands {
    static let rangeOptions: [(String, String)] = [
        ("since TIME", "from (ISO-8601, or relative like -1d, -6h)"),
        ("until TIME", "to (ISO-8601 or relative)"),
    ]

    static let all: [Command] = [
        Command(["samples"], usage: "samples --type T [--since T] [--until T] [--source BUNDLE] [--limit N]",
                summary: "samples of a type, oldest first",
                options: [("type T", "type (HeartRate, heart-rate or the HK identifier)"),
                          ("source BUNDLE", "only samples saved by these apps (repeatable)"),
                          ("limit N", "at most N samples")] + rangeOptions) { inv in
            _ = try inv.arguments.positionals()
            let query = try sampleQuery(inv.arguments, parser: inv.timeParser())
            inv.print(SampleTable.report(try await inv.connect().samples(query), zone: inv.zone))
        },
        Command(["sources"], usage: "sources --type T", summary: "apps that saved samples of a type",
                options: [("type T", "type")]) { inv in
            _ = try inv.arguments.positionals()
            let sources = try await inv.connect().sources(type: try inv.type().identifier)
            inv.print(sourcesReport(sources, imports: (true, inv.zone)))
        },
        Command(["sources", "priority"], usage: "sources priority --type T [--set a,b,c]",
                summary: "show or set the order sources count in merged statistics",
                options: [("type T", "type"), ("set BUNDLES", "bundle ids, highest priority first")]) { inv in
            _ = try inv.arguments.positionals()
            let type = try inv.type().identifier
            let connection = try await inv.connect()
            let order = inv.arguments.value("set") == nil
                ? try await connection.sourcePriority(type: type)
                : try await connection.setSourcePriority(type: type, bundleIDs: inv.arguments.list("set"))
            inv.print(sourcesReport(order, ranked: true))
        },
        Command(["devices"], usage: "devices [--type T]", summary: "devices that measured samples",
                options: [("type T", "only devices with samples of this type")]) { inv in
            _ = try inv.arguments.positionals()
            let type = try inv.arguments.value("type").map { name throws(HealthError) in try TypeCatalog.resolve(name).identifier }
            let devices = try await inv.connect().devices(type: type)
            inv.print(Report(table: Table(columns: ["NAME", "MANUFACTURER", "MODEL", "HARDWARE", "SOFTWARE", "LOCAL ID"],
                                          rows: devices.map {
                [$0.name ?? "", $0.manufacturer ?? "", $0.model ?? "", $0.hardwareVersion ?? "", $0.softwareVersion ?? "",
                 $0.localIdentifier ?? ""]
            }), json: .array(devices.map(SampleJSON.device))))
        },
        Command(["watch"], usage: "watch --type T [--history]", summary: "print new samples as they arrive (Ctrl-C ends)",
                options: [("type T", "type (repeatable)")], flags: [("history", "print the stored samples first")]) { inv in
            _ = try inv.arguments.positionals()
            try await watch(inv)
        },
        Command(["correlations"], usage: "correlations --type T [--since T] [--until T]",
                summary: "correlations (e.g. bloodPressure) with their samples",
                options: [("type T", "correlation type")] + rangeOptions) { inv in
            _ = try inv.arguments.positionals()
            let parser = inv.timeParser()
            let query = CorrelationQuery(type: try inv.type().identifier, predicate: try dateRange(inv.arguments, parser))
            let correlations = try await inv.connect().correlations(query)
            inv.print(SampleTable.report(correlations, zone: inv.zone))
        },
    ]

    /// The sample query a `samples` command line describes.
    static func sampleQuery(_ arguments: ParsedArguments, parser: TimeParser) throws -> SampleQuery {
        let types = try arguments.list("type").map { name throws(HealthError) in try TypeCatalog.resolve(name).identifier }
        guard !types.isEmpty else { throw UsageError("--type is required", option: "type") }
        var clauses: [QueryPredicate] = []
        if let range = try dateRange(arguments, parser) { clauses.append(range) }
        let sources = arguments.list("source")
        if !sources.isEmpty { clauses.append(.sources(Set(sources))) }
        var limit = 0
        if let text = arguments.value("limit") {
            guard let n = Int(text), n > 0 else { throw UsageError("--limit: '\(text)' is not a positive whole number", option: "limit") }
            limit = n
        }
        let predicate: QueryPredicate? = clauses.count > 1 ? .allOf(clauses) : clauses.first
        return SampleQuery(types: types, predicate: predicate, sort: [SampleSortDescriptor(.startDate)], limit: limit)
    }

    /// The --since/--until (or --from/--to) range, nil when neither is given.
    static func dateRange(_ arguments: ParsedArguments, _ parser: TimeParser) throws -> QueryPredicate? {
        let since = try arguments.value("since").map { text throws(UsageError) in try parser.instant(text, field: "since") }
        let until = try arguments.value("until").map { text throws(UsageError) in try parser.instant(text, field: "until") }
        if let since, let until, since > until {
            throw UsageError("--since (\(Time.iso8601(since, in: parser.timeZone))) is after --until (\(Time.iso8601(until, in: parser.timeZone)))", option: "since")
        }
        guard since != nil || until != nil else { return nil }
        return .dateRange(DateRange(start: since, end: until))
    }

    private static func watch(_ inv: Invocation) async throws {
        let types = try inv.arguments.list("type").map { name throws(HealthError) in try TypeCatalog.resolve(name).identifier }
        guard !types.isEmpty else { throw UsageError("--type is required", option: "type") }
        let history = inv.arguments.has("history")
        var printedHeader = false
        for try await batch in try await inv.connect().anchoredUpdates(AnchoredQuery(types: types)) {
            guard history || !batch.initial else { continue }
            for sample in batch.samples {
                switch inv.format {
                case .json: inv.output(SampleJSON.sample(sample, zone: inv.zone).text(pretty: false))
                case .csv:
                    if !printedHeader { inv.output(SampleTable.columns.joined(separator: ",")) }
                    inv.output(Table(columns: [], rows: [SampleTable.row(sample, zone: inv.zone)]).csv())
                case .table: inv.output(SampleTable.row(sample, zone: inv.zone).filter { !$0.isEmpty }.joined(separator: "  "))
                }
                printedHeader = true
            }
            for gone in batch.deleted {
                inv.output(inv.format == .json
                    ? JSON.object(["deleted": .string(gone.uuid.uuidString), "type": .string(gone.type)]).text(pretty: false)
                    : "deleted \(shortName(gone.type)) \(gone.uuid.uuidString)")
            }
        }
    }

    /// Sources as a table: a ranked list (the priority order) numbers them; a listing of stored
    /// sources (`imports`, with the zone to show times in) says which came from an import and when.
    static func sourcesReport(_ sources: [Source], ranked: Bool = false, imports: (shown: Bool, zone: TimeZone?) = (false, nil)) -> Report {
        func imported(_ s: Source) -> String? { s.importedTime.map { Time.iso8601($0, in: imports.zone) } }
        let rows = sources.enumerated().map { i, s in
            (ranked ? [String(i + 1)] : []) + [s.bundleID, s.name] + (imports.shown ? [imported(s) ?? "no"] : [])
        }
        let json: [JSON] = sources.map { s in
            var fields: [String: JSON] = ["bundle_id": .string(s.bundleID), "name": .string(s.name)]
            if imports.shown {
                fields["imported"] = .bool(s.isImported)
                fields["imported_time"] = imported(s).map(JSON.string) ?? .null
            }
            return .object(fields)
        }
        return Report(table: Table(columns: (ranked ? ["RANK"] : []) + ["BUNDLE ID", "NAME"] + (imports.shown ? ["IMPORTED"] : []),
                                   rows: rows),
                      json: .array(json))
    }
}

import AppleHealthImport
import HealthCLI
import Foundation
import HealthClient
import HealthModel

/// Moving samples in and out as JSON Lines: one sample per line in the form of SampleOutput.swift.
///
/// As in HealthKit, an import is saved by the importing app: the server stamps the connection's
/// source revision (an owner token saves as Health), so sources are not preserved; UUIDs, devices,
/// metadata and every kind-specific field are. UUIDs make a re-import store nothing. With
/// --keep-sources the owner saves each sample as the source revision its line names (SaveObjects
/// with keep_sources), so an export moved to a fresh store keeps its sources. Routes and heartbeat
/// series carry their points and are built again with series builders (SeriesLines.swift), always
/// as the importing connection's app, after the lines before them are stored (a route's workout).
enum ImportExportCommands {
    /// Samples per anchored page when exporting: bounds memory to two pages (one written, one read).
    static let exportPageSize = 5000

    static let all: [Command] = [
        Command(["export"], usage: "export [--type T ...] [--since T] [--until T] [--source BUNDLE] [--output FILE]",
                summary: "every matching sample as JSON lines (samples inside a correlation go with it)",
                options: [("type T", "type (repeatable; default: every type with data)"),
                          ("source BUNDLE", "only samples saved by these apps (repeatable)"),
                          ("output FILE", "write to FILE instead of stdout (then --format json prints a summary)")] + BrowseCommands.rangeOptions) { inv in
            _ = try inv.arguments.positionals()
            try await export(inv)
        },
        Command(["import"], usage: "import FILE [--batch N] [--keep-sources]",
                summary: "save the samples of an export (FILE or - for stdin) as this token's app (the owner's: "
                    + "Health); UUIDs and devices are kept, sources only with --keep-sources; re-importing stores nothing",
                options: [("batch N", "samples per atomic save (default 500)")],
                flags: [("keep-sources", "owner token only: save each sample as the source and version its line names, "
                    + "with its device as given (sources new to the store are listed as imported)")]) { inv in
            let path = try inv.arguments.positionals("FILE")[0]
            try await importSamples(inv, path: path)
        },
    ]

    // MARK: Export

    private static func export(_ inv: Invocation) async throws {
        let parser = inv.timeParser()
        var clauses: [QueryPredicate] = []
        if let range = try BrowseCommands.dateRange(inv.arguments, parser) { clauses.append(range) }
        let sources = inv.arguments.list("source")
        if !sources.isEmpty { clauses.append(.sources(Set(sources))) }
        let filter: QueryPredicate? = clauses.count > 1 ? .allOf(clauses) : clauses.first
        var types = try inv.arguments.list("type").map { name throws(HealthError) in try TypeCatalog.resolve(name).identifier }

        let connection = try await inv.connect()
        if types.isEmpty {
            let catalog = TypeCatalog.sampleTypes.map(\.identifier)
            let withData = Set(try await connection.countSamples(types: catalog, predicate: filter).filter { $0.count > 0 }.map(\.type))
            types = catalog.filter(withData.contains)
        }
        // A correlation's children are exported inside it; saving them again on their own would
        // make them ordinary samples on import.
        let predicate: QueryPredicate = .allOf(clauses + [.noCorrelation])
        let writer = try LineWriter(path: inv.arguments.value("output"), output: inv.output)
        let status = LiveStatus()
        var written = 0
        var cache = SampleJSON.LineCache()
        var lines: [UInt8] = []
        var routeWorkouts: [UUID: UUID]?
        for type in types {
            @Sendable func fetch(after anchor: Data?) async throws -> AnchoredBatch {
                try await connection.anchored(AnchoredQuery(types: [type], predicate: predicate, anchor: anchor, limit: exportPageSize))
            }
            var anchor: Data?
            var next = Task { try await fetch(after: nil) }
            while true {
                let page = try await next.value
                // Deletions count toward the limit too; a short page is the last one.
                let last = page.samples.count + page.deleted.count < exportPageSize || page.anchor == anchor
                // The server reads the next page while this one is written.
                if !last { next = Task { [anchor = page.anchor] in try await fetch(after: anchor) } }
                lines.removeAll(keepingCapacity: true)
                if routeWorkouts == nil, [TypeCatalog.workoutType, TypeCatalog.workoutRouteType].map(\.identifier).contains(type) {
                    routeWorkouts = try await SeriesLines.workoutsByRoute(connection)
                }
                for sample in page.samples {
                    guard case .series = sample.body else {
                        SampleJSON.writeLine(SeriesLines.withoutRoutes(sample, routeWorkouts ?? [:]), zone: inv.zone, cache: &cache, to: &lines)
                        continue
                    }
                    let line = try await SeriesLines.line(sample, workout: routeWorkouts?[sample.uuid], connection: connection, zone: inv.zone)
                    lines += Array(line.text(pretty: false).utf8)
                    lines.append(UInt8(ascii: "\n"))
                }
                writer.write(lines: lines)
                written += page.samples.count
                status.update("export: \(written) samples, \(shortName(type)), \(formatRate(status.rate(written)))")
                if last { break }
                anchor = page.anchor
            }
        }
        let seconds = status.elapsed
        status.finish("export: \(written) samples of \(types.count) types in \(String(format: "%.1f", seconds))s")
        if inv.format == .json, inv.arguments.value("output") != nil {
            inv.output(JSON.object(["samples": .int(Int64(written)), "types": .int(Int64(types.count)),
                                    "seconds": .double(seconds)]).text(pretty: false))
        }
    }

    // MARK: Import

    private static func importSamples(_ inv: Invocation, path: String) async throws {
        var batchSize = 500
        if let text = inv.arguments.value("batch") {
            guard let n = Int(text), n > 0 else { throw UsageError("--batch: '\(text)' is not a positive whole number", option: "batch") }
            batchSize = n
        }
        let keepSources = inv.arguments.has("keep-sources")
        let reader = try LineReader(path: path)
        let connection = try await inv.connect()
        var run = ImportRun(connection: connection, keepSources: keepSources)
        var pending: [(line: Int, sample: Sample)] = []
        var lineNumber = 0
        while let line = reader.next() {
            lineNumber += 1
            guard !line.allSatisfy(\.isWhitespace) else { continue }
            run.counts.read += 1
            var decoded: (json: JSON, sample: Sample)?
            do {
                let json = try JSON.parse(line)
                decoded = (json, try SampleJSON.decode(json, path: ""))
            } catch {
                run.fail(lines: [lineNumber], error)
            }
            if let (json, sample) = decoded {
                if case .series = sample.body {
                    // A route is finished with its workout: what was read before it is stored first.
                    try await run.submit(pending)
                    pending.removeAll(keepingCapacity: true)
                    try await run.settleAll()
                    try await run.importSeries(sample, json, line: lineNumber)
                } else {
                    pending.append((lineNumber, SampleJSON.unsaved(sample, keepingSource: keepSources)))
                }
            }
            if pending.count >= batchSize {
                try await run.submit(pending)
                pending.removeAll(keepingCapacity: true)
            }
            run.status.update(run.counts.line(rate: run.status.rate(run.counts.read)))
        }
        try await run.submit(pending)
        try await run.settleAll()
        let counts = run.counts
        run.status.finish(counts.line(rate: run.status.rate(counts.read)))
        if inv.format == .json {
            inv.output(counts.json(seconds: run.status.elapsed).text(pretty: false))
        } else {
            inv.print(counts.causes)
        }
        if counts.refused > 0 {
            throw HealthError(.invalidArgument, "\(counts.refused) of \(counts.read) lines were refused (causes above)")
        }
    }
}

/// What an import did so far: each line stored, already present, or refused for a reason.
struct ImportCounts: Sendable, Hashable {
    /// Lines refused for one reason, with the first few line numbers as examples.
    struct Refusal: Sendable, Hashable {
        var count = 0
        var lines: [Int] = []
    }

    var read = 0
    var stored = 0
    /// The same object (UUID and content) is already in the store, from this source or another.
    var alreadyPresent = 0
    /// Not saved because the store holds an equal or higher sync version.
    var keptExisting = 0
    /// Refusals by reason (the server's message with UUIDs and line-specific values taken out).
    var refusals: [String: Refusal] = [:]

    var refused: Int { refusals.values.reduce(0) { $0 + $1.count } }

    /// The progress line.
    func line(rate: Double) -> String {
        "import: \(read) read, \(stored) stored, \(alreadyPresent) already present"
            + (keptExisting > 0 ? ", \(keptExisting) kept existing" : "") + ", \(refused) refused, \(formatRate(rate))"
    }

    /// The summary by cause, for people.
    var causes: Report {
        var rows = [["stored", String(stored), ""], ["already present", String(alreadyPresent), ""]]
        if keptExisting > 0 { rows.append(["kept existing (higher sync version stored)", String(keptExisting), ""]) }
        for (reason, refusal) in refusals.sorted(by: { ($0.value.count, $1.key) > ($1.value.count, $0.key) }) {
            rows.append(["refused: \(reason)", String(refusal.count), refusal.lines.map(String.init).joined(separator: ",")])
        }
        return Report(table: Table(columns: ["OUTCOME", "LINES", "FIRST LINES"], rows: rows))
    }

    /// The summary for --format json.
    func json(seconds: Double) -> JSON {
        .object(["read": .int(Int64(read)), "stored": .int(Int64(stored)), "already_present": .int(Int64(alreadyPresent)),
                 "kept_existing": .int(Int64(keptExisting)), "refused": .int(Int64(refused)), "seconds": .double(seconds),
                 "refused_by_reason": .object(refusals.mapValues { refusal in
                     .object(["lines": .int(Int64(refusal.count)), "first_lines": .array(refusal.lines.map { .int(Int64($0)) })])
                 })])
    }

    /// Counts `lines` as refused for `reason`, keeping a few line numbers as examples.
    mutating func refuse(lines: [Int], reason: String) {
        var refusal = refusals[reason, default: Refusal()]
        refusal.count += lines.count
        refusal.lines += lines.prefix(max(0, Self.exampleLines - refusal.lines.count))
        refusals[reason] = refusal
    }

    static let exampleLines = 5
}

/// What became of one sample of an import.
enum ImportOutcome: Sendable, Hashable {
    case stored, alreadyPresent, keptExisting
    case refused(reason: String)
}

/// Saves batches of an import, counting outcomes; the first lines refused for each reason are
/// also noted on stderr as they happen.
struct ImportRun {
    typealias Batch = [(line: Int, sample: Sample)]

    let connection: any HealthCalling
    /// Save each sample as the source its line names (SaveObjects with keep_sources).
    let keepSources: Bool
    var counts = ImportCounts()
    let status: LiveStatus
    /// Told the outcome of every sample, for imports that tally by type or source.
    private let observe: ((Sample, ImportOutcome) -> Void)?
    /// Saves sent and not yet answered, oldest first: the server stores one while the next ones
    /// travel and the file is read on.
    private var inFlight: [(batch: Batch, save: Task<[SaveOutcome], any Error>)] = []
    private static let maxInFlight = 3

    init(connection: any HealthCalling, keepSources: Bool, status: LiveStatus = LiveStatus(),
         observe: ((Sample, ImportOutcome) -> Void)? = nil) {
        self.connection = connection
        self.keepSources = keepSources
        self.status = status
        self.observe = observe
    }

    /// Sends `batch`, first waiting for the oldest save when enough are in flight.
    mutating func submit(_ batch: Batch) async throws {
        guard !batch.isEmpty else { return }
        let (connection, samples, keepSources) = (connection, batch.map(\.sample), keepSources)
        inFlight.append((batch, Task { try await connection.save(samples, keepingSources: keepSources) }))
        if inFlight.count >= Self.maxInFlight { try await settleOldest() }
    }

    /// Waits for every save sent.
    mutating func settleAll() async throws {
        while !inFlight.isEmpty { try await settleOldest() }
    }

    private mutating func settleOldest() async throws {
        let (batch, save) = inFlight.removeFirst()
        try await self.save(batch, sent: save)
    }

    /// Counts the outcome of `batch`, saved atomically by `sent`. When the server names the
    /// offending object, that line is counted and the rest of the batch is saved again without it.
    private mutating func save(_ batch: Batch, sent: Task<[SaveOutcome], any Error>) async throws {
        var batch = batch
        var sent: Task<[SaveOutcome], any Error>? = sent
        while !batch.isEmpty {
            let attempt = sent
            sent = nil
            do {
                let outcomes = if let attempt {
                    try await attempt.value
                } else {
                    try await connection.save(batch.map(\.sample), keepingSources: keepSources)
                }
                for (outcome, item) in zip(outcomes, batch) {
                    switch outcome {
                    case .stored, .replaced: counts.stored += 1
                    case .alreadyStored: counts.alreadyPresent += 1
                    case .keptExisting: counts.keptExisting += 1
                    }
                    observe?(item.sample, outcome == .alreadyStored ? .alreadyPresent : outcome == .keptExisting ? .keptExisting : .stored)
                }
                return
            } catch let error as HealthError where error.code != .unavailable {
                guard let index = error.objectIndex, batch.indices.contains(index) else {
                    fail(lines: batch.map(\.line), error, samples: batch.map(\.sample))
                    return
                }
                if ExportImporter.isPresentElsewhere(error) {
                    counts.alreadyPresent += 1
                    observe?(batch[index].sample, .alreadyPresent)
                } else {
                    fail(lines: [batch[index].line], error, samples: [batch[index].sample])
                }
                batch.remove(at: index)
            }
        }
    }

    /// Builds a route or heartbeat series of the import again (as this connection's app).
    mutating func importSeries(_ sample: Sample, _ json: JSON, line: Int) async throws {
        do {
            let outcome = try await SeriesLines.importLine(sample, json, connection: connection)
            switch outcome {
            case .stored: counts.stored += 1
            case .alreadyPresent: counts.alreadyPresent += 1
            case .keptExisting: counts.keptExisting += 1
            case .refused: break
            }
            observe?(sample, outcome)
        } catch let error as HealthError where error.code != .unavailable {
            fail(lines: [line], error, samples: [sample])
        }
    }

    mutating func fail(lines: [Int], _ error: any Error, samples: [Sample] = []) {
        guard let first = lines.first, let last = lines.last else { return }
        let message = (error as? HealthError)?.message ?? "\(error)"
        let reason = ExportImporter.reason(message)
        for sample in samples { observe?(sample, .refused(reason: reason)) }
        if counts.refusals[reason]?.count ?? 0 < ImportCounts.exampleLines {
            status.note(lines.count == 1 ? "line \(first): \(message)" : "lines \(first)-\(last): \(message)")
        }
        counts.refuse(lines: lines, reason: reason)
    }
}

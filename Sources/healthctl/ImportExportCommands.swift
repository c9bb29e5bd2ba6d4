import AppleHealthImport
import HealthCLI
import Foundation
import HealthClient
import HealthModel
import Synchronization

/// Moving samples in and out as JSON Lines: one sample per line in the form of SampleOutput.swift.
///
/// As in HealthKit, an import is saved by the importing app: the server stamps the connection's
/// source revision (an owner token saves as Health), so sources are not preserved; UUIDs, devices,
/// metadata and every kind-specific field are. UUIDs make a re-import store nothing. With
/// --keep-sources the owner saves each sample as the source revision its line names (SaveObjects
/// with keep_sources), so an export moved to a fresh store keeps its sources. Routes, heartbeat series
/// and builder-made quantity samples carry their points and are built again with series builders
/// (SeriesLines.swift), as the importing connection's app or, with --keep-sources, as their line's
/// source (InsertSeriesData.source_revision), after the lines before them are stored (a route's
/// workout); an electrocardiogram's line carries its voltages and is saved whole.
enum ImportExportCommands {
    /// Pages of an export's read (the server sends up to 512 samples a page) waiting at most while
    /// the writer lags; the server holds back the rest.
    static let exportPagesWaiting = 16
    /// Samples per atomic save when importing, unless --batch says otherwise (the shape of the ingest benchmark's saves).
    static let importBatchSize = 5000
    /// A save also ends once its lines hold this many bytes: a sample's protobuf is smaller than its
    /// JSON line, so a save of large samples (workouts, electrocardiograms) stays within a frame.
    static let importBatchBytes = 2 * 1024 * 1024
    /// Connections an import saves over, unless --connections says otherwise: the server decodes
    /// each connection's frames on its own I/O thread, and saves from several share commits.
    static let importConnections = 4
    /// Saves waiting for their answer on each connection.
    static let importSavesPerConnection = 2

    static let all: [Command] = [
        Command(["export"], usage: "export [--type T ...] [--since T] [--until T] [--source BUNDLE] [--output FILE]",
                summary: "every matching sample as JSON lines, in the order saved (samples inside a correlation go with "
                    + "it; a route after its workout)",
                options: [("type T", "type (repeatable; default: every type with data)"),
                          ("source BUNDLE", "only samples saved by these apps (repeatable)"),
                          ("output FILE", "write to FILE instead of stdout (then --format json prints a summary)")] + BrowseCommands.rangeOptions) { inv in
            _ = try inv.arguments.positionals()
            try await export(inv)
        },
        Command(["import"], usage: "import FILE [--batch N] [--connections N] [--keep-sources]",
                summary: "save the samples of an export (FILE or - for stdin) as this token's app (the owner's: "
                    + "Health); UUIDs and devices are kept, sources only with --keep-sources; re-importing stores nothing",
                options: [("batch N", "samples per atomic save (default \(importBatchSize))"),
                          ("connections N", "connections to save over, each with \(importSavesPerConnection) saves in flight "
                              + "(default \(importConnections))")],
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
        var types = try inv.arguments.list("type").map { name throws(HealthError) in try TypeCatalog.resolve(name).identifier }
        // Every type is asked for rather than counted first: counting groups every stored sample (as
        // long again as reading them), while the read passes over the types the store does not hold.
        if types.isEmpty { types = TypeCatalog.sampleTypes.map(\.identifier) }

        let connection = try await inv.connect()
        // A correlation's children are exported inside it; saving them again on their own would
        // make them ordinary samples on import.
        let predicate: QueryPredicate = .allOf(clauses + [.noCorrelation])
        let writer = try LineWriter(path: inv.arguments.value("output"), output: inv.output)
        let status = LiveStatus()
        var written = 0
        var typesRead: Set<String> = []
        var cache = SampleJSON.LineCache()
        var lines = LineBuffer()
        var routes = RouteOrder(exporting: types)
        // The pages come over a connection of their own, whose reading is held back while the writer
        // lags; the look-ups below (workouts by route, series points) must not wait behind them.
        let reading = try await inv.connect()
        var pages = ExportPages { [reading, types] anchor in
            reading.anchoredPages(AnchoredQuery(types: types, predicate: predicate, anchor: anchor), waiting: exportPagesWaiting)
        }
        var writtenOnce = WrittenOnce()
        let zone = inv.zone
        while let page = try await pages.next() {
            let table = page.batch.table
            typesRead.formUnion(table.types)
            let tableLines = SampleJSON.TableLines(table, cache: &cache)
            var next = 0
            while next < table.rows.count {
                // The plain rows up to the next that is not, in one call.
                let plainEnd = tableLines.writeLines(from: next, while: SeriesLines.isPlain, zone: zone, cache: &cache, to: &lines)
                written += plainEnd - next
                guard plainEnd < table.rows.count else { break }
                next = plainEnd + 1
                let sample = table[plainEnd]
                guard try writtenOnce.admit(sample, from: page) else { continue }
                for due in try await routes.due(sample, connection: connection) {
                    try await writeLine(due, workouts: routes.workouts, connection: connection, zone: zone, cache: &cache, to: &lines)
                    written += 1
                }
            }
            try writer.write(lines: &lines)
            status.update("export: \(written) samples, \(formatRate(status.rate(written)))")
        }
        for route in routes.rest() {
            try await writeLine(route, workouts: routes.workouts, connection: connection, zone: zone, cache: &cache, to: &lines)
            written += 1
        }
        try writer.finish(lines: &lines)
        let seconds = status.elapsed
        status.finish("export: \(written) samples of \(typesRead.count) types in \(String(format: "%.1f", seconds))s")
        if inv.format == .json, inv.arguments.value("output") != nil {
            inv.output(JSON.object(["samples": .int(Int64(written)), "types": .int(Int64(typesRead.count)),
                                    "seconds": .double(seconds)]).text(pretty: false))
        }
    }

    /// Appends the line of `sample` (one decoded whole) to `lines`, given each route's workout
    /// (`RouteOrder.workouts`); a series' points are read from the server.
    private static func writeLine(_ sample: Sample, workouts: [UUID: UUID]?, connection: any HealthCalling, zone: TimeZone?,
                                  cache: inout SampleJSON.LineCache, to lines: inout LineBuffer) async throws {
        guard SeriesLines.hasPoints(sample) else {
            SampleJSON.writeLine(SeriesLines.withoutRoutes(sample, workouts ?? [:]), zone: zone, cache: &cache, to: &lines)
            return
        }
        let line = try await SeriesLines.line(sample, workout: workouts?[sample.uuid], connection: connection, zone: zone)
        lines.append(contentsOf: (line.text(pretty: false) + "\n").utf8)
    }

    // MARK: Import

    private static func importSamples(_ inv: Invocation, path: String) async throws {
        let batchSize = try positive(inv, "batch") ?? importBatchSize
        let connectionCount = try positive(inv, "connections") ?? importConnections
        let keepSources = inv.arguments.has("keep-sources")
        let reader = try LineReader(path: path)
        let connection = try await inv.connect()
        var saving = [connection]
        while saving.count < connectionCount { saving.append(try await inv.connect()) }
        var run = ImportRun(connection: connection, saving: saving, keepSources: keepSources,
                            maxInFlight: connectionCount * importSavesPerConnection)
        var pending = BatchSaver.Batch()
        var pendingBytes = 0
        var lineNumber = 0
        var plainLines = PlainLines(.unsaved(keepingSource: keepSources))
        // A plain line is read from its bytes; any other through the JSON tree (a series is built from it).
        while let line = try reader.next({ bytes -> ReadLine in
            if Self.isBlank(bytes) { return .blank }
            if let sample = plainLines.sample(bytes) { return .plain(sample, bytes: bytes.count) }
            return .other(String(decoding: bytes, as: UTF8.self))
        }) {
            lineNumber += 1
            switch line {
            case .blank: continue
            case .plain(let sample, let bytes):
                run.read()
                pending.append(line: lineNumber, sample)
                pendingBytes += bytes
            case .other(let text):
                run.read()
                var decoded: (json: JSON, sample: Sample)?
                do {
                    let json = try JSON.parse(text)
                    decoded = (json, try SampleJSON.decode(json, path: ""))
                } catch {
                    run.fail(lines: [lineNumber], error)
                }
                if let (json, sample) = decoded, SeriesLines.isBuilt(sample, json) {
                    // A route is finished with its workout: what was read before it is stored first.
                    try await run.submit(pending)
                    pending.removeAll()
                    pendingBytes = 0
                    try await run.settleAll()
                    try await run.importSeries(sample, json, line: lineNumber)
                } else if let (_, sample) = decoded {
                    pending.append(line: lineNumber, SampleJSON.unsaved(sample, keepingSource: keepSources))
                    pendingBytes += text.utf8.count
                }
            }
            if pending.count >= batchSize || pendingBytes >= importBatchBytes {
                try await run.submit(pending)
                pending.removeAll()
                pendingBytes = 0
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

    /// A line of an import as read: blank, a plain line's sample (`PlainLines`), or any other's text.
    private enum ReadLine {
        case blank
        case plain(Sample, bytes: Int)
        case other(String)
    }

    /// Whether `bytes` are whitespace alone, as `Character.isWhitespace` tells (bytes past ASCII read as text).
    private static func isBlank(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        for byte in bytes {
            switch byte {
            case 0x09...0x0D, 0x20: continue
            case 0x80...: return String(decoding: bytes, as: UTF8.self).allSatisfy(\.isWhitespace)
            default: return false
            }
        }
        return true
    }

    /// The value of `--option` as a positive whole number, nil when not given.
    private static func positive(_ inv: Invocation, _ option: String) throws(UsageError) -> Int? {
        guard let text = inv.arguments.value(option) else { return nil }
        guard let n = Int(text), n > 0 else { throw UsageError("--\(option): '\(text)' is not a positive whole number", option: option) }
        return n
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

    /// Counts `lines` as refused for `error`, noting the first few of each reason on `status`.
    mutating func refuse(lines: [Int], _ error: any Error, status: LiveStatus) {
        guard let first = lines.first, let last = lines.last else { return }
        let message = (error as? HealthError)?.message ?? "\(error)"
        let reason = BatchSaver.reason(message)
        if refusals[reason]?.count ?? 0 < Self.exampleLines {
            status.note(lines.count == 1 ? "line \(first): \(message)" : "lines \(first)-\(last): \(message)")
        }
        var refusal = refusals[reason, default: Refusal()]
        refusal.count += lines.count
        refusal.lines += lines.prefix(max(0, Self.exampleLines - refusal.lines.count))
        refusals[reason] = refusal
    }

    static let exampleLines = 5
}

/// The store an import saves into: SaveObjects (with keep_sources when asked) over `saving`, taking
/// the connections in turn; everything else over `connection`.
final class ConnectionDestination: ImportDestination {
    let connection: any HealthCalling
    private let saving: [any HealthCalling]
    let keepSources: Bool
    private let turn = Atomic(0)

    init(connection: any HealthCalling, saving: [any HealthCalling]? = nil, keepSources: Bool) {
        self.connection = connection
        self.saving = saving ?? [connection]
        self.keepSources = keepSources
    }

    func save(_ samples: [Sample]) async throws -> [SaveOutcome] {
        let next = turn.wrappingAdd(1, ordering: .relaxed).oldValue
        return try await saving[next % saving.count].save(samples, keepingSources: keepSources)
    }

    func characteristics() async throws -> Characteristics {
        try await connection.characteristics()
    }

    func writeCharacteristics(_ update: Characteristics) async throws {
        try await connection.writeCharacteristics(update)
    }

    func isStored(_ uuid: UUID, type: String) async throws -> Bool {
        try await !connection.samples(SampleQuery(types: [type], predicate: .uuids([uuid]))).isEmpty
    }

    /// Through the client's builders (as the series' own source when keeping sources); FinishSeries and
    /// DiscardSeries name only the builder, so any kind's builder sends them.
    func series(_ step: SeriesStep) async throws -> Sample? {
        switch step {
        case .insert(let insert):
            let revision = keepSources ? insert.sourceRevision : nil
            switch insert.points {
            case .locations(let locations):
                try await connection.routeBuilder(id: insert.builderID, device: insert.device, as: revision).insert(locations)
            case .beats(let beats):
                try await connection.heartbeatSeriesBuilder(start: insert.start, id: insert.builderID, device: insert.device, as: revision)
                    .insert(beats)
            case .quantities, .voltages:
                throw HealthError.invalid("an import builds routes and heartbeat series only", field: "points")
            }
            return nil
        case .finish(let finish):
            return try await connection.routeBuilder(id: finish.builderID).finish(workout: finish.workoutUUID, metadata: finish.metadata,
                                                                                  end: finish.end)
        case .discard(let id):
            try await connection.routeBuilder(id: id).discard()
            return nil
        }
    }
}

/// Saves batches of a JSON-lines import (by BatchSaver), counting outcomes; the first lines refused
/// for each reason are also noted on stderr as they happen.
struct ImportRun {
    /// The counts, shared with the saver that fills them in as saves are answered.
    private final class Tally {
        var counts = ImportCounts()
        let status = LiveStatus()

        func record(line: Int, _ outcome: ImportOutcome) {
            switch outcome {
            case .stored: counts.stored += 1
            case .alreadyPresent: counts.alreadyPresent += 1
            case .keptExisting: counts.keptExisting += 1
            case .refused(let error): counts.refuse(lines: [line], error, status: status)
            }
        }
    }

    private let tally: Tally
    private var saver: BatchSaver
    private let connection: any HealthCalling
    private let keepSources: Bool

    var counts: ImportCounts { tally.counts }
    var status: LiveStatus { tally.status }

    /// Saves over `saving` with up to `maxInFlight` saves unanswered; series and queries go over `connection`.
    init(connection: any HealthCalling, saving: [any HealthCalling], keepSources: Bool, maxInFlight: Int) {
        let tally = Tally()
        self.tally = tally
        self.connection = connection
        self.keepSources = keepSources
        saver = BatchSaver(destination: ConnectionDestination(connection: connection, saving: saving, keepSources: keepSources),
                           maxInFlight: maxInFlight) { batch, index, outcome in
            tally.record(line: batch.lines[index], outcome)
        }
    }

    func read() { tally.counts.read += 1 }

    /// Counts `lines` as refused before they were sent (a line that is not a sample).
    func fail(lines: [Int], _ error: any Error) {
        tally.counts.refuse(lines: lines, error, status: tally.status)
    }

    /// Sends `batch`; one naming objects of earlier lines (a workout's associated samples) is sent
    /// only once every save before it is answered, since saves over several connections may commit
    /// in any order.
    mutating func submit(_ batch: BatchSaver.Batch) async throws {
        if batch.samples.contains(where: Self.refersToEarlierLines) { try await saver.settleAll() }
        try await saver.submit(batch)
    }

    private static func refersToEarlierLines(_ sample: Sample) -> Bool {
        if case .workout(let workout) = sample.body { !workout.associatedSampleUUIDs.isEmpty } else { false }
    }

    mutating func settleAll() async throws {
        try await saver.settleAll()
    }

    /// Builds a route, heartbeat series or quantity series of the import again (as its line's source
    /// when keeping sources, else as this connection's app).
    func importSeries(_ sample: Sample, _ json: JSON, line: Int) async throws {
        do {
            tally.record(line: line, try await SeriesLines.importLine(sample, json, keepingSource: keepSources, connection: connection))
        } catch let error as HealthError where error.code != .unavailable {
            fail(lines: [line], error)
        }
    }
}

import Foundation
import HealthModel

/// Where an import saves: the owner's store, each object as its own source (SaveObjects with keep_sources).
public protocol ImportDestination: Sendable {
    /// Saves `samples` atomically; one outcome per sample, or the error naming the offending object.
    func save(_ samples: [Sample]) async throws -> [SaveOutcome]
    func characteristics() async throws -> Characteristics
    func writeCharacteristics(_ update: Characteristics) async throws
    /// Whether a sample with this UUID is stored (a series built by an earlier import).
    func isStored(_ uuid: UUID, type: String) async throws -> Bool
    /// One series builder call (InsertSeriesData, FinishSeries, DiscardSeries); a finish answers the
    /// stored sample, nil when the store kept a higher sync version.
    func series(_ step: SeriesStep) async throws -> Sample?
}

/// A series builder call an import makes.
public enum SeriesStep: Sendable {
    case insert(SeriesInsert)
    case finish(SeriesFinish)
    case discard(UUID)
}

/// How far an import is: the export's bytes read of its total, samples read, the type being read.
public struct ImportProgress: Sendable {
    public var bytesRead: Int64
    public var totalBytes: Int64
    public var records: Int
    public var currentType: String

    public init(bytesRead: Int64 = 0, totalBytes: Int64 = 0, records: Int = 0, currentType: String = "") {
        self.bytesRead = bytesRead
        self.totalBytes = totalBytes
        self.records = records
        self.currentType = currentType
    }
}

/// Reads an export and saves it in atomic batches (a few in flight, by BatchSaver), tallying every
/// object per type and source. Used by `healthctl import-apple-health` and the dashboard's uploads.
public final class ExportImporter {
    /// Objects per atomic save unless told otherwise. Each save is a durable commit whose cost is
    /// mostly per batch (the index pages it rewrites, its WAL write and fsync): batches of 2,000 cost
    /// healthd about a quarter less CPU per sample than 500 did (bench/README.md, "Apple Health import").
    public static let defaultBatchSize = 2_000
    /// A batch also ends once its elements span this many bytes of export.xml, so that a batch of large
    /// objects (workouts with many events, food correlations) stays well within a frame: an object's
    /// protobuf is smaller than its XML.
    public static let defaultBatchBytes: Int64 = 2 * 1024 * 1024

    private let export: AppleHealthExport
    private let destination: any ImportDestination
    private let batchSize: Int
    private let batchBytes: Int64
    private let maxInFlight: Int
    private let observe: ((BatchSaver.Item, ImportOutcome) -> Void)?
    public private(set) var summary = ImportSummary()
    public private(set) var records = 0
    /// Objects the store refused (each also tallied as skipped with the reason).
    public private(set) var refused = 0
    /// Series read whose parent's save is not answered yet (with their element's line), their parents,
    /// and the parents' answers so far (true: the parent is stored).
    private var waiting: [(series: ExportSeries, line: Int)] = []
    private var parents: Set<UUID> = []
    private var parentStored: [UUID: Bool] = [:]
    /// Series builds started and not yet answered, oldest first, with their elements' lines.
    private var building: [(series: ExportSeries, line: Int, build: Task<ImportOutcome, any Error>)] = []
    /// Series built at once. A build is a few calls in turn (its query, discard, inserts and finish),
    /// each waiting for the store's answer (most of them a commit): built one at a time, they held
    /// the reading and the saves up for the length of every call.
    static let seriesInFlight = 16

    /// `observe` is told each object's outcome after it is tallied.
    public init(export: AppleHealthExport, destination: any ImportDestination, batchSize: Int = defaultBatchSize,
                batchBytes: Int64 = defaultBatchBytes, maxInFlight: Int = 3, observe: ((BatchSaver.Item, ImportOutcome) -> Void)? = nil) {
        self.export = export
        self.destination = destination
        self.batchSize = batchSize
        self.batchBytes = batchBytes
        self.maxInFlight = maxInFlight
        self.observe = observe
    }

    /// Imports everything; `progress` is told after each object read. What was read before an
    /// export error is saved before the error is thrown.
    public func run(progress: (ImportProgress) -> Void) async throws {
        var saver = BatchSaver(destination: destination, maxInFlight: maxInFlight) { [unowned self] batch, index, outcome in
            tally(batch[index], outcome)
        }
        var pending = BatchSaver.Batch()
        // Exports repeat some objects word for word; one batch may not name a UUID twice.
        var pendingUUIDs = Set<UUID>()
        // Where in export.xml the pending batch's first element was read (the reader reads ahead in chunks,
        // so this is within a few KB; a read resumed past bad XML starts from 0 again, which only ends a batch late).
        var batchStart = export.bytesRead
        var failure: ImportError?
        do {
            while let item = try export.next() {
                switch item {
                case .sample(let sample, let origin):
                    records += 1
                    if pendingUUIDs.insert(sample.uuid).inserted {
                        if pending.isEmpty { batchStart = export.bytesRead }
                        pending.append(line: origin.line, sample)
                    } else {
                        tally((origin.line, sample), .alreadyPresent)
                    }
                case .series(let series, let origin):
                    waiting.append((series, origin.line))
                    parents.insert(series.parent)
                case .characteristics(let characteristics, _):
                    let current = try await destination.characteristics()
                    if current.merged(with: characteristics) == current {
                        summary.alreadyPresent(type: "Me", source: "")
                    } else {
                        try await destination.writeCharacteristics(characteristics)
                        summary.stored(type: "Me", source: "")
                    }
                }
                if pending.count >= batchSize || (!pending.isEmpty && export.bytesRead - batchStart >= batchBytes) {
                    try await saver.submit(pending)
                    pending.removeAll()
                    pendingUUIDs.removeAll(keepingCapacity: true)
                    try await buildAnswered(all: false)
                }
                progress(ImportProgress(bytesRead: export.bytesRead, totalBytes: export.totalBytes, records: records,
                                        currentType: export.currentType))
            }
        } catch let error as ImportError {
            failure = error
        }
        try await saver.submit(pending)
        try await saver.settleAll()
        try await buildAnswered(all: true)
        summary.merge(export.summary)
        if let failure { throw failure }
    }

    /// Starts building the waiting series whose parent's save is answered, a few at once (`all`: every
    /// one, once every save is, and waits for them all); a series whose parent was refused is skipped
    /// with it. Each built series' outcome is told to `observe` as its sample, with its element's line.
    private func buildAnswered(all: Bool) async throws {
        var later: [(series: ExportSeries, line: Int)] = []
        for (series, line) in waiting {
            switch parentStored[series.parent] {
            case false?:
                summary.skip(type: series.type, source: series.sourceName, reason: "not stored: its parent was not stored")
            case nil where !all:
                later.append((series, line))
            default:
                building.append((series, line, Self.startBuilding(series, into: destination)))
                if building.count >= Self.seriesInFlight { try await settleOldestSeries() }
            }
        }
        waiting = later
        parents = Set(later.map(\.series.parent))
        parentStored = parentStored.filter { parents.contains($0.key) }
        if all { while !building.isEmpty { try await settleOldestSeries() } }
    }

    private static func startBuilding(_ series: ExportSeries, into destination: any ImportDestination) -> Task<ImportOutcome, any Error> {
        Task { try await build(series, into: destination) }
    }

    /// A series' outcome: refused when the store refuses it; an unavailable store is thrown.
    private static func build(_ series: ExportSeries, into destination: any ImportDestination) async throws -> ImportOutcome {
        do {
            return try await SeriesImport.build(series, into: destination)
        } catch let error as HealthError where error.code != .unavailable {
            return .refused(error)
        }
    }

    /// Waits for the oldest series build and tallies it.
    private func settleOldestSeries() async throws {
        let (series, line, build) = building.removeFirst()
        let outcome = try await build.value
        count(type: series.type, source: series.sourceName, outcome)
        observe?((line, series.sample), outcome)
    }

    private func tally(_ item: BatchSaver.Item, _ outcome: ImportOutcome) {
        if parents.contains(item.sample.uuid) {
            if case .refused = outcome { parentStored[item.sample.uuid] = false } else { parentStored[item.sample.uuid] = true }
        }
        count(type: item.sample.type, source: item.sample.sourceRevision?.source.name ?? "", outcome)
        observe?(item, outcome)
    }

    private func count(type: String, source: String, _ outcome: ImportOutcome) {
        switch outcome {
        case .stored: summary.stored(type: type, source: source)
        case .alreadyPresent: summary.alreadyPresent(type: type, source: source)
        case .keptExisting: summary.skip(type: type, source: source, reason: "kept existing (higher sync version stored)")
        case .refused(let error):
            refused += 1
            summary.skip(type: type, source: source, reason: "refused: " + BatchSaver.reason(error.message))
        }
    }
}

import Foundation
import HealthModel

/// Where an import saves: the owner's store, each object as its own source (SaveObjects with keep_sources).
public protocol ImportDestination: Sendable {
    /// Saves `samples` atomically; one outcome per sample, or the error naming the offending object.
    func save(_ samples: [Sample]) async throws -> [SaveOutcome]
    func characteristics() async throws -> Characteristics
    func writeCharacteristics(_ update: Characteristics) async throws
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
    private let export: AppleHealthExport
    private let destination: any ImportDestination
    private let batchSize: Int
    private let maxInFlight: Int
    private let observe: ((BatchSaver.Item, ImportOutcome) -> Void)?
    public private(set) var summary = ImportSummary()
    public private(set) var records = 0
    /// Objects the store refused (each also tallied as skipped with the reason).
    public private(set) var refused = 0

    /// `observe` is told each object's outcome after it is tallied.
    public init(export: AppleHealthExport, destination: any ImportDestination, batchSize: Int = 500, maxInFlight: Int = 3,
                observe: ((BatchSaver.Item, ImportOutcome) -> Void)? = nil) {
        self.export = export
        self.destination = destination
        self.batchSize = batchSize
        self.maxInFlight = maxInFlight
        self.observe = observe
    }

    /// Imports everything; `progress` is told after each object read. What was read before an
    /// export error is saved before the error is thrown.
    public func run(progress: (ImportProgress) -> Void) async throws {
        var saver = BatchSaver(destination: destination, maxInFlight: maxInFlight) { [unowned self] item, outcome in
            tally(item, outcome)
        }
        var pending: [BatchSaver.Item] = []
        // Exports repeat some objects word for word; one batch may not name a UUID twice.
        var pendingUUIDs = Set<UUID>()
        var failure: ImportError?
        do {
            while let item = try export.next() {
                switch item {
                case .sample(let sample, let origin):
                    records += 1
                    if pendingUUIDs.insert(sample.uuid).inserted {
                        pending.append((origin.line, sample))
                    } else {
                        tally((origin.line, sample), .alreadyPresent)
                    }
                case .characteristics(let characteristics, _):
                    let current = try await destination.characteristics()
                    if current.merged(with: characteristics) == current {
                        summary.alreadyPresent(type: "Me", source: "")
                    } else {
                        try await destination.writeCharacteristics(characteristics)
                        summary.stored(type: "Me", source: "")
                    }
                }
                if pending.count >= batchSize {
                    try await saver.submit(pending)
                    pending.removeAll(keepingCapacity: true)
                    pendingUUIDs.removeAll(keepingCapacity: true)
                }
                progress(ImportProgress(bytesRead: export.bytesRead, totalBytes: export.totalBytes, records: records,
                                        currentType: export.currentType))
            }
        } catch let error as ImportError {
            failure = error
        }
        try await saver.submit(pending)
        try await saver.settleAll()
        summary.merge(export.summary)
        if let failure { throw failure }
    }

    private func tally(_ item: BatchSaver.Item, _ outcome: ImportOutcome) {
        let (type, source) = (item.sample.type, item.sample.sourceRevision?.source.name ?? "")
        switch outcome {
        case .stored: summary.stored(type: type, source: source)
        case .alreadyPresent: summary.alreadyPresent(type: type, source: source)
        case .keptExisting: summary.skip(type: type, source: source, reason: "kept existing (higher sync version stored)")
        case .refused(let error):
            refused += 1
            summary.skip(type: type, source: source, reason: "refused: " + BatchSaver.reason(error.message))
        }
        observe?(item, outcome)
    }
}

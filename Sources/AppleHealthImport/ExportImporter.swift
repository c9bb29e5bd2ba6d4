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

/// Reads an export and saves it in atomic batches, tallying every object per type and source. An
/// object the store refuses costs that object, not its batch: the rest is saved again without it.
public struct ExportImporter {
    private let export: AppleHealthExport
    private let destination: any ImportDestination
    private let batchSize: Int
    public private(set) var summary = ImportSummary()
    public private(set) var records = 0

    public init(export: AppleHealthExport, destination: any ImportDestination, batchSize: Int = 500) {
        self.export = export
        self.destination = destination
        self.batchSize = batchSize
    }

    /// Imports everything; `progress` is told after each object read. What was read before an
    /// export error is saved before the error is thrown.
    public mutating func run(progress: (ImportProgress) -> Void) async throws {
        var pending: [Sample] = []
        // Exports repeat some objects word for word; one batch may not name a UUID twice.
        var pendingUUIDs = Set<UUID>()
        var failure: ImportError?
        do {
            while let item = try export.next() {
                switch item {
                case .sample(let sample, _):
                    records += 1
                    if pendingUUIDs.insert(sample.uuid).inserted {
                        pending.append(sample)
                    } else {
                        summary.alreadyPresent(type: sample.type, source: Self.source(sample))
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
                    try await save(pending)
                    pending.removeAll(keepingCapacity: true)
                    pendingUUIDs.removeAll(keepingCapacity: true)
                }
                progress(ImportProgress(bytesRead: export.bytesRead, totalBytes: export.totalBytes, records: records,
                                        currentType: export.currentType))
            }
        } catch let error as ImportError {
            failure = error
        }
        try await save(pending)
        summary.merge(export.summary)
        if let failure { throw failure }
    }

    /// Saves `batch`, tallying each outcome; a refused object is tallied and the rest saved again.
    private mutating func save(_ batch: [Sample]) async throws {
        var batch = batch
        while !batch.isEmpty {
            do {
                let outcomes = try await destination.save(batch)
                for (outcome, sample) in zip(outcomes, batch) {
                    switch outcome {
                    case .stored, .replaced: summary.stored(type: sample.type, source: Self.source(sample))
                    case .alreadyStored: summary.alreadyPresent(type: sample.type, source: Self.source(sample))
                    case .keptExisting: summary.skip(type: sample.type, source: Self.source(sample), reason: "kept existing (higher sync version stored)")
                    }
                }
                return
            } catch let error as HealthError where error.code != .unavailable {
                guard let index = error.objectIndex, batch.indices.contains(index) else {
                    for sample in batch { summary.skip(type: sample.type, source: Self.source(sample), reason: "refused: " + Self.reason(error.message)) }
                    return
                }
                let sample = batch.remove(at: index)
                if Self.isPresentElsewhere(error) {
                    summary.alreadyPresent(type: sample.type, source: Self.source(sample))
                } else {
                    summary.skip(type: sample.type, source: Self.source(sample), reason: "refused: " + Self.reason(error.message))
                }
            }
        }
    }

    private static func source(_ sample: Sample) -> String {
        sample.sourceRevision?.source.name ?? ""
    }

    /// The object's UUID is stored already under another source: re-importing an export into the
    /// store it came from (the owner's import saves as the Health app) meets every object this way.
    public static func isPresentElsewhere(_ error: HealthError) -> Bool {
        error.code == .invalidArgument && error.field?.hasSuffix("uuid") == true
            && error.message.contains("already used by an object saved by another source")
    }

    /// A message with what differs from object to object (UUIDs, numbers, quoted values) taken out,
    /// so refusals for one cause count together.
    public static func reason(_ message: String) -> String {
        message.replacing(/[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}/, with: "<uuid>")
            .replacing(/'[^']*'/, with: "'…'")
            .replacing(/-?\d+(\.\d+)?/, with: "N")
    }
}

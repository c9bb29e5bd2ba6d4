import Foundation
import HealthModel

/// Builds an export's route or heartbeat series in the store, once: a series whose UUID is stored
/// is already present; an open builder of that id (an interrupted import) is discarded and the
/// series built again from its first point.
enum SeriesImport {
    static let batchSize = 1_000

    static func build(_ series: ExportSeries, into destination: any ImportDestination) async throws -> ImportOutcome {
        if try await destination.isStored(series.id, type: series.type) { return .alreadyPresent }
        _ = try? await destination.series(.discard(series.id))
        do {
            for batch in batches(series.points) {
                _ = try await destination.series(.insert(SeriesInsert(builderID: series.id, type: series.type, start: series.start,
                                                                      device: series.device, points: batch,
                                                                      sourceRevision: series.sourceRevision)))
            }
            let finish = SeriesFinish(builderID: series.id, workoutUUID: series.workout, metadata: series.metadata, end: series.end)
            return try await destination.series(.finish(finish)) == nil ? .keptExisting : .stored
        } catch {
            _ = try? await destination.series(.discard(series.id))
            throw error
        }
    }

    /// The points in builder-sized batches (one empty batch for a series with none, to open its builder).
    static func batches(_ points: SeriesPoints) -> [SeriesPoints] {
        switch points {
        case .locations(let all): chunks(all).map(SeriesPoints.locations)
        case .beats(let all): chunks(all).map(SeriesPoints.beats)
        case .quantities(let all): chunks(all).map(SeriesPoints.quantities)
        case .voltages(let all): chunks(all).map(SeriesPoints.voltages)
        }
    }

    private static func chunks<T>(_ all: [T]) -> [[T]] {
        guard !all.isEmpty else { return [[]] }
        return stride(from: 0, to: all.count, by: batchSize).map { Array(all[$0..<min(all.count, $0 + batchSize)]) }
    }
}

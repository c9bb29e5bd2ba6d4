import Foundation
import HealthModel

/// Quantity series (HKQuantitySeriesSampleBuilder): a builder's points are appended to `series_chunks`
/// under the builder id, and finishing turns them into one quantity sample with that UUID; the points
/// stay where they are, flagged on the sample's row, and statistics read them (`statisticsSamples`).
extension EngineStore {
    /// Checks a batch of points against the builder (its type and start date) and the points it already
    /// holds, and appends it in one write job; returns how many points the builder holds now.
    public func appendQuantityPoints(owner: OwnerID, builder: UUID, type: String, start: Microseconds,
                                     _ points: [QuantitySeriesPoint]) async throws -> Int {
        let healthType = try Self.seriesType(type)
        return try await write { context throws(HealthError) in
            try context.appendQuantityPoints(owner: owner.rawValue, builder: builder, type: healthType, start: start, points)
        }
    }

    /// Finishes a builder (finishSeries(metadata:endDate:)): saves, as `revision`'s, the quantity sample
    /// its points make (UUID = builder id, see `QuantitySeriesSummary`) and returns it as stored. An
    /// older sync version than one stored is not saved (as any save) and its points are dropped.
    public func finishQuantitySeries(owner: OwnerID, builder: UUID, type: String, start: Microseconds, end: Microseconds?,
                                     metadata: Metadata, device: Device?, revision: SourceRevision) async throws -> Sample {
        let healthType = try Self.seriesType(type)
        return try await write { context throws(HealthError) in
            try context.finishQuantitySeries(owner: owner.rawValue, builder: builder, type: healthType, start: start, end: end,
                                             metadata: metadata, device: device, revision: revision, imported: false)
        }
    }

    /// Up to `limit` points of a readable quantity sample from point `start` on, in start order
    /// (HKQuantitySeriesSampleQuery). A sample no builder made yields its own quantity and interval as
    /// its one point.
    public func quantitySeriesPoints(owner: OwnerID, of sample: Sample, from start: Int, limit: Int) async throws -> [QuantitySeriesPoint] {
        try await read { context throws(HealthError) in
            let stored: [QuantitySeriesPoint] = try SeriesChunks(db: context.db).read(owner: owner.rawValue, series: sample.uuid,
                                                                                      from: start, limit: limit)
            guard stored.isEmpty, start == 0, limit > 0, let quantity = sample.quantity else { return stored }
            return [QuantitySeriesPoint(quantity, start: sample.start, end: sample.end)]
        }
    }

    static func seriesType(_ identifier: String) throws(HealthError) -> HealthType {
        guard let type = TypeCatalog.type(identifier), type.kind == .quantity else {
            throw HealthError.invalid("'\(identifier)' is not a quantity type, so it holds no quantity series", field: "type")
        }
        return type
    }
}

/// The quantity series steps on the writer thread, shared by the store's calls above and the series
/// builder calls (SeriesBuilders).
extension WriteContext {
    /// Checks `points` against the builder's type and start and the points it holds, and appends them.
    func appendQuantityPoints(owner: Int64, builder: UUID, type: HealthType, start: Microseconds,
                              _ points: [QuantitySeriesPoint]) throws(HealthError) -> Int {
        let chunks = SeriesChunks(db: db)
        let tail = try chunks.tail(owner: owner, series: builder)
        let (accepted, replacesLast) = try QuantitySeriesRules.accept(points, type: type, builderStart: start, lastStart: tail.lastKey)
        if replacesLast { try chunks.removeLast(owner: owner, series: builder, as: QuantitySeriesPoint.self) }
        try chunks.append(owner: owner, series: builder, accepted)
        return tail.count - (replacesLast ? 1 : 0) + accepted.count
    }

    /// Saves the quantity sample the builder's points make and returns it as stored.
    func finishQuantitySeries(owner: Int64, builder: UUID, type: HealthType, start: Microseconds, end: Microseconds?,
                              metadata: Metadata, device: Device?, revision: SourceRevision, imported: Bool) throws(HealthError) -> Sample {
        let chunks = SeriesChunks(db: db)
        var summary = try QuantitySeriesSummary(type: type)
        while true {
            let batch: [QuantitySeriesPoint] = try chunks.read(owner: owner, series: builder, from: Int(summary.count),
                                                               limit: SeriesChunks.chunkSize)
            if batch.isEmpty { break }
            try summary.add(batch)
        }
        let sample = try summary.sample(uuid: builder, start: start, end: end, metadata: metadata, device: device)
        let outcome = try saveFinished(sample, owner: owner, revision: revision, imported: imported)
        if outcome == .keptExisting {
            try chunks.delete(owner: owner, series: builder)
        } else {
            try QuantitySeriesRows(db: db).markStored(owner: owner, sample)
        }
        return sample.stamped(revision: revision, device: device, creationTime: now)
    }
}

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
            let chunks = SeriesChunks(db: context.db)
            let tail = try chunks.tail(owner: owner.rawValue, series: builder)
            let (accepted, replacesLast) = try QuantitySeriesRules.accept(points, type: healthType, builderStart: start,
                                                                           lastStart: tail.lastKey)
            if replacesLast { try chunks.removeLast(owner: owner.rawValue, series: builder, as: QuantitySeriesPoint.self) }
            try chunks.append(owner: owner.rawValue, series: builder, accepted)
            return tail.count - (replacesLast ? 1 : 0) + accepted.count
        }
    }

    /// Finishes a builder (finishSeries(metadata:endDate:)): saves, as `revision`'s, the quantity sample
    /// its points make (UUID = builder id, see `QuantitySeriesSummary`) and returns it as stored. An
    /// older sync version than one stored is not saved (as any save) and its points are dropped.
    public func finishQuantitySeries(owner: OwnerID, builder: UUID, type: String, start: Microseconds, end: Microseconds?,
                                     metadata: Metadata, device: Device?, revision: SourceRevision) async throws -> Sample {
        let healthType = try Self.seriesType(type)
        return try await write { context throws(HealthError) in
            let chunks = SeriesChunks(db: context.db)
            var summary = try QuantitySeriesSummary(type: healthType)
            while true {
                let batch: [QuantitySeriesPoint] = try chunks.read(owner: owner.rawValue, series: builder, from: Int(summary.count),
                                                                   limit: SeriesChunks.chunkSize)
                if batch.isEmpty { break }
                try summary.add(batch)
            }
            let sample = try summary.sample(uuid: builder, start: start, end: end, metadata: metadata, device: device)
            let outcome = try context.save(SaveBatch(owner: owner, revision: revision, defaultDevice: nil, objects: [sample]))[0]
            if outcome == .keptExisting {
                try chunks.delete(owner: owner.rawValue, series: builder)
            } else {
                try QuantitySeriesRows(db: context.db).markStored(owner: owner.rawValue, sample)
            }
            return sample.stamped(revision: revision, device: device, creationTime: context.now)
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

    private static func seriesType(_ identifier: String) throws(HealthError) -> HealthType {
        guard let type = TypeCatalog.type(identifier), type.kind == .quantity else {
            throw HealthError.invalid("'\(identifier)' is not a quantity type, so it holds no quantity series", field: "type")
        }
        return type
    }
}

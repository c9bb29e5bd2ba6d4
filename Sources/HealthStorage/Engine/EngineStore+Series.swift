import Foundation
import HealthModel

/// Series points and builders: a builder's batches are checked against the points already stored and
/// appended in one write job, so concurrent batches of one series cannot interleave out of order.
extension EngineStore {
    /// Appends route locations after the route's last one; returns how many the route holds now.
    public func appendRouteLocations(owner: OwnerID, route: UUID, _ locations: [RouteLocation]) async throws -> Int {
        try await write { context throws(HealthError) in try context.appendPoints(owner: owner.rawValue, series: route, .locations(locations)) }
    }

    /// Appends beats after the series' last one; returns how many the series holds now.
    public func appendHeartbeats(owner: OwnerID, series: UUID, _ beats: [Heartbeat]) async throws -> Int {
        try await write { context throws(HealthError) in try context.appendPoints(owner: owner.rawValue, series: series, .beats(beats)) }
    }

    /// One batch of a series' points from point `start` on: a streaming query reads batch after batch.
    public func seriesPoints<P: SeriesPoint>(owner: OwnerID, series: UUID, from start: Int, limit: Int,
                                             as: P.Type = P.self) async throws -> [P] {
        try await read { context throws(HealthError) in
            try SeriesChunks(db: context.db).read(owner: owner.rawValue, series: series, from: start, limit: limit)
        }
    }

    /// Bytes the packed points of every stored series take.
    public func seriesPackedBytes() async throws -> Int64 {
        try await read { context throws(HealthError) in try SeriesChunks(db: context.db).packedBytes() }
    }

    public func insertSeriesData(owner: OwnerID, _ insert: SeriesInsert, revision: SourceRevision, defaultDevice: Device?,
                                 byOwner: Bool) async throws -> Int {
        try await write { context throws(HealthError) in
            try context.insertSeriesData(owner: owner.rawValue, insert, revision: revision, defaultDevice: defaultDevice, byOwner: byOwner)
        }
    }

    public func finishSeries(owner: OwnerID, _ finish: SeriesFinish, by finisher: Deleter) async throws -> [Sample] {
        try await write { context throws(HealthError) in try context.finishSeries(owner: owner.rawValue, finish, by: finisher) }
    }

    public func discardSeries(owner: OwnerID, builder: UUID, bundleID: String, byOwner: Bool) async throws {
        let refusal = try await write { context throws(HealthError) in
            try context.discardSeries(owner: owner.rawValue, builder: builder, bundleID: bundleID, byOwner: byOwner)
        }
        if let refusal { throw refusal }
    }

    public func seriesBuilderType(owner: OwnerID, builder: UUID, bundleID: String) async throws -> String? {
        try await read { context throws(HealthError) in
            guard let source = try context.sourceID(bundleID, owner: owner.rawValue) else { return nil }
            let row = try context.db.prepare("SELECT type FROM series_builders WHERE owner = ? AND builder = ? AND source = ?")
            row.bind(all: [.int(owner.rawValue), .uuid(builder), .int(source)])
            defer { row.reset() }
            return try row.step() ? try context.registry.type(row.int(0), owner: owner.rawValue, context.db) : nil
        }
    }

    public func seriesData(owner: OwnerID, sample: Sample, from start: Int, limit: Int) async throws -> SeriesPoints {
        switch sample.body {
        case .quantity: return .quantities(try await quantitySeriesPoints(owner: owner, of: sample, from: start, limit: limit))
        case .electrocardiogram: return .voltages(try await seriesPoints(owner: owner, series: sample.uuid, from: start, limit: limit))
        default: break
        }
        if sample.type == TypeCatalog.heartbeatSeriesType.identifier {
            return .beats(try await seriesPoints(owner: owner, series: sample.uuid, from: start, limit: limit))
        }
        return .locations(try await seriesPoints(owner: owner, series: sample.uuid, from: start, limit: limit))
    }
}

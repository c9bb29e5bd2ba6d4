import Foundation
import HealthModel

/// Series points: a builder's batches are checked against the points already stored and appended in
/// one write job, so concurrent batches of one series cannot interleave out of order.
extension EngineStore {
    /// Appends route locations after the route's last one; returns how many the route holds now.
    public func appendRouteLocations(owner: OwnerID, route: UUID, _ locations: [RouteLocation]) async throws -> Int {
        try await write { context throws(HealthError) in
            let chunks = SeriesChunks(db: context.db)
            let tail = try chunks.tail(owner: owner.rawValue, series: route)
            try SeriesRules.checkLocations(locations, after: tail.lastKey)
            try chunks.append(owner: owner.rawValue, series: route, locations)
            return tail.count + locations.count
        }
    }

    /// Appends beats after the series' last one; returns how many the series holds now.
    public func appendHeartbeats(owner: OwnerID, series: UUID, _ beats: [Heartbeat]) async throws -> Int {
        try await write { context throws(HealthError) in
            let chunks = SeriesChunks(db: context.db)
            let tail = try chunks.tail(owner: owner.rawValue, series: series)
            try SeriesRules.checkBeats(beats, count: tail.count, after: tail.lastKey)
            try chunks.append(owner: owner.rawValue, series: series, beats)
            return tail.count + beats.count
        }
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
}

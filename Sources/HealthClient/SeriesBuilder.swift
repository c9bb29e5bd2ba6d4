import Foundation
import HealthModel
import HealthWire

/// A series builder on the server (HKWorkoutRouteBuilder for `RouteLocation`, HKHeartbeatSeriesBuilder
/// for `Heartbeat`, HKQuantitySeriesSampleBuilder for `QuantitySeriesPoint`): insert points in time
/// order batch by batch, then finish it into one sample whose UUID is `id`, or discard it. Every call repeats the type, start, device and source revision, so a builder survives
/// a reconnect and its calls may be retried.
public struct SeriesBuilder<Point: SeriesBuildable>: Sendable {
    /// The builder's id and the finished sample's UUID.
    public let id: UUID
    /// The series type: the route or heartbeat series type, or a quantity type.
    public let type: String
    /// A heartbeat or quantity series' start (beats are offsets from it); unused for routes.
    public let start: Microseconds
    public let device: Device?
    /// Owner only (an import): the source the series is built and saved as; nil = this connection's.
    public let sourceRevision: SourceRevision?
    private let client: any HealthCalling

    init(client: any HealthCalling, id: UUID, type: HealthType, start: Microseconds, device: Device?, sourceRevision: SourceRevision? = nil) {
        self.client = client
        self.id = id
        self.type = type.identifier
        self.start = start
        self.device = device
        self.sourceRevision = sourceRevision
    }

    /// Adds points after those inserted so far; returns how many the builder holds.
    @discardableResult
    public func insert(_ points: [Point]) async throws -> Int {
        let insert = SeriesInsert(builderID: id, type: type, start: start, device: device, points: Point.batch(points),
                                  sourceRevision: sourceRevision)
        return Int(try await client.single(.insertSeriesData(insert), "InsertSeriesData") {
            if case .insertSeriesData(let count) = $0 { count } else { nil }
        })
    }

    /// Stores the sample (a route with the stored `workout` it belongs to; a heartbeat or quantity
    /// series ending at `end`, or at its last point). Returns nil when a stored sample with the same sync identifier and
    /// a version at least as high was kept instead. A second finish fails.
    public func finish(workout: UUID? = nil, metadata: Metadata = [:], end: Microseconds? = nil) async throws -> Sample? {
        try await client.single(.finishSeries(SeriesFinish(builderID: id, workoutUUID: workout, metadata: metadata, end: end)),
                                "FinishSeries") { if case .finishSeries(let samples) = $0 { samples } else { nil } }.first
    }

    /// Inserts every point in batches of `batchSize` and finishes (see `finish`). An earlier attempt
    /// left open (a lost answer, a killed import) is discarded first, and so is this one when it fails.
    public func build(_ points: [Point], workout: UUID? = nil, metadata: Metadata = [:], end: Microseconds? = nil,
                      batchSize: Int = 1_000) async throws -> Sample? {
        try? await discard()
        do {
            for start in stride(from: 0, to: points.count, by: max(1, batchSize)) {
                try await insert(Array(points[start..<min(points.count, start + max(1, batchSize))]))
            }
            return try await finish(workout: workout, metadata: metadata, end: end)
        } catch {
            try? await discard()
            throw error
        }
    }

    /// Drops the builder and its points.
    public func discard() async throws {
        try await client.single(.discardSeries(builderID: id), "DiscardSeries") { if case .discardSeries = $0 { () } else { nil } }
    }
}

extension HealthCalling {
    /// A new route builder (HKWorkoutRouteBuilder); finish it with the workout once that is saved. The
    /// owner's import builds it `as` the source it keeps.
    public func routeBuilder(id: UUID = UUID(), device: Device? = nil, as revision: SourceRevision? = nil) -> SeriesBuilder<RouteLocation> {
        SeriesBuilder(client: self, id: id, type: TypeCatalog.workoutRouteType, start: 0, device: device, sourceRevision: revision)
    }

    /// A new heartbeat series builder (HKHeartbeatSeriesBuilder) for a series starting at `start`; the
    /// owner's import builds it `as` the source it keeps.
    public func heartbeatSeriesBuilder(start: Microseconds, id: UUID = UUID(), device: Device? = nil,
                                       as revision: SourceRevision? = nil) -> SeriesBuilder<Heartbeat> {
        SeriesBuilder(client: self, id: id, type: TypeCatalog.heartbeatSeriesType, start: start, device: device, sourceRevision: revision)
    }

    /// A new quantity series builder (HKQuantitySeriesSampleBuilder) of `type` starting at `start`; the
    /// owner's import builds it `as` the source it keeps.
    public func quantitySeriesBuilder(type: HealthType, start: Microseconds, id: UUID = UUID(), device: Device? = nil,
                                      as revision: SourceRevision? = nil) -> SeriesBuilder<QuantitySeriesPoint> {
        SeriesBuilder(client: self, id: id, type: type, start: start, device: device, sourceRevision: revision)
    }

    /// The points of a series sample page by page as the server streams them (HKWorkoutRouteQuery,
    /// HKHeartbeatSeriesQuery, HKElectrocardiogramQuery, HKQuantitySeriesSampleQuery); `batchSize` 0 =
    /// the server's default. A sample the caller cannot read yields no points. Stopping iteration
    /// cancels the query.
    public func seriesData<P: SeriesBuildable>(of sample: UUID, as: P.Type = P.self,
                                               batchSize: Int = 0) -> AsyncThrowingStream<[P], any Error> {
        mapped(.querySeriesData(SeriesDataQuery(uuid: sample, batchSize: batchSize)), "QuerySeriesData") {
            if case .seriesData(let page) = $0 { P.points(of: page.points) ?? (page.points.count == 0 ? [] : nil) } else { nil }
        }
    }

    /// The points of every readable sample of a quantity type matching `predicate`, in start order,
    /// page by page with the sample each page belongs to (HKQuantitySeriesSampleQuery without a sample).
    public func quantitySeriesData(type: String, predicate: QueryPredicate? = nil,
                                   batchSize: Int = 0) -> AsyncThrowingStream<SeriesDataPage, any Error> {
        mapped(.querySeriesData(SeriesDataQuery(samples: .matching(type: type, predicate: predicate), batchSize: batchSize)),
               "QuerySeriesData") { if case .seriesData(let page) = $0 { page } else { nil } }
    }

    /// Every point of a series sample, collected (small series; stream large ones with `seriesData`).
    public func seriesPoints<P: SeriesBuildable>(of sample: UUID, as: P.Type = P.self) async throws -> [P] {
        var all: [P] = []
        for try await page in seriesData(of: sample, as: P.self) { all += page }
        return all
    }
}

import Foundation

/// The points of one builder batch or one page of a series query, of one point kind.
public enum SeriesPoints: Sendable, Hashable {
    case locations([RouteLocation])
    case beats([Heartbeat])

    /// How many points.
    public var count: Int {
        switch self {
        case .locations(let locations): locations.count
        case .beats(let beats): beats.count
        }
    }

    /// The series type these points belong to.
    public var type: HealthType {
        switch self {
        case .locations: TypeCatalog.workoutRouteType
        case .beats: TypeCatalog.heartbeatSeriesType
        }
    }

    /// No points, of the kind `type` holds (a route's when the type holds no points of ours).
    public static func empty(for type: String) -> SeriesPoints {
        type == TypeCatalog.heartbeatSeriesType.identifier ? .beats([]) : .locations([])
    }
}

/// InsertSeriesData: opens a builder on its first call and adds points (HKWorkoutRouteBuilder.insertRouteData,
/// HKHeartbeatSeriesBuilder.addHeartbeatWithTimeInterval).
public struct SeriesInsert: Sendable, Hashable {
    /// Chosen by the client; the finished sample's UUID.
    public let builderID: UUID
    /// Required on the first call; nil afterwards or the builder's type again.
    public let type: String?
    /// A heartbeat series' start (beats are offsets from it); ignored for routes. First call only.
    public let start: Microseconds
    /// The recording device; first call only (nil = the connection's default device).
    public let device: Device?
    public let points: SeriesPoints

    public init(builderID: UUID, type: String?, start: Microseconds = 0, device: Device? = nil, points: SeriesPoints) {
        self.builderID = builderID
        self.type = type
        self.start = start
        self.device = device
        self.points = points
    }
}

/// FinishSeries: the builder's points become one stored sample (HKWorkoutRouteBuilder.finishRoute,
/// HKHeartbeatSeriesBuilder.finishSeries).
public struct SeriesFinish: Sendable, Hashable {
    public let builderID: UUID
    /// Routes: the stored workout the route belongs to.
    public let workoutUUID: UUID?
    public let metadata: Metadata
    /// Heartbeat series: the sample's end; nil = the last beat's time.
    public let end: Microseconds?

    public init(builderID: UUID, workoutUUID: UUID? = nil, metadata: Metadata = [:], end: Microseconds? = nil) {
        self.builderID = builderID
        self.workoutUUID = workoutUUID
        self.metadata = metadata
        self.end = end
    }
}

/// QuerySeriesData: the points of one series sample, streamed in batches (HKWorkoutRouteQuery, HKHeartbeatSeriesQuery).
public struct SeriesDataQuery: Sendable, Hashable {
    public let uuid: UUID
    /// Points per page; 0 = the server's default.
    public let batchSize: Int

    public init(uuid: UUID, batchSize: Int = 0) {
        self.uuid = uuid
        self.batchSize = batchSize
    }
}

/// One page of a series query: points of one sample; `sampleDone` on its last page.
public struct SeriesDataPage: Sendable, Hashable {
    public let sampleUUID: UUID
    public let points: SeriesPoints
    public let sampleDone: Bool

    public init(sampleUUID: UUID, points: SeriesPoints, sampleDone: Bool) {
        self.sampleUUID = sampleUUID
        self.points = points
        self.sampleDone = sampleDone
    }
}

/// A point kind a series builder inserts and a series query returns (locations, beats).
public protocol SeriesBuildable: SeriesPoint {
    /// The series type built from these points.
    static var seriesType: HealthType { get }
    /// The points as one batch.
    static func batch(_ points: [Self]) -> SeriesPoints
    /// The points of a batch of this kind; nil for another kind.
    static func points(of batch: SeriesPoints) -> [Self]?
}

extension RouteLocation: SeriesBuildable {
    public static var seriesType: HealthType { TypeCatalog.workoutRouteType }
    public static func batch(_ points: [RouteLocation]) -> SeriesPoints { .locations(points) }
    public static func points(of batch: SeriesPoints) -> [RouteLocation]? {
        if case .locations(let locations) = batch { return locations }
        return nil
    }
}

extension Heartbeat: SeriesBuildable {
    public static var seriesType: HealthType { TypeCatalog.heartbeatSeriesType }
    public static func batch(_ points: [Heartbeat]) -> SeriesPoints { .beats(points) }
    public static func points(of batch: SeriesPoints) -> [Heartbeat]? {
        if case .beats(let beats) = batch { return beats }
        return nil
    }
}

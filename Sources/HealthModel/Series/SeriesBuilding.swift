import Foundation

/// The points of one builder batch or one page of a series query, of one point kind.
public enum SeriesPoints: Sendable, Hashable {
    case locations([RouteLocation])
    case beats([Heartbeat])
    case quantities([QuantitySeriesPoint])
    /// An electrocardiogram's; read only (recordings are saved whole).
    case voltages([VoltageMeasurement])

    /// How many points.
    public var count: Int {
        switch self {
        case .locations(let locations): locations.count
        case .beats(let beats): beats.count
        case .quantities(let quantities): quantities.count
        case .voltages(let voltages): voltages.count
        }
    }

    /// The message field holding these points.
    public var field: String {
        switch self {
        case .locations: "locations"
        case .beats: "beats"
        case .quantities: "quantities"
        case .voltages: "voltages"
        }
    }

    /// Whether a series of `type` is made of points of this kind.
    public func belong(to type: HealthType) -> Bool {
        switch self {
        case .locations: type == TypeCatalog.workoutRouteType
        case .beats: type == TypeCatalog.heartbeatSeriesType
        case .quantities: type.kind == .quantity
        case .voltages: type == TypeCatalog.electrocardiogramType
        }
    }

    /// No points, of the kind `type` holds (a route's when the type holds no points).
    public static func empty(for type: String) -> SeriesPoints {
        switch TypeCatalog.type(type) {
        case TypeCatalog.heartbeatSeriesType: .beats([])
        case TypeCatalog.electrocardiogramType: .voltages([])
        case let type? where type.kind == .quantity: .quantities([])
        default: .locations([])
        }
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
    /// Owner only (an import): the source the series is built and saved as; first call only (nil = the connection's).
    public let sourceRevision: SourceRevision?

    public init(builderID: UUID, type: String?, start: Microseconds = 0, device: Device? = nil, points: SeriesPoints,
                sourceRevision: SourceRevision? = nil) {
        self.builderID = builderID
        self.type = type
        self.start = start
        self.device = device
        self.points = points
        self.sourceRevision = sourceRevision
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

/// QuerySeriesData: the points of one series sample, streamed in batches (HKWorkoutRouteQuery,
/// HKHeartbeatSeriesQuery, HKElectrocardiogramQuery, HKQuantitySeriesSampleQuery), or of every
/// readable sample of a quantity type matching a predicate (HKQuantitySeriesSampleQuery without a sample).
public struct SeriesDataQuery: Sendable, Hashable {
    /// Which samples' points.
    public enum Samples: Sendable, Hashable {
        case uuid(UUID)
        case matching(type: String, predicate: QueryPredicate?)
    }

    public let samples: Samples
    /// Points per page; 0 = the server's default.
    public let batchSize: Int

    /// Every type whose samples have points to stream: routes, heartbeat series, electrocardiograms
    /// and quantity types (a plain quantity sample is its own one point).
    public static let pointTypes: [String] = ([TypeCatalog.workoutRouteType, TypeCatalog.heartbeatSeriesType,
                                               TypeCatalog.electrocardiogramType]
                                              + TypeCatalog.sampleTypes.filter { $0.kind == .quantity }).map(\.identifier)

    public init(uuid: UUID, batchSize: Int = 0) {
        self.init(samples: .uuid(uuid), batchSize: batchSize)
    }

    public init(samples: Samples, batchSize: Int = 0) {
        self.samples = samples
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

/// A point kind a series builder inserts or a series query returns (locations, beats, quantities, voltages).
public protocol SeriesBuildable: SeriesPoint {
    /// The points as one batch.
    static func batch(_ points: [Self]) -> SeriesPoints
    /// The points of a batch of this kind; nil for another kind.
    static func points(of batch: SeriesPoints) -> [Self]?
}

extension RouteLocation: SeriesBuildable {
    public static func batch(_ points: [RouteLocation]) -> SeriesPoints { .locations(points) }
    public static func points(of batch: SeriesPoints) -> [RouteLocation]? {
        if case .locations(let locations) = batch { return locations }
        return nil
    }
}

extension Heartbeat: SeriesBuildable {
    public static func batch(_ points: [Heartbeat]) -> SeriesPoints { .beats(points) }
    public static func points(of batch: SeriesPoints) -> [Heartbeat]? {
        if case .beats(let beats) = batch { return beats }
        return nil
    }
}

extension QuantitySeriesPoint: SeriesBuildable {
    public static func batch(_ points: [QuantitySeriesPoint]) -> SeriesPoints { .quantities(points) }
    public static func points(of batch: SeriesPoints) -> [QuantitySeriesPoint]? {
        if case .quantities(let quantities) = batch { return quantities }
        return nil
    }
}

extension VoltageMeasurement: SeriesBuildable {
    public static func batch(_ points: [VoltageMeasurement]) -> SeriesPoints { .voltages(points) }
    public static func points(of batch: SeriesPoints) -> [VoltageMeasurement]? {
        if case .voltages(let voltages) = batch { return voltages }
        return nil
    }
}

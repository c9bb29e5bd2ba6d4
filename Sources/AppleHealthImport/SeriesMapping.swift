import Foundation
import HealthModel

/// A workout route or heartbeat series of an export, built with a series builder once its parent
/// (the workout, the heart rate variability record) is saved: a route is finished with its workout.
public struct ExportSeries: Sendable {
    /// The builder id and the finished sample's UUID, derived from the parent's.
    public let id: UUID
    /// The route or heartbeat series type.
    public let type: String
    /// The source the export names: the series is built and saved as it.
    public let sourceRevision: SourceRevision
    /// The workout or record the series belongs to.
    public let parent: UUID
    /// A heartbeat series' start (its record's start; beats are offsets from it); 0 for routes.
    public let start: Microseconds
    /// A heartbeat series' end (its record's end); nil for routes, which end at their last location.
    public let end: Microseconds?
    public let device: Device?
    public let points: SeriesPoints
    /// A route's workout.
    public let workout: UUID?
    public let metadata: Metadata

    /// The source's name, for the summary.
    public var sourceName: String { sourceRevision.source.name }

    /// The series as the sample it becomes (without its points), for telling its outcome.
    public var sample: Sample {
        Sample(uuid: id, type: type, start: start, end: end ?? start, metadata: metadata, device: device, sourceRevision: sourceRevision,
               body: .series(count: Int64(points.count)))
    }
}

/// Workout routes and heartbeat series read from their elements (and a route's GPX files).
enum SeriesMapping {
    /// The routes of a `<Workout>`: inline `<Location>`s (before iOS 13) and the GPX files
    /// `<FileReference path=…>` names in the export, each route's id derived from the workout's UUID
    /// and the route's place. A route that cannot be read is its own failure, not its workout's.
    static func routes(_ workout: ExportElement, sample: Sample,
                       archive: ExportArchive) -> [(route: ExportElement, result: Result<(ExportSeries, dropped: [String]), MappingFailure>)] {
        workout.children("WorkoutRoute").enumerated().map { index, route in
            (route, Result { () throws(MappingFailure) in try self.route(route, index: index, workout: sample, archive: archive) })
        }
    }

    private static func route(_ route: ExportElement, index: Int, workout: Sample,
                              archive: ExportArchive) throws(MappingFailure) -> (ExportSeries, dropped: [String]) {
        var points: [RouteLocation] = []
        for location in route.children("Location") {
            guard let time = ExportDates.instant(location["date"] ?? ""), let latitude = number(location["latitude"]),
                  let longitude = number(location["longitude"]) else {
                throw .malformed("Location at line \(location.line) needs a date, latitude and longitude")
            }
            points.append(RouteLocation(time: time, latitude: latitude, longitude: longitude,
                                        altitude: number(location["altitude"]) ?? 0,
                                        horizontalAccuracy: number(location["horizontalAccuracy"]) ?? 0,
                                        verticalAccuracy: number(location["verticalAccuracy"]) ?? -1,
                                        course: number(location["course"]) ?? -1,
                                        courseAccuracy: number(location["courseAccuracy"]) ?? -1,
                                        speed: number(location["speed"]) ?? -1,
                                        speedAccuracy: number(location["speedAccuracy"]) ?? -1))
        }
        for reference in route.children("FileReference") {
            let path = try SampleHeader.attribute(reference, .path)
            let source: ByteSource?
            do { source = try archive.openRelated(path) } catch { throw .refused(error.description) }
            guard let source else { throw .refused("route file \(path) is not in the export") }
            points += try GPXTrack.points(source, name: path)
        }
        points = strictlyOrdered(points)
        let entries = route.children("MetadataEntry").map { (key: $0[.key] ?? "", value: $0[.value] ?? "") }
        let mapped = MetadataMapping.map(entries)
        let series = ExportSeries(
            id: SampleIdentity.uuid(within: workout.uuid, index: index, part: TypeCatalog.workoutRouteType.identifier),
            type: TypeCatalog.workoutRouteType.identifier,
            sourceRevision: Self.revision(of: route, workout: workout),
            parent: workout.uuid, start: 0, end: nil,
            device: (route.withBytes(.device, DeviceDescription.parse) ?? nil) ?? DeviceDescription.fromMetadata(entries) ?? workout.device,
            points: .locations(points), workout: workout.uuid, metadata: mapped.metadata)
        return (series, mapped.dropped)
    }

    /// The source a route names (with its version), else its workout's.
    private static func revision(of route: ExportElement, workout: Sample) -> SourceRevision {
        guard let name = route[.sourceName] ?? route[.source] else {
            return workout.sourceRevision ?? SourceRevision(source: Source(name: "", bundleID: ""), version: nil)
        }
        return SourceRevision(source: Source(name: name, bundleID: ""), version: route[.sourceVersion])
    }

    /// The locations in time order, each after the one before: exports write times to the second
    /// (GPS fixes come faster), and a builder takes only increasing times, so a location written with
    /// its predecessor's time is placed 1 µs after it; none is dropped.
    static func strictlyOrdered(_ points: [RouteLocation]) -> [RouteLocation] {
        var previous = Int64.min
        return points.enumerated().sorted { ($0.element.time, $0.offset) < ($1.element.time, $1.offset) }.map { _, point in
            guard point.time <= previous else {
                previous = point.time
                return point
            }
            previous += 1
            return RouteLocation(time: previous, latitude: point.latitude, longitude: point.longitude, altitude: point.altitude,
                                 horizontalAccuracy: point.horizontalAccuracy, verticalAccuracy: point.verticalAccuracy,
                                 course: point.course, courseAccuracy: point.courseAccuracy, speed: point.speed,
                                 speedAccuracy: point.speedAccuracy)
        }
    }

    /// The heartbeat series of a record's `<HeartRateVariabilityMetadataList>`s, nil when it has
    /// none: each beat's time of day read in the record's own offset ("08:33:44,67" in French
    /// exports) as time since the record's start, which is the series' start.
    static func beats(_ element: ExportElement, record: Sample, header: SampleHeader) throws(MappingFailure) -> ExportSeries? {
        let lists = element.children("HeartRateVariabilityMetadataList")
        guard !lists.isEmpty else { return nil }
        var beats: [Heartbeat] = []
        for beat in lists.flatMap({ $0.children("InstantaneousBeatsPerMinute") }) {
            let text = beat["time"] ?? ""
            guard number(beat["bpm"]) != nil,
                  let time = ExportDates.timeOfDay(text, onOrAfter: header.start, offset: header.startOffset) else {
                throw .malformed("InstantaneousBeatsPerMinute needs bpm and a time of day, not '\(text)'")
            }
            beats.append(Heartbeat(offset: time - header.start))
        }
        beats.sort { $0.offset < $1.offset }
        return ExportSeries(
            id: SampleIdentity.uuid(within: record.uuid, index: 0, part: TypeCatalog.heartbeatSeriesType.identifier),
            type: TypeCatalog.heartbeatSeriesType.identifier, sourceRevision: header.revision, parent: record.uuid,
            start: header.start, end: header.end, device: header.device,
            points: .beats(beats), workout: nil, metadata: [:])
    }

    private static func number(_ text: String?) -> Double? {
        text.flatMap(Double.init).flatMap { $0.isFinite ? $0 : nil }
    }
}

import AppleHealthImport
import Foundation
import HealthClient
import HealthModel

/// Samples with points in export lines: a series sample's line (kind "series") also carries its
/// points ("locations" or "beats", as the query returns them, so saving them again is lossless) and
/// a route its workout ("workout_uuid"); a quantity sample a builder made (count > 1 with stored
/// points) carries its "quantities"; an electrocardiogram carries its "voltages" in its body. An
/// import builds series and quantity series again with a series builder; an ECG is saved whole.
enum SeriesLines {
    /// True when the sample's line carries points streamed with QuerySeriesData.
    static func hasPoints(_ sample: Sample) -> Bool {
        switch sample.body {
        case .series: true
        case .quantity(_, let count): count > 1
        case .electrocardiogram(let ecg): ecg.numberOfVoltageMeasurements > 0
        default: false
        }
    }

    /// True when a row of an export page is written as it is: a category, or a quantity of one point
    /// (a quantity of more carries its points, so it is read whole).
    static func isPlain(_ row: HealthModel.SampleTable.Row) -> Bool {
        switch row.body {
        case .quantity(_, _, let count): count <= 1
        case .category: true
        case .whole: false
        }
    }

    /// True when an import line is built again with a series builder rather than saved.
    static func isBuilt(_ sample: Sample, _ json: JSON) -> Bool {
        switch sample.body {
        case .series: true
        case .quantity: if case .object(let fields) = json { fields["quantities"] != nil } else { false }
        default: false
        }
    }

    /// The export line of a sample with points, with every point.
    static func line(_ sample: Sample, workout: UUID?, connection: any HealthCalling, zone: TimeZone?) async throws -> JSON {
        if case .electrocardiogram(let ecg) = sample.body {
            let voltages = try await connection.seriesPoints(of: sample.uuid, as: VoltageMeasurement.self)
            let whole = Electrocardiogram(classification: ecg.classification, symptomsStatus: ecg.symptomsStatus,
                                          averageHeartRate: ecg.averageHeartRate, samplingFrequency: ecg.samplingFrequency,
                                          voltages: voltages)
            return SampleJSON.sample(Sample(uuid: sample.uuid, type: sample.type, start: sample.start, end: sample.end,
                                            metadata: sample.metadata, device: sample.device, sourceRevision: sample.sourceRevision,
                                            creationTime: sample.creationTime, body: .electrocardiogram(whole)), zone: zone)
        }
        guard case .object(var fields) = SampleJSON.sample(sample, zone: zone) else { return SampleJSON.sample(sample, zone: zone) }
        if case .quantity = sample.body {
            // A sample saved with a count but no points streams as its own single point: nothing to rebuild.
            let points = try await connection.seriesPoints(of: sample.uuid, as: QuantitySeriesPoint.self)
            if points.count > 1 { fields["quantities"] = .array(points.map(quantity)) }
        } else if sample.type == TypeCatalog.heartbeatSeriesType.identifier {
            let beats = try await connection.seriesPoints(of: sample.uuid, as: Heartbeat.self)
            fields["beats"] = .array(beats.map { .object(["offset_micros": .int($0.offset), "preceded_by_gap": .bool($0.precededByGap)]) })
        } else {
            let locations = try await connection.seriesPoints(of: sample.uuid, as: RouteLocation.self)
            fields["locations"] = .array(locations.map(location))
            fields["workout_uuid"] = workout.map { .string($0.uuidString) } ?? .null
        }
        return .object(fields)
    }

    /// Every readable route with the workout it belongs to, for the routes' and the workouts' lines.
    static func workoutsByRoute(_ connection: any HealthCalling) async throws -> [UUID: UUID] {
        let routes = Set(try await connection.samples(SampleQuery(types: [TypeCatalog.workoutRouteType.identifier])).map(\.uuid))
        var workouts: [UUID: UUID] = [:]
        for workout in try await connection.samples(SampleQuery(types: [TypeCatalog.workoutType.identifier])) {
            for associated in workout.workout?.associatedSampleUUIDs ?? [] where routes.contains(associated) {
                workouts[associated] = workout.uuid
            }
        }
        return workouts
    }

    /// A workout as its line has it: without its routes, which do not exist yet when an import saves
    /// the workout; each route's line names the workout, and finishing the route associates them again.
    static func withoutRoutes(_ sample: Sample, _ routes: [UUID: UUID]) -> Sample {
        sample.droppingAssociations { routes[$0] != nil }
    }

    /// Builds the sample of a series line again, as the importing connection's app or (`keepingSource`,
    /// the owner's --keep-sources) as the source revision the line names; .alreadyPresent when its UUID
    /// is stored. A failed build is discarded and rethrown.
    static func importLine(_ sample: Sample, _ json: JSON, keepingSource: Bool, connection: any HealthCalling) async throws -> ImportOutcome {
        let revision = keepingSource ? sample.sourceRevision : nil
        let stored = try await connection.samples(SampleQuery(types: [sample.type], predicate: .uuids([sample.uuid])))
        if !stored.isEmpty { return .alreadyPresent }
        let f = try JSONFields(json, path: "")
        let finished: Sample?
        if sample.type == TypeCatalog.heartbeatSeriesType.identifier {
            var beats: [Heartbeat] = []
            for (i, item) in try f.array("beats").enumerated() {
                let b = try JSONFields(item, path: f.elementPath("beats", i))
                guard case .object(let raw) = item else { throw HealthError.invalid("beats[\(i)] must be an object", field: "beats") }
                beats.append(Heartbeat(offset: try b.int("offset_micros"), precededByGap: raw["preceded_by_gap"] == .bool(true)))
            }
            let builder = connection.heartbeatSeriesBuilder(start: sample.start, id: sample.uuid, device: sample.device, as: revision)
            finished = try await builder.build(beats, metadata: sample.metadata, end: sample.end)
        } else if case .quantity = sample.body {
            guard let type = TypeCatalog.type(sample.type) else { throw HealthError.invalid("Unknown type '\(sample.type)'", field: "type") }
            var points: [QuantitySeriesPoint] = []
            for (i, item) in try f.array("quantities").enumerated() {
                points.append(try quantity(JSONFields(item, path: f.elementPath("quantities", i))))
            }
            let builder = connection.quantitySeriesBuilder(type: type, start: sample.start, id: sample.uuid, device: sample.device,
                                                        as: revision)
            finished = try await builder.build(points, metadata: sample.metadata, end: sample.end)
        } else {
            var locations: [RouteLocation] = []
            for (i, item) in try f.array("locations").enumerated() {
                locations.append(try location(JSONFields(item, path: f.elementPath("locations", i))))
            }
            let workout = f.isNull("workout_uuid") ? nil : try f.uuid("workout_uuid")
            let builder = connection.routeBuilder(id: sample.uuid, device: sample.device, as: revision)
            finished = try await builder.build(locations, workout: workout, metadata: sample.metadata)
        }
        return finished == nil ? .keptExisting : .stored
    }

    private static func location(_ l: RouteLocation) -> JSON {
        .object(["time_micros": .int(l.time), "latitude": .double(l.latitude), "longitude": .double(l.longitude),
                 "altitude": .double(l.altitude), "horizontal_accuracy": .double(l.horizontalAccuracy),
                 "vertical_accuracy": .double(l.verticalAccuracy), "course": .double(l.course),
                 "course_accuracy": .double(l.courseAccuracy), "speed": .double(l.speed), "speed_accuracy": .double(l.speedAccuracy)])
    }

    private static func quantity(_ p: QuantitySeriesPoint) -> JSON {
        .object(["value": .double(p.quantity.value), "unit": .string(p.quantity.unit), "start_micros": .int(p.start),
                 "end_micros": .int(p.end)])
    }

    private static func quantity(_ f: JSONFields) throws(HealthError) -> QuantitySeriesPoint {
        QuantitySeriesPoint(Quantity(try f.double("value"), try f.string("unit")), start: try f.int("start_micros"),
                            end: try f.int("end_micros"))
    }

    private static func location(_ f: JSONFields) throws(HealthError) -> RouteLocation {
        RouteLocation(time: try f.int("time_micros"), latitude: try f.double("latitude"), longitude: try f.double("longitude"),
                      altitude: try f.double("altitude"), horizontalAccuracy: try f.double("horizontal_accuracy"),
                      verticalAccuracy: try f.double("vertical_accuracy"), course: try f.double("course"),
                      courseAccuracy: try f.double("course_accuracy"), speed: try f.double("speed"),
                      speedAccuracy: try f.double("speed_accuracy"))
    }
}

/// The workout of each route an export writes, and route lines held back until their workout's line
/// is written: in anchor order a workout comes after its routes (finishing a route associates it
/// with the workout, which changes the workout), while an import finishes each route with its
/// workout, which must be stored by then.
struct RouteOrder {
    /// Every readable route's workout, read when the export meets its first workout or route.
    private(set) var workouts: [UUID: UUID]?
    /// Whether the export writes workouts at all: when it does not, no route has a line to wait for,
    /// and holding every route to the end would keep them all in memory and out of anchor order.
    private let holdsRoutes: Bool
    private var writtenWorkouts: Set<UUID> = []
    private var waiting: [(workout: UUID, route: Sample)] = []

    /// For an export of `types`.
    init(exporting types: [String]) {
        holdsRoutes = types.contains(TypeCatalog.workoutType.identifier)
    }

    /// The samples to write now for `sample`, in order: none for a route whose workout is still to
    /// come, a workout followed by the routes that waited for it, or else the sample itself.
    mutating func due(_ sample: Sample, connection: any HealthCalling) async throws -> [Sample] {
        let (workoutType, routeType) = (TypeCatalog.workoutType.identifier, TypeCatalog.workoutRouteType.identifier)
        guard sample.type == workoutType || sample.type == routeType else { return [sample] }
        if workouts == nil { workouts = try await SeriesLines.workoutsByRoute(connection) }
        guard sample.type == workoutType else {
            guard holdsRoutes, let workout = workouts?[sample.uuid], !writtenWorkouts.contains(workout) else { return [sample] }
            waiting.append((workout, sample))
            return []
        }
        writtenWorkouts.insert(sample.uuid)
        let routes = waiting.filter { $0.workout == sample.uuid }.map(\.route)
        waiting.removeAll { $0.workout == sample.uuid }
        return [sample] + routes
    }

    /// The routes still waiting once the read is done: their workouts are not in the export (another
    /// type, range or source than asked).
    mutating func rest() -> [Sample] {
        defer { waiting.removeAll() }
        return waiting.map(\.route)
    }
}

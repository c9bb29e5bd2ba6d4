import Foundation
import HealthModel
import HealthProto

/// The series builder calls and series pages in both directions: InsertSeriesData, FinishSeries,
/// DiscardSeries, QuerySeriesData and their answers, with route locations, heartbeats, quantity
/// points and (read only) electrocardiogram voltages.
extension WireDecode {
    static func seriesInsert(_ m: Healthstore__V1__InsertSeriesData) throws(HealthError) -> SeriesInsert {
        let type = try CRead.optionalString(m.type, "type").map(CRead.identifier)
        let given: [SeriesPoints] = [
            .locations(try CRead.list(m.locations, m.n_locations, "locations", routeLocation)),
            .beats(try CRead.list(m.beats, m.n_beats, "beats", heartbeat)),
            .quantities(try quantitySeriesPoints(m.quantities, m.n_quantities, "quantities")),
        ].filter { $0.count > 0 }
        if given.count > 1 {
            throw CRead.malformed("InsertSeriesData carries points of one kind; got \(given.map(\.field).joined(separator: " and "))",
                                  field: given[1].field)
        }
        return SeriesInsert(builderID: try CRead.uuid(m.builder_id, "builder_id"), type: type, start: m.start_time,
                            device: try optionalDevice(m.device), points: given.first ?? .empty(for: type ?? ""),
                            sourceRevision: try optionalSourceRevision(m.source_revision))
    }

    static func seriesFinish(_ m: Healthstore__V1__FinishSeries) throws(HealthError) -> SeriesFinish {
        SeriesFinish(builderID: try CRead.uuid(m.builder_id, "builder_id"),
                     workoutUUID: m.workout_uuid.len == 0 ? nil : try CRead.uuid(m.workout_uuid, "workout_uuid"),
                     metadata: try metadata(m.metadata, m.n_metadata), end: m.end_time == 0 ? nil : m.end_time)
    }

    static func seriesDataQuery(_ m: Healthstore__V1__QuerySeriesData) throws(HealthError) -> SeriesDataQuery {
        let type = try CRead.optionalString(m.type, "type").map(CRead.identifier)
        if m.uuid.len > 0 {
            if type != nil || m.predicate != nil {
                throw CRead.malformed("QuerySeriesData names one sample by uuid or samples by type and predicate, not both",
                                      field: type != nil ? "type" : "predicate")
            }
            return SeriesDataQuery(samples: .uuid(try CRead.uuid(m.uuid, "uuid")), batchSize: Int(m.batch_size))
        }
        guard let type else {
            throw CRead.malformed("QuerySeriesData names a sample's uuid, or a quantity type (with an optional predicate)", field: "uuid")
        }
        return SeriesDataQuery(samples: .matching(type: type, predicate: try optionalPredicate(m.predicate)), batchSize: Int(m.batch_size))
    }

    static func seriesDataPage(_ m: Healthstore__V1__SeriesDataPage) throws(HealthError) -> SeriesDataPage {
        let given: [SeriesPoints] = [
            .locations(try CRead.list(m.locations, m.n_locations, "locations", routeLocation)),
            .beats(try CRead.list(m.beats, m.n_beats, "beats", heartbeat)),
            .quantities(try quantitySeriesPoints(m.quantities, m.n_quantities, "quantities")),
            .voltages(try CRead.list(m.voltages, m.n_voltages, "voltages", voltageMeasurement)),
        ]
        return SeriesDataPage(sampleUUID: try CRead.uuid(m.sample_uuid, "sample_uuid"),
                              points: given.first { $0.count > 0 } ?? .locations([]), sampleDone: m.sample_done != 0)
    }

    static func routeLocation(_ l: Healthstore__V1__RouteLocation) -> RouteLocation {
        RouteLocation(time: l.time, latitude: l.latitude, longitude: l.longitude, altitude: l.altitude,
                      horizontalAccuracy: l.horizontal_accuracy, verticalAccuracy: l.vertical_accuracy, course: l.course,
                      courseAccuracy: l.course_accuracy, speed: l.speed, speedAccuracy: l.speed_accuracy)
    }

    static func heartbeat(_ b: Healthstore__V1__Heartbeat) -> Heartbeat {
        Heartbeat(offset: b.offset, precededByGap: b.preceded_by_gap != 0)
    }
}

extension WireArena {
    func seriesInsert(_ s: SeriesInsert) -> UnsafeMutablePointer<Healthstore__V1__InsertSeriesData> {
        let p = message(healthstore__v1__insert_series_data__init)
        p.pointee.builder_id = binary(s.builderID)
        p.pointee.type = cString(s.type ?? "")
        p.pointee.start_time = s.start
        p.pointee.device = s.device.map(device)
        p.pointee.source_revision = s.sourceRevision.map(sourceRevision)
        switch s.points {
        case .locations(let locations): (p.pointee.n_locations, p.pointee.locations) = list(locations, routeLocation)
        case .beats(let beats): (p.pointee.n_beats, p.pointee.beats) = list(beats, heartbeat)
        case .quantities(let points): (p.pointee.n_quantities, p.pointee.quantities) = list(points, quantitySeriesPoint)
        case .voltages: break  // never inserted: recordings are saved whole; the server refuses an empty insert's missing type
        }
        return p
    }

    func seriesFinish(_ f: SeriesFinish) -> UnsafeMutablePointer<Healthstore__V1__FinishSeries> {
        let p = message(healthstore__v1__finish_series__init)
        p.pointee.builder_id = binary(f.builderID)
        if let workout = f.workoutUUID { p.pointee.workout_uuid = binary(workout) }
        (p.pointee.n_metadata, p.pointee.metadata) = metadata(f.metadata)
        p.pointee.end_time = f.end ?? 0
        return p
    }

    func seriesDataQuery(_ q: SeriesDataQuery) -> UnsafeMutablePointer<Healthstore__V1__QuerySeriesData> {
        let p = message(healthstore__v1__query_series_data__init)
        switch q.samples {
        case .uuid(let uuid):
            p.pointee.uuid = binary(uuid)
        case .matching(let type, let predicate):
            p.pointee.type = cString(type)
            p.pointee.predicate = optionalPredicate(predicate)
        }
        p.pointee.batch_size = UInt32(clamping: q.batchSize)
        return p
    }

    func seriesDataPage(_ page: SeriesDataPage) -> UnsafeMutablePointer<Healthstore__V1__SeriesDataPage> {
        let p = message(healthstore__v1__series_data_page__init)
        p.pointee.sample_uuid = binary(page.sampleUUID)
        switch page.points {
        case .locations(let locations): (p.pointee.n_locations, p.pointee.locations) = list(locations, routeLocation)
        case .beats(let beats): (p.pointee.n_beats, p.pointee.beats) = list(beats, heartbeat)
        case .quantities(let points): (p.pointee.n_quantities, p.pointee.quantities) = list(points, quantitySeriesPoint)
        case .voltages(let voltages): (p.pointee.n_voltages, p.pointee.voltages) = list(voltages, voltageMeasurement)
        }
        p.pointee.sample_done = page.sampleDone ? 1 : 0
        return p
    }

    func routeLocation(_ l: RouteLocation) -> UnsafeMutablePointer<Healthstore__V1__RouteLocation> {
        let p = message(healthstore__v1__route_location__init)
        p.pointee.time = l.time
        p.pointee.latitude = l.latitude
        p.pointee.longitude = l.longitude
        p.pointee.altitude = l.altitude
        p.pointee.horizontal_accuracy = l.horizontalAccuracy
        p.pointee.vertical_accuracy = l.verticalAccuracy
        p.pointee.course = l.course
        p.pointee.course_accuracy = l.courseAccuracy
        p.pointee.speed = l.speed
        p.pointee.speed_accuracy = l.speedAccuracy
        return p
    }

    func heartbeat(_ b: Heartbeat) -> UnsafeMutablePointer<Healthstore__V1__Heartbeat> {
        let p = message(healthstore__v1__heartbeat__init)
        p.pointee.offset = b.offset
        p.pointee.preceded_by_gap = b.precededByGap ? 1 : 0
        return p
    }
}

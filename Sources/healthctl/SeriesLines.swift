import AppleHealthImport
import Foundation
import HealthClient
import HealthModel

/// Routes and heartbeat series in export lines: the sample's line (kind "series") also carries its
/// points ("locations" or "beats", as the query returns them, so saving them again is lossless) and
/// a route its workout ("workout_uuid"). An import builds each again with a series builder.
enum SeriesLines {
    /// The export line of a series sample, with every point.
    static func line(_ sample: Sample, workout: UUID?, connection: any HealthCalling, zone: TimeZone?) async throws -> JSON {
        guard case .object(var fields) = SampleJSON.sample(sample, zone: zone) else { return SampleJSON.sample(sample, zone: zone) }
        if sample.type == TypeCatalog.heartbeatSeriesType.identifier {
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

    /// Builds the sample of a series line again (as the importing connection's app); .alreadyPresent
    /// when its UUID is stored. A failed build is discarded and rethrown.
    static func importLine(_ sample: Sample, _ json: JSON, connection: any HealthCalling) async throws -> ImportOutcome {
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
            let builder = connection.heartbeatSeriesBuilder(start: sample.start, id: sample.uuid, device: sample.device)
            finished = try await builder.build(beats, metadata: sample.metadata, end: sample.end)
        } else {
            var locations: [RouteLocation] = []
            for (i, item) in try f.array("locations").enumerated() {
                locations.append(try location(JSONFields(item, path: f.elementPath("locations", i))))
            }
            let workout = f.isNull("workout_uuid") ? nil : try f.uuid("workout_uuid")
            let builder = connection.routeBuilder(id: sample.uuid, device: sample.device)
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

    private static func location(_ f: JSONFields) throws(HealthError) -> RouteLocation {
        RouteLocation(time: try f.int("time_micros"), latitude: try f.double("latitude"), longitude: try f.double("longitude"),
                      altitude: try f.double("altitude"), horizontalAccuracy: try f.double("horizontal_accuracy"),
                      verticalAccuracy: try f.double("vertical_accuracy"), course: try f.double("course"),
                      courseAccuracy: try f.double("course_accuracy"), speed: try f.double("speed"),
                      speedAccuracy: try f.double("speed_accuracy"))
    }
}

import Foundation
import AppleHealthImport
import HealthClient
import HealthModel
import HealthWire
import XCTest

/// `healthctl import-apple-health` builds an export's workout routes and beat series in a real
/// healthd: the points read back as the file has them, and a second import stores nothing.
final class AppleHealthSeriesImportTests: XCTestCase {
    private let route = TypeCatalog.workoutRouteType.identifier
    private let heartbeats = TypeCatalog.heartbeatSeriesType.identifier

    private func report(_ text: String) throws -> [String: [String: Any]] {
        let json = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        return try XCTUnwrap(json["types"] as? [String: [String: Any]], text)
    }

    /// The import's per-type table; it fails (status 1) when the store refused anything.
    private func importing(_ fixture: String, into server: ServerProcess, refusing: Bool = false) throws -> [String: [String: Any]] {
        let path = try AppleHealthFixtures.folder().appendingPathComponent(fixture).path
        let tokenFile = server.dataDirectory.appendingPathComponent("owner.token").path
        let run = try healthctl(["import-apple-health", path, "--format", "json"], server: server, tokenFile: tokenFile)
        XCTAssertEqual(run.status, refusing ? 1 : 0, run.errors + run.output)
        return try report(run.output)
    }

    func testInlineRouteAndFrenchBeatsAreStoredAndAgainNothing() async throws {
        let server = try ServerProcess()
        let firstRoute = try importing("dogsheep-healthkit-to-sqlite/export.xml", into: server)
        XCTAssertEqual(firstRoute[route]?["stored"] as? Int, 1)
        let firstBeats = try importing("jdecool-healthkit-parser/exporter.xml", into: server, refusing: true)
        XCTAssertEqual(firstBeats[heartbeats]?["stored"] as? Int, 1)

        let client = try await HealthConnection.connect(to: .tcp(host: "127.0.0.1", port: server.port), hello: Hello(token: server.ownerToken))
        defer { client.close() }
        let routes = try await client.samples(SampleQuery(types: [route]))
        XCTAssertEqual(routes.count, 1)
        let points = try await client.seriesPoints(of: try XCTUnwrap(routes.first).uuid, as: RouteLocation.self)
        // The store keeps altitude to the millimetre and speed to the centimetre per second.
        XCTAssertEqual(points.count, 2)
        XCTAssertEqual(points.first?.altitude ?? 0, 21.2694, accuracy: 0.001)
        XCTAssertEqual(points.last?.altitude ?? 0, 21.2677, accuracy: 0.001)
        XCTAssertEqual(points.first?.speed ?? 0, 2.48034, accuracy: 0.01)
        XCTAssertEqual(points.first?.latitude ?? 0, 37.7777, accuracy: 1e-6)
        XCTAssertEqual(points.map(\.time), [1_479_133_544_000_000, 1_479_133_544_000_001], "written in the same second, kept in order")
        let workouts = try await client.samples(SampleQuery(types: [TypeCatalog.workoutType.identifier]))
        XCTAssertEqual(workouts.first?.workout?.associatedSampleUUIDs, routes.map(\.uuid), "the route is finished with its workout")
        // The route keeps the source and version its <WorkoutRoute> names, marked imported like the samples.
        XCTAssertEqual(routes.first?.sourceRevision?.source.name, "Simon\u{2019}s iPhone")
        XCTAssertEqual(routes.first?.sourceRevision?.version, "10.1.1")
        let routeSources = try await client.sources(type: route)
        XCTAssertEqual(routeSources.map(\.name), ["Simon\u{2019}s iPhone"])
        XCTAssertNotNil(routeSources.first?.importedTime)

        let series = try await client.samples(SampleQuery(types: [heartbeats]))
        let hrv = try await client.samples(SampleQuery(types: ["HKQuantityTypeIdentifierHeartRateVariabilitySDNN"]))
        XCTAssertEqual(series.count, 1)
        XCTAssertEqual(series.first?.start, hrv.first?.start, "the series starts with its record")
        XCTAssertEqual(series.first?.sourceRevision, hrv.first?.sourceRevision, "the series is saved as its record's source")
        let beats = try await client.seriesPoints(of: try XCTUnwrap(series.first).uuid, as: Heartbeat.self)
        XCTAssertEqual(beats, [Heartbeat(offset: 5_670_000)], "08:33:44,67 is 5.67 s after 08:33:39")

        // The French export holds records the store refuses (energy samples longer than four days);
        // the two exports' <Me> differ, so each import writes its own characteristics again.
        for (fixture, refusing) in [("dogsheep-healthkit-to-sqlite/export.xml", false), ("jdecool-healthkit-parser/exporter.xml", true)] {
            let again = try importing(fixture, into: server, refusing: refusing)
            XCTAssertEqual(again.filter { $0.key != "Me" }.values.reduce(0) { $0 + ($1["stored"] as? Int ?? 0) }, 0, "\(fixture): \(again)")
        }
        let again = try importing("dogsheep-healthkit-to-sqlite/export.xml", into: server)
        XCTAssertEqual(again[route]?["already_present"] as? Int, 1)
        let routesAfter = try await client.samples(SampleQuery(types: [route, heartbeats]))
        XCTAssertEqual(routesAfter.count, 2)
    }

    func testARouteBuilderAKilledImportLeftOpenIsDiscardedAndBuiltAgain() async throws {
        let fixture = "dogsheep-healthkit-to-sqlite/export.xml"
        let export = try AppleHealthExport(archive: ExportArchive(path: try AppleHealthFixtures.folder().appendingPathComponent(fixture).path))
        var routeID: UUID?
        while let item = try export.next() {
            if case .series(let series, _) = item { routeID = series.id }
        }
        let server = try ServerProcess()
        let client = try await HealthConnection.connect(to: .tcp(host: "127.0.0.1", port: server.port), hello: Hello(token: server.ownerToken))
        defer { client.close() }
        // What an import killed between InsertSeriesData and FinishSeries leaves: an open builder with part of the points.
        try await client.routeBuilder(id: try XCTUnwrap(routeID)).insert([RouteLocation(time: 1_479_133_544_000_000, latitude: 1, longitude: 1)])

        let types = try importing(fixture, into: server)
        XCTAssertEqual(types[route]?["stored"] as? Int, 1)
        let points = try await client.seriesPoints(of: try XCTUnwrap(routeID), as: RouteLocation.self)
        XCTAssertEqual(points.map(\.latitude), [37.7777, 37.7777], "only the export's points")
    }

    func testARouteFileOutsideItsWorkoutIsRefusedWithTheReason() throws {
        let server = try ServerProcess()
        let path = try AppleHealthFixtures.folder().appendingPathComponent("dogsheep-healthkit-to-sqlite/zip_contents").path
        let tokenFile = server.dataDirectory.appendingPathComponent("owner.token").path
        // The fixture's GPX file is from 2019, its workout from 2016.
        let run = try healthctl(["import-apple-health", path, "--format", "json"], server: server, tokenFile: tokenFile)
        XCTAssertNotEqual(run.status, 0)
        let types = try report(run.output)
        XCTAssertEqual(types[TypeCatalog.workoutType.identifier]?["stored"] as? Int, 1)
        let skipped = try XCTUnwrap(types[route]?["skipped"] as? [String: Int], run.output)
        XCTAssertEqual(skipped.count, 1, run.output)
        XCTAssertTrue(skipped.keys.allSatisfy { $0.hasPrefix("refused: ") }, run.output)
    }
}

import Foundation
import HealthClient
import HealthModel
import HealthWire
import XCTest

/// Routes and heartbeat series end to end through a real healthd and the Swift client: built with
/// builders under share permission, finished once into samples of their workout, streamed back in
/// bounded pages, readable only with read permission for the series type (a denial looks like no
/// data), deleted with a tombstone.
final class SeriesServerTests: XCTestCase {
    private static let route = TypeCatalog.workoutRouteType.identifier
    private static let beats = TypeCatalog.heartbeatSeriesType.identifier
    private static let workout = TypeCatalog.workoutType.identifier
    private let runner = "com.example.runner", viewer = "com.example.viewer"

    private struct Setup {
        let server: ServerProcess
        let owner: RawClient
        let runner: HealthConnection
        let workout: Sample
    }

    /// An app that may share workouts, routes and heartbeat series and read routes, with a saved workout.
    private func started(share: [String] = [route, beats, workout]) async throws -> Setup {
        let server = try ServerProcess()
        let owner = try RawClient.session(server, token: server.ownerToken)
        let token = try owner.registerApp(runner)
        let runner = try await HealthConnection.connect(to: .tcp(host: "127.0.0.1", port: server.port), hello: Hello(token: token))
        try await runner.requestAuthorization(share: share, read: [Self.route, Self.beats])
        try owner.decide(self.runner, share, .share, grant: true)
        try owner.decide(self.runner, [Self.route, Self.beats], .read, grant: true)
        let now = Time.now()
        let workout = Sample(type: Self.workout, start: now - 3_600 * 1_000_000, end: now, body: .workout(Workout(activityType: 37)))
        _ = try await runner.save([workout])
        return Setup(server: server, owner: owner, runner: runner, workout: workout)
    }

    private static func locations(_ count: Int, from start: Microseconds) -> [RouteLocation] {
        (0..<count).map { (i: Int) -> RouteLocation in
            let step = Double(i)
            let location = RouteLocation(time: start + Int64(i) * 500_000, latitude: 47.37 + step * 0.00002,
                                         longitude: 8.54 - step * 0.00001, altitude: 410 + Double(i % 7), horizontalAccuracy: 4,
                                         verticalAccuracy: 3, course: 90, courseAccuracy: 5, speed: 3.2, speedAccuracy: 0.3)
            return location.onGrid
        }
    }

    private func expectError(_ code: HealthErrorCode, _ body: () async throws -> Void, file: StaticString = #filePath,
                             line: UInt = #line) async -> HealthError? {
        do {
            try await body()
            XCTFail("no error", file: file, line: line)
        } catch let error as HealthError {
            XCTAssertEqual(error.code, code, "\(error)", file: file, line: line)
            return error
        } catch {
            XCTFail("\(error)", file: file, line: line)
        }
        return nil
    }

    func testARouteIsBuiltInBatchesFinishedOnceAndStreamedInPages() async throws {
        let s = try await started()
        let all = Self.locations(5_000, from: s.workout.start + 1_000_000)
        let builder = s.runner.routeBuilder()
        for batch in stride(from: 0, to: all.count, by: 1_200) {
            try await builder.insert(Array(all[batch..<min(all.count, batch + 1_200)]))
        }
        let earlier = await expectError(.invalidArgument) { try await builder.insert([all[10]]) }
        XCTAssertEqual(earlier?.field, "locations[0].time")
        let finished = try await builder.finish(workout: s.workout.uuid, metadata: [MetadataKey.syncIdentifier: .string("r1"),
                                                                                    MetadataKey.syncVersion: .int(1)])
        let route = try XCTUnwrap(finished)
        XCTAssertEqual(route.uuid, builder.id)
        XCTAssertEqual(route.seriesCount, 5_000)
        XCTAssertEqual(route.sourceRevision?.source.bundleID, runner)
        let second = await expectError(.invalidArgument) { _ = try await builder.finish(workout: s.workout.uuid) }
        XCTAssertTrue(second?.message.contains("already been finished") ?? false, "\(String(describing: second))")

        var pages: [[RouteLocation]] = []
        for try await page in s.runner.seriesData(of: route.uuid, as: RouteLocation.self, batchSize: 700) { pages.append(page) }
        XCTAssertEqual(pages.map(\.count), Array(repeating: 700, count: 7) + [100])
        XCTAssertEqual(pages.flatMap { $0 }, all)
        let byWorkout = try await s.runner.samples(SampleQuery(types: [Self.route], predicate: .workout(s.workout.uuid)))
        XCTAssertEqual(byWorkout.map(\.uuid), [route.uuid])
        let workouts = try await s.runner.samples(SampleQuery(types: [Self.workout]))
        XCTAssertEqual(workouts.first?.workout?.associatedSampleUUIDs, [route.uuid])
        let badBatch = await expectError(.invalidArgument) {
            for try await _ in s.runner.seriesData(of: route.uuid, as: RouteLocation.self, batchSize: 1_000_000) {}
        }
        XCTAssertEqual(badBatch?.field, "batch_size")
    }

    func testRoutesNeedTheirOwnReadPermissionAndADenialLooksLikeNoRoute() async throws {
        let s = try await started()
        let builder = s.runner.routeBuilder()
        try await builder.insert(Self.locations(50, from: s.workout.start))
        let finished = try await builder.finish(workout: s.workout.uuid)
        let route = try XCTUnwrap(finished)

        let token = try s.owner.registerApp(viewer)
        let viewer = try await HealthConnection.connect(to: .tcp(host: "127.0.0.1", port: s.server.port), hello: Hello(token: token))
        try await viewer.requestAuthorization(share: [], read: [Self.workout, Self.route])
        try s.owner.decide(self.viewer, [Self.workout], .read, grant: true)
        try s.owner.decide(self.viewer, [Self.route], .read, grant: false)
        // Reading the workout does not grant its route.
        let workouts = try await viewer.samples(SampleQuery(types: [Self.workout]))
        XCTAssertEqual(workouts.map(\.uuid), [s.workout.uuid])
        let routes = try await viewer.samples(SampleQuery(types: [Self.route]))
        XCTAssertEqual(routes, [])
        let denied = try await viewer.results(.querySeriesData(SeriesDataQuery(uuid: route.uuid)))
        let absent = try await viewer.results(.querySeriesData(SeriesDataQuery(uuid: UUID())))
        XCTAssertEqual(denied.count, 1)
        guard case .seriesData(let deniedPage)? = denied.first, case .seriesData(let absentPage)? = absent.first else {
            return XCTFail("\(denied) \(absent)")
        }
        XCTAssertEqual(deniedPage.points, absentPage.points)
        XCTAssertTrue(deniedPage.sampleDone && absentPage.sampleDone)

        try s.owner.decide(self.viewer, [Self.route], .read, grant: true)
        let points = try await viewer.seriesPoints(of: route.uuid, as: RouteLocation.self)
        XCTAssertEqual(points.count, 50)
        // A reader cannot add to, finish or discard another app's builder.
        let open = s.runner.routeBuilder()
        try await open.insert(Self.locations(3, from: s.workout.start))
        _ = await expectError(.invalidArgument) { _ = try await viewer.routeBuilder(id: open.id).finish(workout: s.workout.uuid) }
        _ = await expectError(.invalidArgument) { try await viewer.routeBuilder(id: open.id).discard() }
    }

    func testBuildingNeedsSharePermissionForTheSeriesType() async throws {
        let s = try await started(share: [Self.workout])
        let denied = await expectError(.authorizationNotDetermined) { try await s.runner.routeBuilder().insert(Self.locations(1, from: 0)) }
        XCTAssertEqual(denied?.field, "type")
        try s.owner.decide(runner, [Self.route], .share, grant: false)
        _ = await expectError(.authorizationDenied) { try await s.runner.routeBuilder().insert(Self.locations(1, from: 0)) }
    }

    func testAHeartbeatSeriesKeepsItsBeatsUpToTheMaximumAndADeletionLeavesATombstone() async throws {
        let s = try await started()
        let start = s.workout.start
        let beats = (0..<SeriesRules.maximumHeartbeats).map { Heartbeat(offset: Int64($0) * 800_000, precededByGap: $0 % 97 == 5) }
        let builder = s.runner.heartbeatSeriesBuilder(start: start)
        try await builder.insert(Array(beats.prefix(400)))
        try await builder.insert(Array(beats.dropFirst(400)))
        let tooMany = await expectError(.dataSizeExceeded) { try await builder.insert([Heartbeat(offset: beats.last!.offset + 1)]) }
        XCTAssertEqual(tooMany?.field, "beats")
        let finished = try await builder.finish()
        let series = try XCTUnwrap(finished)
        XCTAssertEqual(series.start, start)
        XCTAssertEqual(series.end, start + beats.last!.offset)
        let read = try await s.runner.seriesPoints(of: series.uuid, as: Heartbeat.self)
        XCTAssertEqual(read, beats)

        let abandoned = s.runner.heartbeatSeriesBuilder(start: start)
        try await abandoned.insert(Array(beats.prefix(3)))
        try await abandoned.discard()
        _ = await expectError(.invalidArgument) { _ = try await abandoned.finish() }

        let anchor = try await s.runner.anchored(AnchoredQuery(types: [Self.beats])).anchor
        try await s.runner.delete(uuids: [series.uuid])
        let changes = try await s.runner.anchored(AnchoredQuery(types: [Self.beats], anchor: anchor))
        XCTAssertEqual(changes.deleted.map(\.uuid), [series.uuid])
        let after = try await s.runner.seriesPoints(of: series.uuid, as: Heartbeat.self)
        XCTAssertEqual(after, [])
    }

    func testAnObserverOfRoutesIsToldWhenARouteIsFinished() async throws {
        let s = try await started()
        var events = s.runner.observe(types: [Self.route]).makeAsyncIterator()
        let registered = try await events.next()
        XCTAssertEqual(registered, [])
        let builder = s.runner.routeBuilder()
        try await builder.insert(Self.locations(10, from: s.workout.start))
        _ = try await builder.finish(workout: s.workout.uuid)
        let changed = try await events.next()
        XCTAssertEqual(changed, [Self.route])
    }

    func testSavingASeriesSampleWholeIsRefused() async throws {
        let s = try await started()
        let whole = Sample(type: Self.route, start: s.workout.start, end: s.workout.end, body: .series(count: 3))
        let error = await expectError(.invalidArgument) { _ = try await s.runner.save([whole]) }
        XCTAssertEqual(error?.field, "series")
    }
}

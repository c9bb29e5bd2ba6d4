import Foundation
import HealthModel
@testable import HealthStorage
import Synchronization
import XCTest

/// Series builders: a route or heartbeat series is opened and filled by InsertSeriesData and becomes
/// a stored sample (UUID = builder id, count = points) through the ordinary save path; finished
/// once; attached to its workout; deleted with its points, leaving a tombstone.
final class SeriesBuilderTests: StoreTestCase {
    private static let route = TypeCatalog.workoutRouteType.identifier
    private static let beats = TypeCatalog.heartbeatSeriesType.identifier
    private static let t0: Microseconds = 1_700_000_000_000_000
    private static let revision = SourceRevision(source: StoreFixture.watch, version: "1.0")

    private static func locations(_ range: Range<Int>) -> [RouteLocation] {
        range.map { i in
            RouteLocation(time: t0 + s(Int64(i)), latitude: 47.37 + Double(i) * 0.00003, longitude: 8.54, altitude: 410,
                          horizontalAccuracy: 5, speed: 3).onGrid
        }
    }

    private func workout(_ f: StoreFixture, source: Source = StoreFixture.watch) async throws -> Sample {
        let workout = Sample(type: StoreFixture.workout, start: Self.t0, end: Self.t0 + s(3_600), body: .workout(Workout(activityType: 37)))
        try await f.save([workout], source: source)
        return workout
    }

    private func insert(_ f: StoreFixture, _ id: UUID, type: String? = route, start: Microseconds = 0,
                        _ points: SeriesPoints, source: Source = StoreFixture.watch, kept: SourceRevision? = nil,
                        byOwner: Bool = false) async throws -> Int {
        try await f.store.insertSeriesData(owner: f.owner, SeriesInsert(builderID: id, type: type, start: start, points: points,
                                                                         sourceRevision: kept),
                                           revision: SourceRevision(source: source, version: "1.0"), defaultDevice: StoreFixture.watchDevice,
                                           byOwner: byOwner)
    }

    private func finish(_ f: StoreFixture, _ finish: SeriesFinish, source: Source = StoreFixture.watch) async throws -> [Sample] {
        try await f.store.finishSeries(owner: f.owner, finish, by: Deleter(owner: f.owner, bundleID: source.bundleID, isOwner: false))
    }

    private func expectError(_ field: String?, _ body: () async throws -> Void, file: StaticString = #filePath, line: UInt = #line) async {
        do {
            try await body()
            XCTFail("no error", file: file, line: line)
        } catch let error as HealthError {
            XCTAssertEqual(error.field, field, "\(error)", file: file, line: line)
        } catch {
            XCTFail("\(error)", file: file, line: line)
        }
    }

    func testARouteFinishesIntoASampleOfItsWorkoutWithItsPoints() async throws {
        try await forEachEngine {
            let f = try await StoreFixture()
            let workout = try await workout(f)
            let anchor = try await f.anchor()
            let id = UUID()
            let all = Self.locations(0..<1_500)
            _ = try await insert(f, id, .locations(Array(all[0..<1_000])))
            let count = try await insert(f, id, type: nil, .locations(Array(all[1_000...])))
            XCTAssertEqual(count, 1_500)
            // Points of an open builder are nobody's sample yet.
            try await expect(try await f.query([Self.route]).count, 0)

            let finished = try await finish(f, SeriesFinish(builderID: id, workoutUUID: workout.uuid, metadata: ["Trail": .string("Lake")]))
            XCTAssertEqual(finished.count, 1)
            let route = try XCTUnwrap(finished.first)
            XCTAssertEqual(route.uuid, id)
            XCTAssertEqual(route.seriesCount, 1_500)
            XCTAssertEqual(route.start, all[0].time)
            XCTAssertEqual(route.end, all[1_499].time)
            XCTAssertEqual(route.metadata["Trail"], .string("Lake"))
            XCTAssertEqual(route.device, StoreFixture.watchDevice)
            XCTAssertEqual(route.sourceRevision?.source, StoreFixture.watch)
            try await expect(try await f.query([Self.route], .workout(workout.uuid)).map(\.uuid), [id])
            let stored = try await f.store.seriesData(owner: f.owner, sample: route, from: 1_400, limit: 500)
            XCTAssertEqual(stored, .locations(Array(all[1_400...])))

            // The anchored query reports the route and the workout (it now holds the route) again.
            let changes = try await f.store.queryAnchored(owner: f.owner, types: [Self.route, StoreFixture.workout], predicate: nil,
                                                          anchor: anchor, limit: 0, scope: .everything(callerBundleID: "x"))
            XCTAssertEqual(Set(changes.samples.map(\.uuid)), [id, workout.uuid])
            XCTAssertEqual(changes.samples.first { $0.uuid == workout.uuid }?.workout?.associatedSampleUUIDs, [id])
            try await expect(try f.count("series_builders"), 0)
        }
    }

    func testTheOwnersImportBuildsARouteAsTheKeptSourceAndMarksItImported() async throws {
        try await forEachEngine {
            let f = try await StoreFixture()
            let workout = try await workout(f)
            let ctl = Source(name: "healthctl", bundleID: "org.healthstore.healthctl")
            let kept = SourceRevision(source: Source(name: "Apple Watch of Anna", bundleID: ""), version: "10.2")
            let id = UUID(), all = Self.locations(0..<20)
            _ = try await insert(f, id, .locations(Array(all[0..<10])), source: ctl, kept: kept, byOwner: true)
            // Later calls of the owner name the builder by its id; an app does not see it.
            try await expect(try await insert(f, id, type: nil, .locations(Array(all[10...])), source: ctl, byOwner: true), 20)
            await expectError("type") { _ = try await self.insert(f, id, type: nil, .locations([]), source: ctl) }
            let finished = try await f.store.finishSeries(owner: f.owner, SeriesFinish(builderID: id, workoutUUID: workout.uuid),
                                                          by: Deleter(owner: f.owner, bundleID: ctl.bundleID, isOwner: true))
            let route = try XCTUnwrap(finished.first)
            let bundleID = SourceRules.importedBundleID(forName: "Apple Watch of Anna")
            XCTAssertEqual(route.sourceRevision?.source, Source(name: "Apple Watch of Anna", bundleID: bundleID))
            XCTAssertEqual(route.sourceRevision?.version, "10.2")
            let sources = try await f.store.querySources(owner: f.owner, type: Self.route, predicate: nil,
                                                         scope: .everything(callerBundleID: ctl.bundleID))
            XCTAssertEqual(sources.map(\.bundleID), [bundleID])
            XCTAssertNotNil(sources.first?.importedTime)
        }
    }

    func testARouteIsFinishedOnceAndNothingIsInsertedAfterwards() async throws {
        try await forEachEngine {
            let f = try await StoreFixture()
            let workout = try await workout(f)
            let id = UUID()
            _ = try await insert(f, id, .locations(Self.locations(0..<10)))
            _ = try await finish(f, SeriesFinish(builderID: id, workoutUUID: workout.uuid))
            await expectError("builder_id") { _ = try await self.finish(f, SeriesFinish(builderID: id, workoutUUID: workout.uuid)) }
            await expectError("builder_id") { _ = try await self.insert(f, id, .locations(Self.locations(20..<21))) }
            do {
                _ = try await finish(f, SeriesFinish(builderID: id, workoutUUID: workout.uuid))
            } catch let error as HealthError {
                XCTAssertTrue(error.message.contains("already been finished"), error.message)
            }
            let routes = try await f.query([Self.route])
            let route = try XCTUnwrap(routes.first)
            let points = try await f.store.seriesData(owner: f.owner, sample: route, from: 0, limit: 100)
            XCTAssertEqual(points.count, 10)
        }
    }

    func testARouteMustLieInsideAWorkoutOfItsApp() async throws {
        try await forEachEngine {
            let f = try await StoreFixture()
            let workout = try await workout(f)
            let other = try await self.workout(f, source: StoreFixture.scale)
            let late = UUID()
            _ = try await insert(f, late, .locations([RouteLocation(time: Self.t0 + s(3_601), latitude: 1, longitude: 1)]))
            await expectError("workout_uuid") { _ = try await self.finish(f, SeriesFinish(builderID: late, workoutUUID: workout.uuid)) }
            let id = UUID()
            _ = try await insert(f, id, .locations(Self.locations(0..<5)))
            await expectError("workout_uuid") { _ = try await self.finish(f, SeriesFinish(builderID: id)) }
            await expectError("workout_uuid") { _ = try await self.finish(f, SeriesFinish(builderID: id, workoutUUID: other.uuid)) }
            await expectError("workout_uuid") { _ = try await self.finish(f, SeriesFinish(builderID: id, workoutUUID: UUID())) }
            // The failed finishes left the builder open.
            _ = try await finish(f, SeriesFinish(builderID: id, workoutUUID: workout.uuid))
        }
    }

    func testBuildersBelongToTheirAppAndCheckTypeAndOrder() async throws {
        try await forEachEngine {
            let f = try await StoreFixture()
            let id = UUID()
            await expectError("type") { _ = try await self.insert(f, id, type: nil, .locations(Self.locations(0..<1))) }
            // A quantity type is built from quantity points, not locations (and the failed call opens nothing).
            await expectError("locations") { _ = try await self.insert(f, id, type: StoreFixture.steps, .locations(Self.locations(0..<1))) }
            await expectError("type") { _ = try await self.insert(f, id, type: StoreFixture.sleep, .locations([])) }
            _ = try await insert(f, id, .locations(Self.locations(5..<10)))
            await expectError("locations[0].time") { _ = try await self.insert(f, id, type: nil, .locations(Self.locations(9..<11))) }
            await expectError("beats") { _ = try await self.insert(f, id, type: nil, .beats([Heartbeat(offset: 0)])) }
            await expectError("type") { _ = try await self.insert(f, id, type: Self.beats, .beats([])) }
            // Another app cannot see, fill, finish or discard it.
            await expectError("type") { _ = try await self.insert(f, id, type: nil, .locations(Self.locations(20..<21)), source: StoreFixture.scale) }
            await expectError("builder_id") { _ = try await self.finish(f, SeriesFinish(builderID: id), source: StoreFixture.scale) }
            await expectError("builder_id") {
                try await f.store.discardSeries(owner: f.owner, builder: id, bundleID: StoreFixture.scale.bundleID, byOwner: false)
            }
            try await expect(try await f.store.seriesBuilderType(owner: f.owner, builder: id, bundleID: StoreFixture.watch.bundleID), Self.route)
            try await expect(try await f.store.seriesBuilderType(owner: f.owner, builder: id, bundleID: StoreFixture.scale.bundleID), nil)
            try await f.store.discardSeries(owner: f.owner, builder: id, bundleID: StoreFixture.watch.bundleID, byOwner: false)
            try await expect(try f.count("series_chunks"), 0)
            try await expect(try f.count("series_builders"), 0)
            await expectError("builder_id") { _ = try await self.finish(f, SeriesFinish(builderID: id)) }
        }
    }

    /// How many times a write job ran.
    private final class RunCount: Sendable {
        let count = Atomic<Int>(0)
    }

    func testADiscardOfNoOpenBuilderLeavesTheJobsCommittedWithItRunOnce() async throws {
        // An import discards each series' builder before building it, while its batches of samples wait
        // at the writer: a refusal that failed its job undid the whole group, which ran again with savepoints.
        try await forEachEngine {
            let f = try await StoreFixture()
            let (store, owner) = (f.store, f.owner)
            let runs = RunCount()
            let hold = try await WriterHold(store)
            let counted = Task { try await store.write { _ in _ = runs.count.add(1, ordering: .relaxed) } }
            try await waitUntil { store.queuedWrites == 1 }
            let discard = Task {
                try await store.discardSeries(owner: owner, builder: UUID(), bundleID: "org.example.new-app", byOwner: false)
            }
            try await waitUntil { store.queuedWrites == 2 }
            try await hold.release()
            try await counted.value
            await expectError("builder_id") { try await discard.value }
            XCTAssertEqual(runs.count.load(ordering: .relaxed), 1, "the job grouped with the refused discard ran once")
            try await expect(try f.count("sources WHERE bundle_id = 'org.example.new-app'"), 0)
        }
    }

    func testAHeartbeatSeriesEndsAtItsLastBeatOrTheGivenEnd() async throws {
        try await forEachEngine {
            let f = try await StoreFixture()
            let first = UUID(), second = UUID()
            let beats = (0..<80).map { Heartbeat(offset: Int64($0) * 750_000, precededByGap: $0 == 12) }
            _ = try await insert(f, first, type: Self.beats, start: Self.t0, .beats(beats))
            let finishedFirst = try await finish(f, SeriesFinish(builderID: first))
            let series = try XCTUnwrap(finishedFirst.first)
            XCTAssertEqual(series.start, Self.t0)
            XCTAssertEqual(series.end, Self.t0 + 79 * 750_000)
            XCTAssertEqual(series.seriesCount, 80)
            try await expect(try await f.store.seriesData(owner: f.owner, sample: series, from: 0, limit: 1_000), .beats(beats))

            _ = try await insert(f, second, type: Self.beats, start: Self.t0, .beats(beats))
            await expectError("end_time") { _ = try await self.finish(f, SeriesFinish(builderID: second, end: Self.t0 + 1)) }
            let finishedSecond = try await finish(f, SeriesFinish(builderID: second, end: Self.t0 + s(60)))
            let ended = try XCTUnwrap(finishedSecond.first)
            XCTAssertEqual(ended.end, Self.t0 + s(60))
            await expectError("builder_id") { _ = try await self.finish(f, SeriesFinish(builderID: UUID())) }
        }
    }

    func testDeletingASeriesRemovesItsPointsAndLeavesATombstoneWhileDeletingTheWorkoutKeepsTheRoute() async throws {
        try await forEachEngine {
            let f = try await StoreFixture()
            let workout = try await workout(f)
            let id = UUID()
            _ = try await insert(f, id, .locations(Self.locations(0..<3_000)))
            _ = try await finish(f, SeriesFinish(builderID: id, workoutUUID: workout.uuid))
            let deleter = Deleter(owner: f.owner, bundleID: StoreFixture.watch.bundleID, isOwner: false)
            // HealthKit keeps a workout's associated samples when the workout goes.
            _ = try await f.store.deleteObjects(uuids: [workout.uuid], by: deleter)
            try await expect(try await f.query([Self.route]).map(\.uuid), [id])
            let anchor = try await f.anchor()
            _ = try await f.store.deleteObjects(uuids: [id], by: deleter)
            try await expect(try f.count("series_chunks"), 0)
            let changes = try await f.store.queryAnchored(owner: f.owner, types: [Self.route], predicate: nil, anchor: anchor, limit: 0,
                                                          scope: .everything(callerBundleID: "x"))
            XCTAssertEqual(changes.deleted.map(\.uuid), [id])
        }
    }

    func testAGreaterSyncVersionReplacesARouteAndItsPoints() async throws {
        try await forEachEngine {
            let f = try await StoreFixture()
            let workout = try await workout(f)
            let old = UUID(), new = UUID(), stale = UUID()
            func build(_ id: UUID, version: Int64, _ range: Range<Int>) async throws -> [Sample] {
                _ = try await self.insert(f, id, .locations(Self.locations(range)))
                return try await self.finish(f, SeriesFinish(builderID: id, workoutUUID: workout.uuid, metadata: [
                    MetadataKey.syncIdentifier: .string("run-1"), MetadataKey.syncVersion: .int(version)]))
            }
            _ = try await build(old, version: 1, 0..<100)
            try await expect(try await build(new, version: 2, 0..<50).map(\.uuid), [new])
            try await expect(try await build(stale, version: 1, 0..<10).map(\.uuid), [])
            try await expect(try await f.query([Self.route], .workout(workout.uuid)).map(\.uuid), [new])
            try await expect(try f.count("series_chunks"), 1)
            try await expect(try f.count("series_builders"), 0)
        }
    }

    func testAStoreFromStep13OpensAndBuildsSeries() async throws {
        let f = try await StoreFixture()
        guard f.isSQLite else { return }
        try await f.reopenFromStep(13)
        let id = UUID()
        _ = try await insert(f, id, type: Self.beats, start: Self.t0, .beats([Heartbeat(offset: 0)]))
        try await expect(try await finish(f, SeriesFinish(builderID: id)).map(\.seriesCount), [1])
        await f.store.close()
    }

    func testSavingAWorkoutAgainAfterItsRouteWasFinishedIsARetry() async throws {
        try await forEachEngine {
            let f = try await StoreFixture()
            let workout = try await workout(f)
            let id = UUID()
            _ = try await insert(f, id, .locations(Self.locations(0..<3)))
            _ = try await finish(f, SeriesFinish(builderID: id, workoutUUID: workout.uuid))
            try await expect(try await f.save([workout]), [.alreadyStored])
        }
    }
}

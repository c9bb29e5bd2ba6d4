import Foundation
import HealthModel
@testable import HealthStorage
import XCTest

/// A second reader of a streamed anchored read takes its snapshot for the head's when the owner's
/// last anchor is the same (`ReadContext.help`), so every write that changes the owner's samples must
/// move that anchor. Each of the store's write paths runs here in turn, on every engine, and whenever
/// an anchored read with no anchor (every sample and deletion) answers differently after it, the last
/// anchor must have moved. Purging tombstones is the one write that changes an answer without moving
/// it: it removes deletions only, which the head reads in its own snapshot and no second reader reads.
final class LastAnchorTests: StoreTestCase {
    private static let route = TypeCatalog.workoutRouteType.identifier
    private let t0: Microseconds = 1_700_000_000_000_000
    private let types = [StoreFixture.heartRate, StoreFixture.steps, StoreFixture.bloodPressure, StoreFixture.systolic,
                         StoreFixture.diastolic, StoreFixture.workout, LastAnchorTests.route]

    /// What a write is expected to change.
    private enum Effect { case nothing, rows, deletionsOnly }

    private static func synced(_ identifier: String, _ version: Int64) -> Metadata {
        [MetadataKey.syncIdentifier: .string(identifier), MetadataKey.syncVersion: .int(version)]
    }

    private func systolic(_ mmHg: Double, version: Int64) -> Sample {
        Sample(type: StoreFixture.systolic, start: t0, end: t0, metadata: Self.synced("bp", version),
               body: .quantity(Quantity(mmHg, "mmHg"), count: 1))
    }

    func testEveryWriteThatChangesSamplesMovesTheLastAnchor() async throws {
        try await forEachEngine {
            let f = try await StoreFixture()
            let t0 = self.t0
            let reader = ReadContext(db: try f.connect(), registry: Registry(), anchorKey: Data())
            let watch = Deleter(owner: f.owner, bundleID: StoreFixture.watch.bundleID, isOwner: false)
            let revision = SourceRevision(source: StoreFixture.watch, version: "1.0")
            let (a, b, c) = (StoreFixture.heartRate(t0, metadata: Self.synced("hr", 1)), StoreFixture.heartRate(t0 + s(60)),
                             StoreFixture.heartRate(t0 + s(120)))
            let diastolic = Sample(type: StoreFixture.diastolic, start: t0, end: t0, body: .quantity(Quantity(80, "mmHg"), count: 1))
            let pressure = Sample(type: StoreFixture.bloodPressure, start: t0, end: t0,
                                  body: .correlation([systolic(120, version: 1), diastolic]))
            let workout = Sample(type: StoreFixture.workout, start: t0, end: t0 + s(3_600), body: .workout(Workout(activityType: 37)))
            let (quantitySeries, route, discarded) = (UUID(), UUID(), UUID())
            let locations = SeriesPoints.locations((0..<3).map { RouteLocation(time: t0 + s(Int64($0)), latitude: 47, longitude: 8) })
            let writes: [(String, Effect, () async throws -> Void)] = [
                ("save", .rows, { _ = try await f.save([a, b, c]) }),
                ("save with a completion", .rows, {
                    let batch = f.batch([StoreFixture.heartRate(t0 + s(180))])
                    _ = try await withCheckedThrowingContinuation { done in f.store.save(batch, on: InlineQueue()) { done.resume(with: $0) } }
                }),
                ("save replacing a synced sample", .rows, { _ = try await f.save([StoreFixture.heartRate(t0, bpm: 61, metadata: Self.synced("hr", 2))]) }),
                ("save a correlation", .rows, { _ = try await f.save([pressure]) }),
                ("save replacing a correlation's reading", .rows, { _ = try await f.save([self.systolic(125, version: 2)]) }),
                ("delete by UUID", .rows, { _ = try await f.store.deleteObjects(uuids: [b.uuid], by: watch) }),
                ("delete by type and predicate", .rows, {
                    _ = try await f.store.deleteObjects(type: StoreFixture.heartRate, predicate: .uuids([c.uuid]), by: watch)
                }),
                ("append quantity series points", .nothing, {
                    _ = try await f.store.appendQuantityPoints(owner: f.owner, builder: quantitySeries, type: StoreFixture.steps, start: t0,
                                                               [QuantitySeriesPoint(Quantity(10, "count"), start: t0, end: t0 + s(30))])
                }),
                ("finish a quantity series", .rows, {
                    _ = try await f.store.finishQuantitySeries(owner: f.owner, builder: quantitySeries, type: StoreFixture.steps, start: t0,
                                                               end: t0 + s(30), metadata: [:], device: nil, revision: revision)
                }),
                ("save a workout", .rows, { _ = try await f.save([workout]) }),
                ("insert route points", .nothing, {
                    _ = try await f.store.insertSeriesData(owner: f.owner, SeriesInsert(builderID: route, type: Self.route, start: 0, points: locations),
                                                           revision: revision, defaultDevice: nil, byOwner: false)
                }),
                ("finish a route", .rows, {
                    _ = try await f.store.finishSeries(owner: f.owner, SeriesFinish(builderID: route, workoutUUID: workout.uuid), by: watch)
                }),
                ("open a second route", .nothing, {
                    _ = try await f.store.insertSeriesData(owner: f.owner, SeriesInsert(builderID: discarded, type: Self.route, start: 0, points: locations),
                                                           revision: revision, defaultDevice: nil, byOwner: false)
                }),
                ("discard it", .nothing, {
                    try await f.store.discardSeries(owner: f.owner, builder: discarded, bundleID: StoreFixture.watch.bundleID, byOwner: false)
                }),
                ("set source priority", .nothing, {
                    try await f.store.setSourcePriority(owner: f.owner, type: StoreFixture.heartRate, bundleIDs: [StoreFixture.watch.bundleID])
                }),
                ("register an app", .nothing, { _ = try await f.store.registerApp(owner: f.owner, bundleID: "com.example.app", name: "App") }),
                ("revoke it", .nothing, { try await f.store.revokeApp(owner: f.owner, bundleID: "com.example.app") }),
                ("delete a correlation", .rows, { _ = try await f.store.deleteObjects(uuids: [pressure.uuid], by: watch) }),
                ("purge every tombstone", .deletionsOnly, { _ = try await f.store.purgeExpiredTombstones(now: Int64.max / 2) }),
            ]
            for (name, effect, write) in writes {
                let anchorBefore = try reader.lastAnchor(owner: f.owner.rawValue)
                let before = try await f.store.queryAnchored(owner: f.owner, types: types, predicate: nil, anchor: nil, limit: 0, scope: .everything(callerBundleID: "x"))
                try await write()
                let anchorAfter = try reader.lastAnchor(owner: f.owner.rawValue)
                let after = try await f.store.queryAnchored(owner: f.owner, types: types, predicate: nil, anchor: nil, limit: 0, scope: .everything(callerBundleID: "x"))
                let samplesChanged = after.samples != before.samples, deletionsChanged = after.deleted != before.deleted
                switch effect {
                case .rows: XCTAssertTrue(samplesChanged || deletionsChanged, "\(name) changes what an anchored read returns")
                case .nothing: XCTAssertFalse(samplesChanged || deletionsChanged, name)
                case .deletionsOnly: XCTAssertTrue(!samplesChanged && deletionsChanged, name)
                }
                if samplesChanged || (deletionsChanged && effect != .deletionsOnly) {
                    XCTAssertGreaterThan(anchorAfter, anchorBefore, "\(name) changed rows without moving the last anchor")
                } else if effect == .deletionsOnly {
                    XCTAssertEqual(anchorAfter, anchorBefore, "a purge leaves the last anchor where it was")
                }
            }
            await f.store.close()
        }
    }
}

/// Runs a writer's completions where they are handed over (on the writer thread).
private final class InlineQueue: CompletionQueue {
    func post(_ work: @escaping @Sendable () -> Void) -> Bool {
        work()
        return true
    }
}

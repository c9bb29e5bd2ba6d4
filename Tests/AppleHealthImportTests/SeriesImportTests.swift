import Foundation
import HealthModel
import Synchronization
import XCTest
@testable import AppleHealthImport

/// How the importer builds series through its destination: after the parent's save is answered,
/// once, discarding what an interrupted import left open.
final class SeriesImportTests: XCTestCase {
    /// A store that records the calls it gets; samples in `stored` are present, `refuse` names types whose save fails.
    private final class Recorder: ImportDestination {
        let calls = Mutex<[String]>([])
        let stored = Mutex<Set<UUID>>([])
        let refuse: Set<String>
        let refuseSeries: Bool
        /// Inserts take a while, so builds that run at once overlap in them.
        let slowInserts: Bool
        /// Series inserting now, and the most at any one time.
        let inserting = Mutex<(now: Int, most: Int)>((0, 0))

        init(refuse: Set<String> = [], refuseSeries: Bool = false, slowInserts: Bool = false) {
            self.refuse = refuse
            self.refuseSeries = refuseSeries
            self.slowInserts = slowInserts
        }

        func save(_ samples: [Sample]) async throws -> [SaveOutcome] {
            calls.withLock { $0.append("save \(samples.map(\.type).joined(separator: ","))") }
            if let index = samples.firstIndex(where: { refuse.contains($0.type) }) {
                throw HealthError(.invalidArgument, "refused", objectIndex: index)
            }
            stored.withLock { $0.formUnion(samples.map(\.uuid)) }
            return samples.map { _ in .stored }
        }

        func characteristics() async throws -> Characteristics { Characteristics() }
        func writeCharacteristics(_ update: Characteristics) async throws {}

        func isStored(_ uuid: UUID, type: String) async throws -> Bool { stored.withLock { $0.contains(uuid) } }

        func series(_ step: SeriesStep) async throws -> Sample? {
            switch step {
            case .insert(let insert):
                calls.withLock { $0.append("insert \(insert.points.count)") }
                if slowInserts {
                    inserting.withLock { $0 = ($0.now + 1, max($0.most, $0.now + 1)) }
                    try await Task.sleep(for: .milliseconds(100))
                    inserting.withLock { $0.now -= 1 }
                }
            case .discard: calls.withLock { $0.append("discard") }
            case .finish where refuseSeries:
                throw HealthError(.invalidArgument, "Route point 1 is outside its workout", field: "locations")
            case .finish(let finish):
                let parentStored = finish.workoutUUID.map { workout in stored.withLock { $0.contains(workout) } } ?? true
                calls.withLock { $0.append("finish \(parentStored ? "after its workout" : "before its workout")") }
                stored.withLock { _ = $0.insert(finish.builderID) }
                return Sample(uuid: finish.builderID, type: TypeCatalog.workoutRouteType.identifier, start: 0, end: 0,
                              body: .series(count: 2))
            }
            return nil
        }
    }

    private let workout = "<Workout workoutActivityType=\"HKWorkoutActivityTypeWalking\" sourceName=\"Watch\" "
        + "startDate=\"2019-06-11 15:00:00 -0700\" endDate=\"2019-06-11 15:30:00 -0700\">"
        + "<WorkoutRoute sourceName=\"Phone\"><Location date=\"2019-06-11 15:00:44 -0700\" latitude=\"37.7\" longitude=\"-122.4\"/>"
        + "<Location date=\"2019-06-11 15:00:44 -0700\" latitude=\"37.8\" longitude=\"-122.4\"/></WorkoutRoute></Workout>"

    private func run(_ body: String, into destination: Recorder,
                     observe: ((BatchSaver.Item, ImportOutcome) -> Void)? = nil) async throws -> ImportSummary {
        let importer = ExportImporter(export: try AppleHealthExport(archive: ExportArchive(path: try SyntheticExport.write(body))),
                                      destination: destination, observe: observe)
        try await importer.run { _ in }
        return importer.summary
    }

    func testARouteIsBuiltAfterItsWorkoutIsSavedAndOnceOnly() async throws {
        let store = Recorder()
        let first = try await run(workout, into: store)
        let route = TypeCatalog.workoutRouteType.identifier
        XCTAssertEqual(store.calls.withLock { $0 }, ["save HKWorkoutTypeIdentifier", "discard", "insert 2", "finish after its workout"])
        XCTAssertEqual(first.byType[route]?.stored, 1)
        XCTAssertEqual(first.bySource["Phone"]?.stored, 1)

        store.calls.withLock { $0 = [] }
        let again = try await run(workout, into: store)
        XCTAssertEqual(again.byType[route]?.alreadyPresent, 1)
        XCTAssertFalse(store.calls.withLock { $0 }.contains { $0.hasPrefix("insert") }, "a stored series is not built again")
    }

    func testSeriesWhoseParentsAreSavedAreBuiltAtOnce() async throws {
        // Three workouts on three days, each with its route: all three parents are answered in one save.
        let days = ["2019-06-11", "2019-06-12", "2019-06-13"]
        let body = days.map { workout.replacingOccurrences(of: "2019-06-11", with: $0) }.joined(separator: "\n")
        let store = Recorder(slowInserts: true)
        let summary = try await run(body, into: store)
        XCTAssertEqual(summary.byType[TypeCatalog.workoutRouteType.identifier]?.stored, 3)
        XCTAssertEqual(store.calls.withLock { $0 }.filter { $0.hasPrefix("finish") }, Array(repeating: "finish after its workout", count: 3))
        XCTAssertGreaterThan(store.inserting.withLock { $0.most }, 1, "the routes' builds overlap instead of each waiting for the one before")
    }

    func testARouteOfARefusedWorkoutIsSkippedWithIt() async throws {
        let store = Recorder(refuse: [TypeCatalog.workoutType.identifier])
        let summary = try await run(workout, into: store)
        XCTAssertEqual(summary.byType[TypeCatalog.workoutRouteType.identifier]?.skipped, ["not stored: its parent was not stored": 1])
        XCTAssertFalse(store.calls.withLock { $0 }.contains { $0.hasPrefix("insert") })
    }

    func testARefusedRouteIsToldWithItsElementsLineLikeARefusedSample() async throws {
        var refusals: [(line: Int, type: String, message: String)] = []
        let summary = try await run("\n\n" + workout, into: Recorder(refuseSeries: true)) { item, outcome in
            if case .refused(let error) = outcome { refusals.append((item.line, item.sample.type, error.message)) }
        }
        let route = TypeCatalog.workoutRouteType.identifier
        XCTAssertEqual(refusals.map(\.line), [10], "the line of <WorkoutRoute> (its workout's line here)")
        XCTAssertEqual(refusals.map(\.type), [route])
        XCTAssertEqual(refusals.first?.message, "Route point 1 is outside its workout")
        XCTAssertEqual(summary.byType[route]?.skipped, ["refused: Route point N is outside its workout": 1])
        XCTAssertEqual(summary.bySource["Phone"]?.skippedTotal, 1)
    }

    func testABatchEndsOnceItsElementsSpanTheByteLimit() async throws {
        // 60 records of about 1 KB each (a long metadata value): a batch of up to 1,000 objects, ended by 8 KB.
        let note = String(repeating: "x", count: 900)
        let body = (0..<60).map { i in
            SyntheticExport.record("HKQuantityTypeIdentifierStepCount", value: "\(i + 1)", start: "2024-01-01 01:\(10 + i / 50):\(10 + i % 50) +0200",
                                   inner: "<MetadataEntry key=\"note\" value=\"\(note)\"/>")
        }.joined(separator: "\n")
        let store = Recorder()
        let importer = ExportImporter(export: try AppleHealthExport(archive: ExportArchive(path: try SyntheticExport.write(body))),
                                      destination: store, batchSize: 1_000, batchBytes: 8 * 1024)
        try await importer.run { _ in }
        let sizes = store.calls.withLock { $0 }.map { $0.split(separator: ",").count }
        XCTAssertEqual(sizes.reduce(0, +), 60)
        XCTAssertGreaterThan(sizes.count, 3, "batches end by bytes, not only by count: \(sizes)")
        XCTAssertLessThanOrEqual(sizes.max() ?? 0, 20, "a batch holds about 8 KB of elements (the reader reads ahead a few KB): \(sizes)")
        XCTAssertEqual(importer.summary.byType["HKQuantityTypeIdentifierStepCount"]?.stored, 60)
    }

    func testTimesWrittenInTheSameSecondStayInOrderOneMicrosecondApart() {
        let ordered = SeriesMapping.strictlyOrdered([RouteLocation(time: 10, latitude: 1, longitude: 1),
                                                     RouteLocation(time: 5, latitude: 2, longitude: 2),
                                                     RouteLocation(time: 10, latitude: 3, longitude: 3)])
        XCTAssertEqual(ordered.map(\.time), [5, 10, 11])
        XCTAssertEqual(ordered.map(\.latitude), [2, 1, 3])
    }
}

import Foundation
import HealthModel
import HealthStorage
import HealthWire
import XCTest

/// Through a real healthd: statistics, collections and a workout's derived statistics count a quantity
/// series as its points. The series are written into the store while the server is stopped (the
/// builder calls are wired separately), then read through the protocol.
final class QuantitySeriesStatisticsServerTests: XCTestCase {
    private let t0 = Q.at("2024-06-03T08:00:00Z")
    private let watch = SourceRevision(source: Source(name: "Watch", bundleID: "com.example.watch"), version: "1.0")

    /// A stopped server's store holding a two-hour step series with every point in the first hour, a
    /// heart-rate series of 60, 90 and 120 count/min, and a workout associated with both.
    private func serverWithSeries() async throws -> ServerProcess {
        let seed = try ServerProcess()
        seed.stopNow()
        let store = try SQLiteStore.open(path: seed.dataDirectory.appendingPathComponent("healthstore.sqlite").path)
        let owner = try await store.listOwners()[0].0
        let (steps, heart) = (UUID(), UUID())
        let stepPoints = (0..<60).map { i in
            QuantitySeriesPoint(Quantity(20, "count"), start: t0 + Int64(i) * Q.minute, end: t0 + Int64(i + 1) * Q.minute)
        }
        _ = try await store.appendQuantityPoints(owner: owner, builder: steps, type: Q.steps, start: t0, stepPoints)
        _ = try await store.finishQuantitySeries(owner: owner, builder: steps, type: Q.steps, start: t0, end: t0 + 2 * Q.hour,
                                                 metadata: [:], device: nil, revision: watch)
        let bpm = [60.0, 90, 120].enumerated().map { i, value in
            QuantitySeriesPoint(Quantity(value, "count/min"), start: t0 + Int64(i) * 30 * Q.minute)
        }
        _ = try await store.appendQuantityPoints(owner: owner, builder: heart, type: Q.heartRate, start: t0, bpm)
        _ = try await store.finishQuantitySeries(owner: owner, builder: heart, type: Q.heartRate, start: t0, end: t0 + 2 * Q.hour,
                                                 metadata: [:], device: nil, revision: watch)
        let run = Sample(type: "HKWorkoutTypeIdentifier", start: t0, end: t0 + 2 * Q.hour,
                         body: .workout(Workout(activityType: 37, associatedSampleUUIDs: [steps, heart])))
        _ = try await store.save(SaveBatch(owner: owner, revision: watch, defaultDevice: nil, objects: [run]))
        await store.close()
        return try ServerProcess(dataDirectory: seed.dataDirectory)
    }

    func testStatisticsCollectionsAndWorkoutsCountTheSeriesPoints() async throws {
        try XCTSkipIf(ServerProcess.sharesTestStore, "writes the server's SQLite file while it is stopped")
        let server = try await serverWithSeries()
        let owner = try RawClient(port: server.port)
        owner.hello(server.ownerToken)

        let hourly = try owner.collection(StatisticsCollectionQuery(type: Q.steps, options: .cumulativeSum, anchor: t0,
                                                                    interval: IntervalComponents(hours: 1), timeZone: "UTC",
                                                                    from: t0, to: t0 + 2 * Q.hour - 1))
        XCTAssertEqual(try hourly.map { try Q.value($0.sum, "count") }, [1_200, nil], "spread over the sample, each hour would get 600")

        let heart = try owner.statistics(StatisticsQuery(type: Q.heartRate, options: [.discreteMin, .discreteMax, .discreteAverage],
                                                         unit: "count/min")).get()
        XCTAssertEqual(try XCTUnwrap(heart.minimum?.value), 60, accuracy: 1e-9)
        XCTAssertEqual(try XCTUnwrap(heart.maximum?.value), 120, accuracy: 1e-9)

        let workouts = Fixtures.samples(of: owner.collect(owner.submit(.querySamples(SampleQuery(types: ["HKWorkoutTypeIdentifier"])))))
        let statistics = try XCTUnwrap(workouts.first?.workout?.statistics)
        let byType = Dictionary(uniqueKeysWithValues: statistics.map { ($0.quantityType, $0) })
        XCTAssertEqual(try Q.value(byType[Q.steps]?.sum, "count"), 1_200)
        XCTAssertEqual(try Q.value(byType[Q.heartRate]?.minimum, "count/min") ?? 0, 60, accuracy: 1e-9,
                       "the series' average alone would give 90")
        XCTAssertEqual(try Q.value(byType[Q.heartRate]?.maximum, "count/min") ?? 0, 120, accuracy: 1e-9)
    }
}

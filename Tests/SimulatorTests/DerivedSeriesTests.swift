import Foundation
import HealthModel
import XCTest
@testable import HealthSimulator

/// The watch's routes, workout heart-rate and step series and beat series: derived from the seed and
/// the sample alone, valid as the server checks them, inside their workout and following it.
final class DerivedSeriesTests: XCTestCase {
    /// 2025-03-10T00:00:00Z, two weeks.
    let from: Microseconds = 1_741_564_800_000_000
    let to: Microseconds = 1_741_564_800_000_000 + 14 * 86_400_000_000

    private func derived(seed: UInt64) throws -> [(sample: Sample, series: DerivedSeries)] {
        var out: [(Sample, DerivedSeries)] = []
        for profile in BuiltinFleet.fleet.devices {
            let generator = try DeviceGenerator(profile: profile, person: XCTUnwrap(BuiltinFleet.fleet.person(for: profile)), seed: seed)
            for sample in generator.samples(from: from, to: to) {
                for series in DerivedSeries.of(sample, seed: seed) { out.append((sample, series)) }
            }
        }
        return out
    }

    func testOutdoorWorkoutsGetRoutesAtTheirPaceAndHRVReadingsGetBeats() throws {
        let all = try derived(seed: 42)
        let routes = all.filter { $0.series.type == HKType.workoutRoute }, beats = all.filter { $0.series.type == HKType.heartbeatSeries }
        XCTAssertFalse(routes.isEmpty)
        XCTAssertFalse(beats.isEmpty)
        for (workout, route) in routes {
            guard case .locations(let locations) = route.points, let first = locations.first, let last = locations.last else {
                return XCTFail("a route without locations")
            }
            try SeriesRules.checkLocations(locations, after: nil)
            try SeriesRules.checkRoute(first: first.time, last: last.time, workoutStart: workout.start, workoutEnd: workout.end)
            XCTAssertEqual(route.workout, workout.uuid)
            let metres = workout.workout?.statistics.filter { $0.quantityType.contains("Distance") }.compactMap { $0.sum?.value }.reduce(0, +) ?? 0
            let active = Double(workout.workout!.activeDuration(start: workout.start, end: workout.end)) / 1_000_000
            let meanSpeed = locations.map(\.speed).reduce(0, +) / Double(locations.count)
            XCTAssertEqual(meanSpeed, metres / active, accuracy: 0.1 * metres / active)
        }
        for (reading, series) in beats {
            guard case .beats(let points) = series.points else { return XCTFail("no beats") }
            try SeriesRules.checkBeats(points, count: 0, after: nil)
            XCTAssertEqual(series.start, reading.start)
            XCTAssertLessThanOrEqual(series.sample.end, reading.end)
            XCTAssertGreaterThan(points.count, 30)
        }
    }

    func testWorkoutsGetAHeartRateSeriesFollowingTheWorkout() throws {
        let all = try derived(seed: 42)
        let heart = all.filter { $0.series.type == HKType.heartRate }
        let workouts = Set(all.filter { $0.sample.type == HKType.workout }.map(\.sample.uuid))
        XCTAssertEqual(Set(heart.map(\.sample.uuid)), workouts, "every workout gets a heart-rate series")
        XCTAssertFalse(all.contains { $0.series.type == HKType.stepCount }, "the watch's step samples already count its workouts")
        var meanByActivity: [Int32: [Double]] = [:]
        for (workout, series) in heart {
            guard case .quantities(let points) = series.points, let w = workout.workout else { return XCTFail("no quantities") }
            let type = try XCTUnwrap(TypeCatalog.type(series.type))
            XCTAssertEqual(try QuantitySeriesRules.accept(points, type: type, builderStart: series.start, lastStart: nil).points, points)
            XCTAssertEqual(series.device, workout.device)
            XCTAssertTrue(points.allSatisfy { $0.start >= workout.start && $0.end <= workout.end })
            let paused = w.events.filter { $0.type == .pause }.map(\.start)
            let resumed = w.events.filter { $0.type == .resume }.map(\.start)
            for (p, q) in zip(paused, resumed) {
                XCTAssertFalse(points.contains { $0.start < q && $0.end > p || $0.start == p }, "a point inside the pause")
            }
            let values = points.map(\.quantity.value)
            XCTAssertTrue(zip(points, points.dropFirst()).allSatisfy { $1.start - $0.start >= 5_000_000 })
            XCTAssertTrue(points.allSatisfy { $0.start == $0.end })
            meanByActivity[w.activityType, default: []].append(values.reduce(0, +) / Double(values.count))
        }
        let mean = { (type: Int32) in meanByActivity[type].map { $0.reduce(0, +) / Double($0.count) } }
        if let running = mean(37), let walking = mean(52) { XCTAssertGreaterThan(running, walking + 20) }
    }

    func testTheSameSeedDerivesTheSameSeries() throws {
        let a = try derived(seed: 42).map(\.series), b = try derived(seed: 42).map(\.series)
        XCTAssertEqual(a, b)
        XCTAssertNotEqual(a.map(\.id), try derived(seed: 43).map(\.series.id))
    }
}

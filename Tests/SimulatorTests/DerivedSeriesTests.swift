import Foundation
import HealthModel
import XCTest
@testable import HealthSimulator

/// The watch's routes and beat series: derived from the seed and the sample alone, valid as the
/// server checks them, a route inside its workout at the workout's pace.
final class DerivedSeriesTests: XCTestCase {
    /// 2025-03-10T00:00:00Z, two weeks.
    let from: Microseconds = 1_741_564_800_000_000
    let to: Microseconds = 1_741_564_800_000_000 + 14 * 86_400_000_000

    private func derived(seed: UInt64) throws -> [(sample: Sample, series: DerivedSeries)] {
        var out: [(Sample, DerivedSeries)] = []
        for profile in BuiltinFleet.fleet.devices {
            let generator = try DeviceGenerator(profile: profile, person: XCTUnwrap(BuiltinFleet.fleet.person(for: profile)), seed: seed)
            for sample in generator.samples(from: from, to: to) {
                if let series = DerivedSeries.of(sample, seed: seed) { out.append((sample, series)) }
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

    func testTheSameSeedDerivesTheSameSeries() throws {
        let a = try derived(seed: 42).map(\.series), b = try derived(seed: 42).map(\.series)
        XCTAssertEqual(a, b)
        XCTAssertNotEqual(a.map(\.id), try derived(seed: 43).map(\.series.id))
    }
}

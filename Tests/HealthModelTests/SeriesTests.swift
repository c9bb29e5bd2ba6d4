import XCTest
@testable import HealthModel

final class SeriesTests: XCTestCase {
    private func location(_ t: Microseconds, lat: Double = 47.37, lon: Double = 8.54) -> RouteLocation {
        RouteLocation(time: t, latitude: lat, longitude: lon, altitude: 408.25, horizontalAccuracy: 4.5,
                      verticalAccuracy: 3, course: 271.5, courseAccuracy: 10, speed: 3.05, speedAccuracy: 0.5)
    }

    func testCatalogHasBothSeriesTypes() throws {
        XCTAssertEqual(TypeCatalog.types(of: .series).map(\.shortName), ["WorkoutRoute", "HeartbeatSeries"])
        XCTAssertEqual(try TypeCatalog.resolve("workout-route").identifier, "HKWorkoutRouteTypeIdentifier")
        XCTAssertEqual(try TypeCatalog.resolve("HeartbeatSeries").identifier, "HKDataTypeIdentifierHeartbeatSeries")
        XCTAssertEqual(TypeCatalog.workoutType.shortName, "Workout")
        XCTAssertTrue(TypeCatalog.workoutRouteType.isReadable && TypeCatalog.workoutRouteType.isShareable)
    }

    func testARouteSampleCannotBeSavedAsAPlainSample() {
        let sample = Sample(type: "HKWorkoutRouteTypeIdentifier", start: 0, end: 1, body: .category(0))
        XCTAssertThrowsError(try SampleValidator.validate([sample])) { error in
            XCTAssertEqual((error as? HealthError)?.field, "type")
        }
    }

    func testLocationsPackLosslesslyOnTheGridAndCompactly() throws {
        let locations: [RouteLocation] = (0..<1_000).map { (i: Int) -> RouteLocation in
            let step = Double(i)
            let time: Microseconds = 1_700_000_000_000_000 + Int64(i) * 1_000_000
            return RouteLocation(time: time, latitude: 47.37 + step * 0.000027, longitude: 8.54 - Double(i % 50) * 0.00001,
                                 altitude: 408.25 + Double(i % 7) * 0.1, horizontalAccuracy: 4.5, verticalAccuracy: 3,
                                 course: Double(i % 360), courseAccuracy: 10, speed: 3.05, speedAccuracy: 0.5)
        }
        let bytes = SeriesPacking.pack(locations)
        XCTAssertLessThanOrEqual(bytes.count, 24 * locations.count)
        XCTAssertEqual(try SeriesPacking.unpackLocations(bytes, count: locations.count), locations.map { $0.onGrid })
        XCTAssertEqual(locations.map { $0.onGrid.onGrid }, locations.map { $0.onGrid })
    }

    func testNegativeUnknownValuesSurvivePacking() throws {
        let unknown = RouteLocation(time: -5, latitude: -89.9999999, longitude: -180, altitude: -420.5)
        XCTAssertEqual(try SeriesPacking.unpackLocations(SeriesPacking.pack([unknown]), count: 1), [unknown])
    }

    func testBeatsPackCompactlyWithTheirGapFlags() throws {
        let beats = (0..<10_000).map { Heartbeat(offset: Int64($0) * 812_345, precededByGap: $0 % 97 == 5) }
        let bytes = SeriesPacking.pack(beats)
        XCTAssertLessThanOrEqual(bytes.count, 12 * beats.count)
        XCTAssertEqual(try SeriesPacking.unpackBeats(bytes, count: beats.count), beats)
    }

    func testATruncatedChunkIsReportedNotMisread() {
        let bytes = SeriesPacking.pack([location(1), location(2)])
        XCTAssertThrowsError(try SeriesPacking.unpackLocations(Array(bytes.dropLast()), count: 2))
        XCTAssertThrowsError(try SeriesPacking.unpackLocations(bytes, count: 1))
    }

    func testLocationRulesNameTheOffendingLocationAndField() {
        func failure(_ locations: [RouteLocation], after: Microseconds? = nil) -> HealthError? {
            do { try SeriesRules.checkLocations(locations, after: after); return nil } catch { return error }
        }
        XCTAssertNil(failure([location(1), location(2)], after: 0))
        let latitude = failure([location(1), location(2, lat: 90.5)])
        XCTAssertEqual(latitude?.field, "locations[1].latitude")
        XCTAssertEqual(latitude?.objectIndex, 1)
        XCTAssertEqual(failure([location(1, lon: -181)])?.field, "locations[0].longitude")
        XCTAssertEqual(failure([location(1, lat: .nan)])?.field, "locations[0].latitude")
        XCTAssertEqual(failure([location(2), location(2)])?.field, "locations[1].time")
        XCTAssertEqual(failure([location(5)], after: 5)?.field, "locations[0].time")
        let infiniteSpeed = RouteLocation(time: 1, latitude: 0, longitude: 0, speed: .infinity)
        XCTAssertEqual(failure([infiniteSpeed])?.field, "locations[0].speed")
        let fullCircle = RouteLocation(time: 1, latitude: 0, longitude: 0, course: 360)
        XCTAssertEqual(failure([fullCircle])?.field, "locations[0].course")
    }

    /// The path of a failing location is built only when it fails: each rule's error keeps its exact
    /// field, message and object index.
    func testLocationErrorsKeepTheirExactMessages() {
        func failure(_ locations: [RouteLocation], after: Microseconds? = nil) -> HealthError? {
            do { try SeriesRules.checkLocations(locations, after: after); return nil } catch { return error }
        }
        func check(_ error: HealthError?, _ field: String, _ message: String, index: Int, line: UInt = #line) {
            XCTAssertEqual(error?.code, .invalidArgument, line: line)
            XCTAssertEqual(error?.field, field, line: line)
            XCTAssertEqual(error?.message, message, line: line)
            XCTAssertEqual(error?.objectIndex, index, line: line)
        }
        check(failure([location(1), location(2), location(3, lat: -90.5)]), "locations[2].latitude",
              "Latitude must be between -90 and 90 degrees; got -90.5", index: 2)
        check(failure([location(1, lon: .infinity)]), "locations[0].longitude",
              "Longitude must be between -180 and 180 degrees; got inf", index: 0)
        let noisy = RouteLocation(time: 2, latitude: 0, longitude: 0, verticalAccuracy: 2e9, speed: .nan)
        check(failure([location(1), noisy]), "locations[1].vertical_accuracy",
              "Route location vertical_accuracy must be a finite number within ±1e9; got 2000000000.0", index: 1)
        let fullCircle = RouteLocation(time: 1, latitude: 0, longitude: 0, course: 360)
        check(failure([fullCircle]), "locations[0].course", "Course must be below 360 degrees (negative when not known); got 360.0", index: 0)
        check(failure([location(10), location(20), location(20)], after: 5), "locations[2].time",
              "Route locations must be in time order: location at 20 µs is not after the previous one at 20 µs", index: 2)
        check(failure([location(5)], after: 5), "locations[0].time",
              "Route locations must be in time order: location at 5 µs is not after the previous one at 5 µs", index: 0)
    }

    func testARouteMustLieInsideItsWorkout() {
        XCTAssertNoThrow(try SeriesRules.checkRoute(first: 10, last: 20, workoutStart: 10, workoutEnd: 20))
        XCTAssertThrowsError(try SeriesRules.checkRoute(first: 9, last: 20, workoutStart: 10, workoutEnd: 20))
        XCTAssertThrowsError(try SeriesRules.checkRoute(first: 10, last: 21, workoutStart: 10, workoutEnd: 20))
    }

    func testBeatRulesKeepOrderAndTheMaximumCount() {
        XCTAssertNoThrow(try SeriesRules.checkBeats([Heartbeat(offset: 0), Heartbeat(offset: 800_000)], count: 0, after: nil))
        XCTAssertThrowsError(try SeriesRules.checkBeats([Heartbeat(offset: -1)], count: 0, after: nil))
        XCTAssertThrowsError(try SeriesRules.checkBeats([Heartbeat(offset: SeriesRules.maximumHeartbeatOffset + 1)], count: 0, after: nil))
        XCTAssertThrowsError(try SeriesRules.checkBeats([Heartbeat(offset: 5)], count: 1, after: 5))
        let full = (0..<2).map { Heartbeat(offset: Int64($0)) }
        XCTAssertThrowsError(try SeriesRules.checkBeats(full, count: SeriesRules.maximumHeartbeats - 1, after: nil)) { error in
            XCTAssertEqual((error as? HealthError)?.code, .dataSizeExceeded)
        }
    }
}

import Foundation
import HealthModel
@testable import HealthStorage
import XCTest

/// Series points are stored in packed chunks: appended batch by batch across chunk boundaries, read
/// back in any batch size exactly as given (on the store's grid), checked for order against what is
/// already stored, and kept per owner.
final class SeriesStorageTests: StoreTestCase {
    private static func route(_ count: Int, from first: Int = 0) -> [RouteLocation] {
        (first..<first + count).map { i in
            RouteLocation(time: 1_700_000_000_000_000 + Int64(i) * 1_000_000, latitude: 47.37 + Double(i) * 0.000027,
                          longitude: 8.54 + Double(i) * 0.000013, altitude: 400 + Double(i % 20) * 0.25,
                          horizontalAccuracy: 5, verticalAccuracy: 4, course: 26.5, courseAccuracy: 12,
                          speed: 3.1, speedAccuracy: 0.4).onGrid
        }
    }

    func testRouteBatchesAcrossChunksReadBackInAnyBatchSize() async throws {
        try await forEachEngine {
            let f = try await StoreFixture()
            let route = UUID()
            let all = Self.route(2_500)
            var stored = 0
            for batch in [all[0..<10], all[10..<1_030], all[1_030..<2_500]] {
                stored = try await f.store.appendRouteLocations(owner: f.owner, route: route, Array(batch))
            }
            XCTAssertEqual(stored, 2_500)
            var read: [RouteLocation] = []
            while true {
                let batch: [RouteLocation] = try await f.store.seriesPoints(owner: f.owner, series: route, from: read.count, limit: 700)
                if batch.isEmpty { break }
                read += batch
            }
            XCTAssertEqual(read, all)
            let middle: [RouteLocation] = try await f.store.seriesPoints(owner: f.owner, series: route, from: 1_020, limit: 10)
            XCTAssertEqual(middle, Array(all[1_020..<1_030]))
            let packed = try await f.store.seriesPackedBytes()
            XCTAssertLessThanOrEqual(packed, 24 * 2_500)
        }
    }

    func testAnOutOfOrderBatchIsRefusedAndStoresNothing() async throws {
        try await forEachEngine {
            let f = try await StoreFixture()
            let route = UUID()
            let all = Self.route(20)
            _ = try await f.store.appendRouteLocations(owner: f.owner, route: route, Array(all[10..<20]))
            do {
                _ = try await f.store.appendRouteLocations(owner: f.owner, route: route, [all[0]])
                XCTFail("an earlier location was accepted")
            } catch let error as HealthError {
                XCTAssertEqual(error.field, "locations[0].time")
            }
            let outOfRange = RouteLocation(time: all[19].time + 1, latitude: 91, longitude: 0)
            do {
                _ = try await f.store.appendRouteLocations(owner: f.owner, route: route, [outOfRange])
                XCTFail("a latitude of 91° was accepted")
            } catch let error as HealthError {
                XCTAssertEqual(error.field, "locations[0].latitude")
            }
            let read: [RouteLocation] = try await f.store.seriesPoints(owner: f.owner, series: route, from: 0, limit: 100)
            XCTAssertEqual(read, Array(all[10..<20]))
        }
    }

    func testHeartbeatsKeepGapsAndTheMaximumCount() async throws {
        try await forEachEngine {
            let f = try await StoreFixture()
            let series = UUID()
            let beats = (0..<SeriesRules.maximumHeartbeats).map { Heartbeat(offset: Int64($0) * 810_000, precededByGap: $0 == 40) }
            _ = try await f.store.appendHeartbeats(owner: f.owner, series: series, Array(beats.prefix(600)))
            let count = try await f.store.appendHeartbeats(owner: f.owner, series: series, Array(beats.dropFirst(600)))
            XCTAssertEqual(count, beats.count)
            do {
                _ = try await f.store.appendHeartbeats(owner: f.owner, series: series, [Heartbeat(offset: Int64.max / 4)])
                XCTFail("a beat past the maximum count was accepted")
            } catch let error as HealthError {
                XCTAssertEqual(error.code, .dataSizeExceeded)
            }
            let read: [Heartbeat] = try await f.store.seriesPoints(owner: f.owner, series: series, from: 0, limit: 5_000)
            XCTAssertEqual(read, beats)
            let packed = try await f.store.seriesPackedBytes()
            XCTAssertLessThanOrEqual(packed, Int64(12 * beats.count))
        }
    }

    func testAnotherOwnerSeesNoPointsOfTheSeries() async throws {
        try await forEachEngine {
            let f = try await StoreFixture()
            let route = UUID()
            _ = try await f.store.appendRouteLocations(owner: f.owner, route: route, Self.route(5))
            let (other, _) = try await f.store.addOwner(name: "other")
            let read: [RouteLocation] = try await f.store.seriesPoints(owner: other, series: route, from: 0, limit: 10)
            XCTAssertEqual(read, [])
        }
    }

    func testAStoreFromStep9OpensAndStoresSeries() async throws {
        let f = try await StoreFixture()
        await f.store.close()
        do {
            let db = try SQLiteConnection(path: f.path, readOnly: false)
            try db.execute("DROP TABLE series_builders; DROP TABLE series_chunks; PRAGMA user_version = 9")
        }
        try await f.reopen()
        let route = UUID()
        let stored = try await f.store.appendRouteLocations(owner: f.owner, route: route, Self.route(3))
        XCTAssertEqual(stored, 3)
        await f.store.close()
    }
}

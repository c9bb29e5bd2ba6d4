import Foundation
import HealthModel
import XCTest
@testable import HealthWire

/// A discrete series sample's minimum, maximum and most recent point, and quantity series points,
/// survive the wire.
final class QuantitySeriesWireTests: XCTestCase {
    private let summary = DiscreteSeriesSummary(minimum: Quantity(58, "count/min"), maximum: Quantity(131, "count/min"),
                                                mostRecent: Quantity(96, "count/min"), mostRecentStart: 1_700_000_060_000_000,
                                                mostRecentEnd: 1_700_000_061_000_000)

    func testADiscreteSeriesSampleRoundTrips() throws {
        let series = Sample(uuid: Fixtures.uuid(3), type: "HKQuantityTypeIdentifierHeartRate", start: 1_700_000_000_000_000,
                            end: 1_700_000_061_000_000, body: .quantity(Quantity(88.5, "count/min"), count: 40), discreteSeries: summary)
        let plain = Sample(uuid: Fixtures.uuid(4), type: "HKQuantityTypeIdentifierHeartRate", start: 1, end: 1,
                           body: .quantity(Quantity(60, "count/min"), count: 1))
        let message = ServerMessage(callID: 2, more: false, result: .samples([series, plain]))
        XCTAssertEqual(try WireCodec.decodeServerMessage(WireCodec.encodeServerMessage(message)), message)
    }

    func testQuantitySeriesPointsRoundTrip() throws {
        let points = [QuantitySeriesPoint(Quantity(12, "count"), start: 10, end: 20),
                      QuantitySeriesPoint(Quantity(0.5, "km"), start: 20)]
        let arena = WireArena()
        let list = arena.list(points, arena.quantitySeriesPoint)
        XCTAssertEqual(try WireDecode.quantitySeriesPoints(list.items, list.count, "quantities"), points)
    }

    func testAPointWithoutAQuantityIsNamed() throws {
        let arena = WireArena()
        let list = arena.list([QuantitySeriesPoint(Quantity(1, "count"), start: 0)], arena.quantitySeriesPoint)
        list.items?[0]?.pointee.quantity = nil
        XCTAssertThrowsError(try WireDecode.quantitySeriesPoints(list.items, list.count, "quantities")) { error in
            XCTAssertEqual((error as? HealthError)?.field, "quantities[0].quantity")
        }
    }
}

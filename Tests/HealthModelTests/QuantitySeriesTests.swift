import Foundation
import HealthSimulator
import XCTest
@testable import HealthModel

/// Quantity series: the packed form is lossless and compact, the builder's rules are HealthKit's, and
/// finishing makes the cumulative sum or the discrete average with its minimum, maximum and most recent.
final class QuantitySeriesTests: XCTestCase {
    private let t0: Microseconds = 1_700_000_000_000_000
    private var heartRate: HealthType { TypeCatalog.type("HKQuantityTypeIdentifierHeartRate")! }
    private var steps: HealthType { TypeCatalog.type("HKQuantityTypeIdentifierStepCount")! }

    private func bpm(_ value: Double, at offset: Microseconds) -> QuantitySeriesPoint {
        QuantitySeriesPoint(Quantity(value, "count/min"), start: t0 + offset)
    }

    func testPackingIsLosslessForAwkwardValuesIntervalsAndUnits() throws {
        let points = [
            QuantitySeriesPoint(Quantity(1.0 / 3.0, "count/min"), start: t0, end: t0 + 5),
            QuantitySeriesPoint(Quantity(-0.125, "count/min"), start: t0 + 7, end: t0 + 7),
            QuantitySeriesPoint(Quantity(1e-9, "count/min"), start: t0 + 1_000_000, end: t0 + 3_000_000),
            QuantitySeriesPoint(Quantity(123_456_789.25, "count/min"), start: t0 + 1_000_001, end: t0 + 9_000_000),
            QuantitySeriesPoint(Quantity(72, "count/min"), start: t0 + 1_000_002),
        ]
        let bytes = QuantitySeriesPoint.pack(points)
        XCTAssertEqual(try QuantitySeriesPoint.unpack(bytes, count: points.count), points)
        // A later point in another unit is kept in the chunk's unit (the first point's).
        let mixed = QuantitySeriesPoint.pack([bpm(60, at: 0), QuantitySeriesPoint(Quantity(2, "count/s"), start: t0 + 1)])
        XCTAssertEqual(try QuantitySeriesPoint.unpack(mixed, count: 2).map(\.quantity), [Quantity(60, "count/min"), Quantity(120, "count/min")])
        XCTAssertThrowsError(try QuantitySeriesPoint.unpack(Array(bytes.dropLast()), count: points.count))
    }

    func testARealisticSeriesPacksInAtMost12BytesAPoint() throws {
        var random = SplitMix64(seed: 16)
        var offset: Microseconds = 0
        var heart: [QuantitySeriesPoint] = [], stepPoints: [QuantitySeriesPoint] = []
        for _ in 0..<100_000 {
            let gap = Int64.random(in: 1_000_000...5_000_000, using: &random)
            heart.append(bpm(Double(Int.random(in: 60...160, using: &random)), at: offset))
            stepPoints.append(QuantitySeriesPoint(Quantity(Double(Int.random(in: 0...12, using: &random)), "count"),
                                                  start: t0 + offset, end: t0 + offset + gap))
            offset += gap
        }
        for series in [heart, stepPoints] {
            var bytes = 0
            for chunk in stride(from: 0, to: series.count, by: 1_024) {
                let points = Array(series[chunk..<min(chunk + 1_024, series.count)])
                let packed = QuantitySeriesPoint.pack(points)
                XCTAssertEqual(try QuantitySeriesPoint.unpack(packed, count: points.count), points)
                bytes += packed.count
            }
            XCTAssertLessThanOrEqual(Double(bytes) / Double(series.count), 12)
        }
    }

    func testPointsMustBeValidInStartOrderAndNotBeforeTheBuilder() throws {
        func field(_ points: [QuantitySeriesPoint], last: Microseconds? = nil, type: HealthType? = nil) -> String? {
            do {
                _ = try QuantitySeriesRules.accept(points, type: type ?? heartRate, builderStart: t0, lastStart: last)
                return nil
            } catch {
                return error.field
            }
        }
        XCTAssertEqual(field([bpm(60, at: -1)]), "quantities[0].start_time")
        XCTAssertEqual(field([bpm(60, at: 5), bpm(61, at: 4)]), "quantities[1].start_time")
        XCTAssertEqual(field([bpm(60, at: 5)], last: t0 + 6), "quantities[0].start_time")
        XCTAssertEqual(field([QuantitySeriesPoint(Quantity(60, "kg"), start: t0)]), "quantities[0].quantity.unit")
        XCTAssertEqual(field([bpm(.nan, at: 0)]), "quantities[0].quantity.value")
        XCTAssertEqual(field([bpm(5_000, at: 0)]), "quantities[0].quantity.value")
        XCTAssertEqual(field([QuantitySeriesPoint(Quantity(60, "count/min"), start: t0 + 5, end: t0 + 4)]), "quantities[0].end_time")
        XCTAssertEqual(field([bpm(60, at: 0)], type: TypeCatalog.workoutType), "type")
        XCTAssertNil(field([bpm(60, at: 0), bpm(61, at: 1)], last: t0))
    }

    func testAPointStartingWhereThePreviousStartsReplacesIt() throws {
        let within = try QuantitySeriesRules.accept([bpm(60, at: 0), bpm(61, at: 0), bpm(62, at: 1)], type: heartRate,
                                                    builderStart: t0, lastStart: nil)
        XCTAssertEqual(within.points, [bpm(61, at: 0), bpm(62, at: 1)])
        XCTAssertFalse(within.replacesLast)
        let across = try QuantitySeriesRules.accept([bpm(63, at: 1), bpm(64, at: 2)], type: heartRate, builderStart: t0, lastStart: t0 + 1)
        XCTAssertTrue(across.replacesLast)
        XCTAssertEqual(across.points.count, 2)
    }

    func testADiscreteSeriesFinishesIntoItsAverageWithMinimumMaximumAndMostRecent() throws {
        var summary = try QuantitySeriesSummary(type: heartRate)
        try summary.add([bpm(60, at: 0), bpm(80, at: 10_000_000)])
        try summary.add([QuantitySeriesPoint(Quantity(70, "count/min"), start: t0 + 20_000_000, end: t0 + 25_000_000)])
        let uuid = UUID()
        let sample = try summary.sample(uuid: uuid, start: t0, end: nil, metadata: [:], device: nil)
        XCTAssertEqual(sample.uuid, uuid)
        XCTAssertEqual(sample.body, .quantity(Quantity(70, "count/min"), count: 3))
        XCTAssertEqual(sample.end, t0 + 25_000_000, "without an end date the series ends with its last point")
        XCTAssertEqual(sample.discreteSeries, DiscreteSeriesSummary(minimum: Quantity(60, "count/min"), maximum: Quantity(80, "count/min"),
                                                                    mostRecent: Quantity(70, "count/min"), mostRecentStart: t0 + 20_000_000,
                                                                    mostRecentEnd: t0 + 25_000_000))
        XCTAssertThrowsError(try summary.sample(uuid: uuid, start: t0, end: t0 + 24_000_000, metadata: [:], device: nil)) { error in
            XCTAssertEqual((error as? HealthError)?.field, "end_time")
        }
        XCTAssertThrowsError(try SampleValidator.validate([sample]), "a client cannot save the server's series summary") { error in
            XCTAssertEqual((error as? HealthError)?.field, "quantity.minimum")
        }
    }

    func testTheJSONFormCarriesTheDiscreteSummaryOnlyWhereThereIsOne() throws {
        var summary = try QuantitySeriesSummary(type: heartRate)
        try summary.add([bpm(60, at: 0), bpm(80, at: 1_000_000)])
        let series = try summary.sample(uuid: UUID(), start: t0, end: nil, metadata: [:], device: nil)
        let plain = Sample(type: heartRate.identifier, start: t0, end: t0, body: .quantity(Quantity(60, "count/min"), count: 1))
        guard case .object(let fields) = SampleJSON.sample(series), case .object(let discrete)? = fields["discrete_series"] else {
            return XCTFail("no discrete_series in \(SampleJSON.sample(series))")
        }
        XCTAssertEqual(discrete["most_recent"], SampleJSON.quantity(Quantity(80, "count/min")))
        XCTAssertEqual(discrete["most_recent_start_micros"], .int(t0 + 1_000_000))
        guard case .object(let plainFields) = SampleJSON.sample(plain) else { return XCTFail("not an object") }
        XCTAssertNil(plainFields["discrete_series"])
        var cache = SampleJSON.LineCache()
        var bytes = LineBuffer()
        for sample in [series, plain] { SampleJSON.writeLine(sample, zone: nil, cache: &cache, to: &bytes) }
        XCTAssertEqual(String(decoding: bytes.bytes, as: UTF8.self),
                       [series, plain].map { SampleJSON.sample($0).text(pretty: false) + "\n" }.joined())
    }

    func testACumulativeSeriesFinishesIntoTheSumOfItsPoints() throws {
        var summary = try QuantitySeriesSummary(type: steps)
        try summary.add((0..<10).map { QuantitySeriesPoint(Quantity(Double($0), "count"), start: t0 + Int64($0) * 1_000_000, end: t0 + Int64($0 + 1) * 1_000_000) })
        let sample = try summary.sample(uuid: UUID(), start: t0, end: t0 + 3_600_000_000, metadata: [:], device: nil)
        XCTAssertEqual(sample.body, .quantity(Quantity(45, "count"), count: 10))
        XCTAssertEqual(sample.end, t0 + 3_600_000_000)
        XCTAssertNil(sample.discreteSeries)
        let empty = try QuantitySeriesSummary(type: steps)
        XCTAssertThrowsError(try empty.sample(uuid: UUID(), start: t0, end: nil, metadata: [:], device: nil)) { error in
            XCTAssertEqual((error as? HealthError)?.field, "builder_id")
        }
    }
}

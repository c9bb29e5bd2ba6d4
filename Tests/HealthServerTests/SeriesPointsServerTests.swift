import Foundation
import HealthClient
import HealthModel
import HealthWire
import XCTest

/// The point kinds beside routes and beats through a real healthd and the Swift client: a quantity
/// series built with InsertSeriesData/FinishSeries and read back by sample and by type and predicate
/// (HKQuantitySeriesSampleQuery), counted by its points in a statistics collection; an
/// electrocardiogram's voltages streamed with QuerySeriesData (HKElectrocardiogramQuery).
final class SeriesPointsServerTests: XCTestCase {
    private let t0 = Q.at("2024-06-03T08:00:00Z")
    private static let steps = Q.steps

    private func connected(_ server: ServerProcess, _ bundleID: String) async throws -> HealthConnection {
        let owner = try RawClient.session(server, token: server.ownerToken)
        let token = try owner.registerApp(bundleID)
        return try await HealthConnection.connect(to: .tcp(host: "127.0.0.1", port: server.port), hello: Hello(token: token))
    }

    func testAQuantitySeriesIsBuiltFinishedAndReadBackByItsPoints() async throws {
        let server = try ServerProcess(extraArguments: ["--authorization-policy", "allow-all"])
        let app = try await connected(server, "com.example.pedometer")
        try await app.requestAuthorization(share: [Self.steps], read: [Self.steps])
        let points = (0..<60).map { i in
            QuantitySeriesPoint(Quantity(20, "count"), start: t0 + Int64(i) * Q.minute, end: t0 + Int64(i + 1) * Q.minute)
        }
        let builder = app.quantitySeriesBuilder(type: try XCTUnwrap(TypeCatalog.type(Self.steps)), start: t0)
        let first = try await builder.insert(Array(points[..<25]))
        let all = try await builder.insert(Array(points[25...]))
        XCTAssertEqual([first, all], [25, 60])
        let maybeFinished = try await builder.finish(end: t0 + 2 * Q.hour)
        let finished = try XCTUnwrap(maybeFinished)
        XCTAssertEqual(finished.uuid, builder.id)
        guard case .quantity(let sum, let count) = finished.body else { return XCTFail("not a quantity sample: \(finished)") }
        XCTAssertEqual(try sum.value(in: "count"), 1_200)
        XCTAssertEqual(count, 60)
        do {
            _ = try await builder.finish()
            XCTFail("a builder finished twice")
        } catch let error as HealthError {
            XCTAssertEqual(error.code, .invalidArgument)
        }

        let readBack = try await app.seriesPoints(of: builder.id, as: QuantitySeriesPoint.self)
        XCTAssertEqual(readBack, points)
        let plain = Sample(type: Self.steps, start: t0 + 3 * Q.hour, end: t0 + 3 * Q.hour + Q.minute,
                           body: .quantity(Quantity(42, "count"), count: 1))
        _ = try await app.save([plain])
        var bySample: [UUID: [QuantitySeriesPoint]] = [:]
        var done: [UUID] = []
        for try await page in app.quantitySeriesData(type: Self.steps, batchSize: 16) {
            bySample[page.sampleUUID, default: []] += QuantitySeriesPoint.points(of: page.points) ?? []
            if page.sampleDone { done.append(page.sampleUUID) }
        }
        XCTAssertEqual(done, [builder.id, plain.uuid], "each sample's last page is marked, in start order")
        XCTAssertEqual(bySample[builder.id], points)
        XCTAssertEqual(bySample[plain.uuid], [QuantitySeriesPoint(Quantity(42, "count"), start: plain.start, end: plain.end)],
                       "an ordinary sample is its own one point")

        let owner = try RawClient.session(server, token: server.ownerToken)
        let hourly = try owner.collection(StatisticsCollectionQuery(type: Self.steps, options: .cumulativeSum, anchor: t0,
                                                                    interval: IntervalComponents(hours: 1), timeZone: "UTC",
                                                                    from: t0, to: t0 + 2 * Q.hour - 1))
        XCTAssertEqual(try hourly.map { try Q.value($0.sum, "count") }, [1_200, nil], "split by the points, not by the interval")
    }

    func testAnElectrocardiogramsVoltagesAreStreamedToAReader() async throws {
        let server = try ServerProcess(extraArguments: ["--authorization-policy", "allow-all"])
        let owner = try RawClient.session(server, token: server.ownerToken)
        let voltages = (0..<3_000).map { i in
            VoltageMeasurement(offset: Int64((Double(i) * 1e6 / 512).rounded()), microvolts: Double(i % 40) * 2.5 - 50).onGrid
        }
        let recording = Sample(type: TypeCatalog.electrocardiogramType.identifier, start: t0, end: t0 + 30 * Time.microsPerSecond,
                               body: .electrocardiogram(Electrocardiogram(classification: 1, samplingFrequency: Quantity(512, "Hz"),
                                                                          voltages: voltages)))
        XCTAssertEqual(owner.call(.saveObjects([recording])), .saveObjects([.stored]))
        let reader = try await connected(server, "com.example.cardio")
        do {
            _ = try await reader.seriesPoints(of: recording.uuid, as: VoltageMeasurement.self)
            XCTFail("an app that asked about no type with points read some")
        } catch let error as HealthError {
            XCTAssertEqual(error.code, .authorizationNotDetermined)
            XCTAssertTrue(error.message.contains("more; call RequestAuthorization first"), error.message)
        }
        try await reader.requestAuthorization(share: [], read: [Q.heartRate])
        let denied = try await reader.seriesPoints(of: recording.uuid, as: VoltageMeasurement.self)
        XCTAssertEqual(denied, [], "ECG read not requested: no voltages, as if there were no recording")
        try await reader.requestAuthorization(share: [], read: [TypeCatalog.electrocardiogramType.identifier])
        var pages = 0
        var read: [VoltageMeasurement] = []
        for try await page in reader.seriesData(of: recording.uuid, as: VoltageMeasurement.self, batchSize: 1_000) {
            pages += 1
            read += page
        }
        XCTAssertEqual(read, voltages)
        XCTAssertEqual(pages, 3)
    }
}

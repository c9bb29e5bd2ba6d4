import Foundation
import HealthModel
import HealthWire
import XCTest

/// Builders and call wrappers for the query-family tests.
enum Q {
    static let steps = Fixtures.stepCount
    static let heartRate = Fixtures.heartRate
    static let minute: Int64 = 60_000_000
    static let hour = 60 * minute
    static let day = 24 * hour

    /// An instant written as ISO 8601 with an offset ("2024-03-31T01:00:00Z").
    static func at(_ iso: String) -> Microseconds {
        guard let date = ISO8601DateFormatter().date(from: iso) else { preconditionFailure("bad date \(iso)") }
        return Time.micros(date)
    }

    static func quantity(_ type: String, _ value: Double, _ unit: String, _ start: Microseconds, _ end: Microseconds,
                         userEntered: Bool = false) -> Sample {
        Sample(type: type, start: start, end: end, metadata: userEntered ? [MetadataKey.wasUserEntered: .bool(true)] : [:],
               body: .quantity(Quantity(value, unit), count: 1))
    }

    static func stepSample(_ value: Double, _ start: Microseconds, _ end: Microseconds, userEntered: Bool = false) -> Sample {
        quantity(steps, value, "count", start, end, userEntered: userEntered)
    }

    /// Value of an optional quantity in `unit` (nil stays nil).
    static func value(_ quantity: Quantity?, _ unit: String) throws -> Double? {
        try quantity.map { try $0.value(in: unit) }
    }
}

extension RawClient {
    /// QueryStatistics' answer: statistics or the error.
    func statistics(_ query: StatisticsQuery) throws -> Result<Statistics, HealthError> {
        switch call(.queryStatistics(query)) {
        case .statistics(let statistics)?: return .success(statistics)
        case .error(let error)?: return .failure(error)
        case let other: throw TestFailure("QueryStatistics answered \(String(describing: other))")
        }
    }

    /// Every bucket of a one-shot QueryStatisticsCollection (pages concatenated).
    func collection(_ query: StatisticsCollectionQuery) throws -> [Statistics] {
        var buckets: [Statistics] = []
        for result in collect(submit(.queryStatisticsCollection(query))) {
            guard case .statisticsCollection(let page, true, _) = result else {
                throw TestFailure("QueryStatisticsCollection answered \(result)")
            }
            buckets += page
        }
        return buckets
    }

    /// Registers an app on this owner connection, connects as it and has it request (and, under the
    /// allow-all policy, receive) share and read access to `types`.
    func connectApp(_ bundleID: String, port: UInt16, types: [String]) throws -> RawClient {
        guard case .appCredential(_, let token)? = call(.registerApp(bundleID: bundleID, name: bundleID)) else {
            throw TestFailure("RegisterApp \(bundleID) failed")
        }
        let app = try RawClient(port: port)
        app.hello(token)
        XCTAssertEqual(app.call(.requestAuthorization(share: types, read: types)), .requestAuthorization)
        return app
    }
}

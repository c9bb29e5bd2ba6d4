import Foundation
import HealthModel
import HealthSimulator
import HealthWire
import XCTest

extension QueryFamilyTests {
    /// Random samples from three apps and the owner (some user-entered) go through the server; its
    /// statistics must equal HealthModel's reference calculator on the same samples and priority order.
    func testServerStatisticsMatchTheReferenceOnRandomData() throws {
        let server = try ServerProcess(extraArguments: ["--authorization-policy", "allow-all"])
        let owner = try RawClient(port: server.port)
        owner.hello(server.ownerToken)
        let steps = Q.steps, hr = Q.heartRate
        let bundles = ["com.example.a", "com.example.b", "com.example.c"]
        var writers: [String: RawClient] = ["com.apple.Health": owner]
        for bundle in bundles { writers[bundle] = try owner.connectApp(bundle, port: server.port, types: [steps, hr]) }

        var random = SplitMix64(seed: 20_240_603)
        let t0 = Q.at("2024-06-03T00:00:00Z"), window = 48 * Q.hour
        var stored: [String: [StatInput]] = [steps: [], hr: []]
        var batches: [String: [Sample]] = [:]
        for (type, count) in [(steps, 400), (hr, 150)] {
            for _ in 0..<count {
                let roll = Int.random(in: 0..<10, using: &random)
                let bundle = roll == 0 ? "com.apple.Health" : bundles[roll % 3]
                let start = t0 + Int64.random(in: 0..<window, using: &random) / Q.minute * Q.minute
                let length = Int.random(in: 0..<10, using: &random) == 0 ? 0 : Int64.random(in: 1...(type == steps ? 120 : 30), using: &random) * Q.minute
                let value = type == steps ? Double(Int.random(in: 0..<500, using: &random)) : Double(Int.random(in: 50...180, using: &random))
                let sample = Q.quantity(type, value, type == steps ? "count" : "count/min", start, start + length, userEntered: roll == 0)
                batches[bundle, default: []].append(sample)
                stored[type]?.append(StatInput(start: start, end: start + length, value: type == steps ? value : value / 60,
                                               sourceBundleID: bundle, wasUserEntered: roll == 0))
            }
        }
        for (bundle, batch) in batches.sorted(by: { $0.key < $1.key }) { try writers[bundle]?.save(batch) }
        owner.call(.setSourcePriority(type: steps, bundleIDs: ["com.example.b", "com.example.a"]))

        for type in [steps, hr] {
            guard case .sourcePriority(_, let order)? = owner.call(.getSourcePriority(type: type)) else { return XCTFail("no priority") }
            let priority = SourcePriorityOrder(ordered: order.map(\.bundleID))
            let healthType = try XCTUnwrap(TypeCatalog.type(type))
            let options: StatisticsOptions = type == steps ? [.cumulativeSum, .mostRecent, .duration, .separateBySource]
                                                           : [.discreteAverage, .discreteMin, .discreteMax, .mostRecent, .separateBySource]
            let inputs = stored[type] ?? []

            // Whole range, then a predicate window.
            let part = DateRange(start: t0 + 6 * Q.hour, end: t0 + 30 * Q.hour)
            for range in [nil, part] {
                let expected = try StatisticsCalculator.compute(type: healthType, samples: inputs.filter { range?.matches(start: $0.start, end: $0.end) ?? true },
                                                                options: options, priority: priority)
                let served = try owner.statistics(StatisticsQuery(type: type, predicate: range.map(QueryPredicate.dateRange), options: options)).get()
                assertSame(served, expected, "\(type) \(String(describing: range))")
            }

            // Hourly buckets in New York and daily ones in Kolkata (a half-hour offset).
            for (zone, interval) in [("America/New_York", IntervalComponents(hours: 1)), ("Asia/Kolkata", IntervalComponents(days: 1))] {
                let buckets = try CalendarBuckets(anchor: t0, components: interval, timeZone: zone, calendar: nil)
                let expected = try StatisticsCalculator.collection(type: healthType, samples: inputs, options: options, buckets: buckets,
                                                                   from: t0, to: t0 + window - 1, priority: priority)
                let served = try owner.collection(StatisticsCollectionQuery(type: type, options: options, anchor: t0, interval: interval,
                                                                            timeZone: zone, from: t0, to: t0 + window - 1))
                XCTAssertEqual(served.count, expected.count, "\(type) \(zone)")
                for (s, e) in zip(served, expected) { assertSame(s, e, "\(type) \(zone) bucket \(Time.iso8601(e.start))") }
            }
        }
    }

    /// Equal up to floating-point summation order.
    private func assertSame(_ served: Statistics, _ expected: Statistics, _ context: String, file: StaticString = #filePath, line: UInt = #line) {
        func close(_ a: Quantity?, _ b: Quantity?, _ name: String) {
            switch (a, b) {
            case (nil, nil): break
            case let (a?, b?):
                XCTAssertEqual(a.unit, b.unit, "\(context) \(name) unit", file: file, line: line)
                XCTAssertEqual(a.value, b.value, accuracy: 1e-9 * max(1, abs(b.value)), "\(context) \(name)", file: file, line: line)
            default: XCTFail("\(context) \(name): served \(String(describing: a)), expected \(String(describing: b))", file: file, line: line)
            }
        }
        XCTAssertEqual(served.start, expected.start, "\(context) start", file: file, line: line)
        XCTAssertEqual(served.end, expected.end, "\(context) end", file: file, line: line)
        close(served.sum, expected.sum, "sum")
        close(served.average, expected.average, "average")
        close(served.minimum, expected.minimum, "minimum")
        close(served.maximum, expected.maximum, "maximum")
        close(served.mostRecent, expected.mostRecent, "mostRecent")
        XCTAssertEqual(served.mostRecentInterval, expected.mostRecentInterval, "\(context) mostRecentInterval", file: file, line: line)
        XCTAssertEqual(served.duration ?? -1, expected.duration ?? -1, accuracy: 1e-6, "\(context) duration", file: file, line: line)
        XCTAssertEqual(served.bySource.map(\.source.bundleID), expected.bySource.map(\.source.bundleID), "\(context) sources", file: file, line: line)
        for (s, e) in zip(served.bySource, expected.bySource) {
            close(s.sum, e.sum, "\(e.source.bundleID) sum")
            close(s.average, e.average, "\(e.source.bundleID) average")
            close(s.mostRecent, e.mostRecent, "\(e.source.bundleID) mostRecent")
        }
    }
}

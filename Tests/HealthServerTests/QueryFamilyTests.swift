import Foundation
import HealthModel
import HealthWire
import XCTest

/// Every query kind of docs/semantics.md §6 over the protocol against a real healthd, on hand-computed fixtures.
final class QueryFamilyTests: XCTestCase {
    private let steps = Q.steps, hr = Q.heartRate

    private func ownerConnection(_ server: ServerProcess) throws -> RawClient {
        let owner = try RawClient(port: server.port)
        owner.hello(server.ownerToken)
        return owner
    }

    // MARK: QueryStatistics (docs/semantics.md §6.5, §4.1)

    func testStatisticsOptionsUnitsAndErrors() throws {
        let server = try ServerProcess()
        let owner = try ownerConnection(server)
        let base = Q.at("2024-06-03T08:00:00Z"), m = Q.minute
        try owner.save([
            Q.quantity(hr, 60, "count/min", base, base + 10 * m),
            Q.quantity(hr, 90, "count/min", base + 10 * m, base + 30 * m),
            Q.stepSample(100, base, base + 10 * m),
            Q.stepSample(50, base + 20 * m, base + 30 * m),
            Q.quantity("HKQuantityTypeIdentifierBodyMass", 70, "kg", base, base),
            Q.quantity("HKQuantityTypeIdentifierBodyMass", 72, "kg", base + 30 * m, base + 30 * m),
            Q.quantity("HKQuantityTypeIdentifierEnvironmentalAudioExposure", 60, "dBASPL", base, base + m),
            Q.quantity("HKQuantityTypeIdentifierEnvironmentalAudioExposure", 80, "dBASPL", base + m, base + 2 * m),
        ])

        // Time-weighted heart rate: (60·10 + 90·20) / 30 = 80 /min, not the arithmetic 75.
        let heart = try owner.statistics(StatisticsQuery(type: hr, options: [.discreteAverage, .discreteMin, .discreteMax, .mostRecent, .duration],
                                                         unit: "count/min")).get()
        XCTAssertEqual(try Q.value(heart.average, "count/min") ?? 0, 80, accuracy: 1e-9)
        XCTAssertEqual(try Q.value(heart.minimum, "count/min") ?? 0, 60, accuracy: 1e-9)
        XCTAssertEqual(try Q.value(heart.maximum, "count/min") ?? 0, 90, accuracy: 1e-9)
        XCTAssertEqual(try Q.value(heart.mostRecent, "count/min") ?? 0, 90, accuracy: 1e-9)
        XCTAssertEqual(heart.average?.unit, "count/min")
        XCTAssertEqual(heart.mostRecentInterval, (base + 10 * m)...(base + 30 * m))
        XCTAssertEqual(heart.duration ?? 0, 1800, accuracy: 1e-9)
        XCTAssertEqual(heart.start, base)
        XCTAssertEqual(heart.end, base + 30 * m)
        XCTAssertNil(heart.sum)
        XCTAssertEqual(heart.bySource, [])
        // Without a unit the canonical one (count/s) is used.
        let canonical = try owner.statistics(StatisticsQuery(type: hr, options: .discreteAverage)).get()
        XCTAssertEqual(canonical.average?.unit, "count/s")
        XCTAssertEqual(canonical.average?.value ?? 0, 80.0 / 60, accuracy: 1e-12)

        let walked = try owner.statistics(StatisticsQuery(type: steps, options: [.cumulativeSum, .mostRecent, .duration, .separateBySource])).get()
        XCTAssertEqual(try Q.value(walked.sum, "count"), 150)
        XCTAssertEqual(try Q.value(walked.mostRecent, "count"), 50)
        XCTAssertEqual(walked.duration ?? 0, 1200, accuracy: 1e-9)
        XCTAssertEqual(walked.bySource.map(\.source.bundleID), ["com.apple.Health"])
        XCTAssertEqual(try Q.value(walked.bySource.first?.sum, "count"), 150)
        XCTAssertNil(walked.average)

        // Arithmetic mean of 70 and 72 kg, in pounds.
        let mass = try owner.statistics(StatisticsQuery(type: "HKQuantityTypeIdentifierBodyMass",
                                                        options: [.discreteAverage, .discreteMax], unit: "lb")).get()
        XCTAssertEqual(mass.average?.unit, "lb")
        XCTAssertEqual(mass.average?.value ?? 0, 71 / 0.45359237, accuracy: 1e-9)
        XCTAssertEqual(mass.maximum?.value ?? 0, 72 / 0.45359237, accuracy: 1e-9)

        // Equivalent continuous level: 10·log10((10^6 + 10^8) / 2).
        let noise = try owner.statistics(StatisticsQuery(type: "HKQuantityTypeIdentifierEnvironmentalAudioExposure", options: .discreteAverage)).get()
        XCTAssertEqual(noise.average?.value ?? 0, 10 * log10((1e6 + 1e8) / 2), accuracy: 1e-9)

        // docs/semantics.md §4.1 compatibility, unknown units and non-quantity types are INVALID_ARGUMENT.
        for (type, options, unit) in [(steps, StatisticsOptions.discreteAverage, nil), (steps, .discreteMin, nil), (steps, .discreteMax, nil),
                                      (hr, .cumulativeSum, nil), (steps, .cumulativeSum, "kg"),
                                      ("HKCategoryTypeIdentifierSleepAnalysis", .duration, nil), ("HKWorkoutTypeIdentifier", .duration, nil)] as [(String, StatisticsOptions, String?)] {
            guard case .failure(let error) = try owner.statistics(StatisticsQuery(type: type, options: options, unit: unit)) else {
                XCTFail("\(type) \(options) \(unit ?? "") was accepted"); continue
            }
            XCTAssertEqual(error.code, .invalidArgument, "\(type) \(options)")
        }
        // NO_DATA when nothing matches.
        let later = QueryPredicate.dateRange(DateRange(start: base + Q.day, end: base + 2 * Q.day))
        guard case .failure(let none) = try owner.statistics(StatisticsQuery(type: hr, predicate: later, options: .discreteAverage)) else {
            return XCTFail("no samples still produced statistics")
        }
        XCTAssertEqual(none.code, .noData)
    }

    // MARK: merging (docs/semantics.md decision 5, §6.5.1), QuerySources (§6.8), source priority

    func testSourcesMergeByPriorityAndUserEnteredComesFirst() throws {
        let server = try ServerProcess(extraArguments: ["--authorization-policy", "allow-all"])
        let owner = try ownerConnection(server)
        let phone = try owner.connectApp("com.example.phone", port: server.port, types: [steps])
        let watch = try owner.connectApp("com.example.watch", port: server.port, types: [steps])
        let t = Q.at("2024-06-03T10:00:00Z"), m = Q.minute
        // The phone is seen first, so the watch (newer) ranks above it until the owner orders them.
        try phone.save([Q.stepSample(900, t, t + 10 * m), Q.stepSample(300, t + 10 * m, t + 20 * m)])
        try watch.save([Q.stepSample(1000, t, t + 10 * m)])

        func sum(_ client: RawClient = owner) throws -> Double? {
            try Q.value(client.statistics(StatisticsQuery(type: steps, options: .cumulativeSum)).get().sum, "count")
        }
        // The shared walk counts once (watch), the gap the watch missed is filled by the phone.
        XCTAssertEqual(try sum(), 1300)
        XCTAssertEqual(try sum(phone), 1300, "an app with read access sees the same merge")
        let split = try owner.statistics(StatisticsQuery(type: steps, options: [.cumulativeSum, .separateBySource])).get()
        XCTAssertEqual(try Q.value(split.sum, "count"), 1300, "separateBySource keeps the merged total")
        XCTAssertEqual(split.bySource.map(\.source.bundleID), ["com.example.watch", "com.example.phone"])
        XCTAssertEqual(try split.bySource.map { try Q.value($0.sum, "count") }, [1000, 1200])
        guard case .sourcePriority(_, let defaultOrder)? = owner.call(.getSourcePriority(type: steps)) else { return XCTFail() }
        XCTAssertEqual(defaultOrder.map(\.bundleID), ["com.example.watch", "com.example.phone"])

        // The owner's order wins; apps may not change it.
        XCTAssertEqual(phone.call(.setSourcePriority(type: steps, bundleIDs: ["com.example.phone"]))?.errorCode, .permissionDenied)
        guard case .sourcePriority(_, let set)? = owner.call(.setSourcePriority(type: steps, bundleIDs: ["com.example.phone", "com.example.watch"])) else {
            return XCTFail()
        }
        XCTAssertEqual(set.map(\.bundleID), ["com.example.phone", "com.example.watch"])
        XCTAssertEqual(try sum(), 1200)

        // User-entered samples outrank every source: 10:00–10:05 phone 450, 10:05–10:10 entered 200, 10:10–10:20 phone 300.
        try owner.save([Q.stepSample(200, t + 5 * m, t + 10 * m, userEntered: true)])
        XCTAssertEqual(try sum() ?? 0, 950, accuracy: 1e-9)

        // QuerySources: every source of readable rows, narrowed by the predicate.
        guard case .sources(let all)? = owner.call(.querySources(type: steps, predicate: nil)) else { return XCTFail() }
        XCTAssertEqual(all.map(\.bundleID), ["com.apple.Health", "com.example.phone", "com.example.watch"])
        let gap = QueryPredicate.dateRange(DateRange(start: t + 10 * m, end: t + 20 * m, strictStart: true))
        guard case .sources(let gapSources)? = owner.call(.querySources(type: steps, predicate: gap)) else { return XCTFail() }
        XCTAssertEqual(gapSources.map(\.bundleID), ["com.example.phone"])
    }

    // MARK: QueryStatisticsCollection (docs/semantics.md §6.6)

    func testDayBucketsFollowLocalDaysAcrossDST() throws {
        let server = try ServerProcess()
        let owner = try ownerConnection(server)
        let h = Q.hour
        try owner.save([
            // Berlin: Mar 30 23:00 CET → Mar 31 01:00 CET (2 h across midnight), then Mar 31 23:00 CEST → Apr 1 01:00 CEST.
            Q.stepSample(120, Q.at("2024-03-30T22:00:00Z"), Q.at("2024-03-31T00:00:00Z")),
            Q.stepSample(100, Q.at("2024-03-31T21:00:00Z"), Q.at("2024-03-31T23:00:00Z")),
            // New York: Nov 2 23:00 EDT → Nov 3 01:00 EDT, then 1 h either side of Nov 4 00:00 EST.
            Q.stepSample(80, Q.at("2024-11-03T03:00:00Z"), Q.at("2024-11-03T05:00:00Z")),
            Q.stepSample(60, Q.at("2024-11-04T04:00:00Z"), Q.at("2024-11-04T06:00:00Z")),
        ])
        func days(_ zone: String, anchor: String, from: String, to: String) throws -> [Statistics] {
            try owner.collection(StatisticsCollectionQuery(type: steps, options: .cumulativeSum, anchor: Q.at(anchor),
                                                           interval: IntervalComponents(days: 1), timeZone: zone,
                                                           from: Q.at(from), to: Q.at(to)))
        }
        let berlin = try days("Europe/Berlin", anchor: "2024-03-29T23:00:00Z", from: "2024-03-28T23:00:00Z", to: "2024-04-01T12:00:00Z")
        XCTAssertEqual(berlin.map(\.start), ["2024-03-28T23:00:00Z", "2024-03-29T23:00:00Z", "2024-03-30T23:00:00Z", "2024-03-31T22:00:00Z"].map(Q.at))
        XCTAssertEqual(berlin.map { ($0.end - $0.start) / h }, [24, 24, 23, 24])
        XCTAssertEqual(try berlin.map { try Q.value($0.sum, "count") }, [nil, 60, 110, 50], "the empty day is present; straddling samples split by time")

        let newYork = try days("America/New_York", anchor: "2024-11-02T04:00:00Z", from: "2024-11-02T04:00:00Z", to: "2024-11-04T05:00:00Z")
        XCTAssertEqual(newYork.map(\.start), ["2024-11-02T04:00:00Z", "2024-11-03T04:00:00Z", "2024-11-04T05:00:00Z"].map(Q.at))
        XCTAssertEqual(newYork.map { ($0.end - $0.start) / h }, [24, 25, 24])
        XCTAssertEqual(try newYork.map { try Q.value($0.sum, "count") }, [40, 70, 30])

        // The other two transitions, with no data: every bucket still enumerated.
        let spring = try days("America/New_York", anchor: "2024-03-09T05:00:00Z", from: "2024-03-09T05:00:00Z", to: "2024-03-11T12:00:00Z")
        XCTAssertEqual(spring.map { ($0.end - $0.start) / h }, [24, 23, 24])
        XCTAssertTrue(spring.allSatisfy { $0.sum == nil })
        let autumn = try days("Europe/Berlin", anchor: "2024-10-25T22:00:00Z", from: "2024-10-26T00:00:00Z", to: "2024-10-27T23:00:00Z")
        XCTAssertEqual(autumn.map { ($0.end - $0.start) / h }, [24, 25, 24])
    }

    func testMonthBucketsFromJanuary31AndStrictDateOptions() throws {
        let server = try ServerProcess()
        let owner = try ownerConnection(server)
        // 48 h across the Mar 31 bucket start: 12 h before it, 36 h after.
        try owner.save([Q.stepSample(480, Q.at("2024-03-30T12:00:00Z"), Q.at("2024-04-01T12:00:00Z"))])
        let months = try owner.collection(StatisticsCollectionQuery(
            type: steps, options: .cumulativeSum, anchor: Q.at("2024-01-31T00:00:00Z"), interval: IntervalComponents(months: 1),
            from: Q.at("2024-01-31T00:00:00Z"), to: Q.at("2024-05-15T00:00:00Z")))
        XCTAssertEqual(months.map(\.start), ["2024-01-31T00:00:00Z", "2024-02-29T00:00:00Z", "2024-03-31T00:00:00Z", "2024-04-30T00:00:00Z"].map(Q.at))
        XCTAssertEqual(months.last?.end, Q.at("2024-05-31T00:00:00Z"))
        XCTAssertEqual(try months.map { try Q.value($0.sum, "count") }, [nil, 120, 360, nil])

        // docs/semantics.md §6.1 on a day S…E: a ends at S, b inside, c crosses E, d ends at E.
        let s = Q.at("2024-06-03T00:00:00Z"), e = s + Q.day, h = Q.hour
        try owner.save([Q.stepSample(1, s - h, s), Q.stepSample(10, s, s + h), Q.stepSample(100, e - h / 2, e + h / 2), Q.stepSample(1000, e - h, e)])
        func sum(strictStart: Bool, strictEnd: Bool) throws -> Double? {
            let range = QueryPredicate.dateRange(DateRange(start: s, end: e, strictStart: strictStart, strictEnd: strictEnd))
            return try Q.value(owner.statistics(StatisticsQuery(type: steps, predicate: range, options: .cumulativeSum)).get().sum, "count")
        }
        XCTAssertEqual(try sum(strictStart: false, strictEnd: false), 1111)
        XCTAssertEqual(try sum(strictStart: true, strictEnd: false), 1110)
        XCTAssertEqual(try sum(strictStart: false, strictEnd: true), 11)
        XCTAssertEqual(try sum(strictStart: true, strictEnd: true), 10)

        // In a collection the predicate picks samples, the buckets clip them.
        func daily(_ predicate: QueryPredicate?) throws -> [Double?] {
            try owner.collection(StatisticsCollectionQuery(type: steps, predicate: predicate, options: .cumulativeSum, anchor: s,
                                                           interval: IntervalComponents(days: 1), from: s, to: e))
                .map { try Q.value($0.sum, "count") }
        }
        XCTAssertEqual(try daily(nil), [1060, 50])
        XCTAssertEqual(try daily(.dateRange(DateRange(start: s, end: e, strictEnd: true))), [10, nil])

        // Bad collection requests are INVALID_ARGUMENT: unknown zone or calendar, empty interval, reversed or oversized range.
        let bad = [
            StatisticsCollectionQuery(type: steps, options: .cumulativeSum, anchor: s, interval: IntervalComponents(days: 1), timeZone: "Mars/Olympus", from: s, to: e),
            StatisticsCollectionQuery(type: steps, options: .cumulativeSum, anchor: s, interval: IntervalComponents(days: 1), calendar: "klingon", from: s, to: e),
            StatisticsCollectionQuery(type: steps, options: .cumulativeSum, anchor: s, interval: IntervalComponents(), from: s, to: e),
            StatisticsCollectionQuery(type: steps, options: .cumulativeSum, anchor: s, interval: IntervalComponents(days: 1), from: e, to: s),
            StatisticsCollectionQuery(type: steps, options: .cumulativeSum, anchor: s, interval: IntervalComponents(seconds: 1), from: s, to: s + 365 * Q.day),
            StatisticsCollectionQuery(type: steps, options: .discreteMax, anchor: s, interval: IntervalComponents(days: 1), from: s, to: e),
        ]
        for query in bad {
            XCTAssertEqual(owner.call(.queryStatisticsCollection(query))?.errorCode, .invalidArgument, "\(query)")
        }
    }

    func testLongRunningCollectionPushesChangedBucketsAfterSaveAndDelete() throws {
        let server = try ServerProcess()
        let watcher = try ownerConnection(server)
        let writer = try ownerConnection(server)
        let s = Q.at("2024-06-03T00:00:00Z"), h = Q.hour
        let call = watcher.submit(.queryStatisticsCollection(StatisticsCollectionQuery(
            type: steps, options: .cumulativeSum, anchor: s, interval: IntervalComponents(hours: 1), from: s, to: s + 23 * h, updates: true)))
        guard case .statisticsCollection(let initial, true, _)? = watcher.receive(callID: call)?.result else { return XCTFail("no initial buckets") }
        XCTAssertEqual(initial.count, 24)
        XCTAssertTrue(initial.allSatisfy { $0.sum == nil })

        let sample = Q.stepSample(300, s + 10 * h + 30 * Q.minute, s + 11 * h + 30 * Q.minute)
        try writer.save([sample])
        guard case .statisticsCollection(let saved, false, _)? = watcher.receive(callID: call)?.result else { return XCTFail("no update after save") }
        XCTAssertEqual(saved.map(\.start), [s + 10 * h, s + 11 * h])
        XCTAssertEqual(try saved.map { try Q.value($0.sum, "count") }, [150, 150])

        XCTAssertEqual(writer.call(.deleteObjects(.uuids([sample.uuid]))), .deleteObjects(deletedCount: 1))
        guard case .statisticsCollection(let deleted, false, _)? = watcher.receive(callID: call)?.result else { return XCTFail("no update after delete") }
        XCTAssertEqual(deleted.map(\.start), [s + 10 * h, s + 11 * h])
        XCTAssertTrue(deleted.allSatisfy { $0.sum == nil })

        XCTAssertEqual(watcher.call(.cancel(targetCallID: call)), .cancel(cancelled: true))
        XCTAssertEqual(watcher.receive(callID: call)?.result, .callEnded(.cancelled))
    }

    func testNewSourceOrderIsPushedToALiveCollection() throws {
        let server = try ServerProcess(extraArguments: ["--authorization-policy", "allow-all"])
        let owner = try ownerConnection(server)
        let phone = try owner.connectApp("com.example.phone", port: server.port, types: [steps])
        let watch = try owner.connectApp("com.example.watch", port: server.port, types: [steps])
        let t = Q.at("2024-06-03T10:00:00Z"), m = Q.minute
        try phone.save([Q.stepSample(900, t, t + 10 * m)])
        try watch.save([Q.stepSample(1000, t, t + 10 * m)])
        let call = owner.submit(.queryStatisticsCollection(StatisticsCollectionQuery(
            type: steps, options: .cumulativeSum, anchor: t, interval: IntervalComponents(hours: 1), from: t, to: t, updates: true)))
        guard case .statisticsCollection(let initial, true, _)? = owner.receive(callID: call)?.result else { return XCTFail("no initial bucket") }
        XCTAssertEqual(try initial.map { try Q.value($0.sum, "count") }, [1000], "the newer source ranks first")
        XCTAssertEqual(owner.call(.setSourcePriority(type: steps, bundleIDs: ["com.example.phone", "com.example.watch"]))?.errorCode, nil)
        guard case .statisticsCollection(let reordered, false, _)? = owner.receive(callID: call)?.result else { return XCTFail("no update") }
        XCTAssertEqual(try reordered.map { try Q.value($0.sum, "count") }, [900])
    }

    /// Updates recompute only the buckets a change touches; the live copy they keep must stay equal
    /// to a fresh query, whatever the change's place: before `from` inside the first bucket, beyond
    /// the range, or two far-apart samples in one commit.
    func testLongRunningCollectionStaysEqualToAFreshQuery() throws {
        let server = try ServerProcess()
        let watcher = try ownerConnection(server)
        let writer = try ownerConnection(server)
        let s = Q.at("2024-06-03T00:00:00Z"), h = Q.hour, m = Q.minute
        func query(updates: Bool) -> ClientCall {
            .queryStatisticsCollection(StatisticsCollectionQuery(type: steps, options: .cumulativeSum, anchor: s, interval: IntervalComponents(hours: 1),
                                                                 from: s + 30 * m, to: s + 5 * h, updates: updates))
        }
        let call = watcher.submit(query(updates: true))
        guard case .statisticsCollection(var live, true, _)? = watcher.receive(callID: call)?.result else { return XCTFail("no initial buckets") }
        XCTAssertEqual(live.map(\.start), (0...5).map { s + Int64($0) * h })
        func applyNextUpdate() throws -> [Microseconds] {
            guard case .statisticsCollection(let changed, false, _)? = watcher.receive(callID: call)?.result else { throw TestFailure("no update") }
            for bucket in changed { live[try XCTUnwrap(live.firstIndex { $0.start == bucket.start })] = bucket }
            return changed.map(\.start)
        }
        // Before `from`, but inside the first bucket: that bucket counts it.
        try writer.save([Q.stepSample(40, s + 10 * m, s + 11 * m)])
        XCTAssertEqual(try applyNextUpdate(), [s])
        // Beyond the range: nothing to say; the next update is the next change inside it.
        try writer.save([Q.stepSample(70, s + 9 * h, s + 9 * h + m)])
        try writer.save([Q.stepSample(10, s + 14 * m + 2 * h, s + 15 * m + 2 * h)])
        XCTAssertEqual(try applyNextUpdate(), [s + 2 * h])
        // Two far-apart samples in one commit: the buckets between them are unchanged.
        try writer.save([Q.stepSample(20, s + h, s + h + m), Q.stepSample(30, s + 4 * h + 50 * m, s + 5 * h + 10 * m)])
        XCTAssertEqual(try applyNextUpdate(), [s + h, s + 4 * h, s + 5 * h])
        guard case .statisticsCollection(let fresh, true, _)? = writer.call(query(updates: false)) else { return XCTFail("no fresh query") }
        XCTAssertEqual(live, fresh)
        XCTAssertEqual(try live.map { try Q.value($0.sum, "count") }, [40, 20, 10, nil, 15, 15])
    }

    // MARK: QueryCorrelations (docs/semantics.md §6.7)

    func testCorrelationQueryAppliesTheThreeMatchingRules() throws {
        let server = try ServerProcess()
        let owner = try ownerConnection(server)
        let energy = "HKQuantityTypeIdentifierDietaryEnergyConsumed", protein = "HKQuantityTypeIdentifierDietaryProtein"
        func food(_ at: String, _ children: [(String, Double, String)]) -> Sample {
            let t = Q.at(at)
            return Sample(type: "HKCorrelationTypeIdentifierFood", start: t, end: t,
                          body: .correlation(children.map { Q.quantity($0.0, $0.1, $0.2, t, t) }))
        }
        let lunch = food("2024-06-03T12:00:00Z", [(energy, 500, "kcal"), (protein, 20, "g")])
        let snack = food("2024-06-03T15:00:00Z", [(energy, 300, "kcal")])
        let dinner = food("2024-06-03T19:00:00Z", [(energy, 500, "kcal"), (energy, 100, "kcal")])
        try owner.save([lunch, snack, dinner])

        func matching(_ predicate: QueryPredicate? = nil, _ samplePredicates: [TypedPredicate] = []) throws -> Set<UUID> {
            guard case .correlations(let found)? = owner.call(.queryCorrelations(CorrelationQuery(
                type: "HKCorrelationTypeIdentifierFood", predicate: predicate, samplePredicates: samplePredicates))) else {
                throw TestFailure("QueryCorrelations failed")
            }
            return Set(found.map(\.uuid))
        }
        XCTAssertEqual(try matching(), [lunch.uuid, snack.uuid, dinner.uuid])
        // (1) the correlation itself matches the predicate.
        XCTAssertEqual(try matching(.dateRange(DateRange(start: Q.at("2024-06-03T11:00:00Z"), end: Q.at("2024-06-03T16:00:00Z")))),
                       [lunch.uuid, snack.uuid])
        // (2) every keyed type is present.
        XCTAssertEqual(try matching(nil, [TypedPredicate(type: protein)]), [lunch.uuid])
        // (3) every child of a keyed type matches; dinner's 100 kcal fails "≥ 400", its 500 kcal fails "< 400".
        XCTAssertEqual(try matching(nil, [TypedPredicate(type: energy, predicate: .quantity(.greaterThanOrEqual, Quantity(400, "kcal")))]),
                       [lunch.uuid])
        XCTAssertEqual(try matching(nil, [TypedPredicate(type: energy, predicate: .quantity(.lessThan, Quantity(400, "kcal")))]),
                       [snack.uuid])
        // Types without an entry are ignored; entries combine.
        XCTAssertEqual(try matching(nil, [TypedPredicate(type: energy), TypedPredicate(type: protein, predicate: .quantity(.greaterThan, Quantity(10, "g")))]),
                       [lunch.uuid])
        XCTAssertEqual(owner.call(.queryCorrelations(CorrelationQuery(type: "HKCorrelationTypeIdentifierFood",
                                                                     samplePredicates: [TypedPredicate(type: hr)])))?.errorCode, .invalidArgument)
    }

    // MARK: Observe (docs/semantics.md §6.9, decision 9)

    func testObserverEventsAndFrequencyCoalescing() throws {
        let server = try ServerProcess()
        let watcher = try ownerConnection(server)
        let writer = try ownerConnection(server)
        let immediate = watcher.submit(.observe(types: [steps], predicate: nil, frequency: nil))
        let hourly = watcher.submit(.observe(types: [steps, hr], predicate: nil, frequency: .hourly))
        XCTAssertEqual(watcher.receive(callID: immediate)?.result, .observerEvent(changedTypes: [], sequence: 0))
        XCTAssertEqual(watcher.receive(callID: hourly)?.result, .observerEvent(changedTypes: [], sequence: 0))
        let t = Q.at("2024-06-03T10:00:00Z")

        try writer.save([Q.stepSample(10, t, t + Q.minute)])
        XCTAssertEqual(watcher.nextEvent(immediate)?.result, .observerEvent(changedTypes: [steps], sequence: 1))
        XCTAssertEqual(watcher.nextEvent(hourly)?.result, .observerEvent(changedTypes: [steps], sequence: 1))

        // A type the first observer does not watch leaves it silent.
        try writer.save([Q.quantity(hr, 70, "count/min", t, t)])
        try writer.save([Q.stepSample(20, t + Q.minute, t + 2 * Q.minute)])
        XCTAssertEqual(watcher.nextEvent(immediate)?.result, .observerEvent(changedTypes: [steps], sequence: 2))
        // Within the hour the second observer stays silent: both changes wait for its next period.
        watcher.setTimeout(seconds: 1)
        XCTAssertNil(watcher.receive(callID: hourly))
        watcher.setTimeout(seconds: RawClient.defaultTimeout)
        XCTAssertEqual(watcher.call(.cancel(targetCallID: hourly)), .cancel(cancelled: true))
        XCTAssertEqual(watcher.receive(callID: hourly)?.result, .callEnded(.cancelled))
    }

    // MARK: QueryActivitySummaries (docs/semantics.md §6.10)

    func testActivitySummariesPerLocalDayFromStoredSamples() throws {
        let server = try ServerProcess()
        let owner = try ownerConnection(server)
        let energy = "HKQuantityTypeIdentifierActiveEnergyBurned", exercise = "HKQuantityTypeIdentifierAppleExerciseTime"
        let stand = "HKCategoryTypeIdentifierAppleStandHour"
        func standHour(_ at: String, stood: Bool) -> Sample {
            let t = Q.at(at)
            return Sample(type: stand, start: t, end: t + Q.hour, body: .category(stood ? 0 : 1))
        }
        // Berlin days (CEST, UTC+2): Jun 3 runs 2024-06-02T22:00Z … 2024-06-03T22:00Z.
        try owner.save([
            Q.quantity(energy, 200, "kcal", Q.at("2024-06-03T06:00:00Z"), Q.at("2024-06-03T07:00:00Z")),
            Q.quantity(energy, 100, "kcal", Q.at("2024-06-03T21:00:00Z"), Q.at("2024-06-03T23:00:00Z")),
            Q.quantity(exercise, 30, "min", Q.at("2024-06-03T06:00:00Z"), Q.at("2024-06-03T06:30:00Z")),
            Q.quantity(exercise, 0.25, "hr", Q.at("2024-06-04T08:00:00Z"), Q.at("2024-06-04T08:15:00Z")),
            standHour("2024-06-03T06:00:00Z", stood: true), standHour("2024-06-03T07:00:00Z", stood: true),
            standHour("2024-06-03T08:00:00Z", stood: false), standHour("2024-06-04T10:00:00Z", stood: true),
        ])
        guard case .activitySummaries(let days)? = owner.call(.queryActivitySummaries(
            from: CalendarDay(year: 2024, month: 6, day: 3), to: CalendarDay(year: 2024, month: 6, day: 5), timeZone: "Europe/Berlin")) else {
            return XCTFail("no summaries")
        }
        XCTAssertEqual(days.map(\.day.day), [3, 4, 5])
        XCTAssertEqual(try days.map { try $0.activeEnergyBurned.value(in: "kcal") }, [250, 50, 0])
        XCTAssertEqual(try days.map { try $0.exerciseTime.value(in: "min") }, [30, 15, 0])
        XCTAssertEqual(try days.map { try $0.standHours.value(in: "count") }, [2, 1, 0])
    }

    // MARK: workouts (docs/semantics.md §1.7)

    func testWorkoutStatisticsAreDerivedFromAssociatedSamples() throws {
        let server = try ServerProcess()
        let owner = try ownerConnection(server)
        let energy = "HKQuantityTypeIdentifierActiveEnergyBurned", distance = "HKQuantityTypeIdentifierDistanceWalkingRunning"
        let t = Q.at("2024-06-03T09:00:00Z"), m = Q.minute
        let associated = [
            Q.quantity(hr, 60, "count/min", t, t + 10 * m), Q.quantity(hr, 90, "count/min", t + 10 * m, t + 30 * m),
            Q.quantity(energy, 100, "kcal", t, t + 15 * m), Q.quantity(energy, 50, "kcal", t + 15 * m, t + 30 * m),
        ]
        try owner.save(associated)
        let run = Sample(type: "HKWorkoutTypeIdentifier", start: t, end: t + 30 * m, body: .workout(Workout(
            activityType: 37, statistics: [WorkoutStatistic(quantityType: distance, sum: Quantity(5000, "m")),
                                           WorkoutStatistic(quantityType: energy, sum: Quantity(999, "kcal"))],
            associatedSampleUUIDs: associated.map(\.uuid))))
        try owner.save([run])

        let viaSamples = Fixtures.samples(of: owner.collect(owner.submit(.querySamples(SampleQuery(types: ["HKWorkoutTypeIdentifier"])))))
        var viaAnchored: [Sample] = []
        for case .anchored(let page, _, _, _, _, _) in owner.collect(owner.submit(.queryAnchored(AnchoredQuery(types: ["HKWorkoutTypeIdentifier"])))) {
            viaAnchored += page
        }
        for workouts in [viaSamples, viaAnchored] {
            let statistics = try XCTUnwrap(workouts.first?.workout?.statistics)
            let byType = Dictionary(uniqueKeysWithValues: statistics.map { ($0.quantityType, $0) })
            XCTAssertEqual(Set(byType.keys), [distance, energy, hr])
            XCTAssertEqual(try Q.value(byType[distance]?.sum, "m"), 5000, "a client total without associated samples is kept")
            XCTAssertEqual(try Q.value(byType[energy]?.sum, "kcal"), 150, "derived from the associated samples")
            XCTAssertEqual(try Q.value(byType[hr]?.average, "count/min") ?? 0, 80, accuracy: 1e-9)
            XCTAssertEqual(try Q.value(byType[hr]?.minimum, "count/min") ?? 0, 60, accuracy: 1e-9)
            XCTAssertEqual(try Q.value(byType[hr]?.maximum, "count/min") ?? 0, 90, accuracy: 1e-9)
        }
    }

    // MARK: read denial stays invisible (docs/semantics.md decision 7)

    func testReadDeniedAppGetsStatisticsOfItsOwnSamplesOnly() throws {
        let server = try ServerProcess(extraArguments: ["--authorization-policy", "allow-all"])
        let owner = try ownerConnection(server)
        let workoutType = "HKWorkoutTypeIdentifier"
        let band = try owner.connectApp("com.example.band", port: server.port, types: [steps, hr, workoutType])
        XCTAssertEqual(owner.call(.decideAuthorization(bundleID: "com.example.band", decisions: [
            AuthorizationDecision(type: steps, direction: .read, grant: false), AuthorizationDecision(type: hr, direction: .read, grant: false),
        ])), .decideAuthorization(recorded: 2))
        let t = Q.at("2024-06-03T10:00:00Z"), m = Q.minute
        let pulse = Q.quantity(hr, 120, "count/min", t, t + 30 * m)
        try owner.save([Q.stepSample(100, t, t + 10 * m), pulse])
        try owner.save([Sample(type: workoutType, start: t, end: t + 30 * m,
                               body: .workout(Workout(activityType: 37, associatedSampleUUIDs: [pulse.uuid])))])
        try band.save([Q.stepSample(40, t + Q.hour, t + Q.hour + 10 * m)])

        for (client, expected) in [(owner, 140.0), (band, 40.0)] {
            XCTAssertEqual(try Q.value(client.statistics(StatisticsQuery(type: steps, options: .cumulativeSum)).get().sum, "count"), expected)
            let daily = try client.collection(StatisticsCollectionQuery(type: steps, options: .cumulativeSum, anchor: t - 10 * Q.hour,
                                                                        interval: IntervalComponents(days: 1), from: t, to: t))
            XCTAssertEqual(try daily.map { try Q.value($0.sum, "count") }, [expected])
        }
        guard case .sources(let seen)? = band.call(.querySources(type: steps, predicate: nil)) else { return XCTFail() }
        XCTAssertEqual(seen.map(\.bundleID), ["com.example.band"])
        guard case .failure(let hidden) = try band.statistics(StatisticsQuery(type: hr, options: .discreteAverage)) else {
            return XCTFail("someone else's heart rate was visible")
        }
        XCTAssertEqual(hidden.code, .noData, "someone else's heart rate reads as no data")
        // The workout is readable, its heart-rate statistics are not.
        let workouts = Fixtures.samples(of: band.collect(band.submit(.querySamples(SampleQuery(types: [workoutType])))))
        XCTAssertEqual(workouts.map(\.uuid).count, 1)
        XCTAssertEqual(workouts.first?.workout?.statistics, [])
        let ownerView = Fixtures.samples(of: owner.collect(owner.submit(.querySamples(SampleQuery(types: [workoutType])))))
        XCTAssertEqual(ownerView.first?.workout?.statistics.map(\.quantityType), [hr])
    }

    // MARK: paging (docs/semantics.md §6.3, §6.4)

    func testSampleAndAnchoredAnswersStreamInPages() throws {
        let server = try ServerProcess()
        let owner = try ownerConnection(server)
        let t = Q.at("2024-06-03T00:00:00Z")
        let batch = (0..<2500).map { Q.stepSample(Double($0), t + Int64($0) * Q.minute, t + Int64($0 + 1) * Q.minute) }
        try owner.save(batch)
        for call in [ClientCall.querySamples(SampleQuery(types: [steps])), .queryAnchored(AnchoredQuery(types: [steps]))] {
            let id = owner.submit(call)
            var messages: [ServerMessage] = []
            while let message = owner.receive(callID: id) {
                messages.append(message)
                if !message.more { break }
            }
            XCTAssertGreaterThan(messages.count, 1, "\(call)")
            XCTAssertEqual(messages.map(\.more), Array(repeating: true, count: messages.count - 1) + [false])
            var uuids: [UUID] = []
            for message in messages {
                switch message.result {
                case .samples(let page): uuids += page.map(\.uuid)
                case .anchored(let page, _, _, true, _, _): uuids += page.map(\.uuid)
                default: XCTFail("unexpected page \(message.result)")
                }
            }
            XCTAssertEqual(uuids.count, batch.count)
            XCTAssertEqual(Set(uuids), Set(batch.map(\.uuid)))
        }

        // Long-running: every initial page says more follows, so the last one says it ends the
        // initial result; the updates after it never do.
        let live = owner.submit(.queryAnchored(AnchoredQuery(types: [steps], updates: true)))
        var completeFlags: [Bool] = []
        while let message = owner.receive(callID: live), case .anchored(_, _, _, true, let complete, _) = message.result {
            XCTAssertTrue(message.more)
            completeFlags.append(complete)
            if complete { break }
        }
        XCTAssertGreaterThan(completeFlags.count, 1)
        XCTAssertEqual(completeFlags, Array(repeating: false, count: completeFlags.count - 1) + [true])
        try owner.save([Q.stepSample(1, t - Q.minute, t)])
        guard case .anchored(let added, _, _, false, false, _)? = owner.receive(callID: live)?.result else {
            return XCTFail("no update after the initial result")
        }
        XCTAssertEqual(added.count, 1)
    }
}

import XCTest
@testable import HealthModel
import HealthSimulator

private let minute: Microseconds = 60_000_000
private let t0 = utc(2026, 5, 4, 8)
private let steps = TypeCatalog.type("HKQuantityTypeIdentifierStepCount")!
private let heartRate = TypeCatalog.type("HKQuantityTypeIdentifierHeartRate")!
private let bodyMass = TypeCatalog.type("HKQuantityTypeIdentifierBodyMass")!
private let audio = HealthType(identifier: "HKQuantityTypeIdentifierEnvironmentalAudioExposure", kind: .quantity,
                               aggregation: .discreteEquivalentContinuousLevel, canonicalUnit: "dBASPL")
private let watch = "com.apple.health.watch", phone = "com.apple.health.phone", app = "com.example.app"

/// A sample from minute `from` to minute `to` after t0.
private func sample(_ from: Int64, _ to: Int64, _ value: Double, _ source: String, userEntered: Bool = false) -> StatInput {
    StatInput(start: t0 + from * minute, end: t0 + to * minute, value: value, sourceBundleID: source, wasUserEntered: userEntered)
}

private func sum(_ samples: [StatInput], _ priority: SourcePriorityOrder, options: StatisticsOptions = .cumulativeSum) throws -> Statistics {
    try StatisticsCalculator.compute(type: steps, samples: samples, options: options, priority: priority)
}

final class StatisticsMathTests: XCTestCase {
    let watchFirst = SourcePriorityOrder(ordered: [watch, phone])
    let phoneFirst = SourcePriorityOrder(ordered: [phone, watch])

    // MARK: cumulative merging

    func testWatchAndPhoneCountingTheSameWalkCountOnce() throws {
        let walk = [sample(0, 10, 100, watch), sample(0, 10, 100, phone)]
        XCTAssertEqual(try sum(walk, watchFirst).sum, Quantity(100, "count"))
    }

    func testPartialOverlapTakesTheHigherPriorityRate() throws {
        // Watch 10/min over 0–10; phone 20/min over 5–20.
        let walk = [sample(0, 10, 100, watch), sample(5, 20, 300, phone)]
        XCTAssertEqual(try sum(walk, watchFirst).sum?.value ?? 0, 100 + 200, accuracy: 1e-9)
        XCTAssertEqual(try sum(walk, phoneFirst).sum?.value ?? 0, 50 + 300, accuracy: 1e-9)
    }

    func testGapIsFilledByTheLowerPrioritySource() throws {
        // The watch missed minutes 10–20; the phone (20/min) covers them.
        let day = [sample(0, 10, 100, watch), sample(20, 30, 100, watch), sample(0, 30, 600, phone)]
        XCTAssertEqual(try sum(day, watchFirst).sum?.value ?? 0, 400, accuracy: 1e-9)
    }

    func testUserEnteredSamplesWinOverEverySource() throws {
        let walk = [sample(0, 10, 100, watch), sample(0, 10, 50, app, userEntered: true)]
        XCTAssertEqual(try sum(walk, watchFirst).sum, Quantity(50, "count"))
    }

    func testOwnerOrderThenNewestFirstSeen() throws {
        let seen: [String: Microseconds] = [watch: 1, phone: 2, app: 3]
        let unordered = SourcePriorityOrder(firstSeen: seen)
        XCTAssertEqual(unordered.bundleIDs, [app, phone, watch])
        let ordered = SourcePriorityOrder(ordered: [watch], firstSeen: seen)
        XCTAssertEqual(ordered.bundleIDs, [watch, app, phone])
        XCTAssertEqual(ordered.rank(of: watch), 0)
        XCTAssertEqual(ordered.rank(of: "never.seen"), 3)

        let walk = [sample(0, 10, 100, watch), sample(0, 10, 80, phone), sample(0, 10, 60, app)]
        XCTAssertEqual(try sum(walk, unordered).sum, Quantity(60, "count"))
        XCTAssertEqual(try sum(walk, ordered).sum, Quantity(100, "count"))
    }

    func testABackwardsSampleIsIgnored() throws {
        let walk = [sample(0, 10, 100, watch), sample(10, 5, 40, phone)]
        XCTAssertEqual(try sum(walk, phoneFirst, options: [.cumulativeSum, .duration]).sum, Quantity(100, "count"))
    }

    func testSameSourceOverlapsAreSummed() throws {
        let walk = [sample(0, 10, 100, watch), sample(5, 15, 100, watch), sample(0, 15, 900, phone)]
        XCTAssertEqual(try sum(walk, watchFirst).sum?.value ?? 0, 200, accuracy: 1e-9)
    }

    func testInstantaneousSamplesCountWhenTheyWinTheirInstant() throws {
        // The phone's instant at minute 5 lies under the watch's interval; its instant at 20 is alone.
        let walk = [sample(0, 10, 100, watch), sample(5, 5, 7, phone), sample(20, 20, 3, phone), sample(10, 10, 2, watch)]
        XCTAssertEqual(try sum(walk, watchFirst).sum?.value ?? 0, 100 + 3 + 2, accuracy: 1e-9)
        XCTAssertEqual(try sum(walk, phoneFirst).sum?.value ?? 0, 100 + 7 + 3 + 2, accuracy: 1e-9)
    }

    func testSeparateBySourceKeepsTheMergedSumAndListsEachSource() throws {
        let walk = [sample(0, 10, 100, watch), sample(5, 20, 300, phone)]
        let stats = try sum(walk, watchFirst, options: [.cumulativeSum, .separateBySource])
        XCTAssertEqual(stats.sum?.value ?? 0, 300, accuracy: 1e-9)
        XCTAssertEqual(stats.bySource.map(\.source.bundleID), [watch, phone])
        XCTAssertEqual(stats.bySource.map { $0.sum?.value }, [100, 300])
        XCTAssertEqual(try sum(walk, watchFirst).bySource, [])
    }

    /// The sweep's merged sum against a slice-by-slice reference on random overlapping samples from
    /// three sources and user entries, instants included.
    func testMergedSumEqualsASliceBySliceReference() throws {
        var random = SplitMix64(seed: 7)
        let order = SourcePriorityOrder(ordered: [phone], firstSeen: [watch: 1, app: 2])
        for _ in 0..<50 {
            let samples = (0..<40).map { _ -> StatInput in
                let from = Int64.random(in: 0..<120, using: &random)
                let length = Int.random(in: 0..<6, using: &random) == 0 ? 0 : Int64.random(in: 1...30, using: &random)
                return sample(from, from + length, Double(Int.random(in: 1...500, using: &random)), [watch, phone, app][Int.random(in: 0..<3, using: &random)],
                              userEntered: Int.random(in: 0..<8, using: &random) == 0)
            }
            let clip = t0 + 10 * minute..<t0 + 100 * minute
            let ranks = samples.map { order.rank(of: $0) }
            var expected = 0.0
            let bounds = Set(samples.flatMap { [$0.start, $0.end] } + [clip.lowerBound, clip.upperBound]).filter { clip.lowerBound <= $0 && $0 <= clip.upperBound }.sorted()
            for (a, b) in zip(bounds, bounds.dropFirst()) {
                let covering = samples.indices.filter { samples[$0].start <= a && samples[$0].end >= b && samples[$0].duration > 0 }
                guard let best = covering.map({ ranks[$0] }).min() else { continue }
                for i in covering where ranks[i] == best { expected += samples[i].value * Double(b - a) / Double(samples[i].duration) }
            }
            for t in Set(samples.filter { $0.duration == 0 && clip.contains($0.start) }.map(\.start)) {
                let here = samples.indices.filter { samples[$0].start <= t && (samples[$0].end > t || samples[$0].start == samples[$0].end && samples[$0].start == t) }
                let best = here.map { ranks[$0] }.min()
                for i in here where samples[i].duration == 0 && ranks[i] == best { expected += samples[i].value }
            }
            let merged = try XCTUnwrap(CumulativeMerge.mergedSum(samples, clip: clip, priority: order))
            XCTAssertEqual(merged, expected, accuracy: 1e-6 * max(1, expected))
        }
    }

    func testMergedSumNeverExceedsSeparateTotalAndEqualsItWithoutOverlap() throws {
        var rng = SplitMix64(seed: 20_260_504)
        let sources = [watch, phone, app]
        for round in 0..<200 {
            let priority = SourcePriorityOrder(ordered: sources.shuffled(using: &rng))
            var overlapping: [StatInput] = [], disjoint: [StatInput] = []
            for slot in 0..<Int64.random(in: 1...12, using: &rng) {
                let source = sources.randomElement(using: &rng)!
                let start = Int64.random(in: 0...100, using: &rng), length = Int64.random(in: 0...30, using: &rng)
                let value = Double(Int.random(in: 0...500, using: &rng))
                overlapping.append(sample(start, start + length, value, source, userEntered: Bool.random(using: &rng)))
                // Disjoint: each slot of 40 minutes belongs to one source.
                disjoint.append(sample(slot * 40, slot * 40 + 1 + length, value, source))
            }
            for (samples, mustEqual) in [(overlapping, false), (disjoint, true)] {
                let stats = try sum(samples, priority, options: [.cumulativeSum, .separateBySource])
                let merged = stats.sum?.value ?? 0
                let separate = stats.bySource.reduce(0) { $0 + ($1.sum?.value ?? 0) }
                XCTAssertLessThanOrEqual(merged, separate + 1e-6, "round \(round)")
                if mustEqual { XCTAssertEqual(merged, separate, accuracy: 1e-6, "round \(round)") }
            }
        }
    }

    // MARK: discrete statistics

    func testTimeWeightedHeartRate() throws {
        let beats = [StatInput(start: t0, end: t0 + 10 * minute, value: 1.0, sourceBundleID: watch),
                     StatInput(start: t0 + 10 * minute, end: t0 + 40 * minute, value: 1.5, sourceBundleID: watch)]
        let stats = try StatisticsCalculator.compute(type: heartRate, samples: beats,
                                                     options: [.discreteAverage, .discreteMin, .discreteMax], priority: watchFirst)
        XCTAssertEqual(stats.average?.value ?? 0, (10 * 1.0 + 30 * 1.5) / 40, accuracy: 1e-12)
        XCTAssertEqual(stats.minimum, Quantity(1.0, "count/s"))
        XCTAssertEqual(stats.maximum, Quantity(1.5, "count/s"))
        XCTAssertNil(stats.sum)

        let instants = [sample(0, 0, 1.0, watch), sample(5, 5, 2.0, watch)]
        let plain = try StatisticsCalculator.compute(type: heartRate, samples: instants, options: .discreteAverage, priority: watchFirst)
        XCTAssertEqual(plain.average?.value ?? 0, 1.5, accuracy: 1e-12)
    }

    func testArithmeticMean() throws {
        let weights = [sample(0, 0, 70, app), sample(0, 600, 80, app)]
        let stats = try StatisticsCalculator.compute(type: bodyMass, samples: weights, options: .discreteAverage, priority: watchFirst)
        XCTAssertEqual(stats.average, Quantity(75, "kg"))
    }

    func testEquivalentContinuousLevel() throws {
        let levels = [sample(0, 10, 60, watch), sample(10, 20, 70, watch)]
        let stats = try StatisticsCalculator.compute(type: audio, samples: levels, options: .discreteAverage, priority: watchFirst)
        // 10·log10((10^6 + 10^7) / 2) = 10·log10(5.5e6).
        XCTAssertEqual(stats.average?.value ?? 0, 67.40362689494244, accuracy: 1e-9)
        let weighted = [sample(0, 30, 60, watch), sample(30, 40, 70, watch)]
        let leq = try StatisticsCalculator.compute(type: audio, samples: weighted, options: .discreteAverage, priority: watchFirst)
        // 10·log10((3·10^6 + 10^7) / 4) = 10·log10(3.25e6).
        XCTAssertEqual(leq.average?.value ?? 0, 65.11883360978874, accuracy: 1e-9)
    }

    func testDurationIsTheUnionOfIntervals() throws {
        let samples = [sample(0, 10, 1, watch), sample(5, 15, 1, phone), sample(20, 25, 1, watch), sample(22, 22, 1, watch)]
        let stats = try StatisticsCalculator.compute(type: heartRate, samples: samples, options: .duration, priority: watchFirst)
        XCTAssertEqual(stats.duration, 20 * 60)
        XCTAssertEqual(stats.start, t0)
        XCTAssertEqual(stats.end, t0 + 25 * minute)
    }

    func testMostRecentIsTheLatestEndWithDeterministicTies() throws {
        let samples = [sample(0, 30, 1.1, watch), sample(20, 30, 1.2, phone), sample(25, 30, 1.3, watch), sample(0, 20, 1.9, watch)]
        let stats = try StatisticsCalculator.compute(type: heartRate, samples: samples, options: .mostRecent, priority: phoneFirst)
        XCTAssertEqual(stats.mostRecent, Quantity(1.3, "count/s"))
        XCTAssertEqual(stats.mostRecentInterval, (t0 + 25 * minute)...(t0 + 30 * minute))
        let tie = [sample(0, 30, 1.1, watch), sample(0, 30, 1.2, phone)]
        XCTAssertEqual(try StatisticsCalculator.compute(type: heartRate, samples: tie, options: .mostRecent, priority: phoneFirst).mostRecent,
                       Quantity(1.2, "count/s"))
        XCTAssertEqual(try StatisticsCalculator.compute(type: heartRate, samples: tie, options: .mostRecent, priority: watchFirst).mostRecent,
                       Quantity(1.1, "count/s"))
    }

    func testResultsInTheRequestedUnit() throws {
        let beats = [sample(0, 10, 1.0, watch), sample(10, 40, 1.5, watch)]
        let stats = try StatisticsCalculator.compute(type: heartRate, samples: beats, options: [.discreteAverage, .discreteMax, .mostRecent],
                                                     priority: watchFirst, unit: "count/min")
        XCTAssertEqual(stats.average?.value ?? 0, 82.5, accuracy: 1e-9)
        XCTAssertEqual(stats.maximum?.value ?? 0, 90, accuracy: 1e-9)
        XCTAssertEqual(stats.mostRecent?.unit, "count/min")
        let mass = try StatisticsCalculator.compute(type: bodyMass, samples: [sample(0, 0, 75, app)], options: .discreteAverage,
                                                    priority: watchFirst, unit: "lb")
        XCTAssertEqual(mass.average?.value ?? 0, 75 / 0.45359237, accuracy: 1e-9)
    }

    // MARK: rules and errors

    func testOptionCompatibility() {
        XCTAssertThrowsError(try sum([sample(0, 1, 1, watch)], watchFirst, options: .discreteAverage)) { error in
            XCTAssertEqual((error as? HealthError)?.code, .invalidArgument)
            XCTAssertEqual((error as? HealthError)?.message,
                           "Statistics option discreteAverage is not compatible with cumulative data type HKQuantityTypeIdentifierStepCount")
        }
        XCTAssertThrowsError(try StatisticsOptionRules.check(.cumulativeSum, for: heartRate))
        XCTAssertThrowsError(try StatisticsOptionRules.check(.duration, for: TypeCatalog.type("HKCategoryTypeIdentifierSleepAnalysis")!))
        XCTAssertNoThrow(try StatisticsOptionRules.check([.mostRecent, .duration, .separateBySource, .cumulativeSum], for: steps))
        XCTAssertNoThrow(try StatisticsOptionRules.check([.mostRecent, .duration, .separateBySource, .discreteAverage, .discreteMin, .discreteMax], for: heartRate))
    }

    func testNoSamplesIsNoDataAndAnIncompatibleUnitIsRejected() {
        XCTAssertThrowsError(try sum([], watchFirst)) { XCTAssertEqual(($0 as? HealthError)?.code, .noData) }
        XCTAssertThrowsError(try StatisticsCalculator.compute(type: steps, samples: [sample(0, 1, 1, watch)], options: .cumulativeSum,
                                                              priority: watchFirst, unit: "kg")) {
            XCTAssertEqual(($0 as? HealthError)?.code, .invalidArgument)
        }
    }

    // MARK: collections

    func testCollectionApportionsStraddlingSamplesAndListsEmptyBuckets() throws {
        let buckets = try CalendarBuckets(anchor: t0, components: IntervalComponents(hours: 1), timeZone: "Europe/Berlin", calendar: nil)
        // 120 steps over 00:30–02:30 after t0, plus a phone duplicate of the first hour.
        let samples = [sample(30, 150, 120, watch), sample(0, 60, 500, phone)]
        let stats = try StatisticsCalculator.collection(type: steps, samples: samples, options: [.cumulativeSum, .separateBySource],
                                                        buckets: buckets, from: t0 - minute, to: t0 + 200 * minute, priority: watchFirst)
        XCTAssertEqual(stats.map(\.start), (-1...3).map { t0 + Int64($0) * 60 * minute })
        XCTAssertEqual(stats.map { $0.end - $0.start }, Array(repeating: 60 * minute, count: 5))
        XCTAssertEqual(stats.map { $0.sum?.value }, [nil, 250 + 30, 60, 30, nil])
        XCTAssertTrue(stats[0].isEmpty)
        XCTAssertEqual(stats[1].bySource.map { $0.sum?.value }, [30, 500])
    }

    func testSamplesAreFiledUnderEveryBucketTheyOverlapInAnyOrder() throws {
        // Hourly buckets over a New York DST night (a 23-hour day), fed in start order, backwards
        // and in jumps, so that the bucket the last sample started in is sometimes right, sometimes
        // the one before, and sometimes far off.
        let night = utc(2026, 3, 8, 4)
        let buckets = try CalendarBuckets(anchor: night, components: IntervalComponents(hours: 1), timeZone: "America/New_York", calendar: nil)
            .buckets(from: night, to: night + 30 * 60 * minute)
        var ordered: [StatInput] = []
        for offset in stride(from: Int64(-90), to: 31 * 60, by: 7) {
            ordered.append(sample(offset, offset, 1, watch))
            ordered.append(sample(offset, offset + abs(offset) % 150 + 1, 1, watch))
        }
        ordered += buckets.map { StatInput(start: $0.start, end: $0.start, value: 1, sourceBundleID: watch) }
        ordered += buckets.map { StatInput(start: $0.start - minute, end: $0.end, value: 1, sourceBundleID: phone) }
        ordered.sort { $0.start < $1.start }
        for samples in [ordered, ordered.reversed(), ordered.enumerated().sorted { ($0.offset * 7919) % 613 < ($1.offset * 7919) % 613 }.map(\.element)] {
            var grouped = BucketedStatInputs(buckets)
            for sample in samples { grouped.add(sample) }
            let expected = buckets.map { bucket in
                samples.filter { $0.duration == 0 ? bucket.range.contains($0.start) : $0.start < bucket.end && $0.end > bucket.start }
            }
            XCTAssertEqual(grouped.groups, expected)
            XCTAssertEqual(grouped.count, samples.filter { sample in expected.contains { $0.contains(sample) } }.count)
        }
    }

    func testCollectionOfDiscreteValuesClipsWeightsToTheBucket() throws {
        let buckets = try CalendarBuckets(anchor: t0, components: IntervalComponents(hours: 1), timeZone: nil, calendar: nil)
        let samples = [sample(30, 90, 1.0, watch), sample(90, 120, 2.0, watch)]
        let stats = try StatisticsCalculator.collection(type: heartRate, samples: samples, options: [.discreteAverage, .duration, .mostRecent],
                                                        buckets: buckets, from: t0, to: t0 + 61 * minute, priority: watchFirst)
        XCTAssertEqual(stats.count, 2)
        XCTAssertEqual(stats[0].average?.value ?? 0, 1.0, accuracy: 1e-12)
        XCTAssertEqual(stats[0].duration, 30 * 60)
        XCTAssertEqual(stats[1].average?.value ?? 0, (30 * 1.0 + 30 * 2.0) / 60, accuracy: 1e-12)
        XCTAssertEqual(stats[1].mostRecentInterval, (t0 + 90 * minute)...(t0 + 120 * minute))
    }

    func testDailyCollectionOverBerlinDSTApportionsByRealTime() throws {
        let buckets = try CalendarBuckets(anchor: utc(2026, 2, 28, 23), components: IntervalComponents(days: 1),
                                          timeZone: "Europe/Berlin", calendar: "gregorian")
        // 470 steps from 2026-03-29 21:00Z to 2026-03-30 01:00Z: 1 h in the 23-hour day, 3 h in the next.
        let walk = [StatInput(start: utc(2026, 3, 29, 21), end: utc(2026, 3, 30, 1), value: 400, sourceBundleID: watch)]
        let stats = try StatisticsCalculator.collection(type: steps, samples: walk, options: .cumulativeSum, buckets: buckets,
                                                        from: utc(2026, 3, 29, 12), to: utc(2026, 3, 30, 12), priority: watchFirst)
        XCTAssertEqual(stats.map { $0.end - $0.start }, [23 * hourMicros, 24 * hourMicros])
        XCTAssertEqual(stats.map { $0.sum?.value }, [100, 300])
    }

    // MARK: activity summaries

    func testActivitySummariesPerLocalDay() throws {
        let day = CalendarDay(year: 2026, month: 10, day: 25), next = CalendarDay(year: 2026, month: 10, day: 26)
        // 2026-10-25 in Berlin runs 2026-10-24 22:00Z to 2026-10-25 23:00Z (25 hours).
        let energy = [StatInput(start: utc(2026, 10, 25, 22), end: utc(2026, 10, 26, 0), value: 200, sourceBundleID: watch),
                      StatInput(start: utc(2026, 10, 25, 22), end: utc(2026, 10, 26, 0), value: 150, sourceBundleID: phone)]
        let exercise = [StatInput(start: utc(2026, 10, 25, 8), end: utc(2026, 10, 25, 8, 30), value: 30, sourceBundleID: watch)]
        let stand = [CategoryStatInput(start: utc(2026, 10, 25, 8), end: utc(2026, 10, 25, 9), value: 0, sourceBundleID: watch),
                     CategoryStatInput(start: utc(2026, 10, 25, 8, 10), end: utc(2026, 10, 25, 9), value: 0, sourceBundleID: phone),
                     CategoryStatInput(start: utc(2026, 10, 25, 9), end: utc(2026, 10, 25, 10), value: 1, sourceBundleID: watch),
                     CategoryStatInput(start: utc(2026, 10, 25, 22, 30), end: utc(2026, 10, 25, 23), value: 0, sourceBundleID: watch)]
        let summaries = try ActivitySummaryCalculator.summaries(
            from: day, to: next, timeZone: "Europe/Berlin", activeEnergy: energy, energyPriority: watchFirst,
            exerciseTime: exercise, exercisePriority: watchFirst, standHours: stand)
        XCTAssertEqual(summaries.map(\.day), [day, next])
        XCTAssertEqual(summaries[0].activeEnergyBurned.value, 100, accuracy: 1e-9)
        XCTAssertEqual(summaries[1].activeEnergyBurned.value, 100, accuracy: 1e-9)
        XCTAssertEqual(summaries[0].exerciseTime, Quantity(30, "min"))
        XCTAssertEqual(summaries[1].exerciseTime, Quantity(0, "min"))
        XCTAssertEqual(summaries[0].standHours, Quantity(2, "count"))
        XCTAssertEqual(summaries[1].standHours, Quantity(0, "count"))
    }
}

import Foundation
import HealthModel
import HealthWire

/// Runs one input through what healthd does with received bytes, short of the store and sockets:
/// frame splitting, message decoding, then each call's validation in the Dispatcher's order, the
/// in-memory predicate evaluator over sample seeds, the statistics option rules, calendar buckets
/// and the statistics math over synthetic samples. The Dispatcher's own checks are internal to
/// HealthServer (and `@testable` needs a debug build), so the few lines of them that sit before
/// the store are restated here; everything they call is the real HealthModel code.
enum ServerPath {
    /// Most buckets a collection may enumerate here. The server allows 100,000; at a few µs of
    /// calendar arithmetic each, that many would make one input take a second, so larger ranges
    /// stop at the same limit check with a lower bound (everything before it still runs).
    static let bucketLimit = 2_000
    /// Longest activity-summary range computed here, in days, for the same reason.
    static let summaryDayLimit = 2_000

    static func run(_ input: [UInt8], tally: inout Tally) {
        var decoder = FrameDecoder()
        // The split point depends on the input alone, so a saved input replays identically.
        let cut = input.isEmpty ? 0 : (input.count &* 7919 &+ Int(input[input.count - 1])) % input.count
        decoder.append(contentsOf: input[..<cut])
        decoder.append(contentsOf: input[cut...])
        do throws(HealthError) {
            while let payload = try decoder.nextFrame() {
                tally.frames += 1
                handle(payload, tally: &tally)
            }
        } catch {
            tally.record(stage: "frame", error)
        }
    }

    /// What the input's frames decode to, one line each: the call to turn into a regression test.
    static func describe(_ input: [UInt8]) -> String {
        var decoder = FrameDecoder()
        decoder.append(contentsOf: input)
        var lines: [String] = []
        do throws(HealthError) {
            while let payload = try decoder.nextFrame() {
                do throws(HealthError) {
                    lines.append(String(describing: try WireCodec.decodeClientMessage(payload)).prefix(4000) + "")
                } catch {
                    lines.append("undecodable: \(error)")
                }
            }
        } catch {
            lines.append("frame error: \(error)")
        }
        return lines.joined(separator: "\n")
    }

    private static func handle(_ payload: [UInt8], tally: inout Tally) {
        let message: ClientMessage
        do throws(HealthError) {
            message = try WireCodec.decodeClientMessage(payload)
        } catch {
            tally.record(stage: "decode", error)
            return
        }
        let kind = kindName(message.call)
        do throws(HealthError) {
            try check(message.call)
            tally.accept(kind)
        } catch {
            tally.record(stage: kind, error)
        }
    }

    /// The call's case name ("saveObjects").
    static func kindName(_ call: ClientCall) -> String {
        Mirror(reflecting: call).children.first?.label ?? "\(call)"
    }

    // One arm per call, in the Dispatcher's order of checks.
    private static func check(_ call: ClientCall) throws(HealthError) {
        switch call {
        case .hello, .ping, .cancel, .ackObserverEvent, .readCharacteristics, .listApps, .listOwners, .addOwner,
             .listAuthorizationRequests, .listPermissions, .revokeApp, .rotateAppToken, .registerApp, .decideAuthorization:
            return
        case .requestAuthorization(let share, let read), .getRequestStatusForAuthorization(let share, let read):
            guard !share.isEmpty || !read.isEmpty else { throw HealthError.invalid("no types", field: "share_types") }
            for type in share + read { _ = try knownType(type) }
        case .getAuthorizationStatus(let types):
            guard !types.isEmpty else { throw HealthError.invalid("no types", field: "types") }
            for type in types { _ = try knownType(type) }
        case .saveObjects(let objects, _):
            try save(objects)
        case .insertSeriesData(let insert):
            if let type = insert.type { _ = try sampleType(type) }
            switch insert.points {
            case .locations(let locations): try SeriesRules.checkLocations(locations, after: nil)
            case .beats(let beats): try SeriesRules.checkBeats(beats, count: 0, after: nil)
            case .quantities(let points):
                if let type = insert.type.flatMap(TypeCatalog.type), type.kind == .quantity {
                    _ = try QuantitySeriesRules.accept(points, type: type, builderStart: insert.start, lastStart: nil)
                }
            case .voltages: return
            }
        case .finishSeries(let finish):
            // The builder's start is the store's; a route starting at its first location, 1 µs in.
            try SampleValidator.validateFinished(Sample(uuid: finish.builderID, type: TypeCatalog.workoutRouteType.identifier, start: 1,
                                                        end: finish.end ?? 1, metadata: finish.metadata, body: .series(count: 1)))
        case .discardSeries, .querySeriesData:
            return
        case .deleteObjects(.uuids(let uuids)):
            guard !uuids.isEmpty else { throw HealthError.invalid("no uuids", field: "uuids") }
            evaluate(.uuids(Set(uuids)))
        case .deleteObjects(.matching(let type, let predicate)):
            try checkQuery(types: [type], predicate: predicate)
        case .querySamples(let query):
            try checkQuery(types: query.types, predicate: query.predicate)
            guard query.limit >= 0 else { throw HealthError.invalid("negative limit", field: "limit") }
        case .queryAnchored(let query):
            try checkQuery(types: query.types, predicate: query.predicate)
            guard query.limit >= 0, !(query.updates && query.limit > 0) else { throw HealthError.invalid("bad limit", field: "limit") }
        case .querySources(let type, let predicate):
            try checkQuery(types: [type], predicate: predicate)
        case .countSamples(let types, let predicate):
            try checkQuery(types: types, predicate: predicate)
        case .observe(let types, let predicate, let frequency):
            try checkQuery(types: types, predicate: predicate)
            _ = frequency?.periodMicros
        case .queryDevices(let type):
            if let type { _ = try sampleType(type) }
        case .queryStatistics(let query):
            try statistics(query)
        case .queryStatisticsCollection(let query):
            try collection(query)
        case .queryCorrelations(let query):
            try correlations(query)
        case .queryActivitySummaries(let from, let to, let timeZone):
            try activitySummaries(from: from, to: to, timeZone: timeZone)
        case .writeCharacteristics(let update):
            try CharacteristicRules.validate(update)
        case .setSourcePriority(let type, _), .getSourcePriority(let type):
            _ = try knownType(type)
        }
    }

    // MARK: calls

    private static func save(_ objects: [Sample]) throws(HealthError) {
        guard !objects.isEmpty, objects.count <= 10_000 else { throw HealthError.invalid("batch size", field: "objects") }
        for (index, object) in objects.enumerated() where TypeCatalog.type(object.type) == nil {
            throw HealthError(.invalidArgument, "unknown type", objectIndex: index, field: "type")
        }
        try SampleValidator.validate(objects)
        // What reads of the saved objects would compute: predicates over them, statistics of the quantities.
        let context = PredicateContext(associatedWorkouts: [Seeds.uuid(6)])
        for object in objects {
            _ = Seeds.everyLeaf.matches(object, context: context)
            for child in object.correlationObjects ?? [] { _ = Seeds.everyLeaf.matches(child, context: PredicateContext(isInCorrelation: true)) }
        }
        for object in objects {
            guard let type = TypeCatalog.type(object.type), type.kind == .quantity, let unit = type.canonicalUnit,
                  let value = try? object.quantity?.value(in: unit) else { continue }
            let input = StatInput(start: object.start, end: object.end, value: value, sourceBundleID: "com.example.band")
            let options = allowedOptions(type)
            _ = try? StatisticsCalculator.compute(type: type, samples: [input] + syntheticInputs, options: options, priority: priority)
            if TimeRules.supported.contains(object.start) {
                let days = try CalendarBuckets(anchor: 0, components: IntervalComponents(days: 1), timeZone: nil, calendar: nil)
                _ = try StatisticsCalculator.collection(type: type, samples: [input], options: options, buckets: days,
                                                        from: object.start, to: object.start, priority: priority)
            }
        }
    }

    private static func statistics(_ query: StatisticsQuery) throws(HealthError) {
        let type = try quantityType(query.type, predicate: query.predicate, options: query.options)
        if let predicate = query.predicate { evaluate(predicate) }
        do throws(HealthError) {
            _ = try StatisticsCalculator.compute(type: type, samples: syntheticInputs, options: query.options,
                                                 priority: priority, unit: query.unit)
        } catch where error.code == .noData {
            return
        }
    }

    private static func collection(_ query: StatisticsCollectionQuery) throws(HealthError) {
        let type = try quantityType(query.type, predicate: query.predicate, options: query.options)
        try StatisticsCollectionRules.check(anchor: query.anchor, interval: query.interval, from: query.from, to: query.to)
        let buckets = try CalendarBuckets(anchor: query.anchor, components: query.interval, timeZone: query.timeZone,
                                          calendar: query.calendar)
        let enumerated = try buckets.buckets(from: query.from, to: query.to, limit: bucketLimit)
        let (rangeStart, rangeEnd) = (enumerated[0].start, enumerated[enumerated.count - 1].end)
        let overlapping = QueryPredicate.dateRange(DateRange(start: rangeStart, end: rangeEnd))
        evaluate(query.predicate.map { QueryPredicate.allOf([$0, overlapping]) } ?? overlapping)
        _ = try StatisticsCalculator.collection(type: type, samples: syntheticInputs, options: query.options, buckets: buckets,
                                                from: query.from, to: query.to, priority: priority, unit: query.unit)
        // A live update without a span recomputes the whole enumerated range.
        _ = try buckets.buckets(from: rangeStart, to: rangeEnd - 1, limit: bucketLimit)
    }

    private static func correlations(_ query: CorrelationQuery) throws(HealthError) {
        let type = try sampleType(query.type)
        guard type.kind == .correlation, let contents = type.correlationContents else {
            throw HealthError.invalid("not a correlation type", field: "type")
        }
        try query.predicate?.validate(forTypes: [query.type])
        for entry in query.samplePredicates {
            guard contents.contains(entry.type) else { throw HealthError.invalid("not contained", field: "sample_predicates.type") }
            try entry.predicate?.validate(forTypes: [entry.type])
        }
        query.predicate.map(evaluate)
        for entry in query.samplePredicates {
            for child in Seeds.bloodPressure.correlationObjects ?? [] where child.type == entry.type {
                _ = entry.predicate?.matches(child, context: PredicateContext(isInCorrelation: true))
            }
        }
    }

    private static func activitySummaries(from: CalendarDay, to: CalendarDay, timeZone: String?) throws(HealthError) {
        try TimeRules.checkDay(from, field: "from_day")
        try TimeRules.checkDay(to, field: "to_day")
        guard from <= to else { throw HealthError.invalid("from after to", field: "from_day") }
        let first = try CalendarBuckets.days(startingAt: from, timeZone: timeZone)
        let last = try CalendarBuckets.days(startingAt: to, timeZone: timeZone)
        evaluate(.dateRange(DateRange(start: first.anchor, end: last.start(of: 1))))
        guard (last.anchor - first.anchor) / 86_400_000_000 < Int64(summaryDayLimit) else { return }
        let stand = CategoryStatInput(start: first.anchor + 3_600_000_000, end: first.anchor + 3_660_000_000, value: 0,
                                      sourceBundleID: "com.example.watch")
        _ = try ActivitySummaryCalculator.summaries(from: from, to: to, timeZone: timeZone, activeEnergy: syntheticInputs,
                                                    energyPriority: priority, exerciseTime: syntheticInputs,
                                                    exercisePriority: priority, standHours: [stand])
    }

    // MARK: shared checks

    private static func knownType(_ identifier: String) throws(HealthError) -> HealthType {
        guard let type = TypeCatalog.type(identifier) else { throw HealthError.invalid("unknown type", field: "type") }
        return type
    }

    private static func sampleType(_ identifier: String) throws(HealthError) -> HealthType {
        let type = try knownType(identifier)
        guard type.isSampleType else { throw HealthError.invalid("characteristic type", field: "type") }
        return type
    }

    private static func checkQuery(types: [String], predicate: QueryPredicate?) throws(HealthError) {
        guard !types.isEmpty else { throw HealthError.invalid("no types", field: "types") }
        for type in types { _ = try sampleType(type) }
        try predicate?.validate(forTypes: types)
        predicate.map(evaluate)
    }

    private static func quantityType(_ identifier: String, predicate: QueryPredicate?,
                                     options: StatisticsOptions) throws(HealthError) -> HealthType {
        let type = try sampleType(identifier)
        guard type.kind == .quantity else { throw HealthError.invalid("not a quantity type", field: "type") }
        try predicate?.validate(forTypes: [identifier])
        try StatisticsOptionRules.check(options, for: type)
        return type
    }

    // MARK: in-memory data

    /// A validated predicate against every seed sample, correlation children included.
    private static func evaluate(_ predicate: QueryPredicate) {
        let context = PredicateContext(associatedWorkouts: [Seeds.uuid(6)])
        for sample in Seeds.samples {
            _ = predicate.matches(sample, context: context)
            for child in sample.correlationObjects ?? [] { _ = predicate.matches(child, context: PredicateContext(isInCorrelation: true)) }
        }
    }

    private static func allowedOptions(_ type: HealthType) -> StatisticsOptions {
        type.aggregation?.isDiscrete == false ? [.cumulativeSum, .separateBySource, .mostRecent, .duration]
            : [.discreteAverage, .discreteMin, .discreteMax, .separateBySource, .mostRecent, .duration]
    }

    private static let priority = SourcePriorityOrder(ordered: ["com.example.watch"], firstSeen: ["com.example.band": 1])

    /// Overlapping, instantaneous and user-entered samples from two sources, values in canonical units.
    private static let syntheticInputs: [StatInput] = [
        StatInput(start: 1_700_000_000_000_000, end: 1_700_000_060_000_000, value: 61, sourceBundleID: "com.example.band"),
        StatInput(start: 1_700_000_030_000_000, end: 1_700_003_600_000_000, value: 1200, sourceBundleID: "com.example.watch"),
        StatInput(start: 1_700_000_000_000_000, end: 1_700_000_000_000_000, value: 5, sourceBundleID: "com.example.band"),
        StatInput(start: 1_699_990_000_000_000, end: 1_700_090_000_000_000, value: 0.5, sourceBundleID: "com.example.phone",
                  wasUserEntered: true),
    ]
}

import HealthModel
import HealthStorage
import HealthWire

// Statistics, statistics collections and activity summaries (docs/semantics.md §6.5, §6.6, §6.10).
extension Dispatcher {
    func queryStatistics(_ query: StatisticsQuery, _ access: Access) async throws -> ServerResult {
        let type = try quantityType(query.type, predicate: query.predicate, options: query.options)
        let samples = try await store.statisticsSamples(owner: access.owner, type: query.type, predicate: query.predicate, scope: access.scope)
        let priority = try await priorityOrder(owner: access.owner, type: query.type)
        return .statistics(try StatisticsCalculator.compute(type: type, samples: samples, options: query.options,
                                                            priority: priority, unit: query.unit))
    }

    func queryStatisticsCollection(_ query: StatisticsCollectionQuery, _ access: Access, reply: CallReplier) async throws -> ServerResult? {
        let owner = access.owner
        let type = try quantityType(query.type, predicate: query.predicate, options: query.options)
        try StatisticsCollectionRules.check(anchor: query.anchor, interval: query.interval, from: query.from, to: query.to)
        let buckets = try CalendarBuckets(anchor: query.anchor, components: query.interval,
                                          timeZone: query.timeZone, calendar: query.calendar)
        let enumerated = try buckets.buckets(from: query.from, to: query.to)
        let (rangeStart, rangeEnd) = (enumerated[0].start, enumerated[enumerated.count - 1].end)
        // The buckets holding `from`…`to`: only samples overlapping them can count, so the store
        // reads just those (endDate >= first start AND startDate < last end, exactly the samples
        // the buckets clip to).
        let compute = { (from: Microseconds, to: Microseconds) async throws -> [Statistics] in
            let span = try buckets.buckets(from: from, to: to)
            let overlapping = QueryPredicate.dateRange(DateRange(start: span[0].start, end: span[span.count - 1].end))
            let predicate = query.predicate.map { QueryPredicate.allOf([$0, overlapping]) } ?? overlapping
            let grouped = try await self.store.statisticsSamples(owner: owner, type: query.type, predicate: predicate,
                                                                 scope: try await self.currentScope(access),
                                                                 into: BucketedStatInputs(span))
            let priority = try await self.priorityOrder(owner: owner, type: query.type)
            return try StatisticsCalculator.collection(type: type, grouped: grouped, options: query.options,
                                                       priority: priority, unit: query.unit)
        }
        // A new source order changes merged values anywhere: such a change names the type, no span.
        return try await hub.watching(owner: owner, .data, .sourcePriority) { signal in
            var current = try await compute(query.from, query.to)
            try await sendPaged(current, reply: reply, final: !query.updates) {
                .statisticsCollection(buckets: $0, initial: true, initialComplete: $1)
            }
            guard query.updates else { return nil }
            while let changes = await signal.next() {
                guard changes.types.isEmpty || changes.types.contains(query.type) else { continue }
                // Buckets are independent: only those the changed objects overlap are recomputed
                // (all of them when the change carries no span), so a year-long collection
                // following a live stream recomputes the current bucket, not the year.
                let touched = changes.span(of: query.type) ?? TimeSpan(start: rangeStart, end: rangeEnd - 1)
                let (from, to) = (max(rangeStart, touched.start), min(rangeEnd - 1, touched.end))
                guard from <= to else { continue }
                // The same buckets, named by instants inside from…to (the first and last buckets may
                // reach past the supported dates that bucket enumeration accepts).
                let clamp = { (t: Microseconds) in min(max(t, query.from), query.to) }
                try await reply.producing {
                    let next = try await compute(clamp(from), clamp(to))
                    guard let offset = current.firstIndex(where: { $0.start == next[0].start }) else { return }
                    let changedBuckets = zip(current[offset...], next).filter { $0 != $1 }.map(\.1)
                    current.replaceSubrange(offset..<offset + next.count, with: next)
                    guard !changedBuckets.isEmpty else { return }
                    try await sendPaged(changedBuckets, reply: reply, final: false) { buckets, _ in
                        .statisticsCollection(buckets: buckets, initial: false)
                    }
                }
            }
            throw CancellationError()
        }
    }

    func queryActivitySummaries(from: CalendarDay, to: CalendarDay, timeZone: String?, _ access: Access) async throws -> ServerResult {
        let (owner, scope) = (access.owner, access.scope)
        try TimeRules.checkDay(from, field: "from_day")
        try TimeRules.checkDay(to, field: "to_day")
        guard from <= to else {
            throw HealthError.invalid("activity summary range starts \(from.isoString), after its end \(to.isoString)", field: "from_day")
        }
        let first = try CalendarBuckets.days(startingAt: from, timeZone: timeZone)
        let last = try CalendarBuckets.days(startingAt: to, timeZone: timeZone)
        let range = QueryPredicate.dateRange(DateRange(start: first.anchor, end: last.start(of: 1)))
        let (energyType, exerciseType) = (ActivitySummaryCalculator.activeEnergyType, ActivitySummaryCalculator.exerciseTimeType)
        let stands = try await store.querySamples(owner: owner, types: [ActivitySummaryCalculator.standHourType], predicate: range,
                                                  sort: [], limit: 0, scope: scope)
        let energy = try await store.statisticsSamples(owner: owner, type: energyType, predicate: range, scope: scope)
        let energyPriority = try await priorityOrder(owner: owner, type: energyType)
        let exercise = try await store.statisticsSamples(owner: owner, type: exerciseType, predicate: range, scope: scope)
        let exercisePriority = try await priorityOrder(owner: owner, type: exerciseType)
        let standHours = Self.categoryInputs(stands)
        let summaries = try ActivitySummaryCalculator.summaries(
            from: from, to: to, timeZone: timeZone, activeEnergy: energy, energyPriority: energyPriority,
            exerciseTime: exercise, exercisePriority: exercisePriority, standHours: standHours)
        return .activitySummaries(summaries)
    }

    /// Category samples as the activity-summary math takes them. A plain loop on purpose: the same
    /// logic as a compactMap over `categoryValue` inside the async caller crashes the Swift 6.3
    /// optimizer ("Found ownership error", CopyPropagation) in release builds.
    private static func categoryInputs(_ samples: [Sample]) -> [CategoryStatInput] {
        var inputs: [CategoryStatInput] = []
        inputs.reserveCapacity(samples.count)
        for sample in samples {
            guard case .category(let value) = sample.body else { continue }
            inputs.append(CategoryStatInput(start: sample.start, end: sample.end, value: value,
                                            sourceBundleID: sample.sourceRevision?.source.bundleID ?? ""))
        }
        return inputs
    }

    /// A quantity type whose predicate and options are valid for statistics.
    private func quantityType(_ identifier: String, predicate: QueryPredicate?, options: StatisticsOptions) throws(HealthError) -> HealthType {
        let type = try sampleType(identifier)
        guard type.kind == .quantity else {
            throw HealthError.invalid("statistics need a quantity type; \(identifier) is a \(type.kind.rawValue) type", field: "type")
        }
        try predicate?.validate(forTypes: [identifier])
        try StatisticsOptionRules.check(options, for: type)
        return type
    }

    /// The owner's source order for a type, then unordered sources newest first (docs/semantics.md decision 5).
    func priorityOrder(owner: OwnerID, type: String) async throws -> SourcePriorityOrder {
        let ordered = try await store.sourcePriority(owner: owner, type: type)
        let seen = try await store.sourcesFirstSeen(owner: owner, type: type)
        return SourcePriorityOrder(ordered: ordered, firstSeen: Dictionary(seen.map { ($0.0.bundleID, $0.1) }, uniquingKeysWith: min))
    }
}

import Foundation
import HealthModel
import HealthStorage

// HKWorkout.allStatistics, derived from the samples associated with each workout (docs/semantics.md §1.7).
extension Dispatcher {
    /// Workouts as returned to a reader, with statistics derived from their associated samples.
    ///
    /// Rule: for every quantity type among a workout's associated samples that the caller may read,
    /// the workout carries one statistic computed exactly as QueryStatistics would over those samples
    /// (merged by the owner's source priority): the sum for cumulative types; the average, minimum and
    /// maximum for discrete ones; values in the type's canonical unit. Such a derived statistic replaces
    /// a client-supplied total of the same type (HealthKit computes these from the samples); totals the
    /// client supplied for types with no readable associated samples are kept as given (legacy totals).
    func withDerivedWorkoutStatistics(_ samples: [Sample], owner: OwnerID, scope: ReadScope) async throws -> [Sample] {
        let linked = Set(samples.flatMap { $0.workout?.associatedSampleUUIDs ?? [] })
        guard !linked.isEmpty else { return samples }
        let associated = try await store.querySamples(owner: owner, types: TypeCatalog.quantityTypes.map(\.identifier),
                                                      predicate: .uuids(linked), sort: [], limit: 0, scope: scope)
        let byUUID = Dictionary(associated.map { ($0.uuid, $0) }, uniquingKeysWith: { first, _ in first })
        var priorities: [String: SourcePriorityOrder] = [:]
        for type in Set(associated.map(\.type)) { priorities[type] = try await priorityOrder(owner: owner, type: type) }
        // A quantity series counts as its points, as it does in QueryStatistics.
        var points: [UUID: [QuantitySeriesPoint]] = [:]
        for sample in associated {
            guard case .quantity(_, let count) = sample.body, count > 1 else { continue }
            points[sample.uuid] = try await store.quantitySeriesPoints(owner: owner, of: sample, from: 0, limit: .max)
        }

        return try samples.map { sample throws(HealthError) -> Sample in
            guard let workout = sample.workout, !workout.associatedSampleUUIDs.isEmpty else { return sample }
            let derived = try Self.statistics(of: workout.associatedSampleUUIDs.compactMap { byUUID[$0] }, points: points,
                                              priorities: priorities)
            guard !derived.isEmpty else { return sample }
            let derivedTypes = Set(derived.map(\.quantityType))
            let statistics = workout.statistics.filter { !derivedTypes.contains($0.quantityType) } + derived
            let body = Workout(activityType: workout.activityType, duration: workout.duration, events: workout.events,
                               activities: workout.activities, statistics: statistics,
                               associatedSampleUUIDs: workout.associatedSampleUUIDs)
            return Sample(uuid: sample.uuid, type: sample.type, start: sample.start, end: sample.end, metadata: sample.metadata,
                          device: sample.device, sourceRevision: sample.sourceRevision, creationTime: sample.creationTime,
                          body: .workout(body))
        }
    }

    /// `withDerivedWorkoutStatistics` over a table's samples (workouts are never plain rows).
    func withDerivedWorkoutStatistics(_ table: SampleTable, owner: OwnerID, scope: ReadScope) async throws -> SampleTable {
        table.replacingWholes(try await withDerivedWorkoutStatistics(table.wholes, owner: owner, scope: scope))
    }

    /// One statistic per quantity type of `samples` (a series sample as its `points`), ordered by type identifier.
    private static func statistics(of samples: [Sample], points: [UUID: [QuantitySeriesPoint]],
                                   priorities: [String: SourcePriorityOrder]) throws(HealthError) -> [WorkoutStatistic] {
        var result: [WorkoutStatistic] = []
        for (identifier, group) in Dictionary(grouping: samples, by: \.type).sorted(by: { $0.key < $1.key }) {
            guard let type = TypeCatalog.type(identifier), let style = type.aggregation, let canonical = type.canonicalUnit else { continue }
            var inputs: [StatInput] = []
            for sample in group {
                guard let quantity = sample.quantity else { continue }
                for point in points[sample.uuid] ?? [QuantitySeriesPoint(quantity, start: sample.start, end: sample.end)] {
                    inputs.append(StatInput(start: point.start, end: point.end, value: try point.quantity.value(in: canonical),
                                            sourceBundleID: sample.sourceRevision?.source.bundleID ?? "",
                                            sourceName: sample.sourceRevision?.source.name ?? "", wasUserEntered: sample.wasUserEntered))
                }
            }
            guard !inputs.isEmpty else { continue }
            let options: StatisticsOptions = style.isDiscrete ? [.discreteAverage, .discreteMin, .discreteMax] : .cumulativeSum
            let s = try StatisticsCalculator.compute(type: type, samples: inputs, options: options,
                                                     priority: priorities[identifier] ?? SourcePriorityOrder())
            result.append(WorkoutStatistic(quantityType: identifier, sum: s.sum, average: s.average, minimum: s.minimum, maximum: s.maximum))
        }
        return result
    }
}

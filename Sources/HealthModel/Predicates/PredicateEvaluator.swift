import Foundation

/// What a predicate needs to know about a sample beyond the sample itself: its relations to
/// other stored objects.
public struct PredicateContext: Sendable, Hashable {
    /// True when the sample is a child of a correlation (for `.noCorrelation`).
    public var isInCorrelation: Bool
    /// UUIDs of the workouts the sample is associated with (for `.workout(_)`).
    public var associatedWorkouts: Set<UUID>

    public init(isInCorrelation: Bool = false, associatedWorkouts: Set<UUID> = []) {
        self.isInCorrelation = isInCorrelation
        self.associatedWorkouts = associatedWorkouts
    }
}

/// The in-memory evaluator: the reference semantics the store's SQL translation is tested against.
///
/// Semantic choices (docs/semantics.md §6.1–6.2; [inf] where HealthKit does not say):
/// - `.allOf([])` is true and `.anyOf([])` false (NSCompoundPredicate); `validate()` rejects both.
/// - `.dateRange` is exactly `DateRange.matches` (docs/semantics.md §6.1 clauses, start/end strictness).
/// - `.sources` matches the bundle id of the sample's source revision; `.sourceRevisions` uses
///   `SourceRevisionPattern.matches`; both are false for a sample without a source revision.
/// - `.devices` matches when any pattern matches (nil fields are wildcards, so an all-nil pattern
///   matches any sample that has a device); a sample without a device matches no pattern.
/// - `.deviceProperty` is `device.<key> IN values`; a missing device or property is not in any set.
/// - Metadata leaves need the key: a sample without it matches no comparison, not even `!=`.
///   Values compare as `MetadataOrdering` says; values that cannot be compared are only `!=`.
///   `.metadataIn` is true when the value equals any listed value.
/// - `.quantity` compares in the canonical unit of the sample's type, converting both the sample's
///   quantity and the operand (so it agrees with a store that keeps canonical values); incompatible
///   units, non-quantity samples and unknown types do not match.
/// - `.categoryValue`/`.categoryValueIn` match only category samples; `.workoutActivityType` and
///   `.workoutDuration` only workouts (duration as `Workout.activeDuration`).
/// - `.noCorrelation` and `.workout(_)` read the `PredicateContext`.
/// - `.not` negates, so a leaf that does not apply to a sample's kind makes its negation true.
extension QueryPredicate {
    /// True when `sample` satisfies this predicate.
    public func matches(_ sample: Sample, context: PredicateContext = PredicateContext()) -> Bool {
        switch self {
        case .allOf(let children):
            return children.allSatisfy { $0.matches(sample, context: context) }
        case .anyOf(let children):
            return children.contains { $0.matches(sample, context: context) }
        case .not(let child):
            return !child.matches(sample, context: context)
        case .dateRange(let range):
            return range.matches(start: sample.start, end: sample.end)
        case .uuids(let uuids):
            return uuids.contains(sample.uuid)
        case .sources(let bundleIDs):
            guard let revision = sample.sourceRevision else { return false }
            return bundleIDs.contains(revision.source.bundleID)
        case .sourceRevisions(let patterns):
            return patterns.contains { $0.matches(sample.sourceRevision) }
        case .devices(let patterns):
            guard let device = sample.device else { return false }
            return patterns.contains { device.matches($0) }
        case .deviceProperty(let property, let values):
            guard let value = property.value(of: sample.device) else { return false }
            return values.contains(value)
        case .metadataExists(let key):
            return sample.metadata[key] != nil
        case .metadataCompare(let key, let op, let operand):
            guard let value = sample.metadata[key] else { return false }
            return MetadataOrdering.evaluate(value, op, operand)
        case .metadataIn(let key, let values):
            guard let value = sample.metadata[key] else { return false }
            return values.contains { MetadataOrdering.compare(value, $0) == .orderedSame }
        case .quantity(let op, let operand):
            return quantityMatches(sample, op, operand)
        case .categoryValue(let op, let value):
            guard let own = sample.categoryValue else { return false }
            return op.evaluate(own, value)
        case .categoryValueIn(let values):
            guard let own = sample.categoryValue else { return false }
            return values.contains(own)
        case .workoutActivityType(let type):
            return sample.workout?.activityType == type
        case .noCorrelation:
            return !context.isInCorrelation
        case .workout(let uuid):
            return context.associatedWorkouts.contains(uuid)
        case .workoutDuration(let op, let duration):
            guard let workout = sample.workout else { return false }
            return op.evaluate(workout.activeDuration(start: sample.start, end: sample.end), duration)
        }
    }

    private func quantityMatches(_ sample: Sample, _ op: ComparisonOperator, _ operand: Quantity) -> Bool {
        guard let quantity = sample.quantity,
              let unit = TypeCatalog.type(sample.type)?.canonicalUnit,
              let own = try? quantity.value(in: unit),
              let other = try? operand.value(in: unit) else { return false }
        return op.evaluate(own, other)
    }
}

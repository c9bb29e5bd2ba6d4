import Foundation

/// Save-time validation of a batch: every rule of docs/semantics.md §8.1 that does not need the store
/// (authorization, earliest permitted date, stored-UUID and sync-version checks are the store's).
public enum SampleValidator {
    /// Validates a batch in order and throws for the first offending object, with its index in
    /// `objects` and the field (children of a correlation are named "correlation.objects[i].…").
    public static func validate(_ objects: [Sample]) throws(HealthError) {
        var seen = Set<UUID>()
        for (index, object) in objects.enumerated() {
            do throws(HealthError) {
                if case .series = object.body {
                    throw HealthError.invalid("\(object.type) samples are built with InsertSeriesData and FinishSeries, "
                        + "not saved whole", field: "series")
                }
                // A lone object has nothing to clash with: most batches are one sample.
                if objects.count > 1 || object.correlationObjects != nil { try checkUnique(object, path: .root, seen: &seen) }
                try check(object, path: .root)
            } catch {
                throw error.at(index: index)
            }
        }
    }

    /// Validates the sample a series builder finishes into (FinishSeries), the one way a series sample is made.
    public static func validateFinished(_ sample: Sample) throws(HealthError) {
        try check(sample, path: .root)
    }

    /// HealthKit rejects a UUID that is already stored; two objects of one batch sharing one is the
    /// same mistake, caught here before the store sees it.
    private static func checkUnique(_ object: Sample, path: FieldPath, seen: inout Set<UUID>) throws(HealthError) {
        if !seen.insert(object.uuid).inserted {
            throw path.invalid("uuid", "Duplicate UUID \(object.uuid) in the same request")
        }
        for (i, child) in (object.correlationObjects ?? []).enumerated() {
            try checkUnique(child, path: path.child("correlation.objects[\(i)]"), seen: &seen)
        }
    }

    /// Every per-object rule, for a top-level object or a correlation's child.
    static func check(_ sample: Sample, path: FieldPath) throws(HealthError) {
        guard let type = sample.catalogType else {
            throw path.invalid("type", "Unknown data type '\(sample.type)'")
        }
        guard type.isSampleType else {
            throw path.invalid("type", "Data type \(type.identifier) must be of type HKSampleType; characteristics are not saved as samples")
        }
        guard bodyKind(sample.body) == type.kind else {
            throw path.invalid("type", "Data type \(type.identifier) must be of type \(className(type.kind)); "
                + "the object is a \(className(bodyKind(sample.body)))")
        }
        try IntervalRules.checkSample(start: sample.start, end: sample.end, type: type, path: path)
        if sample.discreteSeries != nil {
            throw path.invalid("quantity.minimum", "minimum, maximum and most_recent are set by the server on the samples "
                + "a quantity series builder finishes; a saved sample cannot carry them")
        }
        switch sample.body {
        case .quantity(let quantity, let count):
            try QuantityRules.check(quantity, count: count, type: type, path: path)
        case .category(let value):
            try CategoryRules.check(value, type: type, path: path)
        case .correlation(let children):
            try CorrelationRules.check(children, type: type, path: path)
        case .workout(let workout):
            try WorkoutRules.check(workout, start: sample.start, end: sample.end, path: path)
        case .electrocardiogram(let ecg):
            try KindRules.check(ecg, start: sample.start, end: sample.end, path: path)
        case .audiogram(let audiogram):
            try KindRules.check(audiogram, path: path)
        case .stateOfMind(let state):
            try KindRules.check(state, path: path)
        case .scoredAssessment(let assessment):
            try KindRules.check(assessment, type: type, path: path)
        case .series(let count):
            if count < 1 { throw path.invalid("series.count", "A series sample holds at least one point") }
        }
        try MetadataValidator.checkObject(sample.metadata, type: type, path: path)
    }

    private static func bodyKind(_ body: SampleBody) -> ObjectKind {
        switch body {
        case .quantity: .quantity
        case .category: .category
        case .correlation: .correlation
        case .workout: .workout
        case .electrocardiogram: .electrocardiogram
        case .audiogram: .audiogram
        case .stateOfMind: .stateOfMind
        case .scoredAssessment: .scoredAssessment
        case .series: .series
        }
    }

    private static func className(_ kind: ObjectKind) -> String {
        switch kind {
        case .quantity: "HKQuantitySample"
        case .category: "HKCategorySample"
        case .correlation: "HKCorrelation"
        case .workout: "HKWorkout"
        case .characteristic: "HKCharacteristicType"
        case .series: "HKSeriesSample"
        case .electrocardiogram: "HKElectrocardiogram"
        case .audiogram: "HKAudiogramSample"
        case .stateOfMind: "HKStateOfMind"
        case .scoredAssessment: "HKScoredAssessment"
        }
    }
}

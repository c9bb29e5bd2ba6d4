/// Rules for correlations (docs/semantics.md §1.6): non-empty, only quantity and category samples of the
/// types the correlation type allows, each child valid on its own.
enum CorrelationRules {
    static func check(_ children: [Sample], type: HealthType, path: FieldPath) throws(HealthError) {
        if children.isEmpty {
            throw path.invalid("correlation.objects", "Objects must contain one or more HKSample")
        }
        for (i, child) in children.enumerated() {
            let childPath = path.child("correlation.objects[\(i)]")
            switch child.body {
            case .correlation:
                throw childPath.invalid("type", "Correlations cannot contain other correlations")
            case .workout:
                throw childPath.invalid("type", "Correlations cannot contain workouts")
            case .electrocardiogram, .audiogram, .stateOfMind, .scoredAssessment:
                throw childPath.invalid("type", "Correlations contain only quantity and category samples; got \(child.type)")
            case .series:
                throw childPath.invalid("type", "Correlations cannot contain series samples")
            case .quantity, .category:
                break
            }
            if let allowed = type.correlationContents, !allowed.contains(child.type) {
                throw childPath.invalid("type", "Type \(child.type) is not allowed in correlation \(type.identifier) "
                    + "(allowed: \(allowed.sorted().joined(separator: ", ")))")
            }
            try SampleValidator.check(child, path: childPath)
        }
    }
}

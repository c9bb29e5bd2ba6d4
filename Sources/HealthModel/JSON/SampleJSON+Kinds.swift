// The JSON bodies of electrocardiograms, audiograms, states of mind and scored assessments (the form
// is described in SampleJSON.swift).
extension SampleJSON {
    /// The sample's "kind" and the body stored under that same key.
    static func kindBody(_ s: Sample) -> (kind: String, body: JSON) {
        switch s.body {
        case .electrocardiogram(let e):
            var fields: [String: JSON] = [
                "classification": .int(Int64(e.classification)), "symptoms_status": .int(Int64(e.symptomsStatus)),
                "average_heart_rate": quantity(e.averageHeartRate), "sampling_frequency": quantity(e.samplingFrequency),
                "number_of_voltage_measurements": .int(e.numberOfVoltageMeasurements),
            ]
            if !e.voltages.isEmpty {
                fields["voltages"] = .array(e.voltages.map { .array([.int($0.offset), .double($0.microvolts)]) })
            }
            return ("electrocardiogram", .object(fields))
        case .audiogram(let a):
            return ("audiogram", .object(["points": .array(a.points.map { point in
                .object(["frequency": quantity(point.frequency), "tests": .array(point.tests.map { t in
                    .object(["sensitivity": quantity(t.sensitivity), "conduction_type": .int(Int64(t.conductionType)),
                             "masked": .bool(t.masked), "side": .int(Int64(t.side)),
                             "clamping_lower_bound": quantity(t.clampingLowerBound),
                             "clamping_upper_bound": quantity(t.clampingUpperBound)])
                })])
            })]))
        case .stateOfMind(let m):
            return ("state_of_mind", .object([
                "kind": .int(Int64(m.kind)), "valence": .double(m.valence),
                "valence_classification": .int(Int64(m.valenceClassification)),
                "labels": .array(m.labels.map { .int(Int64($0)) }), "associations": .array(m.associations.map { .int(Int64($0)) }),
            ]))
        case .scoredAssessment(let a):
            let risk = ScoredAssessment.Instrument(type: s.type).map(a.risk) ?? 0
            return ("scored_assessment", .object([
                "answers": .array(a.answers.map { .int(Int64($0)) }), "score": .int(Int64(a.score)), "risk": .int(Int64(risk)),
            ]))
        case .quantity, .category, .correlation, .workout, .series:
            return ("", .null)
        }
    }
}

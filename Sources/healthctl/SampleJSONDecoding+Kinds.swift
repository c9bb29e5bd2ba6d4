import HealthModel

// Reading the JSON bodies of electrocardiograms, audiograms, states of mind and scored assessments
// back (derived fields — valence classification, score, risk — are ignored: the server derives them).
extension SampleJSON {
    static func kindBody(_ kind: String, _ f: JSONFields) throws(HealthError) -> SampleBody {
        switch kind {
        case "electrocardiogram":
            var voltages: [VoltageMeasurement] = []
            for (i, item) in try f.array("voltages").enumerated() {
                guard case .array(let pair) = item, pair.count == 2, case .int(let offset) = pair[0], let microvolts = number(pair[1]) else {
                    throw HealthError.invalid("\(f.elementPath("voltages", i)) must be [offset_micros, microvolts]",
                                              field: f.elementPath("voltages", i))
                }
                voltages.append(VoltageMeasurement(offset: offset, microvolts: microvolts))
            }
            return .electrocardiogram(Electrocardiogram(
                classification: try int32(f, "classification"), symptomsStatus: try int32(f, "symptoms_status"),
                averageHeartRate: try quantity(f, "average_heart_rate"), samplingFrequency: try quantity(f, "sampling_frequency"),
                numberOfVoltageMeasurements: voltages.isEmpty ? try f.int("number_of_voltage_measurements") : nil, voltages: voltages))
        case "audiogram":
            var points: [AudiogramSensitivityPoint] = []
            for (i, item) in try f.array("points").enumerated() {
                let p = try JSONFields(item, path: f.elementPath("points", i))
                var tests: [AudiogramSensitivityTest] = []
                for (j, testItem) in try p.array("tests").enumerated() {
                    let t = try JSONFields(testItem, path: p.elementPath("tests", j))
                    guard case .bool(let masked)? = t.fields["masked"] else {
                        throw HealthError.invalid("\(t.path).masked must be a bool", field: "\(t.path).masked")
                    }
                    tests.append(AudiogramSensitivityTest(
                        sensitivity: try required(t, "sensitivity"), conductionType: try int32(t, "conduction_type"), masked: masked,
                        side: try int32(t, "side"), clampingLowerBound: try quantity(t, "clamping_lower_bound"),
                        clampingUpperBound: try quantity(t, "clamping_upper_bound")))
                }
                points.append(AudiogramSensitivityPoint(frequency: try required(p, "frequency"), tests: tests))
            }
            return .audiogram(Audiogram(points: points))
        case "state_of_mind":
            return .stateOfMind(StateOfMind(kind: try int32(f, "kind"), valence: try f.double("valence"),
                                            labels: try int32s(f, "labels"), associations: try int32s(f, "associations")))
        default:
            return .scoredAssessment(ScoredAssessment(answers: try int32s(f, "answers")))
        }
    }

    private static func required(_ f: JSONFields, _ key: String) throws(HealthError) -> Quantity {
        guard let q = try quantity(f, key) else { throw HealthError.invalid("\(f.path).\(key) is required", field: "\(f.path).\(key)") }
        return q
    }

    private static func int32s(_ f: JSONFields, _ key: String) throws(HealthError) -> [Int32] {
        var values: [Int32] = []
        for (i, item) in try f.array(key).enumerated() {
            guard case .int(let v) = item, let narrow = Int32(exactly: v) else {
                throw HealthError.invalid("\(f.elementPath(key, i)) must be an integer raw value", field: f.elementPath(key, i))
            }
            values.append(narrow)
        }
        return values
    }

    private static func number(_ json: JSON) -> Double? {
        switch json {
        case .int(let v): Double(v)
        case .double(let v): v
        default: nil
        }
    }
}

/// HealthKit's rules for the bodies of electrocardiograms, audiograms, states of mind and scored
/// assessments: known raw values, units of the right dimension, values in range.
enum KindRules {
    /// HealthKit's accepted range for an audiogram frequency (HKAudiogramSensitivityPoint), Hz.
    static let audiogramFrequencies: ClosedRange<Double> = 20...20_000
    /// HealthKit's accepted range for a hearing sensitivity or clamping bound, dBHL.
    static let audiogramSensitivities: ClosedRange<Double> = -20...140
    /// Largest voltage magnitude kept (µV): far beyond any body surface signal, and within the packed grid.
    static let largestMicrovolts = 1e9

    static func check(_ ecg: Electrocardiogram, start: Microseconds, end: Microseconds, path: FieldPath) throws(HealthError) {
        let p = path.child("electrocardiogram")
        try known(ecg.classification, Electrocardiogram.classificationNames, "classification", "HKElectrocardiogram.Classification", p)
        try known(ecg.symptomsStatus, Electrocardiogram.symptomsStatusNames, "symptoms_status", "HKElectrocardiogram.SymptomsStatus", p)
        if let rate = ecg.averageHeartRate {
            try positive(rate, unit: "count/min", field: "average_heart_rate", path: p)
        }
        guard let frequency = ecg.samplingFrequency else {
            throw p.invalid("sampling_frequency", "An electrocardiogram needs its sampling frequency (Hz)")
        }
        try positive(frequency, unit: "Hz", field: "sampling_frequency", path: p)
        var previous: Microseconds?
        for (i, voltage) in ecg.voltages.enumerated() {
            let v = p.child("voltages[\(i)]")
            guard (0...(end - start)).contains(voltage.offset) else {
                throw v.invalid("offset", "A voltage measurement's time since the start must lie inside the recording "
                    + "(0…\(end - start) µs); got \(voltage.offset) µs")
            }
            if let previous, voltage.offset <= previous {
                throw v.invalid("offset", "Voltage measurements must be in time order: \(voltage.offset) µs is not after "
                    + "the previous one at \(previous) µs")
            }
            guard voltage.microvolts.isFinite, abs(voltage.microvolts) <= largestMicrovolts else {
                throw v.invalid("microvolts", "A voltage must be a finite number of microvolts within ±1e9; got \(voltage.microvolts)")
            }
            previous = voltage.offset
        }
    }

    static func check(_ audiogram: Audiogram, path: FieldPath) throws(HealthError) {
        var frequencies = Set<Double>()
        for (i, point) in audiogram.points.enumerated() {
            let p = path.child("audiogram.points[\(i)]")
            let hertz = try inRange(point.frequency, unit: "Hz", audiogramFrequencies, field: "frequency", path: p)
            if !frequencies.insert(hertz).inserted {
                throw p.invalid("frequency", "An audiogram holds one sensitivity point per frequency; \(hertz) Hz appears twice")
            }
            if point.tests.isEmpty {
                throw p.invalid("tests", "A sensitivity point needs at least one test")
            }
            var seen = Set<[Int32]>()
            for (j, test) in point.tests.enumerated() {
                let t = p.child("tests[\(j)]")
                try known(test.conductionType, AudiogramSensitivityTest.conductionTypeNames, "conduction_type",
                          "HKAudiogramConductionType", t)
                try known(test.side, AudiogramSensitivityTest.sideNames, "side", "HKAudiogramSensitivityTestSide", t)
                try inRange(test.sensitivity, unit: "dBHL", audiogramSensitivities, field: "sensitivity", path: t)
                let lower = try test.clampingLowerBound.map { q throws(HealthError) in
                    try inRange(q, unit: "dBHL", audiogramSensitivities, field: "clamping_lower_bound", path: t)
                }
                let upper = try test.clampingUpperBound.map { q throws(HealthError) in
                    try inRange(q, unit: "dBHL", audiogramSensitivities, field: "clamping_upper_bound", path: t)
                }
                if let lower, let upper, lower > upper {
                    throw t.invalid("clamping_lower_bound", "The clamping range's lower bound (\(lower) dBHL) must not exceed "
                        + "its upper bound (\(upper) dBHL)")
                }
                if !seen.insert([test.side, test.conductionType, test.masked ? 1 : 0]).inserted {
                    throw t.invalid("side", "A sensitivity point holds at most one test per side, conduction type and masking")
                }
            }
        }
    }

    static func check(_ state: StateOfMind, path: FieldPath) throws(HealthError) {
        let p = path.child("state_of_mind")
        try known(state.kind, StateOfMind.kindNames, "kind", "HKStateOfMind.Kind", p)
        guard state.valence.isFinite, (-1...1).contains(state.valence) else {
            throw p.invalid("valence", "Valence must be between -1 and 1; got \(state.valence)")
        }
        for (i, label) in state.labels.enumerated() {
            try known(label, StateOfMind.labelNames, "labels[\(i)]", "HKStateOfMind.Label", p)
        }
        for (i, association) in state.associations.enumerated() {
            try known(association, StateOfMind.associationNames, "associations[\(i)]", "HKStateOfMind.Association", p)
        }
    }

    static func check(_ assessment: ScoredAssessment, type: HealthType, path: FieldPath) throws(HealthError) {
        let p = path.child("scored_assessment")
        guard let instrument = ScoredAssessment.Instrument(type: type.identifier) else {
            throw path.invalid("type", "Data type \(type.identifier) is no scored assessment type")
        }
        guard assessment.answers.count == instrument.questionCount else {
            throw p.invalid("answers", "\(type.shortName) has \(instrument.questionCount) questions; got "
                + "\(assessment.answers.count) answers")
        }
        for (i, answer) in assessment.answers.enumerated() {
            try known(answer, instrument.answerNames, "answers[\(i)]", "\(type.shortName) answer", p)
            if answer == ScoredAssessment.preferNotToAnswer, i != instrument.questionCount - 1 {
                throw p.invalid("answers[\(i)]", "preferNotToAnswer is allowed only for the last question of \(type.shortName)")
            }
        }
    }

    private static func known(_ raw: Int32, _ names: [Int32: String], _ field: String, _ what: String,
                              _ path: FieldPath) throws(HealthError) {
        guard names[raw] == nil else { return }
        let allowed = names.keys.sorted().map(String.init).joined(separator: ", ")
        throw path.invalid(field, "\(raw) is not a \(what) raw value (allowed: \(allowed))")
    }

    /// The quantity in `unit`, after checking its unit's dimension and that it is finite and positive.
    private static func positive(_ quantity: Quantity, unit: String, field: String, path: FieldPath) throws(HealthError) {
        let value = try converted(quantity, to: unit, field: field, path: path)
        if value <= 0 { throw path.invalid(field, "\(path(field)) must be positive; got \(quantity.value) \(quantity.unit)") }
    }

    @discardableResult
    private static func inRange(_ quantity: Quantity, unit: String, _ range: ClosedRange<Double>, field: String,
                                path: FieldPath) throws(HealthError) -> Double {
        let value = try converted(quantity, to: unit, field: field, path: path)
        guard range.contains(value) else {
            throw path.invalid(field, "\(path(field)) must be between \(range.lowerBound) and \(range.upperBound) \(unit); "
                + "got \(value) \(unit)")
        }
        return value
    }

    private static func converted(_ quantity: Quantity, to unit: String, field: String, path: FieldPath) throws(HealthError) -> Double {
        try QuantityRules.checkFinite(quantity.value, field: field + ".value", path: path)
        guard try QuantityRules.isCompatible(quantity.unit, with: unit, field: field + ".unit", path: path) else {
            throw path.invalid(field + ".unit", "\(path(field)) requires a unit compatible with \(unit); got \(quantity.unit)")
        }
        do {
            return try quantity.value(in: unit)
        } catch {
            throw path.invalid(field, error.message)
        }
    }
}

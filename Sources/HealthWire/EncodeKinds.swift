import CProtobufC
import Foundation
import HealthModel
import HealthProto

/// Electrocardiogram, audiogram, state of mind and scored assessment bodies → protobuf-c structs.
extension WireArena {
    /// Sets the body of a sample of one of these kinds.
    func kindBody(_ s: Sample, into p: UnsafeMutablePointer<Healthstore__V1__Sample>) {
        switch s.body {
        case .electrocardiogram(let e):
            let body = message(healthstore__v1__electrocardiogram_body__init)
            body.pointee.classification = e.classification
            body.pointee.symptoms_status = e.symptomsStatus
            body.pointee.average_heart_rate = optionalQuantity(e.averageHeartRate)
            body.pointee.sampling_frequency = optionalQuantity(e.samplingFrequency)
            body.pointee.number_of_voltage_measurements = e.numberOfVoltageMeasurements
            (body.pointee.n_voltages, body.pointee.voltages) = list(e.voltages, voltageMeasurement)
            p.pointee.body_case = HEALTHSTORE__V1__SAMPLE__BODY_ELECTROCARDIOGRAM
            p.pointee.electrocardiogram = body
        case .audiogram(let a):
            let body = message(healthstore__v1__audiogram_body__init)
            (body.pointee.n_points, body.pointee.points) = list(a.points, audiogramPoint)
            p.pointee.body_case = HEALTHSTORE__V1__SAMPLE__BODY_AUDIOGRAM
            p.pointee.audiogram = body
        case .stateOfMind(let m):
            let body = message(healthstore__v1__state_of_mind_body__init)
            body.pointee.kind = m.kind
            body.pointee.valence = m.valence
            body.pointee.valence_classification = m.valenceClassification
            (body.pointee.n_labels, body.pointee.labels) = int32s(m.labels)
            (body.pointee.n_associations, body.pointee.associations) = int32s(m.associations)
            p.pointee.body_case = HEALTHSTORE__V1__SAMPLE__BODY_STATE_OF_MIND
            p.pointee.state_of_mind = body
        case .scoredAssessment(let a):
            let body = message(healthstore__v1__scored_assessment_body__init)
            (body.pointee.n_answers, body.pointee.answers) = int32s(a.answers)
            body.pointee.score = Int32(a.score)
            body.pointee.risk = ScoredAssessment.Instrument(type: s.type).map(a.risk) ?? 0
            p.pointee.body_case = HEALTHSTORE__V1__SAMPLE__BODY_SCORED_ASSESSMENT
            p.pointee.scored_assessment = body
        case .quantity, .category, .correlation, .workout, .series:
            break
        }
    }

    /// One voltage measurement (an ECG's save body, and QuerySeriesData pages).
    func voltageMeasurement(_ v: VoltageMeasurement) -> UnsafeMutablePointer<Healthstore__V1__VoltageMeasurement> {
        let p = message(healthstore__v1__voltage_measurement__init)
        p.pointee.offset = v.offset
        p.pointee.microvolts = v.microvolts
        return p
    }

    private func audiogramPoint(_ point: AudiogramSensitivityPoint) -> UnsafeMutablePointer<Healthstore__V1__AudiogramSensitivityPoint> {
        let p = message(healthstore__v1__audiogram_sensitivity_point__init)
        p.pointee.frequency = quantity(point.frequency)
        (p.pointee.n_tests, p.pointee.tests) = list(point.tests, audiogramTest)
        return p
    }

    private func audiogramTest(_ t: AudiogramSensitivityTest) -> UnsafeMutablePointer<Healthstore__V1__AudiogramSensitivityTest> {
        let p = message(healthstore__v1__audiogram_sensitivity_test__init)
        p.pointee.sensitivity = quantity(t.sensitivity)
        p.pointee.conduction_type = t.conductionType
        p.pointee.masked = t.masked ? 1 : 0
        p.pointee.side = t.side
        p.pointee.clamping_lower_bound = optionalQuantity(t.clampingLowerBound)
        p.pointee.clamping_upper_bound = optionalQuantity(t.clampingUpperBound)
        return p
    }

    /// A repeated int32 field.
    private func int32s(_ values: [Int32]) -> (count: Int, items: UnsafeMutablePointer<Int32>?) {
        guard let storage = array(values.count, of: Int32.self) else { return (0, nil) }
        for (i, value) in values.enumerated() { (storage + i).initialize(to: value) }
        return (values.count, storage)
    }
}

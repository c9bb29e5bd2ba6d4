import Foundation
import HealthModel
import HealthProto

/// protobuf-c structs → electrocardiogram, audiogram, state of mind and scored assessment bodies. The
/// fields the server derives (valence classification, score, risk; an ECG's count on save) are not read.
extension WireDecode {
    static func electrocardiogram(_ e: Healthstore__V1__ElectrocardiogramBody) throws(HealthError) -> Electrocardiogram {
        let voltages = try CRead.list(e.voltages, e.n_voltages, "electrocardiogram.voltages", voltageMeasurement)
        return Electrocardiogram(classification: e.classification, symptomsStatus: e.symptoms_status,
                                 averageHeartRate: try optionalQuantity(e.average_heart_rate, "electrocardiogram.average_heart_rate"),
                                 samplingFrequency: try optionalQuantity(e.sampling_frequency, "electrocardiogram.sampling_frequency"),
                                 numberOfVoltageMeasurements: voltages.isEmpty ? e.number_of_voltage_measurements : nil,
                                 voltages: voltages)
    }

    /// One voltage measurement (an ECG's save body, and QuerySeriesData pages).
    static func voltageMeasurement(_ v: Healthstore__V1__VoltageMeasurement) -> VoltageMeasurement {
        VoltageMeasurement(offset: v.offset, microvolts: v.microvolts)
    }

    static func audiogram(_ a: Healthstore__V1__AudiogramBody) throws(HealthError) -> Audiogram {
        Audiogram(points: try CRead.list(a.points, a.n_points, "audiogram.points") { p throws(HealthError) in
            AudiogramSensitivityPoint(
                frequency: try requiredQuantity(p.frequency, "audiogram.points.frequency"),
                tests: try CRead.list(p.tests, p.n_tests, "audiogram.points.tests") { t throws(HealthError) in
                    AudiogramSensitivityTest(
                        sensitivity: try requiredQuantity(t.sensitivity, "audiogram.points.tests.sensitivity"),
                        conductionType: t.conduction_type, masked: t.masked != 0, side: t.side,
                        clampingLowerBound: try optionalQuantity(t.clamping_lower_bound, "audiogram.points.tests.clamping_lower_bound"),
                        clampingUpperBound: try optionalQuantity(t.clamping_upper_bound, "audiogram.points.tests.clamping_upper_bound"))
                })
        })
    }

    static func stateOfMind(_ m: Healthstore__V1__StateOfMindBody) throws(HealthError) -> StateOfMind {
        StateOfMind(kind: m.kind, valence: m.valence, labels: try int32s(m.labels, m.n_labels, "state_of_mind.labels"),
                    associations: try int32s(m.associations, m.n_associations, "state_of_mind.associations"))
    }

    static func scoredAssessment(_ a: Healthstore__V1__ScoredAssessmentBody) throws(HealthError) -> ScoredAssessment {
        ScoredAssessment(answers: try int32s(a.answers, a.n_answers, "scored_assessment.answers"))
    }

    private static func int32s(_ values: UnsafeMutablePointer<Int32>?, _ count: Int, _ field: String) throws(HealthError) -> [Int32] {
        guard count > 0 else { return [] }
        guard let values else { throw CRead.malformed("\(field) has \(count) entries but no storage", field: field) }
        return Array(UnsafeBufferPointer(start: values, count: count))
    }
}

import HealthModel

/// The VALUE and UNIT cells of electrocardiograms, audiograms, states of mind and scored assessments,
/// with HealthKit's names for their raw values.
enum KindCells {
    static func cells(_ s: Sample) -> (value: String, unit: String) {
        switch s.body {
        case .electrocardiogram(let e):
            let rate = e.averageHeartRate.map { ", \(formatNumber($0.value)) \($0.unit)" } ?? ""
            return ("\(name(e.classification, Electrocardiogram.classificationNames))\(rate), "
                    + "\(e.numberOfVoltageMeasurements) voltages", "")
        case .audiogram(let a):
            let tests = a.points.reduce(0) { $0 + $1.tests.count }
            return ("\(a.points.count) frequencies, \(tests) tests", "dBHL")
        case .stateOfMind(let m):
            let labels = m.labels.map { name($0, StateOfMind.labelNames) }
            return ("\(formatNumber(m.valence)) \(name(m.valenceClassification, StateOfMind.valenceClassificationNames))"
                    + (labels.isEmpty ? "" : " (\(labels.joined(separator: ", ")))"), name(m.kind, StateOfMind.kindNames))
        case .scoredAssessment(let a):
            guard let instrument = ScoredAssessment.Instrument(type: s.type) else { return ("score \(a.score)", "") }
            let risk = a.risk(instrument)
            return ("score \(a.score) \(instrument.risks.first { $0.risk == risk }?.name ?? String(risk))", "")
        case .quantity, .category, .correlation, .workout, .series:
            return ("", "")
        }
    }

    private static func name(_ raw: Int32, _ names: [Int32: String]) -> String { names[raw] ?? String(raw) }
}

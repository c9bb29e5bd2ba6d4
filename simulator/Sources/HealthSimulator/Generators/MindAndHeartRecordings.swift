import Foundation
import HealthModel

/// The watch's occasional ECG recording (saved by the Health app, with the owner's credential) and
/// the phone's state of mind log and monthly PHQ-9 and GAD-7.
extension DayContext {
    /// An ECG on some days (the spec's probability, default one day in ten): 30 s at 512 Hz around the
    /// person's heart rate, sinus rhythm, at a random daytime moment.
    func electrocardiogram(_ spec: SignalSpec) -> [Sample] {
        var r = rng("ecg")
        guard r.chance(spec.probability ?? 0.1) else { return [] }
        let start = plan.wake + Microseconds(r.uniform(1...10) * 3_600_000_000)
        guard start + 30_000_000 < plan.night.inBedStart else { return [] }
        let rate = body.heartRate(at: start)
        let hertz = 512.0, seconds = 30.0
        let beat = 60 / rate
        let voltages = (0..<Int(hertz * seconds)).map { i -> VoltageMeasurement in
            let t = Double(i) / hertz
            let phase = t.truncatingRemainder(dividingBy: beat) / beat
            // P wave, QRS spike and T wave of a Lead I-like trace, plus slow baseline wander.
            func bump(_ at: Double, _ width: Double, _ height: Double) -> Double {
                let x = (phase - at) / width
                return height * exp(-x * x)
            }
            let microvolts = bump(0.2, 0.03, 120) + bump(0.35, 0.008, 900) - bump(0.33, 0.01, 120) + bump(0.6, 0.06, 250)
                + 30 * sin(2 * .pi * t / 7)
            return VoltageMeasurement(offset: Microseconds((t * 1_000_000).rounded()), microvolts: (microvolts * 1_000).rounded() / 1_000)
        }
        let type = HKType.electrocardiogram
        let body = Electrocardiogram(classification: 1, symptomsStatus: 1, averageHeartRate: Quantity(rate.rounded(), "count/min"),
                                     samplingFrequency: Quantity(hertz, "Hz"), voltages: voltages)
        return [factory.sample(type, start: start, end: start + Microseconds(seconds * 1_000_000), body: .electrocardiogram(body))]
    }

    /// A daily mood each evening (the spec's probability, default every day): valence drifting around
    /// slightly pleasant, worse after a short night, with labels and associations that fit it.
    func stateOfMind(_ spec: SignalSpec) -> [Sample] {
        var r = rng("state-of-mind")
        guard r.chance(spec.probability ?? 1) else { return [] }
        let t = min(plan.night.inBedStart - 1_800_000_000, plan.dayStart + Microseconds(r.uniform(19...21.5) * 3_600_000_000))
        let valence = max(-1, min(1, (0.25 + r.normal(sd: 0.35)) * 100).rounded() / 100)
        let labels: [Int32] = valence > 0.3 ? [17, 7, 15] : valence > -0.2 ? [8, 36] : [29, 34, 4]
        let associations: [Int32] = [[17, 5], [6, 8], [7, 9], [13]][Int(r.uniform(0...3.99))]
        let mood = StateOfMind(kind: 2, valence: valence, labels: Array(labels.prefix(1 + Int(r.uniform(0...1.99)))),
                               associations: associations)
        return [factory.sample(HKType.stateOfMind, start: t, end: t, body: .stateOfMind(mood))]
    }

    /// A PHQ-9 and a GAD-7 on the first day of each month, in the morning; most answers "not at all"
    /// or "several days".
    func assessments(_ spec: SignalSpec) -> [Sample] {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: factory.timeZone) ?? .gmt
        let date = Date(timeIntervalSince1970: Double(plan.dayStart) / 1_000_000 + 43_200)
        guard calendar.component(.day, from: date) == 1 else { return [] }
        var r = rng("assessments")
        let t = plan.wake + Microseconds(r.uniform(30...90) * 60_000_000)
        func answers(_ count: Int) -> [Int32] {
            (0..<count).map { _ in Int32(min(3, max(0, r.normal(mean: 0.6, sd: 0.8).rounded()))) }
        }
        return [
            factory.sample(HKType.phq9, start: t, end: t, body: .scoredAssessment(ScoredAssessment(answers: answers(9)))),
            factory.sample(HKType.gad7, start: t + 120_000_000, end: t + 120_000_000,
                           body: .scoredAssessment(ScoredAssessment(answers: answers(7)))),
        ]
    }
}

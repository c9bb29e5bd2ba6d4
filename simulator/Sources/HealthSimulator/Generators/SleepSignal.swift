import HealthModel

/// Sleep analysis: one in-bed sample spanning the night, and stage samples inside it that never
/// overlap each other (docs/semantics.md §4.3).
extension DayContext {
    func sleep(_ spec: SignalSpec) -> [Sample] {
        let night = plan.night
        var out = [factory.category(HKType.sleepAnalysis, 0, start: night.inBedStart, end: night.inBedEnd)]
        let stages = (spec.stages ?? true) ? night.stages : Self.unstaged(night.stages)
        out += stages.map { factory.category(HKType.sleepAnalysis, $0.value, start: $0.start, end: $0.end, ordinal: Int($0.value)) }
        return out
    }

    /// Devices without stage detection: consecutive asleep stages merge into asleepUnspecified.
    static func unstaged(_ stages: [SleepStage]) -> [SleepStage] {
        var out: [SleepStage] = []
        for stage in stages {
            let value: Int64 = stage.value == 2 ? 2 : 1
            if let last = out.last, last.value == value, last.end == stage.start {
                out[out.count - 1] = SleepStage(value: value, start: last.start, end: stage.end)
            } else {
                out.append(SleepStage(value: value, start: stage.start, end: stage.end))
            }
        }
        return out
    }
}

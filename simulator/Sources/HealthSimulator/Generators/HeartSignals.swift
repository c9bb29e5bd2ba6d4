import HealthModel

/// Heart rate, resting heart rate, HRV and blood oxygen.
extension DayContext {
    /// Instant readings every `everySeconds`, every `workoutEverySeconds` during the workout.
    func heartRate(_ spec: SignalSpec) -> [Sample] {
        let workout = plan.workout.map { $0.start..<$0.end }
        var times = grid(every: spec.everySeconds ?? 300, from: plan.dayStart, to: plan.dayEnd)
            .filter { !(workout?.contains($0) ?? false) }
        for span in workoutSpans {
            times += grid(every: spec.workoutEverySeconds ?? 5, from: span.lowerBound, to: span.upperBound)
        }
        var noise = rng("hr")
        return times.sorted().map { t in
            let moving = body.workout(at: t) != nil || body.cadence(at: t) > 0
            var extra: Metadata = ["HKMetadataKeyHeartRateMotionContext": .int(moving ? 2 : 1)]
            if let location = spec.sensorLocation { extra["HKHeartRateSensorLocation"] = .int(Int64(location)) }
            let bpm = (body.heartRate(at: t) + noise.normal(sd: 1.5)).rounded()
            return factory.quantity(HKType.heartRate, bpm, canonical: "count/min", unit: spec.unit,
                                    start: t, end: t, metadata: extra)
        }
    }

    /// One value per day, over the waking hours.
    func restingHeartRate(_ spec: SignalSpec) -> [Sample] {
        var r = rng("rhr")
        let value = (body.person.restingHeartRate + r.normal(sd: 1.5)).rounded()
        return [factory.quantity(HKType.restingHeartRate, value, canonical: "count/min", unit: spec.unit,
                                 start: plan.wake, end: plan.night.inBedStart)]
    }

    /// SDNN over one minute every `everySeconds` while asleep; higher in deep sleep.
    func heartRateVariability(_ spec: SignalSpec) -> [Sample] {
        let span = plan.night.sleepSpan
        var r = rng("hrv")
        return grid(every: spec.everySeconds ?? 7200, from: span.lowerBound + 1_800_000_000, to: span.upperBound)
            .map { t in
                let deep = body.sleepStage(at: t) == 4 ? 8.0 : 0
                let ms = max(12, r.normal(mean: 48 + deep, sd: 9)).rounded()
                return factory.quantity(HKType.hrvSDNN, ms, canonical: "ms", unit: spec.unit, start: t, end: t + 60_000_000)
            }
    }

    /// Instant readings every `everySeconds`, a little lower asleep.
    func oxygenSaturation(_ spec: SignalSpec) -> [Sample] {
        var r = rng("spo2")
        return grid(every: spec.everySeconds ?? 3600, from: plan.dayStart, to: plan.dayEnd).map { t in
            let asleep = body.sleepStage(at: t) != nil ? 0.01 : 0
            let fraction = min(1, max(0.9, r.normal(mean: 0.975 - asleep, sd: 0.008)))
            return factory.quantity(HKType.oxygenSaturation, (fraction * 100).rounded() / 100, canonical: "%",
                                    unit: spec.unit, start: t, end: t)
        }
    }
}

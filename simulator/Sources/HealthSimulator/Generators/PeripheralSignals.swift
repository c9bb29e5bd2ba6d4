import HealthModel

/// Readings from relayed peripherals: scale, blood-pressure cuff, thermometer.
extension DayContext {
    /// The morning moment a person steps on the scale or takes a reading, if they do today.
    /// Scale signals share one draw so mass and body fat come from the same weigh-in.
    func morningReading(_ purpose: String, probability: Double?, minutes: ClosedRange<Double>) -> Microseconds? {
        var r = rng(purpose)
        guard r.chance(probability ?? 1) else { return nil }
        return plan.wake + Microseconds(r.uniform(minutes) * 60_000_000)
    }

    func bodyMass(_ spec: SignalSpec) -> [Sample] {
        guard let t = morningReading("weigh-in", probability: spec.probability, minutes: 5...40) else { return [] }
        var r = rng("mass-error")
        return [factory.quantity(HKType.bodyMass, plan.weightKg + r.normal(sd: 0.05), canonical: "kg", unit: spec.unit,
                                 start: t, end: t)]
    }

    func bodyFatPercentage(_ spec: SignalSpec) -> [Sample] {
        guard let t = morningReading("weigh-in", probability: spec.probability, minutes: 5...40) else { return [] }
        var r = rng("fat-error")
        let fraction = ((plan.bodyFat + r.normal(sd: 0.002)) * 1000).rounded() / 1000
        return [factory.quantity(HKType.bodyFatPercentage, fraction, canonical: "%", unit: spec.unit, start: t, end: t)]
    }

    /// Morning and evening readings, each with the spec's probability; higher in the morning.
    func bloodPressure(_ spec: SignalSpec) -> [Sample] {
        var r = rng("bp")
        let person = body.person
        let evening = plan.dayStart + Microseconds((20.5 + r.normal(sd: 0.5)) * 3_600_000_000)
        let moments = [(plan.wake + Microseconds(r.uniform(15...45) * 60_000_000), 4.0, 3.0),
                       (min(evening, plan.night.inBedStart - 600_000_000), -3.0, -2.0)]
        return moments.compactMap { t, sysShift, diaShift in
            guard r.chance(spec.probability ?? 1) else { return nil }
            let drift = 0.5 * (plan.weightKg - person.weightKg)
            let systolic = (person.systolic + sysShift + drift + r.normal(sd: 5)).rounded()
            let diastolic = min(systolic - 20, (person.diastolic + diaShift + drift / 2 + r.normal(sd: 4)).rounded())
            let children = [
                factory.quantity(HKType.systolic, systolic, canonical: "mmHg", unit: spec.unit, start: t, end: t),
                factory.quantity(HKType.diastolic, diastolic, canonical: "mmHg", unit: spec.unit, start: t, end: t),
            ]
            return factory.correlation(HKType.bloodPressure, children, start: t, end: t)
        }
    }

    func bodyTemperature(_ spec: SignalSpec) -> [Sample] {
        guard let t = morningReading("temperature", probability: spec.probability, minutes: 10...60) else { return [] }
        var r = rng("temperature-error")
        var extra: Metadata = [:]
        if let location = spec.sensorLocation { extra["HKBodyTemperatureSensorLocation"] = .int(Int64(location)) }
        let celsius = ((plan.bodyTemperature + r.normal(sd: 0.08)) * 10).rounded() / 10
        return [factory.quantity(HKType.bodyTemperature, celsius, canonical: "degC", unit: spec.unit,
                                 start: t, end: t, metadata: extra)]
    }
}

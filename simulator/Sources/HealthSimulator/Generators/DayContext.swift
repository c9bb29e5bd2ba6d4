import HealthModel

/// Everything one device needs to generate one day: the plan, the body's truth around it, the
/// sample factory and the device's own random streams.
struct DayContext {
    let profile: DeviceProfile
    let plan: DayPlan
    let body: Physiology
    let factory: SampleFactory
    let seed: UInt64

    /// A random stream of this device, day and purpose.
    func rng(_ purpose: String, _ extra: Int64 = 0) -> SplitMix64 {
        SplitMix64(seed: seed, .text(profile.id), .text(purpose), .number(Int64(plan.day)), .number(extra))
    }

    /// Grid instants in [from, to) every `seconds`, aligned to the day start.
    func grid(every seconds: Double, from: Microseconds, to: Microseconds) -> [Microseconds] {
        let step = max(1_000_000, Microseconds(seconds * 1_000_000))
        var t = plan.dayStart + ((max(from, plan.dayStart) - plan.dayStart + step - 1) / step) * step
        var out: [Microseconds] = []
        while t < to {
            out.append(t)
            t += step
        }
        return out
    }

    /// Splits [start, end) at multiples of `seconds` from the day start.
    func chunks(_ start: Microseconds, _ end: Microseconds, every seconds: Double) -> [Range<Microseconds>] {
        let bounds = [start] + grid(every: seconds, from: start + 1, to: end) + [end]
        return zip(bounds, bounds.dropFirst()).compactMap { $0 < $1 ? $0..<$1 : nil }
    }

    /// On-foot spans of this day during which this device is worn or carried.
    func carriedSegments() -> [(start: Microseconds, end: Microseconds, cadence: Double)] {
        let p = profile.carryProbability ?? 1
        return body.movingSegments().filter { segment in
            guard segment.start >= plan.dayStart, segment.start < plan.dayEnd else { return false }
            var r = rng("carry", segment.start)
            return r.chance(p)
        }
    }

    /// Spans of this day's workout that are not paused.
    var workoutSpans: [Range<Microseconds>] {
        guard let w = plan.workout else { return [] }
        guard let p = w.pause else { return [w.start..<w.end] }
        return [w.start..<p.lowerBound, p.upperBound..<w.end]
    }
}

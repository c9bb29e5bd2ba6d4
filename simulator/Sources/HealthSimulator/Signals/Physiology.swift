import Foundation
import HealthModel

/// What the body is doing at any instant, over a few consecutive day plans: the "truth" every device
/// measures (each with its own noise), so a watch and a band see the same heart and the same walks.
public struct Physiology: Sendable {
    public let person: PersonProfile
    public let plans: [DayPlan]
    private let seed: UInt64

    public init(timeline: PersonTimeline, days: ClosedRange<Int>) {
        person = timeline.person
        seed = timeline.seed
        plans = days.map { timeline.plan($0) }
    }

    /// The sleep stage value at `t`, nil when not asleep or awake in bed.
    public func sleepStage(at t: Microseconds) -> Int64? {
        for plan in plans where plan.night.inBedStart <= t && t < plan.night.inBedEnd {
            return plan.night.stages.first { $0.start <= t && t < $0.end }?.value
        }
        return nil
    }

    /// The workout running (and not paused) at `t`.
    public func workout(at t: Microseconds) -> PlannedWorkout? {
        plans.lazy.compactMap(\.workout).first { $0.isActive(at: t) }
    }

    /// Steps per minute at `t`: a walk or an on-foot workout; 0 otherwise.
    public func cadence(at t: Microseconds) -> Double {
        if let w = workout(at: t) { return w.cadence ?? 0 }
        for plan in plans {
            if let walk = plan.walks.first(where: { $0.start <= t && t < $0.end }) { return walk.cadence }
        }
        return 0
    }

    /// True heart rate in beats per minute: circadian baseline, lower asleep, raised by walking and
    /// workouts (ramping up over the first minutes), with slow per-minute variation.
    public func heartRate(at t: Microseconds) -> Double {
        let rest = person.restingHeartRate
        var hr: Double
        if let stage = sleepStage(at: t) {
            hr = rest - (stage == 4 ? 6 : stage == 5 ? 0 : 3)
        } else {
            let midnight = plans.last { $0.dayStart <= t }?.dayStart ?? t
            let hour = Double(t - midnight) / 3_600_000_000
            hr = rest + 12 + 5 * sin(2 * .pi * (hour - 9) / 24)
        }
        if let w = workout(at: t) {
            let ramp = min(1, Double(t - w.start) / 180_000_000)
            hr = max(hr, rest + (person.maxHeartRate - rest) * w.intensity * (0.6 + 0.4 * ramp))
        } else if cadence(at: t) > 0 {
            hr += 18 + (cadence(at: t) - 100) * 0.4
        }
        return hr + smoothNoise("hr", t, sd: 2.5)
    }

    /// Active energy rate in kcal per minute, from how far heart rate sits above resting.
    public func activeEnergyRate(at t: Microseconds) -> Double {
        let above = heartRate(at: t) - person.restingHeartRate - 8
        return max(0.02, above * 0.12) * person.weightKg / 70
    }

    /// Integrates a per-minute rate over [a, b) in one-minute steps (exact for piecewise-constant rates
    /// sampled at the step midpoints, close enough otherwise).
    public func integrate(_ a: Microseconds, _ b: Microseconds, perMinute rate: (Microseconds) -> Double) -> Double {
        let step: Microseconds = 60_000_000
        var t = a, total = 0.0
        while t < b {
            let e = min(b, t + step)
            total += rate(t + (e - t) / 2) * Double(e - t) / Double(step)
            t = e
        }
        return total
    }

    /// Exact steps over [a, b): walk and on-foot workout overlap times cadence.
    public func steps(_ a: Microseconds, _ b: Microseconds) -> Double {
        var total = 0.0
        for segment in movingSegments() {
            let lo = max(a, segment.start), hi = min(b, segment.end)
            if hi > lo { total += Double(hi - lo) / 60_000_000 * segment.cadence }
        }
        return total
    }

    /// Spans of on-foot movement (walks and on-foot workouts minus pauses), each at one cadence.
    public func movingSegments() -> [(start: Microseconds, end: Microseconds, cadence: Double)] {
        var out: [(start: Microseconds, end: Microseconds, cadence: Double)] = []
        for plan in plans {
            out += plan.walks.map { ($0.start, $0.end, $0.cadence) }
            if let w = plan.workout, let cadence = w.cadence {
                if let p = w.pause {
                    out += [(w.start, p.lowerBound, cadence), (p.upperBound, w.end, cadence)]
                } else {
                    out.append((w.start, w.end, cadence))
                }
            }
        }
        return out.sorted { $0.start < $1.start }
    }

    /// Deterministic noise shared by every device: a normal value per minute, interpolated.
    private func smoothNoise(_ label: String, _ t: Microseconds, sd: Double) -> Double {
        let minute = t / 60_000_000
        let frac = Double(t % 60_000_000) / 60_000_000
        func at(_ m: Int64) -> Double {
            var rng = SplitMix64(seed: seed, .text(label), .text(person.id), .number(m))
            return rng.normal(sd: sd)
        }
        return at(minute) * (1 - frac) + at(minute + 1) * frac
    }
}

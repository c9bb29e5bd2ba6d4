import HealthModel

/// Steps, distance, flights and active energy.
extension DayContext {
    /// Steps per chunk of on-foot movement, each device counting with its own small error.
    func stepChunks(every seconds: Double) -> [(span: Range<Microseconds>, steps: Double, stride: Double)] {
        carriedSegments().flatMap { segment -> [(span: Range<Microseconds>, steps: Double, stride: Double)] in
            var r = rng("step-error", segment.start)
            let factor = 1 + r.normal(sd: 0.02)
            let stride = body.person.strideMeters * (segment.cadence > 140 ? 1.35 : 1)
            return chunks(segment.start, segment.end, every: seconds).map { span in
                (span, (body.steps(span.lowerBound, span.upperBound) * factor).rounded(), stride)
            }
        }
    }

    /// Step counts over the walks and on-foot workouts the device was carried on.
    func steps(_ spec: SignalSpec) -> [Sample] {
        stepChunks(every: spec.everySeconds ?? 60).filter { $0.steps > 0 }.map {
            factory.quantity(HKType.stepCount, $0.steps, canonical: "count", unit: spec.unit,
                             start: $0.span.lowerBound, end: $0.span.upperBound)
        }
    }

    /// Distance = steps × stride over the same chunks.
    func distance(_ spec: SignalSpec) -> [Sample] {
        stepChunks(every: spec.everySeconds ?? 60).filter { $0.steps > 0 }.map {
            factory.quantity(HKType.distanceWalkingRunning, $0.steps * $0.stride, canonical: "m", unit: spec.unit,
                             start: $0.span.lowerBound, end: $0.span.upperBound)
        }
    }

    /// Flights climbed on walks that had stairs, one minute near the walk's middle.
    func flightsClimbed(_ spec: SignalSpec) -> [Sample] {
        let carried = Set(carriedSegments().map(\.start))
        return plan.walks.filter { $0.flights > 0 && carried.contains($0.start) }.map { walk in
            let mid = walk.start + (walk.end - walk.start) / 2
            return factory.quantity(HKType.flightsClimbed, Double(walk.flights), canonical: "count", unit: spec.unit,
                                    start: mid, end: min(walk.end, mid + 60_000_000))
        }
    }

    /// Energy from heart rate over `everySeconds` chunks while awake, minute chunks during the workout.
    func activeEnergy(_ spec: SignalSpec) -> [Sample] {
        let every = spec.everySeconds ?? 600
        let awake = plan.wake..<plan.night.inBedStart
        var spans: [Range<Microseconds>] = []
        var cursor = max(plan.dayStart, awake.lowerBound)
        for workout in workoutSpans {
            spans += chunks(cursor, workout.lowerBound, every: every)
            spans += chunks(workout.lowerBound, workout.upperBound, every: 60)
            cursor = workout.upperBound
        }
        spans += chunks(cursor, min(plan.dayEnd, awake.upperBound), every: every)
        return spans.compactMap { span in
            let kcal = body.integrate(span.lowerBound, span.upperBound, perMinute: body.activeEnergyRate)
            guard kcal >= 0.05 else { return nil }
            return factory.quantity(HKType.activeEnergy, kcal, canonical: "kcal", unit: spec.unit,
                                    start: span.lowerBound, end: span.upperBound)
        }
    }
}

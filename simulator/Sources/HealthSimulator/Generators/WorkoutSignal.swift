import HealthModel

/// Workouts: the workout sample with pause/resume and segment events, cycling distance, and — once
/// the day's other samples exist — the samples it is associated with and totals that add up to them.
extension DayContext {
    /// Cycling distance per minute (other distances come from the distance signal).
    func cyclingDistance() -> [Sample] {
        guard let w = plan.workout, let speed = w.speed else { return [] }
        return workoutSpans.flatMap { chunks($0.lowerBound, $0.upperBound, every: 60) }.map { span in
            let metres = speed * Double(span.upperBound - span.lowerBound) / 1_000_000
            return factory.quantity(HKType.distanceCycling, metres, canonical: "m", unit: nil,
                                    start: span.lowerBound, end: span.upperBound)
        }
    }

    /// The workout sample, associated with `samples` (this device's samples inside it).
    func workout(associating samples: [Sample]) -> Sample? {
        guard let w = plan.workout else { return nil }
        var events: [WorkoutEvent] = []
        if let p = w.pause {
            events += [WorkoutEvent(type: .pause, start: p.lowerBound, end: p.lowerBound),
                       WorkoutEvent(type: .resume, start: p.upperBound, end: p.upperBound)]
        }
        events += chunks(w.start, w.end, every: 600).map { WorkoutEvent(type: .segment, start: $0.lowerBound, end: $0.upperBound) }
        events.sort { ($0.start, $0.type.rawValue) < ($1.start, $1.type.rawValue) }
        let inside = samples.filter { $0.start >= w.start && $0.end <= w.end && Self.associatedTypes.contains($0.type) }
        let workout = Workout(activityType: w.activityType, events: events, statistics: Self.statistics(of: inside),
                              associatedSampleUUIDs: inside.map(\.uuid))
        return factory.workout(workout, start: w.start, end: w.end,
                               extra: ["HKIndoorWorkout": .bool(w.activityType == 50)])
    }

    static let associatedTypes: Set<String> = [HKType.heartRate, HKType.activeEnergy, HKType.distanceWalkingRunning,
                                               HKType.distanceCycling, HKType.stepCount]

    /// Sums for cumulative types, average/min/max for heart rate, in canonical-for-display units.
    static func statistics(of samples: [Sample]) -> [WorkoutStatistic] {
        let byType = Dictionary(grouping: samples, by: \.type)
        return byType.keys.sorted().compactMap { type in
            let unit = type == HKType.heartRate ? "count/min" : type == HKType.activeEnergy ? "kcal" : type == HKType.stepCount ? "count" : "m"
            let values = byType[type]!.compactMap { try? $0.quantity?.value(in: unit) }
            guard !values.isEmpty else { return nil }
            if type == HKType.heartRate {
                let avg = values.reduce(0, +) / Double(values.count)
                return WorkoutStatistic(quantityType: type, average: Quantity((avg * 10).rounded() / 10, unit),
                                        minimum: Quantity(values.min()!, unit), maximum: Quantity(values.max()!, unit))
            }
            return WorkoutStatistic(quantityType: type, sum: Quantity(values.reduce(0, +), unit))
        }
    }
}

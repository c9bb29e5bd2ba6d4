import Foundation
import HealthModel

/// The series a watch records alongside two kinds of samples: during a workout the GPS route of an
/// outdoor one (at the workout's pace, skipping its pause), a heart-rate series (a reading every 5 s
/// following the workout's intensity) and, on foot, a step-count series (a point a minute); and the
/// beats behind a heart rate variability reading. Each is derived from the acknowledged sample and
/// the seed alone, so a retry or a re-run of the same seed builds exactly the same series under the
/// same UUID.
public struct DerivedSeries: Sendable, Hashable {
    /// The series sample's UUID (the builder id).
    public let id: UUID
    public let type: String
    /// A heartbeat series' start; a route's first location.
    public let start: Microseconds
    public let points: SeriesPoints
    /// The workout a route belongs to.
    public let workout: UUID?
    public let device: Device?

    /// What the run's statistics count for this series: a sample of its type holding its points (for
    /// a quantity series the sample finishing its builder stores).
    public var sample: Sample {
        if case .quantities(let quantities) = points, let type = TypeCatalog.type(type),
           var summary = try? QuantitySeriesSummary(type: type), (try? summary.add(quantities)) != nil,
           let finished = try? summary.sample(uuid: id, start: start, end: nil, metadata: [:], device: device) {
            return finished
        }
        let end: Microseconds = switch points {
        case .locations(let locations): locations.last?.time ?? start
        case .beats(let beats): start + (beats.last?.offset ?? 0)
        case .quantities(let points): points.last?.end ?? start
        case .voltages: start
        }
        return Sample(uuid: id, type: type, start: start, end: end, device: device, body: .series(count: Int64(points.count)))
    }

    /// Seconds between route locations and between heart-rate readings.
    static let locationEvery: Int64 = 5

    /// The series recorded with `sample`, in the order the watch builds them.
    public static func of(_ sample: Sample, seed: UInt64) -> [DerivedSeries] {
        switch sample.type {
        // No step series: the watch's step samples already cover its on-foot workouts, and a series
        // of the same minutes from the same source would count them twice.
        case HKType.workout: [route(of: sample, seed: seed), heartRate(of: sample, seed: seed)].compactMap { $0 }
        case HKType.hrvSDNN: [beats(of: sample, seed: seed)].compactMap { $0 }
        default: []
        }
    }

    private static func route(of sample: Sample, seed: UInt64) -> DerivedSeries? {
        guard let workout = sample.workout, sample.metadata["HKIndoorWorkout"] != .bool(true) else { return nil }
        let active = Double(workout.activeDuration(start: sample.start, end: sample.end)) / 1_000_000
        let metres = workout.statistics.filter { $0.quantityType.contains("Distance") }.compactMap { $0.sum?.value }.reduce(0, +)
        guard active > 0, metres > 0 else { return nil }
        let pace = metres / active
        let paused = pauses(workout.events)
        var r = SplitMix64(seed: seed, .text(sample.uuid.uuidString), .text("route"))
        var latitude = 47.3 + r.uniform(0...0.2), longitude = 8.4 + r.uniform(0...0.2), altitude = r.uniform(380...520)
        var heading = r.uniform(0...359)
        var locations: [RouteLocation] = []
        var t = sample.start
        while t <= sample.end {
            if !paused.contains(where: { $0.contains(t) }) {
                let speed = max(0.5, pace * r.uniform(0.9...1.1))
                locations.append(RouteLocation(time: t, latitude: latitude, longitude: longitude, altitude: altitude,
                                               horizontalAccuracy: r.uniform(3...8), verticalAccuracy: r.uniform(3...6),
                                               course: heading, courseAccuracy: 10, speed: speed, speedAccuracy: 0.5).onGrid)
                let step = speed * Double(locationEvery)
                latitude += step * cos(heading * .pi / 180) / 111_320
                longitude += step * sin(heading * .pi / 180) / (111_320 * cos(latitude * .pi / 180))
                altitude += r.normal(sd: 0.4)
                heading = (heading + r.normal(sd: 8)).truncatingRemainder(dividingBy: 360)
                if heading < 0 { heading += 360 }
            }
            t += locationEvery * 1_000_000
        }
        guard let first = locations.first else { return nil }
        return DerivedSeries(id: r.uuid(), type: HKType.workoutRoute, start: first.time, points: .locations(locations),
                             workout: sample.uuid, device: sample.device)
    }

    /// Heart rate every 5 s while the workout runs: a warm-up from near rest to the workout's average
    /// (its heart-rate statistic, or a typical one for the activity), slow drift and sensor noise.
    private static func heartRate(of sample: Sample, seed: UInt64) -> DerivedSeries? {
        guard let workout = sample.workout else { return nil }
        let statistic = workout.statistics.first { $0.quantityType == HKType.heartRate }?.average
        let target = statistic.flatMap { try? $0.value(in: "count/min") } ?? typicalHeartRate[workout.activityType] ?? 125
        let paused = pauses(workout.events)
        var r = SplitMix64(seed: seed, .text(sample.uuid.uuidString), .text("heartRate"))
        let rest = r.uniform(62...78), warmUp = r.uniform(180...300) * 1_000_000
        var drift = 0.0
        var points: [QuantitySeriesPoint] = []
        var t = sample.start
        while t < sample.end {
            if !paused.contains(where: { $0.contains(t) }) {
                let ramp = min(1, Double(t - sample.start) / warmUp)
                drift = max(-8, min(8, drift + r.normal(sd: 0.4)))
                let bpm = (rest + (target - rest) * ramp + drift + r.normal(sd: 1.5)).rounded()
                points.append(QuantitySeriesPoint(Quantity(max(40, bpm), "count/min"), start: t))
            }
            t += locationEvery * 1_000_000
        }
        guard let first = points.first else { return nil }
        return DerivedSeries(id: r.uuid(), type: HKType.heartRate, start: first.start, points: .quantities(points),
                             workout: nil, device: sample.device)
    }

    /// Beats per minute a workout averages when it has no heart-rate statistic, by activity type.
    static let typicalHeartRate: [Int32: Double] = [37: 150, 52: 105, 13: 140, 50: 120]

    private static func beats(of sample: Sample, seed: UInt64) -> DerivedSeries? {
        guard let reading = sample.quantity, let sdnn = try? reading.value(in: "ms") else { return nil }
        var r = SplitMix64(seed: seed, .text(sample.uuid.uuidString), .text("beats"))
        let meanInterval = r.uniform(0.95...1.15)
        var beats: [Heartbeat] = []
        var offset: Int64 = 0
        while offset <= sample.end - sample.start, beats.count < SeriesRules.maximumHeartbeats {
            beats.append(Heartbeat(offset: offset, precededByGap: !beats.isEmpty && r.chance(0.01)))
            offset += Int64(max(0.3, r.normal(mean: meanInterval, sd: sdnn / 1_000)) * 1_000_000)
        }
        return DerivedSeries(id: r.uuid(), type: HKType.heartbeatSeries, start: sample.start, points: .beats(beats),
                             workout: nil, device: sample.device)
    }

    private static func pauses(_ events: [WorkoutEvent]) -> [Range<Microseconds>] {
        let pauses = events.filter { $0.type == .pause }.map(\.start)
        let resumes = events.filter { $0.type == .resume }.map(\.start)
        return zip(pauses, resumes).compactMap { $0 < $1 ? $0..<$1 : nil }
    }
}

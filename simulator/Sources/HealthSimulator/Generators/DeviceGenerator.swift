import HealthModel

/// Generates one device's samples for any time window, deterministically from the seed: the same
/// seed, profile and window always give the same samples with the same UUIDs.
public struct DeviceGenerator: Sendable {
    public let profile: DeviceProfile
    public let timeline: PersonTimeline
    private let factory: SampleFactory
    private let seed: UInt64

    public init(profile: DeviceProfile, person: PersonProfile, seed: UInt64) throws {
        self.profile = profile
        self.seed = seed
        timeline = try PersonTimeline(person: person, seed: seed)
        factory = SampleFactory(identity: StableIdentity(seed: seed, deviceKey: profile.device.localIdentifier),
                                device: profile.device.device, timeZone: person.timeZone)
    }

    /// Samples whose start lies in [from, to), and workouts whose end does (a device records a
    /// workout once it ends, when every sample it is associated with has been sent), in upload order.
    public func samples(from: Microseconds, to: Microseconds) -> [Sample] {
        guard from < to else { return [] }
        var out: [Sample] = []
        // The day before too: its night's stages and evening workout run past midnight into this window.
        for day in (timeline.day(of: from) - 1)...timeline.day(of: to - 1) {
            out += samples(day: day).filter { sample in
                let recorded = sample.type == HKType.workout ? sample.end : sample.start
                return from <= recorded && recorded < to
            }
        }
        return out.sorted(by: Self.uploadOrder)
    }

    /// Every sample belonging to one local day (a night belongs to the day it starts on).
    public func samples(day: Int) -> [Sample] {
        let context = DayContext(profile: profile, plan: timeline.plan(day),
                                 body: Physiology(timeline: timeline, days: (day - 1)...(day + 1)),
                                 factory: factory, seed: seed)
        var out: [Sample] = []
        for spec in profile.signals {
            switch spec.kind {
            case .heartRate: out += context.heartRate(spec)
            case .restingHeartRate: out += context.restingHeartRate(spec)
            case .heartRateVariability: out += context.heartRateVariability(spec)
            case .oxygenSaturation: out += context.oxygenSaturation(spec)
            case .activeEnergy: out += context.activeEnergy(spec)
            case .steps: out += context.steps(spec)
            case .distance: out += context.distance(spec)
            case .flightsClimbed: out += context.flightsClimbed(spec)
            case .sleep: out += context.sleep(spec)
            case .workouts: out += context.cyclingDistance()
            case .bodyMass: out += context.bodyMass(spec)
            case .bodyFatPercentage: out += context.bodyFatPercentage(spec)
            case .bloodPressure: out += context.bloodPressure(spec)
            case .bodyTemperature: out += context.bodyTemperature(spec)
            case .electrocardiogram: out += context.electrocardiogram(spec)
            case .stateOfMind: out += context.stateOfMind(spec)
            case .assessments: out += context.assessments(spec)
            }
        }
        // The workout goes last: it refers to the samples above.
        if profile.signal(.workouts) != nil, let workout = context.workout(associating: out) {
            out.append(workout)
        }
        return out
    }

    /// By end time (a device knows a sample once it ends), workouts after the samples they refer to,
    /// then by start and UUID so the order is total.
    public static func uploadOrder(_ a: Sample, _ b: Sample) -> Bool {
        let wa = a.type == HKType.workout, wb = b.type == HKType.workout
        if a.end != b.end { return a.end < b.end }
        if wa != wb { return wb }
        if a.start != b.start { return a.start < b.start }
        return a.uuid.uuidString < b.uuid.uuidString
    }
}

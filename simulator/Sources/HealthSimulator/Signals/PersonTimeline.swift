import Foundation
import HealthModel

/// Plans a person's days deterministically from the seed: each day's plan depends only on
/// (seed, person, day), so any window can be generated on its own and always looks the same.
public struct PersonTimeline: Sendable {
    public let person: PersonProfile
    public let seed: UInt64
    private let calendar: Calendar
    private static let minute: Microseconds = 60_000_000
    private static let hour: Microseconds = 3_600_000_000

    public init(person: PersonProfile, seed: UInt64) throws {
        guard let zone = TimeZone(identifier: person.timeZone) else {
            throw HealthError.invalid("person '\(person.id)' has unknown time zone '\(person.timeZone)'", field: "people.timeZone")
        }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        self.calendar = calendar
        self.person = person
        self.seed = seed
    }

    /// Local day number (days since 1970-01-01 in the person's zone) containing `t`.
    public func day(of t: Microseconds) -> Int {
        let c = calendar.dateComponents([.year, .month, .day], from: Time.date(t))
        var utc = Calendar(identifier: .gregorian)
        utc.timeZone = TimeZone(identifier: "UTC")!
        let midnight = utc.date(from: c)!
        return Int((midnight.timeIntervalSince1970 / 86_400).rounded())
    }

    /// Local midnight starting day `day`.
    public func dayStart(_ day: Int) -> Microseconds {
        var utc = Calendar(identifier: .gregorian)
        utc.timeZone = TimeZone(identifier: "UTC")!
        let c = utc.dateComponents([.year, .month, .day], from: Date(timeIntervalSince1970: Double(day) * 86_400))
        return Time.micros(calendar.date(from: c)!)
    }

    /// The plan of one day.
    public func plan(_ day: Int) -> DayPlan {
        let start = dayStart(day), end = dayStart(day + 1)
        let wake = night(day - 1).inBedEnd
        let night = night(day)
        var rng = SplitMix64(seed: seed, "plan", .text(person.id), .number(Int64(day)))
        let workout = planWorkout(&rng, dayStart: start, wake: wake, bed: night.inBedStart)
        let walks = planWalks(&rng, dayStart: start, wake: wake, bed: night.inBedStart, avoiding: workout)
        var body = SplitMix64(seed: seed, "body", .text(person.id), .number(Int64(day)))
        let d = Double(day)
        let weight = person.weightKg + 1.2 * sin(2 * .pi * d / 45) + 0.3 * sin(2 * .pi * d / 7) + body.normal(sd: 0.15)
        let fat = person.bodyFat + 0.004 * (weight - person.weightKg) + body.normal(sd: 0.003)
        let fever = body.chance(0.04) ? body.uniform(1.0...2.0) : 0
        let temperature = 36.6 + body.normal(sd: 0.2) + fever
        return DayPlan(day: day, dayStart: start, dayEnd: end, wake: wake, night: night, walks: walks,
                       workout: workout, weightKg: weight, bodyFat: fat, bodyTemperature: temperature)
    }

    /// The night that starts on the evening of `day`.
    public func night(_ day: Int) -> Night {
        var rng = SplitMix64(seed: seed, "night", .text(person.id), .number(Int64(day)))
        let start = dayStart(day), next = dayStart(day + 1)
        let bed = start + at(hours: person.bedtimeHour + rng.normal(sd: 0.4))
        let out = next + at(hours: person.wakeHour + rng.normal(sd: 0.3))
        let sleepEnd = out - at(minutes: rng.uniform(2...10))
        var t = bed + at(minutes: rng.uniform(5...20))
        var stages: [SleepStage] = []
        var cycle = 0.0
        func add(_ value: Int64, minutes: Double) {
            guard t < sleepEnd, minutes > 0 else { return }
            let end = min(sleepEnd, t + at(minutes: minutes))
            stages.append(SleepStage(value: value, start: t, end: end))
            t = end
        }
        // Cycles of roughly 90 minutes: deep sleep early in the night, REM growing towards morning.
        while t < sleepEnd {
            add(3, minutes: rng.uniform(15...35))
            add(4, minutes: max(0, 40 - 9 * cycle) * rng.uniform(0.6...1.1))
            add(3, minutes: rng.uniform(5...15))
            add(5, minutes: (8 + 6 * cycle) * rng.uniform(0.7...1.2))
            if rng.chance(0.5) { add(2, minutes: rng.uniform(1...4)) }
            cycle += 1
        }
        // Awake is only written between two sleep stages.
        while stages.last?.value == 2 { stages.removeLast() }
        return Night(inBedStart: bed, inBedEnd: out, stages: stages)
    }

    private func planWorkout(_ rng: inout SplitMix64, dayStart: Microseconds, wake: Microseconds,
                             bed: Microseconds) -> PlannedWorkout? {
        guard rng.chance(person.workoutProbability) else { return nil }
        let kinds: [(type: Int32, weight: Double)] = [(37, 0.4), (52, 0.25), (13, 0.2), (50, 0.15)]
        var pick = rng.unit(), type: Int32 = 37
        for k in kinds {
            if pick < k.weight { type = k.type; break }
            pick -= k.weight
        }
        let morning = rng.chance(0.3)
        let hour = morning ? person.wakeHour + rng.uniform(0.5...1.5) : 18.25 + rng.normal(sd: 0.75)
        let start = max(wake + at(minutes: 20), dayStart + at(hours: hour))
        let end = min(bed - at(minutes: 60), start + at(minutes: rng.uniform(25...60)))
        guard end - start > at(minutes: 10) else { return nil }
        var pause: Range<Microseconds>?
        if rng.chance(0.3) {
            let p = start + Microseconds(Double(end - start) * rng.uniform(0.4...0.6))
            pause = p..<(p + at(minutes: rng.uniform(1...4)))
        }
        switch type {
        case 37: return PlannedWorkout(activityType: type, start: start, end: end, intensity: 0.75,
                                       cadence: rng.normal(mean: 162, sd: 5), speed: nil, pause: pause)
        case 52: return PlannedWorkout(activityType: type, start: start, end: end, intensity: 0.4,
                                       cadence: rng.normal(mean: 118, sd: 4), speed: nil, pause: pause)
        case 13: return PlannedWorkout(activityType: type, start: start, end: end, intensity: 0.65,
                                       cadence: nil, speed: rng.normal(mean: 6.5, sd: 0.8), pause: pause)
        default: return PlannedWorkout(activityType: type, start: start, end: end, intensity: 0.5,
                                       cadence: nil, speed: nil, pause: pause)
        }
    }

    private func planWalks(_ rng: inout SplitMix64, dayStart: Microseconds, wake: Microseconds, bed: Microseconds,
                           avoiding workout: PlannedWorkout?) -> [Walk] {
        var spans: [(Microseconds, Double)] = [
            (wake + at(minutes: rng.uniform(60...100)), rng.uniform(8...20)),
            (dayStart + at(hours: 12.25 + rng.normal(sd: 0.4)), rng.uniform(10...25)),
            (dayStart + at(hours: 17.5 + rng.normal(sd: 0.4)), rng.uniform(8...20)),
        ]
        let awake = Double(bed - wake) / Double(Self.minute)
        for _ in 0..<Int(rng.uniform(4...9)) {
            spans.append((wake + at(minutes: rng.uniform(15...max(16, awake - 30))), rng.uniform(1...6)))
        }
        var walks: [Walk] = []
        for (start, minutes) in spans.sorted(by: { $0.0 < $1.0 }) {
            let end = start + at(minutes: minutes)
            let cadence = rng.normal(mean: 108, sd: 6)
            let flights = rng.chance(0.3) ? Int(rng.uniform(1...3.99)) : 0
            guard start >= wake + at(minutes: 10), end <= bed - at(minutes: 15) else { continue }
            if let w = workout, start < w.end + at(minutes: 5), end > w.start - at(minutes: 5) { continue }
            if let last = walks.last, start < last.end + at(minutes: 2) { continue }
            walks.append(Walk(start: start, end: end, cadence: cadence, flights: flights))
        }
        return walks
    }

    private func at(hours: Double) -> Microseconds { Microseconds(hours * Double(Self.hour)) }
    private func at(minutes: Double) -> Microseconds { Microseconds(minutes * Double(Self.minute)) }
}

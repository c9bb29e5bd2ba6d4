import Foundation
import HealthModel

/// Drives a fleet through simulated time (realtime, accelerated or backfill): generates each
/// device's samples a few hours ahead, hands them to its uplink once they have ended in simulated
/// time, and waits for the uplinks to drain at the end.
public struct FleetRun: Sendable {
    public let fleet: FleetProfile
    public let options: RunOptions
    public let connector: any StoreConnector
    public let stats: RunStats

    public init(fleet: FleetProfile, options: RunOptions, connector: any StoreConnector, stats: RunStats) {
        self.fleet = fleet
        self.options = options
        self.connector = connector
        self.stats = stats
    }

    /// One device's generator, uplink and samples generated but not yet due.
    private final class Lane: @unchecked Sendable {
        // Touched only by the driver task.
        let generator: DeviceGenerator
        let uplink: DeviceUplink
        var generatedUntil: Microseconds
        var pending: [Sample] = []

        init(generator: DeviceGenerator, uplink: DeviceUplink, start: Microseconds) {
            self.generator = generator
            self.uplink = uplink
            generatedUntil = start
        }
    }

    /// Runs until the simulated window is done (or `duration` for realtime) and the uplinks drained.
    public func run(now: Microseconds = Time.now()) async throws {
        let day: Double = 86_400_000_000
        let window: (start: Microseconds, end: Microseconds) = switch options.mode {
        case .realtime: (now, options.duration.map { now + Microseconds($0 * 1_000_000) } ?? .max)
        default: (now - Microseconds(options.simulatedDays * day), now)
        }
        let enrollment = Enrollment(connector: connector, stateDirectory: options.stateDirectory.isEmpty ? nil : options.stateDirectory)
        var configuration = DeviceUplink.Configuration()
        configuration.batchSize = options.batchSize
        configuration.approve = options.approve
        configuration.faultRate = options.faultRate
        configuration.seed = options.seed
        let lanes = try fleet.devices.map { profile in
            let person = fleet.person(for: profile)!
            return Lane(generator: try DeviceGenerator(profile: profile, person: person, seed: options.seed),
                        uplink: DeviceUplink(profile: profile, connector: connector, enrollment: enrollment, stats: stats,
                                             configuration: configuration),
                        start: window.start)
        }
        let wallStart = ContinuousClock.now
        try await withThrowingTaskGroup(of: TaskEnd.self) { group in
            for lane in lanes {
                group.addTask { await lane.uplink.run(); return .finished }
            }
            var simNow = window.start
            while simNow < window.end {
                let elapsed = ContinuousClock.now - wallStart
                let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
                simNow = switch options.mode {
                case .realtime: min(window.end, Time.now())
                case .backfill: window.end
                default: min(window.end, window.start + Microseconds(seconds * options.speed * 1_000_000))
                }
                for lane in lanes {
                    await release(lane, upTo: simNow, end: window.end)
                }
                if simNow < window.end { try await Task.sleep(for: .milliseconds(100)) }
            }
            for lane in lanes { await lane.uplink.finish() }
            try await Self.drain(&group, tasks: lanes.count, timeout: options.drainTimeout, stats: stats)
        }
    }

    /// How a task of a run's group ended: a device task finished, the drain timeout passed, the
    /// futility watch fired, or the watch was stopped with the run.
    enum TaskEnd: Sendable { case finished, timedOut, futile, watchStopped }

    /// Waits for `tasks` device tasks; cancels them after `timeout`, or as soon as the run is futile:
    /// the server refused the first save calls and acknowledged nothing, so sending on for the
    /// whole duration would only repeat the refusal.
    static func drain(_ group: inout ThrowingTaskGroup<TaskEnd, any Error>, tasks: Int, timeout: Double, stats: RunStats) async throws {
        group.addTask {
            try? await Task.sleep(for: .seconds(timeout))
            return .timedOut
        }
        group.addTask {
            while !Task.isCancelled {
                if isFutile(stats.snapshot) { return .futile }
                try? await Task.sleep(for: .milliseconds(100))
            }
            return .watchStopped
        }
        var remaining = tasks
        defer { group.cancelAll() }
        while remaining > 0, let end = try await group.next() {
            switch end {
            case .finished:
                remaining -= 1
            case .watchStopped:
                break
            case .timedOut:
                FileHandle.standardError.write(Data("healthsim: gave up after \(timeout) s with \(remaining) task(s) still uploading\n".utf8))
                group.cancelAll()
            case .futile:
                throw RunRefused(stats.snapshot)
            }
        }
        // A run short enough to end before the watch looked is judged the same way.
        if Self.isFutile(stats.snapshot) { throw RunRefused(stats.snapshot) }
    }

    private static func isFutile(_ snapshot: RunStats.Snapshot) -> Bool {
        snapshot.acknowledged == 0 && snapshot.refusedCalls >= futileAfter
    }

    /// Refused save calls, with nothing acknowledged, after which a run stops.
    static let futileAfter = 5

    /// Generates up to six hours ahead of `simNow` and enqueues what has ended by then; in backfill
    /// it waits while the uplink holds a large backlog so memory stays bounded.
    private func release(_ lane: Lane, upTo simNow: Microseconds, end: Microseconds) async {
        let step: Microseconds = 6 * 3_600_000_000
        let horizon = min(end, simNow.addingReportingOverflow(step).partialValue)
        repeat {
            if lane.generatedUntil < horizon {
                let next = min(horizon, lane.generatedUntil + step)
                lane.pending += lane.generator.samples(from: lane.generatedUntil, to: next)
                lane.pending.sort(by: DeviceGenerator.uploadOrder)
                lane.generatedUntil = next
            }
            let due = lane.pending.prefix { $0.end <= simNow }
            lane.pending.removeFirst(due.count)
            await lane.uplink.enqueue(Array(due))
            while options.mode == .backfill, await lane.uplink.backlog > 20 * options.batchSize, !Task.isCancelled {
                try? await Task.sleep(for: .milliseconds(20))
            }
        } while lane.generatedUntil < horizon && !Task.isCancelled
    }
}

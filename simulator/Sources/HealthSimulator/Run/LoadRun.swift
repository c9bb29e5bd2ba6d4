import Foundation
import HealthModel

/// Load mode: `devices` connections of one load-test app, each saving `rate` heart-rate samples per
/// second in batches for `duration` wall seconds, then stopping by itself.
public struct LoadRun: Sendable {
    public let options: RunOptions
    public let connector: any StoreConnector
    public let stats: RunStats

    public init(options: RunOptions, connector: any StoreConnector, stats: RunStats) {
        self.options = options
        self.connector = connector
        self.stats = stats
    }

    /// The app every load connection saves as.
    public static let source = SourceSpec(bundleID: "com.healthsim.load", name: "HealthSim Load", version: "1.0",
                                          productType: "LoadRig1,1", osVersion: "1.0.0")

    /// Load device `index`: its own HKDevice under the shared app.
    public static func profile(_ index: Int) -> DeviceProfile {
        DeviceProfile(id: "load-\(index)", person: "load", source: source,
                      device: DeviceSpec(name: "Load Sensor \(index)", manufacturer: "HealthSim", model: "LS-1",
                                         hardwareVersion: "1", firmwareVersion: "1.0", softwareVersion: "1.0",
                                         localIdentifier: "healthsim-load-\(index)"),
                      signals: [SignalSpec(kind: .heartRate, unit: "count/min")])
    }

    public func run(now: Microseconds = Time.now()) async throws {
        let enrollment = Enrollment(connector: connector, stateDirectory: options.stateDirectory.isEmpty ? nil : options.stateDirectory)
        // Authorize the shared app once, before the crowd arrives.
        let first = Self.profile(0)
        let (link, _) = try await enrollment.connect(Self.source, device: first.device.device)
        try await link.requestAuthorization(share: first.shareTypes, read: [])
        if options.approve {
            try await connector.approve(bundleID: Self.source.bundleID, share: first.shareTypes, read: [])
        }
        link.close()

        var configuration = DeviceUplink.Configuration()
        configuration.batchSize = max(1, min(options.batchSize, Int(options.rate.rounded(.up))))
        configuration.faultRate = options.faultRate
        configuration.seed = options.seed
        let batchSize = configuration.batchSize, uplinkConfiguration = configuration
        let duration = options.duration ?? 10
        let ticks = max(1, Int((duration * options.rate / Double(batchSize)).rounded()))
        let tick = Duration.seconds(Double(batchSize) / options.rate)
        let stopAt = ContinuousClock.now + .seconds(duration)
        try await withThrowingTaskGroup(of: FleetRun.TaskEnd.self) { group in
            for index in 0..<options.devices {
                let profile = Self.profile(index)
                let uplink = DeviceUplink(profile: profile, connector: connector, enrollment: enrollment, stats: stats,
                                          configuration: uplinkConfiguration)
                group.addTask { await uplink.run(); return .finished }
                group.addTask {
                    let factory = SampleFactory(identity: StableIdentity(seed: options.seed, deviceKey: profile.device.localIdentifier),
                                                device: profile.device.device, timeZone: "UTC")
                    var rng = SplitMix64(seed: options.seed, "load", .number(Int64(index)))
                    let spacing = Microseconds(1_000_000 / options.rate)
                    var t = now
                    // Real devices are not synchronised: each starts at its own seeded point of
                    // its period, so sends spread over the tick (--burst sends all in the same tick).
                    if !options.burst { try? await Task.sleep(for: tick * rng.uniform(0...1)) }
                    for _ in 0..<ticks where ContinuousClock.now < stopAt && !Task.isCancelled {
                        let batch = (0..<batchSize).map { _ in
                            defer { t += max(1, spacing) }
                            return factory.quantity(HKType.heartRate, rng.normal(mean: 72, sd: 8).rounded(),
                                                    canonical: "count/min", unit: "count/min", start: t, end: t)
                        }
                        await uplink.enqueue(batch)
                        try? await Task.sleep(for: tick)
                    }
                    await uplink.finish()
                    return .finished
                }
            }
            try await FleetRun.drain(&group, tasks: 2 * options.devices, timeout: duration + options.drainTimeout, stats: stats)
        }
    }
}

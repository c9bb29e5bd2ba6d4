import Foundation
import HealthModel

/// Uploads one device's samples in order: buffers while disconnected, reconnects with exponential
/// backoff, retries a batch until the server answers it (stable UUIDs and sync identifiers make a
/// retry harmless), and injects faults when asked.
public actor DeviceUplink {
    /// What the uplink needs besides the samples.
    public struct Configuration: Sendable {
        public var batchSize = 200
        public var approve = false
        public var faultRate = 0.0
        public var seed: UInt64 = 0
        public var initialBackoff: Duration = .milliseconds(100)
        public var maxBackoff: Duration = .seconds(5)

        public init() {}
    }

    public let profile: DeviceProfile
    private let connector: any StoreConnector
    private let enrollment: Enrollment
    private let stats: RunStats
    private let configuration: Configuration
    private var faults: FaultPlan
    private var buffer: [Sample] = []
    private var link: (any StoreLink)?
    private var token: String?
    private var authorized = false
    private var finishing = false
    /// Set when the device cannot go on (no owner token, app refused): later samples are refused too.
    private var failure: HealthError?
    private var wake: CheckedContinuation<Void, Never>?

    public init(profile: DeviceProfile, connector: any StoreConnector, enrollment: Enrollment, stats: RunStats,
                configuration: Configuration) {
        self.profile = profile
        self.connector = connector
        self.enrollment = enrollment
        self.stats = stats
        self.configuration = configuration
        faults = FaultPlan(rate: configuration.faultRate, seed: configuration.seed, deviceKey: profile.device.localIdentifier)
    }

    /// Samples not yet acknowledged or rejected.
    public var backlog: Int { buffer.count }

    /// Adds samples to upload, in order.
    public func enqueue(_ samples: [Sample]) {
        guard !samples.isEmpty else { return }
        stats.generated(samples.count)
        if let failure {
            stats.rejected(samples, error: failure, latencyMs: nil)
            return
        }
        buffer += samples
        resume()
    }

    /// Lets `run` return once the buffer is empty.
    public func finish() {
        finishing = true
        resume()
    }

    /// Uploads until `finish` was called and everything buffered got an answer.
    public func run() async {
        while !Task.isCancelled {
            if buffer.isEmpty {
                if finishing || Task.isCancelled { break }
                await withCheckedContinuation { wake = $0 }
                continue
            }
            await uploadNextBatch()
        }
        if link != nil { stats.connected(-1) }
        link?.close()
        link = nil
    }

    private func resume() {
        wake?.resume()
        wake = nil
    }

    private func uploadNextBatch() async {
        // The watch's ECG recordings go one by one through the owner (the Health app saves them).
        if let first = buffer.first, Self.savedByOwner(first) {
            if await deliver([first], countsAsData: true, asOwner: true) { buffer.removeFirst() }
            return
        }
        var count = min(configuration.batchSize, buffer.prefix { !Self.savedByOwner($0) }.count)
        var offset = 0
        // Out of order: the following batch goes first, unless a workout (which refers to earlier
        // samples) or an owner's sample is in it.
        if buffer.count > count, faults.outOfOrder() {
            let next = buffer[count..<min(buffer.count, 2 * count)]
            if !next.contains(where: { $0.type == HKType.workout || Self.savedByOwner($0) }) {
                offset = count
                count = next.count
                stats.fault("outOfOrderBatches")
            }
        }
        let batch = Array(buffer[offset..<(offset + count)])
        if let template = batch.first, let invalid = faults.invalidSample(like: template) {
            stats.fault("invalid." + invalid.kind)
            await deliver([invalid.sample], countsAsData: false)
        }
        if await deliver(batch, countsAsData: true) {
            buffer.removeSubrange(offset..<(offset + count))
            for series in batch.flatMap({ DerivedSeries.of($0, seed: configuration.seed) }) { await deliver(series) }
            if faults.duplicateSend() {
                stats.fault("duplicateSends")
                await deliver(batch, countsAsData: false)
            }
        }
    }

    /// The source the server stamps on the owner's saves.
    static let healthAppBundleID = "com.apple.Health"

    /// Samples the Health app saves with the owner's credential rather than the device's app.
    static func savedByOwner(_ sample: Sample) -> Bool { sample.type == HKType.electrocardiogram }

    /// Sends one batch (through the owner with `asOwner`) until it gets an answer; true when the
    /// batch is done with (acknowledged or rejected), false only if the run was cancelled.
    @discardableResult
    private func deliver(_ batch: [Sample], countsAsData: Bool, asOwner: Bool = false) async -> Bool {
        var attempt = 0
        while !Task.isCancelled {
            guard let link = await connected() else { return false }
            let started = ContinuousClock.now
            do {
                let outcomes: [SaveOutcome]
                if asOwner {
                    outcomes = try await connector.saveAsOwner(batch)
                } else if faults.disconnectMidBatch() {
                    stats.fault("disconnects")
                    async let saving = link.save(batch)
                    try? await Task.sleep(for: .milliseconds(1))
                    link.close()
                    outcomes = try await saving
                } else {
                    outcomes = try await link.save(batch)
                }
                stats.acknowledged(batch, outcomes: outcomes, bundleID: asOwner ? Self.healthAppBundleID : profile.source.bundleID,
                                   latencyMs: Self.ms(since: started))
                return true
            } catch is CancellationError {
                // The run ended (drain timeout) while the batch was in flight: it stays unanswered,
                // neither acknowledged nor rejected.
                stats.sentUnanswered(batch)
                return false
            } catch let error as HealthError where !error.isTransient {
                // The server's verdict on this batch (an invalid batch included): reported, never resent.
                stats.rejected(batch, error: error, latencyMs: Self.ms(since: started))
                if countsAsData, error.code == .authorizationNotDetermined || error.code == .authorizationDenied {
                    stats.authorizationError(device: profile.id, error)
                }
                return true
            } catch {
                stats.sentUnanswered(batch)
                drop()
                attempt += 1
                try? await Task.sleep(for: backoff(attempt))
            }
        }
        return false
    }

    /// Builds the series recorded with an acknowledged sample, retrying after lost connections like a batch.
    private func deliver(_ series: DerivedSeries) async {
        stats.generated(1)
        var attempt = 0
        while !Task.isCancelled {
            guard let link = await connected() else { return }
            let started = ContinuousClock.now
            do {
                let outcome = try await link.build(series)
                stats.acknowledged([series.sample], outcomes: [outcome], bundleID: profile.source.bundleID,
                                   latencyMs: Self.ms(since: started))
                return
            } catch let error as HealthError where !error.isTransient {
                stats.rejected([series.sample], error: error, latencyMs: Self.ms(since: started))
                return
            } catch {
                drop()
                attempt += 1
                try? await Task.sleep(for: backoff(attempt))
            }
        }
    }

    /// The open link, connecting (with backoff) and authorizing first when needed; nil if cancelled
    /// or the device had to give up.
    private func connected() async -> (any StoreLink)? {
        var attempt = 0
        while link == nil {
            if Task.isCancelled || failure != nil { return nil }
            do {
                try await open()
            } catch let error as HealthError where !error.isTransient {
                FileHandle.standardError.write(Data("healthsim: \(profile.id): giving up: \(error)\n".utf8))
                failure = error
                stats.rejected(buffer, error: error, latencyMs: nil)
                buffer.removeAll()
                return nil
            } catch {
                attempt += 1
                if attempt == 1 || attempt % 10 == 0 {
                    FileHandle.standardError.write(Data("healthsim: \(profile.id): \(error) (retrying)\n".utf8))
                }
                try? await Task.sleep(for: backoff(attempt))
            }
        }
        return link
    }

    private func open() async throws {
        let (opened, used) = try await enrollment.connect(profile.source, device: profile.device.device, known: token)
        token = used
        if !authorized {
            do {
                try await opened.requestAuthorization(share: profile.shareTypes, read: profile.readTypes)
                if configuration.approve {
                    try await connector.approve(bundleID: profile.source.bundleID, share: profile.shareTypes,
                                                read: profile.readTypes)
                }
            } catch let error as HealthError where !error.isTransient {
                // Reported, not fatal: the device keeps going and its saves report what the server decides.
                stats.authorizationError(device: profile.id, error)
            }
            authorized = true
        } else {
            stats.reconnected()
        }
        link = opened
        stats.connected(1)
    }

    private func drop() {
        guard let link else { return }
        link.close()
        self.link = nil
        stats.connected(-1)
    }

    private func backoff(_ attempt: Int) -> Duration {
        let factor = 1 << min(attempt - 1, 16)
        return min(configuration.maxBackoff, configuration.initialBackoff * factor)
    }

    private static func ms(since start: ContinuousClock.Instant) -> Double {
        let d = ContinuousClock.now - start
        return Double(d.components.seconds) * 1000 + Double(d.components.attoseconds) / 1e15
    }
}

import Foundation
import HealthModel
import Synchronization

/// Counters shared by every device task of a run; the report and the progress line read them.
public final class RunStats: Sendable {
    /// Everything counted so far.
    public struct Snapshot: Sendable {
        public var devicesConnected = 0
        public var generated = 0
        public var sent = 0
        /// Distinct objects the server acknowledged (retries and duplicates count once).
        public var acknowledged = 0
        public var outcomes: [String: Int] = [:]
        public var rejected: [String: Int] = [:]
        /// The first error message seen per code, to say why.
        public var rejectedExamples: [String: String] = [:]
        public var reconnects = 0
        public var batches = 0
        /// Save calls the server answered with an error.
        public var refusedCalls = 0
        public var latenciesMs: [Double] = []
        public var bySource: [String: Int] = [:]
        public var byDevice: [String: Int] = [:]
        public var byType: [String: Int] = [:]
        public var faults: [String: Int] = [:]
        /// One line per device whose saves were refused for authorization.
        public var authorizationErrors: [String: String] = [:]

        /// Objects rejected, all codes together.
        public var rejectedTotal: Int { rejected.values.reduce(0, +) }
    }

    private let state = Mutex(State())

    private struct State {
        var snapshot = Snapshot()
        var acknowledgedUUIDs = Set<UUID>()
    }

    public init() {}

    /// The counters now.
    public var snapshot: Snapshot { state.withLock { $0.snapshot } }

    func connected(_ delta: Int) { state.withLock { $0.snapshot.devicesConnected += delta } }
    func generated(_ n: Int) { state.withLock { $0.snapshot.generated += n } }
    func reconnected() { state.withLock { $0.snapshot.reconnects += 1 } }
    func fault(_ name: String) { state.withLock { $0.snapshot.faults[name, default: 0] += 1 } }

    /// A save call answered: outcomes per object; newly acknowledged objects are attributed to
    /// source, device and type (correlation children too, since they are samples of their own).
    func acknowledged(_ batch: [Sample], outcomes: [SaveOutcome], bundleID: String, latencyMs: Double) {
        state.withLock { s in
            s.snapshot.sent += batch.count
            s.snapshot.batches += 1
            s.snapshot.latenciesMs.append(latencyMs)
            for (sample, outcome) in zip(batch, outcomes) {
                s.snapshot.outcomes[Self.name(outcome), default: 0] += 1
                guard s.acknowledgedUUIDs.insert(sample.uuid).inserted else { continue }
                s.snapshot.acknowledged += 1
                for stored in [sample] + (sample.correlationObjects ?? []) {
                    s.snapshot.bySource[bundleID, default: 0] += 1
                    s.snapshot.byDevice[stored.device?.name ?? "", default: 0] += 1
                    s.snapshot.byType[stored.type, default: 0] += 1
                }
            }
        }
    }

    /// Objects refused with the error's code: by the server answering a save (with its latency), or
    /// never sent because the device gave up (latency nil).
    func rejected(_ batch: [Sample], error: HealthError, latencyMs: Double?) {
        state.withLock { s in
            if let latencyMs {
                s.snapshot.sent += batch.count
                s.snapshot.batches += 1
                s.snapshot.refusedCalls += 1
                s.snapshot.latenciesMs.append(latencyMs)
            }
            s.snapshot.rejected[error.code.name, default: 0] += batch.count
            if s.snapshot.rejectedExamples[error.code.name] == nil {
                s.snapshot.rejectedExamples[error.code.name] = error.description
            }
        }
    }

    /// A batch lost with the connection (it will be retried).
    func sentUnanswered(_ batch: [Sample]) { state.withLock { $0.snapshot.sent += batch.count } }

    func authorizationError(device: String, _ error: HealthError) {
        state.withLock { $0.snapshot.authorizationErrors[device] = error.description }
    }

    static func name(_ outcome: SaveOutcome) -> String {
        switch outcome {
        case .stored: "stored"
        case .alreadyStored: "alreadyStored"
        case .replaced: "replaced"
        case .keptExisting: "keptExisting"
        }
    }
}

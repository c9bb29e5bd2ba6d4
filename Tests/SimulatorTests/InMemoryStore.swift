import Foundation
import HealthModel
import Synchronization
@testable import HealthSimulator

/// A store behind the simulator's connector protocol with the semantics the uplink relies on:
/// per-type authorization, validation of the three invalid kinds, idempotent UUIDs and sync ids,
/// and closes that may lose an acknowledgement after the data was stored.
final class InMemoryStore: StoreConnector, Sendable {
    struct State {
        var stored: [UUID: (sample: Sample, bundleID: String)] = [:]
        var apps: [String: String] = [:]
        var requested: [String: Set<String>] = [:]
        var granted: [String: Set<String>] = [:]
        var connects = 0
    }

    let state = Mutex(State())
    /// Types the store knows.
    let knownTypes = Set(SignalKind.allCases.flatMap(\.writtenTypes) + [HKType.bloodPressure, HKType.electrocardiogram])

    func connect(token: String, revision: SourceRevision, device: Device) async throws -> any StoreLink {
        try state.withLock { s in
            guard let bundle = s.apps.first(where: { $0.value == token })?.key else {
                throw HealthError(.unauthenticated, "unknown token")
            }
            s.connects += 1
            return Link(store: self, bundleID: bundle)
        }
    }

    func registerApp(bundleID: String, name: String) async throws -> String {
        try state.withLock { s in
            guard s.apps[bundleID] == nil else { throw HealthError.invalid("app '\(bundleID)' already registered") }
            s.apps[bundleID] = "token-\(bundleID)-1"
            return s.apps[bundleID]!
        }
    }

    func rotateAppToken(bundleID: String) async throws -> String {
        state.withLock { s in
            s.apps[bundleID] = "token-\(bundleID)-\(UUID().uuidString)"
            return s.apps[bundleID]!
        }
    }

    func approve(bundleID: String, share: [String], read: [String]) async throws {
        state.withLock { $0.granted[bundleID, default: []].formUnion(share) }
    }

    /// The owner's saves, as the Health app: every type is allowed.
    static let healthApp = "com.apple.Health"

    func saveAsOwner(_ samples: [Sample]) async throws -> [SaveOutcome] {
        state.withLock { s in
            s.granted[Self.healthApp] = knownTypes
            s.requested[Self.healthApp] = knownTypes
        }
        return try save(samples, bundleID: Self.healthApp)
    }

    /// Stored top-level objects.
    var objects: [(sample: Sample, bundleID: String)] { state.withLock { Array($0.stored.values) } }

    func save(_ batch: [Sample], bundleID: String) throws -> [SaveOutcome] {
        try state.withLock { s in
            for (i, sample) in batch.enumerated() {
                guard knownTypes.contains(sample.type) else { throw HealthError.invalid("unknown type").at(index: i) }
                guard sample.start <= sample.end else { throw HealthError.invalid("end before start").at(index: i) }
                if let q = sample.quantity, !q.unit.contains("count") && !q.isCompatible(with: q.unit) {
                    throw HealthError.invalid("bad unit").at(index: i)
                }
                if let q = sample.quantity, q.unit.contains("furlong") { throw HealthError.invalid("bad unit").at(index: i) }
                let types = sample.correlationObjects?.map(\.type) ?? [sample.type]
                guard types.allSatisfy({ s.requested[bundleID]?.contains($0) ?? false }) else {
                    throw HealthError(.authorizationNotDetermined, "not requested").at(index: i)
                }
                guard types.allSatisfy({ s.granted[bundleID]?.contains($0) ?? false }) else {
                    throw HealthError(.authorizationDenied, "not granted").at(index: i)
                }
            }
            return batch.map { sample in
                if s.stored[sample.uuid] != nil { return .alreadyStored }
                s.stored[sample.uuid] = (sample, bundleID)
                return .stored
            }
        }
    }

    final class Link: StoreLink, Sendable {
        let store: InMemoryStore
        let bundleID: String
        let closed = Mutex(false)

        init(store: InMemoryStore, bundleID: String) {
            self.store = store
            self.bundleID = bundleID
        }

        func save(_ samples: [Sample]) async throws -> [SaveOutcome] {
            if closed.withLock({ $0 }) { throw HealthError(.unavailable, "closed") }
            let outcomes = try store.save(samples, bundleID: bundleID)
            // Let a concurrent close win sometimes: stored, but the acknowledgement is lost.
            await Task.yield()
            try await Task.sleep(for: .milliseconds(2))
            if closed.withLock({ $0 }) { throw HealthError(.unavailable, "closed before the answer") }
            return outcomes
        }

        func build(_ series: DerivedSeries) async throws -> SaveOutcome {
            try await save([series.sample])[0]
        }

        func requestAuthorization(share: [String], read: [String]) async throws {
            store.state.withLock { $0.requested[bundleID, default: []].formUnion(share) }
        }

        func close() { closed.withLock { $0 = true } }
    }
}

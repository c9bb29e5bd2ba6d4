import Foundation
import HealthModel
import Synchronization

/// Limits credential guessing without ever making a valid token wait for someone else's failures.
///
/// Every Hello's token is checked at once (one hash and one indexed lookup), and a valid one is
/// accepted at once. Failures are what is limited, two ways:
/// - per peer (a TCP address, or a Unix-socket client's uid and pid): after `freeFailures` failures
///   the peer is refused without its token being checked — `RESOURCE_EXHAUSTED` — for a back-off
///   that doubles with each further failure (capped); a success does not wipe the record, or one
///   valid token would reset the back-off between guesses;
/// - globally, across all peers: at most `globalBurst` failures, refilled at `globalPerSecond`;
///   a failure beyond that is answered `RESOURCE_EXHAUSTED` instead of `UNAUTHENTICATED`, and puts
///   its peer straight into back-off, so spreading guesses over many addresses gains nothing.
final class AuthThrottle: Sendable {
    /// What to do with a Hello before its token is checked.
    enum Admission: Equatable {
        case check
        case refuse(retryAfter: Duration)
    }

    private struct Record {
        var failures: Int
        var lastFailure: Microseconds
    }

    private struct State {
        var records: [String: Record] = [:]
        /// Global failures that may still be answered as plain UNAUTHENTICATED (a token bucket).
        var globalBudget: Double
        var budgetUpdated: Microseconds
    }

    /// A peer's failures are forgotten after this long without a new one.
    private static let memory: Microseconds = 600 * Time.microsPerSecond
    private static let freeFailures = 3
    private static let baseBackOffMillis = 500
    private static let maxBackOffMillis = 60_000
    private static let maxTrackedPeers = 10_000
    static let globalBurst = 20.0
    static let globalPerSecond = 10.0

    private let state = Mutex(State(globalBudget: AuthThrottle.globalBurst, budgetUpdated: Time.now()))

    /// Whether `peer` may have its token checked now.
    func admit(_ peer: String) -> Admission {
        let now = Time.now()
        return state.withLock { state in
            guard let record = state.records[peer] else { return .check }
            if now - record.lastFailure > Self.memory {
                state.records.removeValue(forKey: peer)
                return .check
            }
            let backOff = Self.backOffMicros(record.failures)
            let waited = now - record.lastFailure
            return waited >= backOff ? .check : .refuse(retryAfter: .microseconds(backOff - waited))
        }
    }

    /// Records a wrong token from `peer`; false when the global budget is spent, so the failure is
    /// to be answered as throttled.
    func recordFailure(_ peer: String) -> Bool {
        let now = Time.now()
        return state.withLock { state in
            let elapsed = Double(now - state.budgetUpdated) / Double(Time.microsPerSecond)
            state.globalBudget = min(Self.globalBurst, state.globalBudget + max(0, elapsed) * Self.globalPerSecond)
            state.budgetUpdated = now
            let withinBudget = state.globalBudget >= 1
            if withinBudget { state.globalBudget -= 1 }
            if state.records.count >= Self.maxTrackedPeers {
                state.records = state.records.filter { now - $0.value.lastFailure <= Self.memory }
                // Still full: forget everything rather than grow without bound.
                if state.records.count >= Self.maxTrackedPeers { state.records.removeAll() }
            }
            var record = state.records[peer] ?? Record(failures: 0, lastFailure: now)
            record.failures = max(record.failures + 1, withinBudget ? 0 : Self.freeFailures)
            record.lastFailure = now
            state.records[peer] = record
            return withinBudget
        }
    }

    /// No back-off below `freeFailures`; then 0.5 s, 1 s, 2 s, … up to a minute.
    private static func backOffMicros(_ failures: Int) -> Microseconds {
        guard failures >= freeFailures else { return 0 }
        let millis = min(maxBackOffMillis, baseBackOffMillis << min(failures - freeFailures, 16))
        return Microseconds(millis) * 1_000
    }
}

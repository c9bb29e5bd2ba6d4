import Foundation
import HealthModel
import Synchronization

/// Slows down credential guessing: after failed Hellos from a peer address, every further Hello
/// from it waits a delay that doubles with each failure (capped), before it is even checked.
/// A successful Hello does not wipe the record: otherwise anyone holding one valid token could
/// reset the delay between guesses. Failures are forgotten after `memory` without a new one.
final class AuthThrottle: Sendable {
    private struct Record {
        var failures: Int
        var lastFailure: Microseconds
    }

    /// A peer's failures are forgotten after this long without a new one.
    private static let memory: Microseconds = 600 * Time.microsPerSecond
    private static let baseDelayMillis = 200
    private static let maxDelayMillis = 5_000
    private static let maxTrackedPeers = 10_000

    private let records = Mutex<[String: Record]>([:])

    /// How long a Hello from `peer` must wait now.
    func delay(for peer: String) -> Duration {
        let failures = records.withLock { records -> Int in
            guard let record = records[peer] else { return 0 }
            if Time.now() - record.lastFailure > Self.memory {
                records.removeValue(forKey: peer)
                return 0
            }
            return record.failures
        }
        guard failures > 0 else { return .zero }
        let millis = min(Self.maxDelayMillis, Self.baseDelayMillis << min(failures - 1, 16))
        return .milliseconds(millis)
    }

    func recordFailure(peer: String) {
        let now = Time.now()
        records.withLock { records in
            if records.count >= Self.maxTrackedPeers {
                records = records.filter { now - $0.value.lastFailure <= Self.memory }
                // Still full: forget everything rather than grow without bound.
                if records.count >= Self.maxTrackedPeers { records.removeAll() }
            }
            records[peer, default: Record(failures: 0, lastFailure: now)].failures += 1
            records[peer]?.lastFailure = now
        }
    }
}

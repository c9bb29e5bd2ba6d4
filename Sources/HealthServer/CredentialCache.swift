import Foundation
import HealthModel
import HealthStorage
import Synchronization

/// The principals of tokens a Hello proved valid, so a device that connects again with its token is
/// answered on its event loop: without it each Hello hopped loop → task → reader thread → task →
/// loop, 80–160 µs of server CPU per connection under 10,000 reconnecting devices.
///
/// A revoked or rotated token is never accepted after its revocation committed:
/// - a revocation runs inside `revoking`, which counts it (`ConnectionRegistry.revocationCount`) and
///   empties the cache before the store commits, and lets nothing be remembered until it has closed
///   the app's connections;
/// - a token is remembered only when no revocation started or ran since just before the store checked
///   it, so a check that missed a revocation's commit is never remembered;
/// - a Hello answered from the cache reads the count with its look-up, and is accepted only if the
///   count has not moved once its connection is registered (`SessionStage.authenticated`): then the
///   acceptance came before any later revocation started, which finds the connection and closes it.
///
/// Only for stores whose credentials change only through this server (`Store.credentialsChangeOnlyHere`):
/// another node's revocation reaches this one only later, over its feed, so there nothing is remembered.
final class CredentialCache: Sendable {
    private struct State {
        /// By the token's SHA-256 hash, as the store keeps it: the look-up compares hashes, not secrets.
        var principals: [Data: Principal] = [:]
        /// Revocations started and not yet finished.
        var revoking = 0
    }

    /// Tokens remembered at most; a full cache is emptied (devices share their app's token, so a few suffice).
    static let capacity = 4096

    private let state = Mutex(State())
    private let registry: ConnectionRegistry
    private let enabled: Bool

    init(registry: ConnectionRegistry, enabled: Bool) {
        self.registry = registry
        self.enabled = enabled
    }

    /// The principal remembered for `token`, and the revocation count it holds at; nil when the token
    /// is not remembered (or a revocation is running): the store then checks it.
    func principal(for token: String) -> (Principal, revocations: UInt64)? {
        guard enabled else { return nil }
        let hash = TokenCrypto.hash(token)
        return state.withLock { state in
            guard state.revoking == 0, let principal = state.principals[hash] else { return nil }
            return (principal, registry.revocationCount)
        }
    }

    /// Remembers that the store found `token` to be `principal`, unless a revocation started since
    /// `revocations` was read (before the store was asked) or is running.
    func remember(_ principal: Principal, for token: String, checkedAfter revocations: UInt64) {
        guard enabled else { return }
        let hash = TokenCrypto.hash(token)
        state.withLock { state in
            guard state.revoking == 0, registry.revocationCount == revocations else { return }
            if state.principals.count >= Self.capacity { state.principals.removeAll() }
            state.principals[hash] = principal
        }
    }

    /// Runs a revocation or rotation: `revoke` commits it and closes the app's live connections.
    func revoking<T>(_ revoke: () async throws -> T) async rethrows -> T {
        state.withLock { state in
            registry.countRevocation()
            state.revoking += 1
            state.principals.removeAll()
        }
        defer { state.withLock { $0.revoking -= 1 } }
        return try await revoke()
    }
}
